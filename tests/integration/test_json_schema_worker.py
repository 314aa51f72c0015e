"""JsonSchemaConverter in a worker under exactly-once, on a real broker and registry: a source writing
Structs of every Connect type (``tests/plugins/every_type_source.py``) through
``value.converter=io.confluent.connect.json.JsonSchemaConverter``; confluent-kafka's
``JSONDeserializer`` reads every record back to the values Java's mapping writes, the registered
schema is the text Java's ``JsonSchemaData`` registers, and the schema evolves: an added optional
field registers version 2 under BACKWARD, a breaking change fails the task with the registry's 409
message, and every record before it, through two worker SIGKILLs, is there exactly once.

Structs are closed (``object.additional.properties=false``): under BACKWARD a registry refuses any
property added to an open JSON Schema object (Java's default), optional or not.
"""

from __future__ import annotations

import base64
import datetime
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from plugins import every_type_source  # the workers load it from plugin.path; the expected values are its

from connect_runtime.converters.schema_registry.json_schema_converter import JsonSchemaConverter
from connect_runtime.testing import ConnectClient, WorkerProcess, check_sequences, new_topic, read_committed
from connect_runtime.testing.cluster import end_offsets, kill_mid_stream, plugin_path, stored_offsets, wait_until

pytestmark = [pytest.mark.kafka, pytest.mark.registry]

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
CONNECTOR = "json-orders"

EPOCH_DAYS_2024 = (datetime.date(2024, 1, 1) - datetime.date(1970, 1, 1)).days
EPOCH_MS_2024 = EPOCH_DAYS_2024 * 86_400_000

# What Java's JsonSchemaData registers for every_type_source.ORDER with object.additional.properties=false
# (oneOf members null first; see tests/unit/test_json_schema_data.py).
JAVA_ORDER = (
    '{"type":"object","additionalProperties":false,"title":"com.example.Order","description":"an order",'
    '"connect.version":3,"connect.parameters":{"owner":"team-a"},"properties":{"b":{"type":"string",'
    '"connect.index":8,"connect.type":"bytes"},"amount":{"type":"string",'
    '"title":"org.apache.kafka.connect.data.Decimal","connect.index":13,"connect.version":1,'
    '"connect.type":"bytes","connect.parameters":{"scale":"2"}},"flag":{"connect.index":6,'
    '"type":"boolean"},"f32":{"type":"number","connect.index":4,"connect.type":"float32"},'
    '"f64":{"type":"number","connect.index":5,"connect.type":"float64"},"i64":{"type":"integer",'
    '"connect.index":3,"connect.type":"int64"},"counts":{"type":"object","connect.index":18,'
    '"connect.type":"map","additionalProperties":{"type":"integer","connect.type":"int32"}},'
    '"tod":{"type":"integer","title":"org.apache.kafka.connect.data.Time","connect.index":15,'
    '"connect.version":1,"connect.type":"int32"},"i32":{"type":"integer","connect.index":2,'
    '"connect.type":"int32"},"def_s":{"type":"string","default":"x","connect.index":10},'
    '"opt_def_i":{"connect.index":11,"oneOf":[{"type":"null"},{"type":"integer","default":5,'
    '"connect.type":"int32"}]},"i8":{"type":"integer","connect.index":0,"connect.type":"int8"},'
    '"i16":{"type":"integer","connect.index":1,"connect.type":"int16"},"tags":{"type":"array",'
    '"connect.index":17,"items":{"type":"string"}},"s":{"type":"string","connect.index":7},'
    '"opt_s":{"connect.index":9,"oneOf":[{"type":"null"},{"type":"string"}]},"doc_s":{"type":"string",'
    '"description":"field doc","connect.index":12},"addr":{"connect.index":20,"oneOf":[{"type":"null"},'
    '{"type":"object","additionalProperties":false,"properties":{"zip":{"connect.index":1,'
    '"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int32"}]},"street":{"type":"string",'
    '"connect.index":0}}}]},"day":{"type":"integer","title":"org.apache.kafka.connect.data.Date",'
    '"connect.index":14,"connect.version":1,"connect.type":"int32"},"by_id":{"connect.index":19,'
    '"oneOf":[{"type":"null"},{"type":"array","connect.type":"map","items":{"type":"object",'
    '"properties":{"value":{"type":"string","connect.index":1},"key":{"type":"integer","connect.index":0,'
    '"connect.type":"int32"}}}}]},"ts":{"connect.index":16,"oneOf":[{"type":"null"},{"type":"integer",'
    '"title":"org.apache.kafka.connect.data.Timestamp","connect.version":1,"connect.type":"int64"}]}}}'
)


