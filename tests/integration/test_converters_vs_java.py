"""Our converters against Kafka Connect's own, case for case: JsonConverter (``schemas.enable`` true and
false, ``decimal.format`` BASE64 and NUMERIC, ``replace.null.with.default`` true and false, as key and
value converter), StringConverter and ByteArrayConverter.

The corpus (tests/converter_corpus.py, which says where hypothesis drives it and where a seeded
generator does, and why) is 10,000 generated cases in one JVM batch, 100,000 under the ``slow``
marker, a hypothesis property test in small batches, and hand-written edge cases. For each case
Java's ``fromConnectData`` bytes must equal ours byte for byte; Java's bytes read back by
``toConnectData`` must give the same (schema, value) on both sides; where both refuse, the error class
and message must match, the message normalised only by :data:`CONVERTER_MESSAGES` (and
java_data_harness.py's ``python_message`` for the data model's own). The known, deliberate
differences are java_data_harness.py's ``DELIBERATE_DIFFERENCES``; float text printed by JDK 17 is
one (:func:`jdk17_float_text`). Each difference is reported with the seed that generated its case
(``CONVERTER_CORPUS_SEED`` sets another).
"""

from __future__ import annotations

import base64
import json
import os
import re
import struct
from collections.abc import Callable, Mapping
from typing import Any

import converter_corpus as corpus
import hypothesis
import java_data_harness as harness
import pytest
from hypothesis import strategies as st

from connect_runtime.api.converter import Converter
from connect_runtime.api.errors import DataException
from connect_runtime.converters import ByteArrayConverter, JsonConverter, StringConverter

pytestmark = pytest.mark.kafka  # needs Kafka's jars and a JDK, as the broker does

GENERATED_CASES = 10_000
SLOW_GENERATED_CASES = 100_000
SEED = int(os.environ.get("CONVERTER_CORPUS_SEED", "24"))
TOPIC = "t"

OUR_CLASSES: Mapping[str, Callable[[], Converter]] = {
    corpus.JSON_CONVERTER: JsonConverter, corpus.STRING_CONVERTER: StringConverter,
    corpus.BYTE_ARRAY_CONVERTER: ByteArrayConverter,
}

CONVERTER_MESSAGES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str], str]] = [
    (re.compile(r"Java class class (\S+) does not have corresponding schema type\."),
     lambda m: f"Python class {_python_qualname(m[1])} does not have corresponding schema type.",
     "A schemaless value of a class with no schema type: Java names its class, ours the Python one."),
    (re.compile(r"(?<!Python )(?<![\w<])class ([\w.$\[]+)"),
     lambda m: repr(_python_class_name(m[1])),
     "``value.getClass()`` in a message (Invalid type for INT32: class java.lang.String; ByteArrayConverter "
     "is not compatible with objects of type class java.lang.Long): ours prints ``type(value)``."),
]
"""Where a converter's message may differ from Java's: (Java's wording, how ours says it, why). The
Java class becomes the Python class our value of the same case has (java_data_harness.JAVA_CLASSES)."""


class _PythonClass:
    """A class name printed as ``type(value)`` prints a class."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"


def _python_class_name(java: str) -> _PythonClass:
    return _PythonClass(harness.JAVA_CLASSES.get(java, java))


def _python_qualname(java: str) -> str:
    name = harness.JAVA_CLASSES.get(java, java)
    return name if "." in name else f"builtins.{name}"


def normalised(java_message: str, temporal: str | None) -> str:
    """Java's converter message as ours words it (:data:`CONVERTER_MESSAGES`; ``temporal`` is the
    Python class a ``java.util.Date`` of the case stands for)."""
    message = harness.python_message(java_message)
    for pattern, replace, _reason in CONVERTER_MESSAGES:
        message = pattern.sub(replace, message)
    if temporal is not None:
        message = message.replace("<class 'java.util.Date'>", f"<class '{temporal}'>")
    return message


def temporal_class(enc: Any) -> str | None:
    """The Python class of the last Date, Time or Timestamp value in a value encoding (where a wrong
    value is, when there is one)."""
    found = None
    if isinstance(enc, dict):
        for tag, name in (("date", "datetime.date"), ("time", "datetime.time"), ("timestamp", "datetime.datetime")):
            if tag in enc:
                return name
        enc = list(enc.values())
    if isinstance(enc, list):
        for item in enc:
            found = temporal_class(item) or found
    return found


class OurConverters:
    """Our converter for a case's class, key flag and config, made once and kept (as the harness keeps
    Java's, schema caches and all)."""

    def __init__(self) -> None:
        self._made: dict[str, Converter] = {}

    def get(self, case: Mapping[str, Any]) -> Converter:
        key = json.dumps([case["class"], case.get("is_key", False), case.get("config", {})], sort_keys=True)
        converter = self._made.get(key)
        if converter is None:
            converter = OUR_CLASSES[case["class"]]()
            converter.configure(case.get("config", {}), case.get("is_key", False))
            self._made[key] = converter
        return converter


