"""ReplaceField on schemaless data (cases from the reference's ReplaceFieldTest)."""

from __future__ import annotations

from typing import Any

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue


def rec(key: Any = None, value: Any = None) -> SourceRecord:
    return SourceRecord({"p": 1}, {"o": 1}, "test", 0, key, value, [("h", "v")], 5)


def test_registered_under_java_names() -> None:
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.ReplaceField$Key"] is ReplaceFieldKey
    assert BUILTIN_TRANSFORMS["org.apache.kafka.connect.transforms.ReplaceField$Value"] is ReplaceFieldValue


def test_exclude_and_renames() -> None:
    xf = ReplaceFieldValue()
    xf.configure({"exclude": "dont", "renames": "abc:xyz,foo:bar"})
    original = {"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}
    record = rec(value=original)
    out = xf.apply(record)
    assert out is not None
    assert out.value == {"xyz": 42, "bar": True, "etc": "etc"}
    # nothing the caller holds is changed
    assert original == {"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}
    assert record.value is original
    assert (out.topic, out.key, out.headers, out.timestamp, out.source_offset) == ("test", None, [("h", "v")], 5,
                                                                                    {"o": 1})


def test_include_and_exclude_precedence() -> None:
    xf = ReplaceFieldValue()
    xf.configure({"include": "abc,foo,dont", "exclude": "dont", "renames": "abc:xyz"})
    out = xf.apply(rec(value={"dont": 1, "abc": 42, "foo": True, "etc": "etc"}))
    assert out is not None and out.value == {"xyz": 42, "foo": True}


def test_key_variant_leaves_value_alone() -> None:
    xf = ReplaceFieldKey()
    xf.configure({"exclude": "a"})
    out = xf.apply(rec(key={"a": 1, "b": 2}, value={"a": 1}))
    assert out is not None and out.key == {"b": 2} and out.value == {"a": 1}


def test_tombstone_passes_through() -> None:
    xf = ReplaceFieldValue()
    xf.configure({"include": "abc,foo", "renames": "abc:xyz,foo:bar"})
    record = rec(value=None)
    assert xf.apply(record) is record


def test_non_map_is_a_data_exception() -> None:
    xf = ReplaceFieldValue()
    xf.configure({})
    with pytest.raises(DataException) as e:
        xf.apply(rec(value="text"))
    assert str(e.value) == ("Only Map objects supported in absence of schema for [field replacement], "
                            "found: java.lang.String")


@pytest.mark.parametrize("renames", ["foo", "foo:bar:baz", "abc:xyz,foo"])
def test_invalid_rename_mapping(renames: str) -> None:
    xf = ReplaceFieldValue()
    with pytest.raises(ConfigException, match=r"Invalid value .* for configuration renames: Invalid rename mapping: "):
        xf.configure({"renames": renames})
    errors = {cv.name: cv.errors for cv in xf.config_def().validate({"renames": renames})}
    assert errors["renames"] and "Invalid rename mapping" in errors["renames"][0]


def test_rename_message_lists_the_mappings_as_java() -> None:
    with pytest.raises(ConfigException) as e:
        ReplaceFieldValue().configure({"renames": "a:b,c"})
    assert str(e.value) == "Invalid value [a:b, c] for configuration renames: Invalid rename mapping: c"


@pytest.mark.parametrize(("old", "new"), [("blacklist", "exclude"), ("whitelist", "include")])
def test_removed_keys_are_refused_not_ignored(old: str, new: str) -> None:
    with pytest.raises(ConfigException, match=f"no longer supports '{old}'.*use '{new}'"):
        ReplaceFieldValue().configure({old: "a"})


def test_config_def_keys() -> None:
    keys = ReplaceFieldValue().config_def().keys
    assert list(keys) == ["exclude", "include", "renames", "replace.null.with.default"]
    assert keys["exclude"].default == [] and keys["replace.null.with.default"].default is True
