"""``errors.tolerance`` on a real broker: a value the converter rejects, and a record a transform
fails on, are skipped under ``all`` (logged as the reference's LogReporter does with
``errors.log.enable``; the task keeps RUNNING and a skipped record's offset is not written); under
``none`` the task fails with the converter's message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerGroup,
    WorkerProcess,
    end_offsets,
    plugin_path,
    read_committed,
    stored_offsets,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
POISON = "poison_source.PoisonSourceConnector"
EVERY = 5
BOOM = 7
CONVERTER_MESSAGE = "Python class builtins.set does not have corresponding schema type."


@pytest.fixture
def worker(worker_factory: WorkerGroup) -> WorkerProcess:
    return worker_factory(eos="enabled", extra=plugin_path(PLUGINS_DIR), ready=True)


def test_tolerance_all_skips_and_none_fails(kafka_bootstrap: str, worker: WorkerProcess) -> None:
    skip_topic = new_topic(kafka_bootstrap)
    fail_topic = new_topic(kafka_bootstrap)
    client = ConnectClient(worker.url)
    try:
        client.create_connector("tolerant", {
            "connector.class": POISON, "topic": skip_topic, "poison.every": str(EVERY), "boom.every": str(BOOM),
            "errors.tolerance": "all", "errors.log.enable": "true", "errors.log.include.messages": "true",
            # Fails on the records with a "boom" header: InsertField needs a map, they hold an int.
            "transforms": "boom", "transforms.boom.type": "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.boom.static.field": "f", "transforms.boom.static.value": "v",
            "transforms.boom.predicate": "hasBoom", "predicates": "hasBoom",
            "predicates.hasBoom.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
            "predicates.hasBoom.name": "boom"})
        client.create_connector("intolerant", {"connector.class": POISON, "topic": fail_topic,
                                               "poison.every": str(EVERY)})

        def failed() -> str | None:
            task = client.status("intolerant")["tasks"]
            return task[0].get("trace") if task and task[0]["state"] == "FAILED" else None

        trace = wait_until(failed, 60, message="the intolerant task FAILED")
        assert CONVERTER_MESSAGE in trace and "Tolerance exceeded in error handler" in trace
        # Nothing of the failed transaction is visible.
        assert not read_committed(kafka_bootstrap, fail_topic)

        wait_until(lambda: sum(end_offsets(kafka_bootstrap, skip_topic).values()) > 100, 60,
                   message=f"records in {skip_topic}")
        status = client.status("tolerant")
        assert status["tasks"][0]["state"] == "RUNNING", status
        assert worker.stop() == 0  # final commit
    finally:
        client.close()

    seqnos = [json.loads(v) for _, v in read_committed(kafka_bootstrap, skip_topic) if v is not None]
    top = max(seqnos)
    # Every good record once, in order; every poisoned one skipped.
    assert seqnos == [s for s in range(top + 1) if s % EVERY != EVERY - 1 and s % BOOM != BOOM - 1]
    # The last committed offset is that of the last delivered record (a skipped one's is never written).
    assert stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], "tolerant") == {0: top}
    log = worker.log_path.read_text()
    assert ("Error encountered in task tolerant-0. Executing stage 'VALUE_CONVERTER' with class "
            "'connect_runtime.converters.json_converter.JsonConverter', where source record is = SourceRecord(") in log
    assert CONVERTER_MESSAGE in log
    assert ("Error encountered in task tolerant-0. Executing stage 'TRANSFORMATION' with class "
            "'connect_runtime.transforms.insert_field.InsertFieldValue'") in log
    assert "Only Map objects supported in absence of schema for [field insertion], found: java.lang.Long" in log


def test_at_least_once_delivery_errors_skipped_under_all(
        kafka_bootstrap: str, worker_factory: WorkerGroup) -> None:
    """At-least-once (no exactly-once): a record the broker refuses is logged and skipped under
    ``all``, as the reference's WorkerSourceTask does; under ``none`` it fails the task."""
    worker = worker_factory(eos="disabled", extra=plugin_path(PLUGINS_DIR), ready=True)
    small = {"max.message.bytes": "2048"}
    skip_topic = new_topic(kafka_bootstrap, config=small)
    fail_topic = new_topic(kafka_bootstrap, config=small)
    client = ConnectClient(worker.url)
    try:
        common = {"connector.class": POISON, "poison.every": "1000000", "big.every": "20",
                  "value.converter": "org.apache.kafka.connect.storage.StringConverter"}
        client.create_connector("tolerant", {**common, "topic": skip_topic, "errors.tolerance": "all"})
        client.create_connector("intolerant", {**common, "topic": fail_topic})

        def failed() -> str | None:
            task = client.status("intolerant")["tasks"]
            return task[0].get("trace") if task and task[0]["state"] == "FAILED" else None

        trace = wait_until(failed, 60, message="the intolerant task FAILED")
        assert "Failed to send a record of task intolerant-0" in trace
        wait_until(lambda: sum(end_offsets(kafka_bootstrap, skip_topic).values()) > 150, 60,
                   message=f"records in {skip_topic}")
        assert client.status("tolerant")["tasks"][0]["state"] == "RUNNING"
        assert "Task tolerant-0 failed to send" in worker.log_path.read_text()
    finally:
        client.close()
        worker.kill()
    values = [v for _, v in read_committed(kafka_bootstrap, skip_topic)]
    assert values and all(v is not None and len(v) < 100 for v in values)
