"""Flatten on schemaless data (cases from the reference's FlattenTest)."""

from __future__ import annotations

import decimal
from typing import Any

import pytest

from connect_runtime.api import DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.flatten import FlattenKey, FlattenValue


def flat(value: Any, **config: str) -> Any:
    xf = FlattenValue()
    xf.configure(config)
    out = xf.apply(SourceRecord(None, None, "topic", 0, None, value))
    assert out is not None
    return out.value


def test_registered() -> None:
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.Flatten$Key"] is FlattenKey
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.Flatten$Value"] is FlattenValue


def test_nested_map_with_delimiter() -> None:
    supported = {"int64": 64, "float64": 64.0, "boolean": True, "string": "stringy", "bytes": b"bytes"}
    out = flat({"A": {"B": supported}}, delimiter="#")
    assert out == {"A#B#int64": 64, "A#B#float64": 64.0, "A#B#boolean": True, "A#B#string": "stringy",
                   "A#B#bytes": b"bytes"}


def test_default_delimiter_and_null_fields() -> None:
    assert flat({"B": {"opt_int32": None}, "c": None}) == {"B.opt_int32": None, "c": None}


def test_arrays_are_not_descended_into() -> None:
    value = {"foo": ["bar", {"baz": {"lfg": "lfg"}}]}
    assert flat(value) == value


def test_tombstone_passes_through() -> None:
    xf = FlattenValue()
    xf.configure({})
    record = SourceRecord(None, None, "topic", 0, "k", None)
    assert xf.apply(record) is record


def test_top_level_map_required() -> None:
    with pytest.raises(DataException, match=r"\[flattening\], found: java.lang.Long"):
        flat(42)


def test_unsupported_value_type() -> None:
    with pytest.raises(DataException, match=r"Flatten transformation was passed a value of type class "
                                            r"java.math.BigDecimal which is not supported by Connect's data API"):
        flat({"a": {"b": decimal.Decimal(1)}})


def test_key() -> None:
    xf = FlattenKey()
    xf.configure({})
    out = xf.apply(SourceRecord(None, None, "topic", 0, {"A": {"B": 12}}, {"x": {"y": 1}}))
    assert out is not None and out.key == {"A.B": 12} and out.value == {"x": {"y": 1}}
