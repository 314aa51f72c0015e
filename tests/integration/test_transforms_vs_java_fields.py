"""ReplaceField, InsertField, MaskField, ValueToKey, ExtractField and HoistField against Kafka
Connect's own, record for record, with and without schemas.

Each case configures one transform on both sides and applies it through one instance to a run of
records from :class:`transform_corpus.RecordCorpus` (Structs with their schemas, other schema types,
nulls and schemaless data), so the transforms' schema caches see every record; the records that come
out, or the exceptions, must be equal (java_data_harness.py's ``canonical`` form). Each transform has
a config per option that matters for schemas, plus the edge cases of Java's unit tests by hand.
"""

from __future__ import annotations

from typing import Any

import pytest
from java_data_harness import JavaDataHarness
from transform_corpus import RECORDS_PER_CASE, RecordCorpus, assert_no_differences

pytestmark = pytest.mark.kafka  # needs Kafka's jars and a JDK, as the broker does

T = "org.apache.kafka.connect.transforms."
FIELDS = ["a", "b", "c", "id", "ts", "nested"]


class NestedCorpus(RecordCorpus):
    """Records whose structs often hold a struct field ``nested`` (fields ``a``, ``b``, ``x.y``), for
    ``field.syntax.version=V2`` paths."""

    def struct_schema(self, fields: list[str] | None = None, depth: int = 1) -> dict[str, Any]:
        desc = super().struct_schema(fields, depth)
        for field in desc["fields"]:
            if field["name"] == "nested" and self.rng.random() < 0.8:
                inner = [{"name": n, "schema": self.schema(2)} for n in ("a", "b", "x.y") if self.rng.random() < 0.8]
                field["schema"] = {"type": "STRUCT", "name": "com.example.Nested", "fields": inner,
                                   "optional": self.rng.random() < 0.5}
        return desc


def _check(java_data: JavaDataHarness, seed: int, plugins: list[tuple[str, dict[str, str]]],
           corpus: type[RecordCorpus] = RecordCorpus) -> None:
    built = corpus(seed)
    batch = [{"op": "transform", "class": cls, "config": config,
              "records": [built.record() for _ in range(RECORDS_PER_CASE)]}
             for cls, config in plugins]
    assert_no_differences(java_data, batch, seed)


def _both(name: str, configs: list[dict[str, str]]) -> list[tuple[str, dict[str, str]]]:
    return [(T + name + side, config) for config in configs for side in ("$Key", "$Value")]


def test_replace_field_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    _check(java_data, 2441 + 1000 * corpus_round, _both("ReplaceField", [
        {},
        {"exclude": "a,id"},
        {"include": "a,b,nested"},
        {"renames": "a:A,id:key"},
        {"renames": "a:b"},  # onto a kept field: Java's SchemaBuilder refuses the duplicate
        {"include": "a,b,ts", "exclude": "b", "renames": "a:x,ts:time", "replace.null.with.default": "false"},
    ]))


def test_insert_field_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    _check(java_data, 2442 + 1000 * corpus_round, _both("InsertField", [
        {"topic.field": "topic", "partition.field": "part!", "timestamp.field": "time?",
         "static.field": "origin", "static.value": "v"},
        {"topic.field": "topic!", "static.field": "origin!", "static.value": "v", "timestamp.field": "time!"},
        {"partition.field": "p", "replace.null.with.default": "false"},
        {"timestamp.field": "ts"},  # often a field of the struct already
        {"offset.field": "offset"},
    ]))


def test_mask_field_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    _check(java_data, 2443 + 1000 * corpus_round, _both("MaskField", [
        {"fields": ",".join(FIELDS)},
        {"fields": "a,b,c,id,missing", "replace.null.with.default": "false"},
        {"fields": "a,b,c,id,ts", "replacement": "12"},
        {"fields": "a,b,c", "replacement": "300"},  # narrowed like Java's casts
        {"fields": "a,id", "replacement": "-70000.75"},
        {"fields": "a,b,ts", "replacement": "1e40"},
        {"fields": "a,b", "replacement": "text"},
    ]))


def test_value_to_key_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    _check(java_data, 2444 + 1000 * corpus_round, [
        (T + "ValueToKey", {"fields": "a,b"}),
        (T + "ValueToKey", {"fields": "id"}),
        (T + "ValueToKey", {"fields": "id,ts", "replace.null.with.default": "false"}),
        (T + "ValueToKey", {"fields": "a,a"}),
    ])


def test_extract_field_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    _check(java_data, 2445 + 1000 * corpus_round, _both("ExtractField", [
        {"field": "a"},
        {"field": "id", "replace.null.with.default": "false"},
        {"field": "nested"},
    ]))
    _check(java_data, 2446 + 1000 * corpus_round, _both("ExtractField", [
        {"field": "nested.a", "field.syntax.version": "V2"},
        {"field": "nested.b", "field.syntax.version": "v2", "replace.null.with.default": "false"},
        {"field": "nested.`x.y`", "field.syntax.version": "V2"},
        {"field": "nested.a"},  # V1: one field named "nested.a"
    ]), NestedCorpus)


