"""A plugin-defined transformation in a connector's chain sees the records' key and value schemas, and
the schemas it returns are the ones the converters get (no broker: the task loop with fakes)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from task_loop_setup import ScriptedTask, task_setup

from connect_runtime.api import SourceRecord, Transformation
from connect_runtime.api.data import Schema, SchemaBuilder, Struct
from connect_runtime.config.plugin_classes import PluginAllowlist
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.testing.fakes import FakeProducer
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask
from connect_runtime.worker.transformation_chain import build_transformation_chain

seen_schemas: list[tuple[Schema | None, Schema | None]] = []


class WrapWithSchema(Transformation):
    """A plugin's own transform: records the schemas it is given and wraps the value in a one-field
    struct of its own schema, and the key in an INT64."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.field = str(configs["field"])

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        seen_schemas.append((record.key_schema, record.value_schema))
        assert record.value_schema is not None
        schema = SchemaBuilder.struct().name("Wrapped").field(self.field, record.value_schema).build()
        return SourceRecord(record.source_partition, record.source_offset, record.topic, record.kafka_partition,
                            key=int(str(record.key)), value=Struct(schema).put(self.field, record.value),
                            key_schema=Schema.INT64_SCHEMA, value_schema=schema)


def _json_with_schemas() -> JsonConverter:
    conv = JsonConverter()
    conv.configure({"schemas.enable": "true"}, False)
    return conv


def test_a_plugin_transform_in_the_chain_gets_and_gives_schemas() -> None:
    props = {"transforms": "mask,wrap",
             "transforms.mask.type": "org.apache.kafka.connect.transforms.MaskField$Value",
             "transforms.mask.fields": "secret",
             "transforms.wrap.type": f"{__name__}.WrapWithSchema", "transforms.wrap.field": "row"}
    chain = build_transformation_chain(props, PluginRegistry(PluginAllowlist([__name__])))
    producer = FakeProducer()
    setup = dataclasses.replace(task_setup(ScriptedTask(), producer=producer, key_converter=_json_with_schemas(),
                                           value_converter=_json_with_schemas()), transformations=chain)
    task = ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    row = SchemaBuilder.struct().name("Row").field("secret", Schema.STRING_SCHEMA).build()
    seen_schemas.clear()
    task._send_batch([SourceRecord({"p": 0}, {"o": 1}, "t", key="7", value=Struct(row).put("secret", "pw"),
                                   key_schema=Schema.STRING_SCHEMA, value_schema=row)])
    assert seen_schemas == [(Schema.STRING_SCHEMA, row)]  # after MaskField, which keeps the schema
    assert producer.sent_to("t") == [(
        b'{"schema":{"type":"int64","optional":false},"payload":7}',
        b'{"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"string","optional":false,'
        b'"field":"secret"}],"optional":false,"name":"Row","field":"row"}],"optional":false,"name":"Wrapped"},'
        b'"payload":{"row":{"secret":""}}}',
    )]
