"""Kafka Connect's ``JsonConverter``, byte-compatible with the Java one (Jackson serialization).

The bytes themselves (what Jackson writes, and how the fast path proves it writes the same) are
:mod:`connect_runtime.api.java_json`'s; this module is the converter plugin: its settings, the
``schemas.enable`` envelope, and reading envelopes that carry a schema.
"""

from __future__ import annotations

import base64
import binascii
import decimal
import json
import math
import re
from collections.abc import Mapping
from typing import Any, Final

import orjson

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, ValidString, Width
from connect_runtime.api.converter import Converter, HeaderConverter, converter_config_def
from connect_runtime.api.data.logical_types import Date, Time, Timestamp
from connect_runtime.api.data.schema import Schema, SchemaType
from connect_runtime.api.data.schema_and_value import SchemaAndValue
from connect_runtime.api.data.schema_builder import SchemaBuilder
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.api.java_json import (
    fast_json_body,
    json_dumps_compact,
    json_loads,
    json_loads_decimal,
    to_float32,
)
from connect_runtime.converters.json_schema_encoding import LruCache, SchemaEncoder
from connect_runtime.version import runtime_version

__all__ = ["ENVELOPE_REQUIRED_MESSAGE", "JsonConverter"]

# Enough precision that scaling an unscaled Decimal value never rounds.
_EXACT_CONTEXT: Final = decimal.Context(prec=1200)

#: Java's message when ``schemas.enable=true`` meets data that is not a schema/payload envelope.
ENVELOPE_REQUIRED_MESSAGE: Final = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain '
    "additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false "
    "in your converter configuration."
)


