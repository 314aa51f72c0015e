"""Kafka Connect's schemas: the same semantics as Java's ``org.apache.kafka.connect.data.ConnectSchema``.

A :class:`Schema` is immutable and compares (and hashes) by value, fields in order, as Java's does, so
schemas built twice from the same calls are interchangeable as dictionary keys and in ``Struct``.

Which Python values a schema accepts (``validate_value``, in ``struct.py`` beside ``Struct``), where
Java checks the boxed class:

========== ================================================================================
INT8..64   ``int`` (never ``bool``) within the Java type's range; a value out of range is
           refused, as Java could never hold it
FLOAT32/64 ``float`` only: an ``int`` is refused, as Java refuses an ``Integer`` for a
           ``Double``, so converters always see the type the schema names
BOOLEAN    ``bool``
STRING     ``str``
BYTES      ``bytes`` or ``bytearray`` (Java's ``byte[]`` and ``ByteBuffer``)
ARRAY      ``list`` or ``tuple`` (Java's ``List``), each element against the value schema
MAP        any ``collections.abc.Mapping``, each key and value against their schemas
STRUCT     :class:`~connect_runtime.api.data.struct.Struct` with an equal schema
========== ================================================================================

A schema named after a logical type takes that type's Python value instead: ``decimal.Decimal``
(Decimal), ``datetime.date`` (Date), ``datetime.time`` (Time), ``datetime.datetime`` (Timestamp).
The errors keep Java's wording, with "Python object" and the Python class where Java says "Java
object" and names its class: ``Invalid Python object for schema with type INT8: <class 'str'> for
field: "x"``.
"""

from __future__ import annotations

import decimal
import enum
import math
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import ClassVar

from connect_runtime.api.errors import DataException

DECIMAL_LOGICAL_NAME = "org.apache.kafka.connect.data.Decimal"
DATE_LOGICAL_NAME = "org.apache.kafka.connect.data.Date"
TIME_LOGICAL_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_LOGICAL_NAME = "org.apache.kafka.connect.data.Timestamp"


class SchemaType(enum.Enum):
    """The type of a schema (Java's ``Schema.Type``); ``str()`` gives the Java name (``INT8``)."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    def __str__(self) -> str:
        return self.name

    @property
    def is_primitive(self) -> bool:
        """Whether the type holds no other schemas (not ARRAY, MAP or STRUCT)."""
        return self not in (SchemaType.ARRAY, SchemaType.MAP, SchemaType.STRUCT)


_PLAIN_CLASSES: dict[SchemaType, type] = {
    SchemaType.INT8: int, SchemaType.INT16: int, SchemaType.INT32: int, SchemaType.INT64: int,
    SchemaType.FLOAT64: float, SchemaType.BOOLEAN: bool, SchemaType.STRING: str,
}

_INT_RANGES: dict[SchemaType, tuple[int, int]] = {
    SchemaType.INT8: (-(2**7), 2**7 - 1),
    SchemaType.INT16: (-(2**15), 2**15 - 1),
    SchemaType.INT32: (-(2**31), 2**31 - 1),
    SchemaType.INT64: (-(2**63), 2**63 - 1),
}

# Java's Character.digit reads any Unicode decimal digit, one UTF-16 unit each (so none beyond the BMP).
_JAVA_INT_TEXT = re.compile(r"[+-]?(?:(?![\U00010000-\U0010ffff])\d)+")


def parse_java_int(text: str, type: SchemaType = SchemaType.INT32) -> int:
    """``text`` read as Java's ``Byte/Short/Integer/Long.parseXxx`` read it: an optional sign and decimal
    digits (any script's), no spaces or underscores, within ``type``'s range; ``ValueError`` otherwise."""
    if not _JAVA_INT_TEXT.fullmatch(text):
        raise ValueError(f"For input string: \"{text}\"")
    number = int(text)
    low, high = _INT_RANGES[type]
    if not low <= number <= high:
        raise ValueError(f"Value out of range. Value:\"{text}\"")
    return number


class Field:
    """A field of a struct schema: its name, its position among the fields and its schema."""

    __slots__ = ("_index", "_name", "_schema")

    def __init__(self, name: str, index: int, schema: Schema) -> None:
        self._name = name
        self._index = index
        self._schema = schema

    @property
    def name(self) -> str:
        """The field's name, unique within its struct schema."""
        return self._name

    @property
    def index(self) -> int:
        """The field's position among its struct schema's fields, from 0."""
        return self._index

    @property
    def schema(self) -> Schema:
        """The schema of the field's values."""
        return self._schema

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Field):
            return NotImplemented
        return self._index == other._index and self._name == other._name and self._schema == other._schema

    def __hash__(self) -> int:
        return hash((self._name, self._index, self._schema))

    def __repr__(self) -> str:
        return f"Field{{name={self._name}, index={self._index}, schema={self._schema!r}}}"