def _error(exc: Exception) -> dict[str, Any]:
    return {"error": type(exc).__name__, "message": str(exc)}


def read_answer(converter: Converter, data: bytes | None) -> dict[str, Any]:
    """Our ``toConnectData`` of ``data``, in the harness's answer format."""
    read = converter.to_connect_schema_and_value(TOPIC, data)  # type: ignore[attr-defined]
    return {"schema": None if read.schema is None else harness.describe_schema(read.schema),
            "value": harness.encode_value(read.value, read.schema)}


def ours_from(converters: OurConverters, case: Mapping[str, Any], java: Mapping[str, Any]) -> dict[str, Any]:
    """Our answer to a ``converter_from_connect`` case; with ``read_back``, Java's bytes (when Java
    wrote any) read back by our converter."""
    converter = converters.get(case)
    try:
        schema = None if case.get("schema") is None else harness.schema_from(case["schema"])
        data = converter.from_connect_data(TOPIC, harness.value_from(case["value"], schema), schema=schema)
        answer: dict[str, Any] = {"result": None if data is None else base64.b64encode(data).decode()}
    except DataException as exc:
        return _error(exc)
    if case.get("read_back") and "result" in java:
        java_bytes = None if java["result"] is None else base64.b64decode(java["result"])
        try:
            answer["read"] = read_answer(converter, java_bytes)
        except DataException as exc:
            answer["read_error"], answer["read_message"] = type(exc).__name__, str(exc)
    return answer


_FLOAT_TOKEN = re.compile(r"(-?\d+\.\d+(?:E-?\d+)?)")


def _significant_digits(token: str) -> int:
    return len(token.split("E")[0].lstrip("-").replace(".", "").strip("0"))


def jdk17_float_text(java: str, ours: str, float32_allowed: bool) -> bool:
    """DELIBERATE_DIFFERENCES["floats printed by JDK 17"]: the two texts differ only in float tokens
    where Java's has no fewer significant digits than ours (more, or as many but not the closest to
    the exact value) and both parse to the same double (or, where the case has a FLOAT32, the same
    float)."""
    java_parts, our_parts = _FLOAT_TOKEN.split(java), _FLOAT_TOKEN.split(ours)
    if len(java_parts) != len(our_parts):
        return False
    differs = False
    for index, (j, o) in enumerate(zip(java_parts, our_parts, strict=True)):
        if j == o:
            continue
        if index % 2 == 0 or _significant_digits(j) < _significant_digits(o):
            return False
        if float(j) != float(o) and not (float32_allowed and corpus.float32(float(j)) == corpus.float32(float(o))):
            return False
        differs = True
    return differs


def _has_float32(desc: Any) -> bool:
    return "FLOAT32" in json.dumps(desc)


def normal(enc: Any) -> Any:
    """A value or schema description made comparable: map entries in a canonical order (Java reads maps
    into a HashMap), floats as their bits (NaN equals NaN, -0.0 differs from 0.0; a FLOAT32 as a float)."""
    if isinstance(enc, list):
        return [normal(item) for item in enc]
    if not isinstance(enc, dict):
        return enc
    if "float32" in enc or "float64" in enc:
        tag = "float32" if "float32" in enc else "float64"
        number = float(enc[tag])
        return {tag: struct.pack("<f", corpus.float32(number)) if tag == "float32" else struct.pack("<d", number)}
    result = {key: normal(item) for key, item in enc.items()}
    if "map" in result and isinstance(result["map"], list):
        result["map"] = sorted(result["map"], key=repr)
    return result


