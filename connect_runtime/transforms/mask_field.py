"""MaskField: replace the named top-level fields of a schemaless map with an empty value of their type.

Java's ``MaskField$Key`` / ``$Value`` on schemaless data. Without ``replacement`` a field is masked
with ``False``, ``0``, ``0.0``, ``""``, ``Decimal(0)``, the epoch (for datetime values), ``[]`` or ``{}``;
a null field stays null; a field that is absent is added as null (Java puts ``masked(null)``). With
``replacement`` the replacement text is converted to the field's type: integers (Java Long) and floats
(Double) through ``BigDecimal`` as Java's ``Values`` does, strings unchanged, decimals exactly;
booleans, bytes, lists, maps and datetimes cannot take a custom replacement (DataException).

Differences from Java: Python has one integer and one float type, masked as Java masks a Long and a
Double; bytes cannot be masked (as byte[] in Java).
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, DataException, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import (
    BuiltinTransformation,
    define_replace_null_with_default,
    java_class,
    non_empty_list,
    non_empty_string,
    operand,
    parse_java_big_decimal,
    require_map,
    with_operand,
    wrap_long,
)

FIELDS = "fields"
REPLACEMENT = "replacement"
_PURPOSE = "mask fields"
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _mask_with_empty(value: Any) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, str):
        return ""
    if isinstance(value, decimal.Decimal):
        return decimal.Decimal(0)
    if isinstance(value, datetime.datetime):
        return _EPOCH
    if isinstance(value, list | tuple):
        return []
    if isinstance(value, dict):
        return {}
    raise DataException(f"Cannot mask value of type: {java_class(value)}")


def _mask_with_replacement(value: Any, replacement: str) -> Any:
    if isinstance(value, str):
        return replacement
    if isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool):
        number = parse_java_big_decimal(replacement)
        if number is None:
            if isinstance(value, decimal.Decimal):
                raise DataException(f"Unable to convert {replacement} (class java.lang.String) to number")
            raise DataException(f"Unable to convert {replacement} (class java.lang.String) to a number")
        if isinstance(value, decimal.Decimal):
            return number
        if isinstance(value, int):
            return wrap_long(int(number))
        return float(number)
    raise DataException(f"Cannot mask value of type {java_class(value)} with custom replacement.")


class MaskField(BuiltinTransformation):
    """Mask fields of the key (:class:`MaskFieldKey`) or value (:class:`MaskFieldValue`)."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(FIELDS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH, "Names of fields to mask.")
        .define(REPLACEMENT, ConfigType.STRING, None, non_empty_string, Importance.LOW,
                "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty string "
                "values only)."))

    def __init__(self) -> None:
        self._fields: tuple[str, ...] = ()
        self._replacement: str | None = None

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._fields = tuple(dict.fromkeys(values[FIELDS]))
        self._replacement = values[REPLACEMENT]

    def _masked(self, value: Any) -> Any:
        if value is None:
            return None
        if self._replacement is None:
            return _mask_with_empty(value)
        return _mask_with_replacement(value, self._replacement)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = require_map(operand(record, self._KEY), _PURPOSE)
        updated = dict(value)
        for name in self._fields:
            updated[name] = self._masked(value.get(name))
        return with_operand(record, self._KEY, updated)


class MaskFieldKey(MaskField):
    """MaskField on the record key (``MaskField$Key``)."""

    _KEY = True


class MaskFieldValue(MaskField):
    """MaskField on the record value (``MaskField$Value``)."""
