"""Cast: cast fields of a map or Struct, or the whole key or value, to another primitive type.

Java's ``Cast$Key`` / ``$Value``. ``spec`` is either ``field:type,...`` or a single ``type`` for the
whole operand; types are ``int8 int16 int32 int64 float32 float64 boolean string`` (any case). A null
operand passes through.

Schemaless data: input types follow Java's inference for schemaless values: a Python bool is a
Boolean, an int a Long, a float a Double, a str a String, bytes a byte[] (castable to string only:
base64, as in Java). Lists and maps cannot be cast (DataException, as for Java's ARRAY and MAP);
Decimal, datetime and ints beyond the Long range are not Connect schemaless types (DataException, as
Java's BigDecimal, Date and BigInteger). A field named in the spec but absent from the map is added as
null, as Java does.

With a schema: the input type is the schema's (a FLOAT32 renders as Java's ``Float.toString``);
ARRAY, MAP and STRUCT values are refused ("Cast transformation does not support casting from MAP;
..."), and field casts need a STRUCT schema ("Cannot list fields on non-struct type", as Java's). A
cast field's new schema is the bare target type, optional if the field was, with the field's default
cast to it; other fields keep their schemas; the updated schema keeps the operand schema's name,
version, doc and parameters, as Java's ``SchemaUtil.copySchemaBasics`` (so a whole-value cast of a
Decimal keeps the Decimal's name, and a default that no longer fits is refused with "Invalid default
value", as in Java). Field values are read with their defaults unless ``replace.null.with.default`` is
false. Logical types cast to a number by their integer encoding (Date: days, Time and Timestamp:
milliseconds), to a string as Java's ``Values.dateFormatFor`` writes them in UTC; a Decimal casts as a
``BigDecimal`` (integer casts keep the low bits of its integer part). Updated schemas are cached for
the 16 most recent input schemas, so records with equal schemas share one.

Casts narrow exactly as Java does: integer casts keep the low bits (300 to int8 is 44), floats are
truncated toward zero and saturate at the int or long range, strings are parsed strictly (``"1.5"`` to
int32 is a DataException), ``boolean`` is true for a non-zero integer part or the string ``true`` in any
case, and ``float32`` rounds to single precision (the result is a Python float holding that value).
Casting to ``string`` renders booleans ``true``/``false`` and doubles as Java's ``Double.toString``.
"""

from __future__ import annotations

import base64
import decimal
import math
import re
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    DataException,
    Importance,
    SourceRecord,
)
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.api.data import Date, Schema, SchemaBuilder, SchemaType, Struct, Time, Timestamp, Values
from connect_runtime.api.data.schema import parse_java_int
from connect_runtime.api.java_json import (
    exact_to_float32,
    java_double_to_string,
    java_float_to_string,
    to_float32,
)
from connect_runtime.transforms._util import (
    LONG_MAX,
    LONG_MIN,
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    BuiltinTransformation,
    copy_schema_basics,
    define_replace_null_with_default,
    field_reader,
    java_class,
    java_list,
    java_split,
    operand,
    operand_schema,
    require_map,
    require_struct_in,
    schema_update_cache,
    with_operand,
    with_schema_and_operand,
)

SPEC = "spec"
_PURPOSE = "cast types"
_ALL_TYPES = ("INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES", "ARRAY", "MAP",
              "STRUCT")
