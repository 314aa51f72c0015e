"""InsertHeader: add a header with a literal value to each record.

Java's ``org.apache.kafka.connect.transforms.InsertHeader``: ``header`` is the key, ``value.literal``
the value; existing headers (including ones with the same key) are kept and the new one is appended.

As Java does, the literal is parsed with ``Values.parse_string`` into a typed value with its inferred
schema, which the header carries to the connector's header converter: ``42`` is an INT8, ``1.5`` a
FLOAT32, ``true`` a BOOLEAN, ``2024-01-31`` a Date, ``[1,2]`` an array of INT8, ``null`` a null
value, anything else the text as a STRING. With ``SimpleHeaderConverter`` (the default) the header
bytes are Java's: ``1.0`` is written ``1``; with ``JsonConverter`` the schema goes into the envelope
when ``schemas.enable`` is true.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Header, Importance, SourceRecord, Values
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
        self._header = Header("", "")

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        literal = Values.parse_string(values[VALUE_LITERAL])
        self._header = Header(values[HEADER], literal.value, literal.schema)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return dataclasses.replace(record, headers=[*(record.headers or ()), self._header])
