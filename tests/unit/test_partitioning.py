"""Java-compatible key partitioning: Kafka's murmur2 and default partitioner, and producer settings."""

from __future__ import annotations

import pytest

from connect_runtime.api.kafka_clients import JAVA_COMPATIBLE_PARTITIONER
from connect_runtime.api.partitioning import java_partition, murmur2, to_positive
from connect_runtime.clients import client_config, producer_config
from connect_runtime.config.worker_config import WorkerConfig


@pytest.mark.parametrize(
    ("data", "expected"),
    [  # the vectors of Kafka's UtilsTest.testMurmur2
        (b"21", -973932308),
        (b"foobar", -790332482),
        (b"a-little-bit-long-string", -985981536),
        (b"a-little-bit-longer-string", -1486304829),
        (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        (b"abc", 479470107),
    ],
)
def test_murmur2_matches_kafka(data: bytes, expected: int) -> None:
    assert murmur2(data) == expected


def test_murmur2_covers_every_tail_length() -> None:
    # "21", "abc", "foobar" and the long strings cover tails 2, 3, 2, 0 and 0; these cover 1 and the
    # empty input, and the result is always a signed 32-bit int.
    for data in (b"", b"x", b"abcde", bytes(range(256))):
        assert -(2**31) <= murmur2(data) < 2**31


def test_to_positive_clears_the_sign_bit() -> None:
    assert to_positive(-1) == 0x7FFFFFFF
    assert to_positive(-(2**31)) == 0  # not abs(): Java's Utils.toPositive
    assert to_positive(5) == 5


def test_offsets_topic_key_partition() -> None:
    # Equals Java's DefaultPartitioner / BuiltInPartitioner.partitionForKey for these bytes and 25
    # partitions (the default offset.storage.partitions).
    key = b'["my-connector",{"id":0}]'
    assert murmur2(key) == -958030860
    assert java_partition(key, 25) == 13
    assert java_partition(b'["my-connector",{"id":1}]', 25) == 11


def test_java_partition_rejects_no_partitions() -> None:
    with pytest.raises(ValueError, match="num_partitions"):
        java_partition(b"k", 0)


def test_producer_config_uses_the_java_partitioner() -> None:
    conf = producer_config({"bootstrap.servers": "b:9092"})
    assert conf["partitioner"] == JAVA_COMPATIBLE_PARTITIONER == "murmur2_random"
    assert conf["bootstrap.servers"] == "b:9092"
    assert "logger" in conf


def test_producer_config_keeps_an_explicit_partitioner() -> None:
    worker = WorkerConfig.from_properties({
        "bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s", "producer.partitioner": "consistent",
    })
    assert producer_config(worker.client_props("producer."))["partitioner"] == "consistent"


def test_consumer_and_admin_configs_get_no_producer_keys() -> None:
    # librdkafka warns about producer-only properties in a consumer or admin configuration.
    assert "partitioner" not in client_config({"bootstrap.servers": "b:9092"})
