"""Records for the transforms' differential tests: schema'd (a Struct with its schema, or any schema
type) and schemaless (maps and primitives as Kafka Connect's JSON converter gives them), with headers.

:class:`RecordCorpus` builds record descriptions in java_data_harness.py's format (``R`` in
``tests/java/ConnectDataHarness.java``) from one seed, so a failing case is reproducible from the seed
the test prints. Schemas and values come from the data model's corpus (test_data_model_vs_java.py).
"""

from __future__ import annotations

import json
import random
from typing import Any

from java_data_harness import JavaDataHarness, plugin_differences
from test_data_model_vs_java import Corpus

SCHEMALESS_LEAVES = ("int64", "float64", "string", "boolean")
# Integers in digits of other scripts (Arabic-Indic, Devanagari, full-width; a mathematical digit outside
# the BMP, which Java's parseInt refuses), for Cast's string parsing.
DIGIT_TEXTS = ("\u0661\u0662", "-\u0967\u0968\u0969", "\uff19\uff19\uff19", "+\u0665", "12",
               "\U0001d7d9", "\u0661" * 20, "\u0661 2")


def representable(node: Any) -> bool:
    """False for a description holding a map with two equal keys, which a Python dict cannot hold."""
    if isinstance(node, list):
        return all(representable(x) for x in node)
    if not isinstance(node, dict):
        return True
    if isinstance(node.get("map"), list):
        keys = [json.dumps(pair[0], sort_keys=True) for pair in node["map"]]
        if len(set(keys)) != len(keys):
            return False
    return all(representable(x) for x in node.values())


class RecordCorpus(Corpus):
    """Random record descriptions from one seed."""

    def __init__(self, seed: int, header_schemas: bool = False) -> None:
        super().__init__(seed)
        self.rng = random.Random(seed)
        self.header_schemas = header_schemas

    def text(self, most: int = 8) -> str:
        """Now and then an integer in another script's digits, else any text."""
        if self.rng.random() < 0.1:
            return self.rng.choice(DIGIT_TEXTS)
        return super().text(most)

    def wrong(self, desc: dict[str, Any], in_key: bool) -> tuple[Any, str]:
        """Never a wrong default: a record's schemas are valid (the data model's corpus tests the rest)."""
        return self.valid(desc), "compare"

    def struct_schema(self, fields: list[str] | None = None, depth: int = 1) -> dict[str, Any]:
        """A STRUCT schema with the given field names (random ones otherwise), each of a random schema."""
        names = fields if fields is not None else self.rng.sample(["a", "b", "c", "id", "ts", "nested"],
                                                                  self.rng.randint(1, 5))
        desc: dict[str, Any] = {"type": "STRUCT", "fields": [{"name": n, "schema": self.schema(depth)} for n in names]}
        if self.rng.random() < 0.5:
            desc["name"] = "com.example.Record" + str(self.rng.randint(0, 3))
            if self.rng.random() < 0.5:
                desc["version"] = self.rng.randint(1, 3)
        if self.rng.random() < 0.2:
            desc["optional"] = True
        return desc

    def schemaless(self, depth: int = 0) -> Any:
        """A schemaless value as Kafka Connect's JSON converter reads one (Long, Double, String,
        Boolean, ArrayList, HashMap with string keys)."""
        rng = self.rng
        roll = rng.random()
        if depth < 2 and roll < 0.25:
            return {"map": [[{"string": k}, self.schemaless(depth + 1)]
                            for k in rng.sample(["a", "b", "c", "id", "ts"], rng.randint(0, 4))]}
        if depth < 2 and roll < 0.35:
            return {"array": [self.schemaless(depth + 1) for _ in range(rng.randint(0, 3))]}
        if roll < 0.4:
            return None
        tag = rng.choice(SCHEMALESS_LEAVES)
        if tag == "int64":
            return {"int64": rng.choice([0, -1, rng.randint(-(2**63), 2**63 - 1), rng.randint(-1000, 1000)])}
        if tag == "float64":
            return {"float64": rng.choice([0.5, -2.25, rng.uniform(-1e6, 1e6)])}
        if tag == "string":
            return {"string": self.text()}
        return {"boolean": rng.random() < 0.5}

    def operand(self, struct_fields: list[str] | None = None) -> tuple[dict[str, Any] | None, Any]:
        """A (schema, value) pair for a key or a value: mostly a Struct, sometimes another schema type,
        a null, or schemaless data."""
        roll = self.rng.random()
        if roll < 0.55:
            schema = self.struct_schema(struct_fields)
            value = None if schema.get("optional") and self.rng.random() < 0.2 else self.valid(schema)
            return schema, value
        if roll < 0.7:
            schema = self.schema()
            return schema, self.valid(schema)
        if roll < 0.75:
            return None, None
        return None, self.schemaless()

    def record(self, struct_fields: list[str] | None = None) -> dict[str, Any]:
        """One record description, never one with two equal map keys ("equal bytes map keys" in
        java_data_harness.py's ``DELIBERATE_DIFFERENCES``)."""
        while True:
            record = self._record(struct_fields)
            if representable(record):
                return record

    def _record(self, struct_fields: list[str] | None) -> dict[str, Any]:
        rng = self.rng
        key_schema, key = self.operand(struct_fields)
        value_schema, value = self.operand(struct_fields)
        headers = []
        for _ in range(rng.randint(0, 3)):
            schema = self.schema(2) if self.header_schemas and rng.random() < 0.7 else None
            headers.append({"key": rng.choice(["h", "trace", "é"]), "schema": schema,
                            "value": self.valid(schema) if schema is not None else self.schemaless(1)})
        return {"topic": rng.choice(["orders", "db.public.users", "t-1"]),
                "partition": rng.choice([None, 0, 3]),
                "key_schema": key_schema, "key": key, "value_schema": value_schema, "value": value,
                "timestamp": rng.choice([None, 0, 1_700_000_000_123, rng.randint(0, 4_000_000_000_000)]),
                "headers": headers}


RECORDS_PER_CASE = 200


def cases(seed: int, plugins: list[tuple[str, dict[str, str]]], op: str = "transform",
          records: int = RECORDS_PER_CASE, **corpus_options: Any) -> list[dict[str, Any]]:
    """One case per (Java class, config) of ``plugins``, each over ``records`` records of one corpus."""
    corpus = RecordCorpus(seed, **corpus_options)
    return [{"op": op, "class": cls, "config": config, "records": [corpus.record() for _ in range(records)]}
            for cls, config in plugins]


def assert_no_differences(java_data: JavaDataHarness, batch: list[dict[str, Any]], seed: int) -> None:
    """Fails with the first differing record of each differing case."""
    found = plugin_differences(java_data, batch)
    assert not found, f"seed {seed}: {len(found)} cases differ from Java:\n" + "\n".join(found)
