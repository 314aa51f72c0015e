"""The configuration keys every connector has, whatever its plugin (Kafka's ``ConnectorConfig``).

:func:`connector_config_def` and :func:`source_connector_config_def` return the definitions that
``PUT /connector-plugins/{p}/config/validate`` merges with the plugin's own, so key names, types,
defaults, groups and documentation follow Apache Kafka Connect's ``ConnectorConfig`` and
``SourceConnectorConfig``. :class:`SourceConnectorConfig` is the parsed, typed view the runtime
works with.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from connect_runtime.api.config_def import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ConfigValue,
    Importance,
    Range,
    Validator,
    ValidString,
    Width,
    parse_value,
)
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.override_policy import ClientType
from connect_runtime.config.java_regex import compile_java

__all__ = [
    "CLIENT_OVERRIDE_PREFIXES",
    "ExactlyOnceSupportLevel",
    "SourceConnectorConfig",
    "ToleranceType",
    "TopicCreationGroupConfig",
    "TransactionBoundary",
    "connector_config_def",
    "source_connector_config_def",
    "uses_topic_creation",
    "validate_topic_creation",
]

log = logging.getLogger(__name__)

COMMON_GROUP: Final = "Common"
TRANSFORMS_GROUP: Final = "Transforms"
PREDICATES_GROUP: Final = "Predicates"
ERROR_GROUP: Final = "Error Handling"
TOPIC_CREATION_GROUP: Final = "Topic Creation"
EXACTLY_ONCE_SUPPORT_GROUP: Final = "Exactly Once Support"
OFFSETS_TOPIC_GROUP: Final = "offsets.topic"  # sic: Java's group name for offsets.storage.topic

#: Connector keys with these prefixes override the worker's client settings (policy permitting).
CLIENT_OVERRIDE_PREFIXES: Final[Mapping[ClientType, str]] = {kind: f"{kind.value}.override." for kind in ClientType}

_CONVERTER_KINDS = ("key", "value", "header")

TOPIC_CREATION_PREFIX: Final = "topic.creation."
_DEFAULT_TOPIC_CREATION_GROUP = "default"


class ToleranceType(StrEnum):
    """``errors.tolerance``: whether a failing record fails the task (``none``) or is skipped (``all``)."""

    NONE = "none"
    ALL = "all"


class ExactlyOnceSupportLevel(StrEnum):
    """``exactly.once.support``: whether the connector must pass the exactly-once preflight check."""

    REQUESTED = "requested"
    REQUIRED = "required"


class TransactionBoundary(StrEnum):
    """``transaction.boundary``: when an exactly-once source task commits its producer transaction."""

    POLL = "poll"
    """One transaction per batch returned by ``poll()``."""
    INTERVAL = "interval"
    """Commit when ``transaction.boundary.interval.ms`` has passed."""
    CONNECTOR = "connector"
    """The task decides, through its ``TransactionContext``."""


# --- documentation (texts from Apache Kafka's ConnectorConfig / SourceConnectorConfig) ---------------

_KEY_CONVERTER_DOC = (
    "Converter class used to convert between Kafka Connect format and the serialized form that is "
    "written to Kafka. This controls the format of the keys in messages written to or read from "
    "Kafka, and since this is independent of connectors it allows any connector to work with any "
    "serialization format. Examples of common formats include JSON and Avro.")
_VALUE_CONVERTER_DOC = (
    "Converter class used to convert between Kafka Connect format and the serialized form that is "
    "written to Kafka. This controls the format of the values in messages written to or read from "
    "Kafka, and since this is independent of connectors it allows any connector to work with any "
    "serialization format. Examples of common formats include JSON and Avro.")
_HEADER_CONVERTER_DOC = (
    "HeaderConverter class used to convert between Kafka Connect format and the serialized form that "
    "is written to Kafka. This controls the format of the header values in messages written to or "
    "read from Kafka, and since this is independent of connectors it allows any connector to work "
    "with any serialization format. Examples of common formats include JSON and Avro. By default, the "
    "SimpleHeaderConverter is used to serialize header values to strings and deserialize them by inferring the "
    "schemas.")
_CONNECTOR_CLASS_DOC = (
    "Name or alias of the class for this connector. Must be a subclass of "
    "connect_runtime.api.SourceConnector. If the connector is "
    "connectors.verifiable.VerifiableSourceConnector, you can either specify this full name, or use "
    "\"VerifiableSource\" or \"VerifiableSourceConnector\" to make the configuration a bit shorter")
_CONFIG_RELOAD_ACTION_DOC = (
    "The action that Connect should take on the connector when changes in external configuration "
    "providers result in a change in the connector's configuration properties. A value of 'none' "
    "indicates that Connect will do nothing. A value of 'restart' indicates that Connect should "
    "restart/reload the connector with the updated configuration properties.The restart may actually "
    "be scheduled in the future if the external configuration provider indicates that a configuration "
    "value will expire in the future.")
_ERRORS_RETRY_TIMEOUT_DOC = (
    "The maximum duration in milliseconds that a failed operation will be reattempted. The default is "
    "0, which means no retries will be attempted. Use -1 for infinite retries.")
_ERRORS_RETRY_MAX_DELAY_DOC = (
    "The maximum duration in milliseconds between consecutive retry attempts. Jitter will be added to "
    "the delay once this limit is reached to prevent thundering herd issues.")
_ERRORS_TOLERANCE_DOC = (
    "Behavior for tolerating errors during connector operation. 'none' is the default value and "
    "signals that any error will result in an immediate connector task failure; 'all' changes the "
    "behavior to skip over problematic records.")
_ERRORS_LOG_ENABLE_DOC = (
    "If true, write each error and the details of the failed operation and problematic record to the "
    "Connect application log. This is 'false' by default, so that only errors that are not tolerated "
    "are reported.")
_ERRORS_LOG_INCLUDE_MESSAGES_DOC = (
    "Whether to include in the log the Connect record that resulted in a failure. For sink records, the topic, "
    "partition, offset, and timestamp will be logged. For source records, the key and value (and their schemas), "
    "all headers, and the timestamp, Kafka topic, Kafka partition, source partition, and source offset will be "
    "logged. This is 'false' by default, which will prevent record keys, values, and headers from being written "
    "to log files.")
_EXACTLY_ONCE_SUPPORT_DOC = (
    "Permitted values are requested, required. If set to \"required\", forces a preflight check for the "
    "connector to ensure that it can provide exactly-once semantics with the given configuration. "
    "Some connectors may be capable of providing exactly-once semantics but not signal to Connect "
    "that they support this; in that case, documentation for the connector should be consulted "
    "carefully before creating it, and the value for this property should be set to \"requested\". "
    "Additionally, if the value is set to \"required\" but the worker that performs preflight "
    "validation does not have exactly-once support enabled for source connectors, requests to create "
    "or validate the connector will fail.")
_TRANSACTION_BOUNDARY_DOC = (
    "Permitted values are: poll, interval, connector. If set to 'poll', a new producer transaction "
    "will be started and committed for every batch of records that each task from this connector "
    "provides to Connect. If set to 'connector', relies on connector-defined transaction boundaries; "
    "note that not all connectors are capable of defining their own transaction boundaries, and in "
    "that case, attempts to instantiate a connector with this value will fail. Finally, if set to "
    "'interval', commits transactions only after a user-defined time interval has passed.")
_TRANSACTION_BOUNDARY_INTERVAL_DOC = (
    "If 'transaction.boundary' is set to 'interval', determines the interval for producer transaction "
    "commits by connector tasks. If unset, defaults to the value of the worker-level "
    "'offset.flush.interval.ms' property. It has no effect if a different transaction.boundary is "
    "specified.")
_OFFSETS_TOPIC_DOC = (
    "The name of a separate offsets topic to use for this connector. If empty or not specified, the "
    "worker\u2019s global offsets topic name will be used. If specified, the offsets topic will be created "
    "if it does not already exist on the Kafka cluster targeted by this connector (which may be "
    "different from the one used for the worker's global offsets topic if the bootstrap.servers "
    "property of the connector's producer has been overridden from the worker's). Only applicable in "
    "distributed mode; in standalone mode, setting this property will have no effect.")


# --- validators -------------------------------------------------------------------------------------


def _non_empty_string_without_control_chars(name: str, value: Any) -> None:
    """Java's ``NonEmptyStringWithoutControlChars`` (used for connector names)."""
    if value is None:
        raise ConfigException(name, value, "String value must not be null")
    s = str(value)
    if not s:
        raise ConfigException(name, value, "String may not be empty")
    control = [ord(c) for c in s if ord(c) <= 0x1F or 0x7F <= ord(c) <= 0x9F]
    if control:
        raise ConfigException(
            name, value,
            "String may not contain control sequences but had the following ASCII chars: "
            + ", ".join(str(c) for c in control))


