"""TimestampConverter on schemaless data (cases from the reference's TimestampConverterTest)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue

UTC = datetime.UTC
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)
TIME = EPOCH + datetime.timedelta(milliseconds=1234)
DATE = EPOCH + datetime.timedelta(days=1)
DATE_PLUS_TIME = DATE + datetime.timedelta(milliseconds=1234)
DATE_PLUS_TIME_UNIX = 86_401_234
DATE_PLUS_TIME_UNIX_MICROS = DATE_PLUS_TIME_UNIX * 1000 + 123
DATE_PLUS_TIME_UNIX_NANOS = DATE_PLUS_TIME_UNIX_MICROS * 1000 + 456
STRING_DATE_FMT = "yyyy MM dd HH mm ss SSS z"
DATE_PLUS_TIME_STRING = "1970 01 02 00 00 01 234 UTC"


def convert(value: Any, **config: str) -> Any:
    xf = TimestampConverterValue()
    xf.configure({k.replace("_", "."): v for k, v in config.items()})
    out = xf.apply(SourceRecord(None, None, "topic", 0, None, value))
    assert out is not None
    return out.value


def test_registered() -> None:
    java = "org.apache.kafka.connect.transforms.TimestampConverter$"
    assert BUILTIN_TRANSFORMS[java + "Key"] is TimestampConverterKey
    assert BUILTIN_TRANSFORMS[java + "Value"] is TimestampConverterValue


@pytest.mark.parametrize(("config", "message"), [
    ({}, 'Missing required configuration "target.type"'),
    ({"target.type": "invalid"}, "Invalid value invalid for configuration target.type: String must be one of: "
                                 "string, unix, Date, Time, Timestamp"),
    ({"target.type": "unix", "unix.precision": "invalid"}, "Invalid value invalid for configuration unix.precision"),
    ({"target.type": "string"}, "TimestampConverter requires format option to be specified when using string "
                                "timestamps"),
    ({"target.type": "string", "format": "bad-format"}, "TimestampConverter requires a SimpleDateFormat-compatible "
                                                        "pattern for string timestamps: bad-format"),
    ({"target.type": "string", "format": "YYYY-ww"}, "TimestampConverter requires a SimpleDateFormat-compatible "
                                                     "pattern for string timestamps: YYYY-ww (unsupported pattern "
                                                     "letter 'Y'"),
])
def test_config_errors(config: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException) as e:
        TimestampConverterValue().configure(config)
    assert str(e.value).startswith(message)


def test_valid_unix_precision() -> None:
    TimestampConverterValue().configure({"target.type": "unix", "unix.precision": "seconds"})


def test_timestamp_to_each_type() -> None:
    assert convert(DATE_PLUS_TIME, target_type="Timestamp") == DATE_PLUS_TIME
    assert convert(DATE_PLUS_TIME, target_type="Date") == DATE
    assert convert(DATE_PLUS_TIME, target_type="Time") == TIME
    assert convert(DATE_PLUS_TIME, target_type="unix") == DATE_PLUS_TIME_UNIX
    assert convert(DATE_PLUS_TIME, target_type="string", format=STRING_DATE_FMT) == DATE_PLUS_TIME_STRING


def test_each_type_to_timestamp() -> None:
    assert convert(DATE, target_type="Timestamp") == DATE
    assert convert(TIME, target_type="Timestamp") == TIME
    assert convert(DATE_PLUS_TIME_UNIX, target_type="Timestamp") == DATE_PLUS_TIME
    assert convert(DATE_PLUS_TIME_STRING, target_type="Timestamp", format=STRING_DATE_FMT) == DATE_PLUS_TIME


def test_naive_datetime_is_utc_and_sub_millis_dropped() -> None:
    naive = datetime.datetime(1970, 1, 2, 0, 0, 1, 234_999)
    assert convert(naive, target_type="unix") == DATE_PLUS_TIME_UNIX
    offset = datetime.datetime(1970, 1, 2, 1, 0, 1, 234_000, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    assert convert(offset, target_type="unix") == DATE_PLUS_TIME_UNIX


@pytest.mark.parametrize("target", ["string", "Date", "Timestamp", "unix", "Time"])
def test_null_value_and_null_field(target: str) -> None:
    assert convert(None, target_type=target, format=STRING_DATE_FMT) is None
    assert convert({"ts": None}, target_type=target, field="ts", format=STRING_DATE_FMT) == {"ts": None}


def test_field_conversion_keeps_other_fields() -> None:
    value = {"ts": DATE_PLUS_TIME, "other": 1}
    assert convert(value, target_type="Date", field="ts") == {"ts": DATE, "other": 1}
    assert value["ts"] == DATE_PLUS_TIME
    assert convert({"other": 1}, target_type="Date", field="ts") == {"other": 1, "ts": None}


@pytest.mark.parametrize(("precision", "given", "millis"), [
    ("seconds", 86_401, 86_401_000), ("milliseconds", DATE_PLUS_TIME_UNIX, DATE_PLUS_TIME_UNIX),
    ("microseconds", DATE_PLUS_TIME_UNIX_MICROS, DATE_PLUS_TIME_UNIX),
    ("nanoseconds", DATE_PLUS_TIME_UNIX_NANOS, DATE_PLUS_TIME_UNIX), ("microseconds", -1500, -1),
])
def test_unix_precision_input(precision: str, given: int, millis: int) -> None:
    assert convert(given, target_type="Timestamp", unix_precision=precision) == EPOCH + datetime.timedelta(
        milliseconds=millis)


@pytest.mark.parametrize(("precision", "expected"), [
    ("seconds", 86_401), ("microseconds", 86_401_234_000), ("nanoseconds", 86_401_234_000_000),
])
def test_string_to_unix_with_precision(precision: str, expected: int) -> None:
    assert convert(DATE_PLUS_TIME_STRING, target_type="unix", unix_precision=precision,
                   format=STRING_DATE_FMT) == expected


def test_unix_nanos_saturate_as_java() -> None:
    far = datetime.datetime(9999, 1, 1, tzinfo=UTC)
    assert convert(far, target_type="unix", unix_precision="nanoseconds") == 2**63 - 1


def test_key_variant() -> None:
    xf = TimestampConverterKey()
    xf.configure({"target.type": "unix"})
    out = xf.apply(SourceRecord(None, None, "t", 0, DATE_PLUS_TIME, "v"))
    assert out is not None and (out.key, out.value) == (DATE_PLUS_TIME_UNIX, "v")


def test_data_errors() -> None:
    with pytest.raises(DataException, match=r"^Could not parse timestamp: value \(nope\) does not match pattern "
                                            r"\(yyyy MM dd HH mm ss SSS z\)$"):
        convert("nope", target_type="unix", format=STRING_DATE_FMT)
    with pytest.raises(DataException, match=r"TimestampConverter does not support class java.lang.Double objects"):
        convert(1.5, target_type="unix")
    with pytest.raises(DataException, match=r"class java.lang.Boolean"):
        convert(True, target_type="unix")
    with pytest.raises(DataException, match="requires format option"):
        convert("2024", target_type="unix")
    with pytest.raises(DataException, match=r"\[converting timestamp formats\], found: java.lang.Long"):
        convert(5, target_type="unix", field="ts")
