"""Decimal, Date, Time and Timestamp: schemas and conversions, at their limits, with Java's messages."""

from __future__ import annotations

import datetime
import decimal

import pytest

from connect_runtime.api import DataException, Date, Decimal, Schema, SchemaBuilder, SchemaType, Time, Timestamp

UTC = datetime.UTC


def test_schemas_are_javas() -> None:
    assert Decimal.schema(2).type is SchemaType.BYTES and Decimal.schema(2).version == 1
    assert dict(Decimal.schema(2).parameters or {}) == {"scale": "2"}
    assert SchemaBuilder.int32().name("org.apache.kafka.connect.data.Date").version(1).build() == Date.SCHEMA
    assert Time.SCHEMA.type is SchemaType.INT32 and Time.SCHEMA.name == "org.apache.kafka.connect.data.Time"
    assert Timestamp.SCHEMA.type is SchemaType.INT64 and Timestamp.SCHEMA.name == Timestamp.LOGICAL_NAME


# bytes as Java's BigInteger.toByteArray gives them
@pytest.mark.parametrize(
    ("value", "scale", "raw"),
    [
        ("0", 0, b"\x00"),
        ("1.27", 2, b"\x7f"),
        ("1.28", 2, b"\x00\x80"),
        ("-1.28", 2, b"\x80"),
        ("-1.29", 2, b"\xff\x7f"),
        ("-0.01", 2, b"\xff"),
        ("156.00", 2, b"\x3c\xf0"),
        ("12345678901234567890.123456789", 9, (12345678901234567890123456789).to_bytes(12, "big", signed=True)),
        ("1E+2", -2, b"\x01"),
    ],
)
def test_decimal_round_trip(value: str, scale: int, raw: bytes) -> None:
    schema = Decimal.schema(scale)
    assert Decimal.from_logical(schema, decimal.Decimal(value)) == raw
    back = Decimal.to_logical(schema, raw)
    assert back == decimal.Decimal(value) and back.as_tuple().exponent == -scale


def test_decimal_scale_mismatch_and_bad_schemas() -> None:
    with pytest.raises(DataException, match=r"^Decimal value has mismatching scale for given Decimal schema\. "
                                            r"Schema has scale 2, value has scale 1\.$"):
        Decimal.from_logical(Decimal.schema(2), decimal.Decimal("1.5"))
    with pytest.raises(DataException, match=r"^Invalid Decimal schema: scale parameter not found\.$"):
        Decimal.to_logical(Schema.BYTES_SCHEMA, b"\x01")
    with pytest.raises(DataException, match=r"^Invalid scale parameter found in Decimal schema: $"):
        Decimal.to_logical(SchemaBuilder.bytes().parameter("scale", "x").build(), b"\x01")
    with pytest.raises(DataException, match="not finite"):
        Decimal.from_logical(Decimal.schema(0), decimal.Decimal("NaN"))


@pytest.mark.parametrize(
    ("day", "days"),
    [
        (datetime.date(1970, 1, 1), 0),
        (datetime.date(1970, 1, 2), 1),
        (datetime.date(1969, 12, 31), -1),
        (datetime.date(1, 1, 1), -719162),
        (datetime.date(9999, 12, 31), 2932896),
    ],
)
def test_date_round_trip(day: datetime.date, days: int) -> None:
    assert Date.from_logical(Date.SCHEMA, day) == days
    assert Date.to_logical(Date.SCHEMA, days) == day


def test_date_accepts_a_datetime_at_midnight_utc_only() -> None:
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    assert Date.from_logical(Date.SCHEMA, datetime.datetime(1970, 1, 3, 2, tzinfo=plus_two)) == 2
    assert Date.from_logical(Date.SCHEMA, datetime.datetime(1969, 12, 31)) == -1
    with pytest.raises(DataException, match=r"^Kafka Connect Date type should not have any time fields"):
        Date.from_logical(Date.SCHEMA, datetime.datetime(1970, 1, 3, 0, 0, 0, 1000, tzinfo=UTC))


def test_date_out_of_pythons_range_and_wrong_schema() -> None:
    with pytest.raises(DataException, match="outside the dates Python represents"):
        Date.to_logical(Date.SCHEMA, 2932897)
    with pytest.raises(DataException, match=r"^Requested conversion of Date object but the schema does not match\.$"):
        Date.from_logical(Schema.INT32_SCHEMA, datetime.date(1970, 1, 1))
    with pytest.raises(DataException, match=r"^Requested conversion of Date object but the schema does not match\.$"):
        Date.to_logical(Time.SCHEMA, 0)


