"""Keys and values of the internal topics, byte-compatible with Apache Kafka Connect.

Pure functions, no Kafka I/O. Values are JSON written as Java's ``JsonConverter`` writes them with
``schemas.enable=false`` (the internal converter of every Java worker), with fields in the order
of the Java ``Struct`` schemas (``KafkaConfigBackingStore``, ``KafkaStatusBackingStore``,
``OffsetStorageWriter``). Keys of the config and status topics are plain strings (the caller
encodes them as UTF-8, as Java's ``StringSerializer`` does); offsets-topic keys are JSON bytes.

Error policy of the parsers:

* a key this module does not know gives :class:`UnknownConfigRecord` / :class:`UnknownStatusRecord`
  (with the raw value), never an error: records of our own protocol (leader claims, assignments,
  worker heartbeats) and future Java record types must be skippable;
* a known key with a malformed value (bad JSON, wrong field types, an unexpected tombstone, or an
  unparseable task id) raises :class:`RecordFormatError`, carrying the message Java logs when it
  skips such a record. The store logs it and skips the record, as Java does;
* :func:`parse_offset_key` returns None for keys Java's ``OffsetUtils.processPartitionKey`` ignores,
  after logging Java's warning.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import json_dumps_compact, json_loads
from connect_runtime.api.offsets_topic import (
    RecordFormatError,
    offset_key,
    offset_record,
    offset_value,
    parse_offset_key,
    parse_offset_value,
    validate_offset_format,
)

log = logging.getLogger(__name__)

__all__ = [
    "COMMIT_TASKS_PREFIX",
    "CONNECTOR_PREFIX",
    "CONNECTOR_STATUS_PREFIX",
    "LOGGER_CLUSTER_PREFIX",
    "RESTART_PREFIX",
    "SESSION_KEY_KEY",
    "STATUS_STATES",
    "TARGET_STATES",
    "TARGET_STATE_PREFIX",
    "TASK_COUNT_RECORD_PREFIX",
    "TASK_PREFIX",
    "TASK_STATUS_PREFIX",
    "TOPIC_STATUS_PREFIX",
    "TOPIC_STATUS_SEPARATOR",
    "CommitRecord",
    "ConfigRecord",
    "ConnectorConfigRecord",
    "ConnectorStatusRecord",
    "LoggerLevelRecord",
    "RecordFormatError",
    "RestartRequestRecord",
    "SessionKeyRecord",
    "StatusRecord",
    "TargetStateRecord",
    "TaskConfigRecord",
    "TaskCountRecord",
    "TaskStatusRecord",
    "TopicStatusRecord",
    "UnknownConfigRecord",
    "UnknownStatusRecord",
    "commit_key",
    "commit_record",
    "connector_config_record",
    "connector_key",
    "connector_status_key",
    "connector_status_record",
    "logger_level_key",
    "logger_level_record",
    "offset_key",
    "offset_record",
    "offset_value",
    "parse_config_record",
    "parse_offset_key",
    "parse_offset_value",
    "parse_status_record",
    "restart_key",
    "restart_request_record",
    "session_key_record",
    "target_state_key",
    "target_state_record",
    "task_config_record",
    "task_count_key",
    "task_count_record",
    "task_key",
    "task_status_key",
    "task_status_record",
    "topic_status_key",
    "topic_status_record",
    "validate_offset_format",
]


# --- config topic -----------------------------------------------------------------------------

CONNECTOR_PREFIX: Final = "connector-"
TASK_PREFIX: Final = "task-"
COMMIT_TASKS_PREFIX: Final = "commit-"
TARGET_STATE_PREFIX: Final = "target-state-"
TASK_COUNT_RECORD_PREFIX: Final = "tasks-fencing-"
SESSION_KEY_KEY: Final = "session-key"
RESTART_PREFIX: Final = "restart-connector-"
LOGGER_CLUSTER_PREFIX: Final = "logger-cluster-"

#: Java's ``TargetState`` names. The REST API's RUNNING is the target state STARTED.
TARGET_STATES: Final = ("STARTED", "PAUSED", "STOPPED")

_INT32_MAX: Final = 2**31 - 1
_TASK_KEY_RE: Final = re.compile(r"task-(.*)-([0-9]+)", re.DOTALL)
_TASK_STATUS_KEY_RE: Final = re.compile(r"status-task-(.*)-([0-9]+)", re.DOTALL)


def connector_key(name: str) -> str:
    """``connector-<name>``."""
    return CONNECTOR_PREFIX + name


def task_key(connector: str, task: int) -> str:
    """``task-<connector>-<task>``."""
    return f"{TASK_PREFIX}{connector}-{task}"


def commit_key(connector: str) -> str:
    """``commit-<connector>``."""
    return COMMIT_TASKS_PREFIX + connector


def target_state_key(connector: str) -> str:
    """``target-state-<connector>``."""
    return TARGET_STATE_PREFIX + connector


def task_count_key(connector: str) -> str:
    """``tasks-fencing-<connector>`` (KIP-618's task-count record)."""
    return TASK_COUNT_RECORD_PREFIX + connector


def restart_key(connector: str) -> str:
    """``restart-connector-<connector>``."""
    return RESTART_PREFIX + connector


def logger_level_key(namespace: str) -> str:
    """``logger-cluster-<namespace>``."""
    return LOGGER_CLUSTER_PREFIX + namespace


@dataclass(frozen=True, slots=True)
class ConnectorConfigRecord:
    """``connector-<name>``: the connector's raw config; ``properties`` None = deleted."""

    name: str
    properties: dict[str, str | None] | None


@dataclass(frozen=True, slots=True)
class TaskConfigRecord:
    """``task-<connector>-<n>``: one task's config, applied only when a commit record covers it."""

    connector: str
    task: int
    properties: dict[str, str | None]


@dataclass(frozen=True, slots=True)
class CommitRecord:
    """``commit-<connector>``: the connector now has ``tasks`` tasks (ids 0..tasks-1)."""

    connector: str
    tasks: int


@dataclass(frozen=True, slots=True)
class TargetStateRecord:
    """``target-state-<connector>``: STARTED, PAUSED or STOPPED; None = removed with the connector."""

    connector: str
    state: str | None


@dataclass(frozen=True, slots=True)
class TaskCountRecord:
    """``tasks-fencing-<connector>``: the task count fenced for the current task generation."""

    connector: str
    task_count: int


@dataclass(frozen=True, slots=True)
class SessionKeyRecord:
    """``session-key``: the KIP-507 key for signing internal requests."""

    key_b64: str
    algorithm: str
    creation_timestamp: int

    @property
    def key(self) -> bytes:
        """The raw key bytes."""
        return base64.b64decode(self.key_b64)


@dataclass(frozen=True, slots=True)
class RestartRequestRecord:
    """``restart-connector-<connector>``: a restart request (KIP-745)."""

    connector: str
    include_tasks: bool
    only_failed: bool


@dataclass(frozen=True, slots=True)
class LoggerLevelRecord:
    """``logger-cluster-<namespace>``: a cluster-wide log level change (KIP-976)."""

    namespace: str
    level: str


@dataclass(frozen=True, slots=True)
class UnknownConfigRecord:
    """A config-topic record with a key Java does not know (ours, or a future type): skip it."""

    key: str
    value: bytes | None = None


ConfigRecord: TypeAlias = (
    ConnectorConfigRecord
    | TaskConfigRecord
    | CommitRecord
    | TargetStateRecord
    | TaskCountRecord
    | SessionKeyRecord
    | RestartRequestRecord
    | LoggerLevelRecord
    | UnknownConfigRecord
)


def _check_properties(properties: Mapping[str, str | None]) -> dict[str, str | None]:
    # CONNECTOR_CONFIGURATION_V0: map(STRING, OPTIONAL_STRING); Java's Struct rejects anything else.
    for name, value in properties.items():
        if not isinstance(name, str):
            raise DataException(f"Invalid type for STRING: {type(name)} (config key {name!r})")
        if value is not None and not isinstance(value, str):
            raise DataException(f"Invalid type for STRING: {type(value)} (value of config {name!r})")
    return dict(properties)


def _check_int(name: str, value: int, bits: int = 32) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1)
    ):
        raise DataException(f"Invalid value for INT{bits} field {name!r}: {value!r}")
    return value


