"""ValueToKey: replace the record key with the named fields of the value.

Java's ``org.apache.kafka.connect.transforms.ValueToKey``. Schemaless: the new key is a map holding
each field in ``fields`` (a field missing from the value maps to null); a value that is not a map
(null included) is a DataException. With a value schema the value must be a Struct (null included):
the new key is a Struct of a new, unnamed STRUCT key schema with the named fields' schemas in
``fields`` order (one key schema per distinct value schema, cached as Java caches it); a field the
value schema lacks is Java's "Field does not exist" DataException. The fields' values are copied with
their schema defaults for nulls unless ``replace.null.with.default`` is false. No differences from
Java.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.api.data import Schema, SchemaBuilder, Struct
from connect_runtime.api.errors import DataException
from connect_runtime.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    BuiltinTransformation,
    define_replace_null_with_default,
    field_reader,
    non_empty_list,
    require_map,
    require_struct_in,
    schema_update_cache,
)

FIELDS = "fields"
_PURPOSE = "copying fields from value to key"


class ValueToKey(BuiltinTransformation):
    """Replace the record key with a new key formed from a subset of fields in the record value."""

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef().define(FIELDS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH,
                           "Field names on the record value to extract as the record key."))

    def __init__(self) -> None:
        self._fields: tuple[str, ...] = ()
        self._replace_null_with_default = True
        self._key_schema = schema_update_cache(self._make_key_schema)

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        self._fields = tuple(values[FIELDS])
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._key_schema = schema_update_cache(self._make_key_schema)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        if record.value_schema is not None:
            return self._apply_with_schema(record, record.value_schema)
        value = require_map(record.value, _PURPOSE)
        # A schemaless key: whatever schema the old key had does not describe the new one.
        return dataclasses.replace(record, key={name: value.get(name) for name in self._fields}, key_schema=None)

    def _apply_with_schema(self, record: SourceRecord, value_schema: Schema) -> SourceRecord:
        value = require_struct_in(record.value, value_schema, _PURPOSE)
        key_schema = self._key_schema(value.schema)
        key = Struct(key_schema)
        read = field_reader(value, self._replace_null_with_default)
        for name in self._fields:
            key.put(name, read(name))
        # The value's own schema goes with it, as in Java (it equals the record's for a valid record).
        return dataclasses.replace(record, key=key, key_schema=key_schema, value_schema=value.schema)

    def _make_key_schema(self, value_schema: Schema) -> Schema:
        builder = SchemaBuilder.struct()
        for name in self._fields:
            field = value_schema.field(name)
            if field is None:
                raise DataException(f"Field does not exist: {name}")
            builder.field(name, field.schema)
        return builder.build()
