"""Restarts (plain → owner, 204; includeTasks/onlyFailed → 202 RESTARTING) and stop (204), sent to
any worker of a two-worker cluster and forwarded where they must run."""

from __future__ import annotations

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    assert_settles,
    end_offsets,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]


def test_restart_and_stop_through_any_worker(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers: list[WorkerProcess] = cluster.start(2)
    a, b = (ConnectClient(w.url) for w in workers)
    topic = new_topic(kafka_bootstrap, partitions=2)
    a.create_connector("rs", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2",
                              "throughput": "50"})
    st = a.wait_running("rs", 2, 90)
    owner = st["connector"]["worker_id"]
    non_owner = b if owner == f"127.0.0.1:{workers[0].port}" else a

    # Plain restart through the worker that does not own the connector: forwarded to the owner.
    r = non_owner.request("POST", "/connectors/rs/restart")
    assert r.status_code == 204, r.text
    a.wait_running("rs", 2, 60)

    # Task restart through either worker.
    for client in (a, b):
        r = client.request("POST", "/connectors/rs/tasks/1/restart")
        assert r.status_code == 204, r.text
        a.wait_running("rs", 2, 60)
    assert a.request("POST", "/connectors/rs/tasks/7/restart").status_code == 404

    # Restart with tasks: 202 and the RESTARTING plan.
    r = non_owner.request("POST", "/connectors/rs/restart", params={"includeTasks": "true"})
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["connector"]["state"] == "RESTARTING"
    assert [t["state"] for t in body["tasks"]] == ["RESTARTING", "RESTARTING"]
    a.wait_running("rs", 2, 60)

    # onlyFailed with nothing failed: nothing restarts.
    r = a.request("POST", "/connectors/rs/restart", params={"includeTasks": "true", "onlyFailed": "true"})
    assert r.status_code == 202 and all(t["state"] == "RUNNING" for t in r.json()["tasks"]), r.text

    # Stop: 204, the connector is STOPPED with no tasks and nothing more is written.
    r = non_owner.request("PUT", "/connectors/rs/stop")
    assert r.status_code == 204, r.text

    a.wait_state("rs", "STOPPED", timeout_s=60)
    assert a.request("GET", "/connectors/rs").json()["tasks"] == []
    # The stopping tasks' final commits may still land; after that the end offsets must stay put.
    assert_settles(lambda: end_offsets(kafka_bootstrap, topic), message=f"end offsets of {topic}")
    # Resume brings it back with its tasks.
    assert b.request("PUT", "/connectors/rs/resume").status_code == 202
    a.wait_running("rs", 2, 90)
    assert a.request("POST", "/connectors/nope/restart").status_code == 404
    assert a.request("PUT", "/connectors/nope/stop").status_code == 404
