"""The built-in transforms and predicates against Kafka Connect's own, record for record.

Each case configures one transform (or predicate) on both sides and applies it to a run of records
from :class:`transform_corpus.RecordCorpus` (schema'd and schemaless, with headers), through one
instance so the transforms' schema caches see every record. The records that come out (topic,
partition, key and value with their schemas, timestamp, headers), or the exceptions, must be equal
(java_data_harness.py's ``canonical`` form). This module covers the transforms that only route or
filter records; the schema-changing transforms have their own modules.
"""

from __future__ import annotations

import pytest
from java_data_harness import JavaDataHarness
from transform_corpus import assert_no_differences, cases

pytestmark = pytest.mark.kafka  # needs Kafka's jars and a JDK, as the broker does

T = "org.apache.kafka.connect.transforms."
P = T + "predicates."


def test_routers_keep_schemas_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2411 + 1000 * corpus_round
    assert_no_differences(java_data, cases(seed, [
        (T + "RegexRouter", {"regex": "(.*)\\.public\\.(.*)", "replacement": "$2"}),
        (T + "RegexRouter", {"regex": ".*", "replacement": "all"}),
        (T + "TimestampRouter", {}),
        (T + "TimestampRouter", {"topic.format": "${topic}_${timestamp}", "timestamp.format": "yyyy-MM-dd'T'HH"}),
    ]), seed)


def test_filter_and_predicates_as_java(java_data: JavaDataHarness, corpus_round: int) -> None:
    seed = 2412 + 1000 * corpus_round
    assert_no_differences(java_data, cases(seed, [(T + "Filter", {})]), seed)
    assert_no_differences(java_data, cases(seed, [
        (P + "TopicNameMatches", {"pattern": "db\\..*"}),
        (P + "HasHeaderKey", {"name": "trace"}),
        (P + "RecordIsTombstone", {}),
    ], op="predicate"), seed)