def _non_empty_string(name: str, value: Any) -> None:
    """Java's ``NonEmptyString``: unset is fine, an empty string is not."""
    if value is not None and str(value) == "":
        raise ConfigException(name, value, "String must be non-empty")


def _unique_aliases(name: str, value: Any) -> None:
    """Non-null list without duplicates (Java's alias validator for transforms/predicates/groups)."""
    if value is None:
        raise ConfigException(name, value, "Value must be non-null")
    aliases = list(value)
    if len(aliases) > len(set(aliases)):
        raise ConfigException(name, value, "Duplicate alias provided.")


def _broker_default_or_at_least_one(what: str) -> Validator:
    def check(name: str, value: Any) -> None:
        if value is not None and value != -1 and value < 1:
            raise ConfigException(
                name, value,
                f"{what} must be positive, or -1 to use the broker's default")

    return check


# --- definitions ----------------------------------------------------------------------------------

#: KIP-891: ``<plugin key>.plugin.version`` picks a version of that plugin (unset: the latest installed).
PLUGIN_VERSION_SUFFIX = ".plugin.version"
CONNECTOR_PLUGIN_VERSION = "connector" + PLUGIN_VERSION_SUFFIX
#: KIP-1004: whether a connector generating more task configs than ``tasks.max`` fails.
TASKS_MAX_ENFORCE = "tasks.max.enforce"
TASKS_MAX = "tasks.max"
#: The worker key bounding ``tasks.max`` (ours; see ``WorkerConfig.tasks_max_limit``).
TASKS_MAX_LIMIT = "tasks.max.limit"


