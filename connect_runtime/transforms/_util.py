"""Helpers shared by the built-in single message transforms.

Schemaless record data here is plain Python (dict, list, str, int, float, bool, bytes, None). Error
messages name the Java class a Kafka Connect worker would have seen for the same data (a JSON integer
is a ``java.lang.Long``, an object a ``java.util.HashMap``), so they read as the reference's do.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import functools
import re
from abc import abstractmethod
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, ClassVar

from connect_runtime.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    DataException,
    Importance,
    Predicate,
    SourceRecord,
    Transformation,
)
from connect_runtime.api.data import Field, Schema, SchemaBuilder, SchemaType, Struct
from connect_runtime.version import runtime_version

#: Java's Long range: schemaless integers are Longs in Kafka Connect.
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1

REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
REPLACE_NULL_WITH_DEFAULT_DOC = (
    "Whether to replace fields that have a default value and that are null to the default value. When set to true, "
    "the default value is used, otherwise null is used.")


def java_type_name(value: object) -> str:
    """The Java class name Kafka Connect would report for the schemaless ``value``."""
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, int):
        return "java.lang.Long" if LONG_MIN <= value <= LONG_MAX else "java.math.BigInteger"
    if isinstance(value, float):
        return "java.lang.Double"
    if isinstance(value, str):
        return "java.lang.String"
    if isinstance(value, bytes | bytearray | memoryview):
        return "[B"
    if isinstance(value, dict):
        return "java.util.HashMap"
    if isinstance(value, list | tuple):
        return "java.util.ArrayList"
    if isinstance(value, decimal.Decimal):
        return "java.math.BigDecimal"
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return "java.util.Date"
    if isinstance(value, Struct):
        return "org.apache.kafka.connect.data.Struct"
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def java_class(value: object) -> str:
    """``value.getClass()`` as Java prints it in a message: ``class java.lang.String``."""
    return "class " + java_type_name(value)


def null_safe_class_name(value: object) -> str:
    """The class name of ``value``, or ``null``."""
    return "null" if value is None else java_type_name(value)


def require_map(value: object, purpose: str) -> dict[str, Any]:
    """``value`` if it is a map, else the reference's DataException for schemaless data."""
    if not isinstance(value, dict):
        raise DataException(
            f"Only Map objects supported in absence of schema for [{purpose}], found: {null_safe_class_name(value)}")
    return value


def require_schema(schema: Schema | None, purpose: str) -> Schema:
    """``schema``, or the reference's DataException when a record has none."""
    if schema is None:
        raise DataException(f"Schema required for [{purpose}]")
    return schema


def require_struct(value: object, purpose: str) -> Struct:
    """``value`` if it is a Struct, else the reference's DataException."""
    if not isinstance(value, Struct):
        raise DataException(f"Only Struct objects supported for [{purpose}], found: {null_safe_class_name(value)}")
    return value


def require_struct_or_null(value: object, purpose: str) -> Struct | None:
    """None for None, else :func:`require_struct`."""
    return None if value is None else require_struct(value, purpose)


def copy_schema_basics(source: Schema, builder: SchemaBuilder | None = None) -> SchemaBuilder:
    """``builder`` (by default a new one of ``source``'s type) with ``source``'s name, version, doc and
    parameters: the reference's ``SchemaUtil.copySchemaBasics``. Like it, a new builder for a MAP has no
    key and value schemas; an ARRAY's keeps its value schema."""
    if builder is None:
        if source.type is SchemaType.ARRAY:
            assert source.value_schema is not None
            builder = SchemaBuilder.array(source.value_schema)
        else:
            builder = SchemaBuilder(source.type)
    if source.name is not None:
        builder.name(source.name)
    if source.version is not None:
        builder.version(source.version)
    if source.doc is not None:
        builder.doc(source.doc)
    if source.parameters is not None:
        builder.parameters(source.parameters)
    return builder


def schema_update_cache(build: Callable[[Schema], Schema]) -> Callable[[Schema], Schema]:
    """``build`` memoised for the 16 most recently used schemas, as the reference's transforms keep
    their updated schemas (``SynchronizedCache(LRUCache(16))``, keyed by schema equality): records
    with equal schemas then share one updated schema object."""
    return functools.lru_cache(maxsize=16)(build)


