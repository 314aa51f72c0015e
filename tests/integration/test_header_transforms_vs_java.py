"""HeaderFrom, InsertHeader and DropHeaders against Kafka Connect's own, record for record.

Each case configures one transform on both sides and applies it to a run of records from
:class:`transform_corpus.RecordCorpus` (Structs with their schemas, other schema types, schemaless
maps and values; headers with and without schemas) through one instance, so HeaderFrom's cache of
moved schemas sees every record. The records that come out, header schemas included, or the
exceptions must be equal (java_data_harness.py's ``canonical`` form).
"""

from __future__ import annotations

from typing import Any

import pytest
from java_data_harness import JavaDataHarness
from test_values_vs_java import EDGE_TEXTS
from transform_corpus import RECORDS_PER_CASE, RecordCorpus, assert_no_differences

pytestmark = pytest.mark.kafka  # needs Kafka's jars and a JDK, as the broker does

T = "org.apache.kafka.connect.transforms."
FIELDS = ["a", "b", "id", "nested"]


def comparable(record: dict[str, Any]) -> bool:
    """Whether Java's answer to ``record`` is one ours can equal: not a struct schema without all of
    :data:`FIELDS` (Java fails with a NullPointerException on a configured field the schema lacks, we
    with a DataException), not a schema'd map operand (Java names the harness's LinkedHashMap in its
    message, a class the record's data does not determine)."""
    for side in ("key", "value"):
        schema = record[f"{side}_schema"]
        if schema is None:
            continue
        if schema["type"] == "STRUCT" and not set(FIELDS) <= {f["name"] for f in schema["fields"]}:
            return False
        if schema["type"] == "MAP" and record[side] is not None:
            return False
    return True


def cases(seed: int, plugins: list[tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
    """One case per plugin over records whose structs all have :data:`FIELDS` (see :func:`comparable`),
    headers with schemas too."""
    corpus = RecordCorpus(seed, header_schemas=True)
    records: list[dict[str, Any]] = []
    while len(records) < RECORDS_PER_CASE:
        record = corpus.record(FIELDS)
        if comparable(record):
            records.append(record)
    return [{"op": "transform", "class": cls, "config": config, "records": records} for cls, config in plugins]


def test_header_from_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2430 + 1000 * corpus_round
    plugins = []
    for side in ("Key", "Value"):
        for operation in ("move", "copy"):
            plugins.append((f"{T}HeaderFrom${side}", {"fields": "a,id", "headers": "h_a,h_id",
                                                       "operation": operation}))
        plugins.append((f"{T}HeaderFrom${side}", {"fields": "nested", "headers": "n", "operation": "copy"}))
        plugins.append((f"{T}HeaderFrom${side}", {"fields": "b", "headers": "b", "operation": "move",
                                                   "replace.null.with.default": "false"}))
    assert_no_differences(java_data, cases(seed, plugins), seed)


def test_header_from_schemaless_missing_field_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    """A configured field a schemaless map lacks gives a null header on both sides."""
    seed = 2431 + 1000 * corpus_round
    corpus = RecordCorpus(seed)
    records = []
    for _ in range(50):
        record = corpus.record(FIELDS)
        record.update(value_schema=None, value=corpus.schemaless())
        records.append(record)
    assert_no_differences(java_data, [{"op": "transform", "class": f"{T}HeaderFrom$Value",
                                       "config": {"fields": "a,missing", "headers": "x,y", "operation": op},
                                       "records": records} for op in ("move", "copy")], seed)


def test_insert_header_literals_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2432 + 1000 * corpus_round
    literals = [t for t in EDGE_TEXTS if t is not None] + ["42", "x", "[1,2]", "{\"k\":1.5}", "2024-01-31"]
    corpus = RecordCorpus(seed, header_schemas=True)
    records = [corpus.record(FIELDS) for _ in range(5)]
    assert_no_differences(java_data, [{"op": "transform", "class": f"{T}InsertHeader",
                                       "config": {"header": "lit", "value.literal": literal}, "records": records}
                                      for literal in literals], seed)


def test_drop_headers_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2433 + 1000 * corpus_round
    assert_no_differences(java_data, cases(seed, [
        (f"{T}DropHeaders", {"headers": "h"}),
        (f"{T}DropHeaders", {"headers": "trace,é,absent"}),
    ]), seed)