class Schema:
    """An immutable Kafka Connect schema (Java's ``ConnectSchema``); build one with ``SchemaBuilder``.

    Equal when type, optionality, name, version, doc, parameters, fields (in order), key and value
    schemas and default value are equal; default values compare deeply (bytes by content, lists and
    mappings element by element, ``1`` never equal to ``1.0`` or ``True``), as Java's ``deepEquals``.
    """

    Type: ClassVar[type[SchemaType]] = SchemaType

    _plain_class: type | None

    INT8_SCHEMA: ClassVar[Schema]
    INT16_SCHEMA: ClassVar[Schema]
    INT32_SCHEMA: ClassVar[Schema]
    INT64_SCHEMA: ClassVar[Schema]
    FLOAT32_SCHEMA: ClassVar[Schema]
    FLOAT64_SCHEMA: ClassVar[Schema]
    BOOLEAN_SCHEMA: ClassVar[Schema]
    STRING_SCHEMA: ClassVar[Schema]
    BYTES_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT8_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT16_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT32_SCHEMA: ClassVar[Schema]
    OPTIONAL_INT64_SCHEMA: ClassVar[Schema]
    OPTIONAL_FLOAT32_SCHEMA: ClassVar[Schema]
    OPTIONAL_FLOAT64_SCHEMA: ClassVar[Schema]
    OPTIONAL_BOOLEAN_SCHEMA: ClassVar[Schema]
    OPTIONAL_STRING_SCHEMA: ClassVar[Schema]
    OPTIONAL_BYTES_SCHEMA: ClassVar[Schema]

    def __init__(
        self,
        type: SchemaType,
        *,
        optional: bool = False,
        default_value: object = None,
        name: str | None = None,
        version: int | None = None,
        doc: str | None = None,
        parameters: Mapping[str, str] | None = None,
        fields: Iterable[Field] | None = None,
        key_schema: Schema | None = None,
        value_schema: Schema | None = None,
    ) -> None:
        self._type = type
        self._optional = optional
        self._default_value = default_value
        self._name = name
        self._version = version
        self._doc = doc
        self._parameters = None if parameters is None else MappingProxyType(dict(parameters))
        self._fields: tuple[Field, ...] | None = None
        self._fields_by_name: dict[str, Field] = {}
        if type is SchemaType.STRUCT:
            self._fields = tuple(fields or ())
            self._fields_by_name = {field.name: field for field in self._fields}
        self._key_schema = key_schema
        self._value_schema = value_schema
        self._hash: int | None = None
        # The one Python class a valid value of a plain (unnamed INT*, FLOAT64, BOOLEAN or STRING)
        # schema has, and an int schema's range: the per-record fast paths of Struct.put and the
        # JSON writer test these first and leave everything else to the full rules.
        self._plain_class = _PLAIN_CLASSES.get(type) if name is None else None
        self._plain_range: tuple[int, int] | None = _INT_RANGES.get(type)

    @property
    def type(self) -> SchemaType:
        """The schema's type; a logical type's is its primitive (Decimal's is BYTES)."""
        return self._type

    @property
    def is_optional(self) -> bool:
        """Whether ``None`` is a valid value."""
        return self._optional

    @property
    def default_value(self) -> object:
        """The value a struct field of this schema takes when unset; ``None`` for none."""
        return self._default_value

    @property
    def name(self) -> str | None:
        """The schema's name (e.g. a logical type's, ``org.apache.kafka.connect.data.Decimal``)."""
        return self._name

    @property
    def version(self) -> int | None:
        """The schema's version, or ``None`` when unset."""
        return self._version

    @property
    def doc(self) -> str | None:
        """The schema's documentation text, or ``None`` when unset."""
        return self._doc

    @property
    def parameters(self) -> Mapping[str, str] | None:
        """Read-only parameters, e.g. a Decimal's ``scale``; ``None`` when none were set."""
        return self._parameters

    @property
    def fields(self) -> tuple[Field, ...]:
        """The fields of a struct schema, in order; raises ``DataException`` for other types."""
        if self._fields is None:
            raise DataException("Cannot list fields on non-struct type")
        return self._fields

    def field(self, name: str) -> Field | None:
        """The struct field called ``name``, or ``None``; raises ``DataException`` for other types."""
        if self._fields is None:
            raise DataException("Cannot look up fields on non-struct type")
        return self._fields_by_name.get(name)

    @property
    def key_schema(self) -> Schema | None:
        """A MAP schema's key schema; raises ``DataException`` for other types."""
        if self._type is not SchemaType.MAP:
            raise DataException("Cannot look up key schema on non-map type")
        return self._key_schema

    @property
    def value_schema(self) -> Schema | None:
        """An ARRAY schema's element schema or a MAP schema's value schema; raises ``DataException``
        for other types."""
        if self._type not in (SchemaType.MAP, SchemaType.ARRAY):
            raise DataException("Cannot look up value schema on non-array and non-map type")
        return self._value_schema

    def _key(self) -> tuple[object, ...]:
        return (
            self._type,
            self._optional,
            self._name,
            self._version,
            self._doc,
            None if self._parameters is None else frozenset(self._parameters.items()),
            self._fields,
            self._key_schema,
            self._value_schema,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema):
            return NotImplemented
        return self._key() == other._key() and deep_equals(self._default_value, other._default_value)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._key(), deep_hash(self._default_value)))
        return self._hash

    def __repr__(self) -> str:
        if self._name is not None:
            return f"Schema{{{self._name}:{self._type}}}"
        return f"Schema{{{self._type}}}"


