"""SetSchemaMetadata: set the schema name and/or version of the key or value.

Java's ``SetSchemaMetadata$Key`` / ``$Value``. The record's key or value schema is replaced by a copy
with ``schema.name`` and/or ``schema.version`` (the others kept: type, optionality, default, doc,
parameters, fields, key and value schemas). A Struct key or value is copied onto the new schema, as
Java does, so that its schema and the record's agree; each field takes the Struct's value, or its
default when unset and ``replace.null.with.default`` is true (the default). Nested Structs keep their
schemas: only the top-level schema is renamed. A record whose operand and schema are both null passes
through; a schemaless record with a non-null operand fails with ``DataException: Schema required for
[updating schema metadata]``. Like Java's, the copy lists the schema's fields, so a schema that is not
a STRUCT fails with ``DataException: Cannot list fields on non-struct type``. The configuration is
checked as in Java (``schema.name`` or ``schema.version`` must be set).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigException, ConfigType, Importance, SourceRecord
from connect_runtime.api.data import Schema, SchemaType, Struct
from connect_runtime.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    BuiltinTransformation,
    define_replace_null_with_default,
    field_reader,
    operand,
    operand_schema,
    require_schema,
    with_schema_and_operand,
)

SCHEMA_NAME = "schema.name"
SCHEMA_VERSION = "schema.version"


class SetSchemaMetadata(BuiltinTransformation):
    """Set schema metadata of the key (:class:`SetSchemaMetadataKey`) or value (:class:`SetSchemaMetadataValue`)."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(SCHEMA_NAME, ConfigType.STRING, None, None, Importance.HIGH, "Schema name to set.")
        .define(SCHEMA_VERSION, ConfigType.INT, None, None, Importance.HIGH, "Schema version to set."))

    def __init__(self) -> None:
        self._name: str | None = None
        self._version: int | None = None
        self._replace_null_with_default = True

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._name = values[SCHEMA_NAME]
        self._version = values[SCHEMA_VERSION]
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        if self._name is None and self._version is None:
            raise ConfigException("Neither schema name nor version configured")

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = operand(record, self._KEY)
        schema = operand_schema(record, self._KEY)
        if value is None and schema is None:
            return record
        schema = require_schema(schema, "updating schema metadata")
        is_map = schema.type is SchemaType.MAP
        updated = Schema(
            schema.type,
            optional=schema.is_optional,
            default_value=schema.default_value,
            name=self._name if self._name is not None else schema.name,
            version=self._version if self._version is not None else schema.version,
            doc=schema.doc,
            parameters=schema.parameters,
            fields=schema.fields,  # raises for every type but STRUCT, as Java's ConnectSchema.fields() does
            key_schema=schema.key_schema if is_map else None,
            value_schema=schema.value_schema if is_map or schema.type is SchemaType.ARRAY else None,
        )
        return with_schema_and_operand(record, self._KEY, updated, self._update_schema_in(value, updated))

    def _update_schema_in(self, value: object, updated: Schema) -> object:
        """A Struct copied onto ``updated`` (whose fields are the Struct's own); anything else as is."""
        if not isinstance(value, Struct):
            return value
        read = field_reader(value, self._replace_null_with_default)
        copy = Struct(updated)
        for field in updated.fields:
            copy.put(field, read(field))
        return copy


class SetSchemaMetadataKey(SetSchemaMetadata):
    """SetSchemaMetadata on the record key (``SetSchemaMetadata$Key``)."""

    _KEY = True


class SetSchemaMetadataValue(SetSchemaMetadata):
    """SetSchemaMetadata on the record value (``SetSchemaMetadata$Value``)."""