def tasks_max_limit_problem(tasks_max: int, limit: int) -> str | None:
    """Why ``tasks.max`` is refused on a worker whose ``tasks.max.limit`` is ``limit`` (None: it is not)."""
    if tasks_max <= limit:
        return None
    return f"Value must be no more than {limit} (this worker's {TASKS_MAX_LIMIT})"


_TASKS_MAX_ENFORCE_DOC = (
    "(Deprecated) Whether to enforce that the tasks.max property is respected by the connector. By default, "
    "connectors that generate too many tasks will fail, and existing sets of tasks that exceed the tasks.max "
    "property will also be failed. If this property is set to false, then connectors will be allowed to generate "
    "more than the maximum number of tasks, and existing sets of tasks that exceed the tasks.max property will be "
    "allowed to run. This property is deprecated and will be removed in an upcoming major release.")


def _plugin_version_doc(what: str) -> str:
    return f"Version of the {what}."


def connector_config_def() -> ConfigDef:
    """The keys common to every connector, as in Kafka's ``ConnectorConfig.configDef()``.

    A new ConfigDef each call, so callers may extend it.
    """
    return (
        ConfigDef()
        .define("name", ConfigType.STRING, NO_DEFAULT, _non_empty_string_without_control_chars,
                Importance.HIGH, "Globally unique name to use for this connector.", COMMON_GROUP, 1,
                Width.MEDIUM, "Connector name")
        .define("connector.class", ConfigType.STRING, NO_DEFAULT, None, Importance.HIGH, _CONNECTOR_CLASS_DOC,
                COMMON_GROUP, 2, Width.LONG, "Connector class")
        .define(CONNECTOR_PLUGIN_VERSION, ConfigType.STRING, None, None, Importance.MEDIUM,
                _plugin_version_doc("connector"), COMMON_GROUP, 3, Width.MEDIUM, "Connector version")
        .define("tasks.max", ConfigType.INT, 1, Range.at_least(1), Importance.HIGH,
                "Maximum number of tasks to use for this connector.", COMMON_GROUP, 4, Width.SHORT,
                "Tasks max")
        .define(TASKS_MAX_ENFORCE, ConfigType.BOOLEAN, True, None, Importance.LOW, _TASKS_MAX_ENFORCE_DOC,
                COMMON_GROUP, 5, Width.SHORT, "Enforce tasks max")
        .define("key.converter", ConfigType.CLASS, None, None, Importance.LOW, _KEY_CONVERTER_DOC,
                COMMON_GROUP, 6, Width.SHORT, "Key converter class")
        .define("key.converter" + PLUGIN_VERSION_SUFFIX, ConfigType.STRING, None, None, Importance.LOW,
                _plugin_version_doc("key converter"), COMMON_GROUP, 7, Width.SHORT, "Key converter version")
        .define("value.converter", ConfigType.CLASS, None, None, Importance.LOW, _VALUE_CONVERTER_DOC,
                COMMON_GROUP, 8, Width.SHORT, "Value converter class")
        .define("value.converter" + PLUGIN_VERSION_SUFFIX, ConfigType.STRING, None, None, Importance.LOW,
                _plugin_version_doc("value converter"), COMMON_GROUP, 9, Width.SHORT, "Value converter version")
        .define("header.converter", ConfigType.CLASS, None, None, Importance.LOW, _HEADER_CONVERTER_DOC,
                COMMON_GROUP, 10, Width.SHORT, "Header converter class")
        .define("header.converter" + PLUGIN_VERSION_SUFFIX, ConfigType.STRING, None, None, Importance.LOW,
                _plugin_version_doc("header converter"), COMMON_GROUP, 11, Width.SHORT, "Header converter version")
        .define("transforms", ConfigType.LIST, [], _unique_aliases, Importance.LOW,
                "Aliases for the transformations to be applied to records.", TRANSFORMS_GROUP, 12, Width.LONG,
                "Transforms")
        .define("predicates", ConfigType.LIST, [], _unique_aliases, Importance.LOW,
                "Aliases for the predicates used by transformations.", PREDICATES_GROUP, 13, Width.LONG,
                "Predicates")
        .define("config.action.reload", ConfigType.STRING, "restart", ValidString.one_of("none", "restart"),
                Importance.LOW, _CONFIG_RELOAD_ACTION_DOC, COMMON_GROUP, 14, Width.MEDIUM, "Reload Action")
        .define("errors.retry.timeout", ConfigType.LONG, 0, Range.at_least(-1), Importance.MEDIUM,
                _ERRORS_RETRY_TIMEOUT_DOC, ERROR_GROUP, 1, Width.MEDIUM, "Retry Timeout for Errors")
        .define("errors.retry.delay.max.ms", ConfigType.LONG, 60000, None, Importance.MEDIUM,
                _ERRORS_RETRY_MAX_DELAY_DOC, ERROR_GROUP, 2, Width.MEDIUM,
                "Maximum Delay Between Retries for Errors")
        .define("errors.tolerance", ConfigType.STRING, ToleranceType.NONE.value,
                ValidString.one_of(*(t.value for t in ToleranceType)), Importance.MEDIUM,
                _ERRORS_TOLERANCE_DOC, ERROR_GROUP, 3, Width.SHORT, "Error Tolerance")
        .define("errors.log.enable", ConfigType.BOOLEAN, False, None, Importance.MEDIUM,
                _ERRORS_LOG_ENABLE_DOC, ERROR_GROUP, 4, Width.SHORT, "Log Errors")
        .define("errors.log.include.messages", ConfigType.BOOLEAN, False, None, Importance.MEDIUM,
                _ERRORS_LOG_INCLUDE_MESSAGES_DOC, ERROR_GROUP, 5, Width.SHORT, "Log Error Details")
    )


