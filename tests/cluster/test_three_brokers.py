"""Exactly-once source tasks on three brokers (replication factor 3, ``min.insync.replicas=2``) while
brokers fail: the data partition's leader SIGKILLed, a task's transaction coordinator SIGKILLed, all
brokers restarted one after another.

One group of three workers runs two exactly-once VerifiableSources for the whole module: ``ivl``
(two tasks, ``transaction.boundary=interval``) and ``poll`` (two tasks, a transaction per poll), each
into a topic of its own with one partition replicated three times. Each fault must leave every task
RUNNING without a REST call (nothing restarts a task but the runtime), with no FAILED state seen
meanwhile, and every task committing again. Each test ends stopping both connectors to check what
they delivered, read_committed: every task's numbers from 0 exactly once, and the stored offset of
each task is its last record; then resumes them for the next test.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from connect_runtime.testing.cluster import (
    FAST_FAILOVER,
    THREE_BROKERS,
    ConnectClient,
    WorkerGroup,
    check_sequences,
    read_committed,
    stored_offsets,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.local_kafka_cluster import KafkaCluster
from connect_runtime.testing.pytest_plugin import _WORKER_GROUPS, new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

FAILOVER_S = 60.0
"""How long every task has to commit again after a fault. The issue's goal is 30 s (measured by
``bench/failover.py``'s ``broker_kill``); the slack is for a machine loaded by other tests."""

WORKER_SETTINGS: dict[str, str] = {
    **THREE_BROKERS,
    "scheduled.rebalance.max.delay.ms": FAST_FAILOVER["scheduled.rebalance.max.delay.ms"],
    "task.shutdown.graceful.timeout.ms": FAST_FAILOVER["task.shutdown.graceful.timeout.ms"],
}
"""The default session timeout (10 s), not FAST_FAILOVER's 4 s: a killed broker's partitions move in
6 to 8 s (its 3 s broker session, an election, the clients' metadata refresh), and a worker whose
heartbeats go to a status partition it led must not count as gone meanwhile; a session timeout shorter
than the brokers' failover restarts tasks on every broker failure (bench/README.md, broker_kill)."""

CONNECTORS: dict[str, dict[str, str]] = {
    "ivl": {"tasks.max": "2", "throughput": "50", "transaction.boundary": "interval",
            "transaction.boundary.interval.ms": "500"},
    "poll": {"tasks.max": "2", "throughput": "50"},
}


class _FailureWatch(threading.Thread):
    """Polls the connectors' status and keeps every FAILED connector or task state it sees."""

    def __init__(self, url: str, names: list[str]) -> None:
        super().__init__(name="failure-watch", daemon=True)
        self.names = names
        self.failed: list[dict[str, Any]] = []
        self._url = url
        self._stopping = threading.Event()

    def run(self) -> None:
        with ConnectClient(self._url, timeout_s=10) as client:
            while not self._stopping.wait(0.25):
                for name in self.names:
                    try:
                        st = client.status(name)
                    except (httpx.HTTPError, ValueError):
                        continue  # a slow answer is not a failure; the next look decides
                    self.failed += [{"connector": name, **s} for s in (st["connector"], *st["tasks"])
                                    if s["state"] == "FAILED"]

    def stop(self) -> None:
        self._stopping.set()
        self.join(30)


@dataclass
class _Deployment:
    cluster: KafkaCluster
    group: WorkerGroup
    client: ConnectClient
    watch: _FailureWatch
    topics: dict[str, str] = field(default_factory=dict)

    @property
    def offsets_topic(self) -> str:
        return self.group.workers[0].props["offset.storage.topic"]

    def transactional_id(self, connector: str, task: int) -> str:
        # WorkerConfig.task_transactional_id
        return f"{self.group.group_id}-{connector}-{task}"

    def tasks(self) -> list[tuple[str, int]]:
        return [(name, task) for name, config in CONNECTORS.items() for task in range(int(config["tasks.max"]))]

    def committed(self) -> dict[tuple[str, int], int]:
        """The stored offset (last committed seqno) of every task, -1 before its first commit."""
        stored = {name: stored_offsets(self.cluster.bootstrap, self.offsets_topic, name) for name in CONNECTORS}
        return {(name, task): stored[name].get(task, -1) for name, task in self.tasks()}

    def wait_committing(self, what: str) -> None:
        """Wait until every task has committed since now."""
        # Read while a leadership moves: the reads fail now and then (e.g. OFFSET_NOT_AVAILABLE), so polled.
        before = wait_until(self.committed, FAILOVER_S, interval_s=1.0, message="the stored offsets")
        wait_until(lambda: all(seq > before[key] for key, seq in self.committed().items()), FAILOVER_S,
                   interval_s=1.0, message=f"every task to commit again {what}")

    def wait_running(self) -> None:
        for name, config in CONNECTORS.items():
            self.client.wait_running(name, int(config["tasks.max"]), FAILOVER_S)

    def assert_no_failure(self) -> None:
        assert self.watch.is_alive()
        assert self.watch.failed == [], self.watch.failed

    def assert_exactly_once(self) -> None:
        """Stop both connectors (their tasks' last transactions end), check every sequence and stored
        offset, and resume them."""
        for name in CONNECTORS:
            self.client.stop_connector(name)
        for name in CONNECTORS:
            self.client.wait_state(name, "STOPPED", timeout_s=FAILOVER_S)
        for name, config in CONNECTORS.items():
            report = check_sequences(verifiable_pairs(read_committed(self.cluster.bootstrap, self.topics[name])))
            assert report.exactly_once, f"{name}: {report.summary()}"
            assert set(report.counts) == set(range(int(config["tasks.max"]))), f"{name}: {report.summary()}"
            assert stored_offsets(self.cluster.bootstrap, self.offsets_topic, name) == report.max_seqno, name
        for name in CONNECTORS:
            self.client.resume_connector(name)
        self.wait_running()
        self.wait_committing("after the connectors were resumed")


