"""The built-in transforms and predicates on schemaless records: Java's config keys, defaults,
behaviour and error messages."""

from __future__ import annotations

import pytest

from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.api.record import SourceRecord
from connect_runtime.config.java_regex import compile_java, java_replacement
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.transforms import (
    Filter,
    HasHeaderKey,
    InsertFieldKey,
    InsertFieldValue,
    RecordIsTombstone,
    RegexRouter,
    TopicNameMatches,
)


def rec(topic: str = "orders", key: object = None, value: object = None, **kw: object) -> SourceRecord:
    return SourceRecord({"p": 1}, {"o": 2}, topic, key=key, value=value, **kw)  # type: ignore[arg-type]


def router(regex: str, replacement: str) -> RegexRouter:
    t = RegexRouter()
    t.configure({"regex": regex, "replacement": replacement, "type": "RegexRouter"})
    return t


def test_names_resolve_to_the_builtins() -> None:
    plugins = PluginRegistry()
    for name in ("org.apache.kafka.connect.transforms.InsertField$Value", "InsertField$Value", "InsertFieldValue",
                 "connect_runtime.transforms.insert_field.InsertFieldValue"):
        assert plugins.resolve(name) is InsertFieldValue
    assert plugins.resolve("org.apache.kafka.connect.transforms.InsertField$Key") is InsertFieldKey
    for name in ("org.apache.kafka.connect.transforms.RegexRouter", "RegexRouter"):
        assert plugins.resolve(name) is RegexRouter
    assert plugins.resolve("org.apache.kafka.connect.transforms.Filter") is Filter
    assert plugins.resolve("org.apache.kafka.connect.transforms.predicates.TopicNameMatches") is TopicNameMatches
    assert plugins.resolve("HasHeaderKey") is HasHeaderKey
    assert plugins.resolve("org.apache.kafka.connect.transforms.predicates.RecordIsTombstone") is RecordIsTombstone


def test_filter_drops_everything() -> None:
    assert Filter().apply(rec(value={"a": 1})) is None
    assert list(Filter().config_def().keys) == []


def test_regex_router_renames_matching_topics_with_java_group_references() -> None:
    r = rec("db-orders", key=1, value={"a": 1}, kafka_partition=2, headers=[("h", b"v")], timestamp=5)
    out = router(r"db-(\w+)", "$1-copy").apply(r)
    assert out is not None and out.topic == "orders-copy"
    assert (out.key, out.value, out.kafka_partition, out.headers, out.timestamp) == (1, {"a": 1}, 2, [("h", b"v")], 5)
    assert (out.source_partition, out.source_offset) == (r.source_partition, r.source_offset)
    assert r.topic == "db-orders"  # the original is left alone


def test_regex_router_needs_a_whole_match_and_replaces_the_first_match() -> None:
    r = rec("xdb-orders")
    assert router(r"db-(\w+)", "$1").apply(r) is r  # matches() in Java: the whole topic
    # Java: matches() then replaceFirst(): the first match found, not necessarily the whole name.
    assert router("a|ab", "X").apply(rec("ab")).topic == "Xb"  # type: ignore[union-attr]
    assert router(r"(?<db>\w+)\.(?<table>\w+)", "${table}_from_${db}").apply(  # type: ignore[union-attr]
        rec("sales.orders")).topic == "orders_from_sales"
    assert router(r"(.*)", r"\$1-$1").apply(rec("t")).topic == "$1-t"  # type: ignore[union-attr]


def test_java_replacement_takes_the_longest_existing_group_number() -> None:
    p = compile_java("(a)" * 11)
    m = p.fullmatch("a" * 11)
    assert m is not None
    assert java_replacement(p, "$11")(m) == "a"
    p2 = compile_java("(a)")
    m2 = p2.fullmatch("a")
    assert m2 is not None
    assert java_replacement(p2, "$11")(m2) == "a1"
    with pytest.raises(ValueError, match="No group 2"):
        java_replacement(p2, "$2")


def test_regex_router_config_errors() -> None:
    with pytest.raises(ConfigException, match=r'Missing required configuration "regex" which has no default value\.'):
        RegexRouter().configure({"replacement": "x"})
    with pytest.raises(ConfigException, match="Invalid value \\( for configuration regex: Invalid regex"):
        RegexRouter().configure({"regex": "(", "replacement": "x"})
    with pytest.raises(ConfigException, match="Invalid value \\$3 for configuration replacement: No group 3"):
        RegexRouter().configure({"regex": "(a)", "replacement": "$3"})


def test_insert_field_value_adds_metadata_and_static_fields() -> None:
    t = InsertFieldValue()
    t.configure({"topic.field": "topic!", "partition.field": "part?", "timestamp.field": "ts",
                 "static.field": "origin", "static.value": "verifiable"})
    value = {"a": 1}
    out = t.apply(rec("orders", key=7, value=value, kafka_partition=3, timestamp=1000))
    assert out is not None
    assert out.value == {"a": 1, "topic": "orders", "part": 3, "ts": 1000, "origin": "verifiable"}
    assert out.key == 7 and value == {"a": 1}
    # No partition, no timestamp: those fields are left out, as in Java.
    out2 = t.apply(rec("orders", value={}))
    assert out2 is not None and out2.value == {"topic": "orders", "origin": "verifiable"}


def test_insert_field_key_works_on_the_key_and_passes_null() -> None:
    t = InsertFieldKey()
    t.configure({"static.field": "k", "static.value": "v"})
    out = t.apply(rec(key={"id": 1}, value="x"))
    assert out is not None and out.key == {"id": 1, "k": "v"} and out.value == "x"
    r = rec(key=None, value="x")
    assert t.apply(r) is r


def test_insert_field_errors() -> None:
    t = InsertFieldValue()
    t.configure({"topic.field": "t"})
    with pytest.raises(DataException, match=r"^Only Map objects supported in absence of schema for "
                                            r"\[field insertion\], found: java.lang.Long$"):
        t.apply(rec(value=5))
    with pytest.raises(ConfigException, match=r"^No field insertion configured$"):
        InsertFieldValue().configure({})
    with pytest.raises(ConfigException, match="No value specified for static field: s"):
        InsertFieldValue().configure({"static.field": "s"})
    offset = InsertFieldValue()
    offset.configure({"offset.field": "o"})
    with pytest.raises(DataException, match=r"Only SinkRecord supported for \[field insertion\]"):
        offset.apply(rec(value={}))
    keys = list(InsertFieldValue().config_def().keys)
    assert keys == ["topic.field", "partition.field", "offset.field", "timestamp.field", "static.field",
                    "static.value", "replace.null.with.default"]


def test_topic_name_matches() -> None:
    p = TopicNameMatches()
    p.configure({"pattern": "orders-.*"})
    assert p.test(rec("orders-1"))
    assert not p.test(rec("xorders-1"))
    with pytest.raises(ConfigException, match="Invalid value  for configuration pattern: String must be non-empty"):
        TopicNameMatches().configure({"pattern": ""})
    with pytest.raises(ConfigException, match='Missing required configuration "pattern"'):
        TopicNameMatches().configure({})


def test_has_header_key() -> None:
    p = HasHeaderKey()
    p.configure({"name": "trace"})
    assert p.test(rec(headers=[("a", b"1"), ("trace", None)]))
    assert not p.test(rec(headers=[("a", b"1")]))
    assert not p.test(rec())
    with pytest.raises(ConfigException, match="String must be non-empty"):
        HasHeaderKey().configure({"name": ""})


def test_record_is_tombstone() -> None:
    assert RecordIsTombstone().test(rec(value=None))
    assert not RecordIsTombstone().test(rec(value=0))