_INPUT_TYPES = ("INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING", "BYTES")
_OUTPUT_TYPES = ("INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "STRING")
_BITS = {"INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64}
_JAVA_FLOAT = re.compile(r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)")


def _parse_type(text: str) -> str:
    name = text.strip().upper()
    if name not in _ALL_TYPES:
        raise ConfigException(f"Invalid type found in casting spec: {text.strip()}")
    if name not in _OUTPUT_TYPES:
        raise ConfigException(f"Cast transformation does not support casting to {name}; supported types are "
                              f"{java_list(_OUTPUT_TYPES)}")
    return name


def parse_field_types(mappings: list[str]) -> tuple[dict[str, str], str | None]:
    """The per-field casts and the whole-value cast type of a ``spec``, checked as the reference does."""
    casts: dict[str, str] = {}
    whole: str | None = None
    for mapping in mappings:
        parts = java_split(mapping, ":")
        if len(parts) > 2:
            # the reference names the ReplaceField key here; kept for identical messages
            raise ConfigException("renames", java_list(mappings), f"Invalid rename mapping: {mapping}")
        if len(parts) == 1:
            whole = _parse_type(parts[0])
        else:
            casts[parts[0].strip()] = _parse_type(parts[1])
    if whole is not None and len(mappings) > 1:
        raise ConfigException("Cast transformations that specify a type to cast the entire value to may only "
                              "specify a single cast in their spec")
    return casts, whole


def _validate_spec(name: str, value: Any) -> None:
    if not value:
        raise ConfigException("Must specify at least one field to cast.")
    parse_field_types(list(value))


def _inferred_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "INT64" if LONG_MIN <= value <= LONG_MAX else None
    if isinstance(value, float):
        return "FLOAT64"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, bytes | bytearray):
        return "BYTES"
    if isinstance(value, list | tuple):
        return "ARRAY"
    if isinstance(value, dict):
        return "MAP"
    return None


def _wrap(value: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return (value + half) % (1 << bits) - half


def _double_to_int(value: float, bits: int) -> int:
    """Java's ``(int) d`` / ``(long) d``: truncate, NaN to 0, saturate at the type's range."""
    if math.isnan(value):
        return 0
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if math.isinf(value):
        return hi if value > 0 else lo
    return max(lo, min(hi, int(value)))


#: what Java's ``String.trim`` (and so ``Double.parseDouble``) strips: every code point up to U+0020
_JAVA_TRIMMED = "".join(map(chr, range(0x21)))


def _java_float_text(text: str) -> str:
    """The number ``Double.parseDouble`` / ``Float.parseFloat`` read in ``text``, without its type
    suffix; ValueError where Java throws NumberFormatException."""
    stripped = text.strip(_JAVA_TRIMMED)
    if not _JAVA_FLOAT.fullmatch(stripped):
        raise ValueError(text)
    if stripped[-1] in "fFdD" and not stripped.endswith("Infinity"):
        stripped = stripped[:-1]
    return stripped


def _out_of_range(value: Any) -> DataException:
    return DataException(f"Value ({value}) was out of range for requested data type")


def _unexpected(value: Any) -> DataException:
    return DataException(f"Unexpected type in Cast transformation: {java_class(value)}")


def _cast_to_integer(value: Any, target: str) -> int:
    bits = _BITS[target]
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, int):
        return _wrap(value, bits)
    if isinstance(value, float):
        # byteValue()/shortValue() of a Double narrow through int
        return _wrap(_double_to_int(value, 32), bits) if bits < 32 else _double_to_int(value, bits)
    if isinstance(value, decimal.Decimal):
        # BigDecimal's intValue()/longValue(): the low bits of the integer part
        return _wrap(int(value), bits)
    if isinstance(value, str):
        try:
            return parse_java_int(value, SchemaType[target])
        except ValueError:
            raise _out_of_range(value) from None
    raise _unexpected(value)


def _cast_to_float(value: Any, target: str) -> float:
    single = target == "FLOAT32"
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, float):
        return to_float32(value) if single else value
    if isinstance(value, int | decimal.Decimal):
        return exact_to_float32(value) if single else float(value)
    if isinstance(value, str):
        try:
            text = _java_float_text(value)
        except ValueError:
            raise _out_of_range(value) from None
        if single and not text.endswith(("NaN", "Infinity")):
            return exact_to_float32(decimal.Decimal(text))
        return to_float32(float(text)) if single else float(text)
    raise _unexpected(value)


def _cast_to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, float):
        return _double_to_int(value, 64) != 0
    if isinstance(value, decimal.Decimal):
        return _wrap(int(value), 64) != 0
    if isinstance(value, str):
        return value.lower() == "true"
    raise _unexpected(value)


def _cast_to_string(value: Any, single: bool = False) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_float_to_string(value) if single else java_double_to_string(value)
    return str(value)


def _logical_to_int(schema: Schema, value: Any) -> Any:
    """A Date, Time or Timestamp value as the integer it is encoded as; any other value as it is."""
    if schema.name == Date.LOGICAL_NAME:
        return Date.from_logical(schema, value)
    if schema.name == Time.LOGICAL_NAME:
        return Time.from_logical(schema, value)
    if schema.name == Timestamp.LOGICAL_NAME:
        return Timestamp.from_logical(schema, value)
    return value


def _unsupported_input(kind: str) -> DataException:
    return DataException(f"Cast transformation does not support casting from {kind}; supported types are "
                         f"{java_list(_INPUT_TYPES)}")


def _cast_to(value: Any, target: str, single: bool = False) -> Any:
    if target in _BITS:
        return _cast_to_integer(value, target)
    if target in ("FLOAT32", "FLOAT64"):
        return _cast_to_float(value, target)
    if target == "BOOLEAN":
        return _cast_to_boolean(value)
    return _cast_to_string(value, single)


