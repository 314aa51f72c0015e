"""Kafka Connect's ``Struct`` and the validation of values against schemas (Java's ``Struct`` and
``ConnectSchema.validateValue``), in one module because each needs the other.

The Python types each schema type accepts are listed in :mod:`connect_runtime.api.data.schema`.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping

from connect_runtime.api.data.schema import (
    _INT_RANGES,
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
    Field,
    Schema,
    SchemaType,
    deep_equals,
    deep_hash,
)
from connect_runtime.api.errors import DataException


class Struct:
    """A value of a STRUCT schema: one slot per field, checked against the field's schema on ``put``.

    Mutable like Java's; its hash follows its values, so do not change a struct kept in a set or as a
    dictionary key.
    """

    __slots__ = ("_schema", "_values")

    def __init__(self, schema: Schema) -> None:
        if schema.type is not SchemaType.STRUCT:
            raise DataException(f"Not a struct schema: {schema!r}")
        self._schema = schema
        self._values: list[object] = [None] * len(schema.fields)

    @property
    def schema(self) -> Schema:
        """The STRUCT schema the values are checked against."""
        return self._schema

    def get(self, field: str | Field) -> object:
        """The field's value, or its schema's default value when unset (as Java's ``get``)."""
        found = self._lookup(field)
        value = self._values[found.index]
        return found.schema.default_value if value is None else value

    def get_without_default(self, field: str | Field) -> object:
        """The field's value as put, ``None`` when unset even if the field has a default."""
        return self._values[self._lookup(field).index]

    def put(self, field: str | Field, value: object) -> Struct:
        """Set a field after validating ``value`` against its schema; returns ``self`` for chaining."""
        found = self._schema._fields_by_name.get(field) if field.__class__ is str else None
        if found is None:
            found = self._lookup(field)
        schema = found.schema
        # Fast path: a plain value of exactly its schema's class (and range) is valid as it is.
        if value.__class__ is schema._plain_class:
            bounds = schema._plain_range
            if bounds is None or bounds[0] <= value <= bounds[1]:  # type: ignore[operator]
                self._values[found.index] = value
                return self
        validate_value(schema, value, found.name)
        self._values[found.index] = value
        return self

    def validate(self) -> None:
        """Raise ``DataException`` unless every required field without a default is set and valid."""
        for field in self._schema.fields:
            value = self._values[field.index]
            if value is None and (field.schema.is_optional or field.schema.default_value is not None):
                continue
            validate_value(field.schema, value, field.name)

    def _lookup(self, field: str | Field) -> Field:
        if isinstance(field, Field):
            return field
        found = self._schema.field(field)
        if found is None:
            raise DataException(f"{field} is not a valid field name")
        return found

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Struct):
            return NotImplemented
        return self._schema == other._schema and deep_equals(self._values, other._values)

    def __hash__(self) -> int:
        return hash((self._schema, deep_hash(self._values)))

    def __repr__(self) -> str:
        # Java's toString: the set fields only, values as their str()
        pairs = zip(self._schema.fields, self._values, strict=True)
        shown = (f"{field.name}={value}" for field, value in pairs if value is not None)
        return "Struct{" + ",".join(shown) + "}"


def validate_value(schema: Schema, value: object, field: str | None = None) -> None:
    """Raise ``DataException`` unless ``value`` is valid for ``schema`` (Java's ``validateValue``).

    ``field`` names the struct field in the message (``for field: "x"``), else it says ``for value``.
    """
    _validate(schema, value, "value" if field is None else f'field: "{field}"')


def _validate(schema: Schema, value: object, location: str) -> None:
    if value is None:
        if not schema.is_optional:
            raise DataException(f"Invalid value: null used for required {location}, schema type: {schema.type}")
        return
    named = "" if schema.name is None else f' "{schema.name}"'
    if not _is_expected_class(schema, value):
        raise DataException(
            f"Invalid Python object for schema{named} with type {schema.type}: {type(value)} for {location}"
        )
    int_range = _INT_RANGES.get(schema.type)
    if int_range is not None and isinstance(value, int):
        low, high = int_range
        if not low <= value <= high:
            raise DataException(
                f"Invalid Python object for schema{named} with type {schema.type}: {type(value)} {value} "
                f"out of range [{low}, {high}] for {location}"
            )
    elif isinstance(value, decimal.Decimal) and not value.is_finite():
        # Java's BigDecimal has no NaN or infinity: no converter could write one
        raise DataException(
            f"Invalid Python object for schema{named} with type {schema.type}: {type(value)} {value} "
            f"is not finite for {location}"
        )
    elif isinstance(value, Struct):
        if value.schema != schema:
            raise DataException("Struct schemas do not match.")
        value.validate()
    elif schema.type is SchemaType.ARRAY and isinstance(value, list | tuple):
        entry_location = f"element of array {location}"
        value_schema = _not_none(schema.value_schema, entry_location)
        for entry in value:
            _validate(value_schema, entry, entry_location)
    elif schema.type is SchemaType.MAP and isinstance(value, Mapping):
        key_location = f"key of map {location}"
        value_location = f"value of map {location}"
        key_schema = _not_none(schema.key_schema, key_location)
        value_schema = _not_none(schema.value_schema, value_location)
        for key, entry in value.items():
            _validate(key_schema, key, key_location)
            _validate(value_schema, entry, value_location)

def _not_none(schema: Schema | None, location: str) -> Schema:
    if schema is None:
        raise DataException(f"No schema defined for {location}")
    return schema


_LOGICAL_CLASSES: dict[str, tuple[type, ...]] = {
    DECIMAL_LOGICAL_NAME: (decimal.Decimal,),
    DATE_LOGICAL_NAME: (datetime.date,),
    TIME_LOGICAL_NAME: (datetime.time,),
    TIMESTAMP_LOGICAL_NAME: (datetime.datetime,),
}


def _is_expected_class(schema: Schema, value: object) -> bool:
    logical = _LOGICAL_CLASSES.get(schema.name or "")
    if logical is not None:
        return isinstance(value, logical)
    match schema.type:
        case SchemaType.INT8 | SchemaType.INT16 | SchemaType.INT32 | SchemaType.INT64:
            return isinstance(value, int) and not isinstance(value, bool)
        case SchemaType.FLOAT32 | SchemaType.FLOAT64:
            return isinstance(value, float)
        case SchemaType.BOOLEAN:
            return isinstance(value, bool)
        case SchemaType.STRING:
            return isinstance(value, str)
        case SchemaType.BYTES:
            return isinstance(value, bytes | bytearray)
        case SchemaType.ARRAY:
            return isinstance(value, list | tuple)
        case SchemaType.MAP:
            return isinstance(value, Mapping)
        case SchemaType.STRUCT:
            return isinstance(value, Struct)
    return False


