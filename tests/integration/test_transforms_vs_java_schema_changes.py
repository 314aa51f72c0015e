"""Cast, Flatten, TimestampConverter and SetSchemaMetadata against Kafka Connect's own, record for record.

Each case configures one transform on both sides and applies it, through one instance (so the
schema caches see every record), to a run of records from :class:`transform_corpus.RecordCorpus`:
Structs with their schemas, other schema types, nulls and schemaless data. The records that come out
(schemas with their names, versions, defaults and optionality included) or the exceptions must be
equal. The configs cover each option that matters for schemas; the hand-written cases are the edge
cases of Java's unit tests (defaults, optional parents, logical types, unsupported types).
"""

from __future__ import annotations

from typing import Any

import pytest
from java_data_harness import JavaDataHarness
from test_data_model_vs_java import DATE, TIME, TIMESTAMP
from transform_corpus import RECORDS_PER_CASE, RecordCorpus, assert_no_differences, cases

pytestmark = pytest.mark.kafka  # needs Kafka's jars and a JDK, as the broker does

T = "org.apache.kafka.connect.transforms."
DECIMAL = "org.apache.kafka.connect.data.Decimal"
TS_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSS G"
#: the first and last instants of the years 1 to 9999 in epoch milliseconds
FIRST_MS = -62_135_596_800_000
LAST_MS = 253_402_300_799_999
DAY_MS = 86_400_000


