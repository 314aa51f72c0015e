"""``io.confluent.connect.protobuf.ProtobufConverter`` against a real schema registry, and end to end: an
exactly-once source writing Structs of every Connect type through a worker and a real broker.

The registered ``.proto`` text is compared with what Confluent's ``ProtobufData`` registers for the same
Connect schema (written out below from its Java source); the records are read by confluent-kafka's
``ProtobufDeserializer`` (an independent reader of Confluent's framing and message indexes, given the
message class protobuf compiles from the registered text) and by the converter's own
``to_connect_data``. Schema evolution follows the subject's BACKWARD rule: an optional field added is
version 2, a required one is the registry's 409, which fails the task while what was written before
stays exactly once.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import wrappers_pb2
from plugins import every_type_source  # the workers load it from plugin.path; the expected values are its
from registry_evolution import check_evolved, evolve_then_break, one_schema_under, records_in

from connect_runtime.api import Schema, Struct
from connect_runtime.api.errors import DataException
from connect_runtime.converters.schema_registry import protobuf_text
from connect_runtime.converters.schema_registry.protobuf_converter import ProtobufConverter
from connect_runtime.converters.schema_registry.protobuf_data import message_class
from connect_runtime.testing import ConnectClient, WorkerProcess, check_sequences, new_topic, read_committed
from connect_runtime.testing.cluster import kill_mid_stream, plugin_path, stored_offsets, wait_until

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"

PROTOBUF = "io.confluent.connect.protobuf.ProtobufConverter"
CONNECTOR = "protobuf-orders"


def _meta(key: str, value: str, value_first: bool = False) -> str:
    pair = (f'        value: "{value}",\n        key: "{key}"\n' if value_first
            else f'        key: "{key}",\n        value: "{value}"\n')
    return f" [(confluent.field_meta) = {{\n    params: [\n      {{\n{pair}      }}\n    ]\n  }}]"


#: What Confluent's ProtobufData registers for every_type_source.ORDER: a proto3 file with the struct's
#: namespace as package, fields numbered in order, no defaults (proto3 has none), unnamed maps and
#: structs as ConnectDefault1Entry, 2Entry and ConnectDefault3 nested in the message.
EXPECTED_ORDER = (
    'syntax = "proto3";\n'
    "package com.example;\n"
    "\n"
    + "".join(f'import "{name}";\n' for name in (  # in the order fields first need them
        "confluent/type/decimal.proto", "google/type/date.proto", "google/type/timeofday.proto",
        "google/protobuf/timestamp.proto"))
    + "\n"
    "message Order {\n"
    f"  int32 i8 = 1{_meta('connect.type', 'int8')};\n"
    f"  int32 i16 = 2{_meta('connect.type', 'int16')};\n"
    "  int32 i32 = 3;\n"
    "  int64 i64 = 4;\n"
    "  float f32 = 5;\n"
    "  double f64 = 6;\n"
    "  bool flag = 7;\n"
    "  string s = 8;\n"
    "  bytes b = 9;\n"
    "  string opt_s = 10;\n"
    "  string def_s = 11;\n"
    "  int32 opt_def_i = 12;\n"
    "  string doc_s = 13;\n"
    f"  confluent.type.Decimal amount = 14{_meta('scale', '2', value_first=True)};\n"
    "  google.type.Date day = 15;\n"
    "  google.type.TimeOfDay tod = 16;\n"
    "  google.protobuf.Timestamp ts = 17;\n"
    "  repeated string tags = 18;\n"
    "  repeated ConnectDefault1Entry counts = 19;\n"
    "  repeated ConnectDefault2Entry by_id = 20;\n"
    "  ConnectDefault3 addr = 21;\n"
    "\n"
    "  message ConnectDefault1Entry {\n"
    "    string key = 1;\n"
    "    int32 value = 2;\n"
    "  }\n"
    "  message ConnectDefault2Entry {\n"
    "    int32 key = 1;\n"
    "    string value = 2;\n"
    "  }\n"
    "  message ConnectDefault3 {\n"
    "    string street = 1;\n"
    "    int32 zip = 2;\n"
    "  }\n"
    "}\n"
)
#: Version 2: one more optional field, numbered after the others.
EXPECTED_WITH_NOTE = EXPECTED_ORDER.replace(
    "  ConnectDefault3 addr = 21;\n", "  ConnectDefault3 addr = 21;\n  string note = 22;\n")


def connect_view(struct: Struct) -> dict[str, Any]:
    """What Java's ProtobufData reads back for a record written from ``struct``: proto3 has no presence
    for scalars (a null reads as its default), an absent map as an empty one; a null field with a
    default was written as its default."""
    view = {f.name: struct.get(f.name) for f in struct.schema.fields}
    view["opt_s"] = view["opt_s"] or ""
    view["by_id"] = view["by_id"] or {}
    if view["addr"] is not None:
        view["addr"] = {"street": view["addr"].get("street"), "zip": view["addr"].get("zip") or 0}
    return view


def read_view(struct: Struct) -> dict[str, Any]:
    view = {f.name: struct.get(f.name) for f in struct.schema.fields}
    if view["addr"] is not None:
        view["addr"] = {"street": view["addr"].get("street"), "zip": view["addr"].get("zip")}
    return view


def check_message(message: Any, expected: Struct) -> None:
    """The message confluent-kafka's deserializer read holds ``expected``'s values, in protobuf's terms."""
    ints = ("i8", "i16", "i32", "i64")
    assert tuple(getattr(message, n) for n in ints) == tuple(expected.get(n) for n in ints)
    assert (message.s, message.b, message.opt_s) == (expected.get("s"), expected.get("b"), expected.get("opt_s") or "")
    unscaled = expected.get("amount").scaleb(2)
    assert int.from_bytes(message.amount.value, "big", signed=True) == unscaled and message.amount.scale == 2
    day = expected.get("day")
    assert (message.day.year, message.day.month, message.day.day) == (day.year, day.month, day.day)
    ts = expected.get("ts")
    assert message.HasField("ts") is (ts is not None)
    if ts is not None:
        assert message.ts.ToDatetime(datetime.UTC) == ts
    assert list(message.tags) == expected.get("tags")
    assert {e.key: e.value for e in message.counts} == expected.get("counts")


