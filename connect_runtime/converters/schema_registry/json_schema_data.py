"""Connect schemas and values ⇄ JSON Schema and JSON, as Confluent's ``JsonSchemaData`` maps them.

Schemas: every Connect type keeps its identity through ``connect.type`` (``int8`` .. ``float64``,
``bytes``, ``map``), ``connect.index`` (a struct field's position), ``connect.version`` and
``connect.parameters``; names are ``title`` and docs ``description``; an optional schema is
``{"oneOf":[{"type":"null"},X]}`` with ``connect.index`` on the ``oneOf``. No ``required`` list is
written: Java writes none, and reading one back only matters with ``use.optional.for.nonrequired``.

The text is Java's, key for key: Java prints each schema object in a fixed key order and the
members of ``properties``, ``connect.parameters`` and the ``connect.*`` keys in the iteration order
of the ``java.util.HashMap`` they pass through (see :func:`java_hash_order`), so a
Python and a Java worker register the same text. The one exception is the order of a ``oneOf``'s
members: Java sorts them by ``Object.hashCode``, which for nested schemas differs from one JVM run to
the next, so here the ``null`` member always comes first.

Values: the payload is the compact JSON text Jackson writes (``Double.toString`` / ``Float.toString``
numbers, bytes and BASE64 decimals as base64 strings, dates and times as integers, maps with
non-string keys as ``[{"key":k,"value":v}]``); a struct field whose value is null and required is
left out, as Java leaves it out.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import functools
import math
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, Validator, ValidString
from connect_runtime.api.data.logical_types import Date, Decimal, Time, Timestamp
from connect_runtime.api.data.schema import _INT_RANGES, Schema, SchemaType
from connect_runtime.api.data.schema_builder import SchemaBuilder
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.api.java_json import (
    _quote,
    java_double_to_string,
    java_float_to_string,
    json_loads_decimal,
)
from connect_runtime.converters.json_converter import _node_type
from connect_runtime.converters.schema_registry.format import StructFiller, parse_data_settings

NAMESPACE: Final = "io.confluent.connect.json"
JSON_TYPE_ENUM: Final = NAMESPACE + ".Enum"
JSON_TYPE_ONE_OF: Final = NAMESPACE + ".OneOf"
NULL_MARKER: Final = "<NULL>"
CONNECT_TYPE: Final = "connect.type"
CONNECT_INDEX: Final = "connect.index"
CONNECT_VERSION: Final = "connect.version"
CONNECT_PARAMETERS: Final = "connect.parameters"

_CONNECT_TYPES: Final = {
    SchemaType.INT8: "int8", SchemaType.INT16: "int16", SchemaType.INT32: "int32", SchemaType.INT64: "int64",
    SchemaType.FLOAT32: "float32", SchemaType.FLOAT64: "float64",
}
_FROM_CONNECT_TYPE: Final = {name: schema_type for schema_type, name in _CONNECT_TYPES.items()}
_INTEGERS: Final = frozenset((SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64))
_TEMPORAL: Final[dict[str, Any]] = {Date.LOGICAL_NAME: Date, Time.LOGICAL_NAME: Time, Timestamp.LOGICAL_NAME: Timestamp}


# --- configuration (JsonSchemaDataConfig) -----------------------------------------------------------

# Settings Java has that this mapping does not implement: refused when set to true.
_UNSUPPORTED: Final = {
    "preserve.additional.properties": "undeclared properties are not kept; leave it false",
    "generalized.sum.type.support": "generalized sum types (connect_union_N) are not supported; leave it false",
    "json.indent.output": "payloads are written compact, never indented; leave it false",
}


_DATA_KEYS: Final = (
    ("object.additional.properties", ConfigType.BOOLEAN, True, Importance.MEDIUM,
     "Whether struct schemas allow properties they do not declare; false writes "
     "\"additionalProperties\":false on every struct."),
    ("use.optional.for.nonrequired", ConfigType.BOOLEAN, False, Importance.MEDIUM,
     "Whether a property missing from its object's \"required\" list reads as an optional field."),
    ("ignore.modern.dialects", ConfigType.BOOLEAN, False, Importance.LOW,
     "Java: read draft 2019-09 / 2020-12 schemas as draft 7. Schemas are read by keyword here "
     "whatever their dialect, so both values read the same."),
    ("flatten.singleton.unions", ConfigType.BOOLEAN, True, Importance.LOW,
     "Whether a oneOf/anyOf of a single schema reads as that schema rather than a OneOf struct."),
    ("preserve.additional.properties", ConfigType.BOOLEAN, False, Importance.MEDIUM,
     "Not supported: must be false (undeclared properties are dropped)."),
    ("generalized.sum.type.support", ConfigType.BOOLEAN, False, Importance.MEDIUM,
     "Not supported: must be false (enums and unions use the io.confluent.connect.json names)."),
    ("ignore.default.for.nullables", ConfigType.BOOLEAN, False, Importance.MEDIUM,
     "Whether a null value of an optional schema with a default is written as null rather than as the default."),
    ("schemas.cache.config", ConfigType.INT, 1000, Importance.LOW, "How many mapped schemas to keep, each way."),
    # The serializer's, which Java's converter hands the same settings: its payloads' whitespace.
    ("json.indent.output", ConfigType.BOOLEAN, False, Importance.LOW,
     "Not supported: must be false (payloads are compact JSON)."),
)


def data_config_def() -> ConfigDef:
    """``JsonSchemaDataConfig``'s keys, with Java's defaults."""
    definition = ConfigDef().define(
        "decimal.format", ConfigType.STRING, "BASE64", ValidString.one_of("BASE64", "NUMERIC", case_sensitive=False),
        Importance.LOW, "BASE64 writes a Decimal as the base64 of its unscaled bytes, NUMERIC as a JSON number.")
    for name, kind, default, importance, documentation in _DATA_KEYS:
        why = _UNSUPPORTED.get(name)
        definition.define(name, kind, default, None if why is None else _refused_when_true(why), importance,
                          documentation)
    return definition


def _refused_when_true(why: str) -> Validator:
    """A validator refusing ``true`` with ``why``, so connector validation reports it on its key."""

    def validate(name: str, value: Any) -> None:
        if value is True:
            raise ConfigException(name, value, why)

    return validate




@dataclass(frozen=True)
class JsonSchemaDataConfig:
    """The settings of the mapping, parsed once (Java's ``JsonSchemaDataConfig``)."""

    # writing schemas
    additional_properties: bool = True
    # reading schemas
    optional_for_nonrequired: bool = False
    flatten_singleton_unions: bool = True
    # values
    numeric_decimals: bool = False
    ignore_default_for_nullables: bool = False
    # mapped schemas kept, each way
    cache_size: int = 1000

    @classmethod
    def from_configs(cls, configs: Mapping[str, Any]) -> JsonSchemaDataConfig:
        """Parse the data keys of ``configs`` (others are ignored); raises ``ConfigException`` for a bad
        value or a setting this mapping does not honour."""
        parsed = parse_data_settings(data_config_def(), configs, _UNSUPPORTED)
        return cls(
            additional_properties=parsed["object.additional.properties"],
            optional_for_nonrequired=parsed["use.optional.for.nonrequired"],
            numeric_decimals=parsed["decimal.format"].upper() == "NUMERIC",
            flatten_singleton_unions=parsed["flatten.singleton.unions"],
            ignore_default_for_nullables=parsed["ignore.default.for.nullables"],
            cache_size=max(1, parsed["schemas.cache.config"]),
        )


# --- Java's HashMap iteration order -----------------------------------------------------------------

def _java_string_hash(text: str) -> int:
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h


def _table_size_for(n: int) -> int:
    size = 1
    while size < n:
        size *= 2
    return size


def java_hash_order(keys: list[Any], sizing: str) -> list[Any]:
    """``keys`` (strings, or None, inserted in this order) in the iteration order of the
    ``java.util.HashMap`` Java's mapping passes them through: ``"default"`` (``new HashMap<>()`` or
    ``HashSet`` filled by puts), ``"copy"``
    (``new HashMap<>(map)``, sized ``ceil(n / 0.75)`` as on JDK 19+ and 17.0.15) or ``"sized"``
    (``new HashMap<>(n)``, as ``org.json``'s ``JSONObject(Map)``). A HashMap iterates by bucket,
    then by insertion within a bucket (a resize keeps that order).
    """
    count = len(keys)
    if sizing == "default":
        capacity = 16
    elif sizing == "copy":
        capacity = _table_size_for(math.ceil(count / 0.75)) if count else 1
    else:
        capacity = _table_size_for(max(count, 1))
    while count > capacity * 0.75:
        capacity *= 2

    def bucket(key: str | None) -> int:
        h = 0 if key is None else _java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=bucket)  # sorted() is stable: insertion order within a bucket