class SchemaCorpus(RecordCorpus):
    """Records for these transforms: with ``whole_values``, most operands are a primitive or a logical
    type rather than a Struct; with ``timestamps``, a third of the schemas are timestamp types, INT64
    and temporal values are instants the formats and ``datetime`` represent (unix seconds to
    nanoseconds alike), and strings are often timestamps in ``TS_FORMAT``."""

    def __init__(self, seed: int, whole_values: bool = False, timestamps: bool = False) -> None:
        super().__init__(seed)
        self.whole_values = whole_values
        self.timestamps = timestamps

    def operand(self, struct_fields: list[str] | None = None) -> tuple[dict[str, Any] | None, Any]:
        if self.whole_values and self.rng.random() < 0.6:
            schema = self.schema(3)  # at depth 3 the corpus picks no ARRAY, MAP or STRUCT
            return schema, self.valid(schema)
        return super().operand(struct_fields)

    def schema(self, depth: int = 0, key: bool = False) -> dict[str, Any]:
        rng = self.rng
        if self.timestamps and rng.random() < 0.35:
            desc: dict[str, Any] = rng.choice([
                {"type": "INT64", "name": TIMESTAMP, "version": 1}, {"type": "INT32", "name": DATE, "version": 1},
                {"type": "INT32", "name": TIME, "version": 1}, {"type": "INT64"}, {"type": "STRING"}])
            if rng.random() < 0.4:
                desc["optional"] = True
            if rng.random() < 0.15:
                desc["default"] = self.valid(desc)
            return desc
        return super().schema(depth, key)

    def valid(self, desc: dict[str, Any]) -> Any:
        rng = self.rng
        if not self.timestamps:
            return super().valid(desc)
        if desc.get("optional") and rng.random() < 0.1:
            return None
        if desc.get("name") == TIMESTAMP:
            return {"timestamp": rng.randint(FIRST_MS, LAST_MS)}
        if desc.get("name") == DATE:
            return {"date": rng.randint(FIRST_MS // DAY_MS, LAST_MS // DAY_MS)}
        if desc["type"] == "INT64":
            return {"int64": self.instant()}
        if desc["type"] == "STRING" and rng.random() < 0.6:
            # from the year 2: Julian dates of the year 1 fall partly before the first date Python has
            return {"string": f"{rng.randint(2, 9999):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                              f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
                              f"{rng.randint(0, 999):03d} AD"}
        return super().valid(desc)

    def instant(self) -> int:
        """A unix time that stays within the years 1 to 9999 at any precision."""
        # unix seconds of the years 1 to 9999 (at finer precisions, instants nearer the epoch)
        seconds = self.rng.randint(FIRST_MS // 1000, LAST_MS // 1000)
        return self.rng.choice([0, -1, self.rng.randint(-(10**10), 10**11), seconds])

    def schemaless(self, depth: int = 0) -> Any:
        value = super().schemaless(depth)
        if self.timestamps and isinstance(value, dict) and "int64" in value:
            return {"int64": self.instant()}
        return value


def schema_cases(seed: int, plugins: list[tuple[str, dict[str, str]]], **options: bool) -> list[dict[str, Any]]:
    """One case per (Java class, config) of ``plugins``, each over records of one :class:`SchemaCorpus`."""
    corpus = SchemaCorpus(seed, **options)
    return [{"op": "transform", "class": cls, "config": config,
             "records": [corpus.record() for _ in range(RECORDS_PER_CASE)]} for cls, config in plugins]


def record(value_schema: dict[str, Any] | None, value: Any, key_schema: dict[str, Any] | None = None,
           key: Any = None) -> dict[str, Any]:
    """A hand-written record description."""
    return {"topic": "t", "partition": 0, "key_schema": key_schema, "key": key, "value_schema": value_schema,
            "value": value, "timestamp": 1_700_000_000_000, "headers": []}


def hand_cases(plugins: list[tuple[str, dict[str, str]]], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each of ``plugins`` over the same hand-written ``records``."""
    return [{"op": "transform", "class": cls, "config": config, "records": records} for cls, config in plugins]


def struct(*fields: tuple[str, dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A STRUCT schema description."""
    return {"type": "STRUCT", "fields": [{"name": n, "schema": s} for n, s in fields], **extra}


OPT = {"optional": True}
I32 = {"type": "INT32"}
I64 = {"type": "INT64"}
STR = {"type": "STRING"}
TS = {"type": "INT64", "name": TIMESTAMP, "version": 1}
DT = {"type": "INT32", "name": DATE, "version": 1}
TM = {"type": "INT32", "name": TIME, "version": 1}


def dec(scale: int, **extra: Any) -> dict[str, Any]:
    return {"type": "BYTES", "name": DECIMAL, "version": 1, "parameters": {"scale": str(scale)}, **extra}


def test_cast_fields_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2441 + 1000 * corpus_round
    assert_no_differences(java_data, cases(seed, [
        (T + "Cast$Value", {"spec": "a:int32,b:string"}),
        (T + "Cast$Value", {"spec": "a:float32,c:boolean,id:int8", "replace.null.with.default": "false"}),
        (T + "Cast$Key", {"spec": "id:int64,ts:float64,nested:int16"}),
        (T + "Cast$Value", {"spec": "b:float64,c:string,ts:int32"}),
    ]), seed)


def test_cast_whole_values_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2445 + 1000 * corpus_round
    assert_no_differences(java_data, schema_cases(seed, [
        (T + "Cast$Value", {"spec": "string"}),
        (T + "Cast$Key", {"spec": "int64"}),
        (T + "Cast$Value", {"spec": "float32"}),
        (T + "Cast$Value", {"spec": "float64"}),
        (T + "Cast$Value", {"spec": "boolean"}),
        (T + "Cast$Value", {"spec": "int8"}),
        (T + "Cast$Key", {"spec": "int16"}),
        (T + "Cast$Value", {"spec": "int32", "replace.null.with.default": "false"}),
    ], whole_values=True), seed)


def test_cast_edge_cases_as_java(java_data: JavaDataHarness) -> None:
    logical = struct(("date", DT), ("time", TM), ("ts", TS), ("dec", dec(2)), ("big", dec(-3)),
                     ("f", {"type": "FLOAT32"}))
    logical_value = {"struct": {"date": {"date": 19_000}, "time": {"time": 3_723_004}, "ts": {"timestamp": -1},
                                "dec": {"decimal": "-12345678901234567890.99"}, "big": {"decimal": "1E+3"},
                                "f": {"float32": 1.1}}}
    defaults = struct(("a", {**I64, "default": {"int64": 300}}), ("b", {**I64, **OPT, "default": {"int64": -2}}),
                      ("c", {**OPT, **dec(1), "default": {"decimal": "2.5"}}), ("d", {**STR, **OPT}),
                      name="com.example.Defaults", version=3, doc="why", parameters={"p": "v"})
    records = [
        record(logical, logical_value),
        record(logical, {"struct": {"date": {"date": 0}, "time": {"time": 0}, "ts": {"timestamp": 86_400_000},
                                    "dec": {"decimal": "0.00"}, "big": {"decimal": "0E+3"}, "f": {"float32": -0.0}}}),
        record(defaults, {"struct": {"a": {"int64": 5}}}),
        record(defaults, {"struct": {"a": {"int64": 2**40 + 7}, "b": {"int64": 1}, "c": {"decimal": "-0.5"},
                                     "d": {"string": "12"}}}),
        record({**defaults, **OPT}, None),
        record(struct(("a", {"type": "BYTES"}), ("b", {"type": "ARRAY", "value": I32})),
               {"struct": {"a": {"bytes": "AAE="}, "b": {"array": []}}}),
        record(struct(("a", struct(("x", I32))),), {"struct": {"a": {"struct": {"x": {"int32": 1}}}}}),
        record(struct(("a", {"type": "MAP", "key": STR, "value": I32, **OPT})), {"struct": {"a": None}}),
        record(I32, {"int32": 8}),
        record({**STR, "name": "com.example.S", "version": 2}, {"string": "129"}),
        record({**dec(3), "doc": "price"}, {"decimal": "98765.432"}),
        record({**dec(0), "default": {"decimal": "7"}}, {"decimal": "-7"}),
        record({**TS, "default": {"timestamp": 5}}, {"timestamp": 1_700_000_000_123}),
        record({**DT, **OPT}, {"date": -3}),
        record(None, {"map": [[{"string": "a"}, {"int64": 1}]]}),
        # 2**53 + 2**29 + 1: through a double it would round twice, to 2**53, not to Java's 2**53 + 2**30
        record(I64, {"int64": 2**53 + 2**29 + 1}),
        record(dec(0), {"decimal": str(2**53 + 2**29 + 1)}),
        record(STR, {"string": f" {2**53 + 2**29 + 1}.0e0f "}),
        record(None, {"int64": -(2**53 + 2**29 + 1)}),
        record(STR, {"string": "1e-46"}),
        record(STR, {"string": "-3.4028236e38"}),
        # parseInt reads any script's decimal digits (BMP only), parseDouble ASCII digits only
        *[record(STR, {"string": text}) for text in ("\u0661\u0662", "-\uff11\uff12", "\U0001d7d9", "\u0968" * 12)],
        record(struct(("s", STR)), {"struct": {"s": {"string": "\u0661\u0662"}}}),
    ]
    assert_no_differences(java_data, hand_cases([
        (T + "Cast$Value", {"spec": "float32"}),
        (T + "Cast$Value", {"spec": "date:int64,time:string,ts:int32,dec:float64,big:int8,f:string"}),
        (T + "Cast$Value", {"spec": "date:string,time:int16,ts:string,dec:string,big:boolean,f:float64"}),
        (T + "Cast$Value", {"spec": "dec:int64,big:string,a:int8,b:string,c:float32,d:int32"}),
        (T + "Cast$Value", {"spec": "a:string,b:boolean,c:int64", "replace.null.with.default": "false"}),
        (T + "Cast$Value", {"spec": "int32"}),
        (T + "Cast$Value", {"spec": "string"}),
        (T + "Cast$Value", {"spec": "float64"}),
        (T + "Cast$Value", {"spec": "boolean"}),
        (T + "Cast$Value", {"spec": "int8"}),
        (T + "Cast$Value", {"spec": "int64"}),
        (T + "Cast$Value", {"spec": "s:int16"}),
    ], records), 0)


def test_flatten_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2442 + 1000 * corpus_round
    assert_no_differences(java_data, cases(seed, [
        (T + "Flatten$Value", {}),
        (T + "Flatten$Key", {"delimiter": "_"}),
    ]), seed)


def test_flatten_edge_cases_as_java(java_data: JavaDataHarness) -> None:
    inner = struct(("x", I32), ("y", {**STR, **OPT, "default": {"string": "why"}}),
                   ("arr", {"type": "ARRAY", "value": I32}))
    parent_default = {"struct": {"x": {"int32": 9}, "arr": {"array": [{"int32": 1}]}}}
    nested = struct(("id", I64), ("inner", {**inner, **OPT}), ("deep", struct(("inner", inner), ("z", TS))),
                    ("with_default", {**inner, "default": parent_default}),
                    name="com.example.Nested", version=4, doc="nested", parameters={"k": "v"})
    inner_value = {"struct": {"x": {"int32": 1}, "arr": {"array": []}}}
    records = [
        record(nested, {"struct": {"id": {"int64": 1}, "inner": None,
                                   "deep": {"struct": {"inner": inner_value, "z": {"timestamp": 3}}}}}),
        record(nested, {"struct": {"id": {"int64": 2}, "inner": inner_value,
                                   "deep": {"struct": {"inner": inner_value, "z": {"timestamp": -3}}},
                                   "with_default": {"struct": {"x": {"int32": 5}, "y": {"string": "set"},
                                                               "arr": {"array": [None]}}}}}),
        record({**nested, **OPT}, None),
        record(struct(("a.b", I32), ("a", struct(("b", I32)))),
               {"struct": {"a.b": {"int32": 1}, "a": {"struct": {"b": {"int32": 2}}}}}),
        record(struct(("m", {"type": "MAP", "key": STR, "value": I32})), {"struct": {"m": {"map": []}}}),
        record(struct(), {"struct": {}}),
        record({"type": "ARRAY", "value": I32}, {"array": [{"int32": 1}]}),
        record(DT, {"date": 1}),
        record(None, {"map": [[{"string": "a"}, {"struct": {"n": {"int32": 1}}, "schema": struct(("n", I32))}]]}),
    ]
    assert_no_differences(java_data, hand_cases([(T + "Flatten$Value", {}), (T + "Flatten$Value", {"delimiter": "#"})],
                                                records), 0)


def test_timestamp_converter_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2443 + 1000 * corpus_round
    assert_no_differences(java_data, schema_cases(seed, [
        (T + "TimestampConverter$Value", {"target.type": "string", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"target.type": "unix", "format": TS_FORMAT, "unix.precision": "seconds"}),
        (T + "TimestampConverter$Key", {"target.type": "Timestamp", "format": TS_FORMAT,
                                        "unix.precision": "microseconds"}),
        (T + "TimestampConverter$Value", {"target.type": "Date", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"target.type": "Time", "format": TS_FORMAT,
                                          "unix.precision": "nanoseconds"}),
    ], whole_values=True, timestamps=True), seed)
    assert_no_differences(java_data, schema_cases(seed, [
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "string", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "unix", "format": TS_FORMAT,
                                          "unix.precision": "milliseconds", "replace.null.with.default": "false"}),
        (T + "TimestampConverter$Key", {"field": "a", "target.type": "Timestamp", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "Date", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"field": "b", "target.type": "Time", "format": TS_FORMAT}),
    ], timestamps=True), seed)


def test_timestamp_converter_edge_cases_as_java(java_data: JavaDataHarness) -> None:
    with_default = struct(("ts", {**TS, **OPT, "default": {"timestamp": 86_400_001}}), ("other", STR),
                          name="com.example.Event", version=2)
    struct_default = struct(("ts", I64), ("other", STR),
                            default={"struct": {"ts": {"int64": 1_000}, "other": {"string": "d"}}})
    records = [
        record(with_default, {"struct": {"other": {"string": "x"}}}),
        record(with_default, {"struct": {"ts": {"timestamp": -1}, "other": {"string": "y"}}}),
        record({**with_default, **OPT}, None),
        record(struct_default, {"struct": {"ts": {"int64": 1_700_000_000_123}, "other": {"string": "z"}}}),
        record(struct(("ts", {**STR, **OPT})), {"struct": {"ts": {"string": "not a time"}}}),
        record(struct(("ts", {**STR, **OPT})), {"struct": {"ts": {"string": "2024-02-29T23:59:59.999"}}}),
        record(struct(("ts", I32)), {"struct": {"ts": {"int32": 1}}}),
        record(struct(("x", I32)), {"struct": {"x": {"int32": 1}}}),
        record(struct(("ts", TM)), {"struct": {"ts": {"time": 86_399_999}}}),
        record(struct(("ts", DT)), {"struct": {"ts": {"date": -1}}}),
        record({**TS, **OPT}, None),
        record({**I32, **OPT}, None),
        record(TM, {"time": 45_296_789}),
        record(I64, {"int64": -1_000_001}),
        # around the Julian calendar's end: 1582-10-04 is followed by 1582-10-15 in Java's calendar
        *(record(TS, {"timestamp": ms}) for ms in (-12_219_292_800_001, -12_219_292_800_000, -12_219_206_400_000,
                                                   -62_135_596_800_000, -62_135_596_800_000 + 400 * 86_400_000,
                                                   -12_244_089_600_000, -30_610_224_000_000)),
        *(record(STR, {"string": text}) for text in ("1582-10-04 12:00", "1582-10-10 12:00", "1582-10-15 12:00",
                                                     "0100-02-29 00:00", "1000-12-31 23:59")),
    ]
    assert_no_differences(java_data, hand_cases([
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "string", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "Timestamp", "format": TS_FORMAT,
                                          "replace.null.with.default": "false"}),
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "unix", "format": TS_FORMAT,
                                          "unix.precision": "microseconds"}),
        (T + "TimestampConverter$Value", {"target.type": "Date", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"target.type": "string", "format": "EEE, d MMM yyyy HH:mm:ss Z"}),
        (T + "TimestampConverter$Value", {"target.type": "unix", "format": "yyyy-MM-dd HH:mm",
                                          "unix.precision": "seconds"}),
        (T + "TimestampConverter$Value", {"target.type": "string", "format": "yyyy-MM-dd HH:mm G D EEEE u"}),
        (T + "TimestampConverter$Value", {"target.type": "Timestamp", "format": "yyyy-MM-dd HH:mm"}),
    ], records), 0)


