"""``SchemaAndValue``: a value with its schema, as a converter returns it."""

from __future__ import annotations

from typing import ClassVar

from connect_runtime.api.data.schema import Schema, deep_equals, deep_hash


class SchemaAndValue:
    """An immutable pair of a schema (``None`` when schemaless) and a value."""

    __slots__ = ("_schema", "_value")

    NULL: ClassVar[SchemaAndValue]

    def __init__(self, schema: Schema | None, value: object) -> None:
        self._schema = schema
        self._value = value

    @property
    def schema(self) -> Schema | None:
        """The value's schema; ``None`` for a schemaless value."""
        return self._schema

    @property
    def value(self) -> object:
        """The value, of the Python type its schema takes (see :mod:`connect_runtime.api.data.schema`)."""
        return self._value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SchemaAndValue):
            return NotImplemented
        return self._schema == other._schema and deep_equals(self._value, other._value)

    def __hash__(self) -> int:
        return hash((self._schema, deep_hash(self._value)))

    def __repr__(self) -> str:
        return f"SchemaAndValue{{schema={self._schema!r}, value={self._value}}}"


SchemaAndValue.NULL = SchemaAndValue(None, None)