def _check_str(name: str, value: str) -> str:
    if not isinstance(value, str):
        raise DataException(f"Invalid type for STRING field {name!r}: {type(value)}")
    return value


def connector_config_record(
    name: str, properties: Mapping[str, str | None] | None
) -> tuple[str, bytes | None]:
    """``connector-<name>`` = ``{"properties":{...}}``; ``properties`` None gives the tombstone."""
    if properties is None:
        return connector_key(name), None
    return connector_key(name), json_dumps_compact({"properties": _check_properties(properties)})


def task_config_record(connector: str, task: int, properties: Mapping[str, str | None]) -> tuple[str, bytes]:
    """``task-<connector>-<task>`` = ``{"properties":{...}}`` (raw: ``${provider:...}`` kept)."""
    _check_int("task", task)
    return task_key(connector, task), json_dumps_compact({"properties": _check_properties(properties)})


def commit_record(connector: str, tasks: int) -> tuple[str, bytes]:
    """``commit-<connector>`` = ``{"tasks":N}``."""
    return commit_key(connector), json_dumps_compact({"tasks": _check_int("tasks", tasks)})


def target_state_record(connector: str, state: str | None) -> tuple[str, bytes | None]:
    """``target-state-<connector>`` = ``{"state":...,"state.v2":...}`` (TARGET_STATE_V1).

    STOPPED is written as ``"state":"PAUSED"`` (what workers older than KIP-875 understand) beside
    ``"state.v2":"STOPPED"``. None gives the tombstone (written when a connector is deleted).
    """
    if state is None:
        return target_state_key(connector), None
    if state not in TARGET_STATES:
        raise DataException(f"Invalid target state {state!r}; expected one of {', '.join(TARGET_STATES)}")
    legacy = "PAUSED" if state == "STOPPED" else state
    return target_state_key(connector), json_dumps_compact({"state": legacy, "state.v2": state})


