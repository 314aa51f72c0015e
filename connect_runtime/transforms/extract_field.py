"""ExtractField: replace a schemaless map key or value with one of its fields.

Java's ``ExtractField$Key`` / ``$Value`` on schemaless data: ``field`` names the field, a top-level
name under ``field.syntax.version=V1`` (the default) or a dotted path with backtick quoting under
``V2`` (KIP-821, e.g. ```foo.bar`.baz``). A null operand stays null, a missing field gives null, an
operand (or a step on the path) that is not a map is a DataException. No differences from Java for
schemaless data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, Importance, SourceRecord
from connect_runtime.api.config_def import NO_DEFAULT
from connect_runtime.transforms._util import (
    FIELD_SYNTAX_VERSION_CONFIG,
    BuiltinTransformation,
    FieldSyntaxVersion,
    SingleFieldPath,
    define_field_syntax_version,
    define_replace_null_with_default,
    operand,
    require_map_or_null,
    with_operand,
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

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.CONFIG_DEF.parse(configs)
        version = FieldSyntaxVersion(values[FIELD_SYNTAX_VERSION_CONFIG].upper())
        self._path = SingleFieldPath(values[FIELD], version)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        value = require_map_or_null(operand(record, self._KEY), _PURPOSE)
        return with_operand(record, self._KEY, self._path.value_from(value))


class ExtractFieldKey(ExtractField):
    """ExtractField on the record key (``ExtractField$Key``)."""

    _KEY = True


class ExtractFieldValue(ExtractField):
    """ExtractField on the record value (``ExtractField$Value``)."""
