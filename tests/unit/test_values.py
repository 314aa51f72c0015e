"""Java's ``Values`` (connect_runtime.api.data.values), cases from Java's ValuesTest and the module's
own rules; the differential test (tests/integration/test_values_vs_java.py) compares the same against
Java over a generated corpus."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from connect_runtime.api.data import (
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    SchemaType,
    Struct,
    Time,
    Timestamp,
    Values,
)
from connect_runtime.api.errors import DataException

UTC = datetime.UTC


def array_of(schema: Schema) -> Schema:
    return SchemaBuilder.array(schema).build()


@pytest.mark.parametrize(("text", "schema", "value"), [
    ("true", Schema.BOOLEAN_SCHEMA, True), ("\n \t true \n", Schema.BOOLEAN_SCHEMA, True),
    ("true}", Schema.STRING_SCHEMA, "true}"), ("null=", Schema.STRING_SCHEMA, "null="),
    ("null", None, None), ("", Schema.STRING_SCHEMA, ""), ("  ", Schema.STRING_SCHEMA, "  "),
    ("127", Schema.INT8_SCHEMA, 127), ("128", Schema.INT16_SCHEMA, 128), ("32768", Schema.INT32_SCHEMA, 32768),
    ("2147483648", Schema.INT64_SCHEMA, 2**31), ("1.0", Schema.INT8_SCHEMA, 1), ("1E3", Schema.INT16_SCHEMA, 1000),
    ("9223372036854775808", Decimal.schema(0), decimal.Decimal("9223372036854775808")),
    ("1.5", Schema.FLOAT32_SCHEMA, 1.5), ("0.1", Schema.FLOAT32_SCHEMA, 0.10000000149011612),
    ("1e50", Schema.FLOAT64_SCHEMA, 1e50), ("1e400", Decimal.schema(-400), decimal.Decimal("1e400")),
    ("2019-08-23", Date.SCHEMA, datetime.date(2019, 8, 23)),
    ("14:34:54.346Z", Time.SCHEMA, datetime.time(14, 34, 54, 346000, tzinfo=UTC)),
    ("2019-08-23T14\\:34\\:54.346Z", Timestamp.SCHEMA, datetime.datetime(2019, 8, 23, 14, 34, 54, 346000, tzinfo=UTC)),
    ("2019-13-01", Date.SCHEMA, datetime.date(2020, 1, 1)),  # lenient, as SimpleDateFormat
    ("[true, false]", array_of(Schema.BOOLEAN_SCHEMA), [True, False]),
    ("[1, 2, 32768]", array_of(Schema.INT32_SCHEMA), [1, 2, 32768]),
    ("[1, 2.5]", array_of(Schema.FLOAT32_SCHEMA), [1.0, 2.5]),
    ('[1, 2, "three"]', Schema(SchemaType.ARRAY), [1, 2, "three"]),  # no common schema
    ("[null]", Schema(SchemaType.ARRAY), [None]), ("[]", Schema(SchemaType.ARRAY), []),
    ("[1, 2, 3,,,]", Schema.STRING_SCHEMA, "[1, 2, 3,,,]"), ("[foo]", Schema.STRING_SCHEMA, "[foo]"),
    ("[0 1 2]", Schema.STRING_SCHEMA, "[0 1 2]"),
    ('{ "foo" : "123", \n"bar" : "baz" } ', SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build(),
     {"foo": "123", "bar": "baz"}),
    ("{3: null}", Schema(SchemaType.MAP, key_schema=Schema.INT8_SCHEMA), {3: None}),
    ("{null: 3}", Schema.STRING_SCHEMA, "{null: 3}"), ("{foo: 3}", Schema.STRING_SCHEMA, "{foo: 3}"),
    # keys Python cannot keep apart (Java's map has two entries): text, as the module says
    ("{1:2, true:3}", Schema.STRING_SCHEMA, "{1:2, true:3}"), ("{[1]:2}", Schema.STRING_SCHEMA, "{[1]:2}"),
    ('{"a":1, "a":2}', SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {"a": 2}),
    ('{"k1":14:34:54.346Z}', SchemaBuilder.map(Schema.STRING_SCHEMA, Time.SCHEMA).build(),
     {"k1": datetime.time(14, 34, 54, 346000, tzinfo=UTC)}),
    ('["a\\"b"]', array_of(Schema.STRING_SCHEMA), ['a\\"b']),  # escapes are kept, as Java keeps them
])
def test_parse_string_infers_javas_schema(text: str, schema: Schema | None, value: Any) -> None:
    assert Values.parse_string(text) == SchemaAndValue(schema, value)


def test_parse_string_of_none_and_a_date_in_an_array_of_timestamps() -> None:
    assert Values.parse_string(None) == SchemaAndValue.NULL
    # Java keeps a java.util.Date; here the date takes the Timestamp schema's class, the same instant
    parsed = Values.parse_string("[2019-01-01, 2019-01-01T00:00:00.001Z]")
    assert parsed.schema == array_of(Timestamp.SCHEMA)
    assert parsed.value == [datetime.datetime(2019, 1, 1, tzinfo=UTC),
                            datetime.datetime(2019, 1, 1, 0, 0, 0, 1000, tzinfo=UTC)]


@pytest.mark.parametrize(("schema", "value", "text"), [
    (None, "three\"blind\\\"mice", "three\"blind\\\"mice"),
    (None, ["three\"blind\\\"mice"], '["three\\"blind\\\\\\"mice"]'),
    (None, {"foo": 12345, "bar": 0}, '{"foo":12345,"bar":0}'),
    (None, [1.0, None, True, b"\x01"], '[1.0,null,true,"AQ=="]'),
    (Schema.FLOAT32_SCHEMA, 0.10000000149011612, "0.1"), (None, 0.10000000149011612, "0.10000000149011612"),
    (None, decimal.Decimal("1E+2"), "1E+2"),
    (None, datetime.date(2019, 8, 23), "2019-08-23"), (None, datetime.date(1970, 1, 1), "00:00:00.000Z"),
    (None, datetime.time(14, 34, 54, 346000), "14:34:54.346Z"),
    (None, datetime.datetime(2019, 8, 23, 14, 34, 54, 346000, tzinfo=UTC), "2019-08-23T14:34:54.346Z"),
    (None, None, None),
])
def test_convert_to_string_writes_what_java_writes(schema: Schema | None, value: Any, text: str | None) -> None:
    assert Values.convert_to_string(schema, value) == text


def test_convert_to_string_of_a_struct_uses_defaults_and_field_schemas() -> None:
    schema = (SchemaBuilder.struct().field("f", Schema.FLOAT32_SCHEMA)
              .field("s", SchemaBuilder.string().optional().default_value("d").build()).build())
    assert Values.convert_to_string(schema, Struct(schema).put("f", 0.10000000149011612)) == '{"f":0.1,"s":"d"}'
    with pytest.raises(DataException, match=r"^Failed to serialize unexpected value type builtins\.object"):
        Values.convert_to_string(None, object())


def test_numeric_conversions_narrow_as_java_casts() -> None:
    assert Values.convert_to_byte(None, 300) == 44 and Values.convert_to_short(None, "70000") == 4464
    assert Values.convert_to_integer(None, 2.9) == 2 and Values.convert_to_long(None, float("nan")) == 0
    assert Values.convert_to_long(None, 1e30) == 2**63 - 1 and Values.convert_to_integer(None, None) is None
    assert Values.convert_to_float(None, "0.1") == 0.10000000149011612 and Values.convert_to_double(None, 3) == 3.0
    # a float under a FLOAT32 schema is the Java Float it stands for
    assert Values.convert_to_double(Schema.FLOAT32_SCHEMA, 0.1) == 0.10000000149011612
    assert Values.convert_to_decimal(Schema.FLOAT32_SCHEMA, 0.1, 1) == decimal.Decimal("0.10000000149011612")
    assert Values.convert_to_boolean(None, "true") is True and Values.convert_to_boolean(None, 0) is False
    with pytest.raises(DataException, match=r'^Unable to convert "green" \(<class .str.>\) to Schema{STRING}$'):
        Values.convert_to_boolean(Schema.STRING_SCHEMA, '"green"')
    with pytest.raises(DataException, match="to a number"):
        Values.convert_to_long(None, True)  # a Boolean is no Number in Java


def test_collection_and_struct_conversions() -> None:
    assert Values.convert_to_list(None, "[1, 2, 32768]") == [1, 2, 32768]
    assert Values.convert_to_map(None, '{"a":1}') == {"a": 1}
    with pytest.raises(DataException):
        Values.convert_to_list(None, "[1, 2, 3,,,]")
    with pytest.raises(DataException):
        Values.convert_to_map(None, " { ,,  , , }  ")
    struct = Struct(SchemaBuilder.struct().build())
    assert Values.convert_to_struct(None, struct) is struct
    with pytest.raises(DataException, match=r"^Unable to convert 1"):
        Values.convert_to_struct(None, 1)


def test_temporal_conversions() -> None:
    now = datetime.datetime(2024, 5, 6, 7, 8, 9, 10000, tzinfo=UTC)
    assert Values.convert_to_time(Timestamp.SCHEMA, now) == datetime.time(7, 8, 9, 10000, tzinfo=UTC)
    assert Values.convert_to_date(Timestamp.SCHEMA, now) == datetime.date(2024, 5, 6)
    assert Values.convert_to_timestamp(Date.SCHEMA, datetime.date(2024, 5, 6)) == datetime.datetime(2024, 5, 6,
                                                                                                   tzinfo=UTC)
    assert Values.convert_to_timestamp(Time.SCHEMA, 1000) == datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC)
    assert Values.convert_to_date(Date.SCHEMA, "19849") == datetime.date(2024, 5, 6)
    with pytest.raises(DataException, match=r"^Unable to convert a null value to a schema that requires a value$"):
        Values.convert_to_time(None, None)


def test_decimal_conversion() -> None:
    assert Values.convert_to_decimal(None, 1, 2) == decimal.Decimal("1.0")  # BigDecimal.valueOf(double)
    assert str(Values.convert_to_decimal(None, 1, 2)) == "1.0"
    assert Values.convert_to_decimal(None, "1.25", 2) == decimal.Decimal("1.25")
    assert Values.convert_to_decimal(None, b"\x7b", 2) == decimal.Decimal("1.23")


def test_infer_schema() -> None:
    assert Values.infer_schema(1) == Schema.INT64_SCHEMA and Values.infer_schema(1.5) == Schema.FLOAT64_SCHEMA
    assert Values.infer_schema([1, None]) == array_of(SchemaBuilder.int64().optional().build())
    assert Values.infer_schema({"a": True}) == SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.BOOLEAN_SCHEMA).build()
    assert Values.infer_schema([1, "a"]) is None and Values.infer_schema([]) is None
    assert Values.infer_schema(decimal.Decimal(1)) is None and Values.infer_schema([None]) is None


@pytest.mark.parametrize(("text", "expected"), [
    ("3.4028235677973366e38", SchemaAndValue(Schema.FLOAT32_SCHEMA, 3.4028234663852886e38)),  # rounds down to MAX
    ("3.4028235677973367e38", SchemaAndValue(Schema.FLOAT64_SCHEMA, 3.4028235677973367e38)),  # rounds up: infinite
])
def test_parse_string_rounds_once_to_float32_at_the_top_of_its_range(text: str, expected: SchemaAndValue) -> None:
    assert Values.parse_string(text) == expected
