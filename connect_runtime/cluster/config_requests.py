"""The REST requests that change connectors in the config topic: create or replace (after validation),
patch, delete, stop, pause and resume (Java's ``putConnectorConfig``, ``patchConnectorConfig``,
``deleteConnectorConfig``, ``stopConnector``, ``pauseConnector`` and ``resumeConnector``).

Plugin validation runs on the herder's pool; the privileged writes run on the herder thread through the
leader's fenced producer. Pause, resume and cluster logger levels are written by any worker with its
plain producer, outside the leader's transactions, as Java does (:func:`write_unprivileged`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Protocol, TypeVar

from confluent_kafka import Producer

from connect_runtime.cluster.cluster_view import ClusterView
from connect_runtime.cluster.herder_api import Created
from connect_runtime.cluster.leadership import Leadership
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.errors import AlreadyExistsHttpError, BadRequestHttpError
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import KafkaConfigBackingStore
from connect_runtime.storage.config_writer import ConfigWriteError
from connect_runtime.storage.status_store import KafkaStatusBackingStore
from connect_runtime.types import TargetState

T = TypeVar("T")

Records = list[tuple[str, bytes | None]]


class OnHerder(Protocol):
    """Runs a step on the herder thread and returns its result."""

    def __call__(self, fn: Callable[[], T]) -> T: ...


def write_unprivileged(producer: Producer, topic: str, key: str, value: bytes | None, what: str) -> None:
    """One record to the config topic outside the leader's transactions; raises if it is not acknowledged."""
    producer.produce(topic, key=key.encode(), value=value)
    if producer.flush(30):
        raise ConfigWriteError(TimeoutError(f"{what} write timed out"), fenced=False)


class ConfigRequests:
    """Connector config changes asked for through the REST API."""

    def __init__(
        self,
        config_store: KafkaConfigBackingStore,
        status_store: KafkaStatusBackingStore,
        leadership: Leadership,
        validator: ConnectorValidator,
        view: ClusterView,
        plain_producer: Producer,
        pool: Executor,
        on_herder: OnHerder,
        submit: Callable[[Callable[[], None]], Future[None]],
        write_task_configs: Callable[[str, list[dict[str, str]]], None],
        reset_active_topics: Callable[[str], None],
    ) -> None:
        self._config_store = config_store
        self._status_store = status_store
        self._leadership = leadership
        self._validator = validator
        self._view = view
        self._plain_producer = plain_producer
        self._pool = pool
        self._on_herder = on_herder
        self._submit = submit
        self._write_task_configs = write_task_configs
        self._reset_active_topics = reset_active_topics

    def put(self, name: str, config: dict[str, str], allow_replace: bool,
            initial_state: TargetState | None) -> Future[Created]:
        return self._pool.submit(self._validate_then_write, name, config, allow_replace, initial_state)

    def _validate_then_write(self, name: str, config: dict[str, str], allow_replace: bool,
                             initial_state: TargetState | None) -> Created:
        """Validate (plugin validation may be slow: the caller is a pool thread), then write on the herder
        thread."""
        def write() -> Created:
            self._leadership.require_leader()
            state = self._config_store.refresh()
            exists = state.contains(name)
            if exists and not allow_replace:
                raise AlreadyExistsHttpError(f"Connector {name} already exists")
            records: Records = []
            if initial_state is not None and not exists:
                records.append(formats.target_state_record(name, initial_state.value))
            records.append(formats.connector_config_record(name, config))
            self._check_size(records)
            self._leadership.write(records)
            state = self._config_store.refresh()
            return Created(not exists, self._view.info(state, name))

        self._leadership.require_leader()
        result = self._validator.validate(config)
        self._validator.raise_if_invalid(result, config)
        self._check_size([formats.connector_config_record(name, config)])
        return self._on_herder(write)

    def patch(self, name: str, patch: dict[str, str | None]) -> Future[Created]:
        def patched() -> dict[str, str]:
            # Leader first, as Java: a follower forwards the patch rather than merging a stale config.
            self._leadership.require_leader()
            state = self._config_store.refresh()
            self._view.require(state, name)
            config = dict(state.connector_configs[name])
            for key, value in patch.items():
                if value is None:
                    config.pop(key, None)
                else:
                    config[key] = value
            return config

        def run() -> Created:
            return self._validate_then_write(name, self._on_herder(patched), True, None)

        return self._pool.submit(run)

    def _check_size(self, records: Records) -> None:
        """Refuse a write the config topic would refuse, before anything is written (a 400 naming the
        limit instead of a failed transaction)."""
        writer = self._leadership.writer
        size = writer.batch_bytes(records)
        if size > writer.max_batch_bytes:
            raise BadRequestHttpError(
                f"Connector configuration is too large: it takes {size} bytes in the config topic, more than "
                f"the {writer.max_batch_bytes} bytes allowed by {writer.limit_source}")

    def delete(self, name: str) -> Future[None]:
        def run() -> None:
            state = self._config_store.refresh()
            self._view.require(state, name)
            self._leadership.require_leader()
            self._leadership.write([formats.connector_config_record(name, None),
                                    formats.target_state_record(name, None)])
            self._config_store.refresh()
            self._status_store.delete_connector(name)
            # Java resets a deleted connector's active topics (when its workers let it go).
            self._reset_active_topics(name)

        return self._submit(run)

    def stop(self, name: str) -> Future[None]:
        def run() -> None:
            state = self._config_store.refresh()
            self._view.require(state, name, f"Unknown connector {name}")
            self._leadership.require_leader()
            self._write_task_configs(name, [])
            self._leadership.write([formats.target_state_record(name, TargetState.STOPPED.value)])
            self._config_store.refresh()

        return self._submit(run)

    def write_target_state(self, name: str, state: TargetState) -> None:
        """Pause or resume, on the caller's thread."""
        self._view.require(self._config_store.refresh(), name, f"Unknown connector {name}")
        key, value = formats.target_state_record(name, state.value)
        write_unprivileged(self._plain_producer, self._config_store.topic, key, value, "target state")
