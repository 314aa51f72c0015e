"""SetSchemaMetadata: set the schema name and/or version of the key or value.

Java's ``SetSchemaMetadata$Key`` / ``$Value``. Records in this runtime carry no Connect schema, and
Java's behaviour for a schemaless record is what this does: a record whose operand is null passes
through unchanged, any other record fails with ``DataException: Schema required for [updating schema
metadata]`` (the task then fails, or the record is skipped under ``errors.tolerance=all``). The
configuration is checked as in Java (``schema.name`` or ``schema.version`` must be set).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    DataException,
    Importance,
    SourceRecord,
)
from connect_runtime.transforms._util import BuiltinTransformation, define_replace_null_with_default, operand

SCHEMA_NAME = "schema.name"
SCHEMA_VERSION = "schema.version"


class SetSchemaMetadata(BuiltinTransformation):
    """Set schema metadata of the key (:class:`SetSchemaMetadataKey`) or value (:class:`SetSchemaMetadataValue`)."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(SCHEMA_NAME, ConfigType.STRING, None, None, Importance.HIGH, "Schema name to set.")
        .define(SCHEMA_VERSION, ConfigType.INT, None, None, Importance.HIGH, "Schema version to set."))

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        if values[SCHEMA_NAME] is None and values[SCHEMA_VERSION] is None:
            raise ConfigException("Neither schema name nor version configured")

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if operand(record, self._KEY) is None:
            return record
        raise DataException("Schema required for [updating schema metadata]")


class SetSchemaMetadataKey(SetSchemaMetadata):
    """SetSchemaMetadata on the record key (``SetSchemaMetadata$Key``)."""

    _KEY = True


class SetSchemaMetadataValue(SetSchemaMetadata):
    """SetSchemaMetadata on the record value (``SetSchemaMetadata$Value``)."""
