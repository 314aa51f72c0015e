"""JsonConverter's fast path (orjson) writes exactly the careful encoder's bytes, which follow Java's
JsonConverter + Jackson byte for byte (see test_json_converter.py for those rules).

The properties compare ``JsonConverter.from_connect_data`` and :func:`fast_json_body` against the
careful pure-Python encoder ``_encode`` over generated values: (1) values of the shapes the fast
path accepts must take it (else the test proves nothing) and give identical bytes; (2) any value,
including floats, bytes, non-str keys, big ints, control, astral and surrogate characters, gives
identical bytes whichever path it takes. Explicit cases cover what orjson writes differently from
Jackson, or writes where the careful encoder refuses.
"""

from __future__ import annotations

import collections
import decimal
import enum
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import _encode, fast_json_body
from connect_runtime.converters.json_converter import JsonConverter

_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def careful(value: Any) -> bytes:
    out: list[str] = []
    _encode(value, out)
    return "".join(out).encode("utf-8")


def converter(schemas: bool) -> JsonConverter:
    conv = JsonConverter()
    conv.configure({"schemas.enable": str(schemas).lower()})
    return conv


SCHEMALESS = converter(False)
ENVELOPE = converter(True)


def _nested(leaf: st.SearchStrategy[Any], key: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Lists, tuples and maps (keys drawn from ``key``) of ``leaf`` values, nested."""
    return st.recursive(
        leaf,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.lists(children, max_size=5).map(tuple),
            st.dictionaries(key, children, max_size=6),
        ),
        max_leaves=30,
    )


# Text the fast path must accept: no control character except the short escapes, nothing outside
# the BMP, no surrogates (everything else: quotes, backslashes, "/", U+007F, any BMP character).
_FAST_CHAR = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0xFFFF, exclude_categories=["Cs"]),
    st.sampled_from('\b\t\n\f\r"\\/\x7f\u2028\u00e9\u20ac\ufeff'),
)
# Text holding a literal backslash-u00 is left out: the fast path's check for the escapes of control
# characters is a plain byte search, so it declines that text too (the careful path writes it; see
# test_literal_backslash_u00_text_takes_the_careful_path).
FAST_TEXT = st.text(_FAST_CHAR, max_size=20).filter(lambda t: "\\u00" not in t)
FAST_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1), FAST_TEXT,
)
FAST_VALUE = _nested(FAST_LEAF, FAST_TEXT)

# Anything the converter can be given: also characters the fast path must refuse, lone surrogates,
# floats (incl. NaN and infinities), bytes, ints beyond 64 bits and non-str map keys.
_ANY_CHAR = st.one_of(
    st.characters(),  # any code point but surrogates, control and astral characters included
    st.sampled_from("\x00\x0b\x1f\x7f\ud800\udbff\udc00\udfff\U0001f600\U0010ffff"),
)
ANY_TEXT = st.text(_ANY_CHAR, max_size=20)
ANY_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.binary(max_size=10), ANY_TEXT,
)
ANY_KEY = st.one_of(ANY_TEXT, st.integers(), st.booleans(), st.floats(allow_nan=False))
ANY_VALUE = _nested(ANY_LEAF, ANY_KEY)


@_SETTINGS
@given(FAST_VALUE)
def test_fast_shapes_take_the_fast_path_with_identical_bytes(value: Any) -> None:
    expected = careful(value)
    if type(value) in (dict, list, tuple, str):
        assert fast_json_body(value) == expected
    assert SCHEMALESS.from_connect_data("t", value) == (None if value is None else expected)
    if value is not None:
        assert ENVELOPE.from_connect_data("t", value) == b'{"schema":null,"payload":' + expected + b"}"


def test_literal_backslash_u00_text_takes_the_careful_path() -> None:
    value = {"\\u00": "a\\u0041"}
    assert fast_json_body(value) is None
    assert SCHEMALESS.from_connect_data("t", value) == careful(value)


@_SETTINGS
@given(ANY_VALUE)
def test_any_value_gives_identical_bytes_whichever_path(value: Any) -> None:
    expected = careful(value)
    fast = fast_json_body(value)
    assert fast is None or fast == expected
    assert SCHEMALESS.from_connect_data("t", value) == (None if value is None else expected)


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


class Count(int):
    pass


@pytest.mark.parametrize(
    "value",
    [
        # floats: Double.toString, not Python's repr; NaN/infinities as strings, not null
        {"f": 1.0}, {"f": 1e10}, {"f": 1e-5}, {"f": 1e7}, {"f": 1e16}, {"f": -0.0}, {"f": 5e-324},
        {"f": float("nan")}, {"f": float("inf")}, [float("-inf")],
        # bytes as base64 (orjson refuses them)
        {"b": b"\x00\xff"}, [bytearray(b"ab")],
        # control characters: Jackson writes upper-case hex escapes
        {"s": "\x0b"}, {"s": "\x1f\x1e"}, ["\x00"], {"\x0c\x0b": 1},
        # outside the BMP: Jackson writes surrogate-pair escapes
        {"s": "\U0001f600"}, ["a\U0010ffff"], {"\U0001f600": 1},
        # lone surrogates (orjson refuses them)
        {"s": "\ud800"}, ["\udfff"],
        # non-str keys: Java writes an array of [key, value] pairs
        {1: "a"}, {True: 1}, {None: 1}, {1.5: 2}, {"a": 1, 2: 3},
        # ints beyond 64 bits
        {"i": 2**64}, [-(2**63) - 1], {"i": 2**64 - 1}, [10**40],
        # subclasses and types orjson writes natively
        {"s": Name("x")}, {Name("k"): 1}, [Count(7)], Name("x"), Count(7), Level.HIGH, True, 2**64, -(2**63),
        "\x0b", "\U0001f600", "\ud800", {"l": Level.HIGH}, {"d": collections.OrderedDict(a=1)},
        # what must still take the fast path
        {"s": "/\x7f\u2028\b\t\n\f\r\"\\"}, {}, [], (), {"a": [1, {"b": None, "c": (True, "x")}]},
    ],
)
def test_tricky_values_give_the_careful_bytes(value: Any) -> None:
    assert SCHEMALESS.from_connect_data("t", value) == careful(value)


def test_deep_nesting_falls_back_to_the_careful_encoder() -> None:
    value: Any = "x"
    for _ in range(300):  # orjson stops at 254 levels
        value = [value]
    assert fast_json_body(value) is None
    assert SCHEMALESS.from_connect_data("t", value) == careful(value)


@pytest.mark.parametrize(
    "value, fast",
    [
        ({"s": "/\x7f\u2028\u00e9\b\t\n\f\r\"\\"}, True),
        ({"name": "n", "task": 0, "topic": "t", "time_ms": 1764000000000, "seqno": 5}, True),
        ({"f": 1.0}, False), ({"s": "\x0b"}, False), ({"s": "\U0001f600"}, False), ({1: 1}, False),
        ({"i": 2**64}, False), ({"s": Name("x")}, False), ({"l": Level.HIGH}, False),
        ("plain", True), ("\u00e9\"", True), ("\x0b", False), ("\U0001f600", False), ("\ud800", False),
        (Name("x"), False), (5, False),
    ],
)
def test_which_values_take_the_fast_path(value: Any, fast: bool) -> None:
    assert (fast_json_body(value) is not None) is fast


@pytest.mark.parametrize("value", [{"c": Colour.RED}, [uuid.UUID(int=1)], {"d": decimal.Decimal("1.5")}])
def test_types_without_a_java_counterpart_are_refused_not_written(value: Any) -> None:
    # orjson would write an Enum or UUID; the careful encoder refuses them as Java has no schema type.
    assert fast_json_body(value) is None
    with pytest.raises(DataException, match="does not have corresponding schema type"):
        SCHEMALESS.from_connect_data("t", value)


def test_a_value_that_contains_itself_is_a_data_exception() -> None:
    value: list[Any] = []
    value.append(value)
    with pytest.raises(DataException):
        SCHEMALESS.from_connect_data("t", value)
