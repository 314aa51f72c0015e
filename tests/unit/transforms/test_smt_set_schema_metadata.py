"""SetSchemaMetadata: Java's behaviour for schemaless records (pass null through, else require a schema)."""

from __future__ import annotations

import pytest

from connect_runtime.api import ConfigException, DataException, SourceRecord
from connect_runtime.transforms import BUILTIN_TRANSFORMS
from connect_runtime.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue


def test_registered() -> None:
    java = "org.apache.kafka.connect.transforms.SetSchemaMetadata$"
    assert BUILTIN_TRANSFORMS[java + "Key"] is SetSchemaMetadataKey
    assert BUILTIN_TRANSFORMS[java + "Value"] is SetSchemaMetadataValue


def test_name_or_version_required() -> None:
    with pytest.raises(ConfigException, match=r"^Neither schema name nor version configured$"):
        SetSchemaMetadataValue().configure({})
    with pytest.raises(ConfigException, match=r"Invalid value x for configuration schema.version"):
        SetSchemaMetadataValue().configure({"schema.version": "x"})
    SetSchemaMetadataValue().configure({"schema.version": "42"})


def test_null_operand_passes_through() -> None:
    xf = SetSchemaMetadataValue()
    xf.configure({"schema.name": "foo"})
    record = SourceRecord(None, None, "t", 0, "key", None)
    assert xf.apply(record) is record


def test_schemaless_operand_requires_a_schema() -> None:
    xf = SetSchemaMetadataKey()
    xf.configure({"schema.name": "foo", "schema.version": "1"})
    with pytest.raises(DataException, match=r"^Schema required for \[updating schema metadata\]$"):
        xf.apply(SourceRecord(None, None, "t", 0, {"a": 1}, None))
