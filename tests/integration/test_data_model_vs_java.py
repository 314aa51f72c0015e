"""Our data model (connect_runtime.api.data) against Kafka Connect's own classes, case for case.

A corpus generated with a fixed seed (every schema type, optional or required, defaults, names,
parameters, nested structs, arrays and maps, valid values and values with one fault) plus hand-written
edge cases goes through ``ConnectSchema.validateValue`` in one JVM (the ``java_data`` fixture) and
through our ``validate_value``: both must accept, or both refuse with the same message, normalised only
by java_data_harness.py's table. Decimal bytes and the Date/Time/Timestamp conversions must be
identical too. The known, deliberate differences are java_data_harness.py's ``DELIBERATE_DIFFERENCES``.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import random
from collections.abc import Callable
from typing import Any

import pytest
from java_data_harness import (
    DELIBERATE_DIFFERENCES,
    EPOCH,
    JavaDataHarness,
    python_message,
    schema_from,
    value_from,
)

from connect_runtime.api.data import Date, Decimal, Time, Timestamp, validate_value
from connect_runtime.api.errors import DataException

pytestmark = pytest.mark.kafka  # needs Kafka's jars and a JDK, as the broker does

GENERATED_CASES = 10_000
DAY_MS = 86_400_000
DECIMAL = "org.apache.kafka.connect.data.Decimal"
DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"
TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"

INT_RANGES = {"INT8": (-(2**7), 2**7 - 1), "INT16": (-(2**15), 2**15 - 1),
              "INT32": (-(2**31), 2**31 - 1), "INT64": (-(2**63), 2**63 - 1)}
PRIMITIVES = ["INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES"]
LOGICAL = {"Decimal": DECIMAL, "Date": DATE, "Time": TIME, "Timestamp": TIMESTAMP}
TEXT = "aZ09 _-é€😀\u0000\"\\"


class Corpus:
    """Random schema descriptions and value encodings (java_data_harness.py's format) from one seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def text(self, most: int = 8) -> str:
        return "".join(self.rng.choice(TEXT) for _ in range(self.rng.randint(0, most)))

    def schema(self, depth: int = 0, key: bool = False) -> dict[str, Any]:
        """A schema description; a map ``key`` is never a list or a mapping, which Python cannot hash."""
        rng = self.rng
        nested = ["STRUCT"] if key else ["ARRAY", "MAP", "STRUCT"]
        kinds = PRIMITIVES + list(LOGICAL) + (nested if depth < 3 else [])
        kind = rng.choice(kinds)
        desc: dict[str, Any]
        if kind == "Decimal":
            desc = {"type": "BYTES", "name": DECIMAL, "version": 1,
                    "parameters": {"scale": str(rng.randint(-3, 30))}}
        elif kind in ("Date", "Time"):
            desc = {"type": "INT32", "name": LOGICAL[kind], "version": 1}
        elif kind == "Timestamp":
            desc = {"type": "INT64", "name": TIMESTAMP, "version": 1}
        elif kind == "ARRAY":
            desc = {"type": "ARRAY", "value": self.schema(depth + 1)}
        elif kind == "MAP":
            desc = {"type": "MAP", "key": self.schema(depth + 2, key=True), "value": self.schema(depth + 1)}
        elif kind == "STRUCT":
            names = rng.sample(["a", "b", "c", "é", "field_1", "Z"], rng.randint(0, 4))
            desc = {"type": "STRUCT", "fields": [{"name": n, "schema": self.schema(depth + 1, key)} for n in names]}
        else:
            desc = {"type": kind}
        if rng.random() < 0.4:
            desc["optional"] = True
        if "name" not in desc and rng.random() < 0.2:
            desc["name"] = "com.example." + self.text(5)
            if rng.random() < 0.5:
                desc["version"] = rng.randint(0, 5)
        if rng.random() < 0.1:
            desc["doc"] = self.text()
        if "parameters" not in desc and rng.random() < 0.1:
            desc["parameters"] = {self.text(3): self.text(3)}
        if rng.random() < 0.15 and kind != "STRUCT":
            desc["default"] = self.valid(desc)
        elif rng.random() < 0.02:
            desc["default"] = self.wrong(desc, key)[0]
        return desc

    def valid(self, desc: dict[str, Any]) -> Any:
        """A value ``desc`` accepts (a struct without its ``schema``: the context gives it)."""
        rng = self.rng
        if desc.get("optional") and rng.random() < 0.1:
            return None
        name, kind = desc.get("name"), desc["type"]
        if name == DECIMAL:
            scale = int(desc["parameters"]["scale"])
            unscaled = rng.choice([0, 1, -1, rng.randint(-(10**40), 10**40), rng.randint(-999, 999)])
            return {"decimal": str(decimal.Decimal((unscaled < 0, tuple(map(int, str(abs(unscaled)))), -scale)))}
        if name == DATE:
            return {"date": rng.randint(-719_162, 2_932_896)}
        if name == TIME:
            return {"time": rng.randint(0, DAY_MS - 1)}
        if name == TIMESTAMP:
            return {"timestamp": rng.randint(-62_135_596_800_000, 253_402_300_799_999)}
        if kind in INT_RANGES:
            low, high = INT_RANGES[kind]
            return {kind.lower(): rng.choice([low, high, 0, rng.randint(low, high)])}
        if kind in ("FLOAT32", "FLOAT64"):
            return {kind.lower(): rng.choice([0.0, -1.5, rng.uniform(-1e6, 1e6)])}
        if kind == "BOOLEAN":
            return {"boolean": rng.random() < 0.5}
        if kind == "STRING":
            return {"string": self.text()}
        if kind == "BYTES":
            return {"bytes": base64.b64encode(rng.randbytes(rng.randint(0, 6))).decode()}
        if kind == "ARRAY":
            return {"array": [self.valid(desc["value"]) for _ in range(rng.randint(0, 3))]}
        if kind == "MAP":
            return {"map": [[self.valid(desc["key"]), self.valid(desc["value"])] for _ in range(rng.randint(0, 3))]}
        return {"struct": {f["name"]: self.valid(f["schema"]) for f in desc["fields"]
                           if rng.random() < 0.9 or not f["schema"].get("optional")}}

    def wrong(self, desc: dict[str, Any], in_key: bool) -> tuple[Any, str]:
        """A value of another kind than ``desc`` takes (hashable if ``in_key``), and how the comparison
        must treat it."""
        rng = self.rng
        choices: list[tuple[Any, str]] = [
            ({"boolean": True}, "BOOLEAN"), ({"string": "x"}, "STRING"), ({"bytes": "AA=="}, "BYTES"),
            ({"array": []}, "ARRAY"), ({"map": []}, "MAP"), ({"decimal": "1.5"}, DECIMAL),
            ({"struct": {}, "schema": {"type": "STRUCT", "name": "other"}}, "another struct"), (None, "null"),
            ({"int32": 7}, "INT32"), ({"float64": 0.25}, "FLOAT64"), ({"date": 3}, DATE),
        ]
        own = desc.get("name") if desc.get("name") in LOGICAL.values() else desc["type"]
        ints, floats, temporal = set(INT_RANGES), {"FLOAT32", "FLOAT64"}, {DATE, TIME, TIMESTAMP}
        kept = [(value, kind) for value, kind in choices if kind != own
                and not (in_key and kind in ("ARRAY", "MAP"))
                and not (kind in ints and own in ints) and not (kind in floats and own in floats)
                and not (kind in temporal and own in temporal)]
        if own in ("INT8", "INT16", "INT32") and rng.random() < 0.3:
            low, high = INT_RANGES[own]
            return {"int64": rng.choice([low - 1, high + 1, high * 4])}, "out of range"
        value = rng.choice(kept)[0]
        # The corpus's one temporal fault is a date, whatever other temporal values the case holds.
        return value, "compare date" if value is not None and "date" in value else "compare"

    def validate_case(self) -> tuple[dict[str, Any], str]:
        desc = self.schema()
        fault = self.rng.random()
        if fault < 0.5:
            return {"op": "validate", "schema": desc, "value": self.valid(desc)}, "compare"
        if fault < 0.6:
            return {"op": "validate", "schema": desc, "value": None}, "compare"
        target = self.pick_nested(desc)
        value, how = self.wrong(target, self.in_key(desc, target, False))
        return {"op": "validate", "schema": desc, "value": self.with_fault(desc, target, value)}, how

    def pick_nested(self, desc: dict[str, Any]) -> dict[str, Any]:
        """``desc`` or a schema nested in it, the place one fault goes."""
        inner = [f["schema"] for f in desc.get("fields", ())] + [desc[k] for k in ("key", "value") if k in desc]
        if inner and self.rng.random() < 0.6:
            return self.pick_nested(self.rng.choice(inner))
        return desc

    def with_fault(self, desc: dict[str, Any], target: dict[str, Any], fault: Any) -> Any:
        """A valid value of ``desc`` except the one of ``target`` (the schema object itself)."""
        if desc is target:
            return fault
        kind = desc["type"]
        if kind == "STRUCT":
            return {"struct": {f["name"]: self.with_fault(f["schema"], target, fault)
                               if self.contains(f["schema"], target) else self.valid(f["schema"])
                               for f in desc["fields"]}}
        if kind == "ARRAY":
            return {"array": [self.with_fault(desc["value"], target, fault)]}
        key, value = desc["key"], desc["value"]
        return {"map": [[self.with_fault(key, target, fault) if self.contains(key, target) else self.valid(key),
                         self.with_fault(value, target, fault) if self.contains(value, target) else self.valid(value)]]}

    def in_key(self, desc: dict[str, Any], target: dict[str, Any], inside: bool) -> bool:
        """Whether ``target`` is a map's key schema or nested in one."""
        if desc is target:
            return inside
        inner = [(f["schema"], inside) for f in desc.get("fields", ())]
        inner += [(desc[k], inside or k == "key") for k in ("key", "value") if k in desc]
        return any(self.in_key(s, target, flag) for s, flag in inner if self.contains(s, target))

    def contains(self, desc: dict[str, Any], target: dict[str, Any]) -> bool:
        if desc is target:
            return True
        inner = [f["schema"] for f in desc.get("fields", ())] + [desc[k] for k in ("key", "value") if k in desc]
        return any(self.contains(s, target) for s in inner)


def python_validate(case: dict[str, Any]) -> dict[str, Any]:
    """Our answer to a ``validate`` case, in the harness's answer format."""
    try:
        schema = schema_from(case["schema"])
        validate_value(schema, value_from(case["value"], schema))
    except DataException as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {"ok": True}


def bytes_in_collection(enc: Any, inside: bool = False) -> bool:
    """Whether ``enc`` has bytes inside an array or map value: DELIBERATE_DIFFERENCES["bytes in a
    collection default"]."""
    if isinstance(enc, dict):
        if inside and "bytes" in enc:
            return True
        return any(bytes_in_collection(v, inside or k in ("array", "map")) for k, v in enc.items())
    if isinstance(enc, list):
        return any(bytes_in_collection(v, inside) for v in enc)
    return False


def python_schema_equals(case: dict[str, Any]) -> dict[str, Any]:
    """Our answer to a ``schema_equals`` case."""
    try:
        return {"result": schema_from(case["schema"]) == schema_from(case["other"])}
    except DataException as e:
        return {"error": type(e).__name__, "message": str(e)}


def offending_class(case: dict[str, Any]) -> type | None:
    """The Python class of the first temporal value in ``case`` (what a ``java.util.Date`` stands for;
    an edge case holds at most one)."""
    def find(enc: Any) -> type | None:
        if isinstance(enc, dict):
            for tag, python_class in (("date", datetime.date), ("time", datetime.time),
                                      ("timestamp", datetime.datetime)):
                if tag in enc:
                    return python_class
            for v in enc.values():
                found = find(v)
                if found:
                    return found
        if isinstance(enc, list):
            for v in enc:
                found = find(v)
                if found:
                    return found
        return None
    return find(case.get("value"))


def compare(java: dict[str, Any], ours: dict[str, Any], case: dict[str, Any], how: str) -> str | None:
    """A description of the difference between Java's answer and ours, or None."""
    if how in DELIBERATE_DIFFERENCES:
        return None if "error" in java and "error" in ours else f"verdicts differ: {java} {ours}"
    expected = dict(java)
    if "message" in expected:
        temporal = datetime.date if how == "compare date" else offending_class(case)
        expected["message"] = python_message(expected["message"], temporal)
    return None if expected == ours else f"Java {java}\n  ours {ours}"


def differences(java_data: JavaDataHarness, cases: list[tuple[dict[str, Any], str]],
                ours: Callable[[dict[str, Any]], dict[str, Any]]) -> list[str]:
    answers = java_data.run([case for case, _ in cases])
    found = []
    for (case, how), java in zip(cases, answers, strict=True):
        diff = compare(java, ours(case), case, how)
        if diff is not None:
            found.append(f"{case}\n  {diff}")
    return found


def test_generated_validate_corpus_matches_java(java_data: JavaDataHarness) -> None:
    corpus = Corpus(seed=24)
    cases = [corpus.validate_case() for _ in range(GENERATED_CASES)]
    found = differences(java_data, cases, python_validate)
    assert not found, f"{len(found)} differences, first ones:\n" + "\n".join(found[:10])


EDGE_CASES: list[tuple[dict[str, Any], str]] = [
    ({"op": "validate", "schema": {"type": "INT8"}, "value": {"int64": 128}}, "out of range"),
    ({"op": "validate", "schema": {"type": "INT16"}, "value": {"int64": -32769}}, "out of range"),
    ({"op": "validate", "schema": {"type": "INT32"}, "value": {"int64": 2**31}}, "out of range"),
    ({"op": "validate", "schema": {"type": "INT64"}, "value": {"int64": -(2**63)}}, "compare"),
    ({"op": "validate", "schema": {"type": "INT8"}, "value": {"string": "1"}}, "compare"),
    ({"op": "validate", "schema": {"type": "FLOAT64"}, "value": {"int32": 1}}, "compare"),
    ({"op": "validate", "schema": {"type": "INT32"}, "value": {"float64": 1.0}}, "compare"),
    ({"op": "validate", "schema": {"type": "INT32"}, "value": {"boolean": True}}, "compare"),
    ({"op": "validate", "schema": {"type": "BOOLEAN"}, "value": {"int8": 1}}, "compare"),
    ({"op": "validate", "schema": {"type": "STRING"}, "value": None}, "compare"),
    ({"op": "validate", "schema": {"type": "STRING", "optional": True}, "value": None}, "compare"),
    ({"op": "validate", "schema": {"type": "STRING", "name": "n", "default": {"string": "d"}}, "value": None},
     "compare"),
    ({"op": "validate", "schema": {"type": "STRING", "default": {"int32": 1}}, "value": {"string": "x"}},
     "compare"),
    ({"op": "validate", "schema": {"type": "STRUCT", "fields": [
        {"name": "a", "schema": {"type": "INT32"}},
        {"name": "b", "schema": {"type": "STRING", "default": {"string": "d"}}}]},
      "value": {"struct": {"b": {"string": "x"}}}}, "compare"),
    ({"op": "validate", "schema": {"type": "STRUCT", "fields": [
        {"name": "a", "schema": {"type": "INT32", "default": {"int32": 5}}}]},
      "value": {"struct": {}}}, "compare"),
    ({"op": "validate", "schema": {"type": "STRUCT", "fields": [{"name": "a", "schema": {"type": "INT32"}}]},
      "value": {"struct": {"nope": {"int32": 1}}}}, "compare"),
    ({"op": "validate", "schema": {"type": "STRUCT", "name": "s", "fields": []},
      "value": {"struct": {}, "schema": {"type": "STRUCT", "name": "t", "fields": []}}}, "compare"),
    ({"op": "validate", "schema": {"type": "MAP", "key": {"type": "INT32"}, "value": {"type": "STRING"}},
      "value": {"map": [[{"int32": 1}, {"string": "a"}], [None, {"string": "b"}]]}}, "compare"),
    ({"op": "validate", "schema": {"type": "MAP", "key": {"type": "STRING"}, "value": {"type": "STRING"}},
      "value": {"map": [[{"string": "k"}, {"int32": 2}]]}}, "compare"),
    ({"op": "validate", "schema": {"type": "ARRAY", "value": {"type": "ARRAY", "value": {"type": "INT8"}}},
      "value": {"array": [{"array": [{"int8": 1}, {"string": "x"}]}]}}, "compare"),
    ({"op": "validate", "schema": {"type": "BYTES", "name": DECIMAL, "parameters": {"scale": "40"}},
      "value": {"decimal": "-1." + "0" * 39 + "1"}}, "compare"),
    ({"op": "validate", "schema": {"type": "BYTES", "name": DECIMAL, "parameters": {"scale": "2"}},
      "value": {"bytes": "AA=="}}, "compare"),
    ({"op": "validate", "schema": {"type": "INT32", "name": DATE}, "value": {"date": -719_162}}, "compare"),
    ({"op": "validate", "schema": {"type": "INT32", "name": DATE}, "value": {"int32": 5}}, "compare"),
    ({"op": "validate", "schema": {"type": "INT64", "name": TIMESTAMP}, "value": {"timestamp": -1}}, "compare"),
    ({"op": "validate", "schema": {"type": "STRING"}, "value": {"timestamp": 0}}, "compare"),
]


def test_edge_cases_match_java(java_data: JavaDataHarness) -> None:
    found = differences(java_data, EDGE_CASES, python_validate)
    assert not found, "\n".join(found)


def python_conversion(case: dict[str, Any]) -> dict[str, Any]:
    """Our answer to a logical-type conversion case."""
    op, value = case["op"], case.get("value")
    try:
        if op == "decimal_from_logical":
            raw = Decimal.from_logical(Decimal.schema(case["scale"]), decimal.Decimal(value))
            return {"result": base64.b64encode(raw).decode()}
        if op == "decimal_to_logical":
            result = Decimal.to_logical(Decimal.schema(case["scale"]), base64.b64decode(case["bytes"]))
            return {"result": result}
        if op == "date_from_logical":
            instant = EPOCH + datetime.timedelta(milliseconds=value)
            return {"result": Date.from_logical(Date.SCHEMA, instant.date() if value % DAY_MS == 0 else instant)}
        if op == "date_to_logical":
            day = Date.to_logical(Date.SCHEMA, value)
            return {"result": (day - EPOCH.date()).days * DAY_MS}
        if op == "time_from_logical":
            return {"result": Time.from_logical(Time.SCHEMA, (EPOCH + datetime.timedelta(milliseconds=value)).timetz())}
        if op == "time_to_logical":
            moment = datetime.datetime.combine(EPOCH.date(), Time.to_logical(Time.SCHEMA, value))
            return {"result": (moment - EPOCH) // datetime.timedelta(milliseconds=1)}
        if op == "timestamp_from_logical":
            return {"result": Timestamp.from_logical(Timestamp.SCHEMA, EPOCH + datetime.timedelta(milliseconds=value))}
        if op == "timestamp_to_logical":
            instant = Timestamp.to_logical(Timestamp.SCHEMA, value)
            return {"result": (instant - EPOCH) // datetime.timedelta(milliseconds=1)}
    except DataException as e:
        return {"error": type(e).__name__, "message": str(e)}
    raise ValueError(op)


def conversion_cases(seed: int, count: int) -> list[tuple[dict[str, Any], str]]:
    rng = random.Random(seed)
    cases: list[tuple[dict[str, Any], str]] = []
    for _ in range(count):
        scale = rng.randint(-5, 40)
        unscaled = rng.choice([0, -1, 1, 127, 128, -128, -129, rng.randint(-(10**45), 10**45)])
        text = str(decimal.Decimal((unscaled < 0, tuple(map(int, str(abs(unscaled)))), -scale)))
        cases.append(({"op": "decimal_from_logical", "scale": scale, "value": text}, "compare"))
        cases.append(({"op": "decimal_from_logical", "scale": scale + 1, "value": text}, "compare"))
        raw = base64.b64encode(rng.randbytes(rng.randint(1, 24))).decode()
        cases.append(({"op": "decimal_to_logical", "scale": scale, "bytes": raw}, "compare"))
        days = rng.randint(-719_162, 2_932_896)
        cases.append(({"op": "date_to_logical", "value": days}, "compare"))
        cases.append(({"op": "date_from_logical", "value": days * DAY_MS + rng.choice([0, 0, 1, DAY_MS - 1])},
                      "compare"))
        millis = rng.randint(0, DAY_MS - 1)
        cases.append(({"op": "time_to_logical", "value": rng.choice([millis, -1, -millis, DAY_MS + 1])}, "compare"))
        cases.append(({"op": "time_from_logical", "value": millis}, "compare"))
        instant = rng.randint(-62_135_596_800_000, 253_402_300_799_999)
        cases.append(({"op": "timestamp_to_logical", "value": instant}, "compare"))
        cases.append(({"op": "timestamp_from_logical", "value": instant}, "compare"))
    return cases


def compare_conversion(java: dict[str, Any], ours: dict[str, Any], case: dict[str, Any]) -> str | None:
    if case["op"] == "decimal_to_logical" and "result" in java and "result" in ours:
        # Java prints the plain string, which drops a negative scale; the value and our scale must match.
        ours_value = ours["result"]
        same = decimal.Decimal(java["result"]) == ours_value and ours_value.as_tuple().exponent == -case["scale"]
        return None if same else f"Java {java}\n  ours {ours}"
    return None if java == ours else f"Java {java}\n  ours {ours}"


def test_logical_conversions_match_java(java_data: JavaDataHarness) -> None:
    cases = conversion_cases(seed=618, count=400)
    answers = java_data.run([case for case, _ in cases])
    found = [f"{case}\n  {diff}" for (case, _), java in zip(cases, answers, strict=True)
             if (diff := compare_conversion(java, python_conversion(case), case)) is not None]
    assert not found, f"{len(found)} differences, first ones:\n" + "\n".join(found[:10])


def test_time_of_24_hours_is_a_known_difference(java_data: JavaDataHarness) -> None:
    """DELIBERATE_DIFFERENCES["time of 24:00"]."""
    [java] = java_data.run([{"op": "time_to_logical", "value": DAY_MS}])
    assert java == {"result": DAY_MS}
    with pytest.raises(DataException):
        Time.to_logical(Time.SCHEMA, DAY_MS)


def test_json_converter_operations_round_trip(java_data: JavaDataHarness) -> None:
    """The two converter operations the schema-aware converters are compared with: Java's envelope for
    a struct, and that envelope read back into the same schema and value descriptions."""
    schema = {"type": "STRUCT", "name": "s", "fields": [
        {"name": "n", "schema": {"type": "INT32", "optional": False}},
        {"name": "m", "schema": {"type": "MAP", "optional": False, "key": {"type": "INT8", "optional": False},
                                 "value": {"type": "BYTES", "name": DECIMAL, "optional": False,
                                           "parameters": {"scale": "2"}, "version": 1}}}]}
    value = {"struct": {"n": {"int32": 7}, "m": {"map": [[{"int8": 1}, {"decimal": "-1.25"}]]}}}
    config = {"schemas.enable": "true"}
    [written] = java_data.run([{"op": "json_from_connect", "config": config, "schema": schema, "value": value}])
    assert base64.b64decode(written["result"]) == (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"n"},'
        b'{"type":"map","keys":{"type":"int8","optional":false},"values":{"type":"bytes","optional":false,'
        b'"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},'
        b'"optional":false,"field":"m"}],"optional":false,"name":"s"},'
        b'"payload":{"n":7,"m":[[1,"gw=="]]}}')
    [read] = java_data.run([{"op": "json_to_connect", "config": config, "bytes": written["result"]}])
    assert read["value"] == value
    assert schema_from(read["schema"]) == schema_from({**schema, "optional": False})


def test_schema_equality_matches_java(java_data: JavaDataHarness) -> None:
    """Equality as ``ConnectSchema.equals``: a schema against itself built twice, and against a copy
    differing in one attribute (optionality, name, version, doc, parameters, default, a field's order)."""
    corpus = Corpus(seed=1_000)
    cases = []
    for _ in range(1_000):
        desc = corpus.schema()
        other = dict(desc)
        change = corpus.rng.choice(["optional", "name", "version", "doc", "parameters", "default", "fields", None])
        if change == "optional":
            other["optional"] = not desc.get("optional")
        elif change in ("name", "doc"):
            other[change] = corpus.text(4)
        elif change == "version":
            other["version"] = corpus.rng.randint(0, 3)
        elif change == "parameters":
            other["parameters"] = {**desc.get("parameters", {}), "p": corpus.text(2)}
        elif change == "default" and desc["type"] != "STRUCT":
            other["default"] = corpus.valid(desc)
        elif change == "fields" and desc.get("fields"):
            other["fields"] = list(reversed(desc["fields"]))
        cases.append({"op": "schema_equals", "schema": desc, "other": other})
    answers = java_data.run(cases)
    found = [f"{case}\n  Java {java}\n  ours {ours}" for case, java in zip(cases, answers, strict=True)
             if java != (ours := python_schema_equals(case)) and not bytes_in_collection(case)]
    assert not found, f"{len(found)} differences, first ones:\n" + "\n".join(found[:10])


def test_bytes_in_a_list_default_is_a_known_difference(java_data: JavaDataHarness) -> None:
    """DELIBERATE_DIFFERENCES["bytes in a collection default"]: Java finds two such schemas unequal."""
    desc = {"type": "ARRAY", "value": {"type": "BYTES"}, "default": {"array": [{"bytes": "AQ=="}]}}
    [java] = java_data.run([{"op": "schema_equals", "schema": desc, "other": desc}])
    assert java == {"result": False}
    assert schema_from(desc) == schema_from(desc)
