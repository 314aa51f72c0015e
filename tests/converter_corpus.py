"""The converter corpus: schema descriptions, value encodings and converter cases in
java_data_harness.py's format, generated from hypothesis or from a seeded ``random.Random``.

Which and why. The generators are written once against a :class:`Source` of choices:

- hypothesis (:func:`converter_cases`, a strategy) drives the property test, a few hundred cases in
  small batches of one JVM round trip each, where it shrinks a failing batch to its smallest case;
- a seeded ``random.Random`` (:func:`random_cases`) makes the large corpora, 10,000 cases in the
  normal suite and 100,000 under the ``slow`` marker, each sent to the JVM as one batch. Hypothesis
  does not fit there: one example per JVM round trip costs milliseconds, one example cannot draw
  thousands of cases (it bounds the choices an example makes), and collecting its examples into a
  batch gave mostly repeats (its generation mutates earlier examples: 600 distinct cases in 3,000).
  The random source is biased as hypothesis is (bounds, zeros, NaN, infinities, subnormals, astral
  and control characters), and the seed makes a corpus reproducible; the tests print it with every
  difference.
"""

from __future__ import annotations

import base64
import decimal
import json
import math
import random
import struct
from collections.abc import Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

from connect_runtime.api.data import Date, Decimal, Time, Timestamp
from connect_runtime.api.java_json import to_float32

DECIMAL, DATE, TIME, TIMESTAMP = (Decimal.LOGICAL_NAME, Date.LOGICAL_NAME, Time.LOGICAL_NAME,
                                  Timestamp.LOGICAL_NAME)
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
BYTE_ARRAY_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter"

