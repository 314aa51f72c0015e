"""InsertHeader: add a header with a literal value to each record.

Java's ``org.apache.kafka.connect.transforms.InsertHeader``: ``header`` is the key, ``value.literal``
the value; existing headers (including ones with the same key) are kept and the new one is appended.

As Java does (``Values.parseString``), the literal becomes a typed value that the connector's header
converter writes: ``true``/``false`` a boolean, ``null`` a null value, an integral number (``42``,
``-7``, ``1.0``, ``1E3``) an integer; any other literal stays text. With ``SimpleHeaderConverter``
(the default) the header bytes are Java's: ``1.0`` is written ``1``, ``x`` is written ``x``; with
``JsonConverter`` ``42`` is written ``42`` and ``x`` ``"x"``.

Difference from Java: a fractional number (``1.50``), a date or time, or an array or map literal
(``[1,2]``) is not parsed here and stays text. With ``SimpleHeaderConverter`` that gives the same
bytes for array, map and temporal literals; a fractional literal is written as given (Java writes the
``float`` it parses, e.g. ``1.5`` for ``1.50``), and a JSON header converter quotes all of them.
"""

from __future__ import annotations

import dataclasses
import decimal
import re
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import BuiltinTransformation, non_null

HEADER = "header"
VALUE_LITERAL = "value.literal"

_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]{1,4})?")
_KEYWORDS: dict[str, Any] = {"true": True, "false": False, "null": None}


def parse_literal(text: str) -> Any:
    """The typed value Java's ``Values.parseString`` gives a literal, for the cases handled here
    (booleans, null and integral numbers); any other literal is returned as it is."""
    if text in _KEYWORDS:
        return _KEYWORDS[text]
    if _NUMBER.fullmatch(text):
        number = decimal.Decimal(text)
        if number == number.to_integral_value():
            return int(number)
    return text


class InsertHeader(BuiltinTransformation):
    """Add a header to each record."""

    CONFIG_DEF = (
        ConfigDef()
        .define(HEADER, ConfigType.STRING, NO_DEFAULT, non_null, Importance.HIGH, "The name of the header.")
        .define(VALUE_LITERAL, ConfigType.STRING, NO_DEFAULT, non_null, Importance.HIGH,
                "The literal value that is to be set as the header value on all records."))

    def __init__(self) -> None:
        self._header: tuple[str, Any] = ("", "")

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._header = (values[HEADER], parse_literal(values[VALUE_LITERAL]))

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return dataclasses.replace(record, headers=[*(record.headers or ()), self._header])
