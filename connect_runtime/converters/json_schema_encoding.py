"""What Java's ``JsonConverter`` writes for a record with a schema: ``asJsonSchema`` and ``convertToJson``.

Kept apart from the schemaless fast path (:mod:`connect_runtime.api.java_json`), which schemaless
records never leave: this module runs only for records that carry a schema. Text is produced in
Jackson's exact form (field order, number formats, string escapes) so the bytes equal Java's.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import math
from collections.abc import Mapping
from typing import Any, Final, Generic, TypeVar

from connect_runtime.api.data.logical_types import Date, Decimal, Time, Timestamp
from connect_runtime.api.data.schema import _INT_RANGES, Schema, SchemaType
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import _quote, java_double_to_string, java_float_to_string

# asJsonSchema's type names (FLOAT32/FLOAT64 are "float"/"double", as in Java).
_TYPE_NAMES: Final = {
    SchemaType.INT8: "int8", SchemaType.INT16: "int16", SchemaType.INT32: "int32", SchemaType.INT64: "int64",
    SchemaType.FLOAT32: "float", SchemaType.FLOAT64: "double", SchemaType.BOOLEAN: "boolean",
    SchemaType.STRING: "string", SchemaType.BYTES: "bytes", SchemaType.ARRAY: "array", SchemaType.MAP: "map",
    SchemaType.STRUCT: "struct",
}
_NON_FINITE: Final = frozenset(("NaN", "Infinity", "-Infinity"))
_PYTHON_CLASS: Final = {
    SchemaType.INT8: int, SchemaType.INT16: int, SchemaType.INT32: int, SchemaType.INT64: int,
    SchemaType.FLOAT32: float, SchemaType.FLOAT64: float, SchemaType.BOOLEAN: bool, SchemaType.STRING: str,
}


K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most ``size`` entries, the least recently used evicted first (Java's ``LRUCache``)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        value = self._entries.pop(key, None)
        if value is not None:
            self._entries[key] = value  # now the most recently used
        return value

    def put(self, key: K, value: V) -> None:
        if self._size <= 0:
            return
        self._entries.pop(key, None)
        if len(self._entries) >= self._size:
            del self._entries[next(iter(self._entries))]
        self._entries[key] = value

    def __len__(self) -> int:
        return len(self._entries)

    def keys(self) -> list[K]:
        """Least recently used first."""
        return list(self._entries)


class SchemaEncoder:
    """Writes envelopes for schema'd values; the JSON text of each schema is cached (``schemas.cache.size``)."""

    def __init__(self, cache_size: int, numeric_decimals: bool, replace_null_with_default: bool) -> None:
        self._cache: LruCache[Schema, str] = LruCache(cache_size)
        # Fast writers per schema (see _Plan), kept only when schema texts are cached at all.
        self._plans: dict[Schema, _Plan | None] = {}
        self._plans_enabled = cache_size > 0
        self._plans_limit = max(cache_size, 1)
        self._numeric_decimals = numeric_decimals
        self._replace_null_with_default = replace_null_with_default

    def envelope(self, schema: Schema, value: object) -> bytes:
        """``{"schema":...,"payload":...}``, as Java's ``convertToJsonWithEnvelope``."""
        try:
            plan: _Plan | None = self._plans.get(schema, _NO_PLAN) if self._plans_enabled else None
            if plan is _NO_PLAN:
                plan = self._plan(schema)
            if plan is not None and (text := plan.write(value, schema)) is not None:
                prefix = plan.envelope_prefix
                if prefix is None:
                    prefix = plan.envelope_prefix = '{"schema":' + self.schema_json(schema) + ',"payload":'
                return (prefix + text + "}").encode("utf-8")
            out = ['{"schema":', self.schema_json(schema), ',"payload":']
            self._value(schema, value, out)
        except RecursionError as exc:
            raise _too_deep() from exc
        out.append("}")
        return "".join(out).encode("utf-8")

    def payload(self, schema: Schema, value: object) -> bytes:
        """The value alone, as Java's ``convertToJsonWithoutEnvelope``."""
        out: list[str] = []
        try:
            plan: _Plan | None = self._plans.get(schema, _NO_PLAN) if self._plans_enabled else None
            if plan is _NO_PLAN:
                plan = self._plan(schema)
            if plan is not None and (text := plan.write(value, schema)) is not None:
                return text.encode("utf-8")
            self._value(schema, value, out)
        except RecursionError as exc:
            raise _too_deep() from exc
        return "".join(out).encode("utf-8")

    def _plan(self, schema: Schema) -> _Plan | None:
        """The fast writer of ``schema`` (None when it has none), remembered like schema texts."""
        # the schema's text only when an envelope needs it: writing a default may fail, as in Java,
        # and without an envelope Java never writes it
        plan = _Plan.of(schema)
        if len(self._plans) >= self._plans_limit:
            self._plans.clear()
        self._plans[schema] = plan
        return plan

    def schema_json(self, schema: Schema) -> str:
        """Java's ``asJsonSchema`` as compact JSON text, from the cache when the schema was seen."""
        cached = self._cache.get(schema)
        if cached is None:
            cached = "".join(self._schema(schema, None))
            self._cache.put(schema, cached)
        return cached

    def _schema(self, schema: Schema, field_name: str | None) -> list[str]:
        out = ['{"type":"', _TYPE_NAMES[schema.type], '"']
        kind = schema.type
        if kind is SchemaType.ARRAY:
            out += [',"items":', *self._schema(_child(schema.value_schema), None)]
        elif kind is SchemaType.MAP:
            out += [',"keys":', *self._schema(_child(schema.key_schema), None),
                    ',"values":', *self._schema(_child(schema.value_schema), None)]
        elif kind is SchemaType.STRUCT:
            out.append(',"fields":[')
            for index, field in enumerate(schema.fields):
                if index:
                    out.append(",")
                out += self._schema(field.schema, field.name)
            out.append("]")
        out.append(',"optional":true' if schema.is_optional else ',"optional":false')
        if schema.name is not None:
            out += [',"name":', _quote(schema.name)]
        if schema.version is not None:
            out += [',"version":', str(schema.version)]
        if schema.doc is not None:
            out += [',"doc":', _quote(schema.doc)]
        if schema.parameters is not None:
            out.append(',"parameters":{')
            out.append(",".join(f"{_quote(k)}:{_quote(v)}" for k, v in schema.parameters.items()))
            out.append("}")
        if schema.default_value is not None:
            out.append(',"default":')
            self._value(schema, schema.default_value, out)
        if field_name is not None:
            out += [',"field":', _quote(field_name)]
        out.append("}")
        return out

    def _value(self, schema: Schema, value: object, out: list[str]) -> None:
        """Java's ``convertToJson`` with a non-null schema, appended to ``out`` as text."""
        if value is None:
            if schema.default_value is not None and self._replace_null_with_default:
                self._value(schema, schema.default_value, out)
            elif schema.is_optional:
                out.append("null")
            else:
                raise DataException("Conversion error: null value for field that is required and has no default value")
            return
        name = schema.name
        if (name is not None and name.startswith("org.apache.kafka.connect.data.")
                and self._logical(schema, name, value, out)):
            return
        kind = schema.type
        expected = _PYTHON_CLASS.get(kind)
        if expected is not None:
            # Java casts to the boxed class; a bool is never a number here, an int never a float.
            if type(value) is not expected and not (isinstance(value, expected) and not isinstance(value, bool)
                                                    and expected is not bool):
                raise _invalid_type(schema, value)
            if kind is SchemaType.FLOAT64 or kind is SchemaType.FLOAT32:
                number = float(value)  # type: ignore[arg-type]
                text = java_double_to_string(number) if kind is SchemaType.FLOAT64 else java_float_to_string(number)
                # judged on the text: a double beyond float range is an infinity once a float
                out.append(f'"{text}"' if text in _NON_FINITE else text)
            elif kind is SchemaType.BOOLEAN:
                out.append("true" if value else "false")
            elif kind is SchemaType.STRING:
                out.append(_quote(value))  # type: ignore[arg-type]
            else:
                # Java's boxed class is the range check; Python's int needs one, even outside a Struct
                low, high = _INT_RANGES[kind]
                if not low <= value <= high:  # type: ignore[operator]
                    raise _invalid_type(schema, value)
                out.append(int.__repr__(value))
        elif kind is SchemaType.BYTES:
            if not isinstance(value, bytes | bytearray | memoryview):
                raise DataException(f"Invalid type for bytes type: {type(value)}")
            out.append('"' + base64.b64encode(value).decode("ascii") + '"')
        elif kind is SchemaType.ARRAY:
            if not isinstance(value, list | tuple):
                raise _invalid_type(schema, value)
            items = _child(schema.value_schema)
            out.append("[")
            for index, element in enumerate(value):
                if index:
                    out.append(",")
                self._value(items, element, out)
            out.append("]")
        elif kind is SchemaType.MAP:
            self._map(schema, value, out)
        else:
            if not isinstance(value, Struct):
                raise _invalid_type(schema, value)
            if value.schema != schema:
                raise DataException("Mismatching schema.")
            out.append("{")
            for index, field in enumerate(schema.fields):
                if index:
                    out.append(",")
                out += [_quote(field.name), ":"]
                self._value(field.schema, value.get_without_default(field), out)
            out.append("}")

    def _map(self, schema: Schema, value: object, out: list[str]) -> None:
        if not isinstance(value, Mapping):
            raise _invalid_type(schema, value)
        key_schema = _child(schema.key_schema)
        value_schema = _child(schema.value_schema)
        # Java: an object when the keys are strings, else an array of [key, value] pairs.
        if key_schema.type is SchemaType.STRING:
            # ObjectNode.set(mapKey.asText(), ...) into a LinkedHashMap: a null key's text is "null", and
            # a key text seen before keeps its first position and takes the last value.
            entries: dict[str, list[str]] = {}
            for key, item in value.items():
                key_out: list[str] = []
                self._value(key_schema, key, key_out)
                item_out: list[str] = []
                self._value(value_schema, item, item_out)
                entries['"null"' if key_out == ["null"] else key_out[0]] = item_out
            out.append("{")
            out.append(",".join(key_text + ":" + "".join(item_out) for key_text, item_out in entries.items()))
            out.append("}")
            return
        out.append("[")
        for index, (key, item) in enumerate(value.items()):
            if index:
                out.append(",")
            out.append("[")
            self._value(key_schema, key, out)
            out.append(",")
            self._value(value_schema, item, out)
            out.append("]")
        out.append("]")

    def _logical(self, schema: Schema, name: str, value: object, out: list[str]) -> bool:
        if name == Decimal.LOGICAL_NAME:
            if not isinstance(value, decimal.Decimal):
                raise DataException(f"Invalid type for Decimal, expected BigDecimal but was {type(value)}")
            if not value.is_finite():
                raise DataException(f"Decimal value {value} is not finite")
            if self._numeric_decimals:
                # BigDecimal.toString: Python's str(Decimal) is the same notation; Java has no -0.
                out.append(str(value.copy_abs() if value.is_zero() else value))
            else:
                out.append('"' + base64.b64encode(Decimal.from_logical(schema, value)).decode("ascii") + '"')
        elif name == Date.LOGICAL_NAME:
            # a datetime is a date, as Java's Date values are java.util.Dates: from_logical takes it at
            # midnight UTC and refuses other times with Java's message, as validate_value lets it in
            if not isinstance(value, datetime.date):
                raise DataException(f"Invalid type for Date, expected Date but was {type(value)}")
            out.append(str(Date.from_logical(schema, value)))
        elif name == Time.LOGICAL_NAME:
            if not isinstance(value, datetime.time):
                raise DataException(f"Invalid type for Time, expected Date but was {type(value)}")
            out.append(str(Time.from_logical(schema, value)))
        elif name == Timestamp.LOGICAL_NAME:
            if not isinstance(value, datetime.datetime):
                raise DataException(f"Invalid type for Timestamp, expected Date but was {type(value)}")
            out.append(str(Timestamp.from_logical(schema, value)))
        else:
            return False
        return True


