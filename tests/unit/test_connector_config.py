"""Common and source connector config definitions, and the typed SourceConnectorConfig."""

from __future__ import annotations

import dataclasses
import logging
import re

import pytest

from connect_runtime.api.config_def import ConfigType, Importance
from connect_runtime.api.errors import ConfigException
from connect_runtime.config.connector_config import (
    ExactlyOnceSupportLevel,
    SourceConnectorConfig,
    ToleranceType,
    TransactionBoundary,
    connector_config_def,
    source_connector_config_def,
    uses_topic_creation,
    validate_topic_creation,
)
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.converters.string_converter import StringConverter

BASE = {"name": "orders", "connector.class": "VerifiableSource"}

COMMON_KEYS = [
    "name", "connector.class", "connector.plugin.version", "tasks.max", "tasks.max.enforce", "key.converter",
    "key.converter.plugin.version", "value.converter", "value.converter.plugin.version", "header.converter",
    "header.converter.plugin.version", "transforms", "predicates", "config.action.reload", "errors.retry.timeout",
    "errors.retry.delay.max.ms", "errors.tolerance", "errors.log.enable", "errors.log.include.messages",
]
SOURCE_KEYS = [
    "topic.creation.groups", "exactly.once.support", "transaction.boundary",
    "transaction.boundary.interval.ms", "offsets.storage.topic",
]


def parse_error(props: dict[str, str]) -> str:
    with pytest.raises(ConfigException) as info:
        SourceConnectorConfig.parse(props)
    return str(info.value)


# --- the definitions ------------------------------------------------------------------------------


def test_common_keys_in_java_order() -> None:
    assert list(connector_config_def().keys) == COMMON_KEYS


def test_source_keys_extend_the_common_ones() -> None:
    assert list(source_connector_config_def().keys) == COMMON_KEYS + SOURCE_KEYS


def test_each_call_returns_a_fresh_def() -> None:
    first = connector_config_def()
    first.define("extra", ConfigType.STRING, "")
    assert "extra" not in connector_config_def().keys


@pytest.mark.parametrize(
    ("key", "type_", "default", "group", "order", "importance", "display"),
    [
        ("name", ConfigType.STRING, None, "Common", 1, Importance.HIGH, "Connector name"),
        ("connector.class", ConfigType.STRING, None, "Common", 2, Importance.HIGH, "Connector class"),
        ("connector.plugin.version", ConfigType.STRING, None, "Common", 3, Importance.MEDIUM, "Connector version"),
        ("tasks.max", ConfigType.INT, 1, "Common", 4, Importance.HIGH, "Tasks max"),
        ("tasks.max.enforce", ConfigType.BOOLEAN, True, "Common", 5, Importance.LOW, "Enforce tasks max"),
        ("key.converter", ConfigType.CLASS, None, "Common", 6, Importance.LOW, "Key converter class"),
        ("key.converter.plugin.version", ConfigType.STRING, None, "Common", 7, Importance.LOW,
         "Key converter version"),
        ("value.converter", ConfigType.CLASS, None, "Common", 8, Importance.LOW, "Value converter class"),
        ("value.converter.plugin.version", ConfigType.STRING, None, "Common", 9, Importance.LOW,
         "Value converter version"),
        ("header.converter", ConfigType.CLASS, None, "Common", 10, Importance.LOW, "Header converter class"),
        ("header.converter.plugin.version", ConfigType.STRING, None, "Common", 11, Importance.LOW,
         "Header converter version"),
        ("transforms", ConfigType.LIST, [], "Transforms", 12, Importance.LOW, "Transforms"),
        ("predicates", ConfigType.LIST, [], "Predicates", 13, Importance.LOW, "Predicates"),
        ("config.action.reload", ConfigType.STRING, "restart", "Common", 14, Importance.LOW, "Reload Action"),
        ("errors.retry.timeout", ConfigType.LONG, 0, "Error Handling", 1, Importance.MEDIUM,
         "Retry Timeout for Errors"),
        ("errors.retry.delay.max.ms", ConfigType.LONG, 60000, "Error Handling", 2, Importance.MEDIUM,
         "Maximum Delay Between Retries for Errors"),
        ("errors.tolerance", ConfigType.STRING, "none", "Error Handling", 3, Importance.MEDIUM,
         "Error Tolerance"),
        ("errors.log.enable", ConfigType.BOOLEAN, False, "Error Handling", 4, Importance.MEDIUM,
         "Log Errors"),
        ("errors.log.include.messages", ConfigType.BOOLEAN, False, "Error Handling", 5, Importance.MEDIUM,
         "Log Error Details"),
        ("topic.creation.groups", ConfigType.LIST, [], "Topic Creation", 1, Importance.LOW,
         "Topic Creation Groups"),
        ("exactly.once.support", ConfigType.STRING, "requested", "Exactly Once Support", 2, Importance.MEDIUM,
         "Exactly once support"),
        ("transaction.boundary", ConfigType.STRING, "poll", "Exactly Once Support", 3, Importance.MEDIUM,
         "Transaction Boundary"),
        ("transaction.boundary.interval.ms", ConfigType.LONG, None, "Exactly Once Support", 4, Importance.LOW,
         "Transaction boundary interval"),
        ("offsets.storage.topic", ConfigType.STRING, None, "offsets.topic", 1, Importance.LOW,
         "Offsets topic"),
    ],
)
def test_key_definitions(
    key: str, type_: ConfigType, default: object, group: str, order: int, importance: Importance,
    display: str,
) -> None:
    k = source_connector_config_def().keys[key]
    assert k.type is type_
    assert k.required is (key in ("name", "connector.class"))
    if not k.required:
        assert k.default == default
    assert k.group == group
    assert k.order_in_group == order
    assert k.importance is importance
    assert k.display_name == display
    assert len(k.documentation) > 20