def source_connector_config_def() -> ConfigDef:
    """The keys of every source connector: the common ones plus Kafka's ``SourceConnectorConfig`` keys."""
    return (
        connector_config_def()
        .define("topic.creation.groups", ConfigType.LIST, [], _unique_aliases, Importance.LOW,
                "Groups of configurations for topics created by source connectors", TOPIC_CREATION_GROUP, 1,
                Width.LONG, "Topic Creation Groups")
        .define("exactly.once.support", ConfigType.STRING, ExactlyOnceSupportLevel.REQUESTED.value,
                ValidString.one_of(*(v.value for v in ExactlyOnceSupportLevel), case_sensitive=False),
                Importance.MEDIUM, _EXACTLY_ONCE_SUPPORT_DOC, EXACTLY_ONCE_SUPPORT_GROUP, 2, Width.SHORT,
                "Exactly once support")
        .define("transaction.boundary", ConfigType.STRING, TransactionBoundary.POLL.value,
                ValidString.one_of(*(b.value for b in TransactionBoundary), case_sensitive=False),
                Importance.MEDIUM, _TRANSACTION_BOUNDARY_DOC, EXACTLY_ONCE_SUPPORT_GROUP, 3, Width.SHORT,
                "Transaction Boundary")
        .define("transaction.boundary.interval.ms", ConfigType.LONG, None, Range.at_least(0), Importance.LOW,
                _TRANSACTION_BOUNDARY_INTERVAL_DOC, EXACTLY_ONCE_SUPPORT_GROUP, 4, Width.SHORT,
                "Transaction boundary interval")
        .define("offsets.storage.topic", ConfigType.STRING, None, _non_empty_string, Importance.LOW,
                _OFFSETS_TOPIC_DOC, OFFSETS_TOPIC_GROUP, 1, Width.LONG, "Offsets topic")
    )