@pytest.fixture(scope="module")
def deployment(kafka_cluster: KafkaCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Deployment]:
    """Three workers on the three-broker cluster running ``CONNECTORS``, committing."""
    group = WorkerGroup(kafka_cluster.bootstrap, tmp_path_factory.mktemp("three-brokers"),
                        f"three-{uuid.uuid4().hex[:8]}", defaults=WORKER_SETTINGS)
    try:
        workers = group.start(3)
        client = group.client(workers[0])
        watch = _FailureWatch(workers[1].url, list(CONNECTORS))
        found = _Deployment(kafka_cluster, group, client, watch)
        for name, config in CONNECTORS.items():
            found.topics[name] = new_topic(kafka_cluster.bootstrap, replication_factor=3)
            client.create_connector(name, {"connector.class": "VerifiableSource", "topic": found.topics[name],
                                           **config})
        found.wait_running()
        found.wait_committing("after the start")
        watch.start()
        yield found
        watch.stop()
    finally:
        group.close()


@pytest.fixture(autouse=True)
def _logs_on_failure(request: pytest.FixtureRequest, deployment: _Deployment) -> None:
    """The module's workers' logs in the report of a failed test, as the function-scoped worker
    fixtures of the plugin do for theirs; and each test judges only the FAILED states seen while it runs."""
    request.node.stash.setdefault(_WORKER_GROUPS, []).append(deployment.group)
    deployment.watch.failed.clear()


def _survives_broker_kill(deployment: _Deployment, node: int, what: str) -> None:
    cluster = deployment.cluster
    cluster.kill(node)
    try:
        deployment.wait_committing(f"after node {node} ({what}) was killed")
    finally:
        cluster.restart(node)  # the next test needs all three nodes, whatever this one found
    deployment.wait_committing(f"after node {node} ({what}) was restarted")
    deployment.wait_running()
    deployment.assert_no_failure()
    deployment.assert_exactly_once()
    deployment.assert_no_failure()


def test_data_partition_leader_killed(deployment: _Deployment) -> None:
    cluster = deployment.cluster
    topic = deployment.topics["ivl"]
    leader = cluster.partition_leader(topic)
    assert leader in cluster.node_ids
    _survives_broker_kill(deployment, leader, f"the leader of {topic}")


def test_transaction_coordinator_killed(deployment: _Deployment) -> None:
    """The coordinator of a task whose data partition another node leads: only its transactions move."""
    cluster = deployment.cluster
    placed = [(cluster.transaction_coordinator(deployment.transactional_id(name, task)),
               cluster.partition_leader(deployment.topics[name]), f"{name}-{task}")
              for name, task in deployment.tasks()]
    coordinator, _, task = next(((c, lead, t) for c, lead, t in placed if c != lead), placed[0])
    assert coordinator in cluster.node_ids
    _survives_broker_kill(deployment, coordinator, f"the transaction coordinator of task {task}")


def test_rolling_restart_of_every_broker(deployment: _Deployment) -> None:
    """Each node stopped cleanly (its leaderships handed over), started, and back in sync before the next."""
    cluster = deployment.cluster
    for node in cluster.node_ids:
        cluster.stop_node(node)
        try:
            wait_until(lambda n=node: all(cluster.partition_leader(t) not in (n, -1)
                                          for t in deployment.topics.values()),
                       FAILOVER_S, message=f"the stopped node {node} to lead no data partition")
            deployment.wait_committing(f"while node {node} is stopped")
        finally:
            cluster.restart(node)
        deployment.wait_committing(f"after node {node} was restarted")
        deployment.wait_running()
        deployment.assert_no_failure()
    deployment.assert_exactly_once()
    deployment.assert_no_failure()
