"""Kafka Connect's ``Values`` (Java's ``org.apache.kafka.connect.data.Values``): values to and from text.

``Values.parse_string`` infers a schema and a value from text, ``Values.convert_to_string`` writes a
value as text; ``SimpleHeaderConverter`` and ``InsertHeader`` are built on them, so header bytes and
literals mean what they mean on Java's runtime. The other ``convert_to_*`` functions convert between
the types of the data model as Java's do.

The grammar is Java's, hand-written because no library parses it: text is split into tokens at
unescaped ``: , { } [ ] "``; ``true``/``false``/``null`` alone, numbers (the smallest of INT8..INT64
for a whole number up to 1e19, else FLOAT32, FLOAT64 or a Decimal), ISO dates ``2024-01-31``, times
``12:30:00.000Z`` and timestamps ``2024-01-31T12:30:00.000Z`` (in UTC, parsed leniently as
``SimpleDateFormat`` does: ``2024-13-01`` is ``2025-01-01``), arrays ``[...]`` and maps ``{k:v}`` of
those with quoted strings inside; anything else is a STRING of the whole text.

Where Java looks at a value's boxed class, Python has one ``int`` and one ``float``: a value's schema
says its width when there is one (a ``float`` under a FLOAT32 schema is written as ``Float.toString``
does), and without a schema an ``int`` is taken as a Java ``Long`` and a ``float`` as a ``Double``.
Parsed FLOAT32 values are Python floats holding the 32-bit value. Dates, times and timestamps are
``datetime.date``, ``datetime.time`` and ``datetime.datetime`` (UTC) values, written by their
milliseconds as Java writes a ``java.util.Date``.

Java parses and writes dates in the JVM's default time zone; this is Java in UTC, as Connect
workers usually run. Differences from Java, where Python values cannot say what Java's do:

* a date or timestamp before the Gregorian calendar (1582-10-15; Java's is Julian there) or after
  year 9999, and a time that lenient parsing carries past midnight (``24:00:00.000Z``), are not
  parsed as temporal values; a date before 1582-10-15 is written in the proleptic Gregorian calendar;
* a FLOAT32 inside an array or a map whose elements have no common schema has no schema to say its
  width, so it is written as a double;
* a map whose keys are arrays or maps, or equal in Python though not in Java (``1`` and ``true``),
  is not parsed as a map.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from connect_runtime.api.data.logical_types import Date, Decimal, Time, Timestamp
from connect_runtime.api.data.schema import Schema, SchemaType
from connect_runtime.api.data.schema_and_value import SchemaAndValue
from connect_runtime.api.data.schema_builder import SchemaBuilder
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import exact_to_float32, java_double_to_string, java_float_to_string, to_float32

__all__ = ["Values"]

_MILLIS_PER_DAY = 24 * 60 * 60 * 1000
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_GREGORIAN_START = datetime.date(1582, 10, 15)
_DELIMITERS = frozenset(':,{}[]"')
_NULL_LITERAL = "null"
_ARRAY_SELECTOR = SchemaBuilder.array(Schema.STRING_SCHEMA).build()
_MAP_SELECTOR = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).build()
_STRUCT_SELECTOR = SchemaBuilder.struct().build()
_NULL_TO_REQUIRED = "Unable to convert a null value to a schema that requires a value"
# java.math.BigDecimal's grammar (digits may be any Unicode decimal digit, as Character.digit reads them)
_BIG_DECIMAL = re.compile(r"[+-]?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?")
_INT_MAX = 2**31 - 1
_NUMBER_TYPES = (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64,
                 SchemaType.FLOAT32, SchemaType.FLOAT64)


class _NumberFormatError(ValueError):
    """Java's ``NumberFormatException``: text that is not a ``BigDecimal``."""


# ---------------------------------------------------------------------------------------------------
# Java's numeric conversions

def _wrap(value: int, bits: int) -> int:
    """Java's narrowing cast of an integer to ``bits`` (two's complement, the low bits kept)."""
    half = 1 << (bits - 1)
    return (value + half) % (1 << bits) - half


def _double_to_long(value: float) -> int:
    """Java's ``(long)`` cast of a double: NaN is 0, out of range saturates, else truncates."""
    if value != value:
        return 0
    if value >= 2.0**63:
        return 2**63 - 1
    if value <= -(2.0**63):
        return -(2**63)
    return int(value)


def _parse_big_decimal(text: str) -> decimal.Decimal:
    """``new BigDecimal(text)``; raises :class:`_NumberFormatError` for anything else."""
    match = _BIG_DECIMAL.fullmatch(text)
    if match is None or any(ord(c) > 0xFFFF for c in text):
        raise _NumberFormatError(text)
    fraction = match[2] or match[3] or ""
    exponent = int(match[4]) if match[4] else 0
    if abs(exponent) > _INT_MAX or abs(len(fraction) - exponent) > _INT_MAX:
        raise _NumberFormatError(text)
    return decimal.Decimal(text)