def require_map_or_null(value: object, purpose: str) -> dict[str, Any] | None:
    """None for None, else :func:`require_map`."""
    return None if value is None else require_map(value, purpose)


def java_split(text: str, sep: str) -> list[str]:
    """``String.split`` with a literal one-character separator: trailing empty strings are dropped."""
    if sep not in text:
        return [text]
    parts = text.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def java_list(values: Sequence[Any]) -> str:
    """A list as Java's ``List.toString`` prints it: ``[a, b]``."""
    return "[" + ", ".join(str(v) for v in values) + "]"


def non_empty_list(name: str, value: Any) -> None:
    """Validator: the list has at least one element (the reference's NonEmptyListValidator)."""
    if value is None or len(value) == 0:
        raise ConfigException(name, java_list(value or []), "Empty list")


def non_null(name: str, value: Any) -> None:
    """Validator: a value must be given (the reference's NonNullValidator)."""
    if value is None:
        raise ConfigException(name, "null", "entry must be non null")


def case_insensitive_one_of(*allowed: str) -> Callable[[str, Any], None]:
    """Validator: one of ``allowed`` in any case (the reference's CaseInsensitiveValidString)."""
    folded = {a.upper() for a in allowed}

    def check(name: str, value: Any) -> None:
        if value is not None and str(value).upper() not in folded:
            raise ConfigException(name, value, "String must be one of (case insensitive): " + ", ".join(allowed))

    return check


def define_replace_null_with_default(config_def: ConfigDef) -> ConfigDef:
    """Add ``replace.null.with.default``.

    It only matters for fields with schema default values; schemaless data has none, so every value of
    it behaves the same here, exactly as in the reference for schemaless records.
    """
    return config_def.define(REPLACE_NULL_WITH_DEFAULT_CONFIG, ConfigType.BOOLEAN, True, None, Importance.MEDIUM,
                             REPLACE_NULL_WITH_DEFAULT_DOC)


class FieldSyntaxVersion(Enum):
    """How field paths are read (KIP-821): V1 top-level names only, V2 dotted paths with backticks."""

    V1 = "V1"
    V2 = "V2"


FIELD_SYNTAX_VERSION_CONFIG = "field.syntax.version"
FIELD_SYNTAX_VERSION_DOC = (
    "Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited to access "
    "the elements at the root level of the struct or map. If set to `V2`, the syntax will support accessing nested "
    "elements. To access nested elements, dotted notation is used. If dots are already included in the field name, "
    "then backtick pairs can be used to wrap field names containing dots. E.g. to access the subfield `baz` from a "
    "field named \"foo.bar\" in a struct/map the following format can be used to access its elements: "
    "\"`foo.bar`.baz\".")


def define_field_syntax_version(config_def: ConfigDef) -> ConfigDef:
    """Add ``field.syntax.version`` (default V1, case-insensitive)."""
    return config_def.define(FIELD_SYNTAX_VERSION_CONFIG, ConfigType.STRING, "V1", case_insensitive_one_of("V1", "V2"),
                             Importance.HIGH, FIELD_SYNTAX_VERSION_DOC)


class SingleFieldPath:
    """A path to one field: a top-level name (V1) or dotted steps with backtick quoting (V2)."""

    def __init__(self, path: str, version: FieldSyntaxVersion) -> None:
        self.version = version
        self.steps: tuple[str, ...] = (path,) if version is FieldSyntaxVersion.V1 else tuple(_parse_v2(path))

    def value_from(self, value: dict[str, Any] | None) -> Any:
        """The value at this path in a schemaless map, or None where any step is missing."""
        if value is None:
            return None
        current: dict[str, Any] | None = value
        for step in self.steps[:-1]:
            assert current is not None
            current = require_map_or_null(current.get(step), "nested field access")
            if current is None:
                return None
        assert current is not None
        return current.get(self.steps[-1])

    def field_from(self, schema: Schema) -> Field | None:
        """The field at this path in a STRUCT schema, or None where a step is missing (a step into a
        schema that is not a STRUCT is the schema's DataException)."""
        current = schema
        for step in self.steps[:-1]:
            field = current.field(step)
            if field is None:
                return None
            current = field.schema
        return current.field(self.steps[-1])

    def struct_value_from(self, value: Struct, with_default: bool) -> object:
        """The value at this path in a Struct (its field's default for a null when ``with_default``),
        or None where a step is missing or null."""
        current: Struct | None = value
        for step in self.steps[:-1]:
            assert current is not None
            if current.schema.field(step) is None:
                return None
            current = require_struct_or_null(current.get(step), "nested field access")
            if current is None:
                return None
        assert current is not None
        last = self.steps[-1]
        if current.schema.field(last) is None:
            return None
        return current.get(last) if with_default else current.get_without_default(last)