def expected_json(task: int, n: int, shape: str) -> dict[str, Any]:
    """The JSON every_type_source.order(task, n) is written as, by the rules of Java's mapping: bytes
    and BASE64 decimals as base64, dates as days, times as milliseconds, a null with a default as the
    default, maps with int keys as key/value objects."""
    odd = n % 2 == 1
    value: dict[str, Any] = {
        "i8": n % 100 - 50, "i16": n % 30000, "i32": task, "i64": n, "f32": 0.5 * (n % 64), "f64": n / 8,
        "flag": odd, "s": f"order {n}", "b": base64.b64encode(n.to_bytes(4, "big")).decode(),
        "opt_s": f"note {n}" if odd else None, "def_s": "y", "opt_def_i": n % 7 if odd else 5,
        "doc_s": "documented",
        "amount": base64.b64encode(n.to_bytes(n.bit_length() // 8 + 1, "big", signed=True)).decode(),
        "day": EPOCH_DAYS_2024 + n % 1000,
        "tod": ((n % 24) * 3600 + (n % 60) * 60) * 1000 + n % 1000,
        "ts": EPOCH_MS_2024 + n if odd else None, "tags": [f"t{n % 3}", "all"], "counts": {"n": n % 1000},
        "by_id": [{"key": task, "value": f"task {task}"}] if odd else None,
        "addr": {"street": f"{n} Main St", "zip": None if odd else n % 99999} if n % 3 else None,
    }
    if shape == "with_note":
        value["note"] = f"with note {n}"
    return value


def records_in(bootstrap: str, topic: str) -> int:
    return sum(end_offsets(bootstrap, topic).values())


def test_structs_through_a_worker_and_schema_evolution(
        kafka_bootstrap: str, schema_registry_url: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    worker = worker_factory(eos="enabled", extra=plugin_path(PLUGINS_DIR))
    worker.wait_ready()
    registry = SchemaRegistryClient({"url": schema_registry_url})
    topic = new_topic(kafka_bootstrap)
    subject = f"{topic}-value"
    config = {
        "connector.class": "every_type_source.EveryTypeSourceConnector", "tasks.max": "1", "topic": topic,
        "shape": "order",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
        "value.converter": "io.confluent.connect.json.JsonSchemaConverter",
        "value.converter.schema.registry.url": schema_registry_url,
        "value.converter.object.additional.properties": "false",
    }
    with ConnectClient(worker.url) as client:
        client.create_connector(CONNECTOR, config)
        client.wait_running(CONNECTOR, 1)
        # SIGKILLs mid-stream: each restarted task resumes after its last committed record.
        kill_mid_stream(worker, client, CONNECTOR, 1, lambda: records_in(kafka_bootstrap, topic), kills=2, every=100)
        floor = records_in(kafka_bootstrap, topic)
        wait_until(lambda: records_in(kafka_bootstrap, topic) > floor + 50, 90, message="records after the restarts")
        first = registry.get_latest_version(subject)
        assert (first.version, first.schema.schema_type, first.schema.schema_str) == (1, "JSON", JAVA_ORDER)
        registry.set_compatibility(subject, "BACKWARD")

        # An added optional field: version 2 under BACKWARD, and records written with it.
        client.put_connector_config(CONNECTOR, {**config, "shape": "with_note"})
        wait_until(lambda: registry.get_versions(subject) == [1, 2], 90, message=f"version 2 of {subject}")
        second = registry.get_version(subject, 2).schema.schema_str
        assert json.loads(second)["properties"] == {
            **json.loads(JAVA_ORDER)["properties"],
            "note": {"connect.index": 21, "oneOf": [{"type": "null"}, {"type": "string"}]}}
        written = records_in(kafka_bootstrap, topic)
        wait_until(lambda: records_in(kafka_bootstrap, topic) > written + 50, 90, message="version 2 records")

        # A breaking change (the note removed from a closed object): the registry's 409 fails the task.
        client.put_connector_config(CONNECTOR, {**config, "shape": "breaking"})
        failed = client.wait_task_state(CONNECTOR, 0, "FAILED")
        assert "HTTP 409" in failed["trace"] and "Incompatible" in failed["trace"], failed["trace"]
        assert f"registering a schema under subject {subject}" in failed["trace"]
        assert registry.get_versions(subject) == [1, 2]
        assert worker.stop() == 0, worker.log_tail()

    records = read_committed(kafka_bootstrap, topic)
    deserializer = JSONDeserializer(None, schema_registry_client=registry)
    context = SerializationContext(topic, MessageField.VALUE)
    shapes = {registry.get_version(subject, version).schema_id: shape
              for version, shape in ((1, "order"), (2, "with_note"))}
    seen: Counter[str] = Counter()
    pairs = []
    for key, value in records:
        assert key is not None and value is not None
        decoded = deserializer(value, context)
        shape = shapes[int.from_bytes(value[1:5], "big")]
        seen[shape] += 1
        assert decoded == expected_json(int(key), decoded["i64"], shape)
        pairs.append((int(key), decoded["i64"]))
    assert seen["order"] >= 200 and seen["with_note"] >= 50
    report = check_sequences(pairs)
    assert report.exactly_once, report.summary()
    assert stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], CONNECTOR) == report.max_seqno

    # The converter reads the records back to the Structs the task wrote.
    reader = JsonSchemaConverter()
    reader.configure({"schema.registry.url": schema_registry_url}, False)
    for key, value in records[:3]:
        back = reader.to_connect_data(topic, value)
        assert back.schema == every_type_source.ORDER
        written_struct = every_type_source.order(int(key or b"0"), back.value.get("i64"))
        assert all(back.value.get(field) == written_struct.get(field) for field in every_type_source.ORDER.fields)