def test_documentation_follows_java() -> None:
    keys = source_connector_config_def().keys
    assert keys["name"].documentation == "Globally unique name to use for this connector."
    assert keys["tasks.max"].documentation == "Maximum number of tasks to use for this connector."
    assert keys["exactly.once.support"].documentation.startswith(
        'Permitted values are requested, required. If set to "required", forces a preflight check')
    assert keys["transaction.boundary"].documentation.startswith(
        "Permitted values are: poll, interval, connector. If set to 'poll', a new producer transaction")
    assert "'offset.flush.interval.ms'" in keys["transaction.boundary.interval.ms"].documentation


def test_common_def_has_no_source_keys() -> None:
    assert not set(SOURCE_KEYS) & set(connector_config_def().keys)


# --- parsing and validation -----------------------------------------------------------------------


def test_defaults() -> None:
    c = SourceConnectorConfig.parse(BASE)
    assert c.name == "orders"
    assert c.connector_class == "VerifiableSource"
    assert c.tasks_max == 1
    assert (c.key_converter, c.value_converter, c.header_converter) == (None, None, None)
    assert c.transforms == ()
    assert c.predicates == ()
    assert c.errors_retry_timeout == 0
    assert c.errors_retry_delay_max_ms == 60000
    assert c.errors_tolerance is ToleranceType.NONE
    assert c.errors_log_enable is False
    assert c.errors_log_include_messages is False
    assert c.exactly_once_support is ExactlyOnceSupportLevel.REQUESTED
    assert c.transaction_boundary is TransactionBoundary.POLL
    assert c.transaction_boundary_interval_ms is None
    assert c.offsets_storage_topic is None
    assert c.topic_creation == ()
    assert c.uses_topic_creation is False


def test_values_are_parsed() -> None:
    c = SourceConnectorConfig.parse({
        **BASE,
        "tasks.max": " 4 ",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": " org.apache.kafka.connect.json.JsonConverter ",
        "transforms": "a, b",
        "predicates": "p",
        "config.action.reload": "none",
        "errors.retry.timeout": "-1",
        "errors.tolerance": "all",
        "errors.log.enable": "TRUE",
        "exactly.once.support": "REQUIRED",
        "transaction.boundary": "Interval",
        "transaction.boundary.interval.ms": "250",
        "offsets.storage.topic": " orders-offsets ",
    })
    assert c.tasks_max == 4
    assert c.key_converter == "org.apache.kafka.connect.storage.StringConverter"
    assert c.value_converter == "org.apache.kafka.connect.json.JsonConverter"
    assert c.transforms == ("a", "b")
    assert c.predicates == ("p",)
    assert c.errors_retry_timeout == -1
    assert c.errors_tolerance is ToleranceType.ALL
    assert c.errors_log_enable is True
    assert c.exactly_once_support is ExactlyOnceSupportLevel.REQUIRED
    assert c.transaction_boundary is TransactionBoundary.INTERVAL
    assert c.transaction_boundary_interval_ms == 250
    assert c.offsets_storage_topic == "orders-offsets"


