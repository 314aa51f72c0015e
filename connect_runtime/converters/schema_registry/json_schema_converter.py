"""Confluent's ``io.confluent.connect.json.JsonSchemaConverter``: Connect data as JSON through a schema
registry, with JSON Schemas registered as Confluent's ``JsonSchemaData`` maps Connect schemas."""

from __future__ import annotations

from typing import Any

from connect_runtime.api.data.schema import Schema
from connect_runtime.converters.schema_registry.json_schema_format import JsonSchemaFormat
from connect_runtime.converters.schema_registry.registry_converter import SchemaRegistryConverter

__all__ = ["JsonSchemaConverter"]


class JsonSchemaConverter(SchemaRegistryConverter):
    """Confluent's ``JsonSchemaConverter``: values as JSON text after the 5-byte header, schemas registered
    with the text Java's converter registers (so Java and Python workers share one schema history per
    subject; only the order of ``oneOf`` members may differ, as it does between Java's own runs).

    Settings: the registry's (see :class:`SchemaRegistryConverter`), ``JsonSchemaDataConfig``'s
    (``object.additional.properties``, ``use.optional.for.nonrequired``, ``decimal.format``,
    ``flatten.singleton.unions``, ``ignore.default.for.nullables``, ``schemas.cache.config``, ...) and
    ``json.fail.invalid.schema`` (validate every value written or read against its schema; off by default, as in Java).

    Nulls as Java writes them: a null of an optional schema (or of one with a default) is the JSON
    text ``null`` (or the default) with the schema's id; a null without a schema, or of a required
    schema without a default, is a tombstone. ``to_connect_data`` reads what this converter and
    Java's write, returning a ``SchemaAndValue``.

    ``use.latest.version`` under ``latest.compatibility.strict`` (the default) writes with the subject's
    latest version only when it is the record's own schema (in any key or ``oneOf`` order): JSON Schema's
    compatibility rules are not implemented, so any other latest version is refused with a message
    naming ``latest.compatibility.strict``, which set to false writes with it unchecked.
    """

    format_class = JsonSchemaFormat

    def from_connect_data(self, topic: str, value: Any, *, schema: Schema | None = None) -> bytes | None:
        """``[0][id][JSON text]`` for ``value`` of ``schema``, registering the schema when new."""
        if value is None and schema is not None:
            if not schema.is_optional and schema.default_value is None:
                return None
            header, format_schema = self._cached_writer(topic, schema)
            return header + format_schema.encode(None)
        return super().from_connect_data(topic, value, schema=schema)
