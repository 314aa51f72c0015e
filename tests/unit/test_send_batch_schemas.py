"""The send loop hands a record's key and value schemas to the converters (no broker: fakes only)."""

from __future__ import annotations

from typing import Any

from task_loop_setup import ScriptedTask, task_setup

from connect_runtime.api import SourceRecord
from connect_runtime.api.data import Schema, SchemaBuilder, Struct
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.testing.fakes import FakeProducer
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask


def _json_with_schemas() -> JsonConverter:
    conv = JsonConverter()
    conv.configure({"schemas.enable": "true"}, False)
    return conv


def _task(key_converter: Any, value_converter: Any) -> tuple[ExactlyOnceWorkerSourceTask, FakeProducer]:
    producer = FakeProducer()
    setup = task_setup(ScriptedTask(), producer=producer, key_converter=key_converter,
                       value_converter=value_converter)
    return ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None), producer


def test_key_and_value_schemas_reach_the_converters() -> None:
    task, producer = _task(_json_with_schemas(), _json_with_schemas())
    schema = SchemaBuilder.struct().name("Row").field("id", Schema.INT64_SCHEMA).build()
    task._send_batch([SourceRecord({"p": 0}, {"o": 1}, "t", key=7, value=Struct(schema).put("id", 7),
                                   key_schema=Schema.INT32_SCHEMA, value_schema=schema)])
    assert producer.sent_to("t") == [(
        b'{"schema":{"type":"int32","optional":false},"payload":7}',
        b'{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}],"optional":false,'
        b'"name":"Row"},"payload":{"id":7}}',
    )]


def test_the_same_key_object_with_and_without_a_schema_is_converted_for_each() -> None:
    task, producer = _task(_json_with_schemas(), _json_with_schemas())
    task._send_batch([SourceRecord({"p": 0}, {"o": 1}, "t", key=7, value=None),
                      SourceRecord({"p": 0}, {"o": 2}, "t", key=7, value=None, key_schema=Schema.INT64_SCHEMA),
                      SourceRecord({"p": 0}, {"o": 3}, "t", key=7, value=None)])
    assert [key for key, _ in producer.sent_to("t")] == [
        b'{"schema":null,"payload":7}', b'{"schema":{"type":"int64","optional":false},"payload":7}',
        b'{"schema":null,"payload":7}']



def test_an_immutable_key_with_the_same_schema_object_is_converted_once() -> None:
    keys = _json_with_schemas()
    convert = keys.from_connect_data
    calls: list[object] = []

    def counting(topic: str, value: Any, *, schema: Schema | None = None) -> bytes | None:
        calls.append(value)
        return convert(topic, value, schema=schema)

    keys.from_connect_data = counting  # type: ignore[method-assign]
    task, producer = _task(keys, _json_with_schemas())
    task._send_batch([SourceRecord({"p": 0}, {"o": n}, "t", key=7, value=None, key_schema=Schema.INT32_SCHEMA)
                      for n in range(3)])
    expected = b'{"schema":{"type":"int32","optional":false},"payload":7}'
    assert [key for key, _ in producer.sent_to("t")] == [expected] * 3
    assert calls == [7]