@pytest.mark.parametrize(("raw", "expected"), [
    ("poll", TransactionBoundary.POLL), ("INTERVAL", TransactionBoundary.INTERVAL),
    ("Connector", TransactionBoundary.CONNECTOR)])
def test_transaction_boundary_is_case_insensitive(raw: str, expected: TransactionBoundary) -> None:
    assert SourceConnectorConfig.parse({**BASE, "transaction.boundary": raw}).transaction_boundary is expected


@pytest.mark.parametrize("key", ["name", "connector.class"])
def test_required(key: str) -> None:
    props = {k: v for k, v in BASE.items() if k != key}
    assert parse_error(props) == f'Missing required configuration "{key}" which has no default value.'


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"name": ""}, "Invalid value  for configuration name: String may not be empty"),
        ({"name": "   "}, "Invalid value  for configuration name: String may not be empty"),
        ({"name": "bad\x07name"},
         "String may not contain control sequences but had the following ASCII chars: 7"),
        ({"name": "bad\u0085name"}, "following ASCII chars: 133"),
        ({"tasks.max": "0"}, "Invalid value 0 for configuration tasks.max: Value must be at least 1"),
        ({"tasks.max": "many"}, "Not a number of type INT"),
        ({"transforms": "a,b,a"}, "Invalid value ['a', 'b', 'a'] for configuration transforms: "
                                  "Duplicate alias provided."),
        ({"predicates": "p,p"}, "configuration predicates: Duplicate alias provided."),
        ({"topic.creation.groups": "g1,g1"},
         "configuration topic.creation.groups: Duplicate alias provided."),
        ({"config.action.reload": "reload"}, "String must be one of: none, restart"),
        ({"errors.retry.timeout": "-2"}, "Value must be at least -1"),
        ({"errors.tolerance": "some"}, "String must be one of: none, all"),
        ({"errors.tolerance": "ALL"}, "String must be one of: none, all"),  # case-sensitive, as in Java
        ({"errors.log.enable": "yes"}, "Expected value to be either true or false"),
        ({"exactly.once.support": "maybe"},
         "Invalid value maybe for configuration exactly.once.support: "
         "String must be one of: requested, required"),
        ({"transaction.boundary": "batch"}, "String must be one of: poll, interval, connector"),
        ({"transaction.boundary.interval.ms": "-1"}, "Value must be at least 0"),
        ({"transaction.boundary.interval.ms": ""}, "Not a number of type LONG"),
        ({"offsets.storage.topic": ""}, "configuration offsets.storage.topic: String must be non-empty"),
    ],
)
def test_invalid(props: dict[str, str], expected: str) -> None:
    assert expected in parse_error({**BASE, **props})


def test_name_may_contain_unicode_and_spaces() -> None:
    name = "Bestellungen für Köln"
    assert SourceConnectorConfig.parse({**BASE, "name": name}).name == name


def test_validate_reports_every_error() -> None:
    results = {cv.name: cv for cv in source_connector_config_def().validate(
        {"name": "x", "tasks.max": "0", "exactly.once.support": "nope"})}
    assert results["connector.class"].errors == [
        'Missing required configuration "connector.class" which has no default value.']
    assert results["tasks.max"].errors
    assert results["exactly.once.support"].errors
    assert results["name"].errors == []
    assert results["transaction.boundary"].value == "poll"


def test_client_overrides() -> None:
    c = SourceConnectorConfig.parse({
        **BASE,
        "producer.override.linger.ms": "10",
        "producer.override.compression.type": "zstd",
        "consumer.override.isolation.level": "read_committed",
        "admin.override.request.timeout.ms": "5000",
        "producer.linger.ms": "99",  # not an override: a connector setting
    })
    assert c.client_overrides("producer") == {"linger.ms": "10", "compression.type": "zstd"}
    assert c.client_overrides("consumer") == {"isolation.level": "read_committed"}
    assert c.client_overrides("admin") == {"request.timeout.ms": "5000"}
    with pytest.raises(ValueError, match="kind"):
        c.client_overrides("streams")


