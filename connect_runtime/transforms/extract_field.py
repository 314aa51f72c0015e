"""ExtractField: replace a key or value (a Struct or a map) with one of its fields.

Java's ``ExtractField$Key`` / ``$Value``: ``field`` names the field, a top-level name under
``field.syntax.version=V1`` (the default) or a dotted path with backtick quoting under ``V2``
(KIP-821, e.g. ```foo.bar`.baz``). Schemaless: a null operand stays null, a missing field gives null,
an operand (or a step on the path) that is not a map is a DataException. With a schema the operand
must be a Struct or null, and the path must name a field of the schema (else Java's
``IllegalArgumentException``, here a ``ValueError``: "Unknown field: <path>"); the result takes that
field's schema and value (its default for a null unless ``replace.null.with.default`` is false; null
for a null operand or a null struct on the path). No differences from Java.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.api.data import Schema
from connect_runtime.transforms._util import (
    FIELD_SYNTAX_VERSION_CONFIG,
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    BuiltinTransformation,
    FieldSyntaxVersion,
    SingleFieldPath,
    define_field_syntax_version,
    define_replace_null_with_default,
    operand,
    operand_schema,
    require_map_or_null,
    require_struct_in,
    with_operand,
    with_schema_and_operand,
)

FIELD = "field"
_PURPOSE = "field extraction"


class ExtractField(BuiltinTransformation):
    """Extract a field of the key (:class:`ExtractFieldKey`) or value (:class:`ExtractFieldValue`)."""

    _KEY = False

    CONFIG_DEF = define_field_syntax_version(define_replace_null_with_default(
        ConfigDef().define(FIELD, ConfigType.STRING, NO_DEFAULT, None, Importance.MEDIUM, "Field name to extract.")))

    def __init__(self) -> None:
        self._path = SingleFieldPath("", FieldSyntaxVersion.V1)
        self._original_path = ""
        self._replace_null_with_default = True

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        version = FieldSyntaxVersion(values[FIELD_SYNTAX_VERSION_CONFIG].upper())
        self._path = SingleFieldPath(values[FIELD], version)
        self._original_path = values[FIELD]
        self._replace_null_with_default = values[REPLACE_NULL_WITH_DEFAULT_CONFIG]

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        schema = operand_schema(record, self._KEY)
        if schema is not None:
            return self._apply_with_schema(record, schema)
        value = require_map_or_null(operand(record, self._KEY), _PURPOSE)
        return with_operand(record, self._KEY, self._path.value_from(value))


    def _apply_with_schema(self, record: SourceRecord, schema: Schema) -> SourceRecord:
        operating = operand(record, self._KEY)
        value = None if operating is None else require_struct_in(operating, schema, _PURPOSE)
        field = self._path.field_from(schema)
        if field is None:
            raise ValueError(f"Unknown field: {self._original_path}")
        extracted = None if value is None else self._path.struct_value_from(value, self._replace_null_with_default)
        return with_schema_and_operand(record, self._KEY, field.schema, extracted)


class ExtractFieldKey(ExtractField):
    """ExtractField on the record key (``ExtractField$Key``)."""

    _KEY = True


class ExtractFieldValue(ExtractField):
    """ExtractField on the record value (``ExtractField$Value``)."""