_INCLUDE_DOC = (
    "A list of regular expression literals used to match the topic names used by the source connector. This "
    "list is used to include topics that should be created using the topic settings defined by this group.")
_EXCLUDE_DOC = (
    "A list of regular expression literals used to match the topic names used by the source connector. This "
    "list is used to exclude topics from being created with the topic settings defined by this group. Note "
    "that exclusion rules have precedent and override any inclusion rules for the topics.")
_REPLICATION_FACTOR_DOC = (
    "The replication factor for new topics created for this connector using this group. This value may be -1 "
    "to use the broker's default replication factor, or may be a positive number not larger than the number "
    "of brokers in the Kafka cluster. A value larger than the number of brokers in the Kafka cluster will "
    "result in an error when the new topic is created. For the default group this configuration is required. "
    "For any other group defined in topic.creation.groups this config is optional and if it's missing it gets "
    "the value of the default group")
_PARTITIONS_DOC = (
    "The number of partitions new topics created for this connector. This value may be -1 to use the broker's "
    "default number of partitions, or a positive number representing the desired number of partitions. For "
    "the default group this configuration is required. For any other group defined in topic.creation.groups "
    "this config is optional and if it's missing it gets the value of the default group")
#: A group's own keys; every other ``topic.creation.<group>.<key>`` is a config of the topics it creates.
_GROUP_KEYS: Final = frozenset({"include", "exclude", "replication.factor", "partitions"})


def _regex_list(name: str, value: Any) -> None:
    """Java's ``REGEX_VALIDATOR``: every item compiles as a (Java) regular expression."""
    for pattern in value or ():
        try:
            compile_java(pattern)
        except re.error as e:
            raise ConfigException(name, value, f"Syntax error in regular expression: {e}") from None


def _replication_factor(name: str, value: Any) -> None:
    if value is not None and value != -1 and value < 1:
        raise ConfigException(
            name, value, "Replication factor must be positive and not larger than the number of brokers in the "
            "Kafka cluster, or -1 to use the broker's default")