def test_set_schema_metadata_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2444 + 1000 * corpus_round
    assert_no_differences(java_data, cases(seed, [
        (T + "SetSchemaMetadata$Value", {"schema.name": "renamed", "schema.version": "7"}),
        (T + "SetSchemaMetadata$Key", {"schema.name": "com.example.Key"}),
        (T + "SetSchemaMetadata$Value", {"schema.version": "2", "replace.null.with.default": "false"}),
    ]), seed)


def test_set_schema_metadata_edge_cases_as_java(java_data: JavaDataHarness) -> None:
    inner = struct(("x", {**I32, "default": {"int32": 4}}), name="com.example.Inner")
    outer = struct(("a", {**I32, **OPT, "default": {"int32": 1}}), ("b", {**I32, "default": {"int32": 2}}),
                   ("inner", inner), ("arr", {"type": "ARRAY", "value": inner, **OPT}),
                   name="com.example.Outer", version=1, doc="d", parameters={"p": "q"})
    records = [
        record(outer, {"struct": {"inner": {"struct": {}}}}),
        record(outer, {"struct": {"a": {"int32": 7}, "b": {"int32": 8}, "inner": {"struct": {"x": {"int32": 9}}},
                                  "arr": {"array": [{"struct": {}}]}}}),
        record({**outer, **OPT}, None),
        record(None, {"map": []}),
        record(None, None),
        record({**I32, **OPT}, None),
        record({"type": "ARRAY", "value": I32}, {"array": []}),
        record(struct(), {"struct": {}}, key_schema=I32, key={"int32": 1}),
    ]
    assert_no_differences(java_data, hand_cases([
        (T + "SetSchemaMetadata$Value", {"schema.name": "n", "schema.version": "3"}),
        (T + "SetSchemaMetadata$Value", {"schema.version": "9", "replace.null.with.default": "false"}),
        (T + "SetSchemaMetadata$Key", {"schema.name": "k"}),
    ], records), 0)