# --- Connect schema -> JSON Schema --------------------------------------------------------------------

def _parameters(schema: Schema) -> dict[str, str] | None:
    if not schema.parameters:
        return None
    kept = [key for key in schema.parameters if not key.startswith(NAMESPACE)]
    if not kept:
        return None
    # Collectors.toMap fills a default HashMap; org.json then copies it into a sized one to print it.
    ordered = java_hash_order(java_hash_order(kept, "default"), "sized")
    return {key: schema.parameters[key] for key in ordered}


def _unprocessed(out: dict[str, Any], props: dict[str, Any]) -> None:
    # Java collects these in a HashMap that everit copies: that copy's order is the printed order.
    for key in java_hash_order(java_hash_order(list(props), "default"), "copy"):
        out[key] = props[key]


class _SchemaWriter:
    """``rawSchemaFromConnectSchema``: one Connect schema to a JSON Schema tree, keys in Java's order."""

    def __init__(self, config: JsonSchemaDataConfig) -> None:
        self._config = config
        self._values = ValueMapper(config)

    def write(self, schema: Schema, index: int | None = None, ignore_optional: bool = False) -> dict[str, Any]:
        kind = schema.type
        if kind is SchemaType.STRUCT and schema.is_optional and not ignore_optional:
            # An optional struct: its name, doc and default stay on the object inside the oneOf.
            inner = self.write(_required(schema))
            return self._one_of(inner, index)
        head: dict[str, Any] = {}  # the keys everit prints before title/description/default
        tail: dict[str, Any] = {}  # and after the connect.* keys
        props: dict[str, Any] = {}
        type_last = False
        if kind in _CONNECT_TYPES:
            head["type"] = "integer" if kind in _INTEGERS else "number"
            props[CONNECT_TYPE] = _CONNECT_TYPES[kind]
        elif kind is SchemaType.BOOLEAN:
            type_last = True
        elif kind is SchemaType.STRING:
            params = schema.parameters or {}
            if JSON_TYPE_ENUM in params:
                prefix = JSON_TYPE_ENUM + "."
                symbols = [None if key[len(prefix):] == NULL_MARKER else key[len(prefix):]
                           for key in params if key.startswith(prefix)]
                # everit prints an enum's values from a HashSet (getPossibleValues), not in their order.
                head["enum"] = java_hash_order(symbols, "default")
            else:
                head["type"] = "string"
        elif kind is SchemaType.BYTES:
            numeric = schema.name == Decimal.LOGICAL_NAME and self._config.numeric_decimals
            head["type"] = "number" if numeric else "string"
            props[CONNECT_TYPE] = "bytes"
        elif kind is SchemaType.ARRAY:
            head["type"] = "array"
            tail["items"] = self.write(_element(schema.value_schema))
        elif kind is SchemaType.MAP:
            key_schema, value_schema = _element(schema.key_schema), _element(schema.value_schema)
            if key_schema.type is SchemaType.STRING and not key_schema.is_optional:
                head["type"] = "object"
                tail["additionalProperties"] = self.write(value_schema)
            else:
                head["type"] = "array"
                entry = {"key": self.write(key_schema, 0), "value": self.write(value_schema, 1)}
                tail["items"] = {"type": "object", "properties": _ordered_properties(entry)}
            props[CONNECT_TYPE] = "map"
        elif kind is SchemaType.STRUCT:
            head["type"] = "object"
            if not self._config.additional_properties:
                head["additionalProperties"] = False
            properties = {field.name: self.write(field.schema, field.index) for field in schema.fields}
            if properties:
                tail["properties"] = _ordered_properties(properties)
        else:  # pragma: no cover - every SchemaType is handled above
            raise DataException(f"Unsupported type {kind}")

        out = dict(head)
        if schema.name is not None:
            out["title"] = schema.name
        if schema.doc is not None:
            out["description"] = schema.doc
        if schema.default_value is not None:
            out["default"] = self._values.default_tree(schema)
        if schema.version is not None:
            props[CONNECT_VERSION] = schema.version
        parameters = _parameters(schema)
        if parameters:
            props[CONNECT_PARAMETERS] = parameters
        if schema.is_optional and not ignore_optional:
            _unprocessed(out, props)
            if type_last:
                out["type"] = "boolean"
            out.update(tail)
            return self._one_of(out, index)
        if index is not None:
            props[CONNECT_INDEX] = index
        _unprocessed(out, props)
        if type_last:
            out["type"] = "boolean"
        out.update(tail)
        return out

    @staticmethod
    def _one_of(member: dict[str, Any], index: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if index is not None:
            out[CONNECT_INDEX] = index
        out["oneOf"] = [{"type": "null"}, member]
        return out


def _ordered_properties(properties: dict[str, Any]) -> dict[str, Any]:
    # ObjectSchema.Builder puts into a default HashMap, which the built schema wraps without copying.
    return {name: properties[name] for name in java_hash_order(list(properties), "default")}


def _element(schema: Schema | None) -> Schema:
    if schema is None:
        raise DataException("Array and map schemas need element schemas")
    return schema


def _required(struct: Schema) -> Schema:
    return Schema(struct.type, optional=False, default_value=struct.default_value, name=struct.name,
                  version=struct.version, doc=struct.doc, parameters=struct.parameters, fields=struct.fields)


def from_connect_schema(schema: Schema, config: JsonSchemaDataConfig) -> dict[str, Any]:
    """The JSON Schema (as a tree of dicts and lists) Java's ``fromConnectSchema`` builds for ``schema``."""
    return _SchemaWriter(config).write(schema)


def schema_text(tree: Any) -> str:
    """The registry text of a JSON Schema tree: compact, keys in the tree's order, as Jackson prints it
    to a String (``canonicalString``): characters outside the BMP stay as they are, where a payload
    (Jackson's UTF-8 writer) escapes them."""
    body: bytes = orjson.dumps(tree)
    if 92 in body and b"\\u00" in body:
        body = orjson.dumps(_jackson_strings(tree, _quote_text))
    return body.decode("utf-8")


_TEXT_ESCAPES: Final = re.compile('[\x00-\x1f"\\\\]')


def _quote_text(text: str) -> str:
    """A JSON string literal as Jackson's writer to a String writes it: ``_quote`` without escaping
    characters outside the BMP."""
    return '"' + _TEXT_ESCAPES.sub(lambda match: _quote(match.group())[1:-1], text) + '"'


# --- JSON Schema -> Connect schema --------------------------------------------------------------------

class _SchemaReader:
    """``toConnectSchema``: a JSON Schema tree (anyone's) to a Connect schema, as Java maps it."""

    def __init__(self, root: Mapping[str, Any], config: JsonSchemaDataConfig) -> None:
        self._root = root
        self._config = config
        self._values = ValueMapper(config)
        self._resolving: set[str] = set()

    def read(self, node: Any, version: int | None = None, force_optional: bool = False) -> Schema:
        if node is True or node == {}:
            raise DataException("JSON schemas that accept any value (variants) are not supported")
        if not isinstance(node, Mapping):
            raise DataException(f"Unsupported JSON schema: {node!r}")
        if "$ref" in node:
            return self._reference(node, version, force_optional)
        types = node.get("type")
        if isinstance(types, list):  # everit reads a list of types as anyOf of one schema per type
            rest = {key: value for key, value in node.items() if key != "type"}
            return self.read({"anyOf": [{**rest, "type": one} for one in types]}, version, force_optional)
        for keyword in ("oneOf", "anyOf"):
            if keyword in node:
                return self._union(node, node[keyword], version, force_optional)
        if "allOf" in node:
            return self._all_of(node, version, force_optional)
        builder = self._builder(node, types)
        return self._finish(builder, node, version, force_optional)

    def _builder(self, node: Mapping[str, Any], kind: Any) -> SchemaBuilder:
        connect_type = node.get(CONNECT_TYPE)
        if "const" in node:
            return _enum_builder([node["const"]])
        if "enum" in node:
            return _enum_builder(list(node["enum"]))
        if kind == "boolean":
            return SchemaBuilder.bool()
        if kind in ("integer", "number"):
            if connect_type is None:
                return SchemaBuilder.int64() if kind == "integer" else SchemaBuilder.float64()
            if connect_type == "bytes":
                return SchemaBuilder.bytes()
            if connect_type not in _FROM_CONNECT_TYPE:
                raise DataException(f"Unsupported type {connect_type}")
            return SchemaBuilder.of_type(_FROM_CONNECT_TYPE[connect_type])
        if kind == "string" or (kind is None and _has_any(node, ("minLength", "maxLength", "pattern", "format"))):
            return SchemaBuilder.bytes() if connect_type == "bytes" else SchemaBuilder.string()
        if kind == "array" or (kind is None and "items" in node):
            items = node.get("items")
            if items is None or isinstance(items, list):
                raise DataException("Array schema did not specify the items type")
            properties = items.get("properties", {}) if isinstance(items, Mapping) else {}
            if connect_type == "map" and items.get("type", "object") == "object" and "key" in properties:
                return SchemaBuilder.map(self.read(properties["key"]), self.read(properties["value"]))
            return SchemaBuilder.array(self.read(items))
        if kind == "object" or (kind is None and _has_any(node, ("properties", "additionalProperties"))):
            if connect_type == "map":
                return SchemaBuilder.map(Schema.STRING_SCHEMA, self.read(node.get("additionalProperties", {})))
            return self._struct(node)
        if kind == "null":
            raise DataException("A null schema maps to no Connect type on its own")
        raise DataException(f"Unsupported JSON schema: {dict(node)!r}")

    def _struct(self, node: Mapping[str, Any]) -> SchemaBuilder:
        builder = SchemaBuilder.struct()
        properties: Mapping[str, Any] = node.get("properties", {})
        required = set(node.get("required", ()))
        # Fields by connect.index; a property without one takes the count so far, in the order Java's
        # HashMap of properties iterates (a later one with the same index replaces it, as in Java).
        by_index: dict[int, str] = {}
        for name in java_hash_order(list(properties), "default"):
            sub = properties[name]
            index = sub.get(CONNECT_INDEX) if isinstance(sub, Mapping) else None
            by_index[index if isinstance(index, int) else len(by_index)] = name
        for index in sorted(by_index):
            name = by_index[index]
            optional = self._config.optional_for_nonrequired and name not in required
            builder.field(name, self.read(properties[name], None, optional))
        return builder

    def _union(self, node: Mapping[str, Any], members: list[Any], version: int | None,
               force_optional: bool) -> Schema:
        if len(members) == 1 and self._config.flatten_singleton_unions:
            return self.read(members[0])
        if len(members) == 2 and any(_is_null(member) for member in members):
            other = next(member for member in members if not _is_null(member))
            return self.read(other, version, True)
        builder = SchemaBuilder.struct().name(JSON_TYPE_ONE_OF)
        index = 0
        for member in members:
            if _is_null(member):
                builder.optional()
            else:
                builder.field(f"{JSON_TYPE_ONE_OF}.field.{index}", self.read(member, None, True))
                index += 1
        return self._finish(builder, node, version, force_optional, named=True)

    def _all_of(self, node: Mapping[str, Any], version: int | None, force_optional: bool) -> Schema:
        members = [self._resolve(member) for member in node["allOf"]]
        properties: dict[str, Any] = {}
        required: set[str] = set()
        for member in members:
            if _is_object(member):
                properties.update(member.get("properties", {}))
                required.update(member.get("required", ()))
        if properties:
            return self.read({"type": "object", "properties": properties, "required": sorted(required)},
                             version, force_optional)
        merged: dict[str, Any] = {}
        for member in members:
            merged.update(member)
        merged.pop("allOf", None)
        return self.read(merged, version, force_optional)

    def _reference(self, node: Mapping[str, Any], version: int | None, force_optional: bool) -> Schema:
        ref = node["$ref"]
        if ref in self._resolving:
            raise DataException(f"Recursive JSON schemas are not supported ($ref {ref})")
        self._resolving.add(ref)
        try:
            return self.read(self._resolve(node), version, force_optional)
        finally:
            self._resolving.discard(ref)

    def _resolve(self, node: Any) -> Any:
        if not isinstance(node, Mapping) or "$ref" not in node:
            return node
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise DataException(f"Only local references are supported, not {ref!r}")
        target: Any = self._root
        for part in filter(None, ref[1:].split("/")):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, Mapping) or part not in target:
                raise DataException(f"Unresolvable reference {ref}")
            target = target[part]
        return target

    def _finish(self, builder: SchemaBuilder, node: Mapping[str, Any], version: int | None,
                force_optional: bool, named: bool = False) -> Schema:
        title = node.get("title")
        if isinstance(title, str) and not named:
            builder.name(title)
        connect_version = node.get(CONNECT_VERSION)
        if isinstance(connect_version, int) and not isinstance(connect_version, bool):
            builder.version(connect_version)
        elif version is not None:
            builder.version(version)
        if isinstance(node.get("description"), str):
            builder.doc(node["description"])
        parameters = node.get(CONNECT_PARAMETERS)
        if isinstance(parameters, Mapping):
            builder.parameters({str(key): str(value) for key, value in parameters.items()})
        if "default" in node:
            default = self._values.to_connect(builder.build(), node["default"])
            if default is not None:
                builder.default_value(default)
        if force_optional:
            builder.optional()
        return builder.build()