INT_RANGES = {kind: (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
              for kind, bits in (("INT8", 8), ("INT16", 16), ("INT32", 32), ("INT64", 64))}
PRIMITIVES = ("INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES")
DAY_MS = 86_400_000
# Python's date and datetime hold years 1..9999 only (java_data_harness.DELIBERATE_DIFFERENCES).
MIN_DAY, MAX_DAY = -719_162, 2_932_896
MIN_MS, MAX_MS = -62_135_596_800_000, 253_402_300_799_999

# Any character but lone surrogates (which neither side can carry through UTF-8 JSON): control
# characters, quotes and backslashes, and characters outside the BMP are drawn often on purpose.
TEXT = st.text(st.one_of(
    st.characters(exclude_categories=["Cs"]),
    st.sampled_from('\x00\x01\x1f\x7f"\\/\b\t\n\f\r\u2028\ufeff\U0001f600\U0010ffff'),
), max_size=8)
FIELD_NAMES = ("a", "b", "é", "field_1", "Z", "\U0001f600", "x y", "")
T = TypeVar("T")


def float_enc(kind: str, value: float) -> dict[str, Any]:
    """A FLOAT32/FLOAT64 value encoding; NaN and the infinities as Java's strings (JSON has no token)."""
    if math.isnan(value):
        return {kind: "NaN"}
    if math.isinf(value):
        return {kind: "Infinity" if value > 0 else "-Infinity"}
    return {kind: value}


def decimal_text(unscaled: int, scale: int) -> str:
    """The ``decimal`` value encoding of ``unscaled * 10**-scale`` with exactly that scale."""
    digits = tuple(int(d) for d in str(abs(unscaled)))
    return str(decimal.Decimal((1 if unscaled < 0 else 0, digits, -scale)))


class Source:
    """Where the corpus's choices come from: hypothesis (:class:`HypothesisSource`) or a seeded
    ``random.Random`` (:class:`RandomSource`). The generators below are plain functions over it, written
    once for both, and no strategy is built per case (building them cost 4 ms a case, against 0.3 ms)."""

    def integer(self, low: int, high: int) -> int:
        raise NotImplementedError

    def floating(self, width: int, allow_nan: bool = True) -> float:
        raise NotImplementedError

    def text(self) -> str:
        raise NotImplementedError

    def binary(self) -> bytes:
        raise NotImplementedError

    def pick(self, choices: Sequence[T]) -> T:
        return choices[self.integer(0, len(choices) - 1)]

    def chance(self, one_in: int) -> bool:
        return self.integer(0, one_in - 1) == 0


_INTEGERS: dict[tuple[int, int], st.SearchStrategy[int]] = {}
_FLOATS = {(width, nan): st.floats(width=width, allow_nan=nan) for width in (32, 64) for nan in (True, False)}
_BINARY = st.binary(max_size=8)


class HypothesisSource(Source):
    """Choices drawn by hypothesis (inside a ``@given``), from strategies built once."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        strategy = _INTEGERS.get((low, high))
        if strategy is None:
            strategy = _INTEGERS[(low, high)] = st.integers(low, high)
        return self._draw(strategy)

    def floating(self, width: int, allow_nan: bool = True) -> float:
        return self._draw(_FLOATS[(width, allow_nan)])

    def text(self) -> str:
        return self._draw(TEXT)

    def binary(self) -> bytes:
        return self._draw(_BINARY)


# What RandomSource mixes in, as hypothesis favours them: bounds, zeros, NaN, infinities, subnormals.
_SPECIAL_FLOATS = (0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                   1e23, 1e22, 2e-3, 1e-3, 9999999.0, 1e7, 0.1, -1.5, 1.401298464324817e-45, 3.4028234663852886e38)
_SPECIAL_CHARS = '\x00\x01\x1f\x7f"\\/\b\t\n\f\r\u2028\ufeffé€\U0001f600\U0010ffff'


class RandomSource(Source):
    """Choices from a seeded ``random.Random``, biased towards bounds and special values as hypothesis
    is: for corpora too large for hypothesis's per-example cost."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        rng = self._rng
        if high - low > 8 and rng.random() < 0.15:
            return rng.choice((low, high, max(low, min(high, 0)), low + 1, high - 1))
        return rng.randint(low, high)

    def floating(self, width: int, allow_nan: bool = True) -> float:
        rng = self._rng
        roll = rng.random()
        if roll < 0.3:
            value = rng.choice(_SPECIAL_FLOATS)
        elif roll < 0.6:
            value = rng.uniform(-1e6, 1e6)
        elif width == 64:
            value = struct.unpack("<d", rng.randbytes(8))[0]
        else:
            value = struct.unpack("<f", rng.randbytes(4))[0]
        if width == 32:
            value = float32(value)
        return 0.0 if not allow_nan and math.isnan(value) else value

    def text(self) -> str:
        rng = self._rng
        chars = []
        for _ in range(rng.randint(0, 8)):
            roll = rng.random()
            if roll < 0.4:
                chars.append(chr(rng.randint(0x20, 0x7E)))
            elif roll < 0.6:
                chars.append(rng.choice(_SPECIAL_CHARS))
            else:
                code = rng.choice((rng.randint(0, 0xFFFF), rng.randint(0x10000, 0x10FFFF)))
                chars.append(chr(code) if not 0xD800 <= code <= 0xDFFF else "?")
        return "".join(chars)

    def binary(self) -> bytes:
        return self._rng.randbytes(self._rng.randint(0, 8))


_KINDS = [*PRIMITIVES, "Decimal", "Date", "Time", "Timestamp"]


def schema(src: Source, depth: int = 0, key: bool = False) -> dict[str, Any]:
    """A schema description. A map key is a primitive, a logical type or a struct of them: Python
    cannot hash lists or mappings (java_data_harness.DELIBERATE_DIFFERENCES["unhashable map keys"])."""
    kinds = _KINDS + ([] if depth >= 3 else ["STRUCT"] if key else ["ARRAY", "MAP", "STRUCT"])
    kind = src.pick(kinds)
    desc: dict[str, Any]
    if kind == "Decimal":
        desc = {"type": "BYTES", "name": DECIMAL, "version": 1, "parameters": {"scale": str(src.integer(-5, 40))}}
    elif kind in ("Date", "Time"):
        desc = {"type": "INT32", "name": DATE if kind == "Date" else TIME, "version": 1}
    elif kind == "Timestamp":
        desc = {"type": "INT64", "name": TIMESTAMP, "version": 1}
    elif kind == "ARRAY":
        desc = {"type": "ARRAY", "value": schema(src, depth + 1)}
    elif kind == "MAP":
        desc = {"type": "MAP", "key": schema(src, depth + 2, key=True), "value": schema(src, depth + 1)}
    elif kind == "STRUCT":
        names = list(dict.fromkeys(src.pick(FIELD_NAMES) for _ in range(src.integer(0, 4))))
        desc = {"type": "STRUCT", "fields": [{"name": n, "schema": schema(src, depth + 1, key)} for n in names]}
    else:
        desc = {"type": kind}
    if src.chance(2):
        desc["optional"] = True
    if "name" not in desc and src.chance(10):
        desc["name"] = "com.example." + src.text()
        if src.chance(2):
            desc["version"] = src.integer(-(2**31), 2**31 - 1)
    if src.chance(10):
        desc["doc"] = src.text()
    if "parameters" not in desc and src.chance(10):
        desc["parameters"] = {src.text(): src.text() for _ in range(src.integer(0, 2))}
    if kind != "STRUCT" and src.chance(6):
        desc["default"] = value(src, desc, key=key, nullable=False)
    return desc


def value(src: Source, desc: dict[str, Any], key: bool = False, nullable: bool = True) -> Any:
    """A value encoding ``desc`` accepts; None (null) sometimes when the schema is optional or has a
    default.

    A map ``key`` holds no NaN and no -0.0: Java's ``Float.equals`` tells -0.0 from 0.0 and NaN
    from nothing, Python's ``==`` the other way round, so such keys would collide on one side only.
    """
    if nullable and (desc.get("optional") or "default" in desc) and src.chance(5):
        return None
    name, kind = desc.get("name"), desc["type"]
    if name == DECIMAL:
        # The unscaled value 0 is drawn without a sign: Java's BigDecimal has no -0.
        return {"decimal": decimal_text(src.integer(-(10**50), 10**50), int(desc["parameters"]["scale"]))}
    if name == DATE:
        return {"date": src.integer(MIN_DAY, MAX_DAY)}
    if name == TIME:
        return {"time": src.integer(0, DAY_MS - 1)}
    if name == TIMESTAMP:
        return {"timestamp": src.integer(MIN_MS, MAX_MS)}
    if kind in INT_RANGES:
        return {kind.lower(): src.integer(*INT_RANGES[kind])}
    if kind == "FLOAT32" and not key and src.chance(16):
        # A double beyond float range, or one rounding to the largest float: Java casts it to float first
        return {"float32": src.pick(BEYOND_FLOAT32)}
    if kind in ("FLOAT32", "FLOAT64"):
        number = src.floating(32 if kind == "FLOAT32" else 64, allow_nan=not key)
        return float_enc(kind.lower(), number + 0.0 if key else number)  # + 0.0: -0.0 becomes 0.0
    if kind == "BOOLEAN":
        return {"boolean": src.chance(2)}
    if kind == "STRING":
        # a "null" key beside a null one: two entries, one JSON key
        return {"string": "null" if key and src.chance(4) else src.text()}
    if kind == "BYTES":
        return {"bytes": base64.b64encode(src.binary()).decode()}
    if kind == "ARRAY":
        return {"array": [value(src, desc["value"], key) for _ in range(src.integer(0, 3))]}
    if kind == "MAP":
        pairs: dict[str, list[Any]] = {}
        for _ in range(src.integer(0, 3)):
            pair = [value(src, desc["key"], True), value(src, desc["value"], key)]
            pairs.setdefault(json.dumps(pair[0], sort_keys=True), pair)
        return {"map": list(pairs.values())}
    return {"struct": {field["name"]: value(src, field["schema"], key) for field in desc["fields"]
                       if not src.chance(8)}}


#: Values of another kind than a schema takes: what the converters must refuse as Java does.
WRONG_VALUES: tuple[Any, ...] = (
    {"boolean": True}, {"string": "x"}, {"bytes": "AA=="}, {"array": []}, {"map": []}, {"decimal": "1.5"},
    {"int32": 7}, {"int64": 7}, {"float64": 0.25}, {"date": 3}, {"timestamp": 5},
    {"struct": {}, "schema": {"type": "STRUCT", "name": "other"}}, None,
)


def wrong_value(src: Source, desc: dict[str, Any]) -> Any:
    """One of :data:`WRONG_VALUES` that ``desc`` refuses in Java. Not an int for an integer schema nor
    a float for a floating one, and no temporal value for a temporal schema: Python has one int, one
    float, and dates that are also datetimes (java_data_harness.DELIBERATE_DIFFERENCES["int and float
    widths"] and ["temporal classes"])."""
    own = desc["name"] if desc.get("name") in (DECIMAL, DATE, TIME, TIMESTAMP) else desc["type"]
    excluded = {"INT8", "INT16", "INT32", "INT64"} if own in INT_RANGES else set()
    excluded |= {"float64"} if own in ("FLOAT32", "FLOAT64") else set()
    excluded |= {"date", "timestamp"} if own in (DATE, TIME, TIMESTAMP) else set()
    kept = [v for v in WRONG_VALUES if v is None or not ({k.upper() for k in v} & excluded or set(v) & excluded)]
    return src.pick(kept)


def schema_and_value(src: Source) -> tuple[dict[str, Any] | None, Any]:
    """A schema and a value for it: mostly valid, sometimes a wrong value at the top or inside an array
    (where Java's ``Struct.put`` does not check it first), sometimes no schema at all."""
    roll = src.integer(0, 19)
    if roll == 0:
        desc = schema(src)
        return desc, wrong_value(src, desc)
    if roll == 1:
        inner = schema(src, depth=1)
        return {"type": "ARRAY", "value": inner}, {"array": [value(src, inner), wrong_value(src, inner)]}
    if roll == 2:
        return None, schemaless_value(src)
    if roll == 3:
        return out_of_range_int(src)
    desc = schema(src)
    return desc, value(src, desc)


def out_of_range_int(src: Source) -> tuple[dict[str, Any], Any]:
    """An int beyond its INT8/16/32 schema's range, alone or inside an array or a map, where no ``Struct.put``
    checks it: Java's value must be the wider boxed class that holds it (DELIBERATE_DIFFERENCES["out of
    range"]), which Java's converters refuse by its class and ours by the range."""
    kind = src.pick(("INT8", "INT16", "INT32"))
    wider = _WIDER[kind]
    low, high = INT_RANGES[kind]
    bad = {wider.lower(): src.pick((high + 1, low - 1, *INT_RANGES[wider]))}
    desc: dict[str, Any] = {"type": kind, "optional": src.chance(2)}
    shape = src.integer(0, 2)
    if shape == 0:
        return desc, bad
    if shape == 1:
        return {"type": "ARRAY", "value": desc}, {"array": [value(src, desc), bad]}
    return ({"type": "MAP", "key": {"type": "STRING"}, "value": desc},
            {"map": [[{"string": "k"}, bad]]})


_WIDER = {"INT8": "INT16", "INT16": "INT32", "INT32": "INT64"}
#: FLOAT32 values as doubles: beyond the float range (infinite as a float), and just below the
#: rounding boundary (the largest float).
BEYOND_FLOAT32 = (1e39, -1e300, 3.5e38, -3.4028235677973366e38, 1.7976931348623157e308)


def schemaless_value(src: Source, depth: int = 0) -> Any:
    """A value without a schema, of the classes both languages have (java_data_harness.DELIBERATE_
    DIFFERENCES["int and float widths"]: a Python int is a Long, a float a Double)."""
    roll = src.integer(0, 7 if depth < 2 else 5)
    if roll == 0:
        return {"int64": src.integer(*INT_RANGES["INT64"])}
    if roll == 1:
        return float_enc("float64", src.floating(64))
    if roll == 2:
        return {"boolean": src.chance(2)}
    if roll == 3:
        return {"string": src.text()}
    if roll == 4:
        return {"bytes": base64.b64encode(src.binary()).decode()}
    if roll == 5:
        return None
    if roll == 6:
        return {"array": [schemaless_value(src, depth + 1) for _ in range(src.integer(0, 3))]}
    keys = dict.fromkeys(src.text() for _ in range(src.integer(0, 3)))
    return {"map": [[{"string": k}, schemaless_value(src, depth + 1)] for k in keys]}


def converter_case(src: Source) -> dict[str, Any]:
    """A ``converter_from_connect`` case (read back by the same converter): JsonConverter mostly, with
    every setting that changes its bytes, StringConverter and ByteArrayConverter now and then; keys
    and values alike."""
    desc, val = schema_and_value(src)
    roll = src.integer(0, 9)
    config: dict[str, str] = {}
    if roll == 0:
        cls = STRING_CONVERTER
    elif roll == 1:
        cls = BYTE_ARRAY_CONVERTER
        if src.chance(2):  # mostly BYTES, which it accepts
            desc = {"type": "BYTES", "optional": src.chance(2)}
            val = value(src, desc)
    else:
        cls = JSON_CONVERTER
        config = {"schemas.enable": src.pick(("true", "false")),
                  "decimal.format": src.pick(("BASE64", "NUMERIC", "numeric")),
                  "replace.null.with.default": src.pick(("true", "false")),
                  "schemas.cache.size": src.pick(("1", "2", "1000"))}
    return {"op": "converter_from_connect", "class": cls, "is_key": src.chance(2), "config": config,
            "schema": desc, "value": val, "read_back": True}


@st.composite
def converter_cases(draw: st.DrawFn) -> dict[str, Any]:
    """:func:`converter_case` as a hypothesis strategy."""
    return converter_case(HypothesisSource(draw))


def random_cases(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` cases from :class:`RandomSource` seeded with ``seed``: the same ones for the same seed."""
    source = RandomSource(seed)
    return [converter_case(source) for _ in range(count)]


def float32(value: float) -> float:
    """``value`` rounded to a 32-bit float, as Java's ``(float)`` cast."""
    return to_float32(value)
