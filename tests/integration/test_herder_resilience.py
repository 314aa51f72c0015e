"""The herder on a real broker: transient task failures are retried by the runtime, a config too large
for the config topic is refused before anything is written, and slow plugin validation does not stall
other requests."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    plugin_path,
    read_committed,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled", extra=plugin_path(PLUGINS_DIR))]


def _delete_after_exactly_once(client: ConnectClient, bootstrap: str, name: str, topic: str, records: int) -> None:
    """Once ``topic`` holds ``records`` records, delete ``name``: every sequence number is there once."""
    wait_until(lambda: len(read_committed(bootstrap, topic)) >= records, 30, message="records")
    client.request("DELETE", f"/connectors/{name}")
    report = check_sequences(verifiable_pairs(read_committed(bootstrap, topic)))
    assert report.exactly_once, report.summary()


def test_task_failing_on_a_transient_error_is_restarted_by_the_runtime(
        kafka_bootstrap: str, client: ConnectClient, tmp_path: Path) -> None:
    topic = new_topic(kafka_bootstrap)
    client.create_connector("flaky", {"connector.class": "flaky_source.FlakySourceConnector", "topic": topic,
                                      "tasks.max": "2", "state.dir": str(tmp_path), "failures": "2"})
    seen_failed = wait_until(lambda: any(t["state"] == "FAILED" for t in client.status("flaky")["tasks"]), 30,
                             0.05, message="a FAILED task (status stays truthful)")
    assert seen_failed
    # No REST call: the runtime restarts them with backoff (1 s, then 2 s).
    client.wait_running("flaky", 2, timeout_s=30)
    assert all((tmp_path / f"starts-{t}").read_text() == "3" for t in (0, 1))
    _delete_after_exactly_once(client, kafka_bootstrap, "flaky", topic, 100)


def test_task_failing_on_its_own_error_stays_failed(kafka_bootstrap: str, client: ConnectClient,
                                                    tmp_path: Path) -> None:
    topic = new_topic(kafka_bootstrap)
    client.create_connector("broken", {"connector.class": "flaky_source.FlakySourceConnector", "topic": topic,
                                       "state.dir": str(tmp_path), "failures": "1", "transient": "false"})
    wait_until(lambda: client.status("broken")["tasks"][0]["state"] == "FAILED", 30, message="FAILED")
    time.sleep(3)  # longer than the first retry backoff: nothing restarts it
    assert client.status("broken")["tasks"][0]["state"] == "FAILED"
    assert (tmp_path / "starts-0").read_text() == "1"
    client.request("DELETE", "/connectors/broken")


def test_config_too_large_for_the_config_topic_is_refused_before_writing(
        kafka_bootstrap: str, client: ConnectClient, worker: WorkerProcess) -> None:
    topic = new_topic(kafka_bootstrap)
    big = {"connector.class": "VerifiableSource", "topic": topic, "padding": "x" * (2 * 1024 * 1024)}
    started = time.monotonic()
    r = client.request("POST", "/connectors", json={"name": "huge", "config": big})
    assert r.status_code == 400, r.text
    message = r.json()["message"]
    assert message.startswith("Connector configuration is too large"), message
    assert "bytes allowed by" in message and "max.message.bytes of config topic" in message, message
    assert client.request("GET", "/connectors/huge").status_code == 404
    # Nothing was left behind: the next ordinary create succeeds at once.
    client.create_connector("after-huge", {"connector.class": "VerifiableSource", "topic": topic,
                                           "throughput": "10"})
    assert time.monotonic() - started < 10
    client.wait_running("after-huge", 1)
    client.request("DELETE", "/connectors/after-huge")


def test_verifiable_records_after_a_restart_of_a_task(kafka_bootstrap: str, client: ConnectClient) -> None:
    """A task restart stops the old instance in the background; the new one starts once it is gone."""
    topic = new_topic(kafka_bootstrap)
    client.create_connector("restarted", {"connector.class": "VerifiableSource", "topic": topic,
                                          "tasks.max": "1", "throughput": "200"})
    client.wait_running("restarted", 1)
    for _ in range(3):
        assert client.request("POST", "/connectors/restarted/tasks/0/restart").status_code == 204
        client.wait_running("restarted", 1)
    _delete_after_exactly_once(client, kafka_bootstrap, "restarted", topic, 200)


def test_slow_plugin_validation_does_not_stall_other_requests(kafka_bootstrap: str, client: ConnectClient,
                                                              worker: WorkerProcess) -> None:
    topic = new_topic(kafka_bootstrap)
    slow = {"connector.class": "flaky_source.SlowValidationConnector", "topic": topic, "state.dir": "/",
            "failures": "0", "validate.sleep.ms": "6000"}
    with ThreadPoolExecutor(1) as pool:
        started = time.monotonic()
        slow_create = pool.submit(ConnectClient(worker.url, timeout_s=60).request, "POST", "/connectors",
                                  json={"name": "slow", "config": slow})
        time.sleep(0.5)
        fast_started = time.monotonic()
        client.create_connector("fast", {"connector.class": "VerifiableSource", "topic": topic, "throughput": "10"})
        assert client.request("POST", "/connectors/fast/restart").status_code in (204, 409)
        fast_s = time.monotonic() - fast_started
        assert not slow_create.done(), "the slow validation is still running"
        assert fast_s < 4.0, f"a create and a restart took {fast_s:.1f} s behind a slow validation"
        assert slow_create.result(60).status_code == 201
        assert time.monotonic() - started >= 6.0
    for name in ("slow", "fast"):
        client.request("DELETE", f"/connectors/{name}")
