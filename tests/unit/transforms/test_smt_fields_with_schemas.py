"""ReplaceField, InsertField, MaskField, ValueToKey, ExtractField and HoistField on Structs: what the
differential module (tests/integration/test_transforms_vs_java_fields.py) cannot see, such as which
schema objects records share."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from connect_runtime.api import DataException, SourceRecord, Transformation
from connect_runtime.api.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from connect_runtime.transforms import (
    ExtractFieldValue,
    HoistFieldKey,
    HoistFieldValue,
    InsertFieldKey,
    InsertFieldValue,
    MaskFieldValue,
    ReplaceFieldValue,
    ValueToKey,
)


def _schema(name: str = "Row") -> Schema:
    """A new schema object each call, equal to the others."""
    return (SchemaBuilder.struct().name(name).version(2).doc("d").parameter("k", "v")
            .field("id", Schema.INT64_SCHEMA)
            .field("n", SchemaBuilder.int32().optional().default_value(5).build())
            .field("s", Schema.OPTIONAL_STRING_SCHEMA).build())


def _record(value: Struct | None, schema: Schema | None = None, **more: Any) -> SourceRecord:
    return SourceRecord({"p": 0}, {"o": 1}, "orders", 2, key="k", value=value,
                        value_schema=schema if schema is not None or value is None else value.schema,
                        key_schema=Schema.STRING_SCHEMA, timestamp=1_000, **more)


def _configured(t: Transformation, config: dict[str, str]) -> Transformation:
    t.configure(config)
    return t


@pytest.mark.parametrize("transform, config", [
    (ReplaceFieldValue(), {"exclude": "s"}),
    (InsertFieldValue(), {"topic.field": "topic"}),
    (HoistFieldValue(), {"field": "h"}),
])
def test_records_with_equal_schemas_share_one_updated_schema(transform: Transformation,
                                                             config: dict[str, str]) -> None:
    transform.configure(config)
    first = transform.apply(_record(Struct(_schema()).put("id", 1)))
    second = transform.apply(_record(Struct(_schema()).put("id", 2)))
    other = transform.apply(_record(Struct(_schema("Other")).put("id", 3)))
    assert first is not None and second is not None and other is not None
    assert first.value_schema is second.value_schema
    assert other.value_schema is not first.value_schema


def test_value_to_key_shares_one_key_schema_per_value_schema() -> None:
    t = _configured(ValueToKey(), {"fields": "n,id"})
    first = t.apply(_record(Struct(_schema()).put("id", 1)))
    second = t.apply(_record(Struct(_schema()).put("id", 2)))
    assert first is not None and second is not None and first.key_schema is second.key_schema
    assert first.key_schema == SchemaBuilder.struct().field("n", _schema().field("n").schema) \
        .field("id", Schema.INT64_SCHEMA).build()  # type: ignore[union-attr]
    assert first.key == Struct(first.key_schema).put("n", 5).put("id", 1)  # the default, replace.null.with.default


def test_replace_field_keeps_schema_basics_and_reads_renamed_fields() -> None:
    t = _configured(ReplaceFieldValue(), {"renames": "id:key", "replace.null.with.default": "false"})
    out = t.apply(_record(Struct(_schema()).put("id", 9)))
    assert out is not None and out.value_schema is not None
    schema = out.value_schema
    assert (schema.name, schema.version, schema.doc, dict(schema.parameters or {})) == ("Row", 2, "d", {"k": "v"})
    assert [f.name for f in schema.fields] == ["key", "n", "s"]
    assert isinstance(out.value, Struct) and out.value.get_without_default("n") is None
    assert out.value.get("key") == 9


def test_insert_field_types_the_inserted_fields_as_java() -> None:
    t = _configured(InsertFieldValue(), {"topic.field": "t!", "partition.field": "p", "timestamp.field": "ts?",
                                         "static.field": "st!", "static.value": "x"})
    out = t.apply(_record(Struct(_schema()).put("id", 1)))
    assert out is not None and out.value_schema is not None and isinstance(out.value, Struct)
    added = {f.name: f.schema for f in out.value_schema.fields[3:]}
    assert added == {"t": Schema.STRING_SCHEMA, "p": Schema.OPTIONAL_INT32_SCHEMA,
                     "ts": Timestamp.builder().optional().build(), "st": Schema.STRING_SCHEMA}
    assert out.value.get("ts") == datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=datetime.UTC)
    assert (out.value.get("t"), out.value.get("p"), out.value.get("st")) == ("orders", 2, "x")
    # The other side of the record, its schema and the rest of it are kept.
    assert (out.key, out.key_schema, out.source_offset) == ("k", Schema.STRING_SCHEMA, {"o": 1})


def test_insert_field_key_keeps_the_value_schema() -> None:
    t = _configured(InsertFieldKey(), {"static.field": "s", "static.value": "v"})
    record = SourceRecord(None, None, "t", None, key={"a": 1}, value=3, value_schema=Schema.INT32_SCHEMA)
    out = t.apply(record)
    assert out is not None and out.key == {"a": 1, "s": "v"} and out.value_schema is Schema.INT32_SCHEMA


def test_mask_field_masks_by_schema_type_and_narrows_replacements() -> None:
    schema = (SchemaBuilder.struct().field("i8", Schema.INT8_SCHEMA).field("f32", Schema.FLOAT32_SCHEMA)
              .field("dec", Decimal.schema(2)).field("date", Date.SCHEMA).field("time", Time.SCHEMA)
              .field("ts", Timestamp.SCHEMA).build())
    value = (Struct(schema).put("i8", 5).put("f32", 1.5).put("dec", decimal.Decimal("1.25"))
             .put("date", datetime.date(2020, 1, 2)).put("time", datetime.time(1, 2))
             .put("ts", datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)))
    masked = _configured(MaskFieldValue(), {"fields": "i8,f32,dec,date,time,ts"}).apply(_record(value))
    assert masked is not None and isinstance(masked.value, Struct) and masked.value_schema is schema
    assert [masked.value.get(f.name) for f in schema.fields] == [
        0, 0.0, decimal.Decimal(0), datetime.date(1970, 1, 1), datetime.time(0),
        datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)]
    replaced = _configured(MaskFieldValue(), {"fields": "i8,f32", "replacement": "300.7"}).apply(_record(value))
    assert replaced is not None and isinstance(replaced.value, Struct)
    assert replaced.value.get("i8") == 44  # (byte) 300, as Java's Values.convertToByte
    assert replaced.value.get("f32") == pytest.approx(300.7, rel=1e-7) and replaced.value.get("f32") != 300.7
    with pytest.raises(DataException, match=r"^Cannot mask value of type class java.util.Date with custom "):
        _configured(MaskFieldValue(), {"fields": "date", "replacement": "1"}).apply(_record(value))
    with pytest.raises(DataException, match=r"^Only Struct objects supported for \[mask fields\], found: null$"):
        _configured(MaskFieldValue(), {"fields": "i8"}).apply(_record(None, schema))


def test_struct_required_errors_name_the_schemas_java_class() -> None:
    for t, config in ((ReplaceFieldValue(), {}), (InsertFieldValue(), {"topic.field": "t"}),
                      (ValueToKey(), {"fields": "a"}), (ExtractFieldValue(), {"field": "a"})):
        t.configure(config)
        with pytest.raises(DataException, match=r"found: java.lang.Short$"):
            t.apply(SourceRecord(None, None, "t", None, value=3, value_schema=Schema.INT16_SCHEMA))


def test_extract_field_v2_takes_the_nested_field_and_its_schema() -> None:
    inner = SchemaBuilder.struct().optional().field("x.y", Schema.OPTIONAL_FLOAT64_SCHEMA).build()
    schema = SchemaBuilder.struct().field("in", inner).build()
    t = _configured(ExtractFieldValue(), {"field": "in.`x.y`", "field.syntax.version": "V2"})
    out = t.apply(_record(Struct(schema).put("in", Struct(inner).put("x.y", 0.5))))
    assert out is not None and (out.value, out.value_schema) == (0.5, Schema.OPTIONAL_FLOAT64_SCHEMA)
    null_inner = t.apply(_record(Struct(schema)))
    assert null_inner is not None and (null_inner.value, null_inner.value_schema) == (None, inner.field("x.y").schema)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match=r"^Unknown field: in.z$"):
        _configured(ExtractFieldValue(), {"field": "in.z", "field.syntax.version": "V2"}).apply(
            _record(Struct(schema)))


def test_hoist_field_key_wraps_the_key_with_its_schema() -> None:
    out = _configured(HoistFieldKey(), {"field": "k"}).apply(_record(None))
    assert out is not None and out.key_schema is not None
    assert out.key_schema == SchemaBuilder.struct().field("k", Schema.STRING_SCHEMA).build()
    assert out.key == Struct(out.key_schema).put("k", "k")