def converter(registry: str, is_key: bool, **configs: str) -> ProtobufConverter:
    conv = ProtobufConverter()
    conv.configure({"schema.registry.url": registry, **configs}, is_key)
    return conv


def deserializer_for(registry: SchemaRegistryClient, subject: str) -> Callable[[bytes, str], Any]:
    """confluent-kafka's ProtobufDeserializer, given the message class of the subject's latest text."""
    text = registry.get_latest_version(subject).schema.schema_str
    cls = message_class(protobuf_text.parse(text), "com.example.Order")
    deserializer = ProtobufDeserializer(cls, {"use.deprecated.format": False})
    return lambda data, topic: deserializer(data, SerializationContext(topic, MessageField.VALUE))


def test_the_registered_text_is_javas_and_an_independent_reader_reads_the_bytes(schema_registry_url: str) -> None:
    topic = f"protobuf-{uuid.uuid4().hex[:8]}"
    values, keys = converter(schema_registry_url, False), converter(schema_registry_url, True)
    records = [(keys.from_connect_data(topic, 1, schema=Schema.INT32_SCHEMA),
                values.from_connect_data(topic, every_type_source.order(1, n), schema=every_type_source.ORDER))
               for n in range(1, 7)]
    registry = SchemaRegistryClient({"url": schema_registry_url})
    assert registry.get_latest_version(f"{topic}-value").schema.schema_str == EXPECTED_ORDER
    key_text = registry.get_latest_version(f"{topic}-key").schema.schema_str
    assert "message Int32Value {\n  int32 value = 1;\n}\n" in key_text
    assert one_schema_under(registry, f"{topic}-value") == EXPECTED_ORDER

    read_value = deserializer_for(registry, f"{topic}-value")
    read_key = ProtobufDeserializer(wrappers_pb2.Int32Value, {"use.deprecated.format": False})
    for n, (key_bytes, value_bytes) in enumerate(records, start=1):
        assert key_bytes is not None and value_bytes is not None
        assert value_bytes[5] == 0  # message indexes [0]: the file's first message
        check_message(read_value(value_bytes, topic), every_type_source.order(1, n))
        assert read_key(key_bytes, SerializationContext(topic, MessageField.KEY)).value == 1
        assert keys.to_connect_data(topic, key_bytes).value == 1
        back = values.to_connect_data(topic, value_bytes)
        assert back.schema.name == "Order" and back.schema.version == 1
        assert read_view(back.value) == connect_view(every_type_source.order(1, n))


def test_an_incompatible_schema_is_the_registrys_409(schema_registry_url: str) -> None:
    topic = f"protobuf-evolve-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    values = converter(schema_registry_url, False)
    values.from_connect_data(topic, every_type_source.order(0, 1), schema=every_type_source.ORDER)
    registry = SchemaRegistryClient({"url": schema_registry_url})
    registry.set_compatibility(subject, "BACKWARD")
    values.from_connect_data(topic, every_type_source.order(0, 2, every_type_source.WITH_NOTE),
                             schema=every_type_source.WITH_NOTE)
    assert registry.get_versions(subject) == [1, 2]
    assert registry.get_version(subject, 2).schema.schema_str == EXPECTED_WITH_NOTE
    wrapped = converter(schema_registry_url, False, **{"wrapper.for.nullables": "true"})
    with pytest.raises(DataException, match="409") as refused:
        wrapped.from_connect_data(topic, every_type_source.order(0, 3, every_type_source.WITH_NOTE),
                                  schema=every_type_source.WITH_NOTE)
    assert "Incompatible" in str(refused.value)
    assert registry.get_versions(subject) == [1, 2]


