"""Zombie fencing by the leader before a new generation of a connector's exactly-once tasks starts
(``PUT /connectors/{c}/fence``; docs/architecture.md, "Exactly-once source tasks").

Fence only when the connector's task configs changed since its last ``tasks-fencing`` record, a
task-count record exists, and it is not a 1 -> 1 change; then the previous generation's transactional
ids ``<group.id>-<connector>-0..previous-1`` are fenced in parallel (a producer with the id calls
``init_transactions()``: librdkafka has no FenceProducers admin call), the config topic is read again,
and the new count is recorded unless the generation moved meanwhile (409). Rounds run on a pool of
their own, never on the herder thread; concurrent requests for one connector share one round.

A task that starts (start-up step 4) asks through :class:`TaskFencing`, the worker's one
``ZombieFencing``: the leader fences itself, any other worker asks the leader over internal REST.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from confluent_kafka import Producer

from connect_runtime.api.errors import ConfigException, ConnectException, RetriableException
from connect_runtime.api.kafka_clients import init_transactions
from connect_runtime.clients import producer_config
from connect_runtime.cluster.internal_client import InternalClient
from connect_runtime.cluster.leadership import Leadership
from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.config.override_policies import check_client_overrides
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.errors import BadRequestHttpError, ConflictHttpError, HttpStatusError, NotFoundHttpError
from connect_runtime.metrics.connect_metrics import ConnectMetrics, MetricGroup
from connect_runtime.metrics.registry import RUNTIME_CONNECTOR_GROUP
from connect_runtime.metrics.stats import CumulativeCount, Histogram, Sensor
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import KafkaConfigBackingStore
from connect_runtime.types import ConnectorTaskId
from connect_runtime.worker.task_metrics import COMMIT_LATENCY_BUCKETS_S
from connect_runtime.worker.worker import Worker

logger = logging.getLogger(__name__)

T = TypeVar("T")

FENCE_FAILED = "Failed to perform zombie fencing for connector {}"
FENCE_CONFLICT = "Fencing failed because new task configurations were generated for the connector"
_PRODUCER_INIT_TIMEOUT_S = 60.0
_FENCE_RETRY_BACKOFF_S = 0.5
_FENCE_RETRY_BACKOFF_MAX_S = 5.0


class ZombieFencer:
    """The leader's fencing rounds."""

    def __init__(
        self,
        config: WorkerConfig,
        config_store: KafkaConfigBackingStore,
        leadership: Leadership,
        is_source: Callable[[Mapping[str, str]], bool],
        producer_settings: Callable[[Mapping[str, str]], dict[str, Any]],
        on_herder: Callable[[Callable[[], None]], None],
        metrics: ConnectMetrics | None = None,
    ) -> None:
        self._config = config
        self._metrics = metrics
        # Per connector, opened at its first round here: rounds run on the leader, so the series are the
        # leader's (a worker that was leader keeps its counts, as cumulative counters do). Closed when the
        # connector is deleted, and when the fencer closes with its worker.
        self._round_sensors: dict[str, tuple[MetricGroup, Sensor]] = {}
        self._closed = False
        self._config_store = config_store
        self._leadership = leadership
        self._is_source = is_source
        self._producer_settings = producer_settings
        self._on_herder = on_herder
        self._producers_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="fence")
        self._rounds_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="fencing-round")
        self._lock = threading.Lock()
        self._in_flight: dict[str, Future[None]] = {}

    def close(self) -> None:
        self._producers_pool.shutdown(wait=False)
        self._rounds_pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            self._closed = True
            groups = [group for group, _ in self._round_sensors.values()]
            self._round_sensors.clear()
        for group in groups:
            group.close()

    def close_deleted(self, exists: Callable[[str], bool]) -> None:
        """Close the fencing series of the connectors fenced here that no longer ``exists``."""
        with self._lock:
            if not self._round_sensors:
                return
            gone = [name for name in self._round_sensors if not exists(name)]
            groups = [self._round_sensors.pop(name)[0] for name in gone]
        for group in groups:
            group.close()

    def fence_zombies(self, connector: str) -> Future[None]:
        """A round for ``connector``, or the one already in flight."""
        with self._lock:
            fut = self._in_flight.get(connector)
            if fut is None or fut.done():
                fut = self._rounds_pool.submit(self.fence, connector)
                self._in_flight[connector] = fut
            return fut

    def fence(self, connector: str) -> None:
        """One round, on the calling thread (a pool thread; never the herder's)."""
        self._leadership.require_leader()
        try:
            state = self._config_store.refresh()
        except Exception as e:
            raise ConnectException("Failed to read to end of config topic before performing zombie fencing") from e
        if not state.contains(connector):
            raise NotFoundHttpError(f"Connector {connector} not found")
        if not self._is_source(state.connector_configs[connector]):
            raise BadRequestHttpError(f"Connector {connector} is not a source connector")
        if connector not in state.pending_fencing:
            return
        previous = state.task_count_records.get(connector)
        count = state.task_counts.get(connector, 0)
        generation = state.task_config_generation(connector)
        if previous is not None and not (previous == 1 and count == 1):
            ids = [ConnectorTaskId(connector, i) for i in range(previous)]
            base = self._producer_settings(state.connector_configs[connector])
            started = time.monotonic()
            futures = [self._producers_pool.submit(self.fence_producer, t, base) for t in ids]
            try:
                for f in futures:
                    f.result(_PRODUCER_INIT_TIMEOUT_S)
            except Exception as e:
                raise ConnectException(FENCE_FAILED.format(connector) + f": {e}") from e
            finally:
                self._record_round(connector, time.monotonic() - started)
        self._on_herder(lambda: self._record_task_count(connector, generation, count))

    def _record_round(self, connector: str, duration_s: float) -> None:
        """A round fenced the producers of ``connector``'s previous generation (or failed to) in ``duration_s``."""
        if self._metrics is None:
            return
        with self._lock:
            if self._closed:
                return  # a round that ended after its worker stopped: no series left behind
            opened = self._round_sensors.get(connector)
            if opened is None:
                group = self._metrics.group(RUNTIME_CONNECTOR_GROUP, (("connector", connector),))
                opened = self._round_sensors[connector] = (group, group.sensor({
                    "fencing-rounds-total": CumulativeCount(),
                    "fencing-duration-seconds": Histogram(COMMIT_LATENCY_BUCKETS_S)}))
        opened[1].record(duration_s)

    def _record_task_count(self, connector: str, generation: int, count: int) -> None:
        """After fencing (herder thread): the ``tasks-fencing`` record, unless the generation moved."""
        self._leadership.require_leader()
        state = self._config_store.refresh()
        if state.task_config_generation(connector) != generation:
            raise ConflictHttpError(FENCE_CONFLICT)
        self._leadership.write([formats.task_count_record(connector, count)])
        self._config_store.refresh()

    def fence_producer(self, task: ConnectorTaskId, base: Mapping[str, Any]) -> None:
        """Bump the epoch of ``task``'s transactional id (aborting any open transaction of its holder)."""
        conf: dict[str, Any] = dict(base)
        conf["transactional.id"] = self._config.task_transactional_id(task.connector, task.task)
        producer = Producer(producer_config(conf))
        init_transactions(producer, _PRODUCER_INIT_TIMEOUT_S)
        producer.flush(0)


