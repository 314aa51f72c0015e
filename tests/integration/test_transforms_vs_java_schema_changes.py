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
TS_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSS"
#: 1583-01-01 and 9999-12-31 in epoch milliseconds: SimpleDateFormat is Julian before 1582-10-15
FIRST_GREGORIAN_MS = -12_212_553_600_000
LAST_MS = 253_402_300_799_999


class TimestampCorpus(RecordCorpus):
    """Records whose INT64 and temporal values are instants the formats and ``datetime`` represent
    (unix seconds to nanoseconds alike), and whose strings are often timestamps in ``TS_FORMAT``."""

    def valid(self, desc: dict[str, Any]) -> Any:
        rng = self.rng
        if desc.get("optional") and rng.random() < 0.1:
            return None
        if desc.get("name") == TIMESTAMP:
            return {"timestamp": rng.randint(FIRST_GREGORIAN_MS, LAST_MS)}
        if desc.get("name") == DATE:
            return {"date": rng.randint(FIRST_GREGORIAN_MS // 86_400_000 + 1, LAST_MS // 86_400_000)}
        if desc["type"] == "INT64":
            return {"int64": self.instant()}
        if desc["type"] == "STRING" and rng.random() < 0.6:
            year = rng.randint(1583, 9999)
            return {"string": f"{year:04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                              f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
                              f"{rng.randint(0, 999):03d}"}
        return super().valid(desc)

    def instant(self) -> int:
        """A unix time that stays within the years 1583 to 9999 at any precision."""
        return self.rng.choice([0, -1, self.rng.randint(-(10**10), 10**11), self.rng.randint(-(10**12), 10**12)])

    def schemaless(self, depth: int = 0) -> Any:
        value = super().schemaless(depth)
        return {"int64": self.instant()} if isinstance(value, dict) and "int64" in value else value

    def schema(self, depth: int = 0, key: bool = False) -> dict[str, Any]:
        """A third of the schemas a timestamp type, so that ``field`` configs often find one."""
        rng = self.rng
        if rng.random() < 0.35:
            desc: dict[str, Any] = rng.choice([
                {"type": "INT64", "name": TIMESTAMP, "version": 1}, {"type": "INT32", "name": DATE, "version": 1},
                {"type": "INT32", "name": TIME, "version": 1}, {"type": "INT64"}, {"type": "STRING"}])
            if rng.random() < 0.4:
                desc["optional"] = True
            if rng.random() < 0.15:
                desc["default"] = self.valid(desc)
            return desc
        return super().schema(depth, key)


def timestamp_cases(seed: int, plugins: list[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
    corpus = TimestampCorpus(seed)
    return [{"op": "transform", "class": cls, "config": config,
             "records": [corpus.record() for _ in range(RECORDS_PER_CASE)]} for cls, config in plugins]


def test_cast_as_java(java_data: JavaDataHarness) -> None:
    seed = 2441
    assert_no_differences(java_data, cases(seed, [
        (T + "Cast$Value", {"spec": "a:int32,b:string"}),
        (T + "Cast$Value", {"spec": "a:float32,c:boolean,id:int8", "replace.null.with.default": "false"}),
        (T + "Cast$Key", {"spec": "id:int64,ts:float64,nested:int16"}),
        (T + "Cast$Value", {"spec": "string"}),
        (T + "Cast$Key", {"spec": "int64"}),
        (T + "Cast$Value", {"spec": "float32"}),
        (T + "Cast$Value", {"spec": "boolean"}),
        (T + "Cast$Value", {"spec": "int8"}),
    ]), seed)


def test_flatten_as_java(java_data: JavaDataHarness) -> None:
    seed = 2442
    assert_no_differences(java_data, cases(seed, [
        (T + "Flatten$Value", {}),
        (T + "Flatten$Key", {"delimiter": "_"}),
    ]), seed)


def test_timestamp_converter_as_java(java_data: JavaDataHarness) -> None:
    seed = 2443
    assert_no_differences(java_data, timestamp_cases(seed, [
        (T + "TimestampConverter$Value", {"target.type": "string", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"target.type": "unix", "format": TS_FORMAT, "unix.precision": "seconds"}),
        (T + "TimestampConverter$Key", {"target.type": "Timestamp", "format": TS_FORMAT,
                                        "unix.precision": "microseconds"}),
        (T + "TimestampConverter$Value", {"target.type": "Date", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"target.type": "Time", "format": TS_FORMAT,
                                          "unix.precision": "nanoseconds"}),
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "string", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "unix", "format": TS_FORMAT,
                                          "unix.precision": "milliseconds", "replace.null.with.default": "false"}),
        (T + "TimestampConverter$Key", {"field": "a", "target.type": "Timestamp", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"field": "ts", "target.type": "Date", "format": TS_FORMAT}),
        (T + "TimestampConverter$Value", {"field": "b", "target.type": "Time", "format": TS_FORMAT}),
    ]), seed)


def test_set_schema_metadata_as_java(java_data: JavaDataHarness) -> None:
    seed = 2444
    assert_no_differences(java_data, cases(seed, [
        (T + "SetSchemaMetadata$Value", {"schema.name": "renamed", "schema.version": "7"}),
        (T + "SetSchemaMetadata$Key", {"schema.name": "com.example.Key"}),
        (T + "SetSchemaMetadata$Value", {"schema.version": "2", "replace.null.with.default": "false"}),
    ]), seed)
