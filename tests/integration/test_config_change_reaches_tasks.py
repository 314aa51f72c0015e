"""A connector config change reaches running tasks even when the task configs it generates are
identical (docs/architecture.md, "Internal topic records": the applied connector config is compared too).

The test connector's task configs hold only ``topic`` and the task id, so a new ``value.converter``
changes no task config; the runtime must still write the task configs again (a new generation: the
tasks restart with the new converter) and, under exactly-once, run a new fencing round. The data
shows the switch: the JsonConverter writes ``"5"``, the StringConverter ``5``.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    config_records,
    plugin_path,
    read_committed,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled", extra=plugin_path(PLUGINS_DIR))]
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


def _values(bootstrap: str, topic: str) -> list[bytes]:
    """Every committed value of task 0, in order (one partition, one task)."""
    return [v for _, v in read_committed(bootstrap, topic, timeout_s=30) if v is not None]


def _counts(bootstrap: str, config_topic: str, name: str) -> tuple[int, int]:
    """How many ``commit-<c>`` and ``tasks-fencing-<c>`` records the config topic holds."""
    keys = [k for k, _ in config_records(bootstrap, config_topic)]
    return keys.count(f"commit-{name}"), keys.count(f"tasks-fencing-{name}")


def test_converter_change_with_identical_task_configs_restarts_tasks(
    kafka_bootstrap: str, worker: WorkerProcess
) -> None:
    client = ConnectClient(worker.url)
    try:
        name, topic = f"fixed-{uuid.uuid4().hex[:6]}", new_topic(kafka_bootstrap)
        config_topic = worker.props["config.storage.topic"]
        config = {"connector.class": "fixed_task_source.FixedTaskSourceConnector", "topic": topic,
                  "tasks.max": "1"}
        client.create_connector(name, config)
        client.wait_running(name, 1)
        wait_until(lambda: len(_values(kafka_bootstrap, topic)) >= 10, 60, interval_s=0.5,
                   message="records with the JsonConverter")
        # The task-count record is written when the first task asks to be fenced: wait for it.
        commits, fencings = wait_until(lambda: (c := _counts(kafka_bootstrap, config_topic, name))[1] and c, 30,
                                       message="the first fencing record")
        tasks_before = client.request("GET", f"/connectors/{name}/tasks").json()

        resp = client.request("PUT", f"/connectors/{name}/config", json={**config, "value.converter": STRING_CONVERTER})
        assert resp.status_code == 200, resp.text

        # A new task-config generation and a new fencing round, although the task configs are the same.
        wait_until(lambda: (c := _counts(kafka_bootstrap, config_topic, name))[0] > commits and c[1] > fencings, 60,
                   message="a new commit record and a new tasks-fencing record")
        assert client.request("GET", f"/connectors/{name}/tasks").json() == tasks_before
        # The restarted task writes with the new converter (unquoted values).
        values = wait_until(lambda: (v := _values(kafka_bootstrap, topic)) and sum(not x.startswith(b'"') for x in v)
                            >= 10 and v, 60, interval_s=0.5, message="records with the StringConverter")
        client.wait_running(name, 1)

        switch = next(i for i, v in enumerate(values) if not v.startswith(b'"'))
        assert switch > 0 and all(not v.startswith(b'"') for v in values[switch:]), "the converter switched once"
        seqnos = [int(json.loads(v)) for v in values[:switch]] + [int(v) for v in values[switch:]]
        report = check_sequences((0, s) for s in seqnos)
        assert report.exactly_once, report.summary()
        assert seqnos == list(range(len(seqnos))), "in order, no gap, no duplicate across the restart"
    finally:
        client.close()
