"""A short run of bench/soak.py: ten connectors and fast churn on one worker, then every connector deleted;
nothing may be left behind (task processes, librdkafka clients, fds, threads). Too short for the RSS slopes
to mean anything: those are the 30-minute run's (bench/README.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from confluent_kafka import Producer

from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.testing.topics import client_settings

pytestmark = [pytest.mark.kafka, pytest.mark.cluster, pytest.mark.slow]

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def test_a_short_soak_with_churn_leaks_nothing(kafka_bootstrap: str) -> None:
    run = subprocess.run([sys.executable, str(SOAK), "--bootstrap", kafka_bootstrap, "--duration", "75",
                          "--connectors", "10", "--churn-interval", "1.5", "--sample-interval", "5",
                          "--warmup", "20", "--seed", "7"],
                         capture_output=True, text=True, timeout=600)
    assert run.stdout, run.stderr[-5000:]
    report = json.loads(run.stdout)
    context = json.dumps({k: v for k, v in report.items() if k not in ("samples", "action_log")}, indent=1)
    assert report["leaks"] == [], context
    assert report["after_delete"]["task_processes"] == [], context
    assert report["not_running"] == [], context
    assert report["slope_ok"] is None, context  # 55 s of fit: reported, never judged
    assert run.returncode == 0 and report["ok"], context
    # The churn did churn: dozens of actions of every kind, each task process with its one producer.
    assert report["actions"] >= 30, context
    assert set(report["actions_by_kind"]) == {"replace", "tasks", "throughput", "pause", "resume", "restart"}, context
    assert report["task_process_clients_max"] == 1, context
    assert report["rest_errors"] == 0, context
    assert len(report["samples"]) >= 10, context


def test_config_history_tells_a_tombstone_and_a_record_after_it(kafka_bootstrap: str) -> None:
    """What the report shows of a connector still listed after its delete: its config records in order,
    tombstones and aborted ones told apart, and no other connector's (``soak-1`` is not ``soak-13``)."""
    sys.path.insert(0, str(SOAK.parent))
    try:
        from soak import config_history  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SOAK.parent))
    topic = new_topic(kafka_bootstrap)
    producer = Producer(client_settings(kafka_bootstrap, **{"transactional.id": f"history-{topic}"}))
    producer.init_transactions(30)
    for records, commit in (([("connector-soak-1", b"{}"), ("target-state-soak-1", b"{}")], True),
                            ([("connector-soak-13", b"{}")], True),
                            ([("connector-soak-1", None), ("target-state-soak-1", None)], True),
                            ([("connector-soak-1", b"{}")], False)):
        producer.begin_transaction()
        for key, value in records:
            producer.produce(topic, key=key.encode(), value=value)
        if commit:
            producer.commit_transaction(30)
        else:
            assert producer.flush(30) == 0  # on the broker before the abort, so that it shows
            producer.abort_transaction(30)
    history = config_history(kafka_bootstrap, topic, ["soak-1"])
    assert [line.split(" ", 1)[1] for line in history["soak-1"]] == [
        "connector-soak-1 value committed", "target-state-soak-1 value committed",
        "connector-soak-1 tombstone committed", "target-state-soak-1 tombstone committed",
        "connector-soak-1 value aborted"]
