"""A worker restarted right after the leader was SIGKILLed never trusts the dead leader's replayed
heartbeat: it never applies the dead leader's assignment, and no task fails for having
asked a dead URL for fencing. Nothing here restarts failed tasks: a FAILED task fails the test."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from connect_runtime.storage import formats
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

TASKS = 4


def _latest_assignment(bootstrap: str, config_topic: str) -> dict[str, Any]:
    latest = None
    for key, value in config_records(bootstrap, config_topic):
        if key == "assignment" and value is not None:
            latest = json.loads(value)
    assert latest is not None
    return latest


def _status_records_since(bootstrap: str, topic: str, start: dict[int, int]) -> list[formats.StatusRecord]:
    """Every connector and task status written to ``topic`` at or after the ``start`` offsets."""
    ends = end_offsets(bootstrap, topic)
    # A partition with nothing new since ``start`` is never fetched, so its position stays unset.
    behind = {p: end for p, end in ends.items() if end > start.get(p, 0)}
    out: list[formats.StatusRecord] = []
    if not behind:
        return out
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"verify-{uuid.uuid4()}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, start.get(p, 0)) for p in behind])
    deadline = time.monotonic() + 120
    try:
        while True:
            for m in consumer.consume(1000, 0.5):
                key = m.key()
                if m.error() is None and key is not None and not key.startswith(b"status-worker-"):
                    out.append(formats.parse_status_record(key.decode(), m.value()))
            positions = consumer.position([TopicPartition(topic, p) for p in behind])
            if all(tp.offset >= behind[tp.partition] for tp in positions):
                return out
            assert time.monotonic() < deadline, f"reading {topic} from {start} to {ends} took over 120 s"
    finally:
        consumer.close()


def test_restarted_worker_never_applies_a_dead_leaders_assignment(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers: list[WorkerProcess] = [cluster() for _ in range(3)]
    for w in workers:
        w.wait_ready()
    config_topic = workers[0].props["config.storage.topic"]
    status_topic = workers[0].props["status.storage.topic"]
    topic = new_topic(kafka_bootstrap, partitions=TASKS)
    client = ConnectClient(workers[0].url)
    client.create_connector("eos", {"connector.class": "VerifiableSource", "topic": topic,
                                    "tasks.max": str(TASKS), "throughput": "50"})

    def spread() -> dict[str, Any] | None:
        st = client.status("eos")
        ok = len(st["tasks"]) == TASKS and all(t["state"] == "RUNNING" for t in st["tasks"]) and len(
            {t["worker_id"] for t in st["tasks"]}) == 3
        return st if ok else None

    wait_until(spread, 90, message="4 tasks RUNNING on all 3 workers")
    first = current_leader(kafka_bootstrap, config_topic)
    assert first is not None
    leader = next(w for w in workers if w.url == first["url"])
    restarted, survivor = [w for w in workers if w is not leader]
    dead_plan = _latest_assignment(kafka_bootstrap, config_topic)
    assert dead_plan["leader"] == first["worker_id"]
    assert dead_plan["workers"][f"127.0.0.1:{restarted.port}"]["tasks"], dead_plan  # it has tasks to apply
    since = end_offsets(kafka_bootstrap, status_topic)

    leader.kill()
    restarted.kill()
    restarted.start()  # same port, so the same worker id; it replays the leader's last heartbeat
    restarted.wait_ready(60)

    survivor_client = ConnectClient(survivor.url)

    def recovered() -> dict[str, Any] | None:
        st = survivor_client.status("eos")
        assert not any(t["state"] == "FAILED" for t in st["tasks"]), st  # nothing restarts failed tasks here
        live = {f"127.0.0.1:{restarted.port}", f"127.0.0.1:{survivor.port}"}
        ok = len(st["tasks"]) == TASKS and all(t["state"] == "RUNNING" and t["worker_id"] in live
                                                for t in st["tasks"])
        return st if ok else None

    wait_until(recovered, 90, interval_s=0.5, message="every task RUNNING on the two live workers")
    second = current_leader(kafka_bootstrap, config_topic)
    assert second is not None and second["epoch"] > first["epoch"]

    records = _status_records_since(kafka_bootstrap, status_topic, since)
    failed = [r for r in records if isinstance(r, formats.TaskStatusRecord) and r.state == "FAILED"]
    assert not failed, failed
    restarted_id = f"127.0.0.1:{restarted.port}"
    # Everything the restarted worker started, it started under a live leader's (newer) assignment.
    by_restarted = [r for r in records if getattr(r, "worker_id", None) == restarted_id
                    and getattr(r, "state", None) == "RUNNING"]
    assert by_restarted, records
    stale = [r for r in by_restarted if (r.generation or 0) <= dead_plan["generation"]]
    assert not stale, (dead_plan["generation"], stale)
    assert "Cannot fence zombies" not in restarted.log_path.read_text(errors="replace")
    client.close()
    survivor_client.close()
