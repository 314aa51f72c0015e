"""JsonConverter: byte-exact against Java's JsonConverter + Jackson, and parsing like Java.

Expected bytes are written literally. Where they follow a Java/Jackson rule, the comment names it:
- Double.toString (JDK 19+ javadoc): plain notation for 1e-3 <= |d| < 1e7 with at least one
  fractional digit, else "computerized scientific notation" d.dddE<n>; shortest digits, but when
  one digit would do, the closest decimal of length 2 wins (Double.MIN_VALUE is "4.9E-324").
- Jackson UTF8JsonGenerator.writeNumber(double): non-finite values are written as strings while
  JsonWriteFeature.WRITE_NAN_AS_STRINGS (QUOTE_NON_NUMERIC_NUMBERS) is on, the default.
- Jackson CharTypes.sOutputEscapes128: \\" \\\\ \\b \\t \\n \\f \\r short escapes, other chars
  below 0x20 as \\u00XX (_writeGenericEscape, upper-case HEX_CHARS); '/' and 0x7F not escaped.
- Jackson UTF8JsonGenerator._outputMultiByteChar: UTF-16 surrogates are escaped one code unit at
  a time, so characters outside the BMP come out as \\uD83D\\uDE00 (COMBINE_UNICODE_SURROGATES_IN_UTF8
  is off by default).
- JsonConverter.convertToJson (schema == null): byte[] -> BinaryNode (base64, MIME_NO_LINEFEEDS);
  a Map whose keys are all Strings -> object, otherwise an array of [key,value] pairs; a null
  schema and null value -> null bytes (tombstone).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import random
from typing import Any

import pytest

from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.api.java_json import _encode, java_double_to_string, json_dumps_compact, json_loads
from connect_runtime.converters.json_converter import ENVELOPE_REQUIRED_MESSAGE, JsonConverter


def converter(**configs: Any) -> JsonConverter:
    conv = JsonConverter()
    conv.configure(configs, False)
    return conv


def careful(value: Any) -> bytes:
    """The pure-Python (slow) encoder alone."""
    out: list[str] = []
    _encode(value, out)
    return "".join(out).encode("utf-8")


# --- serialization ----------------------------------------------------------------------------


def test_schemas_enabled_by_default_wraps_in_null_schema_envelope() -> None:
    # JsonSchema.Envelope: {"schema": <null schema>, "payload": ...}, schema field first.
    conv = converter()
    assert conv.from_connect_data("t", {"a": 1}) == b'{"schema":null,"payload":{"a":1}}'
    assert conv.from_connect_data("t", "x") == b'{"schema":null,"payload":"x"}'
    assert conv.from_connect_data("t", True) == b'{"schema":null,"payload":true}'
    assert conv.from_connect_data("t", [None]) == b'{"schema":null,"payload":[null]}'


def test_schemas_disabled_writes_bare_json() -> None:
    conv = converter(**{"schemas.enable": "false"})
    assert conv.from_connect_data("t", {"a": 1, "b": [1, 2]}) == b'{"a":1,"b":[1,2]}'
    assert conv.from_connect_data("t", 42) == b"42"
    assert conv.from_connect_data("t", "x") == b'"x"'


@pytest.mark.parametrize("schemas_enable", ["true", "false"])
def test_none_is_a_tombstone_in_both_modes(schemas_enable: str) -> None:
    # fromConnectData: `if (schema == null && value == null) return null;`
    assert converter(**{"schemas.enable": schemas_enable}).from_connect_data("t", None) is None


def test_maps_keep_insertion_order_and_use_compact_separators() -> None:
    assert json_dumps_compact({"b": 1, "a": 2, "c": {"z": None, "y": False}}) == (
        b'{"b":1,"a":2,"c":{"z":null,"y":false}}'
    )
    assert json_dumps_compact(("x", [], {})) == b'["x",[],{}]'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, b"1.0"),
        (100.0, b"100.0"),
        (0.1, b"0.1"),
        (-2.5, b"-2.5"),
        (123456.789, b"123456.789"),
        (1234567.0, b"1234567.0"),  # < 1e7: plain notation
        (9999999.0, b"9999999.0"),
        (1e7, b"1.0E7"),  # >= 1e7: scientific, at least one fractional digit
        (12345678.0, b"1.2345678E7"),
        (1e10, b"1.0E10"),
        (1e21, b"1.0E21"),
        (1e23, b"1.0E23"),
        (0.001, b"0.001"),  # >= 1e-3: plain
        (0.0025, b"0.0025"),
        (0.0001, b"1.0E-4"),  # < 1e-3: scientific; negative exponent with '-', no '+' ever
        (1e-5, b"1.0E-5"),
        (1.5e-7, b"1.5E-7"),
        (1.7976931348623157e308, b"1.7976931348623157E308"),
        (5e-324, b"4.9E-324"),  # Double.MIN_VALUE: the closest 2-digit decimal beats "5"
        (1e-323, b"9.9E-324"),
        (0.0, b"0.0"),
        (-0.0, b"-0.0"),
        (math.nan, b'"NaN"'),  # QUOTE_NON_NUMERIC_NUMBERS
        (math.inf, b'"Infinity"'),
        (-math.inf, b'"-Infinity"'),
    ],
)
def test_doubles_follow_java_double_to_string(value: float, expected: bytes) -> None:
    assert json_dumps_compact(value) == expected
    assert json_dumps_compact({"f": value}) == b'{"f":' + expected + b"}"


def test_java_double_to_string_round_trips() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        value = rng.choice([rng.uniform(-1e9, 1e9), rng.random() * 10.0 ** rng.randint(-320, 308)])
        text = java_double_to_string(value)
        assert float(text) == value
        assert "E+" not in text and ("." in text)


def test_ints_and_bools() -> None:
    assert (
        json_dumps_compact([0, -1, 2**63 - 1, True, False, None])
        == b"[0,-1,9223372036854775807,true,false,null]"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", b'"plain"'),
        ('q"b\\s', b'"q\\"b\\\\s"'),
        ("\b\t\n\f\r", b'"\\b\\t\\n\\f\\r"'),  # short escapes
        ("\x00\x01\x07", b'"\\u0000\\u0001\\u0007"'),
        ("\x0b\x0e\x1a\x1f", b'"\\u000B\\u000E\\u001A\\u001F"'),  # upper-case hex (Python: lower)
        ("a/b\x7f", b'"a/b\x7f"'),  # '/' and DEL are not escaped
        ("h\u00e9llo \u4e16\u754c", b'"h\xc3\xa9llo \xe4\xb8\x96\xe7\x95\x8c"'),  # raw UTF-8
        ("\u2028", b'"\xe2\x80\xa8"'),
        ("\ue000\ufffe\uffff", b'"\xee\x80\x80\xef\xbf\xbe\xef\xbf\xbf"'),  # BMP above surrogates: raw
        ("\U0001f600", b'"\\uD83D\\uDE00"'),  # astral: escaped surrogate pair
        ("x\ud800y", b'"x\\uD800y"'),  # lone surrogate: escaped
    ],
)
def test_strings_are_escaped_like_jackson(text: str, expected: bytes) -> None:
    assert json_dumps_compact(text) == expected
    assert careful(text) == expected
    # keys use the same escaping
    assert json_dumps_compact({text: 1}) == b"{" + expected + b":1}"


def test_bytes_are_base64_strings() -> None:
    # BinaryNode written with Base64Variants.MIME_NO_LINEFEEDS: standard alphabet, padded.
    assert json_dumps_compact(b"\x00\xff") == b'"AP8="'
    assert (
        json_dumps_compact({"k": bytearray(b"hi?"), "m": memoryview(b"\xfb\xff")})
        == b'{"k":"aGk/","m":"+/8="}'
    )
    assert json_dumps_compact(b"") == b'""'


def test_maps_with_non_string_keys_become_pair_arrays() -> None:
    assert json_dumps_compact({1: "a", 2: "b"}) == b'[[1,"a"],[2,"b"]]'
    assert json_dumps_compact({"a": 1, 2: 3}) == b'[["a",1],[2,3]]'
    assert json_dumps_compact({True: None, None: 1.5}) == b"[[true,null],[null,1.5]]"


def test_unsupported_types_raise_data_exception() -> None:
    for value in ({1, 2}, object(), decimal.Decimal("1.5"), dt.date(2020, 1, 1), {"a": {1, 2}}):
        with pytest.raises(DataException, match="does not have corresponding schema type"):
            json_dumps_compact(value)


def test_self_containing_value_raises_data_exception() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(DataException):
        json_dumps_compact(loop)


def test_subclasses_use_their_base_type_encoding() -> None:
    import enum

    class Color(enum.IntEnum):
        RED = 1

    class Name(str):
        pass

    assert json_dumps_compact({"c": Color.RED, Name("k"): Name("v")}) == b'{"c":1,"k":"v"}'


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    alphabet = [
        "a",
        "Z",
        " ",
        "\u00e9",
        "\u4e16",
        "\n",
        '"',
        "\\",
        "/",
        "\x01",
        "\x1f",
        "\U0001f600",
        "\ud83d",
    ]
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
    if kind == 1:
        return rng.randint(-(2**63), 2**63 - 1)
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.choice([0.5, -1e-7, 3.0e12, 1e300, math.nan, 7.0])
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(4)))
    if kind == 5:
        return "ascii only"
    if kind == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return {
            "".join(rng.choice(alphabet) for _ in range(rng.randrange(4))): _random_value(rng, depth + 1)
            for _ in range(rng.randrange(4))
        }
    return {rng.randrange(5): _random_value(rng, depth + 1) for _ in range(rng.randrange(3))}


def test_fast_path_and_careful_encoder_agree() -> None:
    rng = random.Random(1234)
    for _ in range(3000):
        value = _random_value(rng)
        assert json_dumps_compact(value) == careful(value), value


# --- parsing ----------------------------------------------------------------------------------


def test_envelope_payload_is_returned() -> None:
    conv = converter()
    assert conv.to_connect_data("t", b'{"schema":null,"payload":{"a":[1,2.5,"x",null]}}') == {
        "a": [1, 2.5, "x", None]
    }
    assert conv.to_connect_data("t", b'{"payload":7,"schema":null}') == 7


@pytest.mark.parametrize(
    "data", [b'{"a":1}', b"[1]", b"3", b"null", b'{"schema":null}', b'{"schema":null,"payload":1,"x":2}', b""]
)
def test_non_envelope_with_schemas_enabled_raises_javas_message(data: bytes) -> None:
    with pytest.raises(DataException) as info:
        converter().to_connect_data("t", data)
    assert str(info.value) == ENVELOPE_REQUIRED_MESSAGE
    assert str(info.value).startswith(
        'JsonConverter with schemas.enable requires "schema" and "payload" fields'
    )


def test_schemas_disabled_returns_plain_json() -> None:
    conv = converter(**{"schemas.enable": False})
    assert conv.to_connect_data("t", b'{"schema":null,"payload":1}') == {"schema": None, "payload": 1}
    assert conv.to_connect_data("t", b' [1, {"a": true}] ') == [1, {"a": True}]
    assert conv.to_connect_data("t", b"") is None  # Jackson: MissingNode -> null


@pytest.mark.parametrize("schemas_enable", [True, False])
def test_tombstone_parses_to_none(schemas_enable: bool) -> None:
    assert converter(**{"schemas.enable": schemas_enable}).to_connect_data("t", None) is None


def test_malformed_json_raises_data_exception() -> None:
    conv = converter(**{"schemas.enable": "false"})
    for data in (b"{", b'{"a":}', b"NaN", b"[Infinity]", b"\xff\xfe", b"{'a':1}"):
        with pytest.raises(DataException, match="Converting byte\\[\\] to Kafka Connect data failed"):
            conv.to_connect_data("t", data)


def test_parsing_ignores_trailing_content_and_bom_like_readtree() -> None:
    # ObjectMapper.readTree reads the first value (FAIL_ON_TRAILING_TOKENS is off by default).
    assert json_loads(b'{"a":1} trailing') == {"a": 1}
    assert json_loads(b"\xef\xbb\xbf[1]") == [1]
    assert json_loads(b" \n ") is None


def test_round_trip() -> None:
    conv = converter()
    value = {"s": "\u00e9\U0001f600\x0b", "i": 2**40, "f": 1e-9, "l": [True, None], "m": {"n": {}}}
    assert conv.to_connect_data("t", conv.from_connect_data("t", value)) == value


# Envelopes carrying schemas, as a Java producer with schemas.enable=true writes them.


def test_schema_envelope_bytes_struct_and_map_with_int_keys() -> None:
    conv = converter()
    data = (
        b'{"schema":{"type":"struct","fields":['
        b'{"type":"bytes","optional":false,"field":"b"},'
        b'{"type":"map","keys":{"type":"int32","optional":false},'
        b'"values":{"type":"string","optional":true},"optional":false,"field":"m"},'
        b'{"type":"float","optional":false,"field":"f"},'
        b'{"type":"int8","optional":false,"field":"i"},'
        b'{"type":"string","optional":true,"field":"missing"},'
        b'{"type":"int64","optional":false,"default":7,"field":"d"}],"optional":false,"name":"rec"},'
        b'"payload":{"b":"AP8=","m":[[1,"a"],[2,null]],"f":0.1,"i":300}}'
    )
    assert conv.to_connect_data("t", data) == {
        "b": b"\x00\xff",
        "m": {1: "a", 2: None},
        "f": pytest.approx(0.1, rel=1e-7),
        "i": 44,  # (byte) 300
        "missing": None,
        "d": 7,
    }


def test_schema_envelope_logical_types() -> None:
    conv = converter()
    decimal_schema = (
        b'{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",'
        b'"version":1,"parameters":{"scale":"2"}}'
    )
    assert conv.to_connect_data(
        "t", b'{"schema":' + decimal_schema + b',"payload":"AN0="}'
    ) == decimal.Decimal("2.21")
    assert conv.to_connect_data(
        "t", b'{"schema":' + decimal_schema + b',"payload":12.345678901234567890}'
    ) == (decimal.Decimal("12.345678901234567890"))
    date = b'{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1}'
    assert conv.to_connect_data("t", b'{"schema":' + date + b',"payload":19000}') == dt.date(2022, 1, 8)
    ts = b'{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1}'
    assert conv.to_connect_data("t", b'{"schema":' + ts + b',"payload":1500}') == dt.datetime(
        1970, 1, 1, 0, 0, 1, 500000, tzinfo=dt.UTC
    )
    time = b'{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1}'
    assert conv.to_connect_data("t", b'{"schema":' + time + b',"payload":3723004}') == dt.time(
        1, 2, 3, 4000, tzinfo=dt.UTC
    )  # aware, as Time.to_logical gives it: one representation of a Time


def test_schema_envelope_errors() -> None:
    conv = converter()
    with pytest.raises(DataException, match="Invalid null value for required INT32 field"):
        conv.to_connect_data("t", b'{"schema":{"type":"int32","optional":false},"payload":null}')
    assert conv.to_connect_data("t", b'{"schema":{"type":"int32","optional":true},"payload":null}') is None
    with pytest.raises(DataException, match="Schema must contain 'type' field"):
        conv.to_connect_data("t", b'{"schema":{"optional":true},"payload":1}')
    with pytest.raises(DataException, match="Unknown schema type: uuid"):
        conv.to_connect_data("t", b'{"schema":{"type":"uuid"},"payload":1}')
    with pytest.raises(DataException, match="Structs should be encoded as JSON objects, but found ARRAY"):
        conv.to_connect_data("t", b'{"schema":{"type":"struct","fields":[]},"payload":[]}')


# --- configuration ----------------------------------------------------------------------------


def test_configuration_values() -> None:
    assert converter(**{"schemas.enable": " FALSE "}).from_connect_data("t", 1) == b"1"
    assert converter(**{"schemas.enable": "True"}).from_connect_data("t", 1) == b'{"schema":null,"payload":1}'
    conv = converter(**{"decimal.format": "numeric", "schemas.cache.size": "10", "converter.type": "value"})
    assert conv.from_connect_data("t", 1) == b'{"schema":null,"payload":1}'
    with pytest.raises(ConfigException, match=r"schemas\.enable"):
        converter(**{"schemas.enable": "yes"})
    with pytest.raises(ConfigException, match=r"decimal\.format"):
        converter(**{"decimal.format": "hex"})


def test_json_dumps_compact_of_none_is_null() -> None:
    assert json_dumps_compact(None) == b"null"
