"""A worker, or the leader, cut off from the brokers while its process and REST port stay up
(connect_runtime.testing.network_faults): its work moves to the others, nothing it still does lands
after its successors', and once healed it rejoins the group.

Each worker runs in a cage of its own, so that whichever turns out to lead or to run a task can be
partitioned; a cage in pass mode only relays its worker's connections.
"""

from __future__ import annotations

import json
import logging
import time

import pytest
from process_tree import task_processes, wait_gone

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerGroup,
    WorkerProcess,
    check_sequences,
    config_records,
    current_leader,
    end_offsets,
    read_committed,
    stored_offsets,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.network_faults import Cage, NetworkFaults
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

log = logging.getLogger(__name__)


def _caged_workers(cluster: WorkerGroup, faults: NetworkFaults, bootstrap: str,
                   n: int = 3) -> list[tuple[WorkerProcess, Cage]]:
    cages = [faults.cage(bootstrap) for _ in range(n)]
    workers = [cluster(cgroup=cage.cgroup) for cage in cages]
    for worker in workers:
        worker.wait_ready()
    return list(zip(workers, cages, strict=True))


def _worker_id(worker: WorkerProcess) -> str:
    return f"127.0.0.1:{worker.port}"


def _running_on(client: ConnectClient, name: str, tasks: int) -> dict[int, str] | None:
    """Task id → worker id once ``name`` and its ``tasks`` tasks all run."""
    status = client.in_state(name, "RUNNING", tasks)
    return None if status is None else {t["id"]: t["worker_id"] for t in status["tasks"]}


def _committed_total(bootstrap: str, topic: str) -> int:
    return sum(end_offsets(bootstrap, topic).values())


def _stopped_exactly_once(client: ConnectClient, bootstrap: str, worker: WorkerProcess, name: str,
                          topic: str, tasks: int) -> None:
    """Stop ``name``, then: every task's numbers once each from 0 under read_committed, and the stored
    offset of each task is its last record."""
    client.stop_connector(name)
    client.wait_state(name, "STOPPED", 0, 90)
    report = check_sequences(verifiable_pairs(read_committed(bootstrap, topic)))
    assert report.exactly_once and set(report.counts) == set(range(tasks)), report.summary()
    assert stored_offsets(bootstrap, worker.props["offset.storage.topic"], name) == report.max_seqno


@pytest.mark.parametrize("fault", ["blackhole", "cut"])
def test_a_partitioned_worker_is_fenced_and_rejoins(kafka_bootstrap: str, cluster: WorkerGroup,
                                                    network_faults: NetworkFaults, fault: str,
                                                    record_property: pytest.RecordProperty) -> None:
    caged = _caged_workers(cluster, network_faults, kafka_bootstrap)
    workers = [w for w, _ in caged]
    topic = new_topic(kafka_bootstrap, partitions=3)
    client = cluster.client(workers[0])
    client.create_connector("pw", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "3",
                                   "throughput": "100"})
    placed = wait_until(lambda: (p := _running_on(client, "pw", 3)) and len(set(p.values())) == 3 and p, 90,
                        message="one task on each worker")
    leader = wait_until(lambda: current_leader(kafka_bootstrap, workers[0].props["config.storage.topic"]), 30,
                        message="a leader")
    victim, cage = next((w, c) for w, c in caged if w.url != leader["url"])
    others = [w for w in workers if w is not victim]
    held = sorted(f"pw-{t}" for t, worker_id in placed.items() if worker_id == _worker_id(victim))
    zombies = wait_until(lambda: (t := task_processes(victim)) and sorted(t.values()) == held and list(t), 30,
                         message=f"a process for each of the victim's tasks {held}")
    watcher = cluster.client(others[0])
    session_s = int(victim.props["session.timeout.ms"]) / 1000

    getattr(network_faults, fault)(cage)
    partitioned = time.monotonic()
    wait_until(lambda: (p := _running_on(watcher, "pw", 3)) and _worker_id(victim) not in p.values(), 90,
               interval_s=0.1, message="the partitioned worker's tasks to run elsewhere")
    moved_s = time.monotonic() - partitioned
    record_property("tasks_elsewhere_s", round(moved_s, 2))
    log.info("%s: tasks ran elsewhere %.2f s after the partition (session timeout %.1f s)", fault, moved_s,
             session_s)
    floor = _committed_total(kafka_bootstrap, topic)
    wait_until(lambda: _committed_total(kafka_bootstrap, topic) > floor + 200, 60, message="successors writing")
    network_faults.heal(cage)

    # The partitioned worker's task processes, fenced by their successors, are stopped once it hears
    # that it lost them; then it is a member again and gets work.
    wait_gone(zombies, 60, "the partitioned worker's old task processes to exit")
    own = cluster.client(victim)
    wait_until(lambda: (p := _running_on(own, "pw", 3)) and _worker_id(victim) in p.values(), 90,
               message="the healed worker to run a task again, as its own REST API tells")
    floor = _committed_total(kafka_bootstrap, topic)
    wait_until(lambda: _committed_total(kafka_bootstrap, topic) > floor + 200, 60, message="records flowing")
    # The leader, never cut off, led throughout: the healed worker did not depose it.
    assert current_leader(kafka_bootstrap, workers[0].props["config.storage.topic"])["epoch"] == leader["epoch"]
    _stopped_exactly_once(client, kafka_bootstrap, victim, "pw", topic, 3)


