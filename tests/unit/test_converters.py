"""StringConverter, ByteArrayConverter and the converter name registry."""

from __future__ import annotations

from typing import Any

import pytest

from connect_runtime.api.converter import Converter
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.converters import (
    BUILTIN_CONVERTERS,
    ByteArrayConverter,
    JsonConverter,
    StringConverter,
)


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
        conv.configure({}, False)
        assert conv.from_connect_data("t", None) is None