def fencing_producer_settings(worker: Worker, connector_props: Mapping[str, str]) -> dict[str, Any]:
    """The task producers' cluster: ``producer.override.bootstrap.servers`` may name another one
    (a provider placeholder resolved; refused when the override policy disallows it, as at task start).

    A config that cannot be resolved or parsed fails the round: falling back to the worker's own
    producer settings would fence on the wrong cluster when the tasks' producers are overridden."""
    failed = FENCE_FAILED.format(connector_props.get("name", ""))
    try:
        resolved = worker.worker_plugins.config_transformer.transform(connector_props)
    except ConfigException as e:
        raise ConnectException(f"{failed}: {e}") from e
    try:
        cfg = SourceConnectorConfig.parse(resolved.data)
    except ConfigException as e:
        # A parse error may quote a value a provider resolved: no secret in the error, nor in its cause.
        raise ConnectException(f"{failed}: {resolved.redact(str(e))}") from None
    check_client_overrides(worker.worker_plugins.override_policy, cfg.name,
                           worker.plugins.connector_class(cfg.connector_class), cfg.originals)
    return worker.offset_stores.client_settings(cfg, "producer")


class TaskFencing:
    """The worker's ``ZombieFencing``: called for a starting task (on the worker's thread that serves the
    task process's channel), it fences locally when this worker leads, else asks the leader.

    A failure the leader may get past on its own (no leader known yet, the worker asked no longer the
    leader, the leader unreachable or answering 5xx: its config topic read timing out while a broker
    fails over) is retried here, with backoff, until the rebalance timeout: reported at once, the task
    would show FAILED for what is a routine broker failover. Any other failure, or one that lasts, fails
    the task as retriable: it is restarted with backoff until fencing succeeds or its generation changes.
    """

    def __init__(self, config: WorkerConfig, leadership: Leadership, fencer: ZombieFencer,
                 internal: InternalClient, stopping: threading.Event) -> None:
        self._timeout_s = config.rebalance_timeout_ms / 1000.0
        self._leadership = leadership
        self._fencer = fencer
        self._internal = internal
        self._stopping = stopping

    def fence_zombies(self, connector: str, stopped: threading.Event | None = None) -> None:
        began = time.monotonic()
        deadline = began + self._timeout_s
        backoff_s = _FENCE_RETRY_BACKOFF_S
        attempts = 0
        try:
            while True:
                try:
                    if stopped is not None and stopped.is_set():
                        # Its successor may already run: a fencing round now would fence that one.
                        raise ConnectException(f"The task was stopped before the zombies of connector "
                                               f"{connector} were fenced")
                    attempts += 1
                    self._request(connector, deadline, stopped)
                    return
                except Exception as e:
                    if not _leader_may_recover(e):
                        raise
                    if time.monotonic() + backoff_s >= deadline or self._wait(backoff_s, stopped):
                        if attempts > 1:  # the trace says it was not one unlucky request
                            raise ConnectException(f"{e} (asked {attempts} times in "
                                                   f"{time.monotonic() - began:.1f} s)") from e
                        raise
                    logger.info("Zombie fencing for connector %s failed (%s); retrying in %.1f s",
                                connector, e, backoff_s)
                    backoff_s = min(2 * backoff_s, _FENCE_RETRY_BACKOFF_MAX_S)
        except ConflictHttpError as e:
            raise RetriableException(str(e)) from e  # new task configs: the assignment restarts the task
        except Exception as e:
            if isinstance(e, BadRequestHttpError | NotFoundHttpError):
                raise
            raise RetriableException(f"Zombie fencing for connector {connector} failed: {e}") from e

    def _wait(self, seconds: float, stopped: threading.Event | None) -> bool:
        """Wait ``seconds``; True as soon as the worker, or the task that asked, is stopping."""
        if stopped is None:
            return self._stopping.wait(seconds)
        deadline = time.monotonic() + seconds
        while not self._stopping.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if stopped.wait(min(remaining, 0.1)):
                return True
        return True

    def _request(self, connector: str, deadline: float, stopped: threading.Event | None) -> None:
        if self._leadership.is_leader:
            self._fencer.fence_zombies(connector).result(max(deadline - time.monotonic(), 0.0))
            return
        url = self._leadership.leader_url()
        while url is None and time.monotonic() < deadline and not self._wait(0.2, stopped):
            url = self._leadership.leader_url()  # a leader election is under way
        if url is None:
            raise ConnectException(f"Cannot fence zombies of connector {connector}: the leader is unknown")
        if stopped is not None and stopped.is_set():
            raise ConnectException(f"The task was stopped before the zombies of connector {connector} were fenced")
        if self._leadership.is_leader:
            self._fencer.fence_zombies(connector).result(max(deadline - time.monotonic(), 0.0))
            return
        self._internal.fence_zombies(url, connector)


def _leader_may_recover(error: Exception) -> bool:
    """Whether a failed fencing request is worth repeating: anything but a refused configuration or a
    4xx answer (a bad request, an unknown connector, new task configs), except a 409 saying that the
    worker asked is not the leader or knows none (leadership is moving)."""
    if isinstance(error, ConfigException):
        return False
    if isinstance(error, HttpStatusError) and 400 <= error.status < 500:
        return error.status == 409 and error.message != FENCE_CONFLICT
    return True
