"""Rebalance and group-member metrics: what a rebalance's start and completion record, read on an
injected clock (Java's HerderMetrics and WorkerCoordinatorMetrics)."""

from __future__ import annotations

import math

from connect_runtime.cluster.assignment import WorkerAssignment
from connect_runtime.cluster.rebalance_metrics import RebalanceMetrics, coordinator_client_id
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.stats import MetricConfig
from connect_runtime.types import ConnectorTaskId

CLIENT = (("client-id", "connect-w1:8083"),)


class _Clock:
    def __init__(self) -> None:
        self.now = 5_000_000

    def __call__(self) -> int:
        return self.now


def _values(metrics: ConnectMetrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], object]:
    return {(r.spec.name, r.tags): r.value for r in metrics.read()}


def _setup() -> tuple[_Clock, ConnectMetrics, RebalanceMetrics]:
    clock = _Clock()
    metrics = ConnectMetrics(MetricConfig(samples=2, window_ms=30_000), clock)
    return clock, metrics, RebalanceMetrics(metrics, "connect-w1:8083")


def test_before_any_rebalance() -> None:
    _, metrics, _ = _setup()
    values = _values(metrics)
    assert values[("connect-protocol", ())] == "SESSIONED"  # Java's enum name, upper case
    assert ("leader-name", ()) not in values  # no assignment yet: Java's null
    assert values[("epoch", ())] == 0.0
    assert values[("completed-rebalances-total", ())] == 0.0
    assert values[("rebalancing", ())] == 0.0
    assert math.isnan(values[("rebalance-avg-time-ms", ())])  # type: ignore[arg-type]
    assert math.isnan(values[("rebalance-max-time-ms", ())])  # type: ignore[arg-type]
    assert values[("time-since-last-rebalance-ms", ())] == math.inf
    assert values[("assigned-connectors", CLIENT)] == 0.0 and values[("assigned-tasks", CLIENT)] == 0.0


def test_a_rebalance_lasts_from_its_start_to_the_assignment_applied() -> None:
    clock, metrics, rebalance = _setup()
    rebalance.started(3)
    clock.now += 100
    rebalance.started(4)  # a newer generation before the first was applied: timed from it, as Java's onAssigned
    clock.now += 100
    rebalance.started(4)  # applying it again after a failed try: still the same rebalance
    assert _values(metrics)[("rebalancing", ())] == 1.0
    clock.now += 50
    share = WorkerAssignment(frozenset({"a", "b"}), frozenset({ConnectorTaskId("a", 0)}))
    rebalance.completed(4, "http://w2:8083", share)
    values = _values(metrics)
    assert values[("rebalancing", ())] == 0.0
    assert values[("completed-rebalances-total", ())] == 1.0
    assert values[("rebalance-max-time-ms", ())] == 150.0 and values[("rebalance-avg-time-ms", ())] == 150.0
    assert values[("epoch", ())] == 4.0
    assert values[("leader-name", ())] == "http://w2:8083/"  # Java's URI form
    assert values[("time-since-last-rebalance-ms", ())] == 0.0
    assert values[("assigned-connectors", CLIENT)] == 2.0 and values[("assigned-tasks", CLIENT)] == 1.0

    clock.now += 1000
    assert _values(metrics)[("time-since-last-rebalance-ms", ())] == 1000.0
    rebalance.started(5)
    clock.now += 50
    rebalance.completed(5, "http://w2:8083/", WorkerAssignment())
    values = _values(metrics)
    assert values[("completed-rebalances-total", ())] == 2.0
    assert values[("rebalance-max-time-ms", ())] == 150.0 and values[("rebalance-avg-time-ms", ())] == 100.0
    assert values[("leader-name", ())] == "http://w2:8083/"
    assert values[("assigned-connectors", CLIENT)] == 0.0


def test_applying_the_same_assignment_again_is_no_rebalance() -> None:
    clock, metrics, rebalance = _setup()
    rebalance.started(1)
    rebalance.completed(1, "http://w1:8083", WorkerAssignment())
    clock.now += 10
    rebalance.completed(1, "http://w1:8083", WorkerAssignment(frozenset({"a"})))  # a restart re-applies it
    values = _values(metrics)
    assert values[("completed-rebalances-total", ())] == 1.0
    assert values[("time-since-last-rebalance-ms", ())] == 10.0
    assert values[("assigned-connectors", CLIENT)] == 1.0


def test_the_windowed_times_empty_out_as_java_s() -> None:
    clock, metrics, rebalance = _setup()
    rebalance.started(1)
    rebalance.completed(1, "http://w1:8083", WorkerAssignment())
    clock.now += 60_000  # samples x window without a rebalance
    values = _values(metrics)
    assert math.isnan(values[("rebalance-avg-time-ms", ())])  # type: ignore[arg-type]
    assert values[("completed-rebalances-total", ())] == 1.0  # a total never decays


def test_closed_groups_read_nothing() -> None:
    _, metrics, rebalance = _setup()
    rebalance.close()
    assert metrics.read() == []


def test_the_member_client_id_is_java_s() -> None:
    assert coordinator_client_id(None, "w1:8083") == "connect-w1:8083"
    assert coordinator_client_id("  ", "w1:8083") == "connect-w1:8083"
    assert coordinator_client_id("mine", "w1:8083") == "mine"