def _topic_creation_group_def(group: str, replication_factor: Any = NO_DEFAULT,
                              partitions: Any = NO_DEFAULT) -> ConfigDef:
    """The keys of one topic creation group (Java's ``TopicCreationConfig``). The ``default`` group's
    replication factor and partitions are required; another group's default to the default group's."""
    prefix = TOPIC_CREATION_PREFIX + group + "."
    display = TOPIC_CREATION_GROUP + ": " + group
    is_default = group == _DEFAULT_TOPIC_CREATION_GROUP
    return (
        ConfigDef()
        .define(prefix + "include", ConfigType.LIST, [".*"] if is_default else [],
                None if is_default else _regex_list, Importance.LOW, _INCLUDE_DOC, display, 1, Width.LONG,
                "Inclusion Topic Pattern for " + group)
        .define(prefix + "exclude", ConfigType.LIST, [], None if is_default else _regex_list, Importance.LOW,
                _EXCLUDE_DOC, display, 2, Width.LONG, "Exclusion Topic Pattern for " + group)
        .define(prefix + "replication.factor", ConfigType.SHORT, replication_factor, _replication_factor,
                Importance.LOW, _REPLICATION_FACTOR_DOC, display, 3, Width.LONG,
                "Replication Factor for Topics in " + group)
        .define(prefix + "partitions", ConfigType.INT, partitions,
                _broker_default_or_at_least_one("Number of partitions"), Importance.LOW, _PARTITIONS_DOC, display,
                4, Width.LONG, "Partition Count for Topics in " + group)
    )


def _listed_topic_creation_groups(props: Mapping[str, Any]) -> list[str]:
    """``topic.creation.groups`` without ``default`` (it always exists); [] when unset or invalid."""
    try:
        groups = source_connector_config_def().keys["topic.creation.groups"]
        listed = parse_value(groups, props.get("topic.creation.groups")) or []
    except ConfigException:
        return []
    return list(dict.fromkeys(g for g in listed if g != _DEFAULT_TOPIC_CREATION_GROUP))


def _stray_topic_creation_keys(props: Mapping[str, Any], groups: list[str]) -> list[str]:
    """``topic.creation.*`` keys of no group: they would configure nothing."""
    prefixes = tuple(TOPIC_CREATION_PREFIX + g + "." for g in (_DEFAULT_TOPIC_CREATION_GROUP, *groups))
    return sorted(k for k in props if k.startswith(TOPIC_CREATION_PREFIX) and k != "topic.creation.groups"
                  and not k.startswith(prefixes))


def _stray_keys_error(keys: list[str]) -> str:
    return (f"Topic creation settings of no topic creation group: {', '.join(keys)}. List the group in "
            "topic.creation.groups (the 'default' group always exists and is not listed).")


_CREATION_DISABLED_ERROR = (
    "Topic creation is disabled on this worker (topic.creation.enable=false), so the topic.creation.* settings "
    "would have no effect: remove them, or enable topic creation on the workers.")


def _default_group_pattern_errors(props: Mapping[str, Any]) -> list[ConfigValue]:
    """``topic.creation.default.include`` / ``.exclude``: Kafka Connect ignores them with a warning (the
    default group takes every topic no other group matched); they are refused here."""
    prefix = TOPIC_CREATION_PREFIX + _DEFAULT_TOPIC_CREATION_GROUP + "."
    # Reported on topic.creation.groups, as keys of unlisted groups: a key no ConfigDef defines has no entry.
    return [ConfigValue("topic.creation.groups", errors=[
        f"The '{_DEFAULT_TOPIC_CREATION_GROUP}' topic creation group matches every topic no other group matches, "
        f"so {prefix + k} would have no effect: remove it, or list a group of your own in topic.creation.groups"])
        for k in ("include", "exclude") if prefix + k in props]


def validate_topic_creation(props: Mapping[str, Any], worker_enabled: bool) -> tuple[ConfigDef, list[ConfigValue]]:
    """Validation of the topic creation groups (KIP-158) of a source connector config.

    Returns the groups' key definitions and their values; problems that belong to no single group key
    (topic creation disabled on the worker, keys of unlisted groups) are reported on
    ``topic.creation.groups``. Nothing when ``props`` use no topic creation.
    """
    if not uses_topic_creation(props):
        return ConfigDef(), []
    if not worker_enabled:
        return ConfigDef(), [ConfigValue("topic.creation.groups", errors=[_CREATION_DISABLED_ERROR])]
    default_def = _topic_creation_group_def(_DEFAULT_TOPIC_CREATION_GROUP)
    values = default_def.validate(props)
    by_name = {v.name: v for v in values}
    prefix = TOPIC_CREATION_PREFIX + _DEFAULT_TOPIC_CREATION_GROUP + "."
    rf, partitions = (by_name[prefix + k] for k in ("replication.factor", "partitions"))
    definition = default_def
    groups = _listed_topic_creation_groups(props)
    for group in groups:
        group_def = _topic_creation_group_def(group, None if rf.errors else rf.value,
                                              None if partitions.errors else partitions.value)
        definition = definition.merge(group_def)
        values.extend(group_def.validate(props))
    stray = _stray_topic_creation_keys(props, groups)
    if stray:
        values.append(ConfigValue("topic.creation.groups", errors=[_stray_keys_error(stray)]))
    values.extend(_default_group_pattern_errors(props))
    return definition, values


