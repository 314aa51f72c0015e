"""MaskField: replace the named top-level fields of a key or value with an empty value of their type.

Java's ``MaskField$Key`` / ``$Value``. Schemaless, the operand must be a map. Without ``replacement`` a field is masked
with ``False``, ``0``, ``0.0``, ``""``, ``Decimal(0)``, the epoch (for datetime values), ``[]`` or ``{}``;
a null field stays null; a field that is absent is added as null (Java puts ``masked(null)``). With
``replacement`` the replacement text is converted to the field's type: integers (Java Long) and floats
(Double) through ``BigDecimal`` as Java's ``Values`` does, strings unchanged, decimals exactly;
booleans, bytes, lists, maps and datetimes cannot take a custom replacement (DataException).

With a schema the operand must be a Struct (a null one included, as in Java); the result keeps its
schema, and only the schema's fields are masked (a named field the schema lacks is ignored). A field
is masked by its schema's type as Java masks the value's class: INT8..INT64 ``0``, FLOAT32/64
``0.0``, BOOLEAN ``False``, STRING ``""``, ARRAY ``[]``, MAP ``{}``, ``Decimal`` zero and ``Date``,
``Time`` and ``Timestamp`` the epoch; BYTES and STRUCT cannot be masked. A ``replacement`` is
converted to INT8..INT64 and FLOAT32/64 as Java's ``Values.convertTo*`` does (through BigDecimal,
then narrowed like a Java cast: ``"300"`` in an INT8 field is ``44``), kept for STRING, read exactly
for ``Decimal``. A null field stays null; its schema's default replaces it first unless
``replace.null.with.default`` is false.

Differences from Java: Python has one integer and one float type, masked as Java masks a Long and a
Double; bytes cannot be masked (as byte[] in Java). With a schema: none.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, DataException, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.api.data import Schema, SchemaType, Struct
from connect_runtime.api.java_json import to_float32
from connect_runtime.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    BuiltinTransformation,
    define_replace_null_with_default,
    field_reader,
    java_class,
    non_empty_list,
    non_empty_string,
    operand,
    operand_schema,
    parse_java_big_decimal,
    require_map,
    struct_operand,
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


_INT_BITS = {SchemaType.INT8: 8, SchemaType.INT16: 16, SchemaType.INT32: 32}


def _java_narrowed(value: Any, schema: Schema) -> Any:
    """A Long or Double mask as the schema's narrower Java type holds it: the low bits of an integer
    (Java's ``(byte)``/``(short)``/``(int)`` casts), a FLOAT32 rounded to single precision."""
    bits = _INT_BITS.get(schema.type)
    if bits is not None and isinstance(value, int):
        half = 1 << (bits - 1)
        return (value + half) % (1 << bits) - half
    if schema.type is SchemaType.FLOAT32 and isinstance(value, float):
        return to_float32(value)
    return value


def _mask_with_empty_temporal(value: Any) -> Any:
    """The epoch as a value of a Date, Time or Timestamp field (Java masks each with ``new Date(0)``)."""
    if isinstance(value, datetime.datetime):
        return _EPOCH
    if isinstance(value, datetime.date):
        return _EPOCH.date()
    if isinstance(value, datetime.time):
        return datetime.time()
    return _mask_with_empty(value)


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
        self._replace_null_with_default = True

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._fields = tuple(dict.fromkeys(values[FIELDS]))
        self._replacement = values[REPLACEMENT]
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]

    def _masked(self, value: Any) -> Any:
        if value is None:
            return None
        if self._replacement is None:
            return _mask_with_empty(value)
        return _mask_with_replacement(value, self._replacement)

    def _masked_in(self, value: Any, schema: Schema) -> Any:
        if value is None:
            return None
        if self._replacement is None:
            return _mask_with_empty_temporal(value)
        return _java_narrowed(_mask_with_replacement(value, self._replacement), schema)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if operand_schema(record, self._KEY) is not None:
            return self._apply_with_schema(record)
        value = require_map(operand(record, self._KEY), _PURPOSE)
        updated = dict(value)
        for name in self._fields:
            updated[name] = self._masked(value.get(name))
        return with_operand(record, self._KEY, updated)

    def _apply_with_schema(self, record: SourceRecord) -> SourceRecord:
        value = struct_operand(record, self._KEY, _PURPOSE)
        updated = Struct(value.schema)
        read = field_reader(value, self._replace_null_with_default)
        masked = self._fields
        for field in value.schema.fields:
            original = read(field)
            updated.put(field, self._masked_in(original, field.schema) if field.name in masked else original)
        return with_operand(record, self._KEY, updated)


class MaskFieldKey(MaskField):
    """MaskField on the record key (``MaskField$Key``)."""

    _KEY = True


class MaskFieldValue(MaskField):
    """MaskField on the record value (``MaskField$Value``)."""
