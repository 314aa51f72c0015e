"""Internal-topic record formats, byte for byte as Apache Kafka Connect writes them.

Sources: KafkaConfigBackingStore (CONNECTOR_CONFIGURATION_V0, CONNECTOR_TASKS_COMMIT_V0,
TARGET_STATE_V1, TASK_COUNT_RECORD_V0, SESSION_KEY_V0, RESTART_REQUEST_V0, LOGGER_LEVEL_V0),
KafkaStatusBackingStore (STATUS_SCHEMA_V0, TOPIC_STATUS_SCHEMA_V0), OffsetStorageWriter
(key = Arrays.asList(namespace, partition)) and OffsetUtils; all serialized by JsonConverter with
schemas.enable=false, Struct fields in schema order.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from connect_runtime.api.errors import DataException
from connect_runtime.storage.formats import (
    CommitRecord,
    ConnectorConfigRecord,
    ConnectorStatusRecord,
    LoggerLevelRecord,
    RecordFormatError,
    RestartRequestRecord,
    SessionKeyRecord,
    TargetStateRecord,
    TaskConfigRecord,
    TaskCountRecord,
    TaskStatusRecord,
    TopicStatusRecord,
    UnknownConfigRecord,
    UnknownStatusRecord,
    commit_record,
    connector_config_record,
    connector_status_record,
    logger_level_record,
    offset_key,
    offset_record,
    offset_value,
    parse_config_record,
    parse_offset_key,
    parse_offset_value,
    parse_status_record,
    restart_request_record,
    session_key_record,
    target_state_record,
    task_config_record,
    task_count_record,
    task_status_record,
    topic_status_record,
    validate_offset_format,
)

# --- config topic: builders -------------------------------------------------------------------


def test_connector_config_record() -> None:
    assert connector_config_record("my-conn", {"a": "b"}) == (
        "connector-my-conn",
        b'{"properties":{"a":"b"}}',
    )
    assert connector_config_record("c", {"name": "c", "x": None, "tasks.max": "2"}) == (
        "connector-c",
        b'{"properties":{"name":"c","x":null,"tasks.max":"2"}}',
    )
    assert connector_config_record("c", None) == ("connector-c", None)
    with pytest.raises(DataException):
        connector_config_record("c", {"tasks.max": 2})  # type: ignore[dict-item]


def test_task_config_record_keeps_placeholders() -> None:
    assert task_config_record("my-conn", 3, {"secret": "${file:/x:y}"}) == (
        "task-my-conn-3",
        b'{"properties":{"secret":"${file:/x:y}"}}',
    )


def test_commit_and_task_count_records() -> None:
    assert commit_record("my-conn", 3) == ("commit-my-conn", b'{"tasks":3}')
    assert commit_record("c", 0) == ("commit-c", b'{"tasks":0}')
    assert task_count_record("my-conn", 5) == ("tasks-fencing-my-conn", b'{"task-count":5}')
    with pytest.raises(DataException):
        commit_record("c", True)
    with pytest.raises(DataException):
        task_count_record("c", 2**31)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ("STOPPED", b'{"state":"PAUSED","state.v2":"STOPPED"}'),  # old readers see PAUSED
        ("PAUSED", b'{"state":"PAUSED","state.v2":"PAUSED"}'),
        ("STARTED", b'{"state":"STARTED","state.v2":"STARTED"}'),
        (None, None),
    ],
)
def test_target_state_record(state: str | None, expected: bytes | None) -> None:
    assert target_state_record("my-conn", state) == ("target-state-my-conn", expected)


def test_target_state_record_rejects_rest_state_names() -> None:
    with pytest.raises(DataException):
        target_state_record("c", "RUNNING")


def test_session_restart_and_logger_records() -> None:
    assert session_key_record(b"\x01\x02\x03\xff", "HmacSHA256", 1700000000000) == (
        "session-key",
        b'{"key":"AQID/w==","algorithm":"HmacSHA256","creation-timestamp":1700000000000}',
    )
    assert restart_request_record("my-conn", True, False) == (
        "restart-connector-my-conn",
        b'{"include-tasks":true,"only-failed":false}',
    )
    assert logger_level_record("org.apache.kafka", "DEBUG") == (
        "logger-cluster-org.apache.kafka",
        b'{"level":"DEBUG"}',
    )


# --- config topic: parsing --------------------------------------------------------------------


def test_config_records_round_trip() -> None:
    records = [
        (
            connector_config_record("my-conn", {"a": "b", "n": None}),
            ConnectorConfigRecord("my-conn", {"a": "b", "n": None}),
        ),
        (connector_config_record("my-conn", None), ConnectorConfigRecord("my-conn", None)),
        (task_config_record("my-conn-2", 10, {"t": "1"}), TaskConfigRecord("my-conn-2", 10, {"t": "1"})),
        (commit_record("my-conn", 4), CommitRecord("my-conn", 4)),
        (target_state_record("my-conn", "STOPPED"), TargetStateRecord("my-conn", "STOPPED")),
        (target_state_record("my-conn", None), TargetStateRecord("my-conn", None)),
        (task_count_record("a-b-c", 2), TaskCountRecord("a-b-c", 2)),
        (session_key_record(b"k3y", "HmacSHA256", 5), SessionKeyRecord("azN5", "HmacSHA256", 5)),
        (restart_request_record("x-1", False, True), RestartRequestRecord("x-1", False, True)),
        (logger_level_record("root", "WARN"), LoggerLevelRecord("root", "WARN")),
    ]
    for (key, value), expected in records:
        assert parse_config_record(key, value) == expected
    assert SessionKeyRecord("azN5", "HmacSHA256", 5).key == b"k3y"


@pytest.mark.parametrize(
    ("key", "connector", "task"),
    [
        ("task-simple-0", "simple", 0),
        ("task-my-conn-3", "my-conn", 3),  # split at the LAST '-'
        ("task-a-1-2", "a-1", 2),
        ("task-trailing--7", "trailing-", 7),
        ("task--1", "", 1),
    ],
)
def test_task_keys_split_at_last_dash(key: str, connector: str, task: int) -> None:
    assert parse_config_record(key, b'{"properties":{}}') == TaskConfigRecord(connector, task, {})


@pytest.mark.parametrize("key", ["task-nonumber", "task-5", "task-c-x1", "task-c-99999999999"])
def test_unparseable_task_keys(key: str) -> None:
    with pytest.raises(RecordFormatError, match="couldn't be parsed as a task config key"):
        parse_config_record(key, b'{"properties":{}}')


def test_target_state_written_by_older_workers() -> None:
    # TARGET_STATE_V0 (no state.v2): fall back on "state"
    assert parse_config_record("target-state-c", b'{"state":"PAUSED"}') == TargetStateRecord("c", "PAUSED")
    # state.v2 of the wrong type is ignored in favour of "state", as Java does
    assert parse_config_record("target-state-c", b'{"state":"PAUSED","state.v2":5}') == TargetStateRecord(
        "c", "PAUSED"
    )
    assert parse_config_record("target-state-c", b'{"state":"PAUSED","state.v2":null}') == TargetStateRecord(
        "c", "PAUSED"
    )
    with pytest.raises(RecordFormatError, match="Invalid target state"):
        parse_config_record("target-state-c", b'{"state":"RUNNING"}')
    with pytest.raises(RecordFormatError):
        parse_config_record("target-state-c", b"{}")


def test_null_json_values_delete_like_tombstones() -> None:
    # JsonConverter turns JSON null (and empty bytes: Jackson's MissingNode) into a null value,
    # which KafkaConfigBackingStore treats exactly like a tombstone for these two record types.
    for value in (b"null", b"", b" "):
        assert parse_config_record("connector-c", value) == ConnectorConfigRecord("c", None)
        assert parse_config_record("target-state-c", value) == TargetStateRecord("c", None)
        with pytest.raises(RecordFormatError):
            parse_config_record("commit-c", value)


def test_unknown_config_keys_are_ignorable() -> None:
    for key in ("leader", "assignment", "worker-w1", "session-keys", "tasks-c", "status-connector-c"):
        assert parse_config_record(key, b"not even json") == UnknownConfigRecord(key, b"not even json")
    assert parse_config_record("leader", None) == UnknownConfigRecord("leader", None)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("connector-c", b"{not json"),
        ("connector-c", b'["a"]'),
        ("connector-c", b'{"properties":"x"}'),
        ("connector-c", b'{"properties":{"a":1}}'),
        ("task-c-0", None),  # Java: "unexpectedly null"
        ("task-c-0", b'{"other":{}}'),
        ("commit-c", None),
        ("commit-c", b'{"tasks":"3"}'),
        ("commit-c", b'{"tasks":3.0}'),
        ("commit-c", b'{"tasks":true}'),
        ("tasks-fencing-c", b"{}"),
        ("tasks-fencing-c", None),
        ("session-key", None),
        ("session-key", b'{"key":"***","algorithm":"HmacSHA256","creation-timestamp":1}'),
        ("session-key", b'{"key":"AQID","algorithm":"HmacSHA256","creation-timestamp":1.5}'),
        ("session-key", b'{"key":"AQID","creation-timestamp":1}'),
        ("restart-connector-c", None),
        ("logger-cluster-x", None),
        ("logger-cluster-x", b'{"level":3}'),
        ("target-state-c", b"3"),
    ],
)
def test_malformed_config_values_raise_record_format_error(key: str, value: bytes | None) -> None:
    with pytest.raises(RecordFormatError):
        parse_config_record(key, value)
    assert issubclass(RecordFormatError, DataException)


def test_restart_request_flags_default_to_false(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert parse_config_record("restart-connector-c", b'{"include-tasks":"yes"}') == RestartRequestRecord(
            "c", False, False
        )
    assert "defaulting to false" in caplog.text


# --- offsets topic ----------------------------------------------------------------------------


def test_offset_keys_and_values_match_java() -> None:
    assert offset_key("verifiable", {"id": 0}) == b'["verifiable",{"id":0}]'
    assert (
        offset_key("file-source", {"filename": "/tmp/a b.txt"})
        == b'["file-source",{"filename":"/tmp/a b.txt"}]'
    )
    assert offset_key("c", {"b": 1, "a": "x", "f": 2.0, "t": True, "n": None}) == (
        b'["c",{"b":1,"a":"x","f":2.0,"t":true,"n":null}]'
    )
    assert offset_key("c", None) == b'["c",null]'
    assert offset_key("c", {}) == b'["c",{}]'
    assert offset_value({"seqno": 41}) == b'{"seqno":41}'
    assert offset_value({"position": 1.5e10, "file": "\u00e9"}) == b'{"position":1.5E10,"file":"\xc3\xa9"}'
    assert offset_value(None) is None
    assert offset_record("verifiable", {"id": 1}, {"seqno": 2}) == (
        b'["verifiable",{"id":1}]',
        b'{"seqno":2}',
    )


def test_offset_format_validation_uses_javas_messages() -> None:
    with pytest.raises(DataException, match="Offsets may only use String keys"):
        offset_key("c", {1: "x"})  # type: ignore[dict-item]
    with pytest.raises(DataException, match="but field p contains MAP"):
        offset_key("c", {"p": {"nested": 1}})
    with pytest.raises(DataException, match="but field p contains ARRAY"):
        offset_value({"p": [1]})
    with pytest.raises(DataException, match="Offsets must be specified as a Map"):
        validate_offset_format(["x"])
    validate_offset_format({"s": "x", "i": 1, "f": 1.0, "b": False, "y": b"\x00", "n": None})


def test_offset_key_round_trip() -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("verifiable", {"id": 0}),
        ("my-conn", {"f": "a", "n": 2, "x": None}),
        ("c", {}),
    ]
    for connector, partition in cases:
        assert parse_offset_key(offset_key(connector, partition)) == (connector, partition)


@pytest.mark.parametrize(
    ("data", "warning"),
    [
        (None, "unexpected null value"),
        (b"{bad", "unknown serialization"),
        (b'{"a":1}', "Expected type: java.util.List"),
        (b'["c"]', "unexpected number of elements"),
        (b'["c",{},1]', "unexpected number of elements"),
        (b'[1,{"a":1}]', "first element"),
        (b'["c",[1]]', "second element"),
    ],
)
def test_malformed_offset_keys_are_skipped_with_a_warning(
    data: bytes | None, warning: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert parse_offset_key(data) is None
    assert warning in caplog.text


def test_offset_key_with_null_partition_is_skipped_silently(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert parse_offset_key(b'["c",null]') is None
    assert caplog.text == ""


def test_parse_offset_value() -> None:
    assert parse_offset_value(None) is None
    assert parse_offset_value(b"null") is None
    assert parse_offset_value(b'{"seqno":41,"f":1.0E10}') == {"seqno": 41, "f": 1e10}
    for bad in (b"[1]", b'"x"', b'{"a":{"b":1}}', b"{"):
        with pytest.raises(RecordFormatError):
            parse_offset_value(bad)


# --- status topic -----------------------------------------------------------------------------


def test_status_records_match_java() -> None:
    assert connector_status_record("my-conn", "RUNNING", "h:8083", 3) == (
        "status-connector-my-conn",
        b'{"state":"RUNNING","trace":null,"worker_id":"h:8083","generation":3,"version":null}',
    )
    assert task_status_record("my-conn", 2, "FAILED", "h:8083", 7, trace="Boom\n\tat x.y(Z.java:1)",
                              version="3.9.0") == (
        "status-task-my-conn-2",
        b'{"state":"FAILED","trace":"Boom\\n\\tat x.y(Z.java:1)","worker_id":"h:8083","generation":7,'
        b'"version":"3.9.0"}',
    )
    assert topic_status_record("my-topic", "my-conn", 0, 1600000000000) == (
        "status-topic-my-topic:connector-my-conn",
        b'{"topic":{"name":"my-topic","connector":"my-conn","task":0,"discoverTimestamp":1600000000000}}',
    )


def test_status_tombstones() -> None:
    # Java writes DESTROYED as a tombstone
    assert connector_status_record("c", "DESTROYED", "h:1", 1) == ("status-connector-c", None)
    assert task_status_record("c", 0, "DESTROYED", "h:1", 1) == ("status-task-c-0", None)
    with pytest.raises(DataException):
        connector_status_record("c", "STARTED", "h:1", 1)


def test_status_records_round_trip() -> None:
    cases = [
        (
            connector_status_record("my-conn", "RUNNING", "h:8083", 3),
            ConnectorStatusRecord("my-conn", "RUNNING", None, "h:8083", 3),
        ),
        (
            task_status_record("my-conn-2", 10, "FAILED", "h:8083", 4, "trace"),
            TaskStatusRecord("my-conn-2", 10, "FAILED", "trace", "h:8083", 4),
        ),
        (("status-connector-my-conn", None), ConnectorStatusRecord("my-conn", None)),
        (("status-task-a-b-0", None), TaskStatusRecord("a-b", 0, None)),
        (topic_status_record("t.x_y", "my-conn", 1, 99), TopicStatusRecord("t.x_y", "my-conn", 1, 99)),
        (("status-topic-t:connector-my-conn", None), TopicStatusRecord("t", "my-conn", None, None)),
    ]
    for (key, value), expected in cases:
        assert parse_status_record(key, value) == expected


def test_status_records_written_by_java() -> None:
    # worker_id and trace may be null in Java's reader; Kafka 4.1's version is read; extra fields are ignored
    value = b'{"state":"UNASSIGNED","trace":null,"worker_id":null,"generation":0,"version":"4.1.1","x":1}'
    assert parse_status_record("status-task-c-0", value) == TaskStatusRecord(
        "c", 0, "UNASSIGNED", None, None, 0, "4.1.1"
    )
    # Records written before Kafka 4.1 have no version.
    old = b'{"state":"RUNNING","trace":null,"worker_id":"w","generation":2}'
    assert parse_status_record("status-connector-c", old) == ConnectorStatusRecord("c", "RUNNING", None, "w", 2)


def test_unknown_status_keys_are_ignorable() -> None:
    assert parse_status_record("status-worker-w1", b"{}") == UnknownStatusRecord("status-worker-w1", b"{}")
    assert parse_status_record("other", None) == UnknownStatusRecord("other", None)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("status-connector-", b"{}"),
        ("status-connector-c", b'{"state":"BOGUS","worker_id":"w","generation":1}'),
        ("status-connector-c", b'{"state":"RUNNING","worker_id":"w"}'),
        ("status-connector-c", b'{"state":"RUNNING","worker_id":"w","generation":"1"}'),
        ("status-connector-c", b'{"state":"RUNNING","worker_id":5,"generation":1}'),
        ("status-connector-c", b"[]"),
        ("status-connector-c", b"{"),
        ("status-task-c", b'{"state":"RUNNING","worker_id":"w","generation":1}'),
        ("status-task-c-x", None),
        ("status-topic-t", None),
        ("status-topic-:connector-c", None),
        ("status-topic-t:connector-", None),
        ("status-topic-t:conn-c", None),
        ("status-topic-t:connector-c", b'{"name":"t"}'),
        ("status-topic-t:connector-c", b'{"topic":{"name":"t","connector":"c","task":0}}'),
    ],
)
def test_malformed_status_records(key: str, value: bytes | None) -> None:
    with pytest.raises(RecordFormatError):
        parse_status_record(key, value)
