"""The herder's REST reads: served from the config snapshot and the status store on the caller's
thread, never queued behind the herder thread; held back only until the start-up read is done.

No broker: the herder is built without ``__init__`` and given fake stores (only what reads touch).
"""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from connect_runtime.cluster.cluster_view import ClusterView
from connect_runtime.cluster.herder import DistributedHerder
from connect_runtime.cluster.herder_api import ConnectorInfo, ConnectorStateInfo, StateInfo, TaskInfo, TaskStateInfo
from connect_runtime.errors import NotFoundHttpError
from connect_runtime.storage.config_store import ClusterConfigState
from connect_runtime.storage.status_store import ConnectorStatus, KafkaStatusBackingStore, TaskStatus
from connect_runtime.types import ConnectorTaskId
from connectors.verifiable.connector import VerifiableSourceConnector

WORKER = "w1:8083"
CONFIG = {"name": "c", "connector.class": "VerifiableSource", "topic": "t", "tasks.max": "2"}


class _Plugins:
    def __init__(self) -> None:
        self.lookups = 0

    def connector_class(self, name: str) -> type[VerifiableSourceConnector]:
        self.lookups += 1
        if name != "VerifiableSource":
            raise LookupError(name)
        return VerifiableSourceConnector


class _StatusStore:
    def __init__(self) -> None:
        self.connectors: dict[str, ConnectorStatus] = {}
        self.tasks: dict[ConnectorTaskId, TaskStatus] = {}
        self.reads: list[str] = []

    def statuses(self) -> tuple[dict[str, ConnectorStatus], dict[ConnectorTaskId, TaskStatus]]:
        self.reads.append("statuses")
        return dict(self.connectors), dict(self.tasks)

    def get_connector(self, connector: str) -> ConnectorStatus | None:
        return self.connectors.get(connector)

    def get_task(self, task: ConnectorTaskId) -> TaskStatus | None:
        return self.tasks.get(task)

    def get_all_tasks(self, connector: str) -> list[TaskStatus]:
        self.reads.append(f"get_all_tasks {connector}")
        return sorted((s for t, s in self.tasks.items() if t.connector == connector), key=lambda s: s.id.task)


def _state() -> ClusterConfigState:
    t0, t1 = ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)
    return ClusterConfigState(
        offset=5,
        connector_configs={"c": CONFIG},
        task_configs={t0: {"task.class": "T", "id": "0"}, t1: {"task.class": "T", "id": "1"}},
        task_counts={"c": 2},
    )


def _herder(*, started: bool) -> tuple[DistributedHerder, _StatusStore, _Plugins]:
    """A herder (no ``__init__``) whose reads go to a real ClusterView over fake stores; its queue fails
    the test if a read goes through it."""
    herder = object.__new__(DistributedHerder)
    status = _StatusStore()
    plugins = _Plugins()
    herder._view = ClusterView(SimpleNamespace(snapshot=_state), status, plugins, WORKER)  # type: ignore[arg-type]

    def no_queue(fn: Any) -> Any:
        raise AssertionError("a REST read went through the herder thread's queue")

    herder._submit = no_queue  # type: ignore[method-assign]
    if started:
        herder._open_reads()
    return herder, status, plugins


def test_reads_wait_for_the_start_up_read_then_complete() -> None:
    herder, _, _ = _herder(started=False)
    names = herder.connectors()
    info = herder.connector_info("c")
    missing = herder.connector_status("nope")
    assert not names.done() and not info.done() and not missing.done()
    expanded = herder.connectors_expanded(True, True)
    assert not expanded.done()
    herder._open_reads()
    assert names.result(0) == ["c"]
    assert expanded.result(0)["c"].info == info.result(0)
    assert info.result(0).name == "c"
    with pytest.raises(NotFoundHttpError, match="No status found for connector nope"):
        missing.result(0)
    # From now on reads complete before they are returned.
    assert herder.connectors().done()


def test_reads_complete_at_once_with_the_snapshot() -> None:
    herder, status, _ = _herder(started=True)
    status.connectors["c"] = ConnectorStatus("c", "RUNNING", None, "w2:8083", 3)
    status.tasks[ConnectorTaskId("c", 1)] = TaskStatus(ConnectorTaskId("c", 1), "FAILED", "boom", "w2:8083", 3)

    assert herder.connectors().result(0) == ["c"]
    assert herder.connector_config("c").result(0) == CONFIG
    assert herder.connector_info("c").result(0) == ConnectorInfo(
        "c", CONFIG, [ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)], "source")
    assert herder.task_configs("c").result(0) == [
        TaskInfo(ConnectorTaskId("c", 0), {"task.class": "T", "id": "0"}),
        TaskInfo(ConnectorTaskId("c", 1), {"task.class": "T", "id": "1"}),
    ]
    assert herder.connector_status("c").result(0) == ConnectorStateInfo(
        "c", StateInfo("RUNNING", "w2:8083", None),
        [TaskStateInfo("UNASSIGNED", WORKER, None, 0), TaskStateInfo("FAILED", "w2:8083", "boom", 1)],
        "source")
    assert herder.task_status(ConnectorTaskId("c", 1)).result(0) == TaskStateInfo("FAILED", "w2:8083", "boom", 1)


