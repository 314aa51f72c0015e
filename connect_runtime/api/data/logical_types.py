"""The logical types Decimal, Date, Time and Timestamp: schemas and conversions as Java's.

Each is a named schema over a primitive type; a ``Struct`` holds the Python value, and converters call
``from_logical`` / ``to_logical`` for the wire value:

- ``Decimal``: BYTES, the unscaled value in big-endian two's complement (Java's
  ``BigInteger.toByteArray``) <-> ``decimal.Decimal`` with exactly the schema's ``scale``.
- ``Date``: INT32, days since 1970-01-01 <-> ``datetime.date`` (before 1970 is negative). A
  ``datetime.datetime`` is accepted at midnight UTC only (naive taken as UTC).
- ``Time``: INT32, milliseconds since midnight <-> ``datetime.time``, aware in UTC (naive taken as
  UTC); microseconds below a millisecond are dropped, as Java holds milliseconds.
- ``Timestamp``: INT64, milliseconds since the epoch <-> ``datetime.datetime``, aware in UTC (naive
  taken as UTC); microseconds below a millisecond are dropped (rounded towards the past).

A naive ``datetime`` or ``time`` is read as UTC, never as local time: ``datetime.now()`` on a host
outside UTC gives a value off by the host's offset, so plugins should pass aware values. Python's
dates hold years 1..9999 only: ``to_logical`` of a Date or Timestamp outside them raises
``DataException`` where Java returns a ``java.util.Date``.
"""

from __future__ import annotations

import datetime
import decimal
from typing import ClassVar, Generic, TypeVar

from connect_runtime.api.data.schema import (
    DATE_LOGICAL_NAME,
    DECIMAL_LOGICAL_NAME,
    TIME_LOGICAL_NAME,
    TIMESTAMP_LOGICAL_NAME,
    Schema,
    SchemaType,
    parse_java_int,
)
from connect_runtime.api.data.schema_builder import SchemaBuilder
from connect_runtime.api.errors import DataException

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
_MILLIS_PER_DAY = 24 * 60 * 60 * 1000

T = TypeVar("T")


class Decimal:
    """An arbitrary-precision decimal with a fixed scale (the ``scale`` parameter)."""

    LOGICAL_NAME = DECIMAL_LOGICAL_NAME
    SCALE_FIELD = "scale"

    @staticmethod
    def builder(scale: int) -> SchemaBuilder:
        """A builder of the Decimal schema with ``scale`` digits after the point (negative: zeros before it)."""
        return SchemaBuilder.bytes().name(DECIMAL_LOGICAL_NAME).parameter("scale", str(scale)).version(1)

    @staticmethod
    def schema(scale: int) -> Schema:
        """The Decimal schema with ``scale`` (required; ``builder(scale).optional()`` for optional)."""
        return Decimal.builder(scale).build()

    @staticmethod
    def from_logical(schema: Schema, value: decimal.Decimal) -> bytes:
        """The unscaled bytes; raises ``DataException`` unless ``value`` has the schema's scale."""
        schema_scale = Decimal._scale(schema)
        sign, digits, exponent = value.as_tuple()
        if not isinstance(exponent, int):
            raise DataException(f"Decimal value {value} is not finite")
        if -exponent != schema_scale:
            raise DataException(
                "Decimal value has mismatching scale for given Decimal schema. "
                f"Schema has scale {schema_scale}, value has scale {-exponent}."
            )
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        length = (unscaled if unscaled >= 0 else ~unscaled).bit_length() // 8 + 1
        return unscaled.to_bytes(length, "big", signed=True)

    @staticmethod
    def to_logical(schema: Schema, value: bytes | bytearray) -> decimal.Decimal:
        """The ``decimal.Decimal`` of the unscaled bytes at the schema's scale, exactly."""
        if not value:
            raise DataException("Invalid Decimal value: zero length bytes")
        unscaled = int.from_bytes(value, "big", signed=True)
        digits = tuple(int(d) for d in str(abs(unscaled)))
        return decimal.Decimal((1 if unscaled < 0 else 0, digits, -Decimal._scale(schema)))

    @staticmethod
    def _scale(schema: Schema) -> int:
        scale = None if schema.parameters is None else schema.parameters.get("scale")
        if scale is None:
            raise DataException("Invalid Decimal schema: scale parameter not found.")
        try:
            return parse_java_int(scale)
        except ValueError as e:
            raise DataException("Invalid scale parameter found in Decimal schema: ") from e


def _check_name(schema: Schema, name: str, what: str) -> None:
    if schema.name != name:
        raise DataException(f"Requested conversion of {what} object but the schema does not match.")


