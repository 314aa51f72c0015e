"""ReplaceField: keep, drop and rename the top-level fields of a key or value, a Struct or a map.

Java's ``org.apache.kafka.connect.transforms.ReplaceField$Key`` / ``$Value``: ``exclude`` wins over
``include``; an empty ``include`` keeps every field; ``renames`` is a list of ``old:new`` pairs. A null
operand passes through. Schemaless, the operand must be a map. With a schema it must be a Struct: the
updated STRUCT schema keeps the original's name, version, doc and parameters and the kept fields'
schemas, in order, under their new names (one updated schema per distinct schema, cached as Java
caches it); a field's value is read by its original name, with its schema default for a null
unless ``replace.null.with.default`` is false. A rename onto a kept field's name is refused when
the schema is built, as Java's SchemaBuilder refuses it.

Differences from Java: none. The keys ``whitelist`` and ``blacklist`` (removed in
Kafka 4.0, which ignores them) are refused with a ConfigException naming their replacement, since a
filter silently not applied would leak the fields it was meant to drop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigException, ConfigType, Importance, SourceRecord
from connect_runtime.api.data import Schema, SchemaBuilder, Struct
from connect_runtime.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    MapOrStructTransformation,
    copy_schema_basics,
    define_replace_null_with_default,
    field_reader,
    java_list,
    java_split,
    schema_update_cache,
    with_operand,
    with_schema_and_operand,
)

EXCLUDE = "exclude"
INCLUDE = "include"
RENAMES = "renames"
_REMOVED = {"blacklist": EXCLUDE, "whitelist": INCLUDE}
_PURPOSE = "field replacement"


def parse_rename_mappings(mappings: list[str]) -> dict[str, str]:
    """``old:new`` pairs to a dict; anything else is the reference's ConfigException."""
    result: dict[str, str] = {}
    for mapping in mappings:
        parts = java_split(mapping, ":")
        if len(parts) != 2:
            raise ConfigException(RENAMES, java_list(mappings), f"Invalid rename mapping: {mapping}")
        result[parts[0]] = parts[1]
    return result


def _validate_renames(name: str, value: Any) -> None:
    parse_rename_mappings(list(value or []))


class ReplaceField(MapOrStructTransformation):
    """Filter or rename fields of the key (:class:`ReplaceFieldKey`) or value (:class:`ReplaceFieldValue`)."""

    PURPOSE = _PURPOSE
    _key = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(EXCLUDE, ConfigType.LIST, "", None, Importance.MEDIUM,
                "Fields to exclude. This takes precedence over the fields to include.")
        .define(INCLUDE, ConfigType.LIST, "", None, Importance.MEDIUM,
                "Fields to include. If specified, only these fields will be used.")
        .define(RENAMES, ConfigType.LIST, "", _validate_renames, Importance.MEDIUM, "Field rename mappings."))

    def __init__(self) -> None:
        self._exclude: frozenset[str] = frozenset()
        self._include: frozenset[str] = frozenset()
        self._renames: dict[str, str] = {}
        self._reverse_renames: dict[str, str] = {}
        self._replace_null_with_default = True
        self._updated_schema = schema_update_cache(self._make_updated_schema)

    def configure(self, configs: Mapping[str, Any]) -> None:
        for old, new in _REMOVED.items():
            if old in configs:
                raise ConfigException(f"ReplaceField no longer supports '{old}' (removed in Kafka 4.0); use '{new}'")
        values = self.CONFIG_DEF.parse(configs)
        self._exclude = frozenset(values[EXCLUDE])
        self._include = frozenset(values[INCLUDE])
        self._renames = parse_rename_mappings(values[RENAMES])
        self._reverse_renames = {new: old for old, new in self._renames.items()}
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._updated_schema = schema_update_cache(self._make_updated_schema)

    def _keep(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def _apply_schemaless(self, record: SourceRecord, value: dict[str, Any]) -> SourceRecord:
        renames = self._renames
        updated = {renames.get(k, k): v for k, v in value.items() if self._keep(k)}
        return with_operand(record, self._key, updated)

    def _apply_with_schema(self, record: SourceRecord, value: Struct) -> SourceRecord:
        schema = self._updated_schema(value.schema)
        updated = Struct(schema)
        read = field_reader(value, self._replace_null_with_default)
        for field in schema.fields:
            updated.put(field, read(self._reverse_renames.get(field.name, field.name)))
        return with_schema_and_operand(record, self._key, schema, updated)

    def _make_updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            if self._keep(field.name):
                builder.field(self._renames.get(field.name, field.name), field.schema)
        return builder.build()


class ReplaceFieldKey(ReplaceField):
    """ReplaceField on the record key (``ReplaceField$Key``)."""

    _key = True


class ReplaceFieldValue(ReplaceField):
    """ReplaceField on the record value (``ReplaceField$Value``)."""