def _two_connectors(herder: DistributedHerder, status: _StatusStore) -> None:
    """Connectors ``b`` (no tasks, PAUSED, a status with a version) and ``c`` (as ``_state``, task 1 FAILED)."""
    state = _state()
    two = ClusterConfigState(offset=6, connector_configs={**state.connector_configs, "b": {**CONFIG, "name": "b"}},
                             task_configs=state.task_configs, task_counts=state.task_counts)
    herder._view._config_store = SimpleNamespace(snapshot=lambda: two)  # type: ignore[assignment]
    status.connectors["b"] = ConnectorStatus("b", "PAUSED", None, "w2:8083", 1, "1.0")
    status.connectors["c"] = ConnectorStatus("c", "RUNNING", None, "w2:8083", 3)
    status.tasks[ConnectorTaskId("c", 1)] = TaskStatus(ConnectorTaskId("c", 1), "FAILED", "boom", "w2:8083", 3)
    # A record of a task beyond the current count (a config with fewer tasks since) is not listed.
    status.tasks[ConnectorTaskId("c", 2)] = TaskStatus(ConnectorTaskId("c", 2), "RUNNING", None, "w2:8083", 2)


@pytest.mark.parametrize(("with_status", "with_info"), [(True, True), (True, False), (False, True), (False, False)])
def test_connectors_expanded_is_every_connectors_status_and_info_in_one_read(with_status: bool,
                                                                             with_info: bool) -> None:
    herder, status, _ = _herder(started=True)
    _two_connectors(herder, status)

    expanded = herder.connectors_expanded(with_status, with_info).result(0)

    assert list(expanded) == ["b", "c"]
    for name, entry in expanded.items():
        assert entry.status == (herder.connector_status(name).result(0) if with_status else None)
        assert entry.info == (herder.connector_info(name).result(0) if with_info else None)
    assert expanded["c"].status is None or [t.state for t in expanded["c"].status.tasks] == ["UNASSIGNED", "FAILED"]
    # The statuses of all connectors come from one copy of the store, not one scan per connector.
    status.reads.clear()
    herder.connectors_expanded(with_status, with_info).result(0)
    assert status.reads == (["statuses"] if with_status else [])


@pytest.mark.parametrize(
    ("read", "message"),
    [
        (lambda h: h.connector_info("x"), "Connector x not found"),
        (lambda h: h.connector_config("x"), "Connector x not found"),
        (lambda h: h.task_configs("x"), "Connector x not found"),
        (lambda h: h.connector_status("x"), "No status found for connector x"),
        (lambda h: h.task_status(ConnectorTaskId("x", 0)), "No status found for task x-0"),
        (lambda h: h.task_status(ConnectorTaskId("c", 2)), "No status found for task c-2"),
    ],
)
def test_unknown_connector_or_task_is_not_found_with_javas_message(read: Any, message: str) -> None:
    herder, _, _ = _herder(started=True)
    with pytest.raises(NotFoundHttpError) as info:
        read(herder).result(0)
    assert info.value.message == message


def test_connector_type_is_resolved_once_per_class() -> None:
    herder, _, plugins = _herder(started=True)
    for _ in range(5):
        herder.connector_status("c").result(0)
    assert plugins.lookups == 1
    assert herder._view.connector_type({"connector.class": "Unknown"}) == "unknown"
    assert herder._view.connector_type({"connector.class": "Unknown"}) == "unknown"
    assert plugins.lookups == 3  # an unknown class is looked up again: it may become importable


class _Record:
    """The parts of a confluent-kafka ``Message`` the status store reads."""

    def __init__(self, key: str, value: bytes) -> None:
        self._key, self._value = key.encode(), value

    def key(self) -> bytes:
        return self._key

    def value(self) -> bytes:
        return self._value


def test_status_store_copies_every_status_at_once() -> None:
    store = object.__new__(KafkaStatusBackingStore)  # no log, no producer: only the cache is used
    store._lock, store._connectors, store._tasks = threading.Lock(), {}, {}
    store.worker_listener = None
    for key, value in [("status-connector-c", b'{"state":"RUNNING","trace":null,"worker_id":"w","generation":2}'),
                       ("status-task-c-0", b'{"state":"FAILED","trace":"boom","worker_id":"w","generation":2}'),
                       ("status-connector-d", b'{"state":"PAUSED","trace":null,"worker_id":"w","generation":1}')]:
        store._on_record(_Record(key, value))  # type: ignore[arg-type]

    connectors, tasks = store.statuses()

    assert connectors == {"c": store.get_connector("c"), "d": store.get_connector("d")}
    assert tasks == {ConnectorTaskId("c", 0): store.get_task(ConnectorTaskId("c", 0))}
    assert tasks[ConnectorTaskId("c", 0)].state == "FAILED" and connectors["d"].state == "PAUSED"
    connectors.clear()
    tasks.clear()
    assert store.get_connector("c") is not None and store.get_all_tasks("c")  # copies: the cache is untouched