def task_count_record(connector: str, task_count: int) -> tuple[str, bytes]:
    """``tasks-fencing-<connector>`` = ``{"task-count":N}``."""
    return task_count_key(connector), json_dumps_compact({"task-count": _check_int("task-count", task_count)})


def session_key_record(key: bytes, algorithm: str, creation_timestamp: int) -> tuple[str, bytes]:
    """``session-key`` = ``{"key":"<base64>","algorithm":...,"creation-timestamp":<ms>}``."""
    value = {
        "key": base64.b64encode(key).decode("ascii"),
        "algorithm": _check_str("algorithm", algorithm),
        "creation-timestamp": _check_int("creation-timestamp", creation_timestamp, 64),
    }
    return SESSION_KEY_KEY, json_dumps_compact(value)


def restart_request_record(connector: str, include_tasks: bool, only_failed: bool) -> tuple[str, bytes]:
    """``restart-connector-<connector>`` = ``{"include-tasks":bool,"only-failed":bool}``."""
    value = {"include-tasks": bool(include_tasks), "only-failed": bool(only_failed)}
    return restart_key(connector), json_dumps_compact(value)


def logger_level_record(namespace: str, level: str) -> tuple[str, bytes]:
    """``logger-cluster-<namespace>`` = ``{"level":"DEBUG"}``."""
    return logger_level_key(namespace), json_dumps_compact({"level": _check_str("level", level)})


def _load(value: bytes, what: str) -> Any:
    try:
        return json_loads(value)
    except ValueError as exc:
        raise RecordFormatError(f"Failed to convert {what} to Kafka Connect format: {exc}") from exc


def _class_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _load_nullable(value: bytes | None, what: str) -> Any:
    # A tombstone, JSON null and empty bytes (Jackson's MissingNode) all read as a null value.
    return None if value is None else _load(value, what)


