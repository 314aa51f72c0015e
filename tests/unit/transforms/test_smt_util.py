"""Shared SMT helpers: field paths (KIP-821, ported from SingleFieldPathTest/FieldPathNotationTest),
Java-style splitting, number rendering and the map requirement."""

from __future__ import annotations

import pytest

from connect_runtime.api import ConfigException, DataException
from connect_runtime.api.java_json import java_double_to_string
from connect_runtime.transforms._util import (
    FieldSyntaxVersion,
    SingleFieldPath,
    java_split,
    require_map,
)

V2 = FieldSyntaxVersion.V2


@pytest.mark.parametrize(("path", "steps"), [
    ("foo", ("foo",)),
    ("foo.bar", ("foo", "bar")),
    ("foo.bar.baz", ("foo", "bar", "baz")),
    ("`foo.bar`", ("foo.bar",)),
    ("`foo.bar`.baz", ("foo.bar", "baz")),
    ("foo.`bar.baz`", ("foo", "bar.baz")),
    ("foo.", ("foo", "")),
    (".foo", ("", "foo")),
    ("`foo`bar`.baz", ("foo`bar", "baz")),
    ("`foo\\`.bar`.baz", ("foo`.bar", "baz")),
    ("``", ("",)),
    ("foo`", ("foo`",)),
])
def test_v2_paths_split_as_the_reference_does(path: str, steps: tuple[str, ...]) -> None:
    assert SingleFieldPath(path, V2).steps == steps


def test_v1_path_is_one_step_whatever_it_contains() -> None:
    assert SingleFieldPath("foo.bar", FieldSyntaxVersion.V1).steps == ("foo.bar",)


@pytest.mark.parametrize("path", ["`foo.bar", "`foo.bar\\`", "foo.`bar"])
def test_incomplete_backtick_pair_is_a_config_error(path: str) -> None:
    with pytest.raises(ConfigException, match=r"Incomplete backtick pair in path: \["):
        SingleFieldPath(path, V2)


def test_value_from_nested_maps() -> None:
    data = {"foo": {"bar": {"baz": 1}}, "a.b": 2, "x": 3}
    assert SingleFieldPath("foo.bar.baz", V2).value_from(data) == 1
    assert SingleFieldPath("`a.b`", V2).value_from(data) == 2
    assert SingleFieldPath("foo.missing.baz", V2).value_from(data) is None
    assert SingleFieldPath("nope", V2).value_from(data) is None
    with pytest.raises(DataException, match=r"\[nested field access\], found: java.lang.Long"):
        SingleFieldPath("x.y", V2).value_from(data)


def test_require_map_names_the_java_class() -> None:
    with pytest.raises(DataException) as e:
        require_map("s", "field replacement")
    assert str(e.value) == ("Only Map objects supported in absence of schema for [field replacement], "
                            "found: java.lang.String")
    with pytest.raises(DataException, match=r"found: null$"):
        require_map(None, "x")
    assert require_map({"a": 1}, "x") == {"a": 1}


def test_java_split_drops_trailing_empty_strings() -> None:
    assert java_split("a:b", ":") == ["a", "b"]
    assert java_split("a:b:", ":") == ["a", "b"]
    assert java_split(":b", ":") == ["", "b"]
    assert java_split("ab", ":") == ["ab"]
    assert java_split(":", ":") == []


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1.0"), (42.5, "42.5"), (1e7, "1.0E7"), (9999999.0, "9999999.0"), (0.001, "0.001"),
    (0.0001, "1.0E-4"), (-2.5e-10, "-2.5E-10"), (12345678.9, "1.23456789E7"), (-0.0, "-0.0"),
    (float("nan"), "NaN"), (float("-inf"), "-Infinity"),
])
def test_double_to_string_as_java(value: float, text: str) -> None:
    assert java_double_to_string(value) == text  # the one Double.toString, shared with the converters


def test_new_record_keeps_every_field_it_does_not_replace() -> None:
    import dataclasses

    from connect_runtime.api import SourceRecord
    from connect_runtime.transforms._util import new_record

    names = [f.name for f in dataclasses.fields(SourceRecord)]
    record = SourceRecord(**{name: object() for name in names})
    assert all(getattr(new_record(record), name) is getattr(record, name) for name in names)
    changed = new_record(record, topic="t2", key_schema=None)
    assert changed.topic == "t2" and changed.key_schema is None
    assert all(getattr(changed, name) is getattr(record, name) for name in names if name not in ("topic", "key_schema"))

    @dataclasses.dataclass(slots=True)
    class TracedRecord(SourceRecord):  # a plugin's record with a field of its own
        trace: str = ""

    traced = new_record(TracedRecord({"p": 0}, {"o": 1}, "t", trace="x"), value=5)
    assert type(traced) is TracedRecord and traced.trace == "x" and traced.value == 5


def test_a_schema_builder_given_for_a_schema_is_built() -> None:
    from connect_runtime.api import Schema, SchemaBuilder, Struct

    schema = SchemaBuilder.struct().field("a", SchemaBuilder.string().optional()).field(
        "b", SchemaBuilder.array(SchemaBuilder.int32())).build()
    assert schema.field("a").schema == Schema.OPTIONAL_STRING_SCHEMA  # type: ignore[union-attr]
    Struct(schema).put("a", "x").put("b", [1])