@dataclass(frozen=True, slots=True)
class TopicCreationGroupConfig:
    """One topic creation group: which topics it matches and how it creates them."""

    name: str
    include: tuple[str, ...]
    """Regular expressions (full match) of the topics the group creates."""
    exclude: tuple[str, ...]
    """Regular expressions of topics it does not create; they win over ``include``."""
    replication_factor: int
    """-1: the broker's default."""
    partitions: int
    """-1: the broker's default."""
    topic_configs: Mapping[str, str]
    """Topic-level configs of the topics it creates (e.g. ``cleanup.policy``)."""


def _topic_creation_groups(props: Mapping[str, str]) -> tuple[TopicCreationGroupConfig, ...]:
    """The listed groups in order, then ``default`` (which matches every topic); raises ConfigException."""
    default = _DEFAULT_TOPIC_CREATION_GROUP
    prefix = TOPIC_CREATION_PREFIX + default + "."
    values = _topic_creation_group_def(default).parse(props)
    rf, partitions = values[prefix + "replication.factor"], values[prefix + "partitions"]
    groups = _listed_topic_creation_groups(props)
    stray = _stray_topic_creation_keys(props, groups)
    if stray:
        raise ConfigException(_stray_keys_error(stray))
    for refused in _default_group_pattern_errors(props):
        raise ConfigException(refused.errors[0])
    out: list[TopicCreationGroupConfig] = []
    for group in [*groups, default]:
        group_prefix = TOPIC_CREATION_PREFIX + group + "."
        if group == default:
            include, exclude = (".*",), ()
        else:
            parsed = _topic_creation_group_def(group, rf, partitions).parse(props)
            include = tuple(parsed[group_prefix + "include"])
            exclude = tuple(parsed[group_prefix + "exclude"])
            rf_g, partitions_g = parsed[group_prefix + "replication.factor"], parsed[group_prefix + "partitions"]
        configs = {k[len(group_prefix):]: str(v) for k, v in props.items()
                   if k.startswith(group_prefix) and k[len(group_prefix):] not in _GROUP_KEYS}
        out.append(TopicCreationGroupConfig(
            group, include, exclude, rf if group == default else rf_g,
            partitions if group == default else partitions_g, configs))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SourceConnectorConfig:
    """A source connector's framework-level configuration, parsed and validated.

    Build it with :meth:`parse`. Plugin-specific keys are only in :attr:`originals`.
    """

    name: str
    connector_class: str
    tasks_max: int
    key_converter: str | None
    value_converter: str | None
    header_converter: str | None
    transforms: tuple[str, ...]
    predicates: tuple[str, ...]
    errors_retry_timeout: int
    errors_retry_delay_max_ms: int
    errors_tolerance: ToleranceType
    errors_log_enable: bool
    errors_log_include_messages: bool
    exactly_once_support: ExactlyOnceSupportLevel
    transaction_boundary: TransactionBoundary
    transaction_boundary_interval_ms: int | None
    """None: use the worker's ``offset.flush.interval.ms``."""
    offsets_storage_topic: str | None
    """None: the worker's global offsets topic only."""
    originals: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False, hash=False)
    """Every raw key the connector was configured with (may contain secrets, hence not in repr)."""
    topic_creation: tuple[TopicCreationGroupConfig, ...] = ()
    """The topic creation groups (listed ones first, ``default`` last) when the worker creates topics for
    this connector (KIP-158); empty when it does not."""

    @classmethod
    def parse(
        cls, props: Mapping[str, str], *, topic_creation_enabled: bool | None = None
    ) -> SourceConnectorConfig:
        """Parse and validate ``props``; the first missing or invalid key raises :class:`ConfigException`.

        ``topic_creation_enabled`` is the worker's ``topic.creation.enable`` when the config is parsed to
        run the connector: with True and any ``topic.creation.*`` key present,
        ``topic.creation.default.replication.factor`` and ``topic.creation.default.partitions`` are
        required, as in Kafka (KIP-158); with False, ``topic.creation.*`` keys are refused (they would
        have no effect), with the message validation gives. None (reading a config for another purpose,
        e.g. its offsets): no topic creation groups are built or checked.
        """
        values = source_connector_config_def().parse(props)
        creation: tuple[TopicCreationGroupConfig, ...] = ()
        if topic_creation_enabled is not None and uses_topic_creation(props):
            if not topic_creation_enabled:
                raise ConfigException(_CREATION_DISABLED_ERROR)
            creation = _topic_creation_groups(props)
        if _DEFAULT_TOPIC_CREATION_GROUP in values["topic.creation.groups"]:
            log.warning("'%s' topic creation group always exists and does not need to be listed explicitly",
                        _DEFAULT_TOPIC_CREATION_GROUP)
        return cls(
            name=values["name"],
            connector_class=values["connector.class"],
            tasks_max=values["tasks.max"],
            key_converter=values["key.converter"],
            value_converter=values["value.converter"],
            header_converter=values["header.converter"],
            transforms=tuple(values["transforms"]),
            predicates=tuple(values["predicates"]),
            errors_retry_timeout=values["errors.retry.timeout"],
            errors_retry_delay_max_ms=values["errors.retry.delay.max.ms"],
            errors_tolerance=ToleranceType(values["errors.tolerance"]),
            errors_log_enable=values["errors.log.enable"],
            errors_log_include_messages=values["errors.log.include.messages"],
            exactly_once_support=ExactlyOnceSupportLevel(values["exactly.once.support"].lower()),
            transaction_boundary=TransactionBoundary(values["transaction.boundary"].lower()),
            transaction_boundary_interval_ms=values["transaction.boundary.interval.ms"],
            offsets_storage_topic=values["offsets.storage.topic"],
            originals=dict(props),
            topic_creation=creation,
        )

    def client_overrides(self, kind: ClientType | str) -> dict[str, str]:
        """The connector's ``<kind>.override.*`` keys with the prefix stripped.

        ``kind`` is ``"producer"``, ``"consumer"`` or ``"admin"``. Whether the worker's
        ``connector.client.config.override.policy`` allows them is checked elsewhere.
        """
        try:
            prefix = CLIENT_OVERRIDE_PREFIXES[ClientType(kind)]
        except ValueError:
            raise ValueError(f"kind must be one of {', '.join(CLIENT_OVERRIDE_PREFIXES)}, not {kind!r}") from None
        return {k[len(prefix):]: v for k, v in self.originals.items() if k.startswith(prefix) and k != prefix}

    def converter_settings(self, kind: str) -> tuple[str, dict[str, str]] | None:
        """The connector's own converter of ``kind`` (``"key"``, ``"value"``, ``"header"``), if it sets one.

        Returns the class name and the ``<kind>.converter.*`` settings with that prefix stripped, or
        None when the connector does not set ``<kind>.converter``: then the worker's converter and
        its settings apply (the connector's ``<kind>.converter.*`` keys alone do not configure it).
        """
        if kind not in _CONVERTER_KINDS:
            raise ValueError(f"converter kind must be one of {', '.join(_CONVERTER_KINDS)}, not {kind!r}")
        class_name: str | None = getattr(self, f"{kind}_converter")
        if not class_name:
            return None
        prefix = f"{kind}.converter."
        return class_name, {k[len(prefix):]: v for k, v in self.originals.items() if k.startswith(prefix)}

    @property
    def uses_topic_creation(self) -> bool:
        """Whether any ``topic.creation.*`` key is set (the connector asks the worker to create topics)."""
        return uses_topic_creation(self.originals)


def uses_topic_creation(props: Mapping[str, Any]) -> bool:
    """Whether any ``topic.creation.*`` key is set in ``props``."""
    return any(key.startswith(TOPIC_CREATION_PREFIX) for key in props)
