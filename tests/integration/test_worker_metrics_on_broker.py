"""A worker's own metrics on a real broker, read from the worker's ``ConnectMetrics`` (the worker runs in
the test's process; its tasks in processes of their own): counts move as connectors and tasks start,
pause and fail, series go with what they describe, and the rebalance, member and client metrics are
there with Java's names and values."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from in_process_worker import InProcessWorker

from connect_runtime.metrics.connect_metrics import MetricValue
from connect_runtime.testing.cluster import ConnectClient, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

WORKER = "connect-worker-metrics"
CLIENT_GROUPS = {"producer-metrics", "consumer-metrics", "admin-client-metrics"}
DEADLINE_S = 60.0


@pytest.fixture(scope="module")
def node(kafka_bootstrap: str) -> Iterator[InProcessWorker]:
    # A 2 s sample window: the clients report their statistics every second.
    with InProcessWorker(kafka_bootstrap, f"worker-metrics-{uuid.uuid4().hex[:8]}",
                         {"metrics.sample.window.ms": "2000"}).start() as w:
        yield w


@pytest.fixture(scope="module")
def client(node: InProcessWorker) -> Iterator[ConnectClient]:
    with node.client() as c:
        yield c


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _of(node: InProcessWorker, group: str, name: str, tags: tuple[tuple[str, str], ...] = ()) -> MetricValue | None:
    return node.metrics().get((group, name, tags))


def _task_counts(node: InProcessWorker, connector: str) -> dict[str, MetricValue]:
    tags = (("connector", connector),)
    return {name.removeprefix("connector-").removesuffix("-task-count"): value
            for (group, name, t), value in node.metrics().items() if group == WORKER and t == tags}


def _connector_metrics(node: InProcessWorker, connector: str) -> dict[str, MetricValue]:
    return {name: value for (group, name, tags), value in node.metrics().items()
            if group == "connector-metrics" and tags == (("connector", connector),)}


def _wait_for(what: str, condition: Callable[[], bool]) -> None:
    wait_until(condition, DEADLINE_S, message=what)


def test_counts_move_as_connectors_and_tasks_start_pause_and_go(
        node: InProcessWorker, client: ConnectClient, kafka_bootstrap: str) -> None:
    started = _of(node, WORKER, "task-startup-success-total")
    assert isinstance(started, float)
    name = _name("seq")
    client.create_connector(name, {"connector.class": "VerifiableSource", "topic": new_topic(kafka_bootstrap),
                                   "tasks.max": "2", "throughput": "20"})
    client.wait_running(name, 2, DEADLINE_S)
    _wait_for("two running tasks", lambda: _task_counts(node, name) == {
        "total": 2.0, "running": 2.0, "paused": 0.0, "failed": 0.0, "unassigned": 0.0, "destroyed": 0.0,
        "restarting": 0.0})
    assert _connector_metrics(node, name) == {
        "connector-type": "source", "connector-class": "org.apache.kafka.connect.tools.VerifiableSourceConnector",
        "connector-version": "0.1.0", "status": "running"}
    assert _of(node, WORKER, "task-startup-success-total") == started + 2
    assert _of(node, WORKER, "task-count") >= 2  # type: ignore[operator]

    client.request("PUT", f"/connectors/{name}/pause")
    _wait_for("paused tasks", lambda: _task_counts(node, name).get("paused") == 2.0)
    _wait_for("a paused connector", lambda: _connector_metrics(node, name).get("status") == "paused")
    client.request("PUT", f"/connectors/{name}/resume")
    _wait_for("running tasks again", lambda: _task_counts(node, name).get("running") == 2.0)
    assert _of(node, WORKER, "task-startup-success-total") == started + 2  # resuming is no start-up

    client.request("DELETE", f"/connectors/{name}")
    _wait_for("its series gone", lambda: not _task_counts(node, name) and not _connector_metrics(node, name))


def test_failures_show_in_the_counts_and_the_start_up_totals(
        node: InProcessWorker, client: ConnectClient, kafka_bootstrap: str, tmp_path: Path) -> None:
    connector_failures = _of(node, WORKER, "connector-startup-failure-total")
    task_failures = _of(node, WORKER, "task-startup-failure-total")
    assert isinstance(connector_failures, float) and isinstance(task_failures, float)

    failing = _name("failing")  # its task runs, then fails: a FAILED task, not a failed start-up
    client.create_connector(failing, {"connector.class": "failing_source.FailingSourceConnector",
                                      "topic": new_topic(kafka_bootstrap), "tasks.max": "1"})
    _wait_for("a failed task", lambda: _task_counts(node, failing).get("failed") == 1.0)
    assert _task_counts(node, failing)["total"] == 1.0

    broken = _name("broken")  # its task fails in start(): a failed start-up
    client.create_connector(broken, {"connector.class": "flaky_source.FlakySourceConnector",
                                     "topic": new_topic(kafka_bootstrap), "state.dir": str(tmp_path),
                                     "failures": "1", "transient": "false"})
    _wait_for("a task failed at start-up",
              lambda: _of(node, WORKER, "task-startup-failure-total") == task_failures + 1)
    assert _task_counts(node, broken)["failed"] == 1.0

    no_start = _name("no-start")
    client.create_connector(no_start, {"connector.class": "failing_source.FailingStartSourceConnector",
                                       "topic": new_topic(kafka_bootstrap)})
    _wait_for("a connector failed at start-up",
              lambda: _of(node, WORKER, "connector-startup-failure-total") == connector_failures + 1)
    assert _connector_metrics(node, no_start)["status"] == "failed"
    assert 0.0 < _of(node, WORKER, "connector-startup-failure-percentage") <= 1.0  # type: ignore[operator]

    for name in (failing, broken, no_start):
        client.request("DELETE", f"/connectors/{name}")
    _wait_for("their series gone", lambda: not any(
        _task_counts(node, n) or _connector_metrics(node, n) for n in (failing, broken, no_start)))


def test_rebalance_member_and_client_metrics_are_java_s(node: InProcessWorker) -> None:
    rebalance = "connect-worker-rebalance-metrics"
    assert _of(node, rebalance, "connect-protocol") == "SESSIONED"
    assert _of(node, rebalance, "leader-name") == node.url + "/"  # the only worker leads
    assert _of(node, rebalance, "rebalancing") == 0.0
    assert _of(node, rebalance, "completed-rebalances-total") >= 1  # type: ignore[operator]
    assert _of(node, rebalance, "epoch") >= 1  # type: ignore[operator]
    assert 0 <= _of(node, rebalance, "time-since-last-rebalance-ms") < 3_600_000  # type: ignore[operator]
    member = (("client-id", f"connect-{node.worker_id}"),)
    assert isinstance(_of(node, "connect-coordinator-metrics", "assigned-tasks", member), float)

    base = node.props["group.id"] + "-"
    clients = {("admin-client-metrics", "shared-admin", "connection-count"),
               ("producer-metrics", "shared-producer", "outgoing-byte-total"),
               ("producer-metrics", "configs", "outgoing-byte-total"),  # the leader's producer
               *(("consumer-metrics", purpose, "incoming-byte-total")
                 for purpose in ("offsets", "statuses", "configs"))}

    def reported() -> bool:
        values = node.metrics()
        return all(values.get((group, name, (("client-id", base + purpose),)), 0) > 0  # type: ignore[operator]
                   and values.get((group, "connection-count", (("client-id", base + purpose),)), 0) >= 1  # type: ignore[operator]
                   for group, purpose, name in clients)

    _wait_for("statistics of every client of the worker", reported)


def test_a_stopped_worker_leaves_no_client_series(kafka_bootstrap: str) -> None:
    node = InProcessWorker(kafka_bootstrap, f"worker-metrics-stop-{uuid.uuid4().hex[:8]}",
                           {"metrics.sample.window.ms": "2000"}).start()
    try:
        assert node.worker is not None and node.worker.herder is not None
        metrics = node.worker.herder.metrics()
        _wait_for("the admin client's statistics",
                  lambda: any(r.spec.group == "admin-client-metrics" for r in metrics.read()))
    finally:
        node.stop()
    assert {r.spec.group for r in metrics.read()} & CLIENT_GROUPS == set()