_NO_PLAN: Final[Any] = object()


class _Plan:
    """The per-record fast writer of a plain schema (an unnamed INT*, FLOAT64, BOOLEAN or STRING) or
    of a struct whose fields all are plain: the common records, written without the general walk.
    :meth:`write` returns None for anything else (a null, another class, an int out of range, a
    non-finite float, a struct of an equal but not identical schema) and the general path, which
    holds every rule and message, writes it instead."""

    __slots__ = ("_fields", "_schema", "envelope_prefix")

    def __init__(self, schema: Schema,
                 fields: tuple[tuple[str, int, type, tuple[int, int] | None], ...] | None) -> None:
        self._schema = schema
        self.envelope_prefix: str | None = None  # '{"schema":<text>,"payload":', once an envelope is written
        self._fields = fields

    @staticmethod
    def of(schema: Schema) -> _Plan | None:
        if schema._plain_class is not None:
            return _Plan(schema, None)
        if schema.type is not SchemaType.STRUCT or (schema.name is not None and schema.name.startswith(_LOGICAL)):
            return None
        fields = []
        for index, field in enumerate(schema.fields):
            plain = field.schema._plain_class
            if plain is None:
                return None
            fields.append(((',' if index else '{') + _quote(field.name) + ":", field.index, plain,
                           field.schema._plain_range))
        return _Plan(schema, tuple(fields))

    def write(self, value: object, schema: Schema) -> str | None:
        """The payload text of ``value`` for ``schema`` (equal to the plan's), or None."""
        fields = self._fields
        if fields is None:
            return _plain_text(value, self._schema._plain_class, self._schema._plain_range)
        if value.__class__ is not Struct or value.schema is not schema:
            return None
        values = value._values
        out = []
        for prefix, index, plain, bounds in fields:
            text = _plain_text(values[index], plain, bounds)
            if text is None:
                return None
            out.append(prefix)
            out.append(text)
        out.append("}" if fields else "{}")
        return "".join(out)


