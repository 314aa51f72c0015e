"""TimestampRouter (cases from the reference's TimestampRouterTest)."""

from __future__ import annotations

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.timestamp_router import TimestampRouter


def test_registered() -> None:
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.TimestampRouter"] is TimestampRouter


def test_default_configuration() -> None:
    xf = TimestampRouter()
    xf.configure({})
    record = SourceRecord(None, None, "test", 0, None, None, None, 1483425001864)
    out = xf.apply(record)
    assert out is not None and out.topic == "test-20170103"
    assert record.topic == "test"


def test_custom_formats() -> None:
    xf = TimestampRouter()
    xf.configure({"topic.format": "${timestamp}_${topic}_x", "timestamp.format": "yyyy.MM.dd-HH"})
    out = xf.apply(SourceRecord(None, None, "t", 0, "k", "v", None, 1483425001864))
    assert out is not None and out.topic == "2017.01.03-06_t_x"


def test_missing_timestamp_is_a_data_exception() -> None:
    xf = TimestampRouter()
    xf.configure({})
    with pytest.raises(DataException, match="Timestamp missing on record: "):
        xf.apply(SourceRecord(None, None, "t", 0))


def test_bad_pattern_refused_at_configuration() -> None:
    with pytest.raises(ConfigException, match=r"Invalid value YYYY for configuration timestamp.format: unsupported"):
        TimestampRouter().configure({"timestamp.format": "YYYY"})
    errors = {cv.name: cv.errors for cv in TimestampRouter().config_def().validate({"timestamp.format": "bad"})}
    assert errors["timestamp.format"] == [
        "Invalid value bad for configuration timestamp.format: Illegal pattern character 'b'"]