def _as_map(data: Any, wrong_format: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise RecordFormatError(f"{wrong_format}: {_class_name(data)}")
    return data


def _load_map(value: bytes | None, what: str, wrong_format: str) -> dict[str, Any]:
    return _as_map(_load_nullable(value, what), wrong_format)


def _int_field(data: dict[str, Any], field: str, message: str) -> int:
    # Java's intValue(): an Integer or a Long; anything else (a double, a string) is an error.
    number = data.get(field)
    if isinstance(number, bool) or not isinstance(number, int):
        raise RecordFormatError(f"{message}: '{field}' should be an integer but is {_class_name(number)}")
    return number


def _properties(data: dict[str, Any], message: str) -> dict[str, str | None]:
    properties = data.get("properties")
    if not isinstance(properties, dict):
        raise RecordFormatError(
            f"{message}: 'properties' field should be a Map but is {_class_name(properties)}"
        )
    for name, item in properties.items():
        if item is not None and not isinstance(item, str):
            raise RecordFormatError(
                f"{message}: value of '{name}' should be a String but is {_class_name(item)}"
            )
    return properties


def parse_config_record(key: str, value: bytes | None) -> ConfigRecord:
    """Parse one config-topic record (dispatching on the key prefix in Java's order).

    Unknown keys give :class:`UnknownConfigRecord`; malformed values of known keys raise
    :class:`RecordFormatError` (see the module docstring). A target-state record prefers
    ``state.v2`` and falls back to ``state`` (records of older workers); a restart request with a
    missing or non-boolean flag defaults it to false, as Java does.
    """
    if key.startswith(TARGET_STATE_PREFIX):
        return _parse_target_state(key[len(TARGET_STATE_PREFIX) :], value)
    if key.startswith(CONNECTOR_PREFIX):
        name = key[len(CONNECTOR_PREFIX) :]
        loaded = _load_nullable(value, "config data")
        if loaded is None:  # Java deletes the connector on any null value
            return ConnectorConfigRecord(name, None)
        data = _as_map(
            loaded, f"Ignoring configuration for connector '{name}' because it is in the wrong format"
        )
        return ConnectorConfigRecord(
            name, _properties(data, f"Invalid data for config for connector '{name}'")
        )
    if key.startswith(TASK_PREFIX):
        match = _TASK_KEY_RE.fullmatch(key)
        if match is None or int(match.group(2)) > _INT32_MAX:
            raise RecordFormatError(
                f"Ignoring task configuration because {key} couldn't be parsed as a task config key"
            )
        connector, task = match.group(1), int(match.group(2))
        if value is None:
            raise RecordFormatError(
                f"Ignoring task configuration for task {connector}-{task} because it is unexpectedly null"
            )
        data = _load_map(
            value,
            "config data",
            f"Ignoring task configuration for task {connector}-{task} because the value is not a Map",
        )
        return TaskConfigRecord(
            connector, task, _properties(data, f"Invalid data for config of task {connector}-{task}")
        )
    if key.startswith(COMMIT_TASKS_PREFIX):
        connector = key[len(COMMIT_TASKS_PREFIX) :]
        data = _load_map(
            value,
            "config data",
            f"Ignoring connector tasks configuration commit for connector '{connector}' "
            "because it is in the wrong format",
        )
        return CommitRecord(
            connector, _int_field(data, "tasks", f"Invalid commit record for connector '{connector}'")
        )
    if key.startswith(RESTART_PREFIX):
        return _parse_restart(key[len(RESTART_PREFIX) :], value)
    if key.startswith(TASK_COUNT_RECORD_PREFIX):
        connector = key[len(TASK_COUNT_RECORD_PREFIX) :]
        data = _load_map(
            value,
            "config data",
            f"Ignoring task count record for connector '{connector}' because it is in the wrong format",
        )
        return TaskCountRecord(
            connector,
            _int_field(data, "task-count", f"Invalid task count record for connector '{connector}'"),
        )
    if key == SESSION_KEY_KEY:
        return _parse_session_key(value)
    if key.startswith(LOGGER_CLUSTER_PREFIX):
        namespace = key[len(LOGGER_CLUSTER_PREFIX) :]
        data = _load_map(
            value,
            "config data",
            f"Ignoring logging level for namespace {namespace} because the value is not a Map",
        )
        level = data.get("level")
        if not isinstance(level, str):
            raise RecordFormatError(
                f"Invalid data for logging level key 'level' field with namespace {namespace}; "
                f"should be a String but it is {_class_name(level)}"
            )
        return LoggerLevelRecord(namespace, level)
    return UnknownConfigRecord(key, value)


def _parse_target_state(connector: str, value: bytes | None) -> TargetStateRecord:
    loaded = _load_nullable(value, "config data")
    if loaded is None:  # Java removes the target state on any null value
        return TargetStateRecord(connector, None)
    data = _as_map(
        loaded, f"Ignoring target state for connector '{connector}' because it is in the wrong format"
    )
    state = data.get("state.v2")
    if state is not None and not isinstance(state, str):
        log.error(
            "Invalid data for target state for connector '%s': 'state.v2' field should be a String but is %s",
            connector,
            _class_name(state),
        )
        state = None
    if state is None:  # written by an older worker: fall back on the older field
        state = data.get("state")
        if not isinstance(state, str):
            raise RecordFormatError(
                f"Invalid data for target state for connector '{connector}': "
                f"'state' field should be a String but is {_class_name(state)}"
            )
    if state not in TARGET_STATES:
        raise RecordFormatError(f"Invalid target state for connector '{connector}': {state}")
    return TargetStateRecord(connector, state)


def _parse_restart(connector: str, value: bytes | None) -> RestartRequestRecord:
    data = _load_map(value, "config data", "Ignoring restart request because the value is not a Map")
    flags: dict[str, bool] = {}
    for field in ("include-tasks", "only-failed"):
        flag = data.get(field)
        if not isinstance(flag, bool):
            log.warning(
                "Invalid data for restart request '%s' field should be a Boolean but is %s, "
                "defaulting to false",
                field,
                _class_name(flag),
            )
            flag = False
        flags[field] = flag
    return RestartRequestRecord(connector, flags["include-tasks"], flags["only-failed"])


def _parse_session_key(value: bytes | None) -> SessionKeyRecord:
    if value is None:
        raise RecordFormatError("Ignoring session key because it is unexpectedly null")
    data = _load_map(value, "config data", "Ignoring session key because the value is not a Map")
    key = data.get("key")
    if not isinstance(key, str):
        raise RecordFormatError(
            f"Invalid data for session key 'key' field should be a String but is {_class_name(key)}"
        )
    try:
        base64.b64decode(key, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RecordFormatError(f"Invalid data for session key 'key' field: not base64 ({exc})") from exc
    algorithm = data.get("algorithm")
    if not isinstance(algorithm, str):
        raise RecordFormatError(
            "Invalid data for session key 'algorithm' field should be a String but it is "
            + _class_name(algorithm)
        )
    timestamp = data.get("creation-timestamp")
    if isinstance(timestamp, bool) or not isinstance(timestamp, int):
        raise RecordFormatError(
            "Invalid data for session key 'creation-timestamp' field should be a long but it is "
            + _class_name(timestamp)
        )
    return SessionKeyRecord(key, algorithm, timestamp)


# --- offsets topic ----------------------------------------------------------------------------


# --- status topic -----------------------------------------------------------------------------

CONNECTOR_STATUS_PREFIX: Final = "status-connector-"
TASK_STATUS_PREFIX: Final = "status-task-"
TOPIC_STATUS_PREFIX: Final = "status-topic-"
TOPIC_STATUS_SEPARATOR: Final = ":connector-"

#: ``AbstractStatus.State`` names. DESTROYED is never written: it is a tombstone.
STATUS_STATES: Final = ("UNASSIGNED", "RUNNING", "PAUSED", "FAILED", "DESTROYED", "RESTARTING", "STOPPED")


def connector_status_key(connector: str) -> str:
    """``status-connector-<connector>``."""
    return CONNECTOR_STATUS_PREFIX + connector


def task_status_key(connector: str, task: int) -> str:
    """``status-task-<connector>-<task>``."""
    return f"{TASK_STATUS_PREFIX}{connector}-{task}"


def topic_status_key(topic: str, connector: str) -> str:
    """``status-topic-<topic>:connector-<connector>`` (KIP-558 active topics)."""
    return f"{TOPIC_STATUS_PREFIX}{topic}{TOPIC_STATUS_SEPARATOR}{connector}"


@dataclass(frozen=True, slots=True)
class ConnectorStatusRecord:
    """``status-connector-<c>``; ``state`` None (and every other field None) = tombstone."""

    connector: str
    state: str | None
    trace: str | None = None
    worker_id: str | None = None
    generation: int | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True)
class TaskStatusRecord:
    """``status-task-<c>-<n>``; ``state`` None (and every other field None) = tombstone."""

    connector: str
    task: int
    state: str | None
    trace: str | None = None
    worker_id: str | None = None
    generation: int | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True)
