"""``exactly.once.source.support=preparing`` (the middle step of a rolling upgrade) and the whole
rolling upgrade disabled → preparing → enabled, one worker at a time, without losing data."""

from __future__ import annotations

import httpx
import pytest

from connect_runtime.cluster.request_signature import sign
from connect_runtime.storage import formats
from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    end_offsets,
    read_committed,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]


def _session_key(bootstrap: str, config_topic: str) -> formats.SessionKeyRecord | None:
    latest = None
    for key, value in read_committed(bootstrap, config_topic):
        if key == b"session-key":
            rec = formats.parse_config_record("session-key", value)
            assert isinstance(rec, formats.SessionKeyRecord)
            latest = rec
    return latest


def test_preparing_serves_fencing_and_writes_transactionally_but_tasks_are_at_least_once(
        kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    worker: WorkerProcess = cluster(eos="preparing", ready=True)
    client = ConnectClient(worker.url)
    topic = new_topic(kafka_bootstrap)
    client.create_connector("prep", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "1",
                                     "throughput": "100"})
    client.wait_running("prep", 1, 60)
    wait_until(lambda: sum(end_offsets(kafka_bootstrap, topic).values()) > 200, 60, message="records")
    assert worker.stop() == 0
    # At-least-once tasks: plain idempotent producer, so the data topic holds no transaction markers.
    records = read_committed(kafka_bootstrap, topic)
    assert sum(end_offsets(kafka_bootstrap, topic).values()) == len(records)
    # The leader's config writes are transactional: the config topic holds markers.
    config_topic = worker.props["config.storage.topic"]
    assert sum(end_offsets(kafka_bootstrap, config_topic).values()) > len(read_committed(kafka_bootstrap,
                                                                                          config_topic))
    # The fence endpoint is served (signed with the current session key).
    worker.start()
    worker.wait_ready()
    key = wait_until(lambda: _session_key(kafka_bootstrap, config_topic), 30, message="a session key")
    r = httpx.put(f"{worker.url}/connectors/prep/fence", content=b"",
                  headers=sign(key.key, key.algorithm, b""), timeout=30)
    assert r.status_code == 204, r.text


def test_rolling_upgrade_disabled_preparing_enabled_loses_nothing(
        kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    workers: list[WorkerProcess] = cluster.start(2, eos="disabled")
    topic = new_topic(kafka_bootstrap, partitions=2)
    client = ConnectClient(workers[0].url)
    client.create_connector("up", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2",
                                   "throughput": "100"})
    client.wait_running("up", 2, 60)
    for mode in ("preparing", "enabled"):
        for w in workers:
            assert w.stop() == 0, w.log_tail()
            w.props["exactly.once.source.support"] = mode
            w.start()
            w.wait_ready()
            ConnectClient(w.url).wait_running("up", 2, 90)
    floor = sum(end_offsets(kafka_bootstrap, topic).values())
    wait_until(lambda: sum(end_offsets(kafka_bootstrap, topic).values()) > floor + 300, 60, message="progress")
    report = check_sequences(verifiable_pairs(read_committed(kafka_bootstrap, topic)))
    # Clean restarts commit their offsets, so nothing is lost (at-least-once phases may duplicate).
    assert not any(report.gaps.values()), report.summary()
    assert set(report.counts) == {0, 1}
    # After the upgrade the tasks are transactional: the status is RUNNING and markers appear.
    records = read_committed(kafka_bootstrap, topic)
    assert sum(end_offsets(kafka_bootstrap, topic).values()) > len(records)