def compare_from(java: dict[str, Any], ours: dict[str, Any], case: Mapping[str, Any]) -> str | None:
    """The difference between Java's answer to a ``converter_from_connect`` case and ours, or None."""
    if "error" in java or "error" in ours:
        if "error" in java and "error" in ours:
            expected = {"error": java["error"], "message": normalised(java["message"], temporal_class(case["value"]))}
            if expected == ours:
                return None
        return f"Java {java}\n  ours {ours}"
    if java["result"] != ours["result"]:
        java_text = base64.b64decode(java["result"] or "").decode("utf-8", "replace")
        our_text = base64.b64decode(ours["result"] or "").decode("utf-8", "replace")
        if "[B@" in java_text and case["class"] == corpus.STRING_CONVERTER:
            return None  # DELIBERATE_DIFFERENCES["bytes as text"]
        if not jdk17_float_text(java_text, our_text, _has_float32(case)):
            return f"bytes differ:\n  Java {java_text!r}\n  ours {our_text!r}"
    if "read" in java or "read_error" in java:
        if "read_error" in java:
            expected = {"read_error": java["read_error"],
                        "read_message": normalised(java["read_message"], None)}
            got = {k: ours.get(k) for k in ("read_error", "read_message")}
            if expected != got:
                return f"reading Java's bytes: Java {java}\n  ours {ours}"
        elif "read" not in ours or normal(java["read"]) != normal(ours["read"]):
            return f"reading Java's bytes: Java {java.get('read')}\n  ours {ours.get('read', ours)}"
    return None


def differences(java_data: harness.JavaDataHarness, cases: list[dict[str, Any]], seed: int | None) -> list[str]:
    answers = java_data.run(cases)
    converters = OurConverters()
    found = []
    for case, java in zip(cases, answers, strict=True):
        diff = compare_from(java, ours_from(converters, case, java), case)
        if diff is not None:
            found.append(f"{json.dumps(case)}\n  {diff}")
    origin = "hand-written or hypothesis" if seed is None else f"seed {seed} (CONVERTER_CORPUS_SEED)"
    return [f"[{origin}] {line}" for line in found]


def test_generated_corpus_matches_java(java_data: harness.JavaDataHarness) -> None:
    found = differences(java_data, corpus.random_cases(GENERATED_CASES, SEED), SEED)
    assert not found, f"{len(found)} differences, first ones:\n" + "\n".join(found[:10])


@pytest.mark.slow
def test_larger_generated_corpus_matches_java(java_data: harness.JavaDataHarness) -> None:
    seed = SEED + 1
    found = differences(java_data, corpus.random_cases(SLOW_GENERATED_CASES, seed), seed)
    assert not found, f"{len(found)} differences, first ones:\n" + "\n".join(found[:10])


@hypothesis.seed(SEED)
@hypothesis.settings(max_examples=100, deadline=None, database=None,
                     suppress_health_check=[hypothesis.HealthCheck.too_slow, hypothesis.HealthCheck.data_too_large,
                                            hypothesis.HealthCheck.function_scoped_fixture])
@hypothesis.given(batch=st.lists(corpus.converter_cases(), min_size=1, max_size=10))
def test_hypothesis_cases_match_java(java_data: harness.JavaDataHarness, batch: list[dict[str, Any]]) -> None:
    """The same comparison with hypothesis choosing the cases, a batch per JVM round trip: on a
    difference it shrinks the batch to its smallest failing case and prints how to reproduce it."""
    found = differences(java_data, batch, None)
    assert not found, "\n".join(found)


def test_floats_jdk17_prints_with_more_digits_are_a_known_difference(java_data: harness.JavaDataHarness) -> None:
    """DELIBERATE_DIFFERENCES["floats printed by JDK 17"]: ours prints the shortest repr (JDK 19+)."""
    case = {"op": "converter_from_connect", "class": corpus.JSON_CONVERTER, "config": {"schemas.enable": "false"},
            "schema": {"type": "FLOAT64"}, "value": {"float64": 1e23}}
    [java] = java_data.run([case])
    ours = OurConverters().get(case).from_connect_data(TOPIC, 1e23, schema=harness.schema_from({"type": "FLOAT64"}))
    assert ours == b"1.0E23"
    java_text = base64.b64decode(java["result"]).decode()
    assert java_text in ("1.0E23", "9.999999999999999E22")  # JDK 19+ and JDK 17
    assert java_text == "1.0E23" or jdk17_float_text(java_text, ours.decode(), False)
    assert not jdk17_float_text("1.0E23", "1.1E23", False)


