"""What the herder counts as a rebalance, as Java's rebalance metrics count them: a new assignment
generation of the current leader, applied; not a worker out of contact, waiting for a leader or for its
first assignment, and not the assignment a (re)started worker finds that gives it nothing.

No broker: the herder is built without ``__init__`` around a fake worker (only what applying an
assignment touches) and real rebalance metrics on a clock the test moves.
"""

from __future__ import annotations

from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any

from connect_runtime.cluster.assignment import Assignment, WorkerAssignment
from connect_runtime.cluster.herder import DistributedHerder
from connect_runtime.cluster.rebalance_metrics import RebalanceMetrics
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.stats import MetricConfig
from connect_runtime.storage.config_store import ClusterConfigState, LeaderRecord
from connect_runtime.types import ConnectorTaskId, TargetState

ME, OTHER = "w1:8083", "w2:8083"
CONFIG = {"name": "c", "connector.class": "VerifiableSource", "topic": "t"}


class _Worker:
    """Runs connectors by name; no tasks."""

    def __init__(self, metrics: ConnectMetrics) -> None:
        self.worker_id = ME
        self.metrics = metrics
        self.generation = 0
        self.connectors: set[str] = set()

    def connector_names(self) -> list[str]:
        return sorted(self.connectors)

    def task_ids(self) -> list[ConnectorTaskId]:
        return []

    def is_connector_stopping(self, name: str) -> bool:
        return False

    def stop_connector(self, name: str) -> None:
        self.connectors.discard(name)

    def stop_tasks(self, ids: list[ConnectorTaskId]) -> None:
        pass

    def start_connector(self, name: str, props: Any, state: TargetState) -> Future[bool]:
        self.connectors.add(name)
        started: Future[bool] = Future()
        started.set_result(True)
        return started


class _Cluster:
    """The herder of worker ``ME`` and what the config topic says, which the test changes."""

    def __init__(self, found: Assignment | None = None) -> None:
        self.now_ms = 1_000_000
        self.metrics = ConnectMetrics(MetricConfig(samples=2, window_ms=600_000), lambda: self.now_ms)
        self.leader: str | None = OTHER
        self.in_contact = True
        herder = object.__new__(DistributedHerder)
        herder.worker = _Worker(self.metrics)  # type: ignore[assignment]
        herder._rebalance = RebalanceMetrics(self.metrics, f"connect-{ME}")
        herder._assignment, herder._assignment_raw = None, None
        herder._applied_generation = 0
        herder._found_generation = found.generation if found is not None else None
        herder._lost_contact = False
        herder._task_generations, herder._applied_configs, herder._applied_states = {}, {}, {}
        herder._self_in_contact = lambda: self.in_contact  # type: ignore[method-assign]
        herder._leadership = SimpleNamespace(  # type: ignore[assignment]
            current_leader=lambda state: None if self.leader is None else LeaderRecord(self.leader, "", 1))
        herder._active_topics = SimpleNamespace(reset_when_stopped=lambda connectors: None)  # type: ignore[assignment]
        herder._task_configs = SimpleNamespace(reconfigure_after=lambda name, started: None)  # type: ignore[assignment]
        herder._heartbeats = SimpleNamespace(beat_now=lambda: None)  # type: ignore[assignment]
        self.herder = herder
        self.assignment = found

    def assign(self, generation: int, mine: frozenset[str] = frozenset()) -> None:
        """The leader writes ``generation``, giving this worker the connectors ``mine``."""
        assert self.leader is not None
        workers = {ME: WorkerAssignment(mine)} if mine else {OTHER: WorkerAssignment()}
        self.assignment = Assignment(generation, self.leader, f"http://{self.leader}", workers)

    def tick(self) -> None:
        raw = self.assignment.to_bytes() if self.assignment is not None else None
        self.herder._apply_assignment(ClusterConfigState(connector_configs={"c": CONFIG}, assignment=raw))

    def value(self, name: str) -> object:
        return {r.spec.name: r.value for r in self.metrics.read() if not r.tags}[name]


def test_a_new_generation_of_the_current_leader_is_a_rebalance_of_the_tick_that_applies_it() -> None:
    cluster = _Cluster()
    cluster.assign(1, frozenset({"c"}))
    cluster.tick()
    assert cluster.value("completed-rebalances-total") == 1.0 and cluster.value("epoch") == 1.0
    cluster.now_ms += 1000
    cluster.tick()  # the same generation again: no rebalance
    assert cluster.value("completed-rebalances-total") == 1.0
    cluster.assign(2)
    cluster.tick()
    assert cluster.value("completed-rebalances-total") == 2.0 and cluster.value("rebalance-max-time-ms") == 0.0


def test_waiting_for_a_leader_or_for_contact_is_not_rebalancing_nor_timed() -> None:
    cluster = _Cluster()
    cluster.assign(1, frozenset({"c"}))
    cluster.tick()

    cluster.in_contact = False  # lost contact: its connectors stop, as Java's worker out of its group it waits
    cluster.tick()
    assert cluster.herder.worker.connector_names() == []
    assert cluster.value("rebalancing") == 0.0
    cluster.now_ms += 30_000
    cluster.in_contact = True
    cluster.leader = None  # back in contact, but the leader is gone: waiting for its successor
    cluster.tick()
    assert cluster.value("rebalancing") == 0.0
    cluster.now_ms += 30_000
    cluster.leader = ME
    cluster.tick()  # the successor's assignment is still the old leader's: nothing to apply
    assert cluster.value("rebalancing") == 0.0

    cluster.assign(2, frozenset({"c"}))  # the successor's first assignment
    cluster.tick()
    assert cluster.herder.worker.connector_names() == ["c"]
    assert cluster.value("rebalancing") == 0.0
    assert cluster.value("completed-rebalances-total") == 2.0
    assert cluster.value("rebalance-max-time-ms") == 0.0  # not the minute spent waiting


def test_no_assignment_yet_is_not_rebalancing() -> None:
    cluster = _Cluster()
    cluster.tick()
    cluster.now_ms += 5000
    assert cluster.value("rebalancing") == 0.0
    cluster.assign(1)
    cluster.tick()  # a new cluster's first assignment is every worker's join, even if it gives it nothing
    assert cluster.value("completed-rebalances-total") == 1.0 and cluster.value("rebalance-max-time-ms") == 0.0


def test_a_restarted_worker_s_join_is_the_leader_s_next_generation_not_the_one_it_found() -> None:
    found = Assignment(7, OTHER, f"http://{OTHER}", {OTHER: WorkerAssignment(frozenset({"c"}))})
    cluster = _Cluster(found)
    cluster.tick()
    assert cluster.value("completed-rebalances-total") == 0.0 and cluster.value("rebalancing") == 0.0
    assert cluster.value("epoch") == 7.0  # applied all the same
    cluster.assign(8, frozenset({"c"}))
    cluster.tick()
    assert cluster.value("completed-rebalances-total") == 1.0 and cluster.value("epoch") == 8.0


def test_a_restarted_worker_that_finds_its_share_joins_with_it() -> None:
    found = Assignment(7, OTHER, f"http://{OTHER}", {ME: WorkerAssignment(frozenset({"c"}))})
    cluster = _Cluster(found)
    cluster.tick()  # back within the session timeout: it starts its connector at once
    assert cluster.herder.worker.connector_names() == ["c"]
    assert cluster.value("completed-rebalances-total") == 1.0