def test_hoist_field_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    _check(java_data, 2447 + 1000 * corpus_round, _both("HoistField", [{"field": "wrapped"}, {"field": "a"}]))


def _record(schema: dict[str, Any] | None, value: Any, **more: Any) -> dict[str, Any]:
    return {"topic": "t", "partition": 1, "key_schema": None, "key": None, "value_schema": schema, "value": value,
            "timestamp": 1_700_000_000_123, "headers": [], **more}


DEFAULTS = {"type": "STRUCT", "name": "Defaults", "fields": [
    {"name": "i8", "schema": {"type": "INT8", "optional": True, "default": {"int8": 7}}},
    {"name": "i16", "schema": {"type": "INT16"}},
    {"name": "f32", "schema": {"type": "FLOAT32", "default": {"float32": 1.5}}},
    {"name": "dec", "schema": {"type": "BYTES", "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
                               "parameters": {"scale": "2"}}},
    {"name": "date", "schema": {"type": "INT32", "name": "org.apache.kafka.connect.data.Date", "version": 1}},
    {"name": "time", "schema": {"type": "INT32", "name": "org.apache.kafka.connect.data.Time", "version": 1}},
    {"name": "stamp", "schema": {"type": "INT64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1}},
    {"name": "bytes", "schema": {"type": "BYTES", "optional": True}},
    {"name": "list", "schema": {"type": "ARRAY", "value": {"type": "STRING"}}},
    {"name": "map", "schema": {"type": "MAP", "key": {"type": "STRING"}, "value": {"type": "INT32"}}},
    {"name": "inner", "schema": {"type": "STRUCT", "optional": True, "fields": [{"name": "x", "schema": {
        "type": "STRING", "optional": True, "default": {"string": "dx"}}}]}},
], "version": 3, "doc": "kept", "parameters": {"p": "q"}}
FULL = {"struct": {"i8": None, "i16": {"int16": -3}, "f32": {"float32": 2.25}, "dec": {"decimal": "-12.34"},
                   "date": {"date": -400}, "time": {"time": 5_000}, "stamp": {"timestamp": -1},
                   "bytes": {"bytes": "AQI="},
                   "list": {"array": [{"string": "x"}]}, "map": {"map": [[{"string": "k"}, {"int32": 1}]]},
                   "inner": {"struct": {"x": None}}}}


def test_hand_written_edge_cases_as_java(java_data: JavaDataHarness) -> None:
    records = [_record(DEFAULTS, FULL), _record(DEFAULTS, None), _record({"type": "INT32"}, {"int32": 5}),
               _record(None, None), _record(None, {"map": [[{"string": "i8"}, {"int64": 1}]]}),
               _record({"type": "STRUCT", "optional": True, "fields": []}, None)]
    plugins = [
        (T + "MaskField$Value", {"fields": "i8,i16,f32,dec,date,time,stamp,list,map"}),
        (T + "MaskField$Value", {"fields": "i8,i16,f32,dec", "replacement": "129.9"}),
        (T + "MaskField$Value", {"fields": "dec", "replacement": "1e-3"}),
        (T + "MaskField$Value", {"fields": "i16", "replacement": "abc"}),
        (T + "MaskField$Value", {"fields": "dec", "replacement": "abc"}),
        (T + "MaskField$Value", {"fields": "date", "replacement": "1"}),
        (T + "MaskField$Value", {"fields": "bytes"}),
        (T + "MaskField$Value", {"fields": "inner"}),
        (T + "MaskField$Value", {"fields": "i8", "replace.null.with.default": "false"}),
        (T + "ReplaceField$Value", {"include": "i8,f32,inner", "renames": "i8:eight"}),
        (T + "ReplaceField$Value", {"renames": "nope:i8"}),
        (T + "InsertField$Value", {"timestamp.field": "at!", "partition.field": "p!", "topic.field": "topic"}),
        (T + "ValueToKey", {"fields": "i8,inner"}),
        (T + "ValueToKey", {"fields": "i8", "replace.null.with.default": "false"}),
        (T + "ValueToKey", {"fields": "nope"}),
        (T + "ExtractField$Value", {"field": "inner.x", "field.syntax.version": "V2"}),
        (T + "ExtractField$Value", {"field": "inner.x", "field.syntax.version": "V2",
                                    "replace.null.with.default": "false"}),
        (T + "ExtractField$Value", {"field": "i16.x", "field.syntax.version": "V2"}),
        (T + "ExtractField$Value", {"field": "nope"}),
        (T + "HoistField$Value", {"field": "h"}),
    ]
    batch = [{"op": "transform", "class": cls, "config": config, "records": records} for cls, config in plugins]
    assert_no_differences(java_data, batch, 0)

