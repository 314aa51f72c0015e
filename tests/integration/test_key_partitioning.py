"""Records keyed like the offsets topic land where a Java producer would put them."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import Producer

from connect_runtime.api.partitioning import java_partition
from connect_runtime.clients import producer_config
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.testing.pytest_plugin import new_topic

PARTITIONS = 25  # offset.storage.partitions' default
KEYS = [f'["my-connector",{{"id":{i}}}]'.encode() for i in range(8)]


def _delivered_partitions(conf: dict[str, Any], topic: str) -> dict[bytes, int]:
    """Produce every key once and return the partition the broker acknowledged for each."""
    placed: dict[bytes, int] = {}
    errors: list[Any] = []

    def on_delivery(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(err)
        else:
            placed[msg.key()] = msg.partition()

    producer: Any = Producer(conf)
    for key in KEYS:
        producer.produce(topic, key=key, value=b"{}", on_delivery=on_delivery)
    assert producer.flush(30) == 0
    assert not errors
    return placed


@pytest.mark.kafka
def test_runtime_producers_place_keys_like_java(kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap, partitions=PARTITIONS)
    worker = WorkerConfig.from_properties({
        "bootstrap.servers": kafka_bootstrap, "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": topic, "status.storage.topic": "s",
    })

    runtime = _delivered_partitions(producer_config(worker.client_props("producer.")), topic)
    assert runtime == {key: java_partition(key, PARTITIONS) for key in KEYS}

    # librdkafka's own default (CRC32) would put some of these keys elsewhere than Java does, so
    # the assertion above depends on the runtime's setting.
    default = _delivered_partitions({"bootstrap.servers": kafka_bootstrap}, topic)
    assert any(default[key] != java_partition(key, PARTITIONS) for key in KEYS)
