"""Per-connector offsets topics (``offsets.storage.topic``) on a real broker: offsets land in the
connector's topic and are mirrored to the worker's; a SIGKILLed worker resumes from them; a worker
downgraded to at-least-once keeps the position; a producer override puts data and offsets on another
Kafka cluster."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    end_offsets,
    read_committed,
    stored_offsets,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.local_kafka import LocalKafka, session_kafka_version
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

NAME = "own-offsets"


def _records(bootstrap: str, topic: str) -> int:
    return sum(end_offsets(bootstrap, topic).values())


def _more_records(bootstrap: str, topic: str, count: int) -> None:
    floor = _records(bootstrap, topic)
    wait_until(lambda: _records(bootstrap, topic) > floor + count, 60, message=f"{count} more records in {topic}")


def _topic_shape(bootstrap: str, topic: str) -> tuple[int, str]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    partitions = len(admin.list_topics(topic, timeout=30).topics[topic].partitions)
    res = ConfigResource(ResourceType.TOPIC, topic)
    configs = admin.describe_configs([res])[res].result(30)
    return partitions, configs["cleanup.policy"].value


def test_separate_offsets_topic_survives_kill_and_downgrade(
        kafka_bootstrap: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    topic = new_topic(kafka_bootstrap, partitions=2)
    worker = worker_factory(eos="enabled")
    worker.wait_ready()
    own = f"{worker.props['group.id']}-{NAME}-offsets"
    global_topic = worker.props["offset.storage.topic"]
    client = ConnectClient(worker.url)
    client.create_connector(NAME, {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "2",
                                   "throughput": "200", "offsets.storage.topic": own})
    client.wait_running(NAME, 2)
    _more_records(kafka_bootstrap, topic, 300)
    # Created with the worker's offsets-topic settings; the worker's topic gets the mirror.
    assert _topic_shape(kafka_bootstrap, own) == (int(worker.props["offset.storage.partitions"]), "compact")
    assert set(stored_offsets(kafka_bootstrap, own, NAME)) == {0, 1}
    wait_until(lambda: set(stored_offsets(kafka_bootstrap, global_topic, NAME)) == {0, 1}, 30,
               message="offsets mirrored to the worker's topic")

    worker.kill()
    worker.start()
    worker.wait_ready()
    client.wait_running(NAME, 2)
    _more_records(kafka_bootstrap, topic, 300)
    assert worker.stop() == 0, worker.log_tail()
    client.close()
    before = stored_offsets(kafka_bootstrap, own, NAME)
    report = check_sequences(verifiable_pairs(read_committed(kafka_bootstrap, topic)))
    assert report.exactly_once, report.summary()
    assert all(before[t] == report.max_seqno[t] for t in (0, 1)), (before, report.summary())

    # Downgrade: at-least-once tasks read (and write) the same connector topic: no reset to zero.
    downgraded = worker_factory(eos="disabled")
    downgraded.wait_ready()
    client = ConnectClient(downgraded.url)
    client.wait_running(NAME, 2)
    _more_records(kafka_bootstrap, topic, 300)
    wait_until(lambda: all(v > before[t] for t, v in stored_offsets(kafka_bootstrap, own, NAME).items()), 30,
               message="at-least-once offsets in the connector's topic")
    assert downgraded.stop() == 0, downgraded.log_tail()
    client.close()
    report = check_sequences(verifiable_pairs(read_committed(kafka_bootstrap, topic)))
    assert not any(report.gaps.values()), report.summary()
    assert not any(report.duplicates.values()), report.summary()  # graceful stop: nothing re-sent
    assert all(report.max_seqno[t] > before[t] for t in (0, 1)), report.summary()


def test_producer_override_puts_data_and_offsets_on_another_cluster(
        kafka_bootstrap: str, worker_factory: Callable[..., WorkerProcess], tmp_path: Path) -> None:
    other_kafka = LocalKafka(tmp_path / "other-kafka", kafka_version=session_kafka_version())
    other = other_kafka.start()
    try:
        topic = new_topic(other, partitions=1)
        worker = worker_factory(eos="enabled")
        worker.wait_ready()
        own = f"{worker.props['group.id']}-remote-offsets"
        client = ConnectClient(worker.url)
        client.create_connector("remote", {
            "connector.class": "VerifiableSource", "topic": topic, "tasks.max": "1", "throughput": "200",
            "offsets.storage.topic": own, "producer.override.bootstrap.servers": other})
        client.wait_running("remote", 1)
        _more_records(other, topic, 200)
        worker.kill()
        worker.start()
        worker.wait_ready()
        client.wait_running("remote", 1)
        _more_records(other, topic, 200)
        assert worker.stop() == 0, worker.log_tail()
        client.close()
        report = check_sequences(verifiable_pairs(read_committed(other, topic)))
        assert report.exactly_once, report.summary()
        assert stored_offsets(other, own, "remote") == {0: report.max_seqno[0]}
        assert own not in AdminClient({"bootstrap.servers": kafka_bootstrap}).list_topics(timeout=30).topics
        wait_until(lambda: stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], "remote"), 30,
                   message="the worker's own offsets topic mirrors the connector's offsets")
    finally:
        other_kafka.stop()
