"""Flatten: turn nested maps or Structs into one whose field names join the path with ``delimiter``
(default ``.``).

Java's ``Flatten$Key`` / ``$Value``. A null operand passes through.

Schemaless data: nested maps are flattened recursively; lists, bytes and primitives are copied as
they are (lists are not descended into); null fields stay null; a non-map operand is a DataException,
and so is a value of a type Connect's data API does not know (e.g. a Decimal or datetime in
schemaless data).

With a schema: the operand must be a Struct. The flattened schema keeps the top-level schema's name,
version, doc and parameters (it is required and has no default, as in Java); each leaf field keeps its
schema's basics, becomes optional when any ancestor struct is optional, and takes its own default or,
failing that, the one its ancestors' default Structs give it. A null nested Struct gives null leaves
(the nested field's default Struct is not taken, as Java's ``getStruct`` does not take it); a leaf
takes its default when null. MAP fields are refused, as in Java ("Flatten transformation does not support MAP for
record with schemas (for field ...)"). Flattened schemas are cached for the 16 most recent input
schemas, so records with equal schemas share one. No differences from Java.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import ConfigDef, ConfigType, DataException, Importance, SourceRecord
from connect_runtime.api.data import Schema, SchemaBuilder, SchemaType, Struct
from connect_runtime.transforms._util import (
    MapOrStructTransformation,
    copy_schema_basics,
    java_class,
    operand_schema,
    schema_update_cache,
    with_operand,
    with_schema_and_operand,
)

DELIMITER = "delimiter"
_PLAIN = (bool, int, float, str, bytes, bytearray, list, tuple)


class Flatten(MapOrStructTransformation):
    """Flatten the key (:class:`FlattenKey`) or value (:class:`FlattenValue`)."""

    _key = False
    PURPOSE = "flattening"

    CONFIG_DEF = ConfigDef().define(
        DELIMITER, ConfigType.STRING, ".", None, Importance.MEDIUM,
        "Delimiter to insert between field names from the input record when generating field names for the output "
        "record")

    def __init__(self) -> None:
        self._delimiter = "."
        self._flat_schema = schema_update_cache(self._build_flat_schema)

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._delimiter = self.CONFIG_DEF.parse(configs)[DELIMITER]
        self._flat_schema = schema_update_cache(self._build_flat_schema)

    def _apply_schemaless(self, record: SourceRecord, value: dict[str, Any]) -> SourceRecord:
        flat: dict[str, Any] = {}
        self._flatten(value, "", flat)
        return with_operand(record, self._key, flat)

    def _flatten(self, source: dict[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, value in source.items():
            name = self._name(prefix, key)
            if value is None or isinstance(value, _PLAIN):
                out[name] = value
            elif isinstance(value, dict):
                self._flatten(value, name, out)
            elif isinstance(value, Struct):
                # a type Connect knows (STRUCT) but not without a schema
                raise DataException(f"Flatten transformation does not support {java_class(value)} for record without "
                                    f"schemas (for field {name}).")
            else:
                raise DataException(f"Flatten transformation was passed a value of type {java_class(value)} which is "
                                    "not supported by Connect's data API")

    def _apply_with_schema(self, record: SourceRecord, value: Struct) -> SourceRecord:
        schema = operand_schema(record, self._key)
        assert schema is not None  # the base class gives schema'd operands only
        flat_schema = self._flat_schema(schema)
        flat = Struct(flat_schema)
        self._flatten_struct(value, "", flat)
        return with_schema_and_operand(record, self._key, flat_schema, flat)

    def _build_flat_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema, SchemaBuilder.struct())
        default = schema.default_value
        self._add_flat_fields(schema, "", builder, schema.is_optional, default if isinstance(default, Struct) else None)
        return builder.build()

    def _add_flat_fields(self, schema: Schema, prefix: str, builder: SchemaBuilder, optional: bool,
                         parent_default: Struct | None) -> None:
        """Add the leaves of ``schema`` to ``builder``: optional if ``optional`` (an ancestor is) or
        their own schema is, with their own default or else the one ``parent_default`` holds."""
        for field in schema.fields:
            name = self._name(prefix, field.name)
            field_optional = optional or field.schema.is_optional
            default = field.schema.default_value
            if default is None and parent_default is not None:
                default = parent_default.get(field)
            if field.schema.type is SchemaType.STRUCT:
                self._add_flat_fields(field.schema, name, builder, field_optional,
                                      default if isinstance(default, Struct) else None)
            elif field.schema.type is SchemaType.MAP:
                raise _unsupported_map(name)
            else:
                leaf = copy_schema_basics(field.schema)
                if field_optional:
                    leaf.optional()
                if default is not None:
                    leaf.default_value(default)
                builder.field(name, leaf.build())

    def _flatten_struct(self, struct: Struct | None, prefix: str, out: Struct) -> None:
        if struct is None:
            return
        for field in struct.schema.fields:
            name = self._name(prefix, field.name)
            if field.schema.type is SchemaType.STRUCT:
                # Java's getStruct: a null nested Struct stays null (its default is not taken)
                nested = struct.get_without_default(field)
                self._flatten_struct(nested if isinstance(nested, Struct) else None, name, out)
            elif field.schema.type is SchemaType.MAP:
                raise _unsupported_map(name)
            else:
                out.put(name, struct.get(field))

    def _name(self, prefix: str, name: str) -> str:
        return f"{prefix}{self._delimiter}{name}" if prefix else name


def _unsupported_map(name: str) -> DataException:
    return DataException(f"Flatten transformation does not support MAP for record with schemas (for field {name}).")


class FlattenKey(Flatten):
    """Flatten on the record key (``Flatten$Key``)."""

    _key = True


class FlattenValue(Flatten):
    """Flatten on the record value (``Flatten$Value``)."""
