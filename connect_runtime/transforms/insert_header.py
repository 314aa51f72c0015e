"""InsertHeader: add a header with a literal value to each record.

Java's ``org.apache.kafka.connect.transforms.InsertHeader``: ``header`` is the key, ``value.literal``
the value; existing headers (including ones with the same key) are kept and the new one is appended.

Difference from Java: Java parses the literal into a typed value (``Values.parseString``) that its
header converter then writes back as text; this runtime has no header converter between transforms
and the producer, so the header carries the literal text itself (the same bytes for the strings,
numbers and booleans Java's ``SimpleHeaderConverter`` would write).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import BuiltinTransformation, non_null

HEADER = "header"
VALUE_LITERAL = "value.literal"


class InsertHeader(BuiltinTransformation):
    """Add a header to each record."""

    CONFIG_DEF = (
        ConfigDef()
        .define(HEADER, ConfigType.STRING, NO_DEFAULT, non_null, Importance.HIGH, "The name of the header.")
        .define(VALUE_LITERAL, ConfigType.STRING, NO_DEFAULT, non_null, Importance.HIGH,
                "The literal value that is to be set as the header value on all records."))

    def __init__(self) -> None:
        self._header: tuple[str, str] = ("", "")

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._header = (values[HEADER], values[VALUE_LITERAL])

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return dataclasses.replace(record, headers=[*(record.headers or ()), self._header])
