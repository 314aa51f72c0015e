"""MaskField on schemaless data (cases from the reference's MaskFieldTest)."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.mask_field import MaskFieldKey, MaskFieldValue

VALUES: dict[str, Any] = {
    "magic": 42, "bool": True, "long": 42, "double": 42.0, "string": "55.121.20.20",
    "date": datetime.datetime(2024, 1, 2, tzinfo=datetime.UTC), "bigdec": decimal.Decimal("42.0"),
    "list": [42], "map": {"key": "value"},
}


def rec(value: Any) -> SourceRecord:
    return SourceRecord(None, None, "topic", 0, None, value)


def masked(fields: list[str], replacement: str | None, value: Any = None) -> Any:
    xf = MaskFieldValue()
    props = {"fields": ",".join(fields)}
    if replacement is not None:
        props["replacement"] = replacement
    xf.configure(props)
    out = xf.apply(rec(dict(VALUES) if value is None else value))
    assert out is not None
    return out.value


def test_registered() -> None:
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.MaskField$Key"] is MaskFieldKey
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.MaskField$Value"] is MaskFieldValue


def test_schemaless_masks_with_empty_values() -> None:
    fields = [f for f in VALUES if f != "magic"]
    out = masked(fields, None)
    assert out["magic"] == 42
    assert out["bool"] is False
    assert out["long"] == 0 and isinstance(out["long"], int)
    assert out["double"] == 0.0 and isinstance(out["double"], float)
    assert out["string"] == ""
    assert out["date"] == datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    assert out["bigdec"] == decimal.Decimal(0)
    assert out["list"] == [] and out["map"] == {}
    assert VALUES["list"] == [42]  # the input is not changed


@pytest.mark.parametrize(("field", "replacement", "expected"), [
    ("long", "123", 123), ("double", "123.0", 123.0), ("string", "123", "123"),
    ("bigdec", "123.0", decimal.Decimal("123.0")), ("long", "123.9", 123), ("double", "1e3", 1000.0),
])
def test_schemaless_with_replacement(field: str, replacement: str, expected: Any) -> None:
    out = masked([field], replacement)
    assert out[field] == expected and type(out[field]) is type(expected)


@pytest.mark.parametrize("field", ["date", "bool", "list", "map"])
def test_unsupported_replacement_type(field: str) -> None:
    with pytest.raises(DataException, match=r"Cannot mask value of type class .* with custom replacement."):
        masked([field], "123")


@pytest.mark.parametrize("field", ["long", "double", "bigdec"])
def test_replacement_type_mismatch(field: str) -> None:
    with pytest.raises(DataException, match=r"Unable to convert foo \(class java.lang.String\) to"):
        masked([field], "foo")


def test_bytes_cannot_be_masked() -> None:
    with pytest.raises(DataException, match=r"Cannot mask value of type: class \[B"):
        masked(["b"], None, {"b": b"x"})


def test_null_and_missing_fields() -> None:
    assert masked(["a", "missing"], None, {"a": None}) == {"a": None, "missing": None}


def test_empty_replacement_is_a_config_error() -> None:
    with pytest.raises(ConfigException, match="Invalid value  for configuration replacement: String must be non-empty"):
        MaskFieldValue().configure({"fields": "a", "replacement": ""})


def test_fields_required_and_non_empty() -> None:
    with pytest.raises(ConfigException, match='Missing required configuration "fields"'):
        MaskFieldValue().configure({})
    with pytest.raises(ConfigException, match="Invalid value \\[\\] for configuration fields: Empty list"):
        MaskFieldValue().configure({"fields": ""})


def test_null_operand_is_a_data_exception() -> None:
    xf = MaskFieldKey()
    xf.configure({"fields": "a"})
    with pytest.raises(DataException, match=r"\[mask fields\], found: null"):
        xf.apply(rec({"a": 1}))
