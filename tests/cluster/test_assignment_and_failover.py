"""Balance over workers, sticky moves on join, leader failover, and zombie leaders (tests/cluster)."""

from __future__ import annotations

import collections
import json
import signal

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    config_records,
    current_leader,
    end_offsets,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]


def _placement(client: ConnectClient, name: str, tasks: int) -> dict[int, str] | None:
    st = client.status(name)
    if len(st["tasks"]) != tasks or any(t["state"] != "RUNNING" for t in st["tasks"]):
        return None
    return {t["id"]: t["worker_id"] for t in st["tasks"]}


def test_balanced_and_sticky_when_a_worker_joins(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers = [cluster() for _ in range(3)]
    for w in workers:
        w.wait_ready()
    client = ConnectClient(workers[0].url)
    topic = new_topic(kafka_bootstrap)
    client.create_connector("six", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "6",
                                    "throughput": "20"})

    def balanced(n: int) -> dict[int, str] | None:
        placed = _placement(client, "six", 6)
        if placed is None:
            return None
        counts = collections.Counter(placed.values())
        return placed if len(counts) == n and max(counts.values()) - min(counts.values()) <= 1 else None

    before = wait_until(lambda: balanced(3), 90, message="6 tasks balanced over 3 workers")
    assert sorted(collections.Counter(before.values()).values()) == [2, 2, 2]
    fourth = cluster()
    fourth.wait_ready()
    after = wait_until(lambda: balanced(4), 90, message="6 tasks balanced over 4 workers")
    moved = [t for t in range(6) if before[t] != after[t]]
    assert len(moved) == 1, (before, after)  # 2,2,2 -> 2,2,1,1 needs exactly one move
    assert after[moved[0]] == f"127.0.0.1:{fourth.port}"


def test_leader_sigkill_new_leader_serves_writes(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers: list[WorkerProcess] = [cluster() for _ in range(3)]
    for w in workers:
        w.wait_ready()
    config_topic = workers[0].props["config.storage.topic"]
    first = wait_until(lambda: current_leader(kafka_bootstrap, config_topic), 30, message="a leader")
    leader = next(w for w in workers if first["url"] == w.url)
    leader.kill()
    survivors = [w for w in workers if w is not leader]
    second = wait_until(lambda: (r := current_leader(kafka_bootstrap, config_topic)) and r["epoch"] > first["epoch"]
                        and r, 60, message="a new leader")
    assert second["url"] in {w.url for w in survivors}
    topic = new_topic(kafka_bootstrap)
    for w in survivors:  # through the leader and through a follower (forwarded)
        client = ConnectClient(w.url)
        name = f"after-failover-{w.port}"
        wait_until(lambda c=client, n=name: c.request("POST", "/connectors", json={"name": n, "config": {
            "connector.class": "VerifiableSource", "topic": topic, "tasks.max": "1", "throughput": "20"}}
        ).status_code == 201, 60, message=f"create {name}")
        client.wait_running(name, 1, 90)
    assert sum(end_offsets(kafka_bootstrap, topic).values()) >= 0


def test_zombie_leader_cannot_write(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers: list[WorkerProcess] = [cluster() for _ in range(3)]
    for w in workers:
        w.wait_ready()
    config_topic = workers[0].props["config.storage.topic"]
    topic = new_topic(kafka_bootstrap)
    client = ConnectClient(workers[0].url)
    client.create_connector("zl", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2",
                                   "throughput": "20"})
    client.wait_running("zl", 2)
    first = wait_until(lambda: current_leader(kafka_bootstrap, config_topic), 30, message="a leader")
    zombie = next(w for w in workers if first["url"] == w.url)
    zombie.signal(signal.SIGSTOP)
    try:
        second = wait_until(lambda: (r := current_leader(kafka_bootstrap, config_topic)) and r["epoch"] > first["epoch"]
                            and r, 60, message="a successor")
        successor = ConnectClient(second["url"])
        r = successor.request("PUT", "/connectors/zl/config", json={
            "connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2", "throughput": "30"})
        assert r.status_code == 200, r.text
    finally:
        zombie.signal(signal.SIGCONT)
    # The old leader wakes up believing it leads; it must step down without a single write landing.
    wait_until(lambda: "stepping down" in zombie.log_tail(400) or "was fenced" in zombie.log_tail(400), 60,
               message="the zombie leader to step down")
    records = config_records(kafka_bootstrap, config_topic)
    claim = max(i for i, (k, v) in enumerate(records) if k == "leader" and json.loads(v or b"{}").get(
        "epoch") == second["epoch"])
    for key, value in records[claim + 1:]:
        if key in ("leader", "assignment") and value is not None:
            assert json.loads(value).get("leader", json.loads(value).get("worker_id")) != first["worker_id"], key
    assert current_leader(kafka_bootstrap, config_topic)["epoch"] == second["epoch"]
    # The connector still runs with the successor's config, and the zombie forwards writes now.
    assert ConnectClient(zombie.url).request("PUT", "/connectors/zl/config", json={
        "connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2", "throughput": "40"}
    ).status_code == 200
