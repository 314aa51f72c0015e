"""The send loop hands a record's key and value schemas to the converters (no broker: fakes only)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from task_loop_setup import ScriptedTask, task_setup

from connect_runtime.api import DataException, Header, SourceRecord, header_schema
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


class _ConverterWithoutSchemas:
    """A plugin converter written before records had schemas: no ``schema`` argument anywhere."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        self.calls.append((topic, value))
        return None if value is None else str(value).encode()

    def configure(self, configs: Any) -> None: ...

    def from_connect_header(self, topic: str, header_key: str, value: Any) -> bytes | None:
        self.calls.append((topic, header_key, value))
        return None if value is None else str(value).encode()

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        return data


def test_converters_without_a_schema_argument_get_schema_d_records_without_their_schemas() -> None:
    old = _ConverterWithoutSchemas()
    producer = FakeProducer()
    setup = task_setup(ScriptedTask(), producer=producer, key_converter=old, value_converter=old,
                       header_converter=old)
    task = ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    task._send_batch([SourceRecord({"p": 0}, {"o": 1}, "t", key=7, value="v", key_schema=Schema.INT32_SCHEMA,
                                   value_schema=Schema.STRING_SCHEMA,
                                   headers=[Header("env", "prod", Schema.STRING_SCHEMA), ("plain", 1)])])
    assert producer.sent_to("t") == [(b"7", b"v")]
    assert old.calls == [("t", "env", "prod"), ("t", "plain", 1), ("t", 7), ("t", "v")]


def test_a_header_with_a_schema_is_still_a_key_value_pair() -> None:
    header = Header("env", "prod", Schema.STRING_SCHEMA)
    key, value = header
    assert (key, value) == ("env", "prod") == tuple(header) and len(header) == 2
    assert header_schema(header) is Schema.STRING_SCHEMA and header_schema(("env", "prod")) is None
    # Equal when key, value and schema are: a header with a schema is not its plain pair.
    assert header != Header("env", "prod") and header == Header("env", "prod", Schema.STRING_SCHEMA)
    assert header != ("env", "prod") and header != ("env", "prod") and Header("env", "prod") == ("env", "prod")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(header, protocol)) == header
    with pytest.raises(AttributeError):
        header.schema = None  # type: ignore[misc]
    assert header.schema is Schema.STRING_SCHEMA


def test_a_header_that_is_no_pair_is_refused_with_a_message_saying_so() -> None:
    producer = FakeProducer()
    task = ExactlyOnceWorkerSourceTask(task_setup(ScriptedTask(), producer=producer), fence=lambda: None,
                                       verify_generation=lambda: None)
    with pytest.raises(DataException, match=r"A header is a \(key, value\) pair"):
        task._convert_headers("t", [("k", "v", Schema.STRING_SCHEMA)])  # type: ignore[list-item]


def test_converters_whose_signature_cannot_be_read_get_the_schema() -> None:
    import functools

    from connect_runtime.worker.source_task_base import takes_schema

    def positional_only(topic: str, value: object, schema: object = None, /) -> None: ...

    assert takes_schema(max) is True  # no signature to read: the API says converters take schema=
    assert takes_schema(positional_only) is False
    assert takes_schema(functools.partial(JsonConverter().from_connect_data, "t")) is True
    assert takes_schema(_ConverterWithoutSchemas().from_connect_data) is False


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
