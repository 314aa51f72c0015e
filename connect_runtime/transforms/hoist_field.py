"""HoistField: wrap the key or value in a map, or a Struct, with a single field.

Java's ``HoistField$Key`` / ``$Value``. Schemaless: the operand, whatever it is (null included),
becomes ``{field: operand}``. With a schema: a Struct of a new, unnamed STRUCT schema whose one field
``field`` has the operand's schema (one per distinct schema, cached as Java caches it); a null
operand of a required schema is the Struct's validation error, as in Java. No differences from Java.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.api.data import Schema, SchemaBuilder, Struct
from connect_runtime.transforms._util import (
    BuiltinTransformation,
    operand,
    operand_schema,
    schema_update_cache,
    with_operand,
    with_schema_and_operand,
)

FIELD = "field"


class HoistField(BuiltinTransformation):
    """Wrap the key (:class:`HoistFieldKey`) or value (:class:`HoistFieldValue`) in a one-field map."""

    _KEY = False

    CONFIG_DEF = ConfigDef().define(
        FIELD, ConfigType.STRING, NO_DEFAULT, None, Importance.MEDIUM,
        "Field name for the single field that will be created in the resulting Struct or Map.")

    def __init__(self) -> None:
        self._field = ""
        self._updated_schema = schema_update_cache(self._make_updated_schema)

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._field = self.CONFIG_DEF.parse(configs)[FIELD]
        self._updated_schema = schema_update_cache(self._make_updated_schema)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        schema = operand_schema(record, self._KEY)
        if schema is None:
            return with_operand(record, self._KEY, {self._field: operand(record, self._KEY)})
        updated_schema = self._updated_schema(schema)
        updated = Struct(updated_schema).put(self._field, operand(record, self._KEY))
        return with_schema_and_operand(record, self._KEY, updated_schema, updated)

    def _make_updated_schema(self, schema: Schema) -> Schema:
        return SchemaBuilder.struct().field(self._field, schema).build()


class HoistFieldKey(HoistField):
    """HoistField on the record key (``HoistField$Key``)."""

    _KEY = True


class HoistFieldValue(HoistField):
    """HoistField on the record value (``HoistField$Value``)."""