def _has_any(node: Mapping[str, Any], keys: tuple[str, ...]) -> bool:
    return any(key in node for key in keys)


def _is_null(node: Any) -> bool:
    return isinstance(node, Mapping) and node.get("type") == "null" and len(node) == 1


def _is_object(node: Any) -> bool:
    return isinstance(node, Mapping) and (node.get("type") == "object" or "properties" in node)


def _enum_builder(symbols: list[Any]) -> SchemaBuilder:
    builder = SchemaBuilder.string().parameter(JSON_TYPE_ENUM, "")
    for symbol in symbols:
        text = NULL_MARKER if symbol is None else _java_to_string(symbol)
        builder.parameter(f"{JSON_TYPE_ENUM}.{text}", text)
    return builder


def _java_to_string(value: Any) -> str:
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_to_string(value)
    return str(value)


def to_connect_schema(tree: Mapping[str, Any], config: JsonSchemaDataConfig, version: int | None = None) -> Schema:
    """The Connect schema Java's ``toConnectSchema`` gives for a JSON Schema tree; ``version`` is the
    registry's version of it, used when the schema has no ``connect.version``."""
    return _SchemaReader(tree, config).read(tree, version)


# --- values -----------------------------------------------------------------------------------------

_OMIT: Final = object()  # Java's null JsonNode: a struct leaves the field out


