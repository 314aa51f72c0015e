"""``RegexRouter``: renames the record's topic (Kafka's ``org.apache.kafka.connect.transforms.RegexRouter``)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from connect_runtime.api.config_def import NO_DEFAULT, ConfigDef, ConfigType, Importance
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.record import SourceRecord
from connect_runtime.config.java_regex import compile_java, java_replacement, regex_validator
from connect_runtime.transforms._util import BuiltinTransformation

REGEX = "regex"
REPLACEMENT = "replacement"

CONFIG_DEF = (
    ConfigDef()
    .define(REGEX, ConfigType.STRING, NO_DEFAULT, regex_validator, Importance.HIGH,
            "Regular expression to use for matching.")
    .define(REPLACEMENT, ConfigType.STRING, NO_DEFAULT, None, Importance.HIGH, "Replacement string.")
)


class RegexRouter(BuiltinTransformation):
    """Update the record topic using the configured regular expression and replacement string.

    ``regex`` is a Java regular expression; if it matches the whole topic name, the first match is
    replaced by ``replacement`` (``$1``, ``${name}`` refer to groups), as Java's
    ``Matcher.replaceFirst`` does. Records whose topic does not match pass unchanged.
    """

    def __init__(self) -> None:
        self._regex: re.Pattern[str] | None = None
        self._replace: Callable[[re.Match[str]], str] = lambda _m: ""

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = CONFIG_DEF.parse(configs)
        self._regex = compile_java(values[REGEX])
        try:
            self._replace = java_replacement(self._regex, values[REPLACEMENT])
        except ValueError as e:
            raise ConfigException(REPLACEMENT, values[REPLACEMENT], str(e)) from None

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        regex = self._regex
        assert regex is not None, "RegexRouter used before configure()"
        topic = record.topic
        if regex.fullmatch(topic) is None:
            return record
        new_topic = regex.sub(self._replace, topic, count=1)
        return dataclasses.replace(record, topic=new_topic)
