"""Records with schemas are delivered exactly once under worker SIGKILLs: a plugin-defined connector
emits Structs, a plugin-defined transform changes each Struct and its schema, RegexRouter renames the
topic (keeping the schemas), and what lands in Kafka (JsonConverter, ``schemas.enable=true``) reads
back, with ``to_connect_schema_and_value``, as the transformed Structs, every number once."""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from connect_runtime.api import Schema, Struct
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.testing import ConnectClient, WorkerProcess, check_sequences, new_topic, read_committed
from connect_runtime.testing.cluster import end_offsets, kill_mid_stream, plugin_path, stored_offsets, wait_until

pytestmark = pytest.mark.kafka

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
CONNECTOR = "structs"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"


def _records_in(bootstrap: str, topic: str) -> int:
    return sum(end_offsets(bootstrap, topic).values())


def test_structs_through_a_transform_chain_are_exactly_once_under_sigkill(
        kafka_bootstrap: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    written = new_topic(kafka_bootstrap, f"structs-{uuid.uuid4().hex[:8]}-in", partitions=2)
    topic = new_topic(kafka_bootstrap, written.removesuffix("-in") + "-out", partitions=2)
    worker = worker_factory(eos="enabled", extra=plugin_path(PLUGINS_DIR))
    worker.wait_ready()
    with ConnectClient(worker.url) as client:
        client.create_connector(CONNECTOR, {
            "connector.class": "struct_source.StructSourceConnector", "topic": written, "tasks.max": "2",
            "key.converter": JSON_CONVERTER, "key.converter.schemas.enable": "true",
            "value.converter": JSON_CONVERTER, "value.converter.schemas.enable": "true",
            "transforms": "double,route", "transforms.double.type": "struct_source.AddDoubled",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)-in", "transforms.route.replacement": "$1-out"})
        client.wait_running(CONNECTOR, 2)
        kill_mid_stream(worker, client, CONNECTOR, 2, lambda: _records_in(kafka_bootstrap, topic), kills=3, every=300)
        wait_until(lambda: _records_in(kafka_bootstrap, topic) > 1100, 60, message="records after the restarts")
        assert worker.stop() == 0, worker.log_tail()

    keys, values = JsonConverter(), JsonConverter()
    keys.configure({"schemas.enable": "true"}, is_key=True)
    values.configure({"schemas.enable": "true"})
    pairs = []
    for key_bytes, value_bytes in read_committed(kafka_bootstrap, topic):
        key = keys.to_connect_schema_and_value(topic, key_bytes)
        value = values.to_connect_schema_and_value(topic, value_bytes)
        assert key.schema == Schema.INT32_SCHEMA and isinstance(key.value, int)
        assert value.schema is not None and (value.schema.name, value.schema.version) == ("struct_source.Doubled", 2)
        assert [f.name for f in value.schema.fields] == ["task", "seqno", "label", "amount", "at", "doubled"]
        struct = value.value
        assert isinstance(struct, Struct)
        task, seqno = struct.get("task"), struct.get("seqno")
        assert isinstance(task, int) and isinstance(seqno, int) and task == key.value
        assert struct.get("doubled") == 2 * seqno
        assert struct.get("label") == (f"reading {seqno}" if seqno % 2 else None)
        assert struct.get("amount") == decimal.Decimal(seqno).scaleb(-2)
        assert struct.get("at") == datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC) + \
            datetime.timedelta(milliseconds=seqno)
        pairs.append((task, seqno))
    assert _records_in(kafka_bootstrap, written) == 0  # every record was routed
    report = check_sequences(pairs)
    assert report.exactly_once, report.summary()
    assert set(report.counts) == {0, 1}
    assert stored_offsets(kafka_bootstrap, worker.props["offset.storage.topic"], CONNECTOR) == report.max_seqno
