"""The config topic as the cluster's replicated state: connectors, task configs, target states,
task-count (fencing) records, session keys, restart requests and leader claims.

Everything is applied in topic order on the reader thread; the herder gets a consistent immutable
:class:`ClusterConfigState` snapshot and a callback per applied change. Task configs are buffered
until their ``commit-<c>`` record arrives with ids 0..N-1 all present (docs/architecture.md, "Internal topic records").
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Message
from confluent_kafka.admin import AdminClient

from connect_runtime.storage import formats
from connect_runtime.storage.kafka_log import FatalCallback, KafkaBasedLog
from connect_runtime.types import ConnectorTaskId, TargetState

logger = logging.getLogger(__name__)

LEADER_KEY = "leader"
#: Our own record (ignored by Java workers): the leader's current placement, parsed by the herder.
ASSIGNMENT_KEY = "assignment"


@dataclass(frozen=True, slots=True)
class LeaderRecord:
    """Our own record (ignored by Java workers): who leads the group, at which epoch."""

    worker_id: str
    url: str
    epoch: int
    #: The claiming process's session id: tells a restarted worker (same id) from the one that claimed.
    session: str = ""

    def to_bytes(self) -> bytes:
        return json.dumps({"worker_id": self.worker_id, "url": self.url, "epoch": self.epoch,
                           "session": self.session}, separators=(",", ":")).encode()

    @staticmethod
    def parse(data: bytes) -> LeaderRecord:
        v = json.loads(data)
        return LeaderRecord(str(v["worker_id"]), str(v["url"]), int(v["epoch"]), str(v.get("session", "")))


@dataclass(frozen=True, slots=True)
class SessionKey:
    """A KIP-507 inter-worker signing key."""

    key: bytes
    algorithm: str
    creation_timestamp: int

    def __repr__(self) -> str:  # never print key material
        return f"SessionKey(algorithm={self.algorithm}, creation_timestamp={self.creation_timestamp})"


@dataclass(frozen=True, slots=True)
class RestartRequest:
    """A ``restart-connector-<c>`` request."""

    connector: str
    include_tasks: bool
    only_failed: bool


@dataclass(frozen=True)
class ClusterConfigState:
    """An immutable snapshot of everything the config topic says, as of ``offset``."""

    offset: int = -1
    connector_configs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    target_states: Mapping[str, TargetState] = field(default_factory=dict)
    task_configs: Mapping[ConnectorTaskId, Mapping[str, str]] = field(default_factory=dict)
    task_counts: Mapping[str, int] = field(default_factory=dict)
    task_count_records: Mapping[str, int] = field(default_factory=dict)
    task_config_generations: Mapping[str, int] = field(default_factory=dict)
    #: The connector config that was current when the connector's latest task configs were committed
    #: (reference ``appliedConnectorConfig``): a change since then must reach the tasks even when the
    #: task configs it generates are the same (new converters, client overrides).
    applied_connector_configs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    pending_fencing: frozenset[str] = frozenset()
    inconsistent: frozenset[str] = frozenset()
    session_key: SessionKey | None = None
    leader: LeaderRecord | None = None
    assignment: bytes | None = None
    restart_requests: tuple[RestartRequest, ...] = ()

    def connectors(self) -> list[str]:
        return sorted(self.connector_configs)

    def contains(self, connector: str) -> bool:
        return connector in self.connector_configs

    def target_state(self, connector: str) -> TargetState:
        return self.target_states.get(connector, TargetState.STARTED)

    def tasks(self, connector: str) -> list[ConnectorTaskId]:
        if connector in self.inconsistent:
            return []
        return [ConnectorTaskId(connector, i) for i in range(self.task_counts.get(connector, 0))]

    def task_config(self, task: ConnectorTaskId) -> Mapping[str, str] | None:
        return self.task_configs.get(task)

    def task_config_generation(self, connector: str) -> int:
        return self.task_config_generations.get(connector, 0)

    def connector_config_applied(self, connector: str) -> bool:
        """Whether the connector's current config is the one its task configs were committed under."""
        return self.applied_connector_configs.get(connector) == self.connector_configs.get(connector)


