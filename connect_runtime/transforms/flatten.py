"""Flatten: turn nested maps into one map whose keys join the path with ``delimiter`` (default ``.``).

Java's ``Flatten$Key`` / ``$Value`` on schemaless data: nested maps are flattened recursively; lists,
bytes and primitives are copied as they are (lists are not descended into); null fields stay null; a
null operand passes through; a non-map operand is a DataException, and so is a value of a type
Connect's data API does not know (e.g. a Decimal or datetime in schemaless data). No differences
from Java for schemaless data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, DataException, Importance, SourceRecord
from connect_runtime.transforms._util import BuiltinTransformation, java_class, operand, require_map, with_operand

DELIMITER = "delimiter"
_PURPOSE = "flattening"
_PLAIN = (bool, int, float, str, bytes, bytearray, list, tuple)


class Flatten(BuiltinTransformation):
    """Flatten the key (:class:`FlattenKey`) or value (:class:`FlattenValue`)."""

    _KEY = False

    CONFIG_DEF = ConfigDef().define(
        DELIMITER, ConfigType.STRING, ".", None, Importance.MEDIUM,
        "Delimiter to insert between field names from the input record when generating field names for the output "
        "record")

    def __init__(self) -> None:
        self._delimiter = "."

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._delimiter = self.CONFIG_DEF.parse(configs)[DELIMITER]

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = operand(record, self._KEY)
        if value is None:
            return record
        flat: dict[str, Any] = {}
        self._flatten(require_map(value, _PURPOSE), "", flat)
        return with_operand(record, self._KEY, flat)

    def _flatten(self, source: dict[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, value in source.items():
            name = f"{prefix}{self._delimiter}{key}" if prefix else key
            if value is None or isinstance(value, _PLAIN):
                out[name] = value
            elif isinstance(value, dict):
                self._flatten(value, name, out)
            else:
                raise DataException(f"Flatten transformation was passed a value of type {java_class(value)} which is "
                                    "not supported by Connect's data API")


class FlattenKey(Flatten):
    """Flatten on the record key (``Flatten$Key``)."""

    _KEY = True


class FlattenValue(Flatten):
    """Flatten on the record value (``Flatten$Value``)."""
