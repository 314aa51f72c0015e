"""InsertHeader, DropHeaders and HeaderFrom (cases from the reference's tests)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from connect_runtime.api import (
    ConfigException,
    DataException,
    Date,
    Header,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
)
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.drop_headers import DropHeaders
from connect_runtime.transforms.header_from import HeaderFromKey, HeaderFromValue
from connect_runtime.transforms.insert_header import InsertHeader
from connect_runtime.transforms.predicates import HasHeaderKey


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
    string = Schema.STRING_SCHEMA
    assert out.headers == [("existing", b"x"), ("inserted", "old"), ("inserted", "inserted-value", string)]
    assert headers == [("existing", b"x"), ("inserted", "old")]
    out = xf.apply(rec())
    assert out is not None and out.headers == [("inserted", "inserted-value", string)]


@pytest.mark.parametrize(("literal", "value", "schema"), [
    ("true", True, Schema.BOOLEAN_SCHEMA), ("null", None, None), ("42", 42, Schema.INT8_SCHEMA),
    ("1.0", 1, Schema.INT8_SCHEMA), ("70000", 70000, Schema.INT32_SCHEMA), ("1.5", 1.5, Schema.FLOAT32_SCHEMA),
    ("1E3", 1000, Schema.INT16_SCHEMA), ("x", "x", Schema.STRING_SCHEMA),
    ("2024-01-31", datetime.date(2024, 1, 31), Date.SCHEMA),
    ("[1,2]", [1, 2], SchemaBuilder.array(Schema.INT8_SCHEMA).build()),
])
def test_insert_header_parses_its_literal_with_values(literal: str, value: Any, schema: Schema | None) -> None:
    """Java's Values.parseString: the header carries the inferred schema to the header converter."""
    xf = InsertHeader()
    xf.configure({"header": "h", "value.literal": literal})
    out = xf.apply(rec())
    assert out is not None and out.headers == [Header("h", value, schema)]


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


def test_drop_headers_and_has_header_key_take_headers_with_schemas() -> None:
    headers = [Header("keep", 1, Schema.INT8_SCHEMA), ("dropped", "x"), Header("dropped", 2, Schema.INT16_SCHEMA)]
    xf = DropHeaders()
    xf.configure({"headers": "dropped"})
    out = xf.apply(rec(headers=headers))
    assert out is not None and out.headers == [Header("keep", 1, Schema.INT8_SCHEMA)]
    predicate = HasHeaderKey()
    predicate.configure({"name": "keep"})
    assert predicate.test(rec(headers=headers)) and not predicate.test(rec(headers=headers[1:]))


USER = (SchemaBuilder.struct().name("com.example.User").version(2).doc("a user")
        .field("id", Schema.INT64_SCHEMA)
        .field("name", SchemaBuilder.string().optional().default_value("anonymous").build())
        .field("age", Schema.OPTIONAL_INT32_SCHEMA).build())


def user() -> Struct:
    return Struct(USER).put("id", 7).put("age", 40)


def test_header_from_a_struct_copies_fields_with_their_schemas() -> None:
    xf = HeaderFromValue()
    xf.configure({"fields": "id,name,age", "headers": "h_id,h_name,h_age", "operation": "copy"})
    value = user()
    out = xf.apply(SourceRecord(None, None, "t", value=value, value_schema=USER))
    assert out is not None and out.value is value and out.value_schema is USER
    # a null field takes its default (replace.null.with.default=true, as Java's)
    assert out.headers == [Header("h_id", 7, Schema.INT64_SCHEMA),
                           Header("h_name", "anonymous", USER.fields[1].schema),
                           Header("h_age", 40, Schema.OPTIONAL_INT32_SCHEMA)]
    keep_null = HeaderFromValue()
    keep_null.configure({"fields": "name", "headers": "n", "operation": "copy", "replace.null.with.default": "false"})
    out = keep_null.apply(SourceRecord(None, None, "t", value=value, value_schema=USER))
    assert out is not None and out.headers == [Header("n", None, USER.fields[1].schema)]


def test_header_from_a_struct_moves_fields_into_a_cached_schema() -> None:
    xf = HeaderFromKey()
    xf.configure({"fields": "name,age", "headers": "n,a", "operation": "move"})
    first = xf.apply(SourceRecord(None, None, "t", key=user(), key_schema=USER))
    second = xf.apply(SourceRecord(None, None, "t", key=user().put("id", 8), key_schema=USER))
    assert first is not None and second is not None
    moved = SchemaBuilder.struct().name("com.example.User").version(2).doc("a user") \
        .field("id", Schema.INT64_SCHEMA).build()
    assert first.key_schema == moved and second.key_schema is first.key_schema  # built once, as Java's cache
    assert first.key == Struct(moved).put("id", 7) and second.key == Struct(moved).put("id", 8)
    assert first.headers == [Header("n", "anonymous", USER.fields[1].schema),
                             Header("a", 40, Schema.OPTIONAL_INT32_SCHEMA)]


def test_header_from_a_schema_needs_a_struct_and_its_fields() -> None:
    xf = HeaderFromValue()
    xf.configure({"fields": "id", "headers": "h", "operation": "copy"})
    with pytest.raises(DataException, match=r"^Only Struct objects supported for \[header copy\], found: "
                                            r"java.lang.Integer$"):
        xf.apply(SourceRecord(None, None, "t", value=5, value_schema=Schema.INT32_SCHEMA))
    other = SchemaBuilder.struct().field("x", Schema.INT8_SCHEMA).build()
    with pytest.raises(DataException, match=r"^id is not a valid field name$"):
        xf.apply(SourceRecord(None, None, "t", value=Struct(other).put("x", 1), value_schema=other))
