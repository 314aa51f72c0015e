"""StringConverter, ByteArrayConverter and the converter name registry."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from connect_runtime.api.converter import Converter
from connect_runtime.api.data import (
    Date,
    Decimal,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    Struct,
    Time,
    Timestamp,
)
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.converters import (
    BUILTIN_CONVERTERS,
    ByteArrayConverter,
    JsonConverter,
    StringConverter,
)
from connect_runtime.converters.schema_registry.registry_converter import SchemaRegistryConverter


def string_converter(**configs: Any) -> StringConverter:
    conv = StringConverter()
    conv.configure(configs, False)
    return conv


# --- StringConverter --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("hello", b"hello"),
        ("h\u00e9\U0001f600", b"h\xc3\xa9\xf0\x9f\x98\x80"),  # UTF8 by default (no JSON escaping)
        ("", b""),
        (42, b"42"),  # Long.toString
        (True, b"true"),  # Boolean.toString
        (1e10, b"1.0E10"),  # Double.toString
        (0.5, b"0.5"),
        ({"a": 1, "b": "x"}, b"{a=1, b=x}"),  # AbstractMap.toString
        ([1, "a", None], b"[1, a, null]"),  # AbstractCollection.toString
        (b"raw", b"raw"),  # bytes are decoded (Java would write "[B@<hash>")
    ],
)
def test_string_converter_writes_java_to_string(value: Any, expected: bytes) -> None:
    assert string_converter().from_connect_data("t", value) == expected


_POINT = (SchemaBuilder.struct().field("x", Schema.FLOAT32_SCHEMA).field("d", Decimal.schema(2))
          .field("when", Timestamp.builder().optional().build())
          .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build()).build())


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        (1.100000023841858, Schema.FLOAT32_SCHEMA, b"1.1"),  # the float 1.1f: Float.toString, not the double's
        (1.1, Schema.FLOAT64_SCHEMA, b"1.1"),
        (decimal.Decimal("1.2E+3"), Decimal.schema(-2), b"1.2E+3"),  # BigDecimal.toString
        (decimal.Decimal("-0.00"), Decimal.schema(2), b"0.00"),  # BigDecimal has no -0
        (datetime.date(1970, 1, 1), Date.SCHEMA, b"Thu Jan 01 00:00:00 UTC 1970"),  # java.util.Date, in UTC
        (datetime.date(1582, 10, 14), Date.SCHEMA, b"Thu Oct 04 00:00:00 UTC 1582"),  # the Julian calendar before
        (datetime.date(114, 1, 4), Date.SCHEMA, b"Thu Jan 05 00:00:00 UTC 114"),  # the cutover; years unpadded
        (datetime.time(13, 5, 7, 999_000), Time.SCHEMA, b"Thu Jan 01 13:05:07 UTC 1970"),
        (datetime.datetime(2024, 2, 29, 23, 59, 59, tzinfo=datetime.UTC), Timestamp.SCHEMA,
         b"Thu Feb 29 23:59:59 UTC 2024"),
        (Struct(_POINT).put("x", 0.10000000149011612).put("d", decimal.Decimal("3.50")).put("tags", ["a", "b"]),
         _POINT, b"Struct{x=0.1,d=3.50,tags=[a, b]}"),  # Struct.toString: the fields set, no spaces
        ({1: [0.10000000149011612]},
         SchemaBuilder.map(Schema.INT8_SCHEMA, SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build()).build(),
         b"{1=[0.1]}"),
    ],
)
def test_string_converter_writes_the_java_class_a_schema_stands_for(value: Any, schema: Schema,
                                                                   expected: bytes) -> None:
    assert string_converter().from_connect_data("t", value, schema=schema) == expected


def test_string_and_byte_array_converters_read_with_javas_schemas() -> None:
    assert string_converter().to_connect_schema_and_value("t", b"x") == SchemaAndValue(
        Schema.OPTIONAL_STRING_SCHEMA, "x")
    assert ByteArrayConverter().to_connect_schema_and_value("t", None) == SchemaAndValue(
        Schema.OPTIONAL_BYTES_SCHEMA, None)


def test_string_converter_none_and_parsing() -> None:
    conv = string_converter()
    assert conv.from_connect_data("t", None) is None
    assert conv.to_connect_data("t", None) is None
    assert conv.to_connect_data("t", b"h\xc3\xa9") == "h\u00e9"
    assert conv.to_connect_data("t", b"bad\xff") == "bad\ufffd"  # new String(bytes, UTF_8) replaces


def test_string_converter_encodings() -> None:
    latin = string_converter(**{"converter.encoding": "ISO-8859-1"})
    assert latin.from_connect_data("t", "\u00e9\u20ac") == b"\xe9?"  # unmappable -> '?' like getBytes
    assert latin.to_connect_data("t", b"\xe9") == "\u00e9"
    utf16 = string_converter(**{"converter.encoding": "UTF-16"})
    assert utf16.from_connect_data("t", "hi") == b"\xfe\xff\x00h\x00i"  # Java: big-endian with BOM
    assert utf16.to_connect_data("t", b"\x00h\x00i") == "hi"
    assert utf16.to_connect_data("t", b"\xff\xfeh\x00") == "h"
    split = string_converter(**{"serializer.encoding": "UTF-16BE", "deserializer.encoding": "ISO-8859-1"})
    assert split.from_connect_data("t", "a") == b"\x00a"
    assert split.to_connect_data("t", b"\xe9") == "\u00e9"


def test_string_converter_rejects_unknown_encoding() -> None:
    with pytest.raises(ConfigException, match=r"converter\.encoding"):
        string_converter(**{"converter.encoding": "no-such-charset"})


# --- ByteArrayConverter -----------------------------------------------------------------------


def test_byte_array_converter_passes_bytes_through() -> None:
    conv = ByteArrayConverter()
    conv.configure({}, True)
    raw = b"\x00\x01"
    assert conv.from_connect_data("t", raw) is raw
    assert conv.from_connect_data("t", bytearray(b"ab")) == b"ab"
    assert conv.from_connect_data("t", memoryview(b"cd")) == b"cd"
    assert conv.from_connect_data("t", None) is None
    assert conv.to_connect_data("t", raw) is raw
    assert conv.to_connect_data("t", None) is None


@pytest.mark.parametrize("value", ["text", 1, {"a": 1}, [b"x"]])
def test_byte_array_converter_rejects_other_types(value: Any) -> None:
    with pytest.raises(DataException) as info:
        ByteArrayConverter().from_connect_data("t", value)
    assert str(info.value) == f"ByteArrayConverter is not compatible with objects of type {type(value)}"


# --- registry ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.json.JsonConverter", JsonConverter),
        ("JsonConverter", JsonConverter),
        ("connect_runtime.converters.JsonConverter", JsonConverter),
        ("connect_runtime.converters.json_converter.JsonConverter", JsonConverter),
        ("org.apache.kafka.connect.storage.StringConverter", StringConverter),
        ("StringConverter", StringConverter),
        ("connect_runtime.converters.StringConverter", StringConverter),
        ("org.apache.kafka.connect.converters.ByteArrayConverter", ByteArrayConverter),
        ("ByteArrayConverter", ByteArrayConverter),
        ("connect_runtime.converters.ByteArrayConverter", ByteArrayConverter),
    ],
)
def test_builtin_converter_names(name: str, cls: type[Converter]) -> None:
    assert BUILTIN_CONVERTERS[name] is cls
    assert issubclass(cls, Converter)


def test_builtin_converters_are_instantiable_and_configurable() -> None:
    for cls in set(BUILTIN_CONVERTERS.values()):
        if not issubclass(cls, Converter):  # SimpleHeaderConverter: a header converter only
            continue
        conv = cls()
        # a registry converter needs its registry's URL (unreachable here: only logged at configure)
        conv.configure({"schema.registry.url": "http://127.0.0.1:1"} if issubclass(cls, SchemaRegistryConverter)
                       else {}, False)
        assert conv.from_connect_data("t", None) is None