def _millis_since_epoch(value: datetime.datetime) -> int:
    utc = value.replace(tzinfo=datetime.UTC) if value.tzinfo is None else value.astimezone(datetime.UTC)
    return (utc - _EPOCH) // datetime.timedelta(milliseconds=1)


def _after_epoch(what: str, value: int, step: datetime.timedelta) -> datetime.datetime:
    try:
        return _EPOCH + value * step
    except OverflowError as e:
        raise DataException(f"{what} value {value} is outside the dates Python represents") from e


class _TemporalType(Generic[T]):
    """Date, Time and Timestamp: an integer schema named after the type, version 1, and the
    conversions between its integers and their Python values, refused for a schema of another name."""

    LOGICAL_NAME: ClassVar[str]
    SCHEMA: ClassVar[Schema]
    _PRIMITIVE: ClassVar[SchemaType]
    _TO_LOGICAL_ERROR_NAME: ClassVar[str | None] = None  # the type Java's to_logical message names, if not this one

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.SCHEMA = cls.builder().build()

    @classmethod
    def builder(cls) -> SchemaBuilder:
        """A builder of this type's schema, to make it optional or give it a default before ``build()``."""
        return SchemaBuilder(cls._PRIMITIVE).name(cls.LOGICAL_NAME).version(1)

    @classmethod
    def from_logical(cls, schema: Schema, value: T) -> int:
        """The integer of ``value``; raises ``DataException`` unless ``schema`` is this type's."""
        _check_name(schema, cls.LOGICAL_NAME, cls.__name__)
        return cls._encode(value)

    @classmethod
    def to_logical(cls, schema: Schema, value: int) -> T:
        """The Python value of ``value``; raises ``DataException`` unless ``schema`` is this type's."""
        _check_name(schema, cls.LOGICAL_NAME, cls._TO_LOGICAL_ERROR_NAME or cls.__name__)
        return cls._decode(value)

    @staticmethod
    def _encode(value: T) -> int:
        raise NotImplementedError

    @staticmethod
    def _decode(value: int) -> T:
        raise NotImplementedError


class Date(_TemporalType[datetime.date]):
    """A date without time of day, as days since the epoch (INT32), years 1..9999 only.

    A ``datetime`` is taken at midnight UTC only; a naive one is read as UTC, not local time.
    """

    LOGICAL_NAME = DATE_LOGICAL_NAME
    _PRIMITIVE = SchemaType.INT32

    @staticmethod
    def _encode(value: datetime.date) -> int:
        if isinstance(value, datetime.datetime):
            millis = _millis_since_epoch(value)
            if millis % _MILLIS_PER_DAY:
                raise DataException("Kafka Connect Date type should not have any time fields set to non-zero values.")
            return millis // _MILLIS_PER_DAY
        return (value - _EPOCH.date()).days

    @staticmethod
    def _decode(value: int) -> datetime.date:
        return _after_epoch("Date", value, datetime.timedelta(days=1)).date()


class Time(_TemporalType[datetime.time]):
    """A time of day without date, as milliseconds since midnight UTC (INT32); a naive ``time`` is
    read as UTC, not local time.

    An offset that moves a time out of the UTC day is refused; ``86400000`` is refused as
    ``datetime.time`` has no 24:00 (Java accepts it).
    """

    LOGICAL_NAME = TIME_LOGICAL_NAME
    _PRIMITIVE = SchemaType.INT32
    _TO_LOGICAL_ERROR_NAME = "Date"

    @staticmethod
    def _encode(value: datetime.time) -> int:
        millis = _millis_since_epoch(datetime.datetime.combine(_EPOCH.date(), value))
        if millis < 0 or millis >= _MILLIS_PER_DAY:
            raise DataException("Kafka Connect Time type should not have any date fields set to non-zero values.")
        return millis

    @staticmethod
    def _decode(value: int) -> datetime.time:
        if value < 0 or value >= _MILLIS_PER_DAY:
            raise DataException("Time values must use number of milliseconds greater than 0 and less than 86400000")
        return _after_epoch("Time", value, datetime.timedelta(milliseconds=1)).timetz()


class Timestamp(_TemporalType[datetime.datetime]):
    """An instant, as milliseconds since the epoch (INT64), years 1..9999 only.

    A naive ``datetime`` is read as UTC, not local time: pass aware values
    (``datetime.now(datetime.UTC)``, not ``datetime.now()``).
    """

    LOGICAL_NAME = TIMESTAMP_LOGICAL_NAME
    _PRIMITIVE = SchemaType.INT64

    @staticmethod
    def _encode(value: datetime.datetime) -> int:
        return _millis_since_epoch(value)

    @staticmethod
    def _decode(value: int) -> datetime.datetime:
        return _after_epoch("Timestamp", value, datetime.timedelta(milliseconds=1))