def deep_equals(a: object, b: object) -> bool:
    """Java's ``Objects.deepEquals`` over Python values: bytes by content, containers element-wise.

    Unlike Python's ``==``, values of different Java types are never equal (``True`` vs ``1``,
    ``1`` vs ``1.0``), Decimals must also agree on their scale, as ``BigDecimal.equals`` does, and
    floats compare as ``Double.equals`` does: NaN equals NaN, ``-0.0`` differs from ``0.0``.
    """
    if isinstance(a, bytes | bytearray) and isinstance(b, bytes | bytearray):
        return bytes(a) == bytes(b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(deep_equals(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(deep_equals(a[k], b[k]) for k in a)
    if isinstance(a, bool | int | float | decimal.Decimal) or isinstance(b, bool | int | float | decimal.Decimal):
        if type(a) is not type(b):
            return False
        if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
            return a == b and a.as_tuple().exponent == b.as_tuple().exponent
        if isinstance(a, float) and isinstance(b, float):
            if a != a:
                return b != b
            return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def deep_hash(value: object) -> int:
    """A hash consistent with :func:`deep_equals`, for lists, mappings and bytearrays too."""
    if isinstance(value, bytes | bytearray):
        return hash(bytes(value))
    if isinstance(value, list | tuple):
        return hash(("seq", *(deep_hash(v) for v in value)))
    if isinstance(value, Mapping):
        return hash(("map", frozenset((hash(k), deep_hash(v)) for k, v in value.items())))
    if isinstance(value, float) and value != value:
        return hash("NaN")  # Python hashes each NaN object apart; deep_equals holds them all equal
    return hash(value)


def _predefine() -> None:
    for type_ in (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64, SchemaType.FLOAT32,
                  SchemaType.FLOAT64, SchemaType.BOOLEAN, SchemaType.STRING, SchemaType.BYTES):
        setattr(Schema, f"{type_.name}_SCHEMA", Schema(type_))
        setattr(Schema, f"OPTIONAL_{type_.name}_SCHEMA", Schema(type_, optional=True))


_predefine()
