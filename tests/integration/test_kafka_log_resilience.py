"""The reader of an internal topic rides out a broker restart, and stops loudly, once, when its topic
is gone for good."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import KafkaException, Message, Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.storage.kafka_log import KafkaBasedLog
from connect_runtime.testing.cluster import wait_until
from connect_runtime.testing.local_kafka import LocalKafka, free_port, session_kafka_version
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.testing.topics import client_settings, unique_topic_name


class _Collector:
    def __init__(self) -> None:
        self.values: list[bytes | None] = []
        self.fatal: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def on_record(self, msg: Message) -> None:
        with self.lock:
            self.values.append(msg.value())

    def on_fatal(self, topic: str, reason: str) -> None:
        self.fatal.append((topic, reason))


def _produce(bootstrap: str, topic: str, value: bytes) -> None:
    p = Producer(client_settings(bootstrap, acks="all"))
    p.produce(topic, key=b"k", value=value)
    assert p.flush(30) == 0


@pytest.mark.cluster
def test_read_to_end_pending_through_a_broker_restart_completes_after(tmp_path: Path) -> None:
    kafka = LocalKafka(tmp_path / "kafka", kafka_version=session_kafka_version())
    port = free_port()
    bootstrap = kafka.start(port=port)
    try:
        topic = new_topic(bootstrap, partitions=2, config={"cleanup.policy": "compact"})
        _produce(bootstrap, topic, b"before")
        seen = _Collector()
        log = KafkaBasedLog(topic, client_settings(bootstrap), AdminClient(client_settings(bootstrap)),
                            seen.on_record, on_fatal=seen.on_fatal)
        log.start()
        assert seen.values == [b"before"]

        kafka.stop()
        pending = log.read_to_end()  # asked while the broker is down: list-offsets fails, again and again
        time.sleep(8)
        assert not pending.done(), pending.exception()
        assert kafka.start(port=port) == bootstrap
        # Right after a start, partitions may have no leader yet ("No leaders found"): still transient.
        pending.result(timeout=60)
        _produce(bootstrap, topic, b"after")
        log.read_to_end().result(timeout=60)
        assert seen.values == [b"before", b"after"]
        assert seen.fatal == []
        log.stop()
    finally:
        kafka.stop()


@pytest.mark.kafka
def test_deleted_topic_stops_the_reader_once_naming_the_topic(kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap, partitions=1)
    _produce(kafka_bootstrap, topic, b"v")
    seen = _Collector()
    admin = AdminClient(client_settings(kafka_bootstrap))
    log = KafkaBasedLog(topic, client_settings(kafka_bootstrap), admin, seen.on_record,
                        on_fatal=seen.on_fatal, missing_topic_grace_s=1.0)
    log.start()
    admin.delete_topics([topic], operation_timeout=30)[topic].result(30)

    def reader_stopped() -> bool:
        log.read_to_end()  # keep asking, as the herder would
        return bool(seen.fatal)

    wait_until(reader_stopped, 60, message="the reader to give up on the deleted topic")
    time.sleep(1)
    assert len(seen.fatal) == 1, seen.fatal
    failed_topic, reason = seen.fatal[0]
    assert failed_topic == topic and topic in reason and "\n" not in reason, reason
    assert log.read_to_end().exception(timeout=1) is not None  # later reads fail at once
    log.stop()


@pytest.mark.kafka
def test_start_waits_for_a_topic_whose_metadata_has_not_reached_its_broker_yet(kafka_bootstrap: str) -> None:
    """On three brokers a worker that creates an internal topic (or whose peer just did) may ask a broker
    whose metadata cache does not have it yet: the reader looks again rather than failing the worker's
    start. Shown here by a topic that appears a second after the reader starts."""
    topic = unique_topic_name("late")
    seen = _Collector()
    log = KafkaBasedLog(topic, client_settings(kafka_bootstrap),
                        AdminClient(client_settings(kafka_bootstrap)), seen.on_record,
                        on_fatal=seen.on_fatal, missing_topic_grace_s=20.0)
    creator = threading.Timer(1.0, lambda: new_topic(kafka_bootstrap, topic, config={"cleanup.policy": "compact"}))
    creator.start()
    try:
        log.start(timeout_s=30)
        _produce(kafka_bootstrap, topic, b"v")
        log.read_to_end().result(timeout=30)
        assert seen.values == [b"v"] and seen.fatal == []
        log.stop()
    finally:
        creator.join()


@pytest.mark.kafka
def test_start_still_fails_on_a_topic_that_never_appears(kafka_bootstrap: str) -> None:
    log = KafkaBasedLog(unique_topic_name("never"), client_settings(kafka_bootstrap),
                        AdminClient(client_settings(kafka_bootstrap)), lambda m: None, missing_topic_grace_s=1.0)
    with pytest.raises(KafkaException, match="has no partitions or does not exist"):
        log.start(timeout_s=30)