def test_converter_settings() -> None:
    c = SourceConnectorConfig.parse({
        **BASE,
        "key.converter": " org.apache.kafka.connect.storage.StringConverter ",
        "key.converter.converter.encoding": "UTF-16",
        "value.converter.schemas.enable": "false",  # without value.converter: the worker's applies
    })
    assert c.converter_settings("key") == (
        "org.apache.kafka.connect.storage.StringConverter", {"converter.encoding": "UTF-16"})
    assert c.converter_settings("value") is None
    assert c.converter_settings("header") is None
    with pytest.raises(ValueError, match="kind"):
        c.converter_settings("record")


def test_originals_keep_plugin_keys_and_stay_out_of_repr() -> None:
    props = {**BASE, "database.password": "s3cret", "topic": "t"}
    c = SourceConnectorConfig.parse(props)
    assert c.originals == props
    assert "s3cret" not in repr(c)


def test_frozen() -> None:
    c = SourceConnectorConfig.parse(BASE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.tasks_max = 2  # type: ignore[misc]


# --- topic creation (KIP-158) ---------------------------------------------------------------------


def test_uses_topic_creation() -> None:
    assert uses_topic_creation({"topic.creation.default.partitions": "1"})
    assert not uses_topic_creation({"topic.creationx": "1", "topics": "a"})


def test_topic_creation_requires_default_group_settings_when_enabled() -> None:
    props = {**BASE, "topic.creation.groups": "big"}
    with pytest.raises(ConfigException) as info:
        SourceConnectorConfig.parse(props, topic_creation_enabled=True)
    assert str(info.value) == (
        'Missing required configuration "topic.creation.default.replication.factor" '
        "which has no default value.")
    # Read for another purpose than running the connector (no worker setting given): not checked.
    assert SourceConnectorConfig.parse(props).topic_creation == ()
    ok = {**props, "topic.creation.default.replication.factor": "-1",
          "topic.creation.default.partitions": "3"}
    c = SourceConnectorConfig.parse(ok, topic_creation_enabled=True)
    assert c.uses_topic_creation
    assert [g.name for g in c.topic_creation] == ["big", "default"]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("topic.creation.default.replication.factor", "0",
         "Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, or -1"),
        ("topic.creation.default.partitions", "-2", "Number of partitions must be positive, or -1"),
        ("topic.creation.default.partitions", "x", "Not a number of type INT"),
    ],
)
def test_topic_creation_default_group_validation(key: str, value: str, expected: str) -> None:
    props = {
        **BASE, "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1",
        key: value,
    }
    with pytest.raises(ConfigException, match=expected):
        SourceConnectorConfig.parse(props, topic_creation_enabled=True)


def test_default_topic_creation_group_is_dropped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="connect_runtime.config.connector_config"):
        c = SourceConnectorConfig.parse({**BASE, "topic.creation.groups": "default,big",
                                          "topic.creation.default.replication.factor": "-1",
                                          "topic.creation.default.partitions": "1"}, topic_creation_enabled=True)
    assert [g.name for g in c.topic_creation] == ["big", "default"]
    assert "'default' topic creation group always exists" in caplog.text


def test_topic_creation_groups_are_parsed_in_order_with_the_default_last() -> None:
    props = {
        **BASE, "topic.creation.groups": "compacted,big",
        "topic.creation.default.replication.factor": "3", "topic.creation.default.partitions": "6",
        "topic.creation.default.retention.ms": "1000",
        "topic.creation.compacted.include": "a.*,b", "topic.creation.compacted.exclude": "ab",
        "topic.creation.compacted.cleanup.policy": "compact",
        "topic.creation.big.include": "big-.*", "topic.creation.big.partitions": "60",
        "topic.creation.big.replication.factor": "-1",
    }
    compacted, big, default = SourceConnectorConfig.parse(props, topic_creation_enabled=True).topic_creation
    assert (compacted.name, compacted.include, compacted.exclude) == ("compacted", ("a.*", "b"), ("ab",))
    # Replication factor and partitions default to the default group's; topic configs are the group's own.
    assert (compacted.replication_factor, compacted.partitions) == (3, 6)
    assert compacted.topic_configs == {"cleanup.policy": "compact"}
    assert (big.replication_factor, big.partitions, big.topic_configs) == (-1, 60, {})
    assert (default.name, default.include, default.exclude) == ("default", (".*",), ())
    assert default.topic_configs == {"retention.ms": "1000"}
    # Not created by this worker: nothing to create with.
    assert SourceConnectorConfig.parse(props).topic_creation == ()
    assert SourceConnectorConfig.parse(BASE, topic_creation_enabled=True).topic_creation == ()