def cast_value(value: Any, target: str) -> Any:
    """Cast one schemaless value to ``target`` (an upper-case Connect type name) as the reference does."""
    if value is None:
        return None
    inferred = _inferred_type(value)
    if inferred is None:
        raise DataException(f"Cast transformation was passed a value of type {java_class(value)} which is not "
                            "supported by Connect's data API")
    if inferred not in _INPUT_TYPES:
        raise _unsupported_input(inferred)
    return _cast_to(value, target)


def cast_value_with_schema(schema: Schema, value: Any, target: str) -> Any:
    """Cast one value that ``schema`` describes to ``target`` as the reference does."""
    if value is None:
        return None
    if schema.type.name not in _INPUT_TYPES:
        raise _unsupported_input(schema.type.name)
    if schema.name is not None:
        if target == "STRING" and schema.name in (Date.LOGICAL_NAME, Time.LOGICAL_NAME, Timestamp.LOGICAL_NAME):
            # Java's castToString formats a java.util.Date as Values does (dateFormatFor)
            return Values.convert_to_string(schema, value)
        if target != "STRING":
            value = _logical_to_int(schema, value)
    single = schema.type is SchemaType.FLOAT32
    if single and isinstance(value, float):
        # a FLOAT32 holds a single-precision value (Java's Float), whatever the Python float carries
        value = to_float32(value)
    return _cast_to(value, target, single)


class Cast(BuiltinTransformation):
    """Cast fields of, or the whole, key (:class:`CastKey`) or value (:class:`CastValue`)."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef().define(
            SPEC, ConfigType.LIST, NO_DEFAULT, _validate_spec, Importance.HIGH,
            "List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of Maps or "
            "Structs. A single type to cast the entire value. Valid types are int8, int16, int32, int64, float32, "
            "float64, boolean, and string. Note that binary fields can only be cast to string."))

    def __init__(self) -> None:
        self._casts: dict[str, str] = {}
        self._whole: str | None = None
        self._replace_null_with_default = True
        self._updated_schema = schema_update_cache(self._build_schema)

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._casts, self._whole = parse_field_types(values[SPEC])
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._updated_schema = schema_update_cache(self._build_schema)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = operand(record, self._KEY)
        if value is None:
            return record
        schema = operand_schema(record, self._KEY)
        if schema is not None:
            return self._apply_with_schema(record, schema, value)
        if self._whole is not None:
            return with_operand(record, self._KEY, cast_value(value, self._whole))
        fields = require_map(value, _PURPOSE)
        updated = dict(fields)
        for name, target in self._casts.items():
            updated[name] = cast_value(fields.get(name), target)
        return with_operand(record, self._KEY, updated)

    def _apply_with_schema(self, record: SourceRecord, schema: Schema, value: Any) -> SourceRecord:
        updated_schema = self._updated_schema(schema)
        if self._whole is not None:
            return with_schema_and_operand(record, self._KEY, updated_schema,
                                           cast_value_with_schema(schema, value, self._whole))
        struct = require_struct_in(value, schema, _PURPOSE)
        read = field_reader(struct, self._replace_null_with_default)
        updated = Struct(updated_schema)
        for field in struct.schema.fields:
            original = read(field)
            target = self._casts.get(field.name)
            new = original if target is None else cast_value_with_schema(field.schema, original, target)
            updated_field = updated_schema.field(field.name)
            assert updated_field is not None  # the updated schema has every field of the original
            updated.put(updated_field, new)
        return with_schema_and_operand(record, self._KEY, updated_schema, updated)

    def _build_schema(self, schema: Schema) -> Schema:
        """The schema of ``schema``'s values once cast, as the reference's ``getOrBuildSchema``."""
        builder: SchemaBuilder
        if self._whole is not None:
            builder = copy_schema_basics(schema, SchemaBuilder(SchemaType[self._whole]))
        else:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            for field in schema.fields:
                target = self._casts.get(field.name)
                if target is None:
                    builder.field(field.name, field.schema)
                    continue
                field_builder = SchemaBuilder(SchemaType[target])
                if field.schema.is_optional:
                    field_builder.optional()
                default = field.schema.default_value
                if default is not None:
                    field_builder.default_value(cast_value_with_schema(field.schema, default, target))
                builder.field(field.name, field_builder.build())
        if schema.is_optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(cast_value_with_schema(schema, schema.default_value, builder.build().type.name))
        return builder.build()


class CastKey(Cast):
    """Cast on the record key (``Cast$Key``)."""

    _KEY = True


class CastValue(Cast):
    """Cast on the record value (``Cast$Value``)."""