def _incomplete_backtick(path: str, at: int) -> ConfigException:
    return ConfigException(f"Incomplete backtick pair in path: [{path}], consider adding a backslash before backtick "
                           f"at position {at} to escape it")


def _parse_v2(path: str) -> list[str]:
    """Split a V2 path into steps as the reference does (dots separate; `...` quotes; \\` escapes)."""
    steps: list[str] = []
    idx = 0
    n = len(path)
    while 0 <= idx < n:
        if path[idx] != "`":
            start = idx
            idx = path.find(".", idx)
            if idx >= 0:
                steps.append(path[start:idx])
                idx += 1
            else:
                steps.append(path[start:])
        else:
            backtick_at = idx
            idx += 1
            field: list[str] = []
            start = idx
            while True:
                idx = path.find("`", idx)
                if idx == -1:
                    raise _incomplete_backtick(path, backtick_at)
                escaped = path[idx - 1] == "\\"
                if idx >= n - 1:
                    if escaped:
                        raise _incomplete_backtick(path, backtick_at)
                    field.append(path[start:idx])
                    steps.append("".join(field))
                    idx += 1
                    break
                if path[idx + 1] != ".":
                    idx += 1
                    continue
                if escaped:
                    field.append(path[start:idx - 1])
                    field.append("`")
                    idx += 1
                    start = idx
                    continue
                field.append(path[start:idx])
                steps.append("".join(field))
                idx += 2
                break
    if path.endswith("."):
        steps.append("")
    return steps


def operand(record: SourceRecord, key: bool) -> Any:
    """The record's key (``key`` True) or value: what a ``$Key`` or ``$Value`` transform works on."""
    return record.key if key else record.value


_SAME: Any = object()


def new_record(record: SourceRecord, *, topic: str = _SAME, key: Any = _SAME, value: Any = _SAME,
               headers: Any = _SAME, key_schema: Schema | None = _SAME,
               value_schema: Schema | None = _SAME) -> SourceRecord:
    """A copy of ``record`` with the given parts replaced (the reference's ``newRecord``). Written
    out rather than ``dataclasses.replace``, which costs a microsecond per record in introspection;
    a subclass of SourceRecord (a plugin's, with fields of its own) is copied by ``replace``."""
    if record.__class__ is not SourceRecord:
        changes: dict[str, Any] = {name: change for name, change in (("topic", topic), ("key", key), ("value", value),
                   ("headers", headers), ("key_schema", key_schema), ("value_schema", value_schema))
                   if change is not _SAME}
        return dataclasses.replace(record, **changes)
    return SourceRecord(record.source_partition, record.source_offset,
                        record.topic if topic is _SAME else topic, record.kafka_partition,
                        record.key if key is _SAME else key, record.value if value is _SAME else value,
                        record.headers if headers is _SAME else headers, record.timestamp,
                        record.key_schema if key_schema is _SAME else key_schema,
                        record.value_schema if value_schema is _SAME else value_schema)


def with_operand(record: SourceRecord, key: bool, new: Any) -> SourceRecord:
    """A copy of ``record`` with its key (``key`` True) or value replaced by ``new``."""
    return new_record(record, key=new) if key else new_record(record, value=new)


def non_empty_string(name: str, value: Any) -> None:
    """Validator: if set, the string must not be empty (the reference's NonEmptyString)."""
    if value is not None and value == "":
        raise ConfigException(name, value, "String must be non-empty")


_JAVA_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def parse_java_big_decimal(text: str) -> decimal.Decimal | None:
    """``new BigDecimal(text)``, or None where Java throws NumberFormatException."""
    if not _JAVA_BIG_DECIMAL.fullmatch(text):
        return None
    return decimal.Decimal(text)


