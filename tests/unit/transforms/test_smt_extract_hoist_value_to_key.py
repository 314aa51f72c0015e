"""ExtractField, HoistField and ValueToKey on schemaless data (cases from the reference's tests)."""

from __future__ import annotations

from typing import Any

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.extract_field import ExtractFieldKey, ExtractFieldValue
from connect_runtime.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from connect_runtime.transforms.value_to_key import ValueToKey


def rec(key: Any = None, value: Any = None) -> SourceRecord:
    return SourceRecord(None, None, "test", 0, key, value)


def test_registered() -> None:
    java = "org.apache.kafka.connect.transforms."
    assert BUILTIN_TRANSFORMS[java + "ExtractField$Key"] is ExtractFieldKey
    assert BUILTIN_TRANSFORMS[java + "ExtractField$Value"] is ExtractFieldValue
    assert BUILTIN_TRANSFORMS[java + "HoistField$Key"] is HoistFieldKey
    assert BUILTIN_TRANSFORMS[java + "HoistField$Value"] is HoistFieldValue
    assert BUILTIN_TRANSFORMS[java + "ValueToKey"] is ValueToKey


def extract(xf: ExtractFieldKey, key: Any) -> Any:
    out = xf.apply(rec(key=key))
    assert out is not None
    return out.key


def test_extract_schemaless() -> None:
    xf = ExtractFieldKey()
    xf.configure({"field": "magic"})
    assert extract(xf, {"magic": 42}) == 42
    assert extract(xf, None) is None
    assert extract(xf, {"other": 1}) is None


def test_extract_nested_path_with_v2() -> None:
    xf = ExtractFieldKey()
    xf.configure({"field": "magic.foo", "field.syntax.version": "v2"})
    assert extract(xf, {"magic": {"foo": 42}}) == 42
    assert extract(xf, {"magic": {"bar": 42}}) is None
    xf.configure({"field": "`magic.foo`", "field.syntax.version": "V2"})
    assert extract(xf, {"magic.foo": 7}) == 7


def test_extract_v1_takes_dotted_name_literally() -> None:
    xf = ExtractFieldKey()
    xf.configure({"field": "magic.foo"})
    assert extract(xf, {"magic.foo": 1, "magic": {"foo": 2}}) == 1


def test_extract_value_variant_and_errors() -> None:
    xf = ExtractFieldValue()
    xf.configure({"field": "a"})
    out = xf.apply(rec(key={"a": 9}, value={"a": 1}))
    assert out is not None and (out.key, out.value) == ({"a": 9}, 1)
    with pytest.raises(DataException, match=r"\[field extraction\], found: java.util.ArrayList"):
        xf.apply(rec(value=[1]))


def test_extract_config_errors() -> None:
    with pytest.raises(ConfigException, match='Missing required configuration "field"'):
        ExtractFieldKey().configure({})
    with pytest.raises(ConfigException, match=r"field.syntax.version: String must be one of"):
        ExtractFieldKey().configure({"field": "a", "field.syntax.version": "V3"})
    with pytest.raises(ConfigException, match="Incomplete backtick pair"):
        ExtractFieldKey().configure({"field": "`a.b", "field.syntax.version": "V2"})


def test_hoist_schemaless() -> None:
    xf = HoistFieldKey()
    xf.configure({"field": "magic"})
    out = xf.apply(rec(key=42))
    assert out is not None and out.key == {"magic": 42}
    value = HoistFieldValue()
    value.configure({"field": "v"})
    out = value.apply(rec(key=1, value=None))
    assert out is not None and (out.key, out.value) == (1, {"v": None})


def test_value_to_key_schemaless() -> None:
    xf = ValueToKey()
    xf.configure({"fields": "a,b,missing"})
    value = {"a": 1, "b": 2, "c": 3}
    out = xf.apply(rec(key="old", value=value))
    assert out is not None
    assert out.key == {"a": 1, "b": 2, "missing": None}
    assert out.value is value


def test_value_to_key_errors() -> None:
    with pytest.raises(ConfigException, match="Empty list"):
        ValueToKey().configure({"fields": ""})
    xf = ValueToKey()
    xf.configure({"fields": "a"})
    with pytest.raises(DataException, match=r"\[copying fields from value to key\], found: null"):
        xf.apply(rec(value=None))
