"""JSON Schema as a registry format (schema type ``JSON``): Confluent's ``JsonSchemaConverter`` mapping.

The mapping itself is :mod:`.json_schema_data`; this module binds it to the converter: a Connect
schema becomes the schema text Java registers, and values are written as the JSON text Jackson
writes. Java's serializer and deserializer validate every value against its schema only when
``json.fail.invalid.schema`` asks for it; the mapping already writes only values that fit, so the
per-record path skips validation by default (it costs about five times the encoding itself).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance
from connect_runtime.api.data.schema import Schema
from connect_runtime.api.errors import DataException
from connect_runtime.converters.json_schema_encoding import LruCache
from connect_runtime.converters.schema_registry.format import FormatSchema, SchemaFormat
from connect_runtime.converters.schema_registry.json_schema_data import (
    JsonSchemaDataConfig,
    ValueMapper,
    data_config_def,
    decode_text,
    decoder_for,
    encode_tree,
    from_connect_schema,
    omitted,
    schema_text,
    to_connect_schema,
)

FAIL_INVALID_SCHEMA: Final = "json.fail.invalid.schema"


class JsonSchemaFormatSchema(FormatSchema):
    """One JSON Schema: its registry text, its Connect schema and the value mapping for it."""

    def __init__(self, tree: Any, text: str, connect_schema: Schema, values: ValueMapper, validate: bool) -> None:
        self.text = text
        self.connect_schema = connect_schema
        title = tree.get("title") if isinstance(tree, Mapping) else None
        self.record_name = title if isinstance(title, str) else None
        self._tree = tree
        self._write = values.writer(connect_schema)
        self._parse = decoder_for(connect_schema)
        self._read = values.reader(connect_schema)
        self._validate: Callable[[Any], None] | None = _validator(tree, text) if validate else None

    def encode(self, value: Any) -> bytes:
        tree = self._write(value)
        if omitted(tree):
            # Java's converter writes a tombstone for this; a payload cannot say "no value".
            raise DataException("A null value of a required schema without a default has no JSON payload")
        payload = encode_tree(tree)
        if self._validate is not None:
            self._validate(decode_text(payload))
        return payload

    def decode(self, payload: bytes | memoryview) -> Any:
        node = self._parse(payload)
        if self._validate is not None:
            # Java's converter hands json.fail.invalid.schema to its deserializer too.
            self._validate(node)
        return self._read(node)

    def reads(self, writer: FormatSchema) -> bool | None:
        """True when both are the same schema, whatever the order of keys and of ``oneOf`` members
        (Java's workers register one optional in either order); None otherwise: JSON Schema's
        compatibility rules are not implemented here."""
        if isinstance(writer, JsonSchemaFormatSchema) and _canonical(writer._tree) == _canonical(self._tree):
            return True
        return None


def _canonical(node: Any) -> Any:
    """A hashable form of a JSON tree equal for equal schemas: keys in any order, and the members of
    ``oneOf`` / ``anyOf`` as a set."""
    if isinstance(node, Mapping):
        return frozenset((key, frozenset(map(_canonical, value)) if key in ("oneOf", "anyOf") and
                          isinstance(value, list) else _canonical(value)) for key, value in node.items())
    if isinstance(node, list):
        return tuple(map(_canonical, node))
    return node


def _validator(tree: Any, text: str) -> Callable[[Any], None]:
    # Imported only when asked for (validation is off by default): every worker process imports the
    # converters, most never validate.
    import jsonschema  # type: ignore[import-untyped]

    # Java's serializer reads schemas without "$schema" as draft 7.
    checker = jsonschema.validators.validator_for(tree, default=jsonschema.Draft7Validator)(tree)

    def validate(instance: Any) -> None:
        error = jsonschema.exceptions.best_match(checker.iter_errors(instance))
        if error is not None:
            raise DataException(f"Validation error in JSON {instance!r}, Error report:\n{error.message}"
                                f" (schema {text})")

    return validate


class JsonSchemaFormat(SchemaFormat):
    """Connect ⇄ JSON Schema as Confluent's ``JsonSchemaData`` maps it (``JsonSchemaDataConfig`` keys
    plus the serializer's ``json.fail.invalid.schema``).

    ``schemas.cache.config`` bounds the mapped schemas kept each way (Connect schema → JSON Schema,
    registry text → Connect schema).
    """

    schema_type = "JSON"

    def __init__(self) -> None:
        self._config = JsonSchemaDataConfig()
        self._validate = False
        self._values = ValueMapper(self._config)
        self._from_connect: LruCache[Schema, JsonSchemaFormatSchema] = LruCache(self._config.cache_size)
        self._from_registry: LruCache[tuple[str, int | None], JsonSchemaFormatSchema] = LruCache(
            self._config.cache_size)

    def config_def(self) -> ConfigDef:
        return data_config_def().define(
            FAIL_INVALID_SCHEMA, ConfigType.BOOLEAN, False, None, Importance.MEDIUM,
            "Whether every value is validated against its JSON Schema when written and when read (off: "
            "the mapping writes only values that fit their schema, and validating costs more than encoding).")

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._config = JsonSchemaDataConfig.from_configs(configs)
        parsed = ConfigDef().define(FAIL_INVALID_SCHEMA, ConfigType.BOOLEAN, False).parse(
            {key: value for key, value in configs.items() if key == FAIL_INVALID_SCHEMA})
        self._validate = parsed[FAIL_INVALID_SCHEMA]
        self._values = ValueMapper(self._config)
        self._from_connect = LruCache(self._config.cache_size)
        self._from_registry = LruCache(self._config.cache_size)

    def from_connect(self, schema: Schema) -> JsonSchemaFormatSchema:
        cached = self._from_connect.get(schema)
        if cached is None:
            tree = from_connect_schema(schema, self._config)
            cached = JsonSchemaFormatSchema(tree, schema_text(tree), schema, self._values, self._validate)
            self._from_connect.put(schema, cached)
        return cached

    def from_registry(self, text: str, version: int | None) -> JsonSchemaFormatSchema:
        cached = self._from_registry.get((text, version))
        if cached is None:
            try:
                tree = orjson.loads(text)
            except orjson.JSONDecodeError as exc:
                raise DataException(f"Invalid JSON Schema from the registry: {exc}") from exc
            connect_schema = to_connect_schema(tree, self._config, version)
            cached = JsonSchemaFormatSchema(tree, text, connect_schema, self._values, self._validate)
            self._from_registry.put((text, version), cached)
        return cached
