"""Cast, Flatten, TimestampConverter and SetSchemaMetadata on records with schemas: what the
differential tests cannot see (schema objects shared through the caches, the Python classes of
logical values, key variants working on the key's schema)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from connect_runtime.api import DataException, SourceRecord, Transformation
from connect_runtime.api.data import Date, Schema, SchemaBuilder, Struct, Time, Timestamp
from connect_runtime.transforms.cast import CastKey, CastValue
from connect_runtime.transforms.flatten import FlattenValue
from connect_runtime.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from connect_runtime.transforms.timestamp_converter import TimestampConverterValue

UTC = datetime.UTC


def configured(cls: type[Transformation], **config: str) -> Transformation:
    xf = cls()
    xf.configure(config)
    return xf


def event_schema() -> Schema:
    """Built anew on each call: equal schemas that are not the same object."""
    inner = SchemaBuilder.struct().name("Inner").field("n", Schema.INT32_SCHEMA).build()
    return (SchemaBuilder.struct().name("Event").version(1)
            .field("id", Schema.INT64_SCHEMA)
            .field("ts", Timestamp.SCHEMA)
            .field("inner", inner)
            .build())


def event(schema: Schema, id_: int) -> Struct:
    inner = Struct(schema.field("inner").schema).put("n", 7)  # type: ignore[union-attr]
    stamp = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    return Struct(schema).put("id", id_).put("ts", stamp).put("inner", inner)


def apply_value(xf: Transformation, schema: Schema, value: Any) -> SourceRecord:
    out = xf.apply(SourceRecord(None, None, "t", 0, None, value, value_schema=schema))
    assert out is not None
    return out


@pytest.mark.parametrize("xf", [
    configured(CastValue, spec="id:int32"),
    configured(FlattenValue),
    configured(TimestampConverterValue, field="ts", **{"target.type": "unix"}),
], ids=["Cast", "Flatten", "TimestampConverter"])
def test_equal_schemas_share_one_updated_schema(xf: Transformation) -> None:
    first, second = event_schema(), event_schema()
    assert first == second and first is not second
    out1 = apply_value(xf, first, event(first, 1))
    out2 = apply_value(xf, second, event(second, 2))
    assert out1.value_schema is out2.value_schema
    assert out1.value.schema is out1.value_schema


def test_cast_float32_values_are_single_precision() -> None:
    schema = SchemaBuilder.struct().field("f", Schema.FLOAT32_SCHEMA).build()
    out = apply_value(configured(CastValue, spec="f:float64"), schema, Struct(schema).put("f", 0.1))
    assert out.value.get("f") == 0.10000000149011612  # Java's (double) 0.1f
    out = apply_value(configured(CastValue, spec="f:string"), schema, Struct(schema).put("f", 0.1))
    assert out.value.get("f") == "0.1"  # Float.toString


def test_cast_logical_types_to_string_as_java_values_date_format() -> None:
    xf = configured(CastValue, spec="string")
    assert apply_value(xf, Date.SCHEMA, datetime.date(2024, 1, 2)).value == "2024-01-02"
    assert apply_value(xf, Time.SCHEMA, datetime.time(1, 2, 3, 4000)).value == "01:02:03.004Z"
    stamp = datetime.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)
    assert apply_value(xf, Timestamp.SCHEMA, stamp).value == "2024-01-02T03:04:05.006Z"
    # before the epoch's second day Java's Values.dateFormatFor picks the time-of-day pattern
    assert apply_value(xf, Date.SCHEMA, datetime.date(1969, 7, 20)).value == "00:00:00.000Z"


def test_cast_key_works_on_the_key_schema() -> None:
    out = configured(CastKey, spec="int8").apply(
        SourceRecord(None, None, "t", 0, 300, "v", key_schema=Schema.INT32_SCHEMA, value_schema=Schema.STRING_SCHEMA))
    assert out is not None
    assert (out.key, out.key_schema, out.value, out.value_schema) == (44, Schema.INT8_SCHEMA, "v", Schema.STRING_SCHEMA)


@pytest.mark.parametrize(("target", "expected"), [
    ("Date", datetime.date(2024, 1, 2)),
    ("Time", datetime.time(3, 4, 5, tzinfo=UTC)),
    ("Timestamp", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ("unix", 1704164645000),
    ("string", "2024-01-02"),
])
def test_timestamp_converter_gives_the_target_schemas_python_value(target: str, expected: object) -> None:
    xf = configured(TimestampConverterValue, field="ts", format="yyyy-MM-dd", **{"target.type": target})
    schema = event_schema()
    out = apply_value(xf, schema, event(schema, 1))
    assert out.value.get("ts") == expected
    assert type(out.value.get("ts")) is type(expected)


def test_set_schema_metadata_moves_structs_onto_the_new_schema() -> None:
    schema = event_schema()
    value = event(schema, 1)
    out = apply_value(configured(SetSchemaMetadataValue, **{"schema.name": "Renamed", "schema.version": "2"}),
                      schema, value)
    assert (out.value_schema.name, out.value_schema.version) == ("Renamed", 2)  # type: ignore[union-attr]
    assert out.value.schema is out.value_schema
    assert out.value.get("inner") is value.get("inner")  # nested Structs keep their schemas
    out.value.validate()


def test_set_schema_metadata_key_renames_the_key_schema_only() -> None:
    key_schema = SchemaBuilder.struct().field("k", Schema.STRING_SCHEMA).build()
    record = SourceRecord(None, None, "t", 0, Struct(key_schema).put("k", "x"), None, key_schema=key_schema)
    out = configured(SetSchemaMetadataKey, **{"schema.name": "K"}).apply(record)
    assert out is not None and out.key_schema is not None
    assert (out.key_schema.name, out.key.schema, out.value_schema) == ("K", out.key_schema, None)


def test_set_schema_metadata_refuses_non_struct_schemas_as_java() -> None:
    with pytest.raises(DataException, match=r"^Cannot list fields on non-struct type$"):
        apply_value(configured(SetSchemaMetadataValue, **{"schema.name": "n"}), Schema.STRING_SCHEMA, "x")


def test_flatten_refuses_a_struct_inside_schemaless_data_as_java() -> None:
    schema = SchemaBuilder.struct().field("n", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataException, match=r"^Flatten transformation does not support class "
                                            r"org.apache.kafka.connect.data.Struct for record without schemas "
                                            r"\(for field a.b\).$"):
        configured(FlattenValue).apply(SourceRecord(None, None, "t", 0, None, {"a": {"b": Struct(schema).put("n", 1)}}))


def test_cast_parses_floats_after_javas_trim() -> None:
    xf = configured(CastValue, spec="float64")
    assert apply_value(xf, Schema.STRING_SCHEMA, "\x009\t").value == 9.0  # trim strips control characters
    with pytest.raises(DataException, match=r"was out of range"):
        apply_value(xf, Schema.STRING_SCHEMA, "\u20289")  # but not Unicode whitespace


@pytest.mark.parametrize(("schema", "value", "java_class"), [
    (Schema.INT32_SCHEMA, 5, "java.lang.Integer"),
    (Schema.FLOAT32_SCHEMA, 0.5, "java.lang.Float"),
    (Date.SCHEMA, datetime.date(2024, 1, 2), "java.util.Date"),
    (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {"a": 1}, "java.util.HashMap"),
])
def test_non_struct_values_are_named_by_their_schema(schema: Schema, value: object, java_class: str) -> None:
    expected = rf"^Only Struct objects supported for \[flattening\], found: {java_class}$"
    with pytest.raises(DataException, match=expected):
        apply_value(configured(FlattenValue), schema, value)


@pytest.mark.parametrize("value", [2**53 + 2**29 + 1, "9007199791611905"])
def test_cast_to_float32_rounds_once_as_java(value: object) -> None:
    schema = Schema.INT64_SCHEMA if isinstance(value, int) else Schema.STRING_SCHEMA
    assert apply_value(configured(CastValue, spec="float32"), schema, value).value == float(2**53 + 2**30)


@pytest.mark.parametrize(("text", "spec", "expected"), [
    ("\u0661\u0662", "int8", 12), ("-\u0661\u0662", "int32", -12), ("\uff19\uff19", "int64", 99),
    ("+\u0967", "int16", 1),
])
def test_cast_parses_integers_with_any_scripts_digits_as_javas_parse_int(text: str, spec: str, expected: int) -> None:
    schema = SchemaBuilder.struct().field("s", Schema.STRING_SCHEMA).build()
    out = apply_value(configured(CastValue, spec=f"s:{spec}"), schema, Struct(schema).put("s", text))
    assert out.value.get("s") == expected
    assert configured(CastValue, spec=spec).apply(SourceRecord(None, None, "t", 0, None, text)).value == expected  # type: ignore[union-attr]


@pytest.mark.parametrize("text", ["\U0001d7d9", " 1", "1_0", "\u0661\u0662\u0668", "", "+"])
def test_cast_refuses_integer_text_javas_parse_int_refuses(text: str) -> None:
    with pytest.raises(DataException, match="was out of range"):
        configured(CastValue, spec="int8").apply(SourceRecord(None, None, "t", 0, None, text))
