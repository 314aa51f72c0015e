"""HeaderFrom: move or copy fields of the key or value into headers.

Java's ``HeaderFrom$Key`` / ``$Value``: the i-th name in ``fields`` goes to a header named by the
i-th name in ``headers``; ``operation=move`` also removes the field, ``copy`` keeps it.

Schemaless (no key/value schema): the operand must be a map (DataException otherwise, null
included); a missing field gives a null header; the header has no schema.

With a schema: the operand must be a Struct; each header carries the field's value (its default
when null, unless ``replace.null.with.default=false``) and the field's schema, so the header
converter writes it as Java's does. ``move`` gives the record a new struct schema without the moved
fields (name, version, doc and parameters kept, as Java's ``SchemaUtil.copySchemaBasics``; built once
per operand schema and kept for the 16 most recent, as Java's cache). A field named in ``fields``
that the schema lacks is refused with a DataException, where Java fails with a NullPointerException.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    DataException,
    Header,
    Importance,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
    ValidString,
)
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import (
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    BuiltinTransformation,
    copy_schema_basics,
    define_replace_null_with_default,
    field_reader,
    non_empty_list,
    operand,
    operand_schema,
    require_map,
    schema_update_cache,
    struct_operand,
)

FIELDS = "fields"
HEADERS = "headers"
OPERATION = "operation"
MOVE = "move"
COPY = "copy"


class HeaderFrom(BuiltinTransformation):
    """Move or copy fields of the key (:class:`HeaderFromKey`) or value (:class:`HeaderFromValue`) to headers."""

    _KEY = False

    CONFIG_DEF = define_replace_null_with_default(
        ConfigDef()
        .define(FIELDS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH,
                "Field names in the record whose values are to be copied or moved to headers.")
        .define(HEADERS, ConfigType.LIST, NO_DEFAULT, non_empty_list, Importance.HIGH,
                "Header names, in the same order as the field names listed in the fields configuration property.")
        .define(OPERATION, ConfigType.STRING, NO_DEFAULT, ValidString.one_of(MOVE, COPY), Importance.HIGH,
                "Either <code>move</code> if the fields are to be moved to the headers (removed from the key/value), "
                "or <code>copy</code> if the fields are to be copied to the headers (retained in the key/value)."))

    def __init__(self) -> None:
        self._pairs: tuple[tuple[str, str], ...] = ()
        self._move = False
        self._replace_null_with_default = True
        self._move_schema = schema_update_cache(self._build_move_schema)

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        fields, headers = values[FIELDS], values[HEADERS]
        if len(fields) != len(headers):
            raise ConfigException(f"'{FIELDS}' config must have the same number of elements as '{HEADERS}' config.")
        self._pairs = tuple(zip(fields, headers, strict=True))
        self._move = values[OPERATION] == MOVE
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]
        self._move_schema = schema_update_cache(self._build_move_schema)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        schema = operand_schema(record, self._KEY)
        if schema is None:
            return self._apply_schemaless(record)
        return self._apply_with_schema(record, schema)

    def _apply_schemaless(self, record: SourceRecord) -> SourceRecord:
        value = require_map(operand(record, self._KEY), self._purpose())
        updated = dict(value)
        headers = list(record.headers or ())
        for field, header in self._pairs:
            if self._move:
                updated.pop(field, None)
            headers.append((header, value.get(field)))
        if self._KEY:
            return dataclasses.replace(record, key=updated, headers=headers)
        return dataclasses.replace(record, value=updated, headers=headers)

    def _apply_with_schema(self, record: SourceRecord, schema: Schema) -> SourceRecord:
        value = struct_operand(record, self._KEY, self._purpose())
        read = field_reader(value, self._replace_null_with_default)
        headers = list(record.headers or ())
        if self._move:
            updated_schema = self._move_schema(schema)
            updated = Struct(updated_schema)
            for kept in updated_schema.fields:
                updated.put(kept, read(kept.name))
        else:
            updated_schema, updated = schema, value
        for field, header in self._pairs:
            field_value = read(field) if value.schema.field(field) is not None else None
            found = schema.field(field)
            if found is None:
                raise DataException(f"{field} is not a valid field name")
            if field_value is None and not found.schema.is_optional:
                raise DataException(f"A null value requires an optional schema but was {found.schema!r}")
            headers.append(Header(header, field_value, found.schema))
        if self._KEY:
            return dataclasses.replace(record, key=updated, key_schema=updated_schema, headers=headers)
        return dataclasses.replace(record, value=updated, value_schema=updated_schema, headers=headers)

    def _build_move_schema(self, schema: Schema) -> Schema:
        moved = {field for field, _ in self._pairs}
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        for field in schema.fields:
            if field.name not in moved:
                builder.field(field.name, field.schema)
        return builder.build()

    def _purpose(self) -> str:
        return f"header {MOVE if self._move else COPY}"


class HeaderFromKey(HeaderFrom):
    """HeaderFrom on the record key (``HeaderFrom$Key``)."""

    _KEY = True


class HeaderFromValue(HeaderFrom):
    """HeaderFrom on the record value (``HeaderFrom$Value``)."""
