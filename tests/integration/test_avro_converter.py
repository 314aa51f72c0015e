"""``io.confluent.connect.avro.AvroConverter`` end to end: an exactly-once source writing Structs of every
Connect type through a worker, a real broker and a real schema registry.

What lands in Kafka is read under ``read_committed`` and decoded by confluent-kafka's
``AvroDeserializer`` (an independent implementation), and by the converter's own ``to_connect_data``;
the registered schema text is compared with Confluent's ``AvroData`` output for the same Connect
schema (its real output, written out below). Schema evolution follows the subject's BACKWARD rule:
an optional field added is version 2, a required one is the registry's 409, which fails the task
while what was written before stays exactly once.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from plugins import every_type_source  # the workers load it from plugin.path; the expected values are its
from registry_evolution import check_evolved, evolve_then_break, one_schema_under, records_in

from connect_runtime.api import Schema, Struct
from connect_runtime.converters.schema_registry.avro_converter import AvroConverter
from connect_runtime.testing import ConnectClient, WorkerProcess, check_sequences, new_topic, read_committed
from connect_runtime.testing.cluster import kill_mid_stream, plugin_path, stored_offsets, wait_until

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"

pytestmark = pytest.mark.kafka

AVRO = "io.confluent.connect.avro.AvroConverter"
CONNECTOR = "avro-orders"

#: What Confluent's AvroData registers for every_type_source.ORDER (its real output for this schema).
EXPECTED_ORDER = (
    '{"type":"record","name":"Order","namespace":"com.example","fields":['
    '{"name":"i8","type":{"type":"int","connect.type":"int8"}},'
    '{"name":"i16","type":{"type":"int","connect.type":"int16"}},'
    '{"name":"i32","type":"int"},{"name":"i64","type":"long"},{"name":"f32","type":"float"},'
    '{"name":"f64","type":"double"},{"name":"flag","type":"boolean"},{"name":"s","type":"string"},'
    '{"name":"b","type":"bytes"},{"name":"opt_s","type":["null","string"],"default":null},'
    '{"name":"def_s","type":{"type":"string","connect.default":"x"},"default":"x"},'
    '{"name":"opt_def_i","type":[{"type":"int","connect.default":5},"null"],"default":5},'
    '{"name":"doc_s","type":{"type":"string","connect.doc":"field doc"}},'
    '{"name":"amount","type":{"type":"bytes","scale":2,"precision":64,"connect.version":1,'
    '"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal",'
    '"logicalType":"decimal"}},'
    '{"name":"day","type":{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date",'
    '"logicalType":"date"}},'
    '{"name":"tod","type":{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time",'
    '"logicalType":"time-millis"}},'
    '{"name":"ts","type":["null",{"type":"long","connect.version":1,'
    '"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}],"default":null},'
    '{"name":"tags","type":{"type":"array","items":"string"}},'
    '{"name":"counts","type":{"type":"map","values":"int"}},'
    '{"name":"by_id","type":["null",{"type":"array","items":{"type":"record","name":"MapEntry",'
    '"namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},'
    '{"name":"value","type":"string"}]}}],"default":null},'
    '{"name":"addr","type":["null",{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro",'
    '"fields":[{"name":"street","type":"string"},{"name":"zip","type":["null","int"],"default":null}]}],'
    '"default":null}],'
    '"connect.doc":"an order","connect.version":3,"connect.parameters":{"owner":"team-a"},'
    '"connect.name":"com.example.Order"}'
)
#: Version 2: the same with an optional field at the end.
EXPECTED_WITH_NOTE = EXPECTED_ORDER.replace(
    '"default":null}],"connect.doc"', '"default":null},{"name":"note","type":["null","string"],"default":null}],'
    '"connect.doc"')


def avro_view(struct: Struct) -> dict[str, Any]:
    """What AvroDeserializer returns for a record written from ``struct`` (an ORDER-shaped value)."""
    view = {f.name: struct.get(f.name) for f in struct.schema.fields}
    view["tod"] = view["tod"].replace(tzinfo=None)  # time-millis reads back as a naive time
    if view["by_id"] is not None:
        view["by_id"] = [{"key": k, "value": v} for k, v in view["by_id"].items()]
    if view["addr"] is not None:
        view["addr"] = {"street": view["addr"].get("street"), "zip": view["addr"].get("zip")}
    return view


def connector_config(topic: str, registry: str, **extra: str) -> dict[str, str]:
    return {"connector.class": "every_type_source.EveryTypeSourceConnector", "topic": topic,
            "key.converter": AVRO, "key.converter.schema.registry.url": registry,
            "value.converter": AVRO, "value.converter.schema.registry.url": registry, **extra}


def decode_all(bootstrap: str, topic: str, registry: str) -> list[tuple[int, int, dict[str, Any], Struct]]:
    """Every committed record as (task, seqno, AvroDeserializer's value, to_connect_data's Struct)."""
    client = SchemaRegistryClient({"url": registry})
    keys, values = AvroDeserializer(client), AvroDeserializer(client)
    key_converter, value_converter = AvroConverter(), AvroConverter()
    key_converter.configure({"schema.registry.url": registry}, True)
    value_converter.configure({"schema.registry.url": registry}, False)
    decoded = []
    for key_bytes, value_bytes in read_committed(bootstrap, topic):
        key = keys(key_bytes, SerializationContext(topic, MessageField.KEY))
        value = values(value_bytes, SerializationContext(topic, MessageField.VALUE))
        assert key_converter.to_connect_data(topic, key_bytes).value == key
        connect = value_converter.to_connect_data(topic, value_bytes)
        assert isinstance(connect.value, Struct), connect
        decoded.append((key, value["i64"], value, connect.value))
    return decoded


def test_structs_of_every_type_are_exactly_once_under_sigkill_and_read_back(
        kafka_bootstrap: str, schema_registry_url: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    topic = new_topic(kafka_bootstrap, f"avro-{uuid.uuid4().hex[:8]}", partitions=2)
    worker = worker_factory(eos="enabled", extra=plugin_path(PLUGINS_DIR))
    worker.wait_ready()
    with ConnectClient(worker.url) as client:
        listed = [p for p in client.connector_plugins(connectors_only=False) if p["class"] == AVRO]
        assert [p["type"] for p in listed] == ["converter"], listed
        config = connector_config(topic, schema_registry_url, **{"tasks.max": "2"})
        refused = client.validation_errors({**config, "name": CONNECTOR,
                                            "value.converter.bearer.auth.token": "t",
                                            "value.converter.basic.auth.credentials.source": "SASL_INHERIT"})
        assert set(refused) == {"value.converter.bearer.auth.token", "value.converter.basic.auth.credentials.source"}
        assert "not supported" in refused["value.converter.bearer.auth.token"][0]
        assert client.validation_errors({**config, "name": CONNECTOR}) == {}

        client.create_connector(CONNECTOR, config)
        client.wait_running(CONNECTOR, 2)
        kill_mid_stream(worker, client, CONNECTOR, 2, lambda: records_in(kafka_bootstrap, topic), kills=2, every=200)
        floor = records_in(kafka_bootstrap, topic)
        wait_until(lambda: records_in(kafka_bootstrap, topic) > floor + 200, 90, message="records after the restarts")
        assert worker.stop() == 0, worker.log_tail()

    registry = SchemaRegistryClient({"url": schema_registry_url})
    assert registry.get_latest_version(f"{topic}-value").schema.schema_str == EXPECTED_ORDER
    assert registry.get_latest_version(f"{topic}-key").schema.schema_str == '"int"'
    assert one_schema_under(registry, f"{topic}-value") == EXPECTED_ORDER  # however many tasks and restarts

    pairs = []
    for task, seqno, value, struct in decode_all(kafka_bootstrap, topic, schema_registry_url):
        expected = every_type_source.order(task, seqno)
        assert value == avro_view(expected)
        assert struct.schema.name == "com.example.Order" and struct.schema.version == 3
        assert {f.name: struct.get(f.name) for f in struct.schema.fields} == \
            {f.name: expected.get(f.name) for f in expected.schema.fields}
        pairs.append((task, seqno))
    report = check_sequences(pairs)
    assert report.exactly_once, report.summary()
    assert set(report.counts) == {0, 1}
    assert stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], CONNECTOR) == report.max_seqno


def test_schema_evolution_backward_then_a_breaking_change_fails_the_task(
        kafka_bootstrap: str, schema_registry_url: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    topic = new_topic(kafka_bootstrap, f"avro-evolve-{uuid.uuid4().hex[:8]}")
    worker = evolve_then_break(kafka_bootstrap, schema_registry_url, worker_factory, CONNECTOR, topic,
                               lambda shape: connector_config(topic, schema_registry_url, shape=shape),
                               EXPECTED_WITH_NOTE)

    decoded = decode_all(kafka_bootstrap, topic, schema_registry_url)
    for task, seqno, value, _ in decoded:
        schema = every_type_source.WITH_NOTE if "note" in value else every_type_source.ORDER
        assert value == avro_view(every_type_source.order(task, seqno, schema))
    check_evolved(kafka_bootstrap, worker, CONNECTOR,
                  [(task, seqno, "note" in value) for task, seqno, value, _ in decoded])


def test_a_null_value_is_a_tombstone_and_a_key_of_bytes_has_no_length_prefix(schema_registry_url: str) -> None:
    topic = f"avro-unit-{uuid.uuid4().hex[:8]}"
    converter = AvroConverter()
    converter.configure({"schema.registry.url": schema_registry_url}, True)
    assert converter.from_connect_data(topic, None, schema=Schema.OPTIONAL_BYTES_SCHEMA) is None
    data = converter.from_connect_data(topic, b"\x01\x02", schema=Schema.BYTES_SCHEMA)
    assert data is not None and data[0] == 0 and data[5:] == b"\x01\x02"  # Confluent writes top-level bytes raw
    back = converter.to_connect_data(topic, data)
    assert back.value == b"\x01\x02" and back.schema is not None and back.schema.type == Schema.BYTES_SCHEMA.type
    assert SchemaRegistryClient({"url": schema_registry_url}).get_latest_version(f"{topic}-key").schema.schema_str \
        == '"bytes"'