def test_topic_creation_keys_of_unlisted_groups_are_refused() -> None:
    props = {**BASE, "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1",
             "topic.creation.big.partitions": "60"}
    with pytest.raises(ConfigException, match=re.escape("topic.creation.big.partitions. List the group in")):
        SourceConnectorConfig.parse(props, topic_creation_enabled=True)
    _, values = validate_topic_creation(props, True)
    assert [v.errors for v in values if v.name == "topic.creation.groups"] == [[
        "Topic creation settings of no topic creation group: topic.creation.big.partitions. List the group in "
        "topic.creation.groups (the 'default' group always exists and is not listed)."]]


@pytest.mark.parametrize("key", ["topic.creation.default.include", "topic.creation.default.exclude"])
def test_default_group_patterns_are_refused(key: str) -> None:
    """Kafka Connect ignores them with a warning: the default group takes every topic no other group matched."""
    props = {**BASE, "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1",
             key: "orders-.*"}
    message = (f"The 'default' topic creation group matches every topic no other group matches, so {key} would "
               "have no effect: remove it, or list a group of your own in topic.creation.groups")
    with pytest.raises(ConfigException, match=re.escape(message)):
        SourceConnectorConfig.parse(props, topic_creation_enabled=True)
    _, values = validate_topic_creation(props, True)
    assert [v.errors for v in values if v.errors] == [[message]]


def test_topic_creation_bad_group_regex_is_a_validation_error() -> None:
    props = {**BASE, "topic.creation.groups": "g", "topic.creation.default.replication.factor": "1",
             "topic.creation.default.partitions": "1", "topic.creation.g.include": "a(b"}
    definition, values = validate_topic_creation(props, True)
    assert "topic.creation.g.include" in definition.keys
    errors = {v.name: v.errors for v in values if v.errors}
    assert list(errors) == ["topic.creation.g.include"]
    assert "Syntax error in regular expression" in errors["topic.creation.g.include"][0]


def test_topic_creation_settings_on_a_worker_without_topic_creation_are_refused_at_validation() -> None:
    props = {**BASE, "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}
    _, values = validate_topic_creation(props, False)
    assert [(v.name, v.errors) for v in values] == [("topic.creation.groups", [
        "Topic creation is disabled on this worker (topic.creation.enable=false), so the topic.creation.* settings "
        "would have no effect: remove them, or enable topic creation on the workers."])]
    assert validate_topic_creation(BASE, False)[1] == []


@pytest.mark.parametrize(("key", "start"), [
    ("connector.plugin.version", "Version of the connector."),
    ("key.converter.plugin.version", "Version of the key converter."),
    ("tasks.max.enforce", "(Deprecated) Whether to enforce that the tasks.max property is respected by the "
                          "connector. By default, connectors that generate too many tasks will fail, and existing"),
    ("header.converter", "HeaderConverter class used to convert between Kafka Connect format and the serialized "
                         "form that is written to Kafka. This controls the format of the header values in messages "
                         "written to or read from Kafka, and since this is independent of connectors it allows any "
                         "connector to work with any serialization format. Examples of common formats include JSON "
                         "and Avro. By default, the SimpleHeaderConverter is used"),
    ("errors.log.include.messages", "Whether to include in the log the Connect record that resulted in a failure. "
                                    "For sink records,"),
])
def test_documentation_is_kafkas(key: str, start: str) -> None:
    # GET /connector-plugins/{p}/config and validation results show these texts as Kafka Connect does.
    assert connector_config_def().keys[key].documentation.startswith(start)


def test_converter_documentation_is_kafkas() -> None:
    docs = {k.name: k.documentation for k in JsonConverter().config_def().keys.values()}
    assert docs["schemas.enable"] == "Include schemas within each of the serialized values and keys."
    assert docs["schemas.cache.size"] == "The maximum number of schemas that can be cached in this converter instance."
    encoding = StringConverter().config_def().keys["converter.encoding"].documentation
    assert encoding == "The name of the Java character set to use for encoding strings as byte arrays."