def _parse_bool(configs: Mapping[str, Any], name: str, default: bool) -> bool:
    value = configs.get(name, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ConfigException(name, value, "Expected value to be either true or false")


class JsonConverter(Converter, HeaderConverter):
    """Kafka Connect's ``org.apache.kafka.connect.json.JsonConverter``.

    Settings (prefix stripped): ``schemas.enable`` (default true, like Java: values are wrapped in
    ``{"schema":...,"payload":...}``, the schema null for a schemaless value); ``decimal.format``
    (BASE64|NUMERIC), ``schemas.cache.size`` (schemas whose JSON form is kept) and
    ``replace.null.with.default`` apply to values with a schema (written, or read from an envelope
    that carries one) and have no effect on
    schemaless data; ``converter.type`` is accepted. ``from_connect_data`` turns None into None (a
    tombstone), as Java does for a null schema and value. ``to_connect_data`` returns plain Python
    values; an envelope that carries a schema (written by a Java producer with schemas) is
    converted following that schema: bytes are decoded from base64, structs become dicts, maps
    with non-string keys are rebuilt from their pair arrays, and the Decimal/Date/Time/Timestamp
    logical types become ``decimal.Decimal``, ``datetime.date``, ``datetime.time`` and
    ``datetime.datetime`` (UTC).
    """

    def __init__(self) -> None:
        self._schemas_enabled = True
        self._replace_null_with_default = True
        self._encoder = SchemaEncoder(1000, numeric_decimals=False, replace_null_with_default=True)
        self._read_schemas: LruCache[bytes, tuple[_Schema, Schema]] = LruCache(1000)

    def version(self) -> str:
        """The runtime's version, as Kafka's built-in converters report Kafka's."""
        return runtime_version()

    def config_def(self) -> ConfigDef:
        """Kafka's ``JsonConverterConfig`` keys, with its documentation."""
        return (
            converter_config_def()
            .define("schemas.enable", ConfigType.BOOLEAN, True, None, Importance.HIGH,
                    "Include schemas within each of the serialized values and keys.",
                    "Schemas", 0, Width.MEDIUM, "Enable Schemas")
            .define("schemas.cache.size", ConfigType.INT, 1000, None, Importance.HIGH,
                    "The maximum number of schemas that can be cached in this converter instance.", "Schemas", 1,
                    Width.MEDIUM, "Schema Cache Size")
            .define("decimal.format", ConfigType.STRING, "BASE64",
                    ValidString.one_of("BASE64", "NUMERIC", case_sensitive=False), Importance.LOW,
                    "Controls which format this converter will serialize decimals in. This value is case insensitive "
                    "and can be either 'BASE64' (default) or 'NUMERIC'",
                    "Serialization", 0, Width.MEDIUM, "Decimal Format")
            .define("replace.null.with.default", ConfigType.BOOLEAN, True, None, Importance.LOW,
                    "Whether to replace fields that have a default value and that are null to the default value. When "
                    "set to true, the default value is used, otherwise null is used.",
                    "Serialization", 1, Width.MEDIUM, "Replace null with default")
        )

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Read ``schemas.enable`` and validate ``decimal.format``; other settings are ignored."""
        self._schemas_enabled = _parse_bool(configs, "schemas.enable", True)
        decimal_format = configs.get("decimal.format", "BASE64")
        if not isinstance(decimal_format, str) or decimal_format.upper() not in ("BASE64", "NUMERIC"):
            raise ConfigException("decimal.format", decimal_format, "String must be one of: BASE64, NUMERIC")
        cache_size = configs.get("schemas.cache.size", 1000)
        try:
            cache_size = int(cache_size)
        except (TypeError, ValueError) as exc:
            raise ConfigException("schemas.cache.size", cache_size, "Not a number of type INT") from exc
        self._read_schemas = LruCache(cache_size)
        self._replace_null_with_default = _parse_bool(configs, "replace.null.with.default", True)
        self._encoder = SchemaEncoder(cache_size, numeric_decimals=decimal_format.upper() == "NUMERIC",
                                      replace_null_with_default=self._replace_null_with_default)

    def from_connect_data(self, topic: str, value: Any, *, schema: Schema | None = None) -> bytes | None:
        """Serialize ``value`` to JSON bytes; None without a schema stays None.

        With a ``schema``, ``value`` follows it (a ``Struct`` for STRUCT, ``decimal.Decimal`` for
        Decimal, ...) and ``schemas.enable=true`` writes ``{"schema":...,"payload":...}`` as Java does.
        """
        if schema is not None:
            if self._schemas_enabled:
                return self._encoder.envelope(schema, value)
            return self._encoder.payload(schema, value)
        if value is None:
            return None
        if type(value) is int:  # the commonest key: digits, as Java writes a long
            try:
                body = orjson.dumps(value)
            except TypeError:  # beyond 64 bits
                body = json_dumps_compact(value)
        elif (fast := fast_json_body(value)) is not None:
            body = fast
        else:
            body = json_dumps_compact(value)
        if self._schemas_enabled:
            return b'{"schema":null,"payload":' + body + b"}"
        return body

    def from_connect_header(self, topic: str, header_key: str, value: Any, *,
                            schema: Schema | None = None) -> bytes | None:
        """A header value is written as a record value is (Java's ``fromConnectHeader``)."""
        return self.from_connect_data(topic, value, schema=schema)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        """A header value is read as a record value is (Java's ``toConnectHeader``)."""
        return self.to_connect_data(topic, data)

    def to_connect_schema_and_value(self, topic: str, data: bytes | None) -> SchemaAndValue:
        """Java's ``toConnectData``: the envelope's schema as a :class:`Schema` with the value it types.

        A STRUCT payload becomes a :class:`Struct`; other values are as :meth:`to_connect_data` returns
        them. Without a schema (a null schema, or ``schemas.enable=false``) the schema is None. The
        schemas read are cached (``schemas.cache.size``), keyed by their JSON text.
        """
        if data is None:
            return SchemaAndValue(None, None)
        if not self._schemas_enabled:
            return SchemaAndValue(None, self.to_connect_data(topic, data))
        node = _parse(data)
        _check_envelope(node)
        if node["schema"] is None:
            return SchemaAndValue(None, _schemaless(node["payload"], data))
        try:
            node = json_loads_decimal(data)
            schema_key = _schema_key(node["schema"])
            parsed = self._read_schemas.get(schema_key)
            if parsed is None:
                plain_schema = _parse_schema(node["schema"], self._replace_null_with_default, structs=True)
                assert plain_schema is not None
                parsed = (plain_schema, _as_connect_schema(plain_schema))
                self._read_schemas.put(schema_key, parsed)
            plain_schema, schema = parsed
            return SchemaAndValue(schema, _to_connect(plain_schema, node["payload"], self._replace_null_with_default,
                                                      structs=True))
        except RecursionError as exc:
            raise _too_deep_to_read() from exc

    def to_connect_data(self, topic: str, data: bytes | None) -> Any:
        """Parse JSON bytes; with schemas enabled, unwrap (and apply) the envelope's schema."""
        if data is None:
            return None
        node = _parse(data)
        if not self._schemas_enabled:
            return _schemaless(node, data)
        _check_envelope(node)
        schema = node["schema"]
        if schema is None:
            return _schemaless(node["payload"], data)
        # Java parses floats as BigDecimal here (USE_BIG_DECIMAL_FOR_FLOATS): re-read exactly so
        # NUMERIC decimals keep every digit; float fields are turned back into floats below.
        try:
            node = json_loads_decimal(data)
            replace_null = self._replace_null_with_default
            return _to_connect(_parse_schema(node["schema"], replace_null), node["payload"], replace_null)
        except RecursionError as exc:
            raise _too_deep_to_read() from exc


def _schema_key(schema_node: Any) -> bytes:
    """The read-schema cache's key: the schema's JSON text (its Decimals as their text)."""
    try:
        return orjson.dumps(schema_node, default=str)
    except TypeError:  # an integer beyond 64 bits (a NUMERIC decimal default, say)
        return json.dumps(schema_node, default=str, separators=(",", ":")).encode()


def _too_deep_to_read() -> DataException:
    # Python's stack holds about 200 levels of schemas and values (docs/plugins.md); Jackson's limit is 1000
    return DataException("Converting byte[] to Kafka Connect data failed: schema or value nested too deeply")


def _parse(data: bytes) -> Any:
    try:
        return json_loads(data)
    except RecursionError as exc:
        raise _too_deep_to_read() from exc
    except ValueError as exc:
        raise DataException(
            # Java's message ends here too; what the parser said is the cause.
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ) from exc


def _check_envelope(node: Any) -> None:
    if not (isinstance(node, dict) and len(node) == 2 and "schema" in node and "payload" in node):
        raise DataException(ENVELOPE_REQUIRED_MESSAGE)


# --- reading envelopes that carry a schema ---------------------------------------------------

_DECIMAL_NAME: Final = "org.apache.kafka.connect.data.Decimal"
_DATE_NAME: Final = "org.apache.kafka.connect.data.Date"
_TIME_NAME: Final = "org.apache.kafka.connect.data.Time"
_TIMESTAMP_NAME: Final = "org.apache.kafka.connect.data.Timestamp"
_PRIMITIVE_TYPES: Final = ("boolean", "int8", "int16", "int32", "int64", "float", "double", "bytes", "string")
_TYPES: Final = frozenset((*_PRIMITIVE_TYPES, "array", "map", "struct"))


class _Schema:
    """The parts of a Connect schema (``JsonConverter.asConnectSchema``) conversion needs."""

    __slots__ = ("connect", "default", "doc", "fields", "items", "keys", "name", "optional", "parameters", "type",
                 "values", "version")

    def __init__(self, type_: str) -> None:
        self.type = type_
        self.optional = False
        self.name: str | None = None
        self.version: int | None = None
        self.doc: str | None = None
        self.parameters: dict[str, str] = {}
        self.default: Any = None
        self.items: _Schema | None = None
        self.keys: _Schema | None = None
        self.values: _Schema | None = None
        self.fields: list[tuple[str, _Schema]] = []
        self.connect: Schema | None = None  # the Schema built from this one, once built


def _node_type(value: Any) -> str:
    """Jackson's ``JsonNodeType`` name of a parsed JSON value (for error messages)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int | float | decimal.Decimal):
        return "NUMBER"
    if isinstance(value, str):
        return "STRING"
    if isinstance(value, list):
        return "ARRAY"
    return "OBJECT"


def _parse_schema(node: Any, replace_null: bool, structs: bool = False) -> _Schema | None:
    """Java's ``asConnectSchema`` checks and parts. A default is read as a payload is (a null in it takes
    its schema's default only with ``replace_null``); with ``structs`` it holds Structs (the
    schemas of what it holds built first), else dicts."""
    if node is None:
        return None
    type_node = node.get("type") if isinstance(node, dict) else None
    if not isinstance(type_node, str):
        raise DataException("Schema must contain 'type' field")
    if type_node not in _TYPES:
        raise DataException(f"Unknown schema type: {type_node}")
    schema = _Schema(type_node)
    if type_node == "array":
        items = node.get("items")
        if items is None:
            raise DataException("Array schema did not specify the element type")
        schema.items = _parse_schema(items, replace_null, structs)
    elif type_node == "map":
        if "keys" not in node:
            raise DataException("Map schema did not specify the key type")
        if "values" not in node:
            raise DataException("Map schema did not specify the value type")
        schema.keys = _parse_schema(node["keys"], replace_null, structs)
        schema.values = _parse_schema(node["values"], replace_null, structs)
    elif type_node == "struct":
        fields = node.get("fields")
        if not isinstance(fields, list):
            raise DataException('Struct schema\'s "fields" argument is not an array.')
        for field in fields:
            field_name = field.get("field") if isinstance(field, dict) else None
            if not isinstance(field_name, str):
                raise DataException("Struct schema's field name not specified properly")
            field_schema = _parse_schema(field, replace_null, structs)
            assert field_schema is not None
            schema.fields.append((field_name, field_schema))
    schema.optional = node.get("optional") is True
    name = node.get("name")
    if isinstance(name, str):
        schema.name = name
    version = node.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        schema.version = version
    doc = node.get("doc")
    if isinstance(doc, str):
        schema.doc = doc
    parameters = node.get("parameters")
    if isinstance(parameters, dict):
        for key, param in parameters.items():
            if not isinstance(param, str):
                raise DataException("Schema parameters must have string values.")
            schema.parameters[key] = param
    if node.get("default") is not None:
        if structs:
            _as_connect_schema(schema)  # the schema without its default, for the Structs the default may hold
        schema.default = _to_connect(schema, node["default"], replace_null, structs)
    return schema


def _wrap(number: int, bits: int) -> int:
    """Java's narrowing integer conversion (two's complement truncation)."""
    mask = (1 << bits) - 1
    number &= mask
    return number - (1 << bits) if number >> (bits - 1) else number


def _java_integral(value: Any, bits: int) -> int:
    # JsonNode.intValue()/longValue(): numbers are truncated, anything else is 0.
    if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return _wrap(int(value), bits)


def _java_floating(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | decimal.Decimal):
        return 0.0
    return float(value) + 0.0  # Java reads fractions as BigDecimals, which have no -0: -0.0 reads as 0.0


def _to_connect(schema: _Schema | None, value: Any, replace_null: bool = True, structs: bool = False) -> Any:
    """``JsonConverter.convertToConnect`` for a parsed payload (floats may be Decimals); a null takes
    its schema's default only when ``replace_null`` (``replace.null.with.default``). With ``structs``
    (the schema built, :func:`_as_connect_schema`) a struct becomes a :class:`Struct`, else a dict."""
    if schema is None:
        return _plain(value)
    if value is None:
        if schema.default is not None and replace_null:
            return schema.connect.default_value if structs and schema.connect is not None else schema.default
        if schema.optional:
            return None
        raise DataException(f"Invalid null value for required {schema.type.upper()} field")
    logical = schema.name
    if logical == _DECIMAL_NAME:
        return _to_decimal(schema, value)
    if logical == _DATE_NAME:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _logical_type_error("Date", "integer", value)
        return Date.to_logical(Date.SCHEMA, value)
    if logical == _TIME_NAME:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _logical_type_error("Time", "integer", value)
        return Time.to_logical(Time.SCHEMA, value)
    if logical == _TIMESTAMP_NAME:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _logical_type_error("Timestamp", "integral", value)
        return Timestamp.to_logical(Timestamp.SCHEMA, value)
    kind = schema.type
    if kind == "boolean":
        return value is True
    if kind == "int8":
        return _java_integral(value, 8)
    if kind == "int16":
        return _java_integral(value, 16)
    if kind == "int32":
        return _java_integral(value, 32)
    if kind == "int64":
        return _java_integral(value, 64)
    if kind == "float":
        return to_float32(_java_floating(value))
    if kind == "double":
        return _java_floating(value)
    if kind == "string":
        return value if isinstance(value, str) else None
    if kind == "bytes":
        if not isinstance(value, str):
            return None
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise DataException("Invalid bytes field") from exc
    if kind == "array":
        # Iterating a Jackson node: an array gives its elements, an object its values.
        if isinstance(value, dict):
            value = list(value.values())
        elements = value if isinstance(value, list) else []
        return [_to_connect(schema.items, element, replace_null, structs) for element in elements]
    if kind == "map":
        if schema.keys is not None and schema.keys.type != "string":
            if not isinstance(value, list):
                raise DataException(
                    "Maps with non-string fields should be encoded as JSON array of tuples, but found "
                    + _node_type(value)
                )
            result: dict[Any, Any] = {}
            for entry in value:
                if not isinstance(entry, list):
                    raise DataException(
                        "Found invalid map entry instead of array tuple: " + _node_type(entry)
                    )
                if len(entry) != 2:
                    raise DataException(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
                key = _to_connect(schema.keys, entry[0], replace_null, structs)
                try:
                    result[key] = _to_connect(schema.values, entry[1], replace_null, structs)
                except TypeError as exc:  # unhashable key (a list or dict)
                    raise DataException(f"Unhashable map key of type {type(key).__name__}") from exc
            return result
        if not isinstance(value, dict):
            raise DataException(
                "Maps with string fields should be encoded as JSON objects, but found " + _node_type(value)
            )
        return {key: _to_connect(schema.values, item, replace_null, structs) for key, item in value.items()}
    # struct
    if not isinstance(value, dict):
        raise DataException(f"Structs should be encoded as JSON objects, but found {_node_type(value)}")
    if structs and schema.connect is not None:
        # Java's Struct.put checks each value as it goes; a Struct is also what a map key can be.
        result_struct = Struct(schema.connect)
        for (name, field), connect_field in zip(schema.fields, schema.connect.fields, strict=True):
            result_struct.put(connect_field, _to_connect(field, value.get(name), replace_null, structs))
        return result_struct
    return {name: _to_connect(field, value.get(name), replace_null) for name, field in schema.fields}


def _to_decimal(schema: _Schema, value: Any) -> decimal.Decimal:
    if isinstance(value, int | decimal.Decimal) and not isinstance(value, bool):
        return decimal.Decimal(value)
    if isinstance(value, float):
        return decimal.Decimal(repr(value))
    if isinstance(value, str):
        scale_text = schema.parameters.get("scale")
        try:
            raw = base64.b64decode(value, validate=True)
            if scale_text is None:
                raise DataException("Invalid Decimal schema: scale parameter not found.")
            unscaled = int.from_bytes(raw, "big", signed=True)
            return decimal.Decimal(unscaled).scaleb(-int(scale_text), context=_EXACT_CONTEXT)
        except (binascii.Error, ValueError) as exc:
            raise DataException("Invalid bytes for Decimal field") from exc
    raise _logical_type_error("Decimal", "numeric or bytes", value)


def _logical_type_error(logical: str, expected: str, value: Any) -> DataException:
    return DataException(
        f"Invalid type for {logical}, underlying representation should be {expected} "
        f"but was {_node_type(value)}"
    )


# What a schemaless value may hold that Java reads otherwise: a negative zero, an integer beyond 64 bits.
_UNLIKE_JAVA: Final = re.compile(rb"-0[.eE]|\d{19}")


def _schemaless(node: Any, data: bytes) -> Any:
    """A schemaless value as Java reads it (:func:`_plain`), walked only when its bytes may need it."""
    return _plain(node) if _UNLIKE_JAVA.search(data) else node


def _plain(value: Any) -> Any:
    """A schemaless value as Java reads it: numbers with a fraction as doubles without -0 (through a
    BigDecimal), integers as longs (``JsonNode.longValue()`` keeps the low 64 bits)."""
    if isinstance(value, float):
        return value + 0.0
    if isinstance(value, decimal.Decimal):
        return float(value) + 0.0  # BigDecimal has no -0
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return _wrap(value, 64)  # JsonNode.longValue()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


_BUILDERS: Final = {
    "boolean": SchemaBuilder.bool, "int8": SchemaBuilder.int8, "int16": SchemaBuilder.int16,
    "int32": SchemaBuilder.int32, "int64": SchemaBuilder.int64, "float": SchemaBuilder.float32,
    "double": SchemaBuilder.float64, "bytes": SchemaBuilder.bytes, "string": SchemaBuilder.string,
}


def _as_connect_schema(parsed: _Schema) -> Schema:
    """Java's ``asConnectSchema``, from a schema already checked by :func:`_parse_schema`; each parsed
    schema keeps the one built from it (``connect``)."""
    built = _build_connect_schema(parsed)
    parsed.connect = built
    return built


def _build_connect_schema(parsed: _Schema) -> Schema:
    if parsed.type == "array":
        assert parsed.items is not None
        builder = SchemaBuilder.array(_as_connect_schema(parsed.items))
    elif parsed.type == "map":
        assert parsed.keys is not None and parsed.values is not None
        builder = SchemaBuilder.map(_as_connect_schema(parsed.keys), _as_connect_schema(parsed.values))
    elif parsed.type == "struct":
        builder = SchemaBuilder.struct()
        for field_name, field_schema in parsed.fields:
            builder.field(field_name, _as_connect_schema(field_schema))
    else:
        builder = _BUILDERS[parsed.type]()
    if parsed.optional:
        builder.optional()
    if parsed.name is not None:
        builder.name(parsed.name)
    if parsed.version is not None:
        builder.version(parsed.version)
    if parsed.doc is not None:
        builder.doc(parsed.doc)
    for key, param in parsed.parameters.items():
        builder.parameter(key, param)
    if parsed.default is not None:
        without_default = _as_connect_schema_without_default(parsed)
        builder.default_value(_as_connect_value(without_default, parsed.default))
    return builder.build()


def _as_connect_schema_without_default(parsed: _Schema) -> Schema:
    default, parsed.default = parsed.default, None
    try:
        return _as_connect_schema(parsed)
    finally:
        parsed.default = default


def _as_connect_value(schema: Schema, value: Any) -> Any:
    """A value :func:`_to_connect` returned, with structs (at any depth) as :class:`Struct`."""
    if value is None or isinstance(value, Struct):
        return value
    kind = schema.type
    if kind is SchemaType.STRUCT:
        struct = Struct(schema)
        for field in schema.fields:
            struct.put(field, _as_connect_value(field.schema, value.get(field.name)))
        return struct
    if kind is SchemaType.ARRAY and schema.value_schema is not None:
        return [_as_connect_value(schema.value_schema, item) for item in value]
    if kind is SchemaType.MAP and schema.key_schema is not None and schema.value_schema is not None:
        return {_as_connect_value(schema.key_schema, key): _as_connect_value(schema.value_schema, item)
                for key, item in value.items()}
    return value
