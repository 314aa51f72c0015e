"""TimestampConverter: convert a timestamp between unix time, formatted strings and date-time values.

Java's ``TimestampConverter$Key`` / ``$Value``: ``field`` names the top-level map or Struct field
holding the timestamp (empty: the whole key or value is the timestamp); ``target.type`` is one of
``string``, ``unix``, ``Date``, ``Time``, ``Timestamp``; ``format`` is a SimpleDateFormat pattern
(required for ``string``; used to format, and to parse string input), in UTC; ``unix.precision`` is
``seconds``, ``milliseconds`` (default), ``microseconds`` or ``nanoseconds`` for unix input and
output.

Schemaless data: the input type is inferred from the value, as Java does: an int is unix time, a str
a formatted string, a ``datetime.datetime`` a Timestamp; null stays null (a missing field is added as
null); anything else is a DataException. Java represents Date, Time and Timestamp alike as
``java.util.Date``; schemaless output here is for all three a timezone-aware ``datetime.datetime`` in
UTC with millisecond precision: a Date is midnight of its day, a Time is that time of day on
1970-01-01, a Timestamp the instant. A naive datetime given as input is read as UTC; sub-millisecond
parts are dropped, as Java's millisecond Date does. Like Java's schemaless ``java.util.Date``, such a
value is for a following transform to use: the JSON converter refuses it ("does not have corresponding
schema type"), as Java's does.

With a schema: the input type is the schema's (the Date, Time and Timestamp logical types, a STRING a
formatted string, an INT64 unix time; any other schema is a ConnectException "Schema ... does not
correspond to a known timestamp type format", even for a null value). The output has the target's
schema (``Timestamp.SCHEMA``, ``Date.SCHEMA``, ``Time.SCHEMA``, STRING or INT64), optional when the
input's was, and the value the data model gives that schema: ``datetime.date``, ``datetime.time`` or
``datetime.datetime``. With ``field`` set the operand must be a Struct (or null) whose schema keeps
every other field and its name, version, doc and parameters; the field's new schema carries no
default, as in Java, and its value is read with its default unless ``replace.null.with.default`` is
false. The whole-value conversion applies to null values too (giving null with the target schema).
Updated Struct schemas are cached for the 16 most recent input schemas.

Differences from Java: ``format`` patterns using the week-based letters ``Y w W F`` are refused with a
ConfigException naming them (see ``_simple_date_format``); dates must fall within the years 1 to 9999
(DataException otherwise); a string input with no ``format`` configured is a DataException (Java
fails with a NullPointerException).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    ConnectException,
    DataException,
    Importance,
    SourceRecord,
    ValidString,
)
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.api.data import Date, Schema, SchemaBuilder, SchemaType, Struct, Time, Timestamp
from connect_runtime.transforms._simple_date_format import PatternError, SimpleDateFormat
from connect_runtime.transforms._util import (
    LONG_MAX,
    LONG_MIN,
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    BuiltinTransformation,
    copy_schema_basics,
    define_replace_null_with_default,
    field_reader,
    java_class,
    operand,
    operand_schema,
    require_map,
    require_struct_in,
    schema_update_cache,
    with_schema_and_operand,
)

FIELD = "field"
TARGET_TYPE = "target.type"
FORMAT = "format"
UNIX_PRECISION = "unix.precision"

TYPE_STRING = "string"
TYPE_UNIX = "unix"
TYPE_DATE = "Date"
TYPE_TIME = "Time"
TYPE_TIMESTAMP = "Timestamp"

_PURPOSE = "converting timestamp formats"
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_DAY_MS = 86_400_000
#: the schema of each target type, required and optional
_TARGET_SCHEMAS = {
    TYPE_STRING: (Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA),
    TYPE_UNIX: (Schema.INT64_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA),
    TYPE_DATE: (Date.SCHEMA, Date.builder().optional().build()),
    TYPE_TIME: (Time.SCHEMA, Time.builder().optional().build()),
    TYPE_TIMESTAMP: (Timestamp.SCHEMA, Timestamp.builder().optional().build()),
}
#: milliseconds per unit of each unix precision
_UNIT_PER_MS = {"seconds": (1000, 1), "milliseconds": (1, 1), "microseconds": (1, 1000), "nanoseconds": (1, 1_000_000)}


def _saturate(value: int) -> int:
    return max(LONG_MIN, min(LONG_MAX, value))


def _trunc_div(a: int, b: int) -> int:
    """Java's integer division: toward zero."""
    q = abs(a) // b
    return q if a >= 0 else -q