class ValueMapper:
    """``fromConnectData`` / ``toConnectData``: Connect values ⇄ JSON trees for one configuration."""

    def __init__(self, config: JsonSchemaDataConfig) -> None:
        self._config = config

    def to_tree(self, schema: Schema, value: Any) -> Any:
        """The JSON tree of a Connect value (``_OMIT`` for Java's null: a required null value)."""
        if value is None:
            if schema.default_value is not None and not self._config.ignore_default_for_nullables:
                return self.to_tree(schema, schema.default_value)
            return None if schema.is_optional else _OMIT
        name = schema.name
        kind = schema.type
        if name is not None:
            if name == Decimal.LOGICAL_NAME:
                if not isinstance(value, decimal.Decimal):
                    raise DataException(f"Invalid type for Decimal, expected Decimal but was {type(value)}")
                if self._config.numeric_decimals:
                    return self._number(str(value))
                return base64.b64encode(Decimal.from_logical(schema, value)).decode("ascii")
            temporal = _TEMPORAL.get(name)
            if temporal is not None:
                return temporal.from_logical(schema, value)
        if kind is SchemaType.STRUCT:
            if not isinstance(value, Struct) or value.schema != schema:
                raise DataException("Mismatching schema.")
            out: dict[str, Any] = {}
            ignore_defaults = self._config.ignore_default_for_nullables
            for field in schema.fields:
                field_value = value.get_without_default(field) if ignore_defaults else value.get(field)
                node = self.to_tree(field.schema, field_value)
                if node is not _OMIT:
                    out[field.name] = node
            return out
        if kind in _INTEGERS:
            low, high = _INT_RANGES[kind]
            if value.__class__ is not int or not low <= value <= high:
                raise DataException(f"Invalid value for {kind!s}: {value!r}")
            return value
        if kind is SchemaType.FLOAT64 or kind is SchemaType.FLOAT32:
            if not isinstance(value, float):
                raise DataException(f"Invalid type for {kind!s}: {type(value)}")
            text = java_float_to_string(value) if kind is SchemaType.FLOAT32 else java_double_to_string(value)
            return self._number(text) if math.isfinite(value) else orjson.Fragment(f'"{text}"')
        if kind is SchemaType.BOOLEAN or kind is SchemaType.STRING:
            if not isinstance(value, bool if kind is SchemaType.BOOLEAN else str):
                raise DataException(f"Invalid type for {kind!s}: {type(value)}")
            return value
        if kind is SchemaType.BYTES:
            if isinstance(value, decimal.Decimal):
                return self._number(str(value))
            if not isinstance(value, bytes | bytearray | memoryview):
                raise DataException(f"Invalid type for bytes type: {type(value)}")
            return base64.b64encode(value).decode("ascii")
        if kind is SchemaType.ARRAY:
            element = _element(schema.value_schema)
            return [_null_if_omitted(self.to_tree(element, item)) for item in value]
        key_schema, value_schema = _element(schema.key_schema), _element(schema.value_schema)
        if not isinstance(value, Mapping):
            raise DataException(f"Invalid type for MAP: {type(value)}")
        if key_schema.type is SchemaType.STRING and not key_schema.is_optional:
            return {_key_text(self.to_tree(key_schema, key)): _null_if_omitted(self.to_tree(value_schema, item))
                    for key, item in value.items()}
        return [{"key": _null_if_omitted(self.to_tree(key_schema, key)),
                 "value": _null_if_omitted(self.to_tree(value_schema, item))} for key, item in value.items()]

    def writer(self, schema: Schema) -> Callable[[Any], Any]:
        """:meth:`to_tree` specialised for one schema, for the per-record path: plain values (ints,
        booleans, strings) pass as they are, structs read their values in field order; anything
        else, and any value that is not plainly valid, goes through :meth:`to_tree` (and its errors).
        """
        generic = functools.partial(self.to_tree, schema)
        plain = _plain_or(schema, generic)
        if plain is not None:
            return plain
        if schema.type is SchemaType.STRUCT and schema.name != JSON_TYPE_ONE_OF:
            fields = [(field.index, field.name, field.schema.default_value, self.writer(field.schema))
                      for field in schema.fields]
            use_defaults = not self._config.ignore_default_for_nullables

            def write_struct(value: Any) -> Any:
                if value.__class__ is not Struct or (value.schema is not schema and value.schema != schema):
                    return generic(value)
                values = value._values
                out = {}
                for index, name, default, write in fields:
                    item = values[index]
                    node = write(default if item is None and use_defaults else item)
                    if node is not _OMIT:
                        out[name] = node
                return out

            return write_struct
        return generic

    def reader(self, schema: Schema) -> Callable[[Any], Any]:
        """:meth:`to_connect` specialised for one schema, for the per-record path (as :meth:`writer`):
        plain values of their schema's class and range pass as they are, structs are filled field by
        field from readers compiled once; anything else goes through :meth:`to_connect`."""
        generic = functools.partial(self.to_connect, schema)
        plain = _plain_or(schema, generic)
        if plain is not None:
            return plain
        if schema.type is SchemaType.STRUCT and schema.name != JSON_TYPE_ONE_OF:
            fields = [(field.name, self.reader(field.schema)) for field in schema.fields]
            fill = StructFiller(schema).fill

            def read_struct(node: Any) -> Any:
                if node.__class__ is not dict:
                    return generic(node)
                get = node.get
                return fill(Struct(schema), [read(get(name)) for name, read in fields])

            return read_struct
        return generic

    def default_tree(self, schema: Schema) -> Any:
        """A schema's default as its ``"default"`` keyword: objects in it keyed in the order of the
        ``org.json.JSONObject`` (a default ``HashMap``) Java converts the default to before printing."""
        return _json_object_order(_DefaultMapper(self._config).to_tree(schema, schema.default_value))

    def _number(self, text: str) -> Any:
        """A number already in Jackson's text, written as it is."""
        return orjson.Fragment(text)

    def to_connect(self, schema: Schema, node: Any) -> Any:
        """The Connect value of a JSON tree (read with decimals for fractions) under ``schema``."""
        if node is None:
            if schema.default_value is not None:
                return schema.default_value
            if schema.is_optional:
                return None
            raise DataException(f"Invalid null value for required {schema.type!s} field")
        name = schema.name
        if name is not None:
            if name == Decimal.LOGICAL_NAME:
                if isinstance(node, int | float | decimal.Decimal) and not isinstance(node, bool):
                    return decimal.Decimal(node) if not isinstance(node, float) else decimal.Decimal(repr(node))
                if isinstance(node, str):
                    return Decimal.to_logical(schema, _base64(node, "Invalid bytes for Decimal field"))
                raise DataException("Invalid type for Decimal, underlying representation should be numeric or "
                                    f"bytes but was {_node_type(node)}")
            temporal = _TEMPORAL.get(name)
            if temporal is not None:
                if not isinstance(node, int) or isinstance(node, bool):
                    raise DataException(f"Invalid type for {name.rsplit('.', 1)[-1]}, underlying representation "
                                        f"should be integer but was {_node_type(node)}")
                return temporal.to_logical(schema, node)
        kind = schema.type
        if kind in _INTEGERS:
            if not isinstance(node, int | float | decimal.Decimal) or isinstance(node, bool):
                raise DataException(f"Invalid value for {kind!s}: {_node_type(node)}")
            return int(node)
        if kind is SchemaType.FLOAT64 or kind is SchemaType.FLOAT32:
            if isinstance(node, str) and node in ("NaN", "Infinity", "-Infinity"):
                return float(node.replace("Infinity", "inf"))
            if not isinstance(node, int | float | decimal.Decimal) or isinstance(node, bool):
                raise DataException(f"Invalid value for {kind!s}: {_node_type(node)}")
            return float(node)
        if kind is SchemaType.BOOLEAN:
            if not isinstance(node, bool):
                raise DataException(f"Invalid value for BOOLEAN: {_node_type(node)}")
            return node
        if kind is SchemaType.STRING:
            return node if isinstance(node, str) else None  # Jackson's textValue() of a non-text node
        if kind is SchemaType.BYTES:
            if isinstance(node, str):
                return _base64(node, "Invalid bytes field")
            if isinstance(node, int | float | decimal.Decimal) and not isinstance(node, bool):
                return decimal.Decimal(node) if not isinstance(node, float) else decimal.Decimal(repr(node))
            raise DataException(f"Invalid bytes field: {_node_type(node)}")
        if kind is SchemaType.ARRAY:
            if not isinstance(node, list):
                raise DataException(f"Arrays should be encoded as JSON arrays, but found {_node_type(node)}")
            element = _element(schema.value_schema)
            return [self.to_connect(element, item) for item in node]
        if kind is SchemaType.MAP:
            return self._map(schema, node)
        return self._struct(schema, node)

    def _map(self, schema: Schema, node: Any) -> dict[Any, Any]:
        key_schema, value_schema = _element(schema.key_schema), _element(schema.value_schema)
        if key_schema.type is SchemaType.STRING and not key_schema.is_optional:
            if not isinstance(node, dict):
                raise DataException("Maps with string fields should be encoded as JSON objects, but found "
                                    + _node_type(node))
            return {key: self.to_connect(value_schema, item) for key, item in node.items()}
        if not isinstance(node, list):
            raise DataException("Maps with non-string fields should be encoded as JSON array of objects, but found "
                                + _node_type(node))
        result: dict[Any, Any] = {}
        for entry in node:
            if not isinstance(entry, dict):
                raise DataException(f"Found invalid map entry instead of object: {_node_type(entry)}")
            if len(entry) != 2:
                raise DataException(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
            result[self.to_connect(key_schema, entry.get("key"))] = self.to_connect(value_schema, entry.get("value"))
        return result

    def _struct(self, schema: Schema, node: Any) -> Struct:
        if schema.name == JSON_TYPE_ONE_OF:
            return self._one_of(schema, node)
        if not isinstance(node, dict):
            raise DataException(f"Structs should be encoded as JSON objects, but found {_node_type(node)}")
        result = Struct(schema)
        for field in schema.fields:
            value = self.to_connect(field.schema, node.get(field.name))
            if value is not None:
                result.put(field, value)
        return result

    def _one_of(self, schema: Schema, node: Any) -> Struct:
        best, best_score = None, 0
        for field in schema.fields:
            if _matches_simply(field.schema, node):
                return Struct(schema).put(field, self.to_connect(field.schema, node))
            score = _struct_match(field.schema, node)
            if score > best_score:
                best, best_score = field, score
        if best is None:
            raise DataException("Did not find matching oneof field for data")
        return Struct(schema).put(best, self.to_connect(best.schema, node))


def _plain_or(schema: Schema, generic: Callable[[Any], Any]) -> Callable[[Any], Any] | None:
    """For an int, boolean or string schema, a function passing a value of exactly its plain class (and
    range) as it is, in JSON as in Connect, and any other to ``generic``; None for other schemas."""
    plain = schema._plain_class
    if plain is not int and plain is not bool and plain is not str:
        return None
    bounds = schema._plain_range

    def plain_or_generic(value: Any) -> Any:
        if value.__class__ is plain and (bounds is None or bounds[0] <= value <= bounds[1]):  # type: ignore[operator]
            return value
        return generic(value)

    return plain_or_generic


class _DefaultMapper(ValueMapper):
    """Defaults print as ``org.json`` prints them and then Java's ``BigDecimal`` (``2``, ``1.0E+10``):
    Java re-reads the schema text with ``USE_BIG_DECIMAL_FOR_FLOATS`` before it prints it.

    Inside an array, map or struct default, Java's default passes through ``org.json``'s
    ``JSONArray`` / ``JSONObject``, which hold a FLOAT32 as the double it widens to
    (``1.0000000116860974E-7``) and BYTES as an array of signed byte numbers.
    """

    def __init__(self, config: JsonSchemaDataConfig) -> None:
        super().__init__(config)
        self._nested = False

    def _number(self, text: str) -> Any:
        # org.json prints a number without trailing fraction zeros (2.0 -> 2, 1.50 -> 1.5) unless it
        # has an exponent; BigDecimal then has no negative zero.
        if "." in text and "E" not in text and "e" not in text:
            text = text.rstrip("0").rstrip(".")
        number = decimal.Decimal(text)
        return orjson.Fragment(str(number.copy_abs() if number.is_zero() else number))

    def to_tree(self, schema: Schema, value: Any) -> Any:
        if self._nested and value is not None:
            if schema.type is SchemaType.FLOAT32 and isinstance(value, float) and math.isfinite(value):
                return self._number(java_double_to_string(_FLOAT32.unpack(_FLOAT32.pack(value))[0]))
            if schema.type is SchemaType.BYTES and not (schema.name == Decimal.LOGICAL_NAME and
                                                        self._config.numeric_decimals):
                raw = (Decimal.from_logical(schema, value) if schema.name == Decimal.LOGICAL_NAME and
                       isinstance(value, decimal.Decimal) else value)
                if isinstance(raw, bytes | bytearray | memoryview):
                    return [byte - 256 if byte > 127 else byte for byte in bytes(raw)]
        if self._nested:
            return super().to_tree(schema, value)
        self._nested = True
        try:
            return super().to_tree(schema, value)
        finally:
            self._nested = False


_FLOAT32: Final = struct.Struct("<f")


def _matches_simply(schema: Schema, node: Any) -> bool:
    kind = schema.type
    if kind in _INTEGERS:
        return isinstance(node, int) and not isinstance(node, bool)
    if kind is SchemaType.FLOAT32 or kind is SchemaType.FLOAT64:
        return isinstance(node, int | float | decimal.Decimal) and not isinstance(node, bool)
    if kind is SchemaType.BOOLEAN:
        return isinstance(node, bool)
    if kind is SchemaType.STRING:
        return isinstance(node, str)
    if kind is SchemaType.BYTES:
        return isinstance(node, decimal.Decimal)
    if kind is SchemaType.ARRAY:
        return isinstance(node, list)
    if kind is SchemaType.MAP:
        return isinstance(node, dict | list)
    return False


def _struct_match(schema: Schema, node: Any) -> int:
    if schema.type is not SchemaType.STRUCT or not isinstance(node, dict):
        return 0
    shared = [field for field in schema.fields if field.name in node]
    return len(shared) + sum(_struct_match(field.schema, node[field.name]) for field in shared)


def _json_object_order(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _json_object_order(node[key]) for key in java_hash_order(list(node), "default")}
    if isinstance(node, list):
        return [_json_object_order(item) for item in node]
    return node


def omitted(node: Any) -> bool:
    """Whether :meth:`ValueMapper.to_tree` gave Java's null node (a required value that is null)."""
    return node is _OMIT


def _null_if_omitted(node: Any) -> Any:
    return None if node is _OMIT else node


def _key_text(node: Any) -> str:
    if not isinstance(node, str):
        raise DataException("Map keys must be strings")
    return node


def _base64(text: str, message: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise DataException(message) from exc


# --- JSON text --------------------------------------------------------------------------------------

def encode_tree(tree: Any) -> bytes:
    """Jackson's compact text of a JSON tree (numbers in it as ``orjson.Fragment`` of their text).

    orjson writes what Jackson writes except in strings: control characters other than the short
    escapes (lower-case ``\\u00xx``, Jackson's are upper case) and characters outside the BMP (raw,
    Jackson writes surrogate escapes). Output that may hold either is written again with every
    string quoted as Jackson quotes it.
    """
    body: bytes = orjson.dumps(tree)
    if (92 in body and b"\\u00" in body) or (not body.isascii() and _ASTRAL.search(body) is not None):
        body = orjson.dumps(_jackson_strings(tree, _quote))
    return body


_ASTRAL: Final = re.compile(b"[\xf0-\xf4]")


def _jackson_strings(node: Any, quote: Callable[[str], str]) -> Any:
    if isinstance(node, str):
        return orjson.Fragment(quote(node))
    if isinstance(node, list):
        return [_jackson_strings(item, quote) for item in node]
    if isinstance(node, dict):
        members = [quote(key).encode() + b":" + orjson.dumps(_jackson_strings(value, quote))
                   for key, value in node.items()]
        return orjson.Fragment(b"{" + b",".join(members) + b"}")
    return node


def decode_text(payload: bytes | memoryview) -> Any:
    """The JSON tree of a payload, numbers with a fraction or exponent as ``decimal.Decimal`` (Jackson's
    ``USE_BIG_DECIMAL_FOR_FLOATS``, so a NUMERIC decimal keeps every digit)."""
    try:
        return json_loads_decimal(payload)
    except ValueError as exc:
        raise DataException(f"Invalid JSON payload: {exc}") from exc


def _decode_fast(payload: bytes | memoryview) -> Any:
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        raise DataException(f"Invalid JSON payload: {exc}") from exc


def decoder_for(schema: Schema) -> Callable[[bytes | memoryview], Any]:
    """:func:`decode_text` where ``schema`` holds BYTES (a NUMERIC decimal needs every digit), else
    orjson's faster parse: a double or an int reads the same either way."""
    return decode_text if _holds_bytes(schema) else _decode_fast


def _holds_bytes(schema: Schema | None) -> bool:
    if schema is None:
        return False
    kind = schema.type
    if kind is SchemaType.BYTES:
        return True
    if kind is SchemaType.STRUCT:
        return any(_holds_bytes(field.schema) for field in schema.fields)
    if kind is SchemaType.MAP:
        return _holds_bytes(schema.key_schema) or _holds_bytes(schema.value_schema)
    return kind is SchemaType.ARRAY and _holds_bytes(schema.value_schema)