#: Called on the reader thread after a record changed the state, with the record's key.
ConfigListener = Callable[[str], None]
#: Called on the reader thread for each ``logger-cluster-*`` record: namespace, level, record offset.
LoggerLevelListener = Callable[[str, str, int], None]


class KafkaConfigBackingStore:
    """Reads the config topic (read_committed) and keeps :class:`ClusterConfigState` current."""

    def __init__(self, topic: str, consumer_config: Mapping[str, Any], admin: AdminClient,
                 listener: ConfigListener | None = None, *, on_fatal: FatalCallback | None = None) -> None:
        self.topic = topic
        self._listener = listener
        self._lock = threading.Lock()
        self._connector_configs: dict[str, Mapping[str, str]] = {}
        self._target_states: dict[str, TargetState] = {}
        self._task_configs: dict[ConnectorTaskId, Mapping[str, str]] = {}
        self._task_counts: dict[str, int] = {}
        self._task_count_records: dict[str, int] = {}
        self._generations: dict[str, int] = {}
        self._applied_connector_configs: dict[str, Mapping[str, str]] = {}
        self._pending_fencing: set[str] = set()
        self._inconsistent: set[str] = set()
        self._deferred: dict[str, dict[int, Mapping[str, str]]] = {}
        self._session_key: SessionKey | None = None
        self._leader: LeaderRecord | None = None
        self._assignment: bytes | None = None
        self._restarts: list[RestartRequest] = []
        self._offset = -1
        self._snapshot = ClusterConfigState()
        self._dirty = False
        self._log = KafkaBasedLog(topic, consumer_config, admin, self._on_record, name="config-log-reader",
                                  on_fatal=on_fatal)
        #: Receives cluster-wide logger levels (they are not part of the snapshot: each worker applies
        #: them as it reads them, and only those written after it started, as Java's workers do).
        self.logger_listener: LoggerLevelListener | None = None

    def start(self, read_to_end: bool = True) -> None:
        """Start reading; see :meth:`KafkaBasedLog.start` for when not to wait for the end."""
        self._log.start(read_to_end=read_to_end)

    def stop(self) -> None:
        self._log.stop()

    def refresh(self, timeout_s: float = 30.0) -> ClusterConfigState:
        """Read to the end of the topic and return the snapshot."""
        self._log.read_to_end().result(timeout_s)
        return self.snapshot()

    def snapshot(self) -> ClusterConfigState:
        """The current state; rebuilt lazily so start-up replays stay linear."""
        with self._lock:
            if self._dirty:
                self._snapshot = self._build_snapshot()
                self._dirty = False
            return self._snapshot

    def _on_record(self, msg: Message) -> None:
        raw_key = msg.key()
        if raw_key is None:
            return
        key = raw_key.decode("utf-8", "replace")
        value: bytes | None = msg.value()
        with self._lock:
            self._offset = msg.offset() or 0
            try:
                changed = self._apply(key, value)
            except Exception:  # a malformed record must not kill the reader (Java logs and skips)
                logger.exception("Skipping malformed config record with key %s", key)
                changed = False
            self._dirty = True
        if changed and self._listener is not None:
            self._listener(key)
        if self.logger_listener is not None and key.startswith(formats.LOGGER_CLUSTER_PREFIX):
            self._on_logger_record(key, value, msg.offset() or 0)

    def _on_logger_record(self, key: str, value: bytes | None, offset: int) -> None:
        try:
            rec = formats.parse_config_record(key, value)
        except Exception as e:  # Java logs and ignores a malformed logger record
            logger.error("%s", e)
            return
        if isinstance(rec, formats.LoggerLevelRecord) and self.logger_listener is not None:
            self.logger_listener(rec.namespace, rec.level, offset)

    def _apply(self, key: str, value: bytes | None) -> bool:
        if key == LEADER_KEY:
            if value is not None:
                self._leader = LeaderRecord.parse(value)
            return True
        if key == ASSIGNMENT_KEY:
            self._assignment = value
            return True
        rec = formats.parse_config_record(key, value)
        if isinstance(rec, formats.ConnectorConfigRecord):
            if rec.properties is None:
                self._remove_connector(rec.name)
            else:
                self._connector_configs[rec.name] = _strings(rec.properties)
            return True
        if isinstance(rec, formats.TaskConfigRecord):
            self._deferred.setdefault(rec.connector, {})[rec.task] = _strings(rec.properties)
            return False
        if isinstance(rec, formats.CommitRecord):
            self._apply_commit(rec.connector, rec.tasks)
            return True
        if isinstance(rec, formats.TargetStateRecord):
            if rec.state is None:
                self._target_states.pop(rec.connector, None)
            else:
                self._target_states[rec.connector] = TargetState(rec.state)
            return True
        if isinstance(rec, formats.TaskCountRecord):
            self._task_count_records[rec.connector] = rec.task_count
            self._pending_fencing.discard(rec.connector)
            return True
        if isinstance(rec, formats.SessionKeyRecord):
            self._session_key = SessionKey(rec.key, rec.algorithm, rec.creation_timestamp)
            return True
        if isinstance(rec, formats.RestartRequestRecord):
            # Kept in order; the herder applies each once (by its position in this list).
            self._restarts.append(RestartRequest(rec.connector, rec.include_tasks, rec.only_failed))
            return True
        return False

    def _remove_connector(self, name: str) -> None:
        self._connector_configs.pop(name, None)
        self._target_states.pop(name, None)
        for tid in [t for t in self._task_configs if t.connector == name]:
            del self._task_configs[tid]
        self._task_counts.pop(name, None)
        self._applied_connector_configs.pop(name, None)
        self._deferred.pop(name, None)
        self._inconsistent.discard(name)

    def _apply_commit(self, connector: str, count: int) -> None:
        deferred = self._deferred.pop(connector, {})
        if any(i not in deferred for i in range(count)) and count > 0:
            # Java: commit without every task config is "inconsistent": keep the old configs.
            logger.error("Connector %s committed %d tasks but not all task configs were written", connector, count)
            self._inconsistent.add(connector)
            return
        for tid in [t for t in self._task_configs if t.connector == connector]:
            del self._task_configs[tid]
        for i in range(count):
            self._task_configs[ConnectorTaskId(connector, i)] = deferred[i]
        self._task_counts[connector] = count
        self._inconsistent.discard(connector)
        self._generations[connector] = self._generations.get(connector, 0) + 1
        applied = self._connector_configs.get(connector)
        if applied is not None:
            self._applied_connector_configs[connector] = applied
        self._pending_fencing.add(connector)

    def _build_snapshot(self) -> ClusterConfigState:
        return ClusterConfigState(
            offset=self._offset,
            connector_configs=dict(self._connector_configs),
            target_states=dict(self._target_states),
            task_configs=dict(self._task_configs),
            task_counts=dict(self._task_counts),
            task_count_records=dict(self._task_count_records),
            task_config_generations=dict(self._generations),
            applied_connector_configs=dict(self._applied_connector_configs),
            pending_fencing=frozenset(self._pending_fencing),
            inconsistent=frozenset(self._inconsistent),
            session_key=self._session_key,
            leader=self._leader,
            assignment=self._assignment,
            restart_requests=tuple(self._restarts),
        )


def _strings(props: Mapping[str, str | None]) -> dict[str, str]:
    """Java configs may hold nulls; they mean 'unset', so drop them."""
    return {k: v for k, v in props.items() if v is not None}