def datetime_to_millis(value: datetime.datetime) -> int:
    """Milliseconds since the epoch; a naive datetime is read as UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.UTC)
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def millis_to_datetime(millis: int) -> datetime.datetime:
    """The UTC datetime of milliseconds since the epoch."""
    try:
        return _EPOCH + datetime.timedelta(milliseconds=millis)
    except OverflowError:
        raise DataException(f"Timestamp {millis} ms is outside the years 1 to 9999") from None


class TimestampConverter(BuiltinTransformation):
    """Convert timestamps of the key (:class:`TimestampConverterKey`) or value (:class:`TimestampConverterValue`)."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(FIELD, ConfigType.STRING, "", None, Importance.HIGH,
                "The field containing the timestamp, or empty if the entire value is a timestamp")
        .define(TARGET_TYPE, ConfigType.STRING, NO_DEFAULT,
                ValidString.one_of(TYPE_STRING, TYPE_UNIX, TYPE_DATE, TYPE_TIME, TYPE_TIMESTAMP), Importance.HIGH,
                "The desired timestamp representation: string, unix, Date, Time, or Timestamp")
        .define(FORMAT, ConfigType.STRING, "", None, Importance.MEDIUM,
                "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when type=string "
                "or used to parse the input if the input is a string.")
        .define(UNIX_PRECISION, ConfigType.STRING, "milliseconds",
                ValidString.one_of("nanoseconds", "microseconds", "milliseconds", "seconds"), Importance.LOW,
                "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or nanoseconds. "
                "Used to generate the output when type=unix or used to parse the input if the input is a Long."
                "Note: This SMT will cause precision loss during conversions from, and to, values with "
                "sub-millisecond components."))

    def __init__(self) -> None:
        self._field = ""
        self._target = TYPE_TIMESTAMP
        self._format: SimpleDateFormat | None = None
        self._precision = "milliseconds"
        self._replace_null_with_default = True
        self._struct_schema = schema_update_cache(self._build_struct_schema)

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._field = values[FIELD]
        self._target = values[TARGET_TYPE]
        pattern: str = values[FORMAT]
        self._precision = values[UNIX_PRECISION]
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._struct_schema = schema_update_cache(self._build_struct_schema)
        if self._target == TYPE_STRING and not pattern.strip():
            raise ConfigException("TimestampConverter requires format option to be specified when using string "
                                  "timestamps")
        self._format = None
        if pattern.strip():
            try:
                self._format = SimpleDateFormat(pattern)
            except PatternError as e:
                raise ConfigException("TimestampConverter requires a SimpleDateFormat-compatible pattern for string "
                                      f"timestamps: {pattern} ({e})") from None

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        raw = operand(record, self._KEY)
        schema = operand_schema(record, self._KEY)
        if schema is not None:
            return self._apply_with_schema(record, schema, raw)
        if raw is None or not self._field:
            return with_schema_and_operand(record, self._KEY, None, self._convert(raw))
        value = require_map(raw, _PURPOSE)
        updated = dict(value)
        updated[self._field] = self._convert(value.get(self._field))
        return with_schema_and_operand(record, self._KEY, None, updated)

    def _apply_with_schema(self, record: SourceRecord, schema: Schema, raw: Any) -> SourceRecord:
        if not self._field:
            target_schema = self._target_schema(schema.is_optional)
            return with_schema_and_operand(record, self._KEY, target_schema,
                                           self._convert_typed(raw, _source_type(schema)))
        struct = None if raw is None else require_struct_in(raw, schema, _PURPOSE)
        updated_schema = self._struct_schema(schema)
        return with_schema_and_operand(record, self._KEY, updated_schema, self._convert_struct(struct, updated_schema))

    def _target_schema(self, optional: bool) -> Schema:
        return _TARGET_SCHEMAS[self._target][1 if optional else 0]

    def _build_struct_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            builder.field(field.name, self._target_schema(field.schema.is_optional)
                          if field.name == self._field else field.schema)
        if schema.is_optional:
            builder.optional()
        default = schema.default_value
        if isinstance(default, Struct):
            builder.default_value(self._convert_struct(default, builder.build()))
        return builder.build()

    def _convert_struct(self, struct: Struct | None, updated_schema: Schema) -> Struct | None:
        if struct is None:
            return None
        read = field_reader(struct, self._replace_null_with_default)
        updated = Struct(updated_schema)
        for field in struct.schema.fields:
            value = read(field)
            if field.name == self._field:
                value = self._convert_typed(value, _source_type(field.schema))
            updated.put(field.name, value)
        return updated

    def _convert_typed(self, timestamp: Any, source: str) -> Any:
        """Convert a value of the ``source`` timestamp type to the target type's schema'd value."""
        if timestamp is None:
            return None
        if source == TYPE_DATE:
            millis = Date.from_logical(Date.SCHEMA, timestamp) * _DAY_MS
        elif source == TYPE_TIME:
            millis = Time.from_logical(Time.SCHEMA, timestamp)
        elif source == TYPE_TIMESTAMP:
            millis = Timestamp.from_logical(Timestamp.SCHEMA, timestamp)
        else:
            millis = self._to_millis(timestamp)
        if self._target == TYPE_DATE:
            return Date.to_logical(Date.SCHEMA, millis // _DAY_MS)
        if self._target == TYPE_TIME:
            return Time.to_logical(Time.SCHEMA, millis % _DAY_MS)
        if self._target == TYPE_TIMESTAMP:
            return Timestamp.to_logical(Timestamp.SCHEMA, millis)
        return self._from_millis(millis)

    def _convert(self, timestamp: Any) -> Any:
        if timestamp is None:
            return None
        return self._from_millis(self._to_millis(timestamp))

    def _to_millis(self, timestamp: Any) -> int:
        if isinstance(timestamp, datetime.datetime):
            return datetime_to_millis(timestamp)
        if isinstance(timestamp, int) and not isinstance(timestamp, bool) and LONG_MIN <= timestamp <= LONG_MAX:
            multiplier, divisor = _UNIT_PER_MS[self._precision]
            return _saturate(timestamp * multiplier) if divisor == 1 else _trunc_div(timestamp, divisor)
        if isinstance(timestamp, str):
            if self._format is None:
                raise DataException("TimestampConverter requires format option to be specified when using string "
                                    "timestamps")
            try:
                return self._format.parse(timestamp)
            except ValueError:
                raise DataException(f"Could not parse timestamp: value ({timestamp}) does not match pattern "
                                    f"({self._format.pattern})") from None
        raise DataException(f"TimestampConverter does not support {java_class(timestamp)} objects as timestamps")

    def _from_millis(self, millis: int) -> Any:
        target = self._target
        if target == TYPE_UNIX:
            divisor, multiplier = _UNIT_PER_MS[self._precision]
            return _trunc_div(millis, divisor) if divisor != 1 else _saturate(millis * multiplier)
        if target == TYPE_STRING:
            assert self._format is not None  # configure() requires a format for string targets
            try:
                return self._format.format(millis)
            except ValueError as e:
                raise DataException(str(e)) from None
        if target == TYPE_DATE:
            return millis_to_datetime(millis - millis % _DAY_MS)
        if target == TYPE_TIME:
            return millis_to_datetime(millis % _DAY_MS)
        return millis_to_datetime(millis)


def _source_type(schema: Schema) -> str:
    """The timestamp type a schema's values are (the reference's ``timestampTypeFromSchema``)."""
    if schema.name == Timestamp.LOGICAL_NAME:
        return TYPE_TIMESTAMP
    if schema.name == Date.LOGICAL_NAME:
        return TYPE_DATE
    if schema.name == Time.LOGICAL_NAME:
        return TYPE_TIME
    if schema.type is SchemaType.STRING:
        return TYPE_STRING
    if schema.type is SchemaType.INT64:
        return TYPE_UNIX
    raise ConnectException(f"Schema {schema!r} does not correspond to a known timestamp type format")


class TimestampConverterKey(TimestampConverter):
    """TimestampConverter on the record key (``TimestampConverter$Key``)."""

    _KEY = True


class TimestampConverterValue(TimestampConverter):
    """TimestampConverter on the record value (``TimestampConverter$Value``)."""
