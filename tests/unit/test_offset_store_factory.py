"""Which offsets store a connector gets: the worker's alone, or its own topic on its producer's cluster."""

from __future__ import annotations

from typing import Any, cast

import pytest

from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.storage.offset_backing_store import KafkaOffsetBackingStore
from connect_runtime.worker.offset_store_factory import OffsetStoreFactory

BASE = {"name": "c", "connector.class": "VerifiableSource", "topic": "t"}


@pytest.fixture
def factory() -> OffsetStoreFactory:
    config = WorkerConfig.from_properties({
        "bootstrap.servers": "a:9092,b:9092", "group.id": "g", "config.storage.topic": "configs",
        "offset.storage.topic": "offsets", "status.storage.topic": "status",
        "consumer.fetch.min.bytes": "10",
    })
    return OffsetStoreFactory(config, cast(KafkaOffsetBackingStore, object()))


def _cfg(**extra: Any) -> SourceConnectorConfig:
    return SourceConnectorConfig.parse({**BASE, **extra})


def test_no_offsets_topic_or_the_workers_own_means_one_store(factory: OffsetStoreFactory) -> None:
    assert not factory.uses_connector_store(_cfg())
    assert not factory.uses_connector_store(_cfg(**{"offsets.storage.topic": "offsets"}))
    # The same servers in another order are the same cluster.
    assert not factory.uses_connector_store(_cfg(**{"offsets.storage.topic": "offsets",
                                                    "producer.override.bootstrap.servers": "b:9092, a:9092"}))
    assert factory.for_connector(_cfg()).secondary is None


def test_own_topic_or_another_cluster_means_a_connector_store(factory: OffsetStoreFactory) -> None:
    assert factory.uses_connector_store(_cfg(**{"offsets.storage.topic": "mine"}))
    assert factory.uses_connector_store(_cfg(**{"offsets.storage.topic": "offsets",
                                                "producer.override.bootstrap.servers": "other:9092"}))


def test_connector_clients_target_the_producers_cluster(factory: OffsetStoreFactory) -> None:
    cfg = _cfg(**{"producer.override.bootstrap.servers": "other:9092",
                  "consumer.override.fetch.min.bytes": "99"})
    consumer = factory.client_settings(cfg, "consumer")
    assert consumer["bootstrap.servers"] == "other:9092"
    assert consumer["fetch.min.bytes"] == "99"
    assert factory.client_settings(_cfg(), "consumer")["bootstrap.servers"] == "a:9092,b:9092"
    assert factory.client_settings(_cfg(), "consumer")["fetch.min.bytes"] == "10"


def test_exactly_once_tasks_on_another_cluster_keep_offsets_there() -> None:
    """Under exactly-once a task's offsets commit in its own transaction, so on its producer's cluster:
    with no offsets.storage.topic, a topic named like the worker's, there (the reference does the same)."""
    config = WorkerConfig.from_properties({
        "bootstrap.servers": "a:9092", "group.id": "g", "config.storage.topic": "configs",
        "offset.storage.topic": "offsets", "status.storage.topic": "status",
        "exactly.once.source.support": "enabled",
    })
    eos = OffsetStoreFactory(config, cast(KafkaOffsetBackingStore, object()))
    remote = _cfg(**{"producer.override.bootstrap.servers": "other:9092"})
    assert eos.connector_topic(remote) == "offsets"
    assert eos.uses_connector_store(remote)
    assert not eos.uses_connector_store(_cfg())  # same cluster, same topic: the worker's store


def test_at_least_once_tasks_on_another_cluster_write_through_the_worker(factory: OffsetStoreFactory) -> None:
    remote = _cfg(**{"producer.override.bootstrap.servers": "other:9092"})
    assert factory.connector_topic(remote) is None
    assert not factory.uses_connector_store(remote)