class TopicStatusRecord:
    """``status-topic-<topic>:connector-<c>``; ``task``/``discover_timestamp`` None = tombstone."""

    topic: str
    connector: str
    task: int | None
    discover_timestamp: int | None


@dataclass(frozen=True, slots=True)
class UnknownStatusRecord:
    """A status-topic record with a key Java does not know (e.g. our worker heartbeats)."""

    key: str
    value: bytes | None = None


StatusRecord: TypeAlias = ConnectorStatusRecord | TaskStatusRecord | TopicStatusRecord | UnknownStatusRecord


def _status_value(state: str, worker_id: str, generation: int, trace: str | None,
                  version: str | None = None) -> bytes | None:
    if state not in STATUS_STATES:
        raise DataException(f"Invalid status state {state!r}; expected one of {', '.join(STATUS_STATES)}")
    if state == "DESTROYED":
        return None
    if trace is not None:
        _check_str("trace", trace)
    if version is not None:
        _check_str("version", version)
    # STATUS_SCHEMA_V0 field order (Kafka 4.1 appended the optional "version"); absent values are nulls.
    value = {
        "state": state,
        "trace": trace,
        "worker_id": _check_str("worker_id", worker_id),
        "generation": _check_int("generation", generation),
        "version": version,
    }
    return json_dumps_compact(value)


