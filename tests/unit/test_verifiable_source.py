"""VerifiableSource's records carry Java's schemas (``VerifiableSourceTask``): the key INT32, the value
INT64 or, with ``complete.record.data=true``, a Struct; schemaless converters still write the old bytes."""

from __future__ import annotations

from connect_runtime.api import Schema, SchemaType, Struct
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.testing.fakes import FakeTaskContext
from connectors.verifiable.connector import COMPLETE_VALUE_SCHEMA, VerifiableSourceTask

# Java's JsonConverter (schemas.enable=true) of VerifiableSourceTask's complete value schema.
JAVA_COMPLETE_SCHEMA_JSON = (
    '{"type":"struct","fields":[{"type":"string","optional":false,"field":"name"},'
    '{"type":"int32","optional":false,"field":"task"},{"type":"string","optional":false,"field":"topic"},'
    '{"type":"int64","optional":false,"field":"time_ms"},{"type":"int64","optional":false,"field":"seqno"}],'
    '"optional":false}'
)


def _task(complete: bool, committed: list[tuple[dict[str, int], dict[str, int]]] | None = None) -> VerifiableSourceTask:
    task = VerifiableSourceTask()
    task.initialize(FakeTaskContext(offsets=committed or []))
    task.start({"name": "v", "topic": "out", "task.id": "3", "complete.record.data": str(complete).lower()})
    return task


def _converter(schemas: bool) -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": str(schemas).lower()})
    return converter


def test_simple_records_carry_int32_key_and_int64_value_schemas() -> None:
    records = _task(complete=False).poll()
    assert records is not None
    first = records[0]
    assert (first.key, first.value) == (3, 0)
    assert first.key_schema == Schema.INT32_SCHEMA
    assert first.value_schema == Schema.INT64_SCHEMA
    converter = _converter(schemas=True)
    assert converter.from_connect_data("out", first.key, schema=first.key_schema) == \
        b'{"schema":{"type":"int32","optional":false},"payload":3}'
    assert converter.from_connect_data("out", first.value, schema=first.value_schema) == \
        b'{"schema":{"type":"int64","optional":false},"payload":0}'


def test_complete_records_are_javas_struct() -> None:
    records = _task(complete=True).poll()
    assert records is not None
    record = records[1]
    assert record.key_schema == Schema.INT32_SCHEMA
    assert record.value_schema == COMPLETE_VALUE_SCHEMA
    value = record.value
    assert isinstance(value, Struct) and value.schema == COMPLETE_VALUE_SCHEMA
    value.validate()
    assert COMPLETE_VALUE_SCHEMA.type is SchemaType.STRUCT and COMPLETE_VALUE_SCHEMA.name is None
    assert not COMPLETE_VALUE_SCHEMA.is_optional
    assert [(f.name, f.schema) for f in COMPLETE_VALUE_SCHEMA.fields] == [
        ("name", Schema.STRING_SCHEMA), ("task", Schema.INT32_SCHEMA), ("topic", Schema.STRING_SCHEMA),
        ("time_ms", Schema.INT64_SCHEMA), ("seqno", Schema.INT64_SCHEMA)]
    assert [value.get(f) for f in ("name", "task", "topic", "seqno")] == ["v", 3, "out", 1]
    written = _converter(schemas=True).from_connect_data("out", value, schema=record.value_schema)
    assert written is not None
    time_ms = value.get("time_ms")
    assert written.decode() == ('{"schema":' + JAVA_COMPLETE_SCHEMA_JSON + ',"payload":{"name":"v","task":3,'
                                f'"topic":"out","time_ms":{time_ms},"seqno":1}}}}')


def test_schemaless_converters_write_the_same_bytes_as_before() -> None:
    converter = _converter(schemas=False)
    simple = _task(complete=False).poll()
    complete = _task(complete=True).poll()
    assert simple is not None and complete is not None
    assert converter.from_connect_data("out", simple[5].value, schema=simple[5].value_schema) == b"5"
    assert converter.from_connect_data("out", simple[5].key, schema=simple[5].key_schema) == b"3"
    value = complete[0].value
    assert isinstance(value, Struct)
    assert converter.from_connect_data("out", value, schema=complete[0].value_schema) == (
        b'{"name":"v","task":3,"topic":"out","time_ms":%d,"seqno":0}' % value.get("time_ms"))


def test_resumes_after_the_committed_seqno() -> None:
    records = _task(complete=True, committed=[({"id": 3}, {"seqno": 41})]).poll()
    assert records is not None
    assert records[0].source_offset == {"seqno": 42}
    assert isinstance(records[0].value, Struct) and records[0].value.get("seqno") == 42
