"""Java's source task lifecycle through a worker on a real broker: deleting a connector stops its task on
the task's own thread, after its ``poll`` returned, once; a task that failed in ``start`` gets no
``stop``; the connector is started and stopped once. The loop's logic in detail is in
tests/unit/test_task_lifecycle_loop.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from connect_runtime.testing import ConnectClient, WorkerGroup, WorkerProcess, plugin_path, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
LIFECYCLE = "lifecycle_source.LifecycleSourceConnector"


@pytest.fixture
def worker(worker_factory: WorkerGroup) -> WorkerProcess:
    return worker_factory(extra=plugin_path(PLUGINS_DIR), ready=True)


def _events(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def _calls(events: list[dict[str, Any]], who: str, call: str) -> list[dict[str, Any]]:
    return [e for e in events if e["who"] == who and e["call"] == call]


def test_a_deleted_connectors_task_is_stopped_on_its_thread_after_poll_and_a_failed_one_not_at_all(
        kafka_bootstrap: str, worker: WorkerProcess, tmp_path: Path) -> None:
    good, failed = tmp_path / "good.jsonl", tmp_path / "failed.jsonl"
    topic = new_topic(kafka_bootstrap)
    client = ConnectClient(worker.url)
    try:
        client.create_connector("good", {"connector.class": LIFECYCLE, "events.file": str(good), "topic": topic})
        client.create_connector("failed", {"connector.class": LIFECYCLE, "events.file": str(failed),
                                           "fail.task.start": "true", "topic": topic})
        client.wait_running("good", 1)

        def failed_task() -> bool:
            tasks = client.status("failed")["tasks"]
            return bool(tasks) and tasks[0]["state"] == "FAILED"

        wait_until(failed_task, 60, message="the task that fails in start() FAILED")
        # The failed connector first: by the time the good task's stop is written, it was handled.
        assert client.request("DELETE", "/connectors/failed").status_code == 204
        assert client.request("DELETE", "/connectors/good").status_code == 204
        wait_until(lambda: _calls(_events(good), "connector", "stop"), 60, message="the good connector stopped")
        wait_until(lambda: _calls(_events(good), "task-0", "stop"), 60, message="the good task stopped")
    finally:
        client.close()

    events = _events(good)
    (start,) = _calls(events, "task-0", "start")
    (stop,) = _calls(events, "task-0", "stop")
    assert (stop["pid"], stop["thread"]) == (start["pid"], start["thread"])  # the task's own thread
    assert stop["poll_threads"] == [start["thread"]]  # which is the one that polled
    assert stop["polling"] is False  # after poll returned
    assert len(_calls(events, "connector", "start")) == len(_calls(events, "connector", "stop")) == 1

    events = _events(failed)
    assert len(_calls(events, "task-0", "start")) == 1
    assert _calls(events, "task-0", "stop") == []  # its start() raised: no stop()
    assert len(_calls(events, "connector", "stop")) == 1