def connector_status_record(
    connector: str, state: str, worker_id: str, generation: int, trace: str | None = None,
    version: str | None = None,
) -> tuple[str, bytes | None]:
    """``status-connector-<c>`` = ``{"state","trace","worker_id","generation","version"}``; DESTROYED =
    tombstone."""
    return connector_status_key(connector), _status_value(state, worker_id, generation, trace, version)


def task_status_record(
    connector: str, task: int, state: str, worker_id: str, generation: int, trace: str | None = None,
    version: str | None = None,
) -> tuple[str, bytes | None]:
    """``status-task-<c>-<n>`` = ``{"state","trace","worker_id","generation","version"}``; DESTROYED =
    tombstone."""
    _check_int("task", task)
    return task_status_key(connector, task), _status_value(state, worker_id, generation, trace, version)


def topic_status_record(topic: str, connector: str, task: int, discover_timestamp: int) -> tuple[str, bytes]:
    """``status-topic-<topic>:connector-<c>`` =
    ``{"topic":{"name","connector","task","discoverTimestamp"}}``."""
    value = {
        "topic": {
            "name": _check_str("name", topic),
            "connector": _check_str("connector", connector),
            "task": _check_int("task", task),
            "discoverTimestamp": _check_int("discoverTimestamp", discover_timestamp, 64),
        }
    }
    return topic_status_key(topic, connector), json_dumps_compact(value)


