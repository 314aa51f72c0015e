"""TimestampConverter: convert a timestamp between unix time, formatted strings and date-time values.

Java's ``TimestampConverter$Key`` / ``$Value`` on schemaless data: ``field`` names the top-level map
field holding the timestamp (empty: the whole key or value is the timestamp); ``target.type`` is one
of ``string``, ``unix``, ``Date``, ``Time``, ``Timestamp``; ``format`` is a SimpleDateFormat pattern
(required for ``string``; used to format, and to parse string input), in UTC; ``unix.precision`` is
``seconds``, ``milliseconds`` (default), ``microseconds`` or ``nanoseconds`` for unix input and
output. The input type is inferred from the value, as Java does for schemaless data: an int is unix
time, a str a formatted string, a ``datetime.datetime`` a Timestamp; null stays null (a missing field is
added as null); anything else is a DataException.

Python representation: Java represents Date, Time and Timestamp alike as ``java.util.Date``; here all
three are a timezone-aware ``datetime.datetime`` in UTC with millisecond precision: a Date is midnight
of its day, a Time is that time of day on 1970-01-01, a Timestamp the instant. A naive datetime given
as input is read as UTC; sub-millisecond parts are dropped, as Java's millisecond Date does.
Like Java's schemaless ``java.util.Date``, such a value is for a following transform to use: the
JSON converter refuses it ("does not have corresponding schema type"), as Java's does.

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
    DataException,
    Importance,
    SourceRecord,
    ValidString,
)
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._simple_date_format import PatternError, SimpleDateFormat
from connect_runtime.transforms._util import (
    LONG_MAX,
    LONG_MIN,
    BuiltinTransformation,
    define_replace_null_with_default,
    java_class,
    operand,
    require_map,
    with_operand,
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

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._field = values[FIELD]
        self._target = values[TARGET_TYPE]
        pattern: str = values[FORMAT]
        self._precision = values[UNIX_PRECISION]
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
        if raw is None or not self._field:
            return with_operand(record, self._KEY, self._convert(raw))
        value = require_map(raw, _PURPOSE)
        updated = dict(value)
        updated[self._field] = self._convert(value.get(self._field))
        return with_operand(record, self._KEY, updated)

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


class TimestampConverterKey(TimestampConverter):
    """TimestampConverter on the record key (``TimestampConverter$Key``)."""

    _KEY = True


class TimestampConverterValue(TimestampConverter):
    """TimestampConverter on the record value (``TimestampConverter$Value``)."""
