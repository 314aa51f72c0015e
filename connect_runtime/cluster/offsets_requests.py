"""The offsets requests of the REST API (KIP-875): read, alter and reset a connector's offsets, as
Java's ``DistributedHerder.connectorOffsets`` and ``modifyConnectorOffsets``.

A read is checked on the herder thread and answered off it; a change is checked, fenced (exactly-once
source connectors) and written on the herder's pool, never on the herder thread, since it reads and
writes Kafka and may wait for a fencing round.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future
from typing import TypeVar

from connect_runtime.api.errors import ConnectException
from connect_runtime.cluster.cluster_view import ClusterView
from connect_runtime.cluster.leadership import Leadership
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.errors import BadRequestHttpError, NotLeaderHttpError
from connect_runtime.storage.config_store import KafkaConfigBackingStore
from connect_runtime.types import ConnectorOffset, ConnectorOffsets, TargetState
from connect_runtime.worker.offsets_admin import SourceConnectorOffsets, normalize_offsets

logger = logging.getLogger(__name__)

T = TypeVar("T")

_OFFSETS_FENCE_FAILED = "Failed to perform zombie fencing for source connector prior to modifying offsets"


class OffsetsRequests:
    """Reads and changes of connectors' offsets asked for through the REST API."""

    def __init__(
        self,
        config: WorkerConfig,
        config_store: KafkaConfigBackingStore,
        leadership: Leadership,
        view: ClusterView,
        offsets: SourceConnectorOffsets,
        fence_zombies: Callable[[str], Future[None]],
        submit: Callable[[Callable[[], Future[ConnectorOffsets]]], Future[Future[ConnectorOffsets]]],
        pool: Executor,
    ) -> None:
        self._config = config
        self._config_store = config_store
        self._leadership = leadership
        self._view = view
        self._offsets = offsets
        self._fence_zombies = fence_zombies
        self._submit = submit
        self._pool = pool

    def close(self) -> None:
        self._offsets.close()

    def read(self, name: str) -> Future[ConnectorOffsets]:
        """Any worker answers (as the reference does): the herder thread checks the connector exists,
        the offsets are read off it."""
        def run() -> Future[ConnectorOffsets]:
            state = self._config_store.snapshot()
            self._view.require(state, name)
            return self._offsets.read(name, state.connector_configs[name])

        return _flatten(self._submit(run))

    def alter(self, name: str, offsets: list[ConnectorOffset]) -> Future[str]:
        if not offsets:
            failed: Future[str] = Future()
            failed.set_exception(ConnectException("The offsets to be altered may not be null or empty"))
            return failed
        return self._modify(name, list(offsets))

    def reset(self, name: str) -> Future[str]:
        return self._modify(name, None)

    def _modify(self, name: str, offsets: list[ConnectorOffset] | None) -> Future[str]:
        """Reference ``DistributedHerder.modifyConnectorOffsets``: the checks, then under exactly-once a
        fencing round, then the offsets are read and written; none of it on the herder thread."""
        def run() -> Future[str]:
            cfg = self._checks(name)
            normalized = normalize_offsets(name, offsets) if offsets is not None else None
            if self._config.exactly_once_source_enabled and self._view.is_source(cfg):
                # No task of an older generation may commit offsets after ours: fence them all first.
                logger.debug("Performing a round of zombie fencing before modifying offsets for source "
                             "connector %s with exactly-once support enabled.", name)
                try:
                    self._fence_zombies(name).result(self._config.rebalance_timeout_ms / 1000.0)
                except Exception as e:
                    logger.error("Failed to perform zombie fencing for source connector prior to modifying "
                                 "offsets", exc_info=e)
                    raise ConnectException(_OFFSETS_FENCE_FAILED) from e
                cfg = self._checks(name)  # the fencing read the config topic again
            return self._offsets.modify(name, cfg, normalized)

        return _flatten(self._pool.submit(run))

    def _checks(self, name: str) -> Mapping[str, str]:
        if not self._leadership.is_leader:
            raise NotLeaderHttpError("Only the leader can process external offsets modification requests",
                                     self._leadership.leader_url())
        try:
            state = self._config_store.refresh()
        except Exception as e:
            raise ConnectException("Failed to read to end of config topic before modifying connector offsets") from e
        self._view.require(state, name)
        # STOPPED with no tasks: the tasks were at least asked to stop (zombies are fenced under EOS).
        if state.target_state(name) is not TargetState.STOPPED or state.task_counts.get(name, 0) != 0:
            raise BadRequestHttpError(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done "
                f"for the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint")
        return state.connector_configs[name]


def _flatten(outer: Future[Future[T]]) -> Future[T]:
    """The result of the future that ``outer`` yields (a herder step that hands work to a pool)."""
    result: Future[T] = Future()

    def inner_done(inner: Future[T]) -> None:
        if inner.cancelled():
            result.cancel()
            return
        exc = inner.exception()
        if exc is not None:
            result.set_exception(exc)
        else:
            result.set_result(inner.result())

    def outer_done(f: Future[Future[T]]) -> None:
        if f.cancelled():
            result.cancel()
            return
        exc = f.exception()
        if exc is not None:
            result.set_exception(exc)
        else:
            f.result().add_done_callback(inner_done)

    outer.add_done_callback(outer_done)
    return result
