"""Cast on schemaless data (cases from the reference's CastTest, plus Java's narrowing rules)."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.cast import CastKey, CastValue


def rec(key: Any = None, value: Any = None) -> SourceRecord:
    return SourceRecord(None, None, "topic", 0, key, value)


def cast(spec: str, value: Any) -> Any:
    xf = CastValue()
    xf.configure({"spec": spec})
    out = xf.apply(rec(value=value))
    assert out is not None
    return out.value


def test_registered() -> None:
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.Cast$Key"] is CastKey
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.Cast$Value"] is CastValue


@pytest.mark.parametrize(("spec", "message"), [
    ("", "Must specify at least one field to cast."),
    ("foo:faketype", "Invalid type found in casting spec: faketype"),
    ("foo:array", "Cast transformation does not support casting to ARRAY; supported types are [INT8, INT16, INT32, "
                  "INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]"),
    ("array", "Cast transformation does not support casting to ARRAY"),
    ("foo:bytes", "Cast transformation does not support casting to BYTES"),
    ("foo:int8:extra", "Invalid value [foo:int8:extra] for configuration renames: Invalid rename mapping: "
                       "foo:int8:extra"),
    ("foo:int8,int32", "Cast transformations that specify a type to cast the entire value to may only specify a "
                       "single cast in their spec"),
])
def test_config_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigException) as e:
        CastKey().configure({"spec": spec})
    assert str(e.value).startswith(message)
    errors = {cv.name: cv.errors for cv in CastKey().config_def().validate({"spec": spec})}
    assert errors["spec"] and errors["spec"][0].startswith(message)


def test_null_operand_passes_through() -> None:
    xf = CastKey()
    xf.configure({"spec": "foo:int64"})
    record = rec(key=None, value={"foo": "1"})
    assert xf.apply(record) is record


@pytest.mark.parametrize(("spec", "expected"), [
    ("int8", 42), ("int16", 42), ("int32", 42), ("int64", 42), ("float32", 42.0), ("float64", 42.0),
    ("boolean", True), ("string", "42"),
])
def test_whole_value_schemaless(spec: str, expected: Any) -> None:
    out = cast(spec, 42)
    assert out == expected and type(out) is type(expected)


def test_whole_key() -> None:
    xf = CastKey()
    xf.configure({"spec": "int8"})
    out = xf.apply(rec(key=42, value="v"))
    assert out is not None and (out.key, out.value) == (42, "v")


def test_boolean_false_and_string_of_types() -> None:
    assert cast("boolean", 0) is False
    assert cast("string", True) == "true"
    assert cast("string", 1.5) == "1.5"
    assert cast("string", 1e10) == "1.0E10"
    assert cast("string", b"\x01\x02") == "AQI="


def test_fields_schemaless() -> None:
    value = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "float32": 32.0, "float64": -64.0, "boolean": True,
             "string": "42", "other": "kept"}
    out = cast("int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8,"
               "string:int32", value)
    assert out == {"int8": 8, "int16": 16, "int32": 32, "int64": True, "float32": 32.0, "float64": True,
                   "boolean": 1, "string": 42, "other": "kept"}
    assert value["string"] == "42"  # input untouched


def test_missing_field_is_added_as_null() -> None:
    assert cast("absent:int32", {"a": 1}) == {"a": 1, "absent": None}


@pytest.mark.parametrize(("spec", "value", "expected"), [
    ("int8", 300, 44), ("int8", -129, 127), ("int16", 70000, 4464), ("int32", 2**31, -(2**31)),
    ("int8", 3.9, 3), ("int8", -3.9, -3), ("int32", 1e20, 2**31 - 1), ("int64", float("nan"), 0),
    ("int8", 1e20, -1), ("int64", -1e30, -(2**63)), ("boolean", 0.5, False), ("boolean", "TRUE", True),
    ("boolean", "yes", False), ("float32", 0.1, 0.10000000149011612), ("float32", 1e300, float("inf")),
    ("float64", "1.5e3", 1500.0), ("float64", " 2.5d ", 2.5), ("int32", "+12", 12), ("int64", "-7", -7),
])
def test_narrowing_as_java(spec: str, value: Any, expected: Any) -> None:
    assert cast(spec, value) == expected


@pytest.mark.parametrize(("spec", "value"), [("int8", "128"), ("int32", "1.5"), ("int32", "abc"),
                                             ("float64", "abc"), ("int16", "")])
def test_unparseable_strings(spec: str, value: str) -> None:
    with pytest.raises(DataException) as e:
        cast(spec, value)
    assert str(e.value) == f"Value ({value}) was out of range for requested data type"


def test_unsupported_inputs() -> None:
    with pytest.raises(DataException, match=r"^Cast transformation does not support casting from ARRAY; supported "
                                            r"types are \[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, "
                                            r"STRING, BYTES\]$"):
        cast("int8", ["foo"])
    with pytest.raises(DataException, match="casting from MAP"):
        cast("int8", {"a": 1})
    with pytest.raises(DataException, match=r"passed a value of type class java.math.BigDecimal which is not "
                                            r"supported by Connect's data API"):
        cast("f:int32", {"f": decimal.Decimal("1.5")})
    with pytest.raises(DataException, match=r"class java.util.Date"):
        cast("f:string", {"f": datetime.datetime.now(datetime.UTC)})
    with pytest.raises(DataException, match=r"^Unexpected type in Cast transformation: class \[B$"):
        cast("int32", b"12")
    with pytest.raises(DataException, match=r"\[cast types\], found: java.lang.String"):
        cast("f:int32", "not a map")
