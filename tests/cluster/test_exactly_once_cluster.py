"""Exactly-once under cluster faults: zombie tasks, reconfiguration, rolling bounces (tests/cluster).

Every scenario ends with the same check: read the topic read_committed; per task, every seqno from 0
to its max exactly once.
"""

from __future__ import annotations

import signal

import pytest
from process_tree import describe, stopped, task_processes, wait_gone

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    end_offsets,
    read_committed,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]


def _grows(bootstrap: str, topic: str, by: int = 200, timeout_s: float = 60) -> None:
    floor = sum(end_offsets(bootstrap, topic).values())
    wait_until(lambda: sum(end_offsets(bootstrap, topic).values()) > floor + by, timeout_s,
               message=f"{topic} to grow by {by}")


def _assert_exactly_once(bootstrap: str, topic: str, tasks: set[int]) -> None:
    report = check_sequences(verifiable_pairs(read_committed(bootstrap, topic)))
    assert report.exactly_once, report.summary()
    assert set(report.counts) == tasks, report.summary()


def _log_since(worker: WorkerProcess, offset: int) -> str:
    with worker.log_path.open("rb") as f:
        f.seek(offset)
        return f.read().decode("utf-8", "replace")


def _placement(client: ConnectClient, name: str, tasks: int) -> dict[int, str] | None:
    """Task id → worker id once the connector and its ``tasks`` tasks all run, else None."""
    st = client.in_state(name, "RUNNING", tasks)
    return {t["id"]: t["worker_id"] for t in st["tasks"]} if st else None


def _three_workers_running(cluster, bootstrap: str, name: str,  # type: ignore[no-untyped-def]
                           throughput: str) -> tuple[list[WorkerProcess], ConnectClient, str, dict[int, str]]:
    """Three workers and a VerifiableSource of three tasks on them, running: the workers, a client of the
    first, the topic, and where each task runs."""
    workers: list[WorkerProcess] = cluster.start(3)
    topic = new_topic(bootstrap, partitions=3)
    client = ConnectClient(workers[0].url)
    client.create_connector(name, {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "3",
                                   "throughput": throughput})
    placed = wait_until(lambda: _placement(client, name, 3), 90, message="3 tasks running")
    return workers, client, topic, placed


def test_zombie_task_is_fenced(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    """SIGSTOP of a worker (its pid only: its task processes run on) past the session timeout moves its
    tasks elsewhere; the stopped worker's task processes, zombies now, are fenced by their successors:
    their commits fail, and they are gone once the worker, continued, learns it lost its tasks."""
    workers, _, topic, placed = _three_workers_running(cluster, kafka_bootstrap, "zt", "200")
    victim_id = placed[0]
    victim = next(w for w in workers if victim_id.endswith(f":{w.port}"))
    others = [w for w in workers if w is not victim]
    held = sorted(f"zt-{task}" for task, worker_id in placed.items() if worker_id == victim_id)
    zombies = wait_until(lambda: (t := task_processes(victim)) and sorted(t.values()) == held and list(t), 30,
                         message=f"one process for each of the victim worker's tasks {held}")
    watcher = ConnectClient(others[0].url)
    log_mark = victim.log_path.stat().st_size
    victim.signal(signal.SIGSTOP)
    try:
        # Past the session timeout its tasks restart on the other workers.
        moved = wait_until(lambda: (p := _placement(watcher, "zt", 3)) and victim_id not in p.values() and p,
                           90, message="the stopped worker's tasks to run elsewhere")
        assert set(moved.values()) <= {f"127.0.0.1:{w.port}" for w in others}
        _grows(kafka_bootstrap, topic)
        # Only the worker was stopped: its task processes ran on, zombies.
        assert not stopped(zombies), describe(stopped(zombies))
    finally:
        victim.signal(signal.SIGCONT)
    # Their successors' init_transactions() fenced their producers, so their commits fail (usually while
    # the worker is still stopped, at the latest at the final commit when it stops them).
    wait_until(lambda: any("fenced" in line.lower() and "zt-" in line  # about a task zt-<n>
                           for line in _log_since(victim, log_mark).splitlines()), 60,
               message="the zombie task processes' commits to fail as fenced")
    wait_gone(zombies, 60, "the zombie task processes to exit")
    _grows(kafka_bootstrap, topic)
    watcher.wait_running("zt", 3, 90)
    _assert_exactly_once(kafka_bootstrap, topic, {0, 1, 2})


def test_reconfiguration_3_5_1_5_3(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers = cluster.start(3)
    topic = new_topic(kafka_bootstrap, partitions=3)
    client = ConnectClient(workers[1].url)
    base = {"connector.class": "VerifiableSource", "topic": topic, "throughput": "200"}
    for count in (3, 5, 1, 5, 3):
        r = client.request("PUT", "/connectors/rc/config", json={**base, "tasks.max": str(count)})
        assert r.status_code in (200, 201), r.text
        client.wait_running("rc", count, 120)
        _grows(kafka_bootstrap, topic)
    _assert_exactly_once(kafka_bootstrap, topic, {0, 1, 2, 3, 4})


def test_rolling_bounces_like_the_reference_system_test(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    """Apache Kafka's system test test_exactly_once_source (connect_distributed_test.py): 3 workers,
    3 tasks at 100 rec/s, 4 rounds bouncing every worker in turn (clean, clean, hard, hard; the last
    two with no settle time)."""
    workers, client, topic, _ = _three_workers_running(cluster, kafka_bootstrap, "sys", "100")
    for round_no, (hard, settle) in enumerate([(False, True), (False, True), (True, False), (True, False)]):
        for w in workers:
            if hard:
                w.kill()
            else:
                assert w.stop() == 0, w.log_tail()
            w.start()
            if settle:
                w.wait_ready()
                watcher = ConnectClient(next(x for x in workers if x is not w).url)
                wait_until(lambda c=watcher: c.in_state("sys", "RUNNING", 3), 120,
                           message=f"round {round_no}: all tasks running again")
    for w in workers:
        w.wait_ready()
    client = ConnectClient(workers[0].url)
    # Restart anything that failed along the way, then everything must run.
    wait_until(lambda: client.request("POST", "/connectors/sys/restart",
                                      params={"includeTasks": "true", "onlyFailed": "true"}).status_code
               in (202, 204), 60, message="restart request accepted")
    client.wait_running("sys", 3, 120)
    _grows(kafka_bootstrap, topic, by=300)
    _assert_exactly_once(kafka_bootstrap, topic, {0, 1, 2})