# --- a worker, exactly once ---------------------------------------------------------------------------


def connector_config(topic: str, registry: str, **extra: str) -> dict[str, str]:
    return {"connector.class": "every_type_source.EveryTypeSourceConnector", "topic": topic,
            "key.converter": PROTOBUF, "key.converter.schema.registry.url": registry,
            "value.converter": PROTOBUF, "value.converter.schema.registry.url": registry, **extra}


def decode_all(bootstrap: str, topic: str, registry: str) -> list[tuple[int, int, Struct]]:
    """Every committed record as (task, seqno, to_connect_data's Struct)."""
    keys, values = converter(registry, True), converter(registry, False)
    decoded = []
    for key_bytes, value_bytes in read_committed(bootstrap, topic):
        key = keys.to_connect_data(topic, key_bytes).value
        value = values.to_connect_data(topic, value_bytes).value
        assert isinstance(value, Struct), value
        decoded.append((key, value.get("i64"), value))
    return decoded


@pytest.mark.kafka
def test_structs_of_every_type_are_exactly_once_under_sigkill_and_read_back(
        kafka_bootstrap: str, schema_registry_url: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    topic = new_topic(kafka_bootstrap, f"protobuf-{uuid.uuid4().hex[:8]}", partitions=2)
    worker = worker_factory(eos="enabled", extra=plugin_path(PLUGINS_DIR))
    worker.wait_ready()
    with ConnectClient(worker.url) as client:
        config = connector_config(topic, schema_registry_url, **{"tasks.max": "2"})
        refused = client.validation_errors({**config, "name": CONNECTOR,
                                            "value.converter.generalized.sum.type.support": "true"})
        assert set(refused) == {"value.converter.generalized.sum.type.support"}, refused
        client.create_connector(CONNECTOR, config)
        client.wait_running(CONNECTOR, 2)
        kill_mid_stream(worker, client, CONNECTOR, 2, lambda: records_in(kafka_bootstrap, topic), kills=2, every=200)
        wait_until(lambda: records_in(kafka_bootstrap, topic) > 600, 90, message="records after the restarts")
        assert worker.stop() == 0, worker.log_tail()

    registry = SchemaRegistryClient({"url": schema_registry_url})
    assert registry.get_latest_version(f"{topic}-value").schema.schema_str == EXPECTED_ORDER
    assert one_schema_under(registry, f"{topic}-value") == EXPECTED_ORDER  # however many tasks and restarts
    read_value = deserializer_for(registry, f"{topic}-value")
    for _, value_bytes in read_committed(kafka_bootstrap, topic)[:50]:
        message = read_value(value_bytes, topic)
        check_message(message, every_type_source.order(message.i32, message.i64))
    pairs = []
    for task, seqno, struct in decode_all(kafka_bootstrap, topic, schema_registry_url):
        assert read_view(struct) == connect_view(every_type_source.order(task, seqno))
        pairs.append((task, seqno))
    report = check_sequences(pairs)
    assert report.exactly_once, report.summary()
    assert set(report.counts) == {0, 1}
    assert stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], CONNECTOR) == report.max_seqno


@pytest.mark.kafka
def test_schema_evolution_backward_then_a_breaking_change_fails_the_task(
        kafka_bootstrap: str, schema_registry_url: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    topic = new_topic(kafka_bootstrap, f"protobuf-evolve-{uuid.uuid4().hex[:8]}")
    worker = evolve_then_break(kafka_bootstrap, schema_registry_url, worker_factory, CONNECTOR, topic,
                               lambda shape: connector_config(topic, schema_registry_url, shape=shape),
                               EXPECTED_WITH_NOTE)

    read = [(task, seqno, struct, struct.schema.field("note") is not None)
            for task, seqno, struct in decode_all(kafka_bootstrap, topic, schema_registry_url)]
    for task, seqno, struct, noted in read:
        shape = every_type_source.WITH_NOTE if noted else every_type_source.ORDER
        assert read_view(struct) == connect_view(every_type_source.order(task, seqno, shape))
    check_evolved(kafka_bootstrap, worker, CONNECTOR, [(task, seqno, noted) for task, seqno, _, noted in read])