def parse_status_record(key: str, value: bytes | None) -> StatusRecord:
    """Parse one status-topic record (same error policy as :func:`parse_config_record`).

    Like Java, ``trace`` and ``worker_id`` may be null; ``state`` must be a known state name and
    ``generation`` an integer.
    """
    if key.startswith(CONNECTOR_STATUS_PREFIX):
        connector = key[len(CONNECTOR_STATUS_PREFIX) :]
        if not connector:
            raise RecordFormatError(f"Discarding record with invalid connector status key {key}")
        if value is None:
            return ConnectorStatusRecord(connector, None)
        state, trace, worker_id, generation, version = _parse_status_value(value, "connector status")
        return ConnectorStatusRecord(connector, state, trace, worker_id, generation, version)
    if key.startswith(TASK_STATUS_PREFIX):
        match = _TASK_STATUS_KEY_RE.fullmatch(key)
        if match is None or int(match.group(2)) > _INT32_MAX:
            raise RecordFormatError(f"Discarding record with invalid task status key {key}")
        connector, task = match.group(1), int(match.group(2))
        if value is None:
            return TaskStatusRecord(connector, task, None)
        state, trace, worker_id, generation, version = _parse_status_value(value, "task status")
        return TaskStatusRecord(connector, task, state, trace, worker_id, generation, version)
    if key.startswith(TOPIC_STATUS_PREFIX):
        return _parse_topic_status(key, value)
    return UnknownStatusRecord(key, value)


def _parse_status_value(value: bytes, what: str) -> tuple[str, str | None, str | None, int, str | None]:
    data = _load(value, what)
    if not isinstance(data, dict):
        raise RecordFormatError(f"Invalid {what} type {_class_name(data)}")
    state = data.get("state")
    if state not in STATUS_STATES:
        raise RecordFormatError(f"Failed to deserialize {what}: invalid state {state!r}")
    trace = data.get("trace")
    worker_id = data.get("worker_id")
    version = data.get("version")  # absent in records written before Kafka 4.1
    for field, item in (("trace", trace), ("worker_id", worker_id), ("version", version)):
        if item is not None and not isinstance(item, str):
            raise RecordFormatError(f"Failed to deserialize {what}: '{field}' is a {_class_name(item)}")
    generation = data.get("generation")
    if isinstance(generation, bool) or not isinstance(generation, int):
        raise RecordFormatError(f"Failed to deserialize {what}: 'generation' is a {_class_name(generation)}")
    return state, trace, worker_id, generation, version


def _parse_topic_status(key: str, value: bytes | None) -> TopicStatusRecord:
    # KafkaStatusBackingStore.readTopicStatus: the topic runs to the first ':' (topic names cannot
    # contain one), the connector follows ":connector-".
    delimiter = key.find(":", len(TOPIC_STATUS_PREFIX))
    if delimiter < 0 or not key.startswith(TOPIC_STATUS_SEPARATOR, delimiter):
        raise RecordFormatError(f"Discarding record with invalid topic status key {key}")
    topic = key[len(TOPIC_STATUS_PREFIX) : delimiter]
    if not topic:
        raise RecordFormatError(
            f"Discarding record with invalid topic status key containing empty topic {key}"
        )
    connector = key[delimiter + len(TOPIC_STATUS_SEPARATOR) :]
    if not connector:
        raise RecordFormatError(
            f"Discarding record with invalid topic status key containing empty connector {key}"
        )
    if value is None:
        return TopicStatusRecord(topic, connector, None, None)
    data = _load(value, "topic status")
    inner = data.get("topic") if isinstance(data, dict) else None
    if not isinstance(inner, dict):
        raise RecordFormatError(f"Invalid topic status value {data!r} for field topic")
    task = inner.get("task")
    timestamp = inner.get("discoverTimestamp")
    for field, item in (("task", task), ("discoverTimestamp", timestamp)):
        if isinstance(item, bool) or not isinstance(item, int):
            raise RecordFormatError(f"Failed to deserialize topic status: '{field}' is a {_class_name(item)}")
    return TopicStatusRecord(topic, connector, task, timestamp)