def test_a_partitioned_leader_is_succeeded_and_rejoins_as_a_follower(
        kafka_bootstrap: str, cluster: WorkerGroup, network_faults: NetworkFaults) -> None:
    caged = _caged_workers(cluster, network_faults, kafka_bootstrap)
    workers = [w for w, _ in caged]
    config_topic = workers[0].props["config.storage.topic"]
    topic = new_topic(kafka_bootstrap, partitions=3)
    body = {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "3", "throughput": "20"}
    client = cluster.client(workers[0])
    client.create_connector("pl", body)
    wait_until(lambda: (p := _running_on(client, "pl", 3)) and len(set(p.values())) == 3, 90,
               message="one task on each worker")
    first = wait_until(lambda: current_leader(kafka_bootstrap, config_topic), 30, message="a leader")
    old, cage = next((w, c) for w, c in caged if w.url == first["url"])
    zombies = wait_until(lambda: task_processes(old), 30, message="the leader's task process")

    network_faults.cut(cage)
    second = wait_until(lambda: (r := current_leader(kafka_bootstrap, config_topic)) and r["epoch"] > first["epoch"]
                        and r, 60, message="a successor")
    assert second["url"] != old.url
    successor = next(w for w in workers if w.url == second["url"])
    r = cluster.client(successor).request("PUT", "/connectors/pl/config", json={**body, "throughput": "30"})
    assert r.status_code == 200, r.text
    cluster.client(successor).wait_running("pl", 3)
    # Still cut off, the old leader has stopped its tasks for lost contact: it was not left blocked in
    # a write of its own (a reassignment of the workers it could no longer hear) until the heal.
    wait_gone(zombies, 30, "the partitioned leader's task processes to exit before the heal")
    network_faults.heal(cage)

    # Healed, the old leader follows: it forwards a write to the successor, which still leads, and it
    # serves the cluster's status.
    own = cluster.client(old)
    wait_until(lambda: own.request("PUT", "/connectors/pl/config", json={**body, "throughput": "40"}).status_code
               == 200, 60, message="the old leader to forward a write")
    wait_until(lambda: _running_on(own, "pl", 3), 60, message="the old leader to serve the running status")
    assert current_leader(kafka_bootstrap, config_topic)["epoch"] == second["epoch"]
    records = config_records(kafka_bootstrap, config_topic)
    claim = max(i for i, (k, v) in enumerate(records)
                if k == "leader" and json.loads(v or b"{}").get("epoch") == second["epoch"])
    for key, value in records[claim + 1:]:
        if key in ("leader", "assignment") and value is not None:
            record = json.loads(value)
            assert record.get("leader", record.get("worker_id")) != first["worker_id"], (key, record)
