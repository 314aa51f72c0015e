"""The offsets store on a real broker: a stored offset is found whatever the field order of the
partition map, in the bytes a Java worker (HashMap order) or a Python plugin (insertion order) wrote."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.clients import producer_config
from connect_runtime.storage import formats
from connect_runtime.storage.offset_backing_store import (
    ConnectorOffsetBackingStore,
    ConnectorOffsetReader,
    KafkaOffsetBackingStore,
    canonical_offset_key,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka


def test_offset_found_whatever_the_partition_field_order(kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap, partitions=5, config={"cleanup.policy": "compact"})
    client: dict[str, Any] = {"bootstrap.servers": kafka_bootstrap}
    written_order = {"table": "orders", "db": "shop"}  # e.g. a Java HashMap's iteration order
    producer = Producer(producer_config(client))
    producer.produce(topic, formats.offset_value({"position": 42}), formats.offset_key("c", written_order))
    producer.produce(topic, formats.offset_value({"position": 7}), formats.offset_key("other", written_order))
    assert producer.flush(30) == 0
    store = KafkaOffsetBackingStore(topic, client, AdminClient(client), producer)
    store.start()
    try:
        reader = ConnectorOffsetReader("c", store)
        assert reader.offset({"db": "shop", "table": "orders"}) == {"position": 42}
        # A write that replaces it (the offsets REST API) must also use the writer's bytes.
        sorted_key = formats.offset_key("c", {"db": "shop", "table": "orders"})
        assert ConnectorOffsetBackingStore(store).written_keys(canonical_offset_key(sorted_key), sorted_key) == {
            sorted_key, formats.offset_key("c", written_order)}
        assert reader.offset({"table": "orders", "db": "shop"}) == {"position": 42}
        assert reader.offset({"db": "shop"}) is None
        # A tombstone written with the other order removes it too.
        store.set({formats.offset_key("c", {"db": "shop", "table": "orders"}): None})
        store.read_to_end().result(30)
        assert reader.offset({"table": "orders", "db": "shop"}) is None
        assert ConnectorOffsetReader("other", store).offset({"db": "shop", "table": "orders"}) == {"position": 7}
        assert store.connector_offsets("c") == {}
    finally:
        store.stop()