def ours_to(converters: OurConverters, case: Mapping[str, Any]) -> dict[str, Any]:
    """Our answer to a ``converter_to_connect`` case."""
    data = None if case.get("bytes") is None else base64.b64decode(case["bytes"])
    try:
        return read_answer(converters.get(case), data)
    except DataException as exc:
        return _error(exc)


def compare_to(java: dict[str, Any], ours: dict[str, Any]) -> str | None:
    """The difference between Java's answer to a ``converter_to_connect`` case and ours, or None."""
    if "error" in java:
        expected = {"error": java["error"], "message": normalised(java["message"], None)}
        return None if expected == ours else f"Java {java}\n  ours {ours}"
    return None if normal(java) == normal(ours) else f"Java {java}\n  ours {ours}"


def from_case(schema: dict[str, Any] | None, value: Any, cls: str = corpus.JSON_CONVERTER, is_key: bool = False,
              **config: str) -> dict[str, Any]:
    return {"op": "converter_from_connect", "class": cls, "is_key": is_key, "config": config, "schema": schema,
            "value": value, "read_back": True}


def to_case(data: bytes | None, cls: str = corpus.JSON_CONVERTER, **config: str) -> dict[str, Any]:
    return {"op": "converter_to_connect", "class": cls, "config": config,
            "bytes": None if data is None else base64.b64encode(data).decode()}


def with_each_json_config(schema: dict[str, Any] | None, value: Any) -> list[dict[str, Any]]:
    """The case under every JsonConverter setting that changes bytes or reading, as key and value."""
    return [from_case(schema, value, is_key=is_key, **{"schemas.enable": enable, "decimal.format": decimal_format,
                                                       "replace.null.with.default": replace})
            for enable in ("true", "false") for decimal_format in ("BASE64", "NUMERIC")
            for replace in ("true", "false") for is_key in (False, True)]


def _decimal(scale: int, **extra: Any) -> dict[str, Any]:
    return {"type": "BYTES", "name": corpus.DECIMAL, "version": 1, "parameters": {"scale": str(scale)}, **extra}


def _nested(depth: int) -> tuple[dict[str, Any], Any]:
    schema: dict[str, Any] = {"type": "INT8"}
    value: Any = {"int8": -128}
    for level in range(depth):
        schema = {"type": "STRUCT", "name": f"level{level}", "fields": [
            {"name": "inner", "schema": schema}, {"name": "n", "schema": {"type": "INT32", "optional": True}}]}
        value = {"struct": {"inner": value}}
    return schema, value


_OPTIONALS = {"type": "STRUCT", "fields": [
    {"name": "o", "schema": {"type": "STRING", "optional": True}},
    {"name": "d", "schema": {"type": "INT64", "default": {"int64": 42}}},
    {"name": "od", "schema": {"type": "BOOLEAN", "optional": True, "default": {"boolean": True}}}]}
_TEXT = "\x00\x1f\x7f\"\\/\b\t\n\f\r\u2028\u00e9\u20ac\ufeff\U0001f600\U0010ffff"
_DEEP_SCHEMA, _DEEP_VALUE = _nested(12)

