"""Connectors start on threads of their own: one whose ``start()`` blocks delays nothing else.

A real worker process on a real broker. While a connector is inside ``start()`` (blocked on a file
the test creates at the end), another connector is created and reaches RUNNING with its task, and
a task restart completes; then the blocked connector is released and runs too.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import ConnectClient, plugin_path, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
SLOW_START_CLASS = "slow_start_source.SlowStartSourceConnector"
#: Generous for a loaded 2-core machine; unblocked, each step takes about a second.
DEADLINE_S = 20.0


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _verifiable(topic: str) -> dict[str, str]:
    return {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "1", "throughput": "10"}


@pytest.mark.connect_worker(extra=plugin_path(PLUGINS_DIR))
def test_a_connector_blocked_in_start_delays_no_create_and_no_restart(
        connect_client: ConnectClient, kafka_bootstrap: str, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    client = connect_client
    running = _name("running")
    client.create_connector(running, _verifiable(new_topic(kafka_bootstrap)))
    client.wait_running(running, 1, 60)

    slow = _name("slow")
    client.create_connector(slow, {"connector.class": SLOW_START_CLASS, "tasks.max": "1",
                                   "start.gate.dir": str(gate)})
    wait_until(lambda: (gate / "entered").exists(), DEADLINE_S, message="the slow connector inside start()")

    other = _name("other")
    other_topic = new_topic(kafka_bootstrap)
    t0 = time.monotonic()
    client.create_connector(other, _verifiable(other_topic))
    client.wait_running(other, 1, DEADLINE_S)
    create_s = time.monotonic() - t0

    t0 = time.monotonic()
    client.restart_task(running, 0)  # answered once the herder has stopped and started the task again
    restart_s = time.monotonic() - t0
    client.wait_task_state(running, 0, "RUNNING", DEADLINE_S)
    print(f"while a connector was blocked in start(): create to RUNNING {create_s:.2f} s, "
          f"task restart {restart_s:.2f} s")

    assert create_s < DEADLINE_S and restart_s < DEADLINE_S  # the requests themselves did not wait for it
    # All of that happened while the slow connector was still inside start().
    assert not (gate / "returned").exists()
    status = client.request("GET", f"/connectors/{slow}/status")
    assert status.status_code == 404 or status.json()["connector"]["state"] != "RUNNING", status.text

    (gate / "release").touch()
    client.wait_running(slow, 1, DEADLINE_S)
