"""The built-in predicates (Kafka's ``org.apache.kafka.connect.transforms.predicates``):
``TopicNameMatches``, ``HasHeaderKey`` and ``RecordIsTombstone``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import NO_DEFAULT, ConfigDef, ConfigType, Importance
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.record import SourceRecord
from connect_runtime.config.java_regex import compile_java, regex_validator
from connect_runtime.transforms._util import BuiltinPredicate

PATTERN = "pattern"
NAME = "name"


def _non_empty(name: str, value: Any) -> None:
    """Kafka's ``ConfigDef.NonEmptyString``."""
    if value is not None and str(value) == "":
        raise ConfigException(name, value, "String must be non-empty")


def _non_empty_regex(name: str, value: Any) -> None:
    _non_empty(name, value)
    regex_validator(name, value)


TOPIC_NAME_MATCHES_CONFIG_DEF = ConfigDef().define(
    PATTERN, ConfigType.STRING, NO_DEFAULT, _non_empty_regex, Importance.MEDIUM,
    "A Java regular expression for matching against the name of a record's topic.")

HAS_HEADER_KEY_CONFIG_DEF = ConfigDef().define(
    NAME, ConfigType.STRING, NO_DEFAULT, _non_empty, Importance.MEDIUM, "The header name.")


class TopicNameMatches(BuiltinPredicate):
    """A predicate which is true for records with a topic name that matches the configured regular
    expression (``pattern``, matched against the whole name)."""

    def __init__(self) -> None:
        self._pattern: re.Pattern[str] | None = None

    def config_def(self) -> ConfigDef:
        return TOPIC_NAME_MATCHES_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        value = TOPIC_NAME_MATCHES_CONFIG_DEF.parse(configs)[PATTERN]
        try:
            self._pattern = compile_java(value)
        except re.error as e:
            raise ConfigException(PATTERN, value, f"entry must be a Java-compatible regular expression: {e}") from None

    def test(self, record: SourceRecord) -> bool:
        pattern = self._pattern
        assert pattern is not None, "TopicNameMatches used before configure()"
        return record.topic is not None and pattern.fullmatch(record.topic) is not None

    def __repr__(self) -> str:
        return f"TopicNameMatches{{pattern={self._pattern.pattern if self._pattern else None}}}"


class HasHeaderKey(BuiltinPredicate):
    """A predicate which is true for records with at least one header with the configured name."""

    def __init__(self) -> None:
        self._name = ""

    def config_def(self) -> ConfigDef:
        return HAS_HEADER_KEY_CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._name = HAS_HEADER_KEY_CONFIG_DEF.parse(configs)[NAME]

    def test(self, record: SourceRecord) -> bool:
        headers = record.headers
        if not headers:
            return False
        name = self._name
        return any(header[0] == name for header in headers)

    def __repr__(self) -> str:
        return f"HasHeaderKey{{name='{self._name}'}}"


class RecordIsTombstone(BuiltinPredicate):
    """A predicate which is true for records which are tombstones (i.e. have null value)."""

    def test(self, record: SourceRecord) -> bool:
        return record.value is None

    def __repr__(self) -> str:
        return "RecordIsTombstone{}"
