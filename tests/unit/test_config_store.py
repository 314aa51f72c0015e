"""How the config store applies records (no broker: records are fed to its reader callback).

Pinned here: the connector config a task-config commit was applied under (reference
``appliedConnectorConfig``), which tells the herder that a config change has not reached the tasks
yet even when the task configs it generates are unchanged.
"""

from __future__ import annotations

from typing import Any

from connect_runtime.storage import formats
from connect_runtime.storage.config_store import KafkaConfigBackingStore


class _Record:
    """The part of ``confluent_kafka.Message`` the store reads."""

    def __init__(self, key: str, value: bytes | None, offset: int) -> None:
        self._key, self._value, self._offset = key.encode(), value, offset

    def key(self) -> bytes:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def offset(self) -> int:
        return self._offset


class _Feeder:
    def __init__(self) -> None:
        admin: Any = None  # never used: the store's reader is not started
        self.store = KafkaConfigBackingStore("configs", {}, admin)
        self._offset = 0

    def feed(self, *records: tuple[str, bytes | None]) -> None:
        for key, value in records:
            msg: Any = _Record(key, value, self._offset)
            self.store._on_record(msg)
            self._offset += 1


def _commit(name: str, configs: list[dict[str, str]]) -> list[tuple[str, bytes | None]]:
    return [*(formats.task_config_record(name, i, c) for i, c in enumerate(configs)),
            formats.commit_record(name, len(configs))]


def test_applied_connector_config_follows_task_config_commits() -> None:
    feeder = _Feeder()
    v1 = {"name": "c", "connector.class": "X", "value.converter": "JsonConverter"}
    v2 = {**v1, "value.converter": "StringConverter"}
    feeder.feed(formats.connector_config_record("c", v1))
    state = feeder.store.snapshot()
    assert "c" not in state.applied_connector_configs and not state.connector_config_applied("c")

    feeder.feed(*_commit("c", [{"topic": "t"}]))
    state = feeder.store.snapshot()
    assert state.applied_connector_configs["c"] == v1 and state.connector_config_applied("c")
    assert state.task_config_generation("c") == 1

    # A new connector config leaves the task configs alone until they are committed again.
    feeder.feed(formats.connector_config_record("c", v2))
    state = feeder.store.snapshot()
    assert state.applied_connector_configs["c"] == v1 and not state.connector_config_applied("c")

    feeder.feed(*_commit("c", [{"topic": "t"}]))  # the same task configs, written again
    state = feeder.store.snapshot()
    assert state.applied_connector_configs["c"] == v2 and state.connector_config_applied("c")
    assert state.task_config_generation("c") == 2
    assert "c" in state.pending_fencing

    feeder.feed(formats.connector_config_record("c", None))
    assert "c" not in feeder.store.snapshot().applied_connector_configs


def test_inconsistent_commit_applies_no_connector_config() -> None:
    feeder = _Feeder()
    v1 = {"name": "c", "connector.class": "X"}
    feeder.feed(formats.connector_config_record("c", v1), *_commit("c", [{"topic": "t"}]))
    feeder.feed(formats.connector_config_record("c", {**v1, "x": "y"}), formats.commit_record("c", 2))
    state = feeder.store.snapshot()
    assert "c" in state.inconsistent
    assert state.applied_connector_configs["c"] == v1