_LOGICAL: Final = "org.apache.kafka.connect.data."


def _plain_text(value: object, plain: type | None, bounds: tuple[int, int] | None) -> str | None:
    """Jackson's text of a plain value of exactly the class ``plain``, or None (see :class:`_Plan`)."""
    if value.__class__ is not plain:
        return None
    if plain is int:
        if bounds is not None and not bounds[0] <= value <= bounds[1]:  # type: ignore[operator]
            return None
        return int.__repr__(value)
    if plain is str:
        return _quote(value)  # type: ignore[arg-type]
    if plain is bool:
        return "true" if value else "false"
    if math.isfinite(value):  # type: ignore[arg-type]
        return java_double_to_string(value)  # type: ignore[arg-type]
    return None


def _child(schema: Schema | None) -> Schema:
    if schema is None:  # a built ARRAY or MAP schema always has its element schemas
        raise DataException("Array or map schema without its element schemas")
    return schema


def _invalid_type(schema: Schema, value: object) -> DataException:
    return DataException(f"Invalid type for {schema.type}: {type(value)}")


def _too_deep() -> DataException:
    # Schemas and values are walked recursively: Python's stack holds about 200 levels of nesting
    # where Jackson allows 1000 (docs/plugins.md).
    return DataException("Schema or value is nested too deeply to convert to JSON")