EDGE_CASES: list[dict[str, Any]] = [
    # nulls in optional fields, defaults, replace.null.with.default
    *with_each_json_config(_OPTIONALS, {"struct": {}}),
    *with_each_json_config(_OPTIONALS, {"struct": {"o": {"string": "x"}, "od": {"boolean": False}}}),
    *with_each_json_config({"type": "INT32", "default": {"int32": 5}}, None),
    *with_each_json_config({"type": "INT32", "optional": True, "default": {"int32": 5}}, None),
    *with_each_json_config({"type": "STRING", "optional": True}, None),
    *with_each_json_config({"type": "ARRAY", "value": {"type": "INT32", "optional": True, "default": {"int32": 1}},
                            "default": {"array": [None, {"int32": 2}]}}, {"array": [None]}),
    # decimals: large scale, negative scale, zero, trailing zeros
    *with_each_json_config(_decimal(40), {"decimal": "-1." + "0" * 39 + "1"}),
    *with_each_json_config(_decimal(-5), {"decimal": "1.2345E+9"}),
    *with_each_json_config(_decimal(-3), {"decimal": "0E+3"}),
    *with_each_json_config(_decimal(4), {"decimal": "12.3400"}),
    *with_each_json_config(_decimal(0, default={"decimal": str(2**80)}), {"decimal": str(-(2**80))}),
    *with_each_json_config(_decimal(2), {"decimal": "1.5"}),  # the scale does not match: refused
    # dates before 1970, the limits of Date, Time and Timestamp
    *[from_case({"type": "INT32", "name": corpus.DATE}, {"date": days})
      for days in (-1, -719_162, -141_428, 2_932_896)],
    *[from_case({"type": "INT32", "name": corpus.TIME}, {"time": ms}) for ms in (0, 86_399_999)],
    *[from_case({"type": "INT64", "name": corpus.TIMESTAMP}, {"timestamp": ms})
      for ms in (-1, -62_135_596_800_000, 253_402_300_799_999)],
    # maps: non-string keys, a null key, empty
    *with_each_json_config({"type": "MAP", "key": {"type": "INT32"}, "value": {"type": "STRING"}},
                           {"map": [[{"int32": -(2**31)}, {"string": "a"}], [{"int32": 0}, {"string": "b"}]]}),
    *with_each_json_config({"type": "MAP", "key": {"type": "BOOLEAN"}, "value": {"type": "FLOAT64"}},
                           {"map": [[{"boolean": True}, {"float64": "NaN"}]]}),
    *with_each_json_config({"type": "MAP", "key": _decimal(2), "value": {"type": "INT8"}},
                           {"map": [[{"decimal": "-0.01"}, {"int8": 127}]]}),
    *with_each_json_config({"type": "MAP", "key": {"type": "STRUCT", "fields": [
        {"name": "k", "schema": {"type": "INT64", "name": corpus.TIMESTAMP}}]}, "value": {"type": "BYTES"}},
        {"map": [[{"struct": {"k": {"timestamp": -86_400_001}}}, {"bytes": ""}]]}),
    *with_each_json_config({"type": "MAP", "key": {"type": "STRING", "optional": True}, "value": {"type": "INT16"}},
                           {"map": [[None, {"int16": 1}], [{"string": _TEXT}, {"int16": -1}]]}),
    *with_each_json_config({"type": "MAP", "key": {"type": "INT8"}, "value": {"type": "INT8"}}, {"map": []}),
    # unicode everywhere: values, field names, schema names, docs, parameters, map keys
    *with_each_json_config({"type": "STRUCT", "name": _TEXT, "doc": _TEXT, "parameters": {_TEXT: _TEXT},
                            "fields": [{"name": _TEXT, "schema": {"type": "STRING"}}]},
                           {"struct": {_TEXT: {"string": _TEXT}}}),
    # deeply nested structs, empty arrays, maps and structs
    *with_each_json_config(_DEEP_SCHEMA, _DEEP_VALUE),
    *with_each_json_config({"type": "STRUCT", "fields": []}, {"struct": {}}),
    *with_each_json_config({"type": "ARRAY", "value": {"type": "ARRAY", "value": {"type": "STRING"}}},
                           {"array": [{"array": []}]}),
    # floats: NaN, infinities, -0.0, extremes, values JDK 17 prints with more digits
    *[case for x in ("NaN", "Infinity", "-Infinity", -0.0, 5e-324, 1.7976931348623157e308, 1e23, 2e-3, 1e7)
      for case in with_each_json_config({"type": "FLOAT64"}, {"float64": x})],
    *[case for x in ("NaN", "-Infinity", -0.0, 1.401298464324817e-45, 3.4028234663852886e38, 1.100000023841858)
      for case in with_each_json_config({"type": "FLOAT32"}, {"float32": x})],
    # FLOAT32 values as doubles beyond float range: Java casts them to float, and writes "Infinity"
    *[case for x in (1e39, -1e300, 3.5e38, -3.4028235677973366e38)
      for case in with_each_json_config({"type": "FLOAT32"}, {"float32": x})],
    *with_each_json_config({"type": "ARRAY", "value": {"type": "FLOAT32"}},
                           {"array": [{"float32": 3.5e38}, {"float32": -1e300}]}),
    *with_each_json_config({"type": "FLOAT32", "default": {"float32": 1e39}}, None),
    # a null key and a "null" key: one JSON key, first position, last value
    *with_each_json_config({"type": "MAP", "key": {"type": "STRING", "optional": True}, "value": {"type": "INT32"}},
                           {"map": [[None, {"int32": 1}], [{"string": "a"}, {"int32": 3}],
                                    [{"string": "null"}, {"int32": 2}]]}),
    # ints beyond their schema's range outside a Struct (Java's value is the wider class holding it)
    *with_each_json_config({"type": "INT8"}, {"int16": 300}),
    *with_each_json_config({"type": "ARRAY", "value": {"type": "INT32"}}, {"array": [{"int64": 2**40}]}),
    *with_each_json_config({"type": "MAP", "key": {"type": "INT16"}, "value": {"type": "STRING"}},
                           {"map": [[{"int32": -(2**15) - 1}, {"string": "x"}]]}),
    # integer limits, bytes
    *[from_case({"type": kind}, {kind.lower(): n}) for kind, n in (
        ("INT8", -128), ("INT8", 127), ("INT16", -(2**15)), ("INT32", 2**31 - 1), ("INT64", -(2**63)),
        ("INT64", 2**63 - 1))],
    *with_each_json_config({"type": "BYTES"}, {"bytes": base64.b64encode(bytes(range(256))).decode()}),
    *with_each_json_config({"type": "BYTES"}, {"bytes": ""}),
    # refusals
    from_case({"type": "INT32"}, None),
    from_case({"type": "INT32"}, {"string": "1"}),
    from_case({"type": "STRUCT", "name": "s", "fields": []}, {"struct": {}, "schema": {"type": "STRUCT", "name": "t"}}),
    from_case({"type": "ARRAY", "value": {"type": "BOOLEAN"}}, {"array": [{"boolean": True}, {"bytes": "AA=="}]}),
    from_case({"type": "INT64", "name": corpus.TIMESTAMP}, {"decimal": "1"}),
    from_case(None, {"decimal": "1.5"}),
    from_case(None, {"struct": {}, "schema": {"type": "STRUCT", "fields": []}}),
    # schemaless values
    *with_each_json_config(None, {"map": [[{"string": "a"}, {"array": [{"int64": 1}, {"float64": 0.5}, None]}]]}),
    *with_each_json_config(None, {"map": [[{"int64": 1}, {"string": "non-string key"}]]}),
    *with_each_json_config(None, {"string": _TEXT}),
    # StringConverter and ByteArrayConverter with schemas
    from_case(_OPTIONALS, {"struct": {"o": {"string": "x"}}}, corpus.STRING_CONVERTER),
    from_case({"type": "ARRAY", "value": _decimal(-2)}, {"array": [{"decimal": "1.2E+3"}, None]},
              corpus.STRING_CONVERTER),
    from_case({"type": "MAP", "key": {"type": "INT32", "name": corpus.DATE}, "value": {"type": "FLOAT32"}},
              {"map": [[{"date": -141_428}, {"float32": 0.10000000149011612}]]}, corpus.STRING_CONVERTER),
    from_case({"type": "STRING"}, {"string": _TEXT}, corpus.STRING_CONVERTER, **{"converter.encoding": "UTF-16"}),
    from_case({"type": "STRING"}, {"string": "\u00e9\u20ac"}, corpus.STRING_CONVERTER,
              **{"converter.encoding": "ISO-8859-1"}),
    from_case(None, None, corpus.STRING_CONVERTER),
    from_case({"type": "BYTES"}, {"bytes": "AAEC"}, corpus.BYTE_ARRAY_CONVERTER),
    from_case({"type": "BYTES", "optional": True}, None, corpus.BYTE_ARRAY_CONVERTER),
    from_case({"type": "STRING"}, {"string": "x"}, corpus.BYTE_ARRAY_CONVERTER),
    from_case(_decimal(2), {"decimal": "1.00"}, corpus.BYTE_ARRAY_CONVERTER),
    from_case(None, {"int64": 1}, corpus.BYTE_ARRAY_CONVERTER),
    from_case(None, {"bytes": "AAEC"}, corpus.BYTE_ARRAY_CONVERTER, is_key=True),
    # reading what Java or a hand wrote
    to_case(None), to_case(b""), to_case(b"   "), to_case(b"{"), to_case(b"[1,2]"), to_case(b'{"schema":null}'),
    to_case(b'{"schema":null,"payload":1,"extra":2}'), to_case(b'{"schema":{},"payload":1}'),
    to_case(b'{"schema":{"type":"nope"},"payload":1}'), to_case(b'{"schema":{"type":"array"},"payload":[]}'),
    to_case(b'{"schema":{"type":"map","keys":{"type":"int8"}},"payload":[]}'),
    to_case(b'{"schema":{"type":"struct","fields":{}},"payload":{}}'),
    to_case(b'{"schema":{"type":"struct","fields":[{"type":"int8"}]},"payload":{}}'),
    to_case(b'{"schema":{"type":"int8","parameters":{"a":1}},"payload":1}'),
    to_case(b'{"schema":{"type":"int8","version":1.5,"name":7,"doc":false,"optional":"yes"},"payload":1}'),
    to_case(b'{"schema":{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}},"payload":{"1":2}}'),
    to_case(b'{"schema":{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}},"payload":[[1,2,3]]}'),
    to_case(b'{"schema":{"type":"map","keys":{"type":"int8"},"values":{"type":"int8"}},"payload":[1]}'),
    to_case(b'{"schema":{"type":"map","keys":{"type":"string"},"values":{"type":"int8"}},"payload":[]}'),
    to_case(b'{"schema":{"type":"struct","fields":[]},"payload":[]}'),
    to_case(b'{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Date"},"payload":1.5}'),
    to_case(b'{"schema":{"type":"int32","name":"org.apache.kafka.connect.data.Time"},"payload":86400001}'),
    to_case(b'{"schema":{"type":"int64","name":"org.apache.kafka.connect.data.Timestamp"},"payload":"1"}'),
    to_case(b'{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},'
            b'"payload":12.345}'),
    to_case(b'{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},'
            b'"payload":true}'),
    to_case(b'{"schema":{"type":"bytes"},"payload":"not base64!"}'),
    to_case(b'{"schema":{"type":"int8"},"payload":300}'), to_case(b'{"schema":{"type":"int32"},"payload":"7"}'),
    to_case(b'{"schema":{"type":"int64"},"payload":1.9e3}'), to_case(b'{"schema":{"type":"float"},"payload":1e39}'),
    to_case(b'{"schema":{"type":"boolean"},"payload":1}'), to_case(b'{"schema":{"type":"string"},"payload":1}'),
    to_case(b'{"schema":{"type":"array","items":{"type":"int8"}},"payload":{"a":1}}'),
    to_case(b'{"schema":{"type":"double"},"payload":123456789012345678901234567890.123456789}'),
    to_case(b'{"a":[1,-0.0,1e400,18446744073709551617]}', **{"schemas.enable": "false"}),
    to_case(b"\xff", **{"schemas.enable": "false"}),
    to_case("\u00e9".encode("latin-1"), corpus.STRING_CONVERTER), to_case(b"\xff\xfe", corpus.BYTE_ARRAY_CONVERTER),
]


def test_edge_cases_match_java(java_data: harness.JavaDataHarness) -> None:
    answers = java_data.run(EDGE_CASES)
    converters = OurConverters()
    found = []
    for case, java in zip(EDGE_CASES, answers, strict=True):
        if case["op"] == "converter_to_connect":
            diff = compare_to(java, ours_to(converters, case))
        else:
            diff = compare_from(java, ours_from(converters, case, java), case)
        if diff is not None:
            found.append(f"{json.dumps(case)}\n  {diff}")
    assert not found, f"{len(found)} differences:\n" + "\n".join(found)