def _is_number(value: object) -> bool:
    """Whether Java would hold ``value`` as a ``java.lang.Number`` (a bool is a Boolean)."""
    return isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)


def _java_class(value: object) -> str:
    return str(type(value))


def _scale(value: decimal.Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) else 0


# ---------------------------------------------------------------------------------------------------
# java.util.Date as text, and the milliseconds of a temporal value

def _millis(value: datetime.date | datetime.time) -> int:
    """The milliseconds since the epoch a ``java.util.Date`` of ``value`` holds."""
    if isinstance(value, datetime.datetime):
        return Timestamp.from_logical(Timestamp.SCHEMA, value)
    if isinstance(value, datetime.date):
        return Date.from_logical(Date.SCHEMA, value) * _MILLIS_PER_DAY
    return Time.from_logical(Time.SCHEMA, value)


def _format_date(millis: int) -> str:
    """Java's ``Values.dateFormatFor(date).format(date)`` in UTC: a time of day below one day, a date
    at midnight, else a timestamp."""
    instant = _EPOCH + datetime.timedelta(milliseconds=millis)
    time = f"{instant:%H:%M:%S}.{instant.microsecond // 1000:03d}Z"
    if millis < _MILLIS_PER_DAY:
        return time
    date = f"{instant.year:04d}-{instant.month:02d}-{instant.day:02d}"
    if millis % _MILLIS_PER_DAY == 0:
        return date
    return f"{date}T{time}"


# The three ISO forms as SimpleDateFormat's fields: a number (its calendar field) or a literal.
_DATE_FIELDS: tuple[str, ...] = ("year", "-", "month", "-", "day")
_TIME_FIELDS: tuple[str, ...] = ("hour", ":", "minute", ":", "second", ".", "milli", "Z")
_TIMESTAMP_FIELDS = (*_DATE_FIELDS, "T", *_TIME_FIELDS)