@pytest.mark.parametrize(
    ("time", "millis"),
    [
        (datetime.time(0, tzinfo=UTC), 0),
        (datetime.time(0, 0, 0, 1000, tzinfo=UTC), 1),
        (datetime.time(23, 59, 59, 999000, tzinfo=UTC), 86_399_999),
        (datetime.time(12, 30, tzinfo=UTC), 45_000_000),
    ],
)
def test_time_round_trip(time: datetime.time, millis: int) -> None:
    assert Time.from_logical(Time.SCHEMA, time) == millis
    assert Time.to_logical(Time.SCHEMA, millis) == time


def test_time_conversions_at_their_limits() -> None:
    assert Time.from_logical(Time.SCHEMA, datetime.time(1, 0, 0, 999)) == 3_600_000  # naive is UTC; sub-ms dropped
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    assert Time.from_logical(Time.SCHEMA, datetime.time(3, tzinfo=plus_two)) == 3_600_000
    with pytest.raises(DataException, match=r"^Kafka Connect Time type should not have any date fields"):
        Time.from_logical(Time.SCHEMA, datetime.time(1, tzinfo=plus_two))
    for out_of_day in (-1, 86_400_000):
        with pytest.raises(DataException, match=r"^Time values must use number of milliseconds greater than 0 and "
                                                r"less than 86400000$"):
            Time.to_logical(Time.SCHEMA, out_of_day)
    with pytest.raises(DataException, match=r"^Requested conversion of Time object but the schema does not match\.$"):
        Time.from_logical(Date.SCHEMA, datetime.time(0))
    with pytest.raises(DataException, match=r"^Requested conversion of Date object"):  # sic, as Java's Time
        Time.to_logical(Date.SCHEMA, 0)


@pytest.mark.parametrize(
    ("instant", "millis"),
    [
        (datetime.datetime(1970, 1, 1, tzinfo=UTC), 0),
        (datetime.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC), -1),
        (datetime.datetime(2024, 2, 29, 12, 0, 0, 123000, tzinfo=UTC), 1_709_208_000_123),
        (datetime.datetime(1, 1, 1, tzinfo=UTC), -62_135_596_800_000),
    ],
)
def test_timestamp_round_trip(instant: datetime.datetime, millis: int) -> None:
    assert Timestamp.from_logical(Timestamp.SCHEMA, instant) == millis
    assert Timestamp.to_logical(Timestamp.SCHEMA, millis) == instant
    assert Timestamp.to_logical(Timestamp.SCHEMA, millis).tzinfo is UTC


def test_timestamp_conversions_at_their_limits() -> None:
    # below a millisecond rounds towards the past, before 1970 too
    assert Timestamp.from_logical(Timestamp.SCHEMA, datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)) == -1
    plus_one = datetime.timezone(datetime.timedelta(hours=1))
    assert Timestamp.from_logical(Timestamp.SCHEMA, datetime.datetime(1970, 1, 1, 1, tzinfo=plus_one)) == 0
    with pytest.raises(DataException, match=r"^Timestamp value 9223372036854775807 is outside the dates Python"):
        Timestamp.to_logical(Timestamp.SCHEMA, 2**63 - 1)
    with pytest.raises(DataException, match=r"^Requested conversion of Timestamp object but the schema does not match"):
        Timestamp.to_logical(Schema.INT64_SCHEMA, 0)


@pytest.mark.parametrize(("scale", "parsed"), [("5", 5), ("-3", -3), ("+2", 2), ("\u0661\u0662", 12)])
def test_decimal_scale_is_read_as_javas_parse_int(scale: str, parsed: int) -> None:
    schema = SchemaBuilder.bytes().name(Decimal.LOGICAL_NAME).parameter("scale", scale).build()
    assert Decimal.to_logical(schema, b"\x01").as_tuple().exponent == -parsed


@pytest.mark.parametrize("scale", [" 5", "5 ", "1_0", "", "2147483648", "\U0001d7d3"])
def test_decimal_scales_javas_parse_int_refuses_are_refused(scale: str) -> None:
    schema = SchemaBuilder.bytes().name(Decimal.LOGICAL_NAME).parameter("scale", scale).build()
    with pytest.raises(DataException, match=r"^Invalid scale parameter found in Decimal schema: $"):
        Decimal.to_logical(schema, b"\x01")
