"""TimestampRouter: rename the topic from the original topic and the record timestamp.

Java's ``org.apache.kafka.connect.transforms.TimestampRouter``: ``topic.format`` (default
``${topic}-${timestamp}``) with ``${timestamp}`` rendered by ``timestamp.format`` (a SimpleDateFormat
pattern, default ``yyyyMMdd``, in UTC). A record without a timestamp is a DataException, as in Java.

Differences from Java: ``timestamp.format`` is checked when the transform is configured (Java fails
on the first record), and patterns with the week-based letters ``Y w W F`` are refused with a
ConfigException naming the letter (see ``_simple_date_format``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    DataException,
    Importance,
    SourceRecord,
)
from connect_runtime.transforms._simple_date_format import PatternError, SimpleDateFormat
from connect_runtime.transforms._util import BuiltinTransformation, new_record

TOPIC_FORMAT = "topic.format"
TIMESTAMP_FORMAT = "timestamp.format"


def _valid_pattern(name: str, value: Any) -> None:
    try:
        SimpleDateFormat(value)
    except PatternError as e:
        raise ConfigException(name, value, str(e)) from None


class TimestampRouter(BuiltinTransformation):
    """Update the record's topic as a function of the original topic value and the record timestamp."""

    CONFIG_DEF = (
        ConfigDef()
        .define(TOPIC_FORMAT, ConfigType.STRING, "${topic}-${timestamp}", None, Importance.HIGH,
                "Format string which can contain <code>${topic}</code> and <code>${timestamp}</code> as placeholders "
                "for the topic and timestamp, respectively.")
        .define(TIMESTAMP_FORMAT, ConfigType.STRING, "yyyyMMdd", _valid_pattern, Importance.HIGH,
                "Format string for the timestamp that is compatible with <code>java.text.SimpleDateFormat</code>."))

    def __init__(self) -> None:
        self._topic_format = "${topic}-${timestamp}"
        self._format = SimpleDateFormat("yyyyMMdd")

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._topic_format = values[TOPIC_FORMAT]
        self._format = SimpleDateFormat(values[TIMESTAMP_FORMAT])

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if record.timestamp is None:
            raise DataException(f"Timestamp missing on record: {record}")
        try:
            stamp = self._format.format(record.timestamp)
        except ValueError as e:
            raise DataException(str(e)) from None
        topic = self._topic_format.replace("${topic}", record.topic).replace("${timestamp}", stamp)
        return new_record(record, topic=topic)