def _parse_lenient(text: str, fields: tuple[str, ...]) -> int | None:
    """``new SimpleDateFormat(pattern).parse(text, position)`` in UTC, lenient as Java's default: the
    milliseconds since the epoch, or None where Java fails (or Python has no ``datetime``)."""
    values = {"year": 1970, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "milli": 0}
    pos = 0
    for field in fields:
        if field in values:
            while pos < len(text) and text[pos] in " \t":  # SimpleDateFormat skips blanks before a number
                pos += 1
            start = pos
            while pos < len(text) and text[pos].isdecimal() and ord(text[pos]) <= 0xFFFF:
                pos += 1
            if pos == start or pos - start > 9:
                return None
            values[field] = int(text[start:pos])
        elif pos < len(text) and text[pos] == field:
            pos += 1
        else:
            return None
    months = values["year"] * 12 + values["month"] - 1
    try:
        first = datetime.date(months // 12, months % 12 + 1, 1)
        day = first + datetime.timedelta(days=values["day"] - 1)
    except (ValueError, OverflowError):
        return None
    if day < _GREGORIAN_START:
        return None
    millis = ((day - _EPOCH.date()).days * _MILLIS_PER_DAY + values["hour"] * 3_600_000
              + values["minute"] * 60_000 + values["second"] * 1000 + values["milli"])
    if not -62_135_596_800_000 <= millis <= 253_402_300_799_999:
        return None
    return millis


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _parse_as_temporal(token: str) -> SchemaAndValue | None:
    token = token.replace("\\:", ":")  # escaped colons
    length = _utf16_length(token)
    if length == 13:  # HH:mm:ss.SSSZ
        millis = _parse_lenient(token, _TIME_FIELDS)
        if millis is None or not 0 <= millis < _MILLIS_PER_DAY:
            return None
        return SchemaAndValue(Time.SCHEMA, Time.to_logical(Time.SCHEMA, millis))
    if length == 24:  # yyyy-MM-ddTHH:mm:ss.SSSZ
        millis = _parse_lenient(token, _TIMESTAMP_FIELDS)
        return None if millis is None else SchemaAndValue(Timestamp.SCHEMA,
                                                          Timestamp.to_logical(Timestamp.SCHEMA, millis))
    if length == 10:  # yyyy-MM-dd
        millis = _parse_lenient(token, _DATE_FIELDS)
        return None if millis is None else SchemaAndValue(Date.SCHEMA,
                                                          Date.to_logical(Date.SCHEMA, millis // _MILLIS_PER_DAY))
    return None


# ---------------------------------------------------------------------------------------------------
# The tokenizer and the parser (Java's Values.Parser and Values.ValueParser)

def _java_trim(text: str) -> str:
    """``String.trim``: every character up to U+0020 off both ends."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def _is_blank(text: str) -> bool:
    return not _java_trim(text)


class _Tokenizer:
    """Tokens of the text: runs between unescaped delimiters, and each delimiter alone."""

    def __init__(self, original: str) -> None:
        self.original = original
        self._pos = 0
        self._next: str | None = None
        self._previous: str | None = None

    def position(self) -> int:
        """The position in UTF-16 units, as Java's messages give it."""
        return _utf16_length(self.original[:self._pos])

    def mark(self) -> int:
        return self._pos - (len(self._next) if self._next is not None else 0)

    def rewind_to(self, position: int) -> None:
        self._pos = position
        self._next = None
        self._previous = None

    def has_next(self) -> bool:
        return self._next is not None or self._pos < len(self.original)

    def next(self) -> str:
        if self._next is not None:
            self._previous, self._next = self._next, None
        else:
            self._previous = self._consume()
        return self._previous

    def next_n(self, n: int) -> str | None:
        """The text of the next ``n`` tokens, or None (nothing consumed) if there are fewer."""
        start = self.mark()
        for _ in range(n):
            if not self.has_next():
                self.rewind_to(start)
                return None
            self.next()
        return self.original[start:self._pos]

    def previous(self) -> str | None:
        return self._previous

    def can_consume(self, expected: str) -> bool:
        """Consume the next non-blank token if, trimmed, it is ``expected``."""
        if self._next is None:
            if not self.has_next():
                return False
            self._next = self._consume()
        while _is_blank(self._next) and self._pos < len(self.original):
            self._next = self._consume()
        if _java_trim(self._next) == expected:
            self._next = None
            return True
        return False

    def _consume(self) -> str:
        text, start = self.original, self._pos
        escaped = False
        i = start
        while i < len(text):
            c = text[i]
            if c == "\\":
                escaped = not escaped
            elif c in _DELIMITERS and not escaped:
                if start < i:
                    self._pos = i
                    return text[start:i]
                self._pos = i + 1
                return c
            else:
                escaped = False
            i += 1
        self._pos = len(text)
        return text[start:]


_TRUE = SchemaAndValue(Schema.BOOLEAN_SCHEMA, True)
_FALSE = SchemaAndValue(Schema.BOOLEAN_SCHEMA, False)


class _ValueParser:
    """Java's ``Values.ValueParser``: ``parse`` returns None for a null value."""

    def __init__(self, text: str) -> None:
        self._tokens = _Tokenizer(text)

    def _single_token_literal(self, embedded: bool, literal: str) -> bool:
        # At the top level a literal must be the whole text: "true}" is the string "true}".
        start = self._tokens.mark()
        if self._tokens.can_consume(literal) and (embedded or not self._tokens.has_next()):
            return True
        self._tokens.rewind_to(start)
        return False

    def parse(self, embedded: bool) -> SchemaAndValue | None:
        tokens = self._tokens
        if not tokens.has_next():
            return None
        if embedded and tokens.can_consume('"'):
            return self._parse_quoted_string()
        if self._single_token_literal(embedded, _NULL_LITERAL):
            return None
        if self._single_token_literal(embedded, "true"):
            return _TRUE
        if self._single_token_literal(embedded, "false"):
            return _FALSE
        start = tokens.mark()
        try:
            if tokens.can_consume("["):
                return self._parse_array()
            if tokens.can_consume("{"):
                return self._parse_map()
        except DataException:
            tokens.rewind_to(start)  # not an array or a map after all: a string
        token = tokens.next()
        if _is_blank(token):
            return SchemaAndValue(Schema.STRING_SCHEMA, token)
        return self._parse_next_token(embedded, _java_trim(token))

    def _parse_next_token(self, embedded: bool, token: str) -> SchemaAndValue:
        first = token[0]
        is_digit = first.isdecimal() and ord(first) <= 0xFFFF
        if is_digit:  # temporal forms are stricter, so they come first
            temporal = self._parse_multiple_tokens_as_temporal(token)
            if temporal is not None:
                return temporal
        if is_digit or first in "+-":
            try:
                return _parse_as_number(token)
            except _NumberFormatError:
                pass
        if embedded:
            raise DataException("Failed to parse embedded value")
        return SchemaAndValue(Schema.STRING_SCHEMA, self._tokens.original)

    def _parse_quoted_string(self) -> SchemaAndValue:
        tokens = self._tokens
        parts: list[str] = []
        while tokens.has_next():
            if tokens.can_consume('"'):
                break
            parts.append(tokens.next())
        content = "".join(parts)
        return _parse_as_temporal(content) or SchemaAndValue(Schema.STRING_SCHEMA, content)

    def _parse_array(self) -> SchemaAndValue:
        tokens = self._tokens
        result: list[Any] = []
        element_schema = _SchemaMerger()
        while tokens.has_next():
            if tokens.can_consume("]"):
                common = element_schema.schema
                if common is None:  # no common schema: an array schema without an element schema
                    return SchemaAndValue(Schema(SchemaType.ARRAY), result)
                list_schema = SchemaBuilder.array(common).build()
                return SchemaAndValue(list_schema, [_convert_to(common, None, v) for v in result])
            if tokens.can_consume(","):
                raise DataException(f"Unable to parse an empty array element: {tokens.original}")
            element = self.parse(True)
            element_schema.merge(element)
            result.append(None if element is None else element.value)
            position = tokens.mark()
            if tokens.can_consume("]"):
                tokens.rewind_to(position)
            elif not tokens.can_consume(","):
                raise DataException("Array elements missing ',' delimiter")
        if tokens.previous() == ",":
            raise DataException(f"Array is missing element after ',': {tokens.original}")
        raise DataException(f"Array is missing terminating ']': {tokens.original}")

    def _parse_map(self) -> SchemaAndValue:
        tokens = self._tokens
        result: dict[Any, Any] = {}
        key_types: dict[Any, type] = {}
        key_schema, value_schema = _SchemaMerger(), _SchemaMerger()
        while tokens.has_next():
            if tokens.can_consume("}"):
                keys, values = key_schema.schema, value_schema.schema
                if keys is not None and values is not None:
                    schema = SchemaBuilder.map(keys, values).build()
                    return SchemaAndValue(schema, {_convert_to(keys, None, k): _convert_to(values, None, v)
                                                   for k, v in result.items()})
                if keys is not None:
                    return SchemaAndValue(Schema(SchemaType.MAP, key_schema=keys),
                                          {_convert_to(keys, None, k): v for k, v in result.items()})
                return SchemaAndValue(Schema(SchemaType.MAP), result)
            if tokens.can_consume(","):
                raise DataException(f"Unable to parse a map entry with no key or value: {tokens.original}")
            key = self.parse(True)
            if key is None or key.value is None:
                raise DataException(f"Map entry may not have a null key: {tokens.original}")
            if not tokens.can_consume(":"):
                raise DataException(f"Map entry is missing ':' at {tokens.position()} in {tokens.original}")
            value = self.parse(True)
            try:
                known = key_types.setdefault(key.value, type(key.value))
            except TypeError as e:  # a list or a map as a key: Python cannot hash it
                raise DataException(f"Map entry may not have an unhashable key: {tokens.original}") from e
            if known is not type(key.value):  # 1 and true: one dict key, two of Java's
                raise DataException(f"Map entries may not have keys Python takes as equal: {tokens.original}")
            result[key.value] = None if value is None else value.value
            tokens.can_consume(",")
            key_schema.merge(key)
            value_schema.merge(value)
        if tokens.previous() == ",":
            raise DataException(f"Map is missing element after ',': {tokens.original}")
        raise DataException(f"Map is missing terminating '}}': {tokens.original}")

    def _parse_multiple_tokens_as_temporal(self, token: str) -> SchemaAndValue | None:
        # An unescaped colon is a delimiter, so a time or timestamp spans 5 tokens.
        tokens = self._tokens
        position = tokens.mark()
        remainder = tokens.next_n(4)
        if remainder is not None:
            temporal = _parse_as_temporal(token + remainder)
            if temporal is not None:
                return temporal
        tokens.rewind_to(position)
        return _parse_as_temporal(token)


_BIGGER_THAN_LONG = decimal.Decimal("1e19")


def _parse_as_number(token: str) -> SchemaAndValue:
    number = _parse_big_decimal(token)
    exact = _parse_as_exact_integer(number)
    if exact is not None:
        return exact
    scale = _scale(number)
    as_float = exact_to_float32(number)
    if math.isfinite(as_float) and scale != 0:
        return SchemaAndValue(Schema.FLOAT32_SCHEMA, as_float)
    as_double = float(number)
    if math.isfinite(as_double) and scale != 0:
        return SchemaAndValue(Schema.FLOAT64_SCHEMA, as_double)
    return SchemaAndValue(Decimal.schema(scale), number)


def _parse_as_exact_integer(number: decimal.Decimal) -> SchemaAndValue | None:
    magnitude = abs(number)
    if magnitude > _BIGGER_THAN_LONG or (magnitude < 1 and magnitude != 0):
        return None
    if number != number.to_integral_value():
        return None
    integral = int(number)
    if integral < -(2**63) or integral >= 2**63:
        return None
    for schema, bits in ((Schema.INT8_SCHEMA, 8), (Schema.INT16_SCHEMA, 16), (Schema.INT32_SCHEMA, 32)):
        if _wrap(integral, bits) == integral:
            return SchemaAndValue(schema, integral)
    return SchemaAndValue(Schema.INT64_SCHEMA, integral)


class _SchemaMerger:
    """The schema common to the parsed elements so far (numbers widen), None if there is none."""

    def __init__(self) -> None:
        self.schema: Schema | None = None
        self._compatible = True

    def merge(self, latest: SchemaAndValue | None) -> None:
        if latest is None or latest.schema is None or not self._compatible:
            return
        if self.schema is None:
            self.schema = latest.schema
        else:
            self.schema = _merge_schemas(self.schema, latest.schema)
            self._compatible = self.schema is not None


def _merge_schemas(previous: Schema, new: Schema) -> Schema | None:
    if previous.type is not new.type:
        if previous.type not in _NUMBER_TYPES or new.type not in _NUMBER_TYPES:
            return None
        # the wider of two numeric types (any float is wider than any integer)
        wider = _NUMBER_TYPES.index(new.type) > _NUMBER_TYPES.index(previous.type)
        return new if wider else previous
    if previous.is_optional == new.is_optional:
        return previous if previous.is_optional else new
    return previous if previous == new else None


# ---------------------------------------------------------------------------------------------------
# Conversions (Java's convertTo and its helpers)

def _number_of(value: object) -> int | float | decimal.Decimal | None:
    """The ``java.lang.Number`` ``value`` is, or the ``BigDecimal`` its text is; None for neither."""
    if isinstance(value, str):
        try:
            return _parse_big_decimal(value)
        except _NumberFormatError:
            return None
    return value if _is_number(value) else None  # type: ignore[return-value]


def _java_number(value: object, schema: Schema | None) -> int | float | decimal.Decimal | None:
    """:func:`_number_of`, a float under a FLOAT32 schema narrowed to the Java ``Float`` it stands for."""
    number = _number_of(value)
    if isinstance(number, float) and schema is not None and schema.type is SchemaType.FLOAT32:
        return to_float32(number)
    return number


def _as_long(value: object, from_schema: Schema | None) -> int:
    """Java's ``asLong``: a number, numeric text, or a temporal value of a logical schema."""
    number = _java_number(value, from_schema)
    if isinstance(number, float):
        return _double_to_long(number)
    if number is not None:
        return _wrap(int(number), 64)  # BigDecimal.longValue truncates, then keeps the low 64 bits
    if from_schema is not None:
        name = from_schema.name
        if name == Date.LOGICAL_NAME and isinstance(value, datetime.date):
            return Date.from_logical(from_schema, value)
        if name == Time.LOGICAL_NAME and isinstance(value, datetime.time):
            return Time.from_logical(from_schema, value)
        if name == Timestamp.LOGICAL_NAME and isinstance(value, datetime.datetime):
            return Timestamp.from_logical(from_schema, value)
        raise DataException(f"Unable to convert {value} ({_java_class(value)}) to {from_schema!r}")
    raise DataException(f"Unable to convert {value} ({_java_class(value)}) to a number")


def _as_double(value: object, schema: Schema | None) -> float:
    """Java's ``asDouble``: a number or numeric text as a double, else :func:`_as_long`'s."""
    number = _java_number(value, schema)
    return float(number) if number is not None else float(_as_long(value, schema))


def _convert_to(to_schema: Schema, from_schema: Schema | None, value: object) -> Any:
    """Java's ``convertTo``: ``value`` as the type ``to_schema`` names."""
    if value is None:
        if to_schema.is_optional:
            return None
        raise DataException(_NULL_TO_REQUIRED)
    logical = _TEMPORAL_TYPES.get(to_schema.name)
    if logical is not None and logical.SCHEMA.type is to_schema.type:
        return _convert_to_temporal(to_schema, from_schema, value)
    if to_schema.name == Decimal.LOGICAL_NAME and to_schema.type is SchemaType.BYTES:
        return _convert_to_decimal(to_schema, value)
    scalar = _SCALAR_CONVERSIONS.get(to_schema.type)
    if scalar is not None:
        return scalar(from_schema, value)
    return _COMPOUND_CONVERSIONS[to_schema.type](to_schema, value)


def _unable(value: object, to_schema: Schema) -> DataException:
    return DataException(f"Unable to convert {value} ({_java_class(value)}) to {to_schema!r}")


def _convert_to_decimal(to_schema: Schema, value: object, from_schema: Schema | None = None) -> decimal.Decimal:
    if value is None:
        raise DataException(_NULL_TO_REQUIRED)
    if isinstance(value, bytes | bytearray | memoryview):
        return Decimal.to_logical(to_schema, bytes(value))
    if isinstance(value, decimal.Decimal):
        return value
    if _is_number(value):
        # BigDecimal.valueOf(double): the decimal of Double.toString
        return decimal.Decimal(java_double_to_string(float(_java_number(value, from_schema))))  # type: ignore[arg-type]
    if isinstance(value, str):
        try:
            return _parse_big_decimal(value)
        except _NumberFormatError as e:
            raise DataException(f"Unable to convert {value} to a decimal") from e
    raise _unable(value, to_schema)


def _convert_to_bytes(to_schema: Schema, value: object) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, decimal.Decimal):
        return Decimal.from_logical(to_schema, value)
    raise _unable(value, to_schema)


def _temporal_input(value: object) -> object:
    return Values.parse_string(value).value if isinstance(value, str) else value


def _retyped(value: datetime.date | datetime.time, name: str) -> object:
    """The same instant as the Python class of logical type ``name``, where that class can hold it.

    Java's three temporal types share one class, so Java converts nothing when a Date value meets a
    Timestamp schema (a list of a date and a timestamp); here the value takes the schema's class.
    """
    millis = _millis(value)
    if name == Timestamp.LOGICAL_NAME:
        return Timestamp.to_logical(Timestamp.SCHEMA, millis)
    if name == Date.LOGICAL_NAME and millis % _MILLIS_PER_DAY == 0:
        return Date.to_logical(Date.SCHEMA, millis // _MILLIS_PER_DAY)
    if name == Time.LOGICAL_NAME and 0 <= millis < _MILLIS_PER_DAY:
        return Time.to_logical(Time.SCHEMA, millis)
    return value  # a time of day under a Date schema, say: kept, as Java keeps it


_TEMPORAL_TYPES: dict[str | None, Any] = {Date.LOGICAL_NAME: Date, Time.LOGICAL_NAME: Time,
                                           Timestamp.LOGICAL_NAME: Timestamp}


def _convert_to_temporal(to_schema: Schema, from_schema: Schema | None, value: object) -> object:
    """Java's ``convertToDate``, ``convertToTime`` and ``convertToTimestamp``, by ``to_schema``'s
    logical name: text is parsed first; a temporal value of a Timestamp gives its day (truncated) or
    its time of day, a Date's or a Time's gives its instant as a Timestamp; anything else goes through
    ``as_long`` as the type's integer (narrowed to 32 bits for a Date or a Time)."""
    if value is None:
        raise DataException(_NULL_TO_REQUIRED)
    target = to_schema.name
    value = _temporal_input(value)
    if isinstance(value, datetime.date | datetime.time):
        if from_schema is None:
            return _retyped(value, target or "")
        source = from_schema.name
        if source == target:
            return value
        if source in _TEMPORAL_TYPES and Timestamp.LOGICAL_NAME in (source, target):
            millis = _millis(value)
            if target == Date.LOGICAL_NAME:
                return Date.to_logical(to_schema, int(millis / _MILLIS_PER_DAY))
            if target == Time.LOGICAL_NAME:
                return Time.to_logical(to_schema, millis % _MILLIS_PER_DAY)
            return Timestamp.to_logical(to_schema, millis)
    numeric = _as_long(value, from_schema)
    return _TEMPORAL_TYPES[target].to_logical(to_schema, numeric if target == Timestamp.LOGICAL_NAME
                                              else _wrap(numeric, 32))


def _convert_to_collection(to_schema: Schema, value: object) -> Any:
    """Java's ``convertToArray`` and ``convertToMapInternal``: a list (for an ARRAY ``to_schema``) or a
    mapping (for a MAP) as is, or the one the text stands for."""
    if value is None:
        raise DataException(_NULL_TO_REQUIRED)
    if isinstance(value, str):
        value = Values.parse_string(value).value
    if to_schema.type is SchemaType.ARRAY and isinstance(value, list | tuple):
        return list(value) if isinstance(value, tuple) else value
    if to_schema.type is SchemaType.MAP and isinstance(value, Mapping):
        return value
    raise _unable(value, to_schema)


def _convert_to_struct(to_schema: Schema, value: object) -> Struct:
    if value is None:
        raise DataException(_NULL_TO_REQUIRED)
    if isinstance(value, Struct):
        return value
    raise _unable(value, to_schema)


# ---------------------------------------------------------------------------------------------------
# Values as text (Java's Values.append)

def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _append(out: list[str], value: object, embedded: bool, schema: Schema | None) -> None:
    if value is None:
        out.append(_NULL_LITERAL)
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        as_float = schema is not None and schema.type is SchemaType.FLOAT32
        out.append(java_float_to_string(value) if as_float else java_double_to_string(value))
    elif isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise DataException(f"Failed to serialize unexpected value type decimal.Decimal: {value}")
        out.append(str(value))  # Python's to-sci-string is BigDecimal.toString's format
    elif isinstance(value, str):
        out.append(f'"{_escape(value)}"' if embedded else value)
    elif isinstance(value, bytes | bytearray | memoryview):
        encoded = base64.b64encode(value).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, list | tuple):
        element_schema = schema.value_schema if schema is not None and schema.type is SchemaType.ARRAY else None
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _append(out, item, True, element_schema)
        out.append("]")
    elif isinstance(value, Mapping):
        is_map = schema is not None and schema.type is SchemaType.MAP
        key_schema = schema.key_schema if is_map else None  # type: ignore[union-attr]
        value_schema = schema.value_schema if is_map else None  # type: ignore[union-attr]
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            _append(out, key, True, key_schema)
            out.append(":")
            _append(out, item, True, value_schema)
        out.append("}")
    elif isinstance(value, Struct):
        out.append("{")
        for i, field in enumerate(value.schema.fields):
            if i:
                out.append(",")
            _append(out, field.name, True, None)
            out.append(":")
            _append(out, value.get(field), True, field.schema)
        out.append("}")
    elif isinstance(value, datetime.date | datetime.time):
        out.append(_format_date(_millis(value)))
    else:
        kind = type(value)
        raise DataException(f"Failed to serialize unexpected value type {kind.__module__}.{kind.__qualname__}: "
                            f"{value!r}")


def _infer_common(values: list[object]) -> Schema | None:
    """Java's ``SchemaDetector``: the one type of all non-null values, optional if any is null."""
    known: SchemaType | None = None
    optional = False
    for value in values:
        if value is None:
            optional = True
            continue
        schema = Values.infer_schema(value)
        if schema is None or (known is not None and known is not schema.type):
            return None
        known = schema.type
    if known is None:
        raise DataException("Cannot infer a schema from null values only")
    builder = SchemaBuilder(known)
    return (builder.optional() if optional else builder).build()


class Values:
    """Java's ``Values``: parse text into a schema and a value, write values as text, convert values.

    Every function takes the value's schema where Java takes it (None when unknown) and returns None
    for a None value, unless it says otherwise.
    """

    @staticmethod
    def parse_string(value: str | None) -> SchemaAndValue:
        """The schema and value the text stands for (see the module docstring for the grammar).

        Never None: a None text gives ``SchemaAndValue(None, None)``, text that is nothing else is a
        STRING of the whole text. An array or a map whose elements have no common schema has an
        ARRAY or MAP schema without element (or key/value) schema, as Java's.
        """
        if value is None:
            return SchemaAndValue.NULL
        if not value:
            return SchemaAndValue(Schema.STRING_SCHEMA, value)
        parsed = _ValueParser(value).parse(False)
        return SchemaAndValue.NULL if parsed is None else parsed

    @staticmethod
    def convert_to_string(schema: Schema | None, value: object) -> str | None:
        """The text form of ``value``, which :meth:`parse_string` reads back.

        Strings as they are (quoted with ``\\`` and ``"`` escaped inside arrays and maps), bytes in
        base64, floats as Java's ``Double.toString`` (``Float.toString`` under a FLOAT32 schema),
        decimals as ``BigDecimal.toString``, structs as maps of their fields, temporal values as
        ``java.util.Date``s in UTC. Raises ``DataException`` for a value of no Connect type.
        """
        if value is None:
            return None
        if type(value) is str:
            return value
        out: list[str] = []
        _append(out, value, False, schema)
        return "".join(out)

    @staticmethod
    def convert_to_boolean(schema: Schema | None, value: object) -> bool | None:
        """A bool as is, ``"true"``/``"false"`` text, else whether the number is non-zero."""
        if value is None:
            return None
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            parsed = Values.parse_string(value).value
            if isinstance(parsed, bool):
                return parsed
        return _as_long(value, schema) != 0

    @staticmethod
    def convert_to_byte(schema: Schema | None, value: object) -> int | None:
        """An INT8: a number (truncated and narrowed as Java casts), numeric text, or a temporal
        value of a logical schema; raises ``DataException`` for anything else."""
        return None if value is None else _wrap(_as_long(value, schema), 8)

    @staticmethod
    def convert_to_short(schema: Schema | None, value: object) -> int | None:
        """An INT16, as :meth:`convert_to_byte`."""
        return None if value is None else _wrap(_as_long(value, schema), 16)

    @staticmethod
    def convert_to_integer(schema: Schema | None, value: object) -> int | None:
        """An INT32, as :meth:`convert_to_byte`."""
        return None if value is None else _wrap(_as_long(value, schema), 32)

    @staticmethod
    def convert_to_long(schema: Schema | None, value: object) -> int | None:
        """An INT64, as :meth:`convert_to_byte`."""
        return None if value is None else _as_long(value, schema)

    @staticmethod
    def convert_to_float(schema: Schema | None, value: object) -> float | None:
        """A FLOAT32 (a float holding the 32-bit value), from a number or numeric text."""
        return None if value is None else to_float32(_as_double(value, schema))

    @staticmethod
    def convert_to_double(schema: Schema | None, value: object) -> float | None:
        """A FLOAT64, from a number or numeric text."""
        return None if value is None else _as_double(value, schema)

    @staticmethod
    def convert_to_list(schema: Schema | None, value: object) -> list[Any]:
        """A list as is, or the array the text stands for; raises ``DataException`` otherwise (None too)."""
        return _convert_to_collection(_ARRAY_SELECTOR, value)  # type: ignore[no-any-return]

    @staticmethod
    def convert_to_map(schema: Schema | None, value: object) -> Mapping[Any, Any]:
        """A mapping as is, or the map the text stands for; raises ``DataException`` otherwise (None too)."""
        return _convert_to_collection(_MAP_SELECTOR, value)  # type: ignore[no-any-return]

    @staticmethod
    def convert_to_struct(schema: Schema | None, value: object) -> Struct:
        """A ``Struct`` as is; raises ``DataException`` for anything else (None too)."""
        return _convert_to_struct(_STRUCT_SELECTOR, value)

    @staticmethod
    def convert_to_date(schema: Schema | None, value: object) -> object:
        """A Date value: from a temporal value (a Timestamp's day), text, or days since the epoch."""
        return _convert_to_temporal(Date.SCHEMA, schema, value)

    @staticmethod
    def convert_to_time(schema: Schema | None, value: object) -> object:
        """A Time value: from a temporal value (a Timestamp's time of day), text, or milliseconds."""
        return _convert_to_temporal(Time.SCHEMA, schema, value)

    @staticmethod
    def convert_to_timestamp(schema: Schema | None, value: object) -> object:
        """A Timestamp value: from a temporal value, text, or milliseconds since the epoch."""
        return _convert_to_temporal(Timestamp.SCHEMA, schema, value)

    @staticmethod
    def convert_to_decimal(schema: Schema | None, value: object, scale: int) -> decimal.Decimal:
        """A ``decimal.Decimal``: as is, from Decimal bytes of ``scale``, a number (through
        ``Double.toString``, as Java's ``BigDecimal.valueOf``) or numeric text."""
        return _convert_to_decimal(Decimal.schema(scale), value, schema)

    @staticmethod
    def infer_schema(value: object) -> Schema | None:
        """The schema of a value, if one can be told: a str STRING, a bool BOOLEAN, an int INT64 (a
        Java ``Long``), a float FLOAT64, bytes BYTES, a Struct its schema; a non-empty list or mapping
        whose non-null elements share one inferable type an ARRAY or MAP of it. Else None (Decimal
        and temporal values too, as in Java)."""
        if isinstance(value, str):
            return Schema.STRING_SCHEMA
        if isinstance(value, bool):
            return Schema.BOOLEAN_SCHEMA
        if isinstance(value, int):
            return Schema.INT64_SCHEMA
        if isinstance(value, float):
            return Schema.FLOAT64_SCHEMA
        if isinstance(value, bytes | bytearray | memoryview):
            return Schema.BYTES_SCHEMA
        if isinstance(value, Struct):
            return value.schema
        try:
            if isinstance(value, list | tuple) and value:
                element = _infer_common(list(value))
                return None if element is None else SchemaBuilder.array(element).build()
            if isinstance(value, Mapping) and value:
                keys, values = _infer_common(list(value.keys())), _infer_common(list(value.values()))
                return None if keys is None or values is None else SchemaBuilder.map(keys, values).build()
        except DataException:
            return None  # only nulls: Java's detector has no type to build
        return None


# Java's convertTo by the target type: the scalar conversions take the value's schema, the others the target's.
_SCALAR_CONVERSIONS: dict[SchemaType, Callable[[Schema | None, object], object]] = {
    SchemaType.STRING: Values.convert_to_string, SchemaType.BOOLEAN: Values.convert_to_boolean,
    SchemaType.INT8: Values.convert_to_byte, SchemaType.INT16: Values.convert_to_short,
    SchemaType.INT32: Values.convert_to_integer, SchemaType.INT64: Values.convert_to_long,
    SchemaType.FLOAT32: Values.convert_to_float, SchemaType.FLOAT64: Values.convert_to_double,
}
_COMPOUND_CONVERSIONS: dict[SchemaType, Callable[[Schema, object], object]] = {
    SchemaType.BYTES: _convert_to_bytes, SchemaType.ARRAY: _convert_to_collection,
    SchemaType.MAP: _convert_to_collection,
    SchemaType.STRUCT: _convert_to_struct,
}
