"""The offsets endpoints in a two-worker cluster: GET is answered by any worker, PATCH and DELETE are
forwarded to the leader (which runs the fencing round and the write) and its answer is relayed."""

from __future__ import annotations

from typing import Any

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    current_leader,
    read_committed,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

ALTERED = (
    "The Connect framework-managed offsets for this connector have been altered successfully. However, if this "
    "connector manages offsets externally, they will need to be manually altered in the system that the "
    "connector uses."
)


def _offsets(client: ConnectClient, name: str) -> dict[int, int]:
    r = client.request("GET", f"/connectors/{name}/offsets")
    assert r.status_code == 200, r.text
    return {o["partition"]["id"]: o["offset"]["seqno"] for o in r.json()["offsets"]}


def _patch(client: ConnectClient, name: str, offsets: list[dict[str, Any]]) -> tuple[int, Any]:
    r = client.request("PATCH", f"/connectors/{name}/offsets", json={"offsets": offsets})
    return r.status_code, r.json()


def test_offsets_through_the_follower(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers: list[WorkerProcess] = [cluster(), cluster()]
    for w in workers:
        w.wait_ready()
    leader = wait_until(lambda: current_leader(kafka_bootstrap, workers[0].props["config.storage.topic"]), 30,
                        message="a leader")
    follower_worker = next(w for w in workers if w.url != leader["url"])
    follower = ConnectClient(follower_worker.url)
    leader_client = ConnectClient(leader["url"])
    try:
        topic = new_topic(kafka_bootstrap)
        follower.create_connector("fw", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2",
                                         "throughput": "50"})
        follower.wait_running("fw", 2)
        wait_until(lambda: len(read_committed(kafka_bootstrap, topic, timeout_s=30)) > 20, 60, interval_s=0.5,
                   message="records")

        # Refused while running, by the leader: its 400 comes back through the follower.
        status, body = _patch(follower, "fw", [{"partition": {"id": 0}, "offset": {"seqno": 2}}])
        assert status == 400 and "must be in the STOPPED state" in body["message"], body

        assert follower.request("PUT", "/connectors/fw/stop").status_code == 204
        wait_until(lambda: (st := follower.status("fw"))["connector"]["state"] == "STOPPED" and not st["tasks"],
                   60, message="fw STOPPED")
        # STOPPED with no tasks can show while a task's last transaction commits (as in Java): wait for
        # the offsets to settle, then both workers must answer the same.
        def settled() -> dict[int, int] | None:
            first = _offsets(follower, "fw")
            return first if first == _offsets(leader_client, "fw") and set(first) == {0, 1} else None

        stored = wait_until(settled, 30, interval_s=0.5, message="the same offsets through both workers")

        assert _patch(follower, "fw", [{"partition": {"id": 1}, "offset": {"seqno": 2}}]) == (200, {"message": ALTERED})
        assert _offsets(leader_client, "fw") == {0: stored[0], 1: 2}

        before = verifiable_pairs(read_committed(kafka_bootstrap, topic))
        assert follower.request("PUT", "/connectors/fw/resume").status_code == 202
        follower.wait_running("fw", 2)

        def resumed() -> list[int] | None:
            after = verifiable_pairs(read_committed(kafka_bootstrap, topic))
            fresh = [s for t, s in after[len(before):] if t == 1]
            return fresh if len(fresh) >= 3 else None

        assert wait_until(resumed, 60, interval_s=0.5, message="task 1 resumed")[:3] == [3, 4, 5]
    finally:
        follower.close()
        leader_client.close()
