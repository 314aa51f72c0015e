"""``SchemaBuilder``: Java's fluent builder of :class:`Schema`, with its checks and messages."""

from __future__ import annotations

import builtins
from collections.abc import Mapping

from connect_runtime.api.data.schema import Field, Schema, SchemaType
from connect_runtime.api.data.struct import validate_value
from connect_runtime.api.errors import DataException


class SchemaBuilderException(DataException):
    """A ``SchemaBuilder`` call was invalid (a property set twice, a bad default value, ...)."""


class SchemaBuilder:
    """Builds a :class:`Schema` step by step: ``SchemaBuilder.struct().name("n").field("a", s).build()``.

    Each property may be set once (setting it again to the same value is allowed, as in Java); the
    default value is validated against the schema built so far, so set ``optional()`` first for a
    ``None`` default.
    """

    def __init__(self, type: SchemaType) -> None:
        self._type = type
        self._optional: builtins.bool | None = None
        self._default_value: object = None
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] | None = None
        self._fields: dict[str, Field] | None = {} if type is SchemaType.STRUCT else None
        self._key_schema: Schema | None = None
        self._value_schema: Schema | None = None

    @staticmethod
    def of_type(type: SchemaType) -> SchemaBuilder:
        """A builder for ``type`` (Java's static ``SchemaBuilder.type``)."""
        return SchemaBuilder(type)

    @staticmethod
    def int8() -> SchemaBuilder:
        """A builder for an INT8 (a Java ``byte``) schema."""
        return SchemaBuilder(SchemaType.INT8)

    @staticmethod
    def int16() -> SchemaBuilder:
        """A builder for an INT16 (a Java ``short``) schema."""
        return SchemaBuilder(SchemaType.INT16)

    @staticmethod
    def int32() -> SchemaBuilder:
        """A builder for an INT32 (a Java ``int``) schema."""
        return SchemaBuilder(SchemaType.INT32)

    @staticmethod
    def int64() -> SchemaBuilder:
        """A builder for an INT64 (a Java ``long``) schema."""
        return SchemaBuilder(SchemaType.INT64)

    @staticmethod
    def float32() -> SchemaBuilder:
        """A builder for a FLOAT32 (a Java ``float``) schema."""
        return SchemaBuilder(SchemaType.FLOAT32)

    @staticmethod
    def float64() -> SchemaBuilder:
        """A builder for a FLOAT64 (a Java ``double``) schema."""
        return SchemaBuilder(SchemaType.FLOAT64)

    @staticmethod
    def bool() -> SchemaBuilder:
        """A builder for a BOOLEAN schema."""
        return SchemaBuilder(SchemaType.BOOLEAN)

    @staticmethod
    def string() -> SchemaBuilder:
        """A builder for a STRING schema."""
        return SchemaBuilder(SchemaType.STRING)

    @staticmethod
    def bytes() -> SchemaBuilder:
        """A builder for a BYTES schema."""
        return SchemaBuilder(SchemaType.BYTES)

    @staticmethod
    def struct() -> SchemaBuilder:
        """A builder for a STRUCT schema; add its fields with :meth:`field`."""
        return SchemaBuilder(SchemaType.STRUCT)

    @staticmethod
    def array(value_schema: Schema | SchemaBuilder) -> SchemaBuilder:
        """A builder for an ARRAY of ``value_schema`` elements."""
        if value_schema is None:
            raise SchemaBuilderException("valueSchema cannot be null.")
        builder = SchemaBuilder(SchemaType.ARRAY)
        builder._value_schema = _built(value_schema)
        return builder

    @staticmethod
    def map(key_schema: Schema | SchemaBuilder, value_schema: Schema | SchemaBuilder) -> SchemaBuilder:
        """A builder for a MAP from ``key_schema`` keys to ``value_schema`` values."""
        if key_schema is None:
            raise SchemaBuilderException("keySchema cannot be null.")
        if value_schema is None:
            raise SchemaBuilderException("valueSchema cannot be null.")
        builder = SchemaBuilder(SchemaType.MAP)
        builder._key_schema = _built(key_schema)
        builder._value_schema = _built(value_schema)
        return builder

    def optional(self) -> SchemaBuilder:
        """Make ``None`` a valid value."""
        _check_can_set("optional", self._optional, True)
        self._optional = True
        return self

    def required(self) -> SchemaBuilder:
        """Make ``None`` an invalid value (the default)."""
        _check_can_set("optional", self._optional, False)
        self._optional = False
        return self

    def default_value(self, value: object) -> SchemaBuilder:
        """Set the default value; raises ``SchemaBuilderException`` if the schema refuses it."""
        _check_can_set("default", self._default_value, value)
        try:
            validate_value(self.build(), value)
        except DataException as e:
            raise SchemaBuilderException("Invalid default value") from e
        self._default_value = value
        return self

    def name(self, name: str) -> SchemaBuilder:
        """Name the schema (e.g. ``com.example.Order``); a logical type's name makes it that type."""
        _check_can_set("name", self._name, name)
        self._name = name
        return self

    def version(self, version: int) -> SchemaBuilder:
        """Set the schema's version, for consumers telling revisions of one named schema apart."""
        _check_can_set("version", self._version, version)
        self._version = version
        return self

    def doc(self, doc: str) -> SchemaBuilder:
        """Set the schema's documentation text."""
        _check_can_set("doc", self._doc, doc)
        self._doc = doc
        return self

    def parameter(self, name: str, value: str) -> SchemaBuilder:
        """Add one parameter (kept in insertion order)."""
        if self._parameters is None:
            self._parameters = {}
        self._parameters[name] = value
        return self

    def parameters(self, parameters: Mapping[str, str]) -> SchemaBuilder:
        """Add these parameters; an empty mapping leaves the schema without parameters (``None``), as
        Java's does, so no schema carries an empty parameter map."""
        if parameters:
            if self._parameters is None:
                self._parameters = {}
            self._parameters.update(parameters)
        return self

    def field(self, name: str, schema: Schema | SchemaBuilder) -> SchemaBuilder:
        """Append a field to a struct schema; names must be unique and non-empty."""
        if self._fields is None:
            raise SchemaBuilderException(f"Cannot create fields on type {self._type}")
        if not name:
            raise SchemaBuilderException("fieldName cannot be null.")
        if schema is None:
            raise SchemaBuilderException(f"fieldSchema for field {name} cannot be null.")
        if name in self._fields:
            raise SchemaBuilderException(f"Cannot create field because of field name duplication {name}")
        self._fields[name] = Field(name, len(self._fields), _built(schema))
        return self

    def build(self) -> Schema:
        """The immutable schema; the builder may go on being used."""
        return Schema(
            self._type,
            optional=self._optional is True,
            default_value=self._default_value,
            name=self._name,
            version=self._version,
            doc=self._doc,
            parameters=self._parameters,
            fields=None if self._fields is None else list(self._fields.values()),
            key_schema=self._key_schema,
            value_schema=self._value_schema,
        )


def _check_can_set(field: str, current: object, value: object) -> None:
    if current is not None and current != value:
        raise SchemaBuilderException(f"Invalid SchemaBuilder call: {field} has already been set.")


def _built(schema: Schema | SchemaBuilder) -> Schema:
    """A schema given as its builder (Java's builders are schemas, so Java code passes them) is built
    where it is used."""
    return schema.build() if isinstance(schema, SchemaBuilder) else schema