def wrap_long(value: int) -> int:
    """Keep the low 64 bits as a signed long, as Java's narrowing ``longValue()`` does."""
    return (value + 2**63) % 2**64 - 2**63


class BuiltinTransformation(Transformation):
    """Base of the built-in transforms: they report the runtime's version (as Kafka's report Kafka's)
    and their class's ``CONFIG_DEF`` as their config keys."""

    #: The transform's own config keys; a transform with settings defines its own.
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef()

    def version(self) -> str:
        return runtime_version()

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF


class BuiltinPredicate(Predicate):
    """Base of the built-in predicates: they report the runtime's version."""

    def version(self) -> str:
        return runtime_version()


def operand_schema(record: SourceRecord, key: bool) -> Schema | None:
    """The schema of the record's key (``key`` True) or value; None for schemaless data."""
    return record.key_schema if key else record.value_schema


def with_schema_and_operand(record: SourceRecord, key: bool, schema: Schema | None, new: Any) -> SourceRecord:
    """A copy of ``record`` with its key (``key`` True) or value and that one's schema replaced, as the
    reference's ``newRecord(record, updatedSchema, updatedValue)``."""
    if key:
        return new_record(record, key=new, key_schema=schema)
    return new_record(record, value=new, value_schema=schema)


_JAVA_CLASS_OF_SCHEMA_TYPE = {
    SchemaType.INT8: "java.lang.Byte", SchemaType.INT16: "java.lang.Short", SchemaType.INT32: "java.lang.Integer",
    SchemaType.INT64: "java.lang.Long", SchemaType.FLOAT32: "java.lang.Float", SchemaType.FLOAT64: "java.lang.Double",
}


def java_type_name_in(value: object, schema: Schema | None) -> str:
    """The Java class name of ``value`` where ``schema`` describes it, or ``null``: a schema'd number
    has the boxed class of its schema's width (an INT32 is a ``java.lang.Integer``), where schemaless
    numbers are Longs and Doubles (:func:`java_type_name`)."""
    if value is None:
        return "null"
    if schema is not None and isinstance(value, int | float) and not isinstance(value, bool):
        return _JAVA_CLASS_OF_SCHEMA_TYPE.get(schema.type, java_type_name(value))
    return java_type_name(value)


def require_struct_in(value: object, schema: Schema | None, purpose: str) -> Struct:
    """:func:`require_struct`, naming a schema'd operand's class as Java would (:func:`java_type_name_in`)."""
    if not isinstance(value, Struct):
        raise DataException(f"Only Struct objects supported for [{purpose}], found: {java_type_name_in(value, schema)}")
    return value


def struct_operand(record: SourceRecord, key: bool, purpose: str) -> Struct:
    """The record's schema'd key (``key`` True) or value, which must be a Struct (:func:`require_struct_in`)."""
    return require_struct_in(operand(record, key), operand_schema(record, key), purpose)


def field_reader(value: Struct, replace_null_with_default: bool) -> Callable[[str | Field], object]:
    """How the transforms read ``value``'s fields under ``replace.null.with.default``: a null field
    as its schema's default (``Struct.get``), or as null (``get_without_default``)."""
    return value.get if replace_null_with_default else value.get_without_default


class MapOrStructTransformation(BuiltinTransformation):
    """Base of the ``$Key``/``$Value`` transforms that rebuild a map or a Struct operand, as the
    reference's do: a null operand passes unchanged, schemaless data must be a map, schema'd data a
    Struct (else the reference's DataException naming ``PURPOSE``)."""

    PURPOSE: ClassVar[str]

    @property
    @abstractmethod
    def _key(self) -> bool:
        """True on the key, False on the value."""

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = operand(record, self._key)
        if value is None:
            return record
        if operand_schema(record, self._key) is None:
            return self._apply_schemaless(record, require_map(value, self.PURPOSE))
        return self._apply_with_schema(record, struct_operand(record, self._key, self.PURPOSE))

    @abstractmethod
    def _apply_schemaless(self, record: SourceRecord, value: dict[str, Any]) -> SourceRecord:
        """``record`` with its map operand ``value`` transformed."""

    @abstractmethod
    def _apply_with_schema(self, record: SourceRecord, value: Struct) -> SourceRecord:
        """``record`` with its Struct operand ``value`` transformed, and its schema with it."""
