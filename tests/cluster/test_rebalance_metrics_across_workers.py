"""Metrics of a two-worker cluster on a real broker (both workers in the test's process, so that their
``ConnectMetrics`` can be read; their tasks in processes of their own): rebalances are counted and timed
on both, both name the leader's URL, a connector's series are on exactly one worker, and a connector or
task moved to the other worker leaves nothing behind where it was."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from in_process_worker import InProcessWorker

from connect_runtime.testing.cluster import FAST_FAILOVER, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

REBALANCE = "connect-worker-rebalance-metrics"
DEADLINE_S = 60.0
SETTINGS = {**FAST_FAILOVER, "metrics.sample.window.ms": "2000"}


@pytest.fixture
def workers(kafka_bootstrap: str) -> Iterator[list[InProcessWorker]]:
    group = f"rebalance-metrics-{uuid.uuid4().hex[:8]}"
    started: list[InProcessWorker] = []
    try:
        started.append(InProcessWorker(kafka_bootstrap, group, SETTINGS).start())
        started.append(InProcessWorker(kafka_bootstrap, group, SETTINGS))
        yield started
    finally:
        for w in reversed(started):
            w.stop()


def _rebalance(node: InProcessWorker, name: str) -> object:
    return node.metrics().get((REBALANCE, name, ()))


def _holders(nodes: list[InProcessWorker], group: str, connector: str) -> list[str]:
    """The workers showing any series of ``group`` tagged with ``connector`` alone."""
    tags = (("connector", connector),)
    return [n.url for n in nodes if n.worker is not None
            and any(g == group and t == tags for g, _, t in n.metrics())]


def test_rebalances_leader_and_series_across_two_workers(
        workers: list[InProcessWorker], kafka_bootstrap: str) -> None:
    a, b = workers
    connectors = [f"c{i}-{uuid.uuid4().hex[:4]}" for i in range(2)]
    with a.client() as client:
        for name in connectors:
            client.create_connector(name, {"connector.class": "VerifiableSource", "tasks.max": "1",
                                           "topic": new_topic(kafka_bootstrap), "throughput": "10"})
        for name in connectors:
            client.wait_running(name, 1, DEADLINE_S)
    wait_until(lambda: all(_holders([a], "connector-metrics", c) == [a.url] for c in connectors), DEADLINE_S,
               message="both connectors' metrics on the only worker")
    before = _rebalance(a, "completed-rebalances-total")
    assert isinstance(before, float) and before >= 1

    b.start()
    nodes = [a, b]

    def balanced() -> bool:
        # Each connector, and the task group of each, on exactly one worker; one connector and one task on each.
        owners = [_holders(nodes, "connector-metrics", c) for c in connectors]
        tasks = [_holders(nodes, "connect-worker-metrics", c) for c in connectors]
        return (all(len(o) == 1 for o in owners) and all(len(t) == 1 for t in tasks)
                and {o[0] for o in owners} == {a.url, b.url} and {t[0] for t in tasks} == {a.url, b.url}
                and all(_rebalance(n, "rebalancing") == 0.0 for n in nodes))

    wait_until(balanced, DEADLINE_S, message="one connector on each worker, its series on that worker only")
    # Connectors and tasks are balanced separately: a connector and its task may have moved apart.
    moved = next(c for c in connectors if _holders(nodes, "connector-metrics", c) == [b.url])
    assert _holders([a], "connector-metrics", moved) == []  # nothing stale where it ran before
    assert b.metrics()[("connector-metrics", "status", (("connector", moved),))] == "running"
    moved_task = next(c for c in connectors if _holders(nodes, "connect-worker-metrics", c) == [b.url])
    assert _holders([a], "connect-worker-metrics", moved_task) == []

    for node in nodes:
        assert _rebalance(node, "leader-name") == a.url + "/"  # the first worker leads, on both
        assert _rebalance(node, "connect-protocol") == "SESSIONED"
        member = (("client-id", f"connect-{node.worker_id}"),)
        assert node.metrics()[("connect-coordinator-metrics", "assigned-connectors", member)] == 1.0
    assert _rebalance(a, "completed-rebalances-total") > before  # type: ignore[operator]
    assert _rebalance(b, "completed-rebalances-total") >= 1  # type: ignore[operator]
    wait_until(lambda: _rebalance(a, "epoch") == _rebalance(b, "epoch"), DEADLINE_S,
               message="both workers on the same generation")
    assert _rebalance(b, "rebalance-max-time-ms") >= 0  # type: ignore[operator]

    # The leader leaves: the other worker leads, takes everything, and says so.
    b_before = _rebalance(b, "completed-rebalances-total")
    a.stop()
    wait_until(lambda: _rebalance(b, "leader-name") == b.url + "/" and _rebalance(b, "rebalancing") == 0.0
               and all(_holders([b], "connector-metrics", c) == [b.url] for c in connectors), DEADLINE_S,
               message="the remaining worker leading and running both connectors")
    assert _rebalance(b, "completed-rebalances-total") > b_before  # type: ignore[operator]
