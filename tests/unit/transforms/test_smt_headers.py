"""InsertHeader, DropHeaders and HeaderFrom (cases from the reference's tests)."""

from __future__ import annotations

from typing import Any

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.drop_headers import DropHeaders
from connect_runtime.transforms.header_from import HeaderFromKey, HeaderFromValue
from connect_runtime.transforms.insert_header import InsertHeader


def rec(key: Any = None, value: Any = None, headers: Any = None) -> SourceRecord:
    return SourceRecord(None, None, "topic", 0, key, value, headers, 0)


def test_registered() -> None:
    java = "org.apache.kafka.connect.transforms."
    assert BUILTIN_TRANSFORMS[java + "InsertHeader"] is InsertHeader
    assert BUILTIN_TRANSFORMS[java + "DropHeaders"] is DropHeaders
    assert BUILTIN_TRANSFORMS[java + "HeaderFrom$Key"] is HeaderFromKey
    assert BUILTIN_TRANSFORMS[java + "HeaderFrom$Value"] is HeaderFromValue


def test_insert_header_appends_and_keeps_existing() -> None:
    xf = InsertHeader()
    xf.configure({"header": "inserted", "value.literal": "inserted-value"})
    headers = [("existing", b"x"), ("inserted", "old")]
    record = rec(value="v", headers=headers)
    out = xf.apply(record)
    assert out is not None
    assert out.headers == [("existing", b"x"), ("inserted", "old"), ("inserted", "inserted-value")]
    assert headers == [("existing", b"x"), ("inserted", "old")]
    out = xf.apply(rec())
    assert out is not None and out.headers == [("inserted", "inserted-value")]


@pytest.mark.parametrize("missing", ["header", "value.literal"])
def test_insert_header_requires_both_keys(missing: str) -> None:
    config = {"header": "h", "value.literal": "v"}
    del config[missing]
    with pytest.raises(ConfigException, match=f'Missing required configuration "{missing}"'):
        InsertHeader().configure(config)


def test_insert_header_null_literal_is_refused() -> None:
    with pytest.raises(ConfigException) as e:
        InsertHeader().configure({"header": "h", "value.literal": None})
    assert str(e.value) == "Invalid value null for configuration value.literal: entry must be non null"


def test_drop_headers() -> None:
    xf = DropHeaders()
    xf.configure({"headers": "dropped, also"})
    headers = [("keep", "1"), ("dropped", "2"), ("also", None), ("keep", "3")]
    out = xf.apply(rec(headers=headers))
    assert out is not None and out.headers == [("keep", "1"), ("keep", "3")]
    assert len(headers) == 4
    record = rec()
    assert xf.apply(record) is record


def test_drop_headers_config() -> None:
    with pytest.raises(ConfigException, match="Invalid value \\[\\] for configuration headers: Empty list"):
        DropHeaders().configure({"headers": ""})
    with pytest.raises(ConfigException, match='Missing required configuration "headers"'):
        DropHeaders().configure({})


def test_header_from_copy_and_move_value() -> None:
    value = {"field1": "v1", "field2": 2, "field3": {"a": True}, "other": 0}
    copy = HeaderFromValue()
    copy.configure({"fields": "field1,field2,field3,absent", "headers": "h1,h2,h3,h4", "operation": "copy"})
    out = copy.apply(rec(key="k", value=value, headers=[("existing", "x")]))
    assert out is not None
    assert out.value == value
    # Typed values: the header converter renders them (SimpleHeaderConverter: "2", '{"a":true}').
    assert out.headers == [("existing", "x"), ("h1", "v1"), ("h2", 2), ("h3", {"a": True}), ("h4", None)]
    move = HeaderFromValue()
    move.configure({"fields": "field1,field2", "headers": "h1,h1", "operation": "move"})
    out = move.apply(rec(key="k", value=value))
    assert out is not None
    assert out.value == {"field3": {"a": True}, "other": 0} and out.key == "k"
    assert out.headers == [("h1", "v1"), ("h1", 2)]
    assert "field1" in value


def test_header_from_key() -> None:
    xf = HeaderFromKey()
    xf.configure({"fields": "id", "headers": "id", "operation": "move"})
    out = xf.apply(rec(key={"id": 7, "x": 1}, value="v"))
    assert out is not None and out.key == {"x": 1} and out.value == "v" and out.headers == [("id", 7)]


def test_header_from_config_errors() -> None:
    with pytest.raises(ConfigException, match=r"^'fields' config must have the same number of elements as 'headers' "
                                              r"config.$"):
        HeaderFromValue().configure({"fields": "a,b", "headers": "h", "operation": "copy"})
    with pytest.raises(ConfigException, match="Invalid value swap for configuration operation: String must be one "
                                              "of: move, copy"):
        HeaderFromValue().configure({"fields": "a", "headers": "h", "operation": "swap"})
    with pytest.raises(ConfigException, match="Empty list"):
        HeaderFromValue().configure({"fields": "", "headers": "", "operation": "copy"})


def test_header_from_requires_a_map() -> None:
    xf = HeaderFromValue()
    xf.configure({"fields": "a", "headers": "h", "operation": "move"})
    with pytest.raises(DataException, match=r"^Only Map objects supported in absence of schema for \[header move\], "
                                            r"found: java.lang.String$"):
        xf.apply(rec(value="s"))
