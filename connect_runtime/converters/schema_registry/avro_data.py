"""Connect data ⇄ Avro, by Confluent's ``AvroData`` rules, so a Python worker registers the schema text
a Java worker registers and reads what a Java worker wrote.

Schemas both ways (``from_connect_schema`` / ``to_connect_schema``) follow ``AvroData`` step by step,
including what only shows in the registered text: the order properties are added in, the numbering
of unnamed structs, the reuse of an equal schema as a name reference, which field defaults Avro
refuses. Values are not converted record by record through that walk: ``value_writer`` and
``value_reader`` compile, once per schema, a function from a Connect value to the datum fastavro
writes (and back), with the logical types done by Connect's own conversions as Java does them.
"""

from __future__ import annotations

import contextlib
import functools
import math
import struct
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance
from connect_runtime.api.data.logical_types import Date, Decimal, Time, Timestamp
from connect_runtime.api.data.schema import Schema, SchemaType
from connect_runtime.api.data.schema_builder import SchemaBuilder
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import DataException
from connect_runtime.converters.json_schema_encoding import LruCache
from connect_runtime.converters.schema_registry.avro_schema import (
    BRANCH_FIELD,
    NO_DEFAULT,
    AvroField,
    AvroSchema,
    Float32,
    is_valid_default,
    json_text,
    primitive,
    union_branch_name,
    union_of,
    validate_name,
)
from connect_runtime.converters.schema_registry.format import parse_data_settings

NAMESPACE: Final = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME: Final = "ConnectDefault"
DEFAULT_SCHEMA_FULL_NAME: Final = f"{NAMESPACE}.{DEFAULT_SCHEMA_NAME}"
MAP_ENTRY_TYPE_NAME: Final = "MapEntry"
KEY_FIELD: Final = "key"
VALUE_FIELD: Final = "value"

CONNECT_NAME_PROP: Final = "connect.name"
CONNECT_DOC_PROP: Final = "connect.doc"
CONNECT_VERSION_PROP: Final = "connect.version"
CONNECT_DEFAULT_VALUE_PROP: Final = "connect.default"
CONNECT_PARAMETERS_PROP: Final = "connect.parameters"
CONNECT_INTERNAL_TYPE_NAME: Final = "connect.internal.type"
CONNECT_TYPE_PROP: Final = "connect.type"
AVRO_RECORD_DOC_PROP: Final = f"{NAMESPACE}.record.doc"
AVRO_ENUM_DOC_PREFIX_PROP: Final = f"{NAMESPACE}.enum.doc."
AVRO_FIELD_DOC_PREFIX_PROP: Final = f"{NAMESPACE}.field.doc."
AVRO_FIELD_DEFAULT_FLAG_PROP: Final = f"{NAMESPACE}.field.default"
AVRO_ENUM_DEFAULT_PREFIX_PROP: Final = f"{NAMESPACE}.enum.default."
AVRO_TYPE_UNION: Final = f"{NAMESPACE}.Union"
AVRO_TYPE_ENUM: Final = f"{NAMESPACE}.Enum"
# Avro's own keys (the spec's), and the prefix of Avro properties AvroData copies to parameters
AVRO_LOGICAL_TYPE_PROP, AVRO_LOGICAL_DECIMAL_SCALE_PROP, AVRO_LOGICAL_DECIMAL_PRECISION_PROP = (
    "logicalType", "scale", "precision")
AVRO_LOGICAL_DECIMAL, AVRO_PROP = "decimal", "avro"
CONNECT_AVRO_DECIMAL_PRECISION_PROP: Final = "connect.decimal.precision"
CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT: Final = 64
CONNECT_AVRO_FIXED_SIZE_PROP: Final = "connect.fixed.size"

_LOGICAL_BY_NAME: Final[Mapping[str, str]] = {
    Date.LOGICAL_NAME: "date",
    Time.LOGICAL_NAME: "time-millis",
    Timestamp.LOGICAL_NAME: "timestamp-millis",
}
_TEMPORAL: Final[Mapping[str, type[Date] | type[Time] | type[Timestamp]]] = {
    Date.LOGICAL_NAME: Date, Time.LOGICAL_NAME: Time, Timestamp.LOGICAL_NAME: Timestamp,
}
_AVRO_PRIMITIVE: Final[Mapping[SchemaType, str]] = {
    SchemaType.INT8: "int", SchemaType.INT16: "int", SchemaType.INT32: "int", SchemaType.INT64: "long",
    SchemaType.FLOAT32: "float", SchemaType.FLOAT64: "double", SchemaType.BOOLEAN: "boolean",
    SchemaType.STRING: "string", SchemaType.BYTES: "bytes",
}
# unionMemberFieldName's Avro type names of Connect types
_UNION_MEMBER_NAME: Final[Mapping[SchemaType, str]] = {
    **_AVRO_PRIMITIVE, SchemaType.ARRAY: "array", SchemaType.MAP: "map",
}
_NULL_VALUE_MESSAGE: Final = "Found null value for non-optional schema"


# -------------------------------------------------------------------------------------------------
# Configuration (Confluent's AvroDataConfig and AbstractDataConfig)

ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG: Final = "enhanced.avro.schema.support"
SCRUB_INVALID_NAMES_CONFIG: Final = "scrub.invalid.names"
CONNECT_META_DATA_CONFIG: Final = "connect.meta.data"
ALLOW_OPTIONAL_MAP_KEYS_CONFIG: Final = "allow.optional.map.keys"
FLATTEN_SINGLETON_UNIONS_CONFIG: Final = "flatten.singleton.unions"
DISCARD_TYPE_DOC_DEFAULT_CONFIG: Final = "discard.type.doc.default"
GENERALIZED_SUM_TYPE_SUPPORT_CONFIG: Final = "generalized.sum.type.support"
IGNORE_DEFAULT_FOR_NULLABLES_CONFIG: Final = "ignore.default.for.nullables"
SCHEMAS_CACHE_SIZE_CONFIG: Final = "schemas.cache.config"

# Settings whose non-default value this implementation does not honour: refused, never ignored.
_UNSUPPORTED: Final[Mapping[str, str]] = {
    DISCARD_TYPE_DOC_DEFAULT_CONFIG: "the deprecated doc and default handling is not supported; "
                                     "leave it false",
    GENERALIZED_SUM_TYPE_SUPPORT_CONFIG: "generalized sum types (connect_union_N) are not supported; "
                                         "leave it false",
}


# (key, default, importance, documentation) of each data setting, in Java's order and words
_DATA_SETTINGS: Final[tuple[tuple[str, bool | int, Importance, str], ...]] = (
    (GENERALIZED_SUM_TYPE_SUPPORT_CONFIG, False, Importance.MEDIUM,
     "Toggle for enabling/disabling generalized sum type support: interoperability of enum/union with "
     "other schema formats. Only false is supported."),
    (IGNORE_DEFAULT_FOR_NULLABLES_CONFIG, False, Importance.MEDIUM,
     "Whether to ignore the default for nullable fields when the value is null"),
    (SCHEMAS_CACHE_SIZE_CONFIG, 1000, Importance.LOW, "Size of the converted schemas cache"),
    (ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG, False, Importance.MEDIUM,
     "Toggle for enabling/disabling enhanced avro schema support: Enum symbol preservation and Package "
     "Name awareness"),
    (SCRUB_INVALID_NAMES_CONFIG, False, Importance.MEDIUM,
     "Whether to scrub invalid names by replacing invalid characters with valid ones"),
    (CONNECT_META_DATA_CONFIG, True, Importance.LOW,
     "Toggle for enabling/disabling connect converter to add its meta data to the output schema or not"),
    (DISCARD_TYPE_DOC_DEFAULT_CONFIG, False, Importance.LOW,
     "Only Avro field doc and default will be retained during conversion of Avro and Connect schema. "
     "Deprecated; only false is supported."),
    (ALLOW_OPTIONAL_MAP_KEYS_CONFIG, False, Importance.LOW,
     "Allow optional string map key when converting from Connect Schema to Avro Schema."),
    (FLATTEN_SINGLETON_UNIONS_CONFIG, True, Importance.LOW, "Whether to flatten singleton unions"),
)


def avro_data_config_def() -> ConfigDef:
    """The data settings of Confluent's ``AvroDataConfig``, with its defaults and documentation."""
    definition = ConfigDef()
    for key, default, importance, documentation in _DATA_SETTINGS:
        kind = ConfigType.BOOLEAN if isinstance(default, bool) else ConfigType.INT
        definition.define(key, kind, default, None, importance, documentation)
    return definition


@dataclass(frozen=True, slots=True)
class AvroDataConfig:
    """The parsed data settings (defaults as Confluent's)."""

    connect_meta_data: bool = True
    enhanced_avro_schema_support: bool = False
    scrub_invalid_names: bool = False
    allow_optional_map_keys: bool = False
    flatten_singleton_unions: bool = True
    ignore_default_for_nullables: bool = False
    schemas_cache_size: int = 1000

    @staticmethod
    def from_configs(configs: Mapping[str, Any]) -> AvroDataConfig:
        """Parse the data keys of a converter's config (other keys are ignored); a setting this
        implementation does not honour raises ``ConfigException`` naming it."""
        values = parse_data_settings(avro_data_config_def(), configs, _UNSUPPORTED)
        return AvroDataConfig(
            connect_meta_data=values[CONNECT_META_DATA_CONFIG],
            enhanced_avro_schema_support=values[ENHANCED_AVRO_SCHEMA_SUPPORT_CONFIG],
            scrub_invalid_names=values[SCRUB_INVALID_NAMES_CONFIG],
            allow_optional_map_keys=values[ALLOW_OPTIONAL_MAP_KEYS_CONFIG],
            flatten_singleton_unions=values[FLATTEN_SINGLETON_UNIONS_CONFIG],
            ignore_default_for_nullables=values[IGNORE_DEFAULT_FOR_NULLABLES_CONFIG],
            schemas_cache_size=max(1, values[SCHEMAS_CACHE_SIZE_CONFIG]),
        )


# -------------------------------------------------------------------------------------------------
# Names


def scrub_name(name: str) -> str:
    """``AvroData.doScrubName``: a name Avro accepts (URL-encoded, then every character outside
    ``[A-Za-z0-9_]`` replaced by ``_``, with an ``x`` before a leading digit)."""
    if not name:
        return name
    if all(c.isascii() and (c.isalnum() or c == "_") for c in name) and not name[0].isdigit():
        return name
    # Java's URLEncoder leaves [A-Za-z0-9.*_-] and turns a space into "+"
    encoded = urllib.parse.quote_plus(name, safe="*").replace("~", "%7E")
    if encoded[0].isdigit():
        encoded = "x" + encoded
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in encoded)


def _split_name(full_name: str | None, scrub: bool) -> tuple[str | None, str | None]:
    if not full_name:
        return None, full_name
    parts = full_name.split(".")
    if scrub:
        parts = [scrub_name(p) for p in parts]
    # Java's String.split drops trailing empty strings
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if len(parts) <= 1:
        return None, parts[0]
    return ".".join(parts[:-1]), parts[-1]


def _is_union_schema(schema: Schema) -> bool:
    return schema.name == AVRO_TYPE_UNION


def _is_enum_schema(schema: Schema) -> bool:
    return (schema.type is SchemaType.STRING and schema.parameters is not None
            and AVRO_TYPE_ENUM in schema.parameters)


def _is_fixed_schema(schema: Schema) -> bool:
    return (schema.type is SchemaType.BYTES and schema.name is not None
            and schema.parameters is not None and CONNECT_AVRO_FIXED_SIZE_PROP in schema.parameters)


def _non_optional(schema: Schema) -> Schema:
    return Schema(
        schema.type, optional=False, default_value=schema.default_value, name=schema.name,
        version=schema.version, doc=schema.doc, parameters=schema.parameters,
        fields=schema.fields if schema.type is SchemaType.STRUCT else None,
        key_schema=schema.key_schema if schema.type is SchemaType.MAP else None,
        value_schema=schema.value_schema if schema.type in (SchemaType.MAP, SchemaType.ARRAY) else None,
    )


def _parse_int(text: str | None, what: str) -> int:
    try:
        return int(text)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise DataException(f"Invalid {what}: {text}") from e


class _FromConnectContext:
    __slots__ = ("cycle_references", "name_index", "schema_map", "seen_named_types")

    def __init__(self) -> None:
        # equal required Connect schemas share one Avro node, printed the second time by name
        self.schema_map: dict[Schema, AvroSchema] = {}
        self.cycle_references: dict[str, AvroSchema] = {}
        self.seen_named_types: set[str] = set()
        self.name_index = 0


class AvroData:
    """Confluent's ``AvroData``: Connect schemas and values to Avro and back, with caches."""

    def __init__(self, config: AvroDataConfig | None = None) -> None:
        self.config = config or AvroDataConfig()
        # Java's bounded caches of converted schemas (schemas.cache.config entries each)
        self._from_connect_cache: LruCache[Schema, AvroSchema] = LruCache(self.config.schemas_cache_size)
        self._to_connect_cache: LruCache[tuple[str, int | None], Schema] = LruCache(self.config.schemas_cache_size)

    # ---------------------------------------------------------------------------------------------
    # Connect schema -> Avro schema

    def from_connect_schema(self, schema: Schema) -> AvroSchema:
        """The Avro schema ``AvroData.fromConnectSchema`` makes (print it with ``.text()``)."""
        cached = self._from_connect_cache.get(schema)
        if cached is None:
            cached = self._from_connect(schema, _FromConnectContext(), ignore_optional=False)
            self._from_connect_cache.put(schema, cached)
        return cached

    def _from_connect(self, schema: Schema, ctx: _FromConnectContext, ignore_optional: bool) -> AvroSchema:
        if not _is_union_schema(schema) and not schema.is_optional:
            cached = ctx.schema_map.get(schema)
            if cached is not None:
                return cached
        connect_type: str | None = None
        kind = schema.type
        base: AvroSchema
        if kind is SchemaType.INT8 or kind is SchemaType.INT16:
            connect_type = "int8" if kind is SchemaType.INT8 else "int16"
            base = primitive("int")
        elif kind is SchemaType.STRING and self.config.enhanced_avro_schema_support and _is_enum_schema(schema):
            base = self._enum_from_connect(schema, ctx)
        elif kind is SchemaType.BYTES:
            base = self._bytes_from_connect(schema, ctx)
        elif kind in _AVRO_PRIMITIVE:
            base = primitive(_AVRO_PRIMITIVE[kind])
        elif kind is SchemaType.ARRAY:
            assert schema.value_schema is not None
            base = AvroSchema("array", items=self._from_connect_with_cycle(schema.value_schema, ctx, False))
        elif kind is SchemaType.MAP:
            base = self._map_from_connect(schema, ctx)
        elif _is_union_schema(schema):
            members = [primitive("null")] if schema.is_optional else []
            members += [self._from_connect_with_cycle(_non_optional(f.schema), ctx, True) for f in schema.fields]
            base = union_of(members)
        elif schema.is_optional:
            base = union_of([
                primitive("null"), self._from_connect_with_cycle(_non_optional(schema), ctx, False)])
        else:
            base = self._record_from_connect(schema, ctx)

        final = base
        if base.type != "union":
            self._add_props(schema, base, connect_type)
            if not ignore_optional:
                final = _maybe_make_optional(schema, base)
        if not schema.is_optional:
            ctx.schema_map[schema] = final
        return final

    def _from_connect_with_cycle(self, schema: Schema, ctx: _FromConnectContext, ignore_optional: bool) -> AvroSchema:
        resolved = ctx.cycle_references.get(schema.name) if schema.name is not None else None
        if resolved is None:
            return self._from_connect(schema, ctx, ignore_optional)
        return resolved if ignore_optional else _maybe_make_optional(schema, resolved)

    def _name_or_default(self, ctx: _FromConnectContext, name: str | None) -> tuple[str | None, str]:
        if name is not None:
            namespace, short = _split_name(name, self.config.scrub_invalid_names)
            return namespace, short or ""
        ctx.name_index += 1
        return NAMESPACE, DEFAULT_SCHEMA_NAME + (str(ctx.name_index) if ctx.name_index > 1 else "")

    def _enum_from_connect(self, schema: Schema, ctx: _FromConnectContext) -> AvroSchema:
        params = schema.parameters or {}
        prefix = AVRO_TYPE_ENUM + "."
        symbols = [key[len(prefix):] for key in params if key.startswith(prefix)]
        _, name = self._name_or_default(ctx, schema.name)
        enum_namespace, enum_name = _split_name(params[AVRO_TYPE_ENUM], False)
        validate_name(enum_name or "")
        for symbol in symbols:
            validate_name(symbol)
        return AvroSchema("enum", name=enum_name, namespace=enum_namespace,
                          doc=params.get(AVRO_ENUM_DOC_PREFIX_PROP + name), symbols=symbols,
                          enum_default=params.get(AVRO_ENUM_DEFAULT_PREFIX_PROP + name))

    def _bytes_from_connect(self, schema: Schema, ctx: _FromConnectContext) -> AvroSchema:
        params = schema.parameters or {}
        if _is_fixed_schema(schema):
            namespace, name = self._name_or_default(ctx, schema.name)
            base = AvroSchema("fixed", name=validate_name(name), namespace=namespace,
                              size=_parse_int(params[CONNECT_AVRO_FIXED_SIZE_PROP], "fixed size"))
        else:
            base = primitive("bytes")
        if schema.name is not None and schema.name.lower() == Decimal.LOGICAL_NAME.lower():
            base.props[AVRO_LOGICAL_DECIMAL_SCALE_PROP] = _parse_int(params.get(Decimal.SCALE_FIELD), "scale")
            precision = params.get(CONNECT_AVRO_DECIMAL_PRECISION_PROP)
            base.props[AVRO_LOGICAL_DECIMAL_PRECISION_PROP] = (
                CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT if precision is None else _parse_int(precision, "precision"))
        return base

    def _map_from_connect(self, schema: Schema, ctx: _FromConnectContext) -> AvroSchema:
        key_schema, value_schema = schema.key_schema, schema.value_schema
        assert key_schema is not None and value_schema is not None
        if key_schema.type is SchemaType.STRING and (not key_schema.is_optional or self.config.allow_optional_map_keys):
            return AvroSchema("map", values=self._from_connect_with_cycle(value_schema, ctx, False))
        if schema.name is None:
            entry = AvroSchema("record", name=MAP_ENTRY_TYPE_NAME, namespace=NAMESPACE)
        else:
            namespace, name = self._name_or_default(ctx, schema.name)
            entry = AvroSchema("record", name=validate_name(name), namespace=namespace)
            entry.props[CONNECT_INTERNAL_TYPE_NAME] = MAP_ENTRY_TYPE_NAME
        entry.fields.append(self._record_field(KEY_FIELD, key_schema, None, ctx))
        entry.fields.append(self._record_field(VALUE_FIELD, value_schema, None, ctx))
        return AvroSchema("array", items=entry)

    def _record_from_connect(self, schema: Schema, ctx: _FromConnectContext) -> AvroSchema:
        namespace, name = self._name_or_default(ctx, schema.name)
        params = schema.parameters or {}
        record = AvroSchema("record", name=validate_name(name), namespace=namespace,
                            doc=params.get(AVRO_RECORD_DOC_PROP))
        if schema.name is not None:
            ctx.cycle_references[schema.name] = record
        scrub = self.config.scrub_invalid_names
        for f in schema.fields:
            doc = params.get(AVRO_FIELD_DOC_PREFIX_PROP + f.name)
            record.fields.append(self._record_field(scrub_name(f.name) if scrub else f.name, f.schema, doc, ctx))
        return record

    def _record_field(self, name: str, schema: Schema, doc: str | None, ctx: _FromConnectContext) -> AvroField:
        default: Any = NO_DEFAULT
        if schema.default_value is not None:
            default = self._default_from_connect(schema, schema.default_value)
        elif schema.is_optional:
            default = None
        scrubbed = schema.name
        if scrubbed is not None and self.config.scrub_invalid_names:
            namespace, short = _split_name(scrubbed, True)
            scrubbed = short if namespace is None else f"{namespace}.{short}"
        already_seen = scrubbed is not None and scrubbed in ctx.seen_named_types
        if scrubbed is not None:
            ctx.seen_named_types.add(scrubbed)
        avro = self._from_connect(schema, ctx, False)
        if default is not NO_DEFAULT and not is_valid_default(avro, default):
            default = NO_DEFAULT  # Avro refuses it; Java writes the field without a default
        field = AvroField(validate_name(name), avro, doc=doc, default=default)
        if (self.config.connect_meta_data and already_seen and schema.parameters
                and _is_named_avro_type(avro)):
            params = _parameters_from_connect(schema.parameters)
            if params:
                field.props[CONNECT_PARAMETERS_PROP] = params
        return field

    def _add_props(self, schema: Schema, base: AvroSchema, connect_type: str | None) -> None:
        props = base.props
        params = schema.parameters
        if self.config.connect_meta_data:
            if schema.doc is not None:
                props[CONNECT_DOC_PROP] = schema.doc
            if schema.version is not None:
                props[CONNECT_VERSION_PROP] = schema.version
            if params is not None:
                json_params = _parameters_from_connect(params)
                if json_params:
                    props[CONNECT_PARAMETERS_PROP] = json_params
            if schema.default_value is not None and (params is None or AVRO_FIELD_DEFAULT_FLAG_PROP not in params):
                props[CONNECT_DEFAULT_VALUE_PROP] = self._default_from_connect(schema, schema.default_value)
            if schema.name is not None:
                props[CONNECT_NAME_PROP] = schema.name
            if connect_type is not None:
                props[CONNECT_TYPE_PROP] = connect_type
        name = schema.name.lower() if schema.name is not None else None
        if name == Decimal.LOGICAL_NAME.lower():
            precision, scale = props[AVRO_LOGICAL_DECIMAL_PRECISION_PROP], props[AVRO_LOGICAL_DECIMAL_SCALE_PROP]
            # a negative scale or one above the precision takes Java's legacy path (the same prop,
            # unchecked); otherwise Avro's decimal type checks the precision
            if 0 <= scale <= precision:
                _check_decimal_precision(precision, base)
            props[AVRO_LOGICAL_TYPE_PROP] = AVRO_LOGICAL_DECIMAL
        else:
            for logical_name, logical_type in _LOGICAL_BY_NAME.items():
                if name == logical_name.lower():
                    props[AVRO_LOGICAL_TYPE_PROP] = logical_type
        if params is not None:
            for key, value in params.items():
                if key.startswith(AVRO_PROP):
                    props[key] = value

    def _default_from_connect(self, schema: Schema, value: Any) -> Any:
        """``defaultValueFromConnect``: a Connect default as the JSON value Avro stores."""
        if value is None:
            return None
        try:
            return self._default_json(schema, value)
        except (AttributeError, TypeError, ValueError) as e:
            raise DataException(
                f"Invalid type used for default value of {schema.type} field: {type(schema.default_value)}") from e

    def _default_json(self, schema: Schema, value: Any) -> Any:
        value = _to_avro_logical(schema, value)
        kind = schema.type
        if kind is SchemaType.FLOAT32:
            return Float32(value)
        if kind is SchemaType.FLOAT64:
            return float(value)
        if kind is SchemaType.BYTES:
            return bytes(value).decode("latin-1")
        if kind is SchemaType.ARRAY:
            assert schema.value_schema is not None
            return [self._default_from_connect(schema.value_schema, v) for v in value]
        if kind is SchemaType.MAP:
            key_schema, value_schema = schema.key_schema, schema.value_schema
            assert key_schema is not None and value_schema is not None
            if key_schema.type is SchemaType.STRING and (
                    not key_schema.is_optional or self.config.allow_optional_map_keys):
                if None in value:
                    # Java fails on it (a JSON object has no null key); so must this, not write "None"
                    raise DataException("A map default with a null key (allow.optional.map.keys) has no Avro form")
                return {k: self._default_from_connect(value_schema, v) for k, v in value.items()}
            return [[self._default_from_connect(key_schema, k), self._default_from_connect(value_schema, v)]
                    for k, v in value.items()]
        if kind is SchemaType.STRUCT:
            node: dict[str, Any] = {}
            for f in schema.fields:
                field_default = self._default_from_connect(f.schema, value.get(f))
                if _is_union_schema(schema):
                    return field_default
                node[scrub_name(f.name) if self.config.scrub_invalid_names else f.name] = field_default
            return node
        return value

    # ---------------------------------------------------------------------------------------------
    # Avro schema -> Connect schema

    def to_connect_schema(self, avro: AvroSchema, version: int | None = None) -> Schema:
        """``AvroData.toConnectSchema``: the Connect schema of an Avro schema; ``version`` (the
        registry's) is the schema's version when the Avro schema names none (``connect.version``)."""
        key = (avro.text(), version)
        cached = self._to_connect_cache.get(key)
        if cached is None:
            cached = self._to_connect(avro, False, NO_DEFAULT, version, set())
            self._to_connect_cache.put(key, cached)
        return cached

    def _to_connect(self, avro: AvroSchema, force_optional: bool, field_default: Any, version: int | None,
                    in_progress: set[int]) -> Schema:
        meta = self.config.connect_meta_data
        type_prop = avro.prop(CONNECT_TYPE_PROP)
        logical = avro.prop(AVRO_LOGICAL_TYPE_PROP)
        logical = logical.lower() if isinstance(logical, str) else None
        kind = avro.type
        builder: SchemaBuilder
        if kind == "boolean":
            builder = SchemaBuilder.bool()
        elif kind in ("bytes", "fixed"):
            if logical == AVRO_LOGICAL_DECIMAL:
                scale = avro.prop(AVRO_LOGICAL_DECIMAL_SCALE_PROP)
                builder = Decimal.builder(scale if isinstance(scale, int) and not isinstance(scale, bool) else 0)
                precision = avro.prop(AVRO_LOGICAL_DECIMAL_PRECISION_PROP)
                if precision is not None:
                    if not isinstance(precision, int | float) or isinstance(precision, bool):
                        raise DataException(
                            "precision property must be a JSON Integer. "
                            "https://avro.apache.org/docs/1.9.1/spec.html#Decimal")
                    if int(precision) != CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT:
                        builder.parameter(CONNECT_AVRO_DECIMAL_PRECISION_PROP, str(int(precision)))
            else:
                builder = SchemaBuilder.bytes()
            if kind == "fixed":
                builder.parameter(CONNECT_AVRO_FIXED_SIZE_PROP, str(avro.size))
        elif kind == "double":
            builder = SchemaBuilder.float64()
        elif kind == "float":
            builder = SchemaBuilder.float32()
        elif kind == "int":
            if type_prop is None and logical is None:
                builder = SchemaBuilder.int32()
            elif logical is not None:
                builder = (Date.builder() if logical == "date" else Time.builder() if logical == "time-millis"
                           else SchemaBuilder.int32())
            elif type_prop == "int8":
                builder = SchemaBuilder.int8()
            elif type_prop == "int16":
                builder = SchemaBuilder.int16()
            else:
                raise DataException("Connect type annotation for Avro int field is null")
        elif kind == "long":
            builder = Timestamp.builder() if logical == "timestamp-millis" else SchemaBuilder.int64()
        elif kind == "string":
            builder = SchemaBuilder.string()
        elif kind == "array":
            assert avro.items is not None
            element = avro.items
            if _is_map_entry(element):
                key_field, value_field = element.field(KEY_FIELD), element.field(VALUE_FIELD)
                if len(element.fields) != 2 or key_field is None or value_field is None:
                    raise DataException("Found map encoded as array of key-value pairs, but array "
                                        "elements do not match the expected format.")
                builder = SchemaBuilder.map(self._to_connect(key_field.schema, False, NO_DEFAULT, None, in_progress),
                                            self._to_connect(value_field.schema, False, NO_DEFAULT, None, in_progress))
            else:
                builder = SchemaBuilder.array(self._to_connect(element, False, NO_DEFAULT, None, in_progress))
        elif kind == "map":
            assert avro.values is not None
            builder = SchemaBuilder.map(Schema.STRING_SCHEMA,
                                        self._to_connect(avro.values, False, NO_DEFAULT, None, in_progress))
        elif kind == "record":
            builder = self._struct_to_connect(avro, in_progress)
        elif kind == "enum":
            builder = SchemaBuilder.string()
            if meta:
                if avro.doc is not None:
                    builder.parameter(AVRO_ENUM_DOC_PREFIX_PROP + (avro.name or ""), avro.doc)
                if avro.enum_default is not None:
                    builder.parameter(AVRO_ENUM_DEFAULT_PREFIX_PROP + (avro.name or ""), avro.enum_default)
            builder.parameter(AVRO_TYPE_ENUM, avro.full_name or "")
            for symbol in avro.symbols:
                builder.parameter(f"{AVRO_TYPE_ENUM}.{symbol}", symbol)
        elif kind == "union":
            return self._union_to_connect(avro, force_optional, field_default, in_progress)
        elif kind == "null":
            raise DataException("Standalone null schemas are not supported by this converter")
        else:
            raise DataException(f"Couldn't translate unsupported schema type {kind}.")

        doc = avro.prop(CONNECT_DOC_PROP)
        if meta and doc is not None:
            builder.doc(doc)
        version_prop = avro.prop(CONNECT_VERSION_PROP)
        found_version = -1
        if version_prop is not None:
            if not isinstance(version_prop, int | float) or isinstance(version_prop, bool):
                raise DataException(f"Invalid Connect version found: {version_prop}")
            found_version = int(version_prop)
        elif version is not None:
            found_version = version
        if found_version >= 0:
            if builder._version is not None and builder._version != found_version:
                raise DataException(
                    "Mismatched versions: version already added to SchemaBuilder "
                    f"({builder._version}) differs from version in source schema ({found_version})")
            builder.version(found_version)
        parameters = avro.prop(CONNECT_PARAMETERS_PROP)
        if meta and parameters is not None:
            if not isinstance(parameters, dict):
                raise DataException(f"Expected JSON object for schema parameters but found: {parameters}")
            for key, value in parameters.items():
                if not isinstance(value, str):
                    raise DataException(f"Expected schema parameter values to be strings but found: {value}")
                builder.parameter(key, value)
        for key, value in avro.props.items():
            if key.startswith(AVRO_PROP):
                builder.parameter(key, value if isinstance(value, str) else _json_to_string(value))
        connect_default = avro.prop(CONNECT_DEFAULT_VALUE_PROP)
        self._apply_default(builder, avro, field_default, connect_default)
        if field_default is not NO_DEFAULT and meta and connect_default is None:
            builder.parameter(AVRO_FIELD_DEFAULT_FLAG_PROP, "true")
        name = avro.prop(CONNECT_NAME_PROP)
        if name is not None:
            if not isinstance(name, str):
                raise DataException(f"Invalid schema name: {name}")
        elif kind in ("record", "enum") or (kind == "fixed" and builder._name != Decimal.LOGICAL_NAME):
            name = avro.full_name
        if name is not None and not name.startswith(DEFAULT_SCHEMA_FULL_NAME):
            if builder._name is not None and builder._name != name:
                raise DataException(
                    f"Mismatched names: name already added to SchemaBuilder ({builder._name}) differs "
                    f"from name in source schema ({name})")
            builder.name(name)
        if force_optional:
            builder.optional()
        return builder.build()

    def _struct_to_connect(self, avro: AvroSchema, in_progress: set[int]) -> SchemaBuilder:
        if id(avro) in in_progress:
            raise DataException(f"Recursive Avro schemas are not supported: {avro.full_name}")
        in_progress.add(id(avro))
        builder = SchemaBuilder.struct()
        meta = self.config.connect_meta_data
        if meta and avro.doc is not None:
            builder.parameter(AVRO_RECORD_DOC_PROP, avro.doc)
        for f in avro.fields:
            if meta and f.doc is not None:
                builder.parameter(AVRO_FIELD_DOC_PREFIX_PROP + f.name, f.doc)
            field_schema = self._to_connect(f.schema, False, f.default, None, in_progress)
            field_params = f.props.get(CONNECT_PARAMETERS_PROP)
            if meta and isinstance(field_params, dict):
                field_schema = _apply_field_level_params(field_schema, field_params)
            builder.field(f.name, field_schema)
        in_progress.discard(id(avro))
        return builder

    def _union_to_connect(self, avro: AvroSchema, force_optional: bool, field_default: Any,
                          in_progress: set[int]) -> Schema:
        members = avro.types
        if len(members) == 1 and self.config.flatten_singleton_unions:
            return self._to_connect(members[0], False, NO_DEFAULT, None, in_progress)
        if len(members) == 2 and any(m.type == "null" and not m.props for m in members):
            for member in members:
                if not (member.type == "null" and not member.props):
                    return self._to_connect(member, True, NO_DEFAULT, None, in_progress)
        builder = SchemaBuilder.struct().name(AVRO_TYPE_UNION)
        names: set[str] = set()
        for member in members:
            if member.type == "null":
                builder.optional()
                continue
            field_name = self._union_member_name(member)
            if field_name in names:
                raise DataException("Multiple union schemas map to the Connect union field name")
            names.add(field_name)
            builder.field(field_name, self._to_connect(member, True, NO_DEFAULT, None, in_progress))
        if force_optional:
            builder.optional()
        # a union has no properties, so only a field's own default can apply (an optional's
        # member above gets none: Java passes it none)
        self._apply_default(builder, avro, field_default, None)
        return builder.build()

    def _apply_default(self, builder: SchemaBuilder, avro: AvroSchema, field_default: Any,
                       connect_default: Any) -> None:
        """Java's default of a converted schema: the field's Avro default, as Avro hands it over
        (``Field.defaultVal()``: Java objects, through ``toConnectData``), else ``connect.default``
        (JSON, through ``defaultValueFromAvro``); one that fails to convert is ignored (Java logs
        a warning)."""
        converted: Any = None
        with contextlib.suppress(DataException):
            if field_default is not NO_DEFAULT:
                try:
                    java_object = _java_object(field_default, avro)
                except _NoJavaDefault:  # Java's defaultVal() failed: it falls back to connect.default
                    java_object = None
                if java_object is not None:
                    converted = self._object_to_connect(builder.build(), java_object)
                    builder.default_value(converted)
                    return
            if connect_default is not None:
                converted = self._default_from_avro(builder.build(), avro, connect_default)
            if converted is not None:
                builder.default_value(converted)

    def _object_to_connect(self, schema: Schema, value: Any) -> Any:
        """Java's ``toConnectData`` of the Java objects Avro makes of a JSON default (see
        :func:`_java_object`), or of a Connect default standing in for a record field the JSON
        leaves out (:class:`_ConnectObject`); ``DataException`` where Java's casts fail."""
        if value is None and not schema.is_optional:
            raise DataException(_NULL_VALUE_MESSAGE)
        if value is None or value is _JSON_NULL:
            return None
        kind = schema.type
        if isinstance(value, _ConnectObject):
            value = value.value
            if value is None:
                return self._object_to_connect(schema, None)
            logical = schema.name in (Decimal.LOGICAL_NAME, *_TEMPORAL)
            # a Connect value is the Java object Connect holds: a Byte, Short, Struct, Date or
            # BigDecimal fails the cast toConnectData makes, the others pass through
            if logical or kind in (SchemaType.INT8, SchemaType.INT16, SchemaType.STRUCT):
                raise DataException(f"Invalid type for {kind}: {type(value)}")
            if kind is SchemaType.ARRAY:
                assert schema.value_schema is not None
                element = schema.value_schema
                return [self._object_to_connect(element, _ConnectObject(v)) for v in value]
            if kind is SchemaType.MAP:
                return self._object_map_to_connect(schema, {k: _ConnectObject(v) for k, v in value.items()})
            return value
        expected = _JAVA_CLASSES.get(kind)
        if expected is not None:
            if value.__class__ is not expected:
                raise DataException(f"Invalid type for {kind}: {type(value)}")
            if kind is SchemaType.INT8 or kind is SchemaType.INT16:
                bits = 8 if kind is SchemaType.INT8 else 16
                value = _java_narrow(cast(int, value), bits)
            else:
                value = _JAVA_TO_PYTHON[expected](value)
        elif kind is SchemaType.ARRAY:
            if not isinstance(value, list):
                raise DataException(f"Invalid type for ARRAY: {type(value)}")
            assert schema.value_schema is not None
            element = schema.value_schema
            value = [self._object_to_connect(element, v) for v in value]
        elif kind is SchemaType.MAP:
            value = self._object_map_to_connect(schema, value)
        elif _is_union_schema(schema):
            for f in schema.fields:
                if _is_simple_instance(f.schema, value):
                    return Struct(schema).put(f.name, self._object_to_connect(f.schema, value))
            raise DataException("Did not find matching union field for data")
        else:  # STRUCT: Avro gives a record's default as a map
            if not isinstance(value, dict):
                raise DataException(f"Invalid type for STRUCT: {type(value)}")
            struct = Struct(schema)
            for f in schema.fields:
                key = scrub_name(f.name) if self.config.scrub_invalid_names else f.name
                member = value[key] if key in value else _ConnectObject(f.schema.default_value)
                struct.put(f, self._object_to_connect(f.schema, member))
            return struct
        conversion = _logical_conversion(schema, to_avro=False)
        return value if conversion is None else conversion(value)

    def _object_map_to_connect(self, schema: Schema, value: Any) -> dict[Any, Any]:
        key_schema, value_schema = schema.key_schema, schema.value_schema
        assert key_schema is not None and value_schema is not None
        if key_schema.type is not SchemaType.STRING or key_schema.is_optional:
            # Java expects MapEntry records here, which a JSON default gives only as an empty list
            if value == []:
                return {}
            raise DataException(f"Invalid type for MAP: {type(value)}")
        if not isinstance(value, dict):
            raise DataException(f"Invalid type for MAP: {type(value)}")
        return {k: self._object_to_connect(value_schema, v) for k, v in java_hash_map_order(value, len(value))}

    def _union_member_name(self, member: AvroSchema) -> str:
        if member.is_named():
            return (member.full_name if self.config.enhanced_avro_schema_support else member.name) or ""
        return member.type

    def _default_from_avro(self, schema: Schema, avro: AvroSchema, value: Any) -> Any:
        """``defaultValueFromAvro``: a JSON default as the Connect value of ``schema``, read as
        Jackson reads a node (a JSON null inside is a node too: an int of it is 0, a string "null")."""
        if value is _MISSING:
            return None
        kind = avro.type
        result: Any
        if kind == "int":
            if schema.type not in (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32):
                return None
            bits = 8 if schema.type is SchemaType.INT8 else 16 if schema.type is SchemaType.INT16 else 32
            result = _java_narrow(_jackson_long(value), bits)
        elif kind == "long":
            result = _jackson_long(value)
        elif kind in ("float", "double"):
            result = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
        elif kind == "boolean":
            result = _jackson_as_boolean(value)
        elif kind in ("string", "enum"):
            result = _jackson_as_text(value)
        elif kind in ("bytes", "fixed"):
            if not isinstance(value, str):
                return None  # Jackson's binaryValue() of any other node
            result = value.encode("latin-1")
        elif kind == "array":
            if not isinstance(value, list):
                raise DataException("Invalid JSON for array default value")
            assert avro.items is not None and schema.value_schema is not None
            items, element_schema = avro.items, schema.value_schema
            if schema.type is SchemaType.MAP:
                # Java converts a MapEntry array's default to a list, which the map schema refuses:
                # the default is dropped (as the registered text holds it, Avro's or Connect's)
                raise DataException("Invalid default for a map of non-string keys")
            result = [self._default_from_avro(element_schema, items, v) for v in value]
        elif kind == "map":
            if not isinstance(value, dict):
                raise DataException("Invalid JSON for map default value")
            assert avro.values is not None and schema.value_schema is not None
            values, value_schema = avro.values, schema.value_schema
            # Java collects it in a HashMap sized to the entries: the order written back is that one's
            result = {k: self._default_from_avro(value_schema, values, v)
                      for k, v in java_hash_map_order(value, len(value))}
        elif kind == "record":
            if not isinstance(value, dict):
                raise DataException("Invalid JSON for record default value")
            result = Struct(schema)
            for f in avro.fields:
                connect_field = schema.field(f.name)
                assert connect_field is not None
                result.put(f.name, self._default_from_avro(connect_field.schema, f.schema, value.get(f.name, _MISSING)))
        elif kind == "union":
            first = avro.types[0]
            if first.type == "null":
                return None
            # Java looks the first member up as a field of the Connect schema, so in a default nested
            # in another (an array's element, a struct's field) an optional with a default drops
            # the whole default: a DataException for a schema that is no struct (Java's
            # NullPointerException for a struct without that field is one here too)
            if schema.type is not SchemaType.STRUCT:
                raise DataException("Cannot look up fields on non-struct type")
            member = schema.field(self._union_member_name(first))
            if member is None:
                raise DataException(f"No union member field {self._union_member_name(first)} in {schema!r}")
            return self._default_from_avro(member.schema, first, value)
        elif kind == "null":
            return None
        else:
            return None
        return _to_connect_logical(schema, result)

    # ---------------------------------------------------------------------------------------------
    # Values

    def value_writer(self, schema: Schema, avro: AvroSchema) -> Callable[[Any], Any]:
        """A function from a Connect value of ``schema`` to the datum fastavro writes with ``avro``
        (logical types already converted: fastavro is given the schema without them). Raises
        ``DataException`` as Java's ``fromConnectData`` does."""
        inner = self._codec(schema, avro if _is_union_schema(schema) else _non_null(avro), to_avro=True)
        if schema.is_optional:
            return lambda value: None if value is None else inner(value)
        if schema.type is SchemaType.STRUCT and not _is_union_schema(schema):
            return inner  # refuses None itself, one call less per record

        def required(value: Any) -> Any:
            if value is None:
                raise DataException(_NULL_VALUE_MESSAGE)
            return inner(value)

        return required

    def _codec(self, schema: Schema, avro: AvroSchema, to_avro: bool) -> Callable[[Any], Any]:
        """The writer (``to_avro``) or reader of non-None values (``avro`` without its null branch)."""
        logical = _logical_conversion(schema, to_avro)
        if logical is not None:
            if to_avro and avro.type == "fixed":
                size = avro.size
                return lambda value: _pad_to_fixed_size(logical(value), size)
            return logical
        kind = schema.type
        if kind is SchemaType.BYTES:
            return _as_bytes
        if kind is SchemaType.ARRAY:
            assert schema.value_schema is not None and avro.items is not None
            element = self._child(schema.value_schema, avro.items, to_avro)
            return lambda value: [element(v) for v in value]
        if kind is SchemaType.MAP and avro.type == "map":
            assert schema.value_schema is not None and avro.values is not None
            values = self._child(schema.value_schema, avro.values, to_avro)
            if to_avro:
                return lambda value: {k: values(v) for k, v in java_hash_map_order(value)}
            return lambda value: {k: values(v) for k, v in value.items()}
        if kind is SchemaType.MAP:
            return self._map_entries_codec(schema, avro, to_avro)
        if kind is SchemaType.STRUCT and _is_union_schema(schema):
            return self._union_writer(schema, avro) if to_avro else self._union_reader(avro, schema)
        if kind is SchemaType.STRUCT:
            return self._struct_writer(schema, avro) if to_avro else self._struct_reader(avro, schema)
        return _identity

    def _child(self, schema: Schema, avro: AvroSchema, to_avro: bool) -> Callable[[Any], Any]:
        return self.value_writer(schema, avro) if to_avro else self.value_reader(avro, schema)

    def _map_entries_codec(self, schema: Schema, avro: AvroSchema, to_avro: bool) -> Callable[[Any], Any]:
        """A map with keys other than strings, in Avro an array of MapEntry records."""
        assert schema.key_schema is not None and schema.value_schema is not None and avro.items is not None
        entry_key, entry_value = avro.items.field(KEY_FIELD), avro.items.field(VALUE_FIELD)
        assert entry_key is not None and entry_value is not None
        keys = self._child(schema.key_schema, entry_key.schema, to_avro)
        values = self._child(schema.value_schema, entry_value.schema, to_avro)
        if to_avro:
            return lambda value: [{KEY_FIELD: keys(k), VALUE_FIELD: values(v)} for k, v in value.items()]
        return lambda datum: {keys(e[KEY_FIELD]): values(e[VALUE_FIELD]) for e in datum}

    def _struct_writer(self, schema: Schema, avro: AvroSchema) -> Callable[[Any], Any]:
        plan = []
        for f in schema.fields:
            avro_name = scrub_name(f.name) if self.config.scrub_invalid_names else f.name
            avro_field = avro.field(avro_name)
            if avro_field is None:
                raise DataException(f"Field {f.name} is not in the Avro schema {avro.full_name}")
            plan.append((avro_name, f, self._field_writer(f.schema, avro_field.schema), f.schema.is_optional))
        use_default = not self.config.ignore_default_for_nullables

        def write(value: Any) -> Any:
            if value.__class__ is not Struct:
                raise DataException(_NULL_VALUE_MESSAGE if value is None else f"Invalid type for STRUCT: {type(value)}")
            if value.schema is not schema and value.schema != schema:
                raise DataException("Mismatching struct schema")
            values = value._values
            datum: dict[str, Any] = {}
            for avro_name, f, field_writer, optional in plan:
                v = values[f.index]
                if v is None:
                    if use_default:
                        v = f.schema.default_value
                    if v is None:
                        if not optional:
                            raise DataException(_NULL_VALUE_MESSAGE)
                        datum[avro_name] = None
                        continue
                datum[avro_name] = v if field_writer is None else field_writer(v)
            return datum

        return write

    def _field_writer(self, schema: Schema, avro: AvroSchema) -> Callable[[Any], Any] | None:
        """A field's writer of non-None values, or None when a value is its own datum (a plain
        primitive: fastavro refuses a wrong type there itself)."""
        if (schema.type in (SchemaType.INT32, SchemaType.INT64, SchemaType.FLOAT64, SchemaType.FLOAT32,
                            SchemaType.BOOLEAN, SchemaType.STRING, SchemaType.INT8, SchemaType.INT16)
                and schema.name is None):
            return None
        # a Connect union keeps its Avro union, even of one member: its writer picks the branch
        return self._codec(schema, avro if _is_union_schema(schema) else _non_null(avro), to_avro=True)

    def _union_writer(self, schema: Schema, avro: AvroSchema) -> Callable[[Any], Any]:
        members = [(i, m) for i, m in enumerate(avro.types) if m.type != "null"]
        branching = len(members) > 1
        branches = []
        for f, (i, member) in zip(schema.fields, members, strict=False):
            writer = self._codec(f.schema, member, to_avro=True)
            # the branch goes by the wrapper record codec_schema gives it, in fastavro's tuple
            # notation: the branch of the field, as Java writes it (an int64 as Avro's long even
            # where an int would hold it), never one fastavro guesses from the value
            branches.append((f, writer, union_branch_name(avro, i) if branching else None))
        use_default = not self.config.ignore_default_for_nullables

        def write(value: Any) -> Any:
            if value.__class__ is not Struct or (value.schema is not schema and value.schema != schema):
                raise DataException("Mismatching struct schema")
            for f, writer, branch_name in branches:
                v = value.get(f) if use_default else value.get_without_default(f)
                if v is not None:
                    return writer(v) if branch_name is None else (branch_name, {BRANCH_FIELD: writer(v)})
            if not schema.is_optional:
                raise DataException(_NULL_VALUE_MESSAGE)
            return None

        return write

    def value_reader(self, avro: AvroSchema, schema: Schema) -> Callable[[Any], Any]:
        """A function from the datum fastavro reads with ``avro`` (logical types off, records in
        unions of several records as ``(name, record)``) to the Connect value of ``schema``."""
        if avro.type == "union" and not _is_union_schema(schema):
            avro = _non_null(avro)
        inner = self._codec(schema, avro, to_avro=False)
        return lambda datum: None if datum is None else inner(datum)

    def _struct_reader(self, avro: AvroSchema, schema: Schema) -> Callable[[Any], Any]:
        plan = []
        for f in schema.fields:
            avro_field = avro.field(f.name)
            if avro_field is None and self.config.scrub_invalid_names:
                avro_field = avro.field(scrub_name(f.name))
            if avro_field is None:
                raise DataException(f"Field {f.name} is not in the Avro schema {avro.full_name}")
            plain = (f.schema.name is None and f.schema.type.is_primitive and f.schema.type is not SchemaType.BYTES)
            plan.append((avro_field.name, None if plain else self.value_reader(avro_field.schema, f.schema)))

        def read(datum: Any) -> Struct:
            struct = Struct(schema)
            # the values come from a datum written with this schema: valid without Struct.put's checks
            struct._values = [datum[n] if r is None else r(datum[n]) for n, r in plan]
            return struct

        return read

    def _union_reader(self, avro: AvroSchema, schema: Schema) -> Callable[[Any], Any]:
        members = [(i, m) for i, m in enumerate(avro.types) if m.type != "null"]
        by_branch: dict[str, tuple[str, Callable[[Any], Any]]] = {}
        for i, member in members:
            field_name = self._union_member_name(member)
            connect_field = schema.field(field_name)
            if connect_field is None:
                raise DataException(f"Union member {field_name} is not a field of {schema!r}")
            reader = self._codec(connect_field.schema, member, to_avro=False)
            by_branch[union_branch_name(avro, i)] = (field_name, reader)

        if len(members) == 1:
            ((only_field, only_reader),) = by_branch.values()

            def read_only(datum: Any) -> Struct:
                struct = Struct(schema)
                struct.put(only_field, only_reader(datum))
                return struct

            return read_only

        def read(datum: Any) -> Struct:
            # (wrapper name, {"v": datum}): codec_schema's wrapper records name the branch
            field_name, reader = by_branch[datum[0]]
            struct = Struct(schema)
            struct.put(field_name, reader(datum[1][BRANCH_FIELD]))
            return struct

        return read


class _JavaInt(int):
    """An ``Integer``, as Avro's ``JacksonUtils.toObject`` makes one."""


class _JavaLong(int):
    """A ``Long``."""


class _JavaFloat(float):
    """A ``Float``."""


class _JavaDouble(float):
    """A ``Double``."""


class _NoJavaDefault(Exception):
    """Avro's ``Field.defaultVal()`` fails (Java then uses ``connect.default``)."""


@dataclass(frozen=True, slots=True)
class _ConnectObject:
    """A Connect default standing in, in a record default, for a field the JSON leaves out."""

    value: Any


#: Avro's ``JsonProperties.NULL_VALUE``: a JSON null inside a default
_JSON_NULL: Final = object()
_JAVA_CLASSES: Final[Mapping[SchemaType, type]] = {
    SchemaType.INT8: _JavaInt, SchemaType.INT16: _JavaInt, SchemaType.INT32: _JavaInt,
    SchemaType.INT64: _JavaLong, SchemaType.FLOAT32: _JavaFloat, SchemaType.FLOAT64: _JavaDouble,
    SchemaType.BOOLEAN: bool, SchemaType.STRING: str, SchemaType.BYTES: bytes,
}
_JAVA_TO_PYTHON: Final[Mapping[type, Callable[[Any], Any]]] = {
    _JavaInt: int, _JavaLong: int, _JavaFloat: float, _JavaDouble: float, bool: bool, str: str, bytes: bytes,
}
# AvroData's SIMPLE_AVRO_SCHEMA_TYPES: the Java classes a union member of each type takes
_SIMPLE_CLASSES: Final[Mapping[SchemaType, tuple[type, ...]]] = {
    SchemaType.INT32: (_JavaInt,), SchemaType.INT64: (_JavaLong,), SchemaType.FLOAT32: (_JavaFloat,),
    SchemaType.FLOAT64: (_JavaDouble,), SchemaType.BOOLEAN: (bool,), SchemaType.STRING: (str,),
    SchemaType.BYTES: (bytes,), SchemaType.ARRAY: (list,), SchemaType.MAP: (dict,),
}


def _java_object(node: Any, avro: AvroSchema | None) -> Any:
    """Avro's ``JacksonUtils.toObject(node, schema)`` (Avro 1.12), by which ``Field.defaultVal()``
    hands a JSON default over: a union's first member decides, numbers take the schema's Java
    class, a JSON null is ``NULL_VALUE``, records and maps are maps."""
    if avro is not None and avro.type == "union":
        return _java_object(node, avro.types[0] if avro.types else None)
    kind = avro.type if avro is not None else None
    if node is None:
        return _JSON_NULL
    if isinstance(node, bool):
        return node
    if isinstance(node, int):
        if kind in (None, "int"):
            return _JavaInt(node) if -(2**31) <= node < 2**31 else _JavaLong(node)
        if kind == "long":
            return _JavaLong(node)
        if kind in ("float", "double"):
            return _JavaFloat(node) if kind == "float" else _JavaDouble(node)
        return None
    if isinstance(node, float):
        if kind in (None, "double"):
            return _JavaDouble(node)
        return _JavaFloat(node) if kind == "float" else None
    if isinstance(node, str):
        if kind in (None, "string", "enum"):
            return node
        return node.encode("latin-1") if kind in ("bytes", "fixed") else None
    if isinstance(node, list):
        items = avro.items if avro is not None else None
        if avro is not None and items is None and node:
            raise _NoJavaDefault  # Avro's getElementType() of a non-array, asked per element
        return [_java_object(v, items) for v in node]
    if isinstance(node, dict):
        result = {}
        for key, v in node.items():
            member: AvroSchema | None = None
            if kind == "map":
                member = avro.values if avro is not None else None
            elif kind == "record":
                found = avro.field(key) if avro is not None else None
                if found is None:
                    raise _NoJavaDefault  # Avro's getField(key).schema(): a NullPointerException
                member = found.schema
            result[key] = _java_object(v, member)
        return result
    return None


#: A record field a JSON default leaves out (Java's null, where a JSON null is a NullNode)
_MISSING: Final = object()


def _jackson_long(node: Any) -> int:
    """Jackson's ``longValue()``: a number's (a double's truncated), 0 for any other node."""
    if isinstance(node, bool) or not isinstance(node, int | float):
        return 0
    if isinstance(node, float):
        return int(node) if math.isfinite(node) else 0
    return _java_narrow(node, 64)


def _java_narrow(value: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return (value + half) % (1 << bits) - half


def _jackson_as_boolean(node: Any) -> bool:
    if isinstance(node, bool):
        return node
    if isinstance(node, int):
        return node != 0
    return isinstance(node, str) and node.strip() == "true"


def _jackson_as_text(node: Any) -> str:
    if isinstance(node, str):
        return node
    if node is None:
        return "null"
    if isinstance(node, list | dict):
        return ""
    return json_text(node)


def _is_simple_instance(schema: Schema, value: Any) -> bool:
    """``isInstanceOfAvroSchemaTypeForSimpleSchema``: whether a union member takes ``value``."""
    if _is_enum_schema(schema):
        return False  # Java compares the value's class name with the enum's name: a String never
    classes = _SIMPLE_CLASSES.get(schema.type)
    if classes is None or not isinstance(value, classes) or (isinstance(value, bool) and bool not in classes):
        return False
    if _is_fixed_schema(schema):
        size = _parse_int((schema.parameters or {})[CONNECT_AVRO_FIXED_SIZE_PROP], "fixed size")
        return isinstance(value, bytes) and len(value) == size
    return True


def java_hash_map_order(value: Mapping[str, Any], initial_capacity: int | None = None) -> Iterable[tuple[str, Any]]:
    """The entries of a map with string keys in the order Java's ``HashMap`` iterates them.

    Java's ``fromConnectData`` copies such a map into a ``HashMap`` before Avro writes it, so the
    bytes follow that order; writing the same order keeps a map in a record key the same bytes (and
    so the same partition and the same compacted key) whichever worker wrote it. The order: by
    bucket (the spread ``String.hashCode`` in a table of 16, or of ``initial_capacity`` rounded up
    to a power of two, doubled while more than 3/4 full), in insertion order within one. (A bucket
    of more than 8 keys, which Java turns into a tree, is not modelled: that needs 9 keys of one
    bucket in one map.)
    """
    if len(value) < 2:
        return value.items()
    capacity = 16 if initial_capacity is None else 1 << max(0, initial_capacity - 1).bit_length()
    while len(value) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1
    return sorted(value.items(), key=lambda item: _java_spread_hash(item[0]) & mask)


@functools.lru_cache(maxsize=4096)
def _java_spread_hash(key: str) -> int:
    """``HashMap.hash(key)`` of a Java ``String`` (the hash over UTF-16 code units, spread)."""
    h = 0
    if key.isascii():
        units: Iterable[int] = key.encode("ascii")
    else:
        data = key.encode("utf-16-be")
        units = struct.unpack(f">{len(data) // 2}H", data)
    for unit in units:
        h = (31 * h + unit) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _identity(value: Any) -> Any:
    return value


def _as_bytes(value: Any) -> bytes:
    if value.__class__ is bytes:
        return value
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    raise DataException(f"Invalid type for BYTES: {type(value)}")


def _pad_to_fixed_size(unscaled: bytes, size: int) -> bytes:
    if len(unscaled) > size:
        raise DataException(f"Unscaled value byte array length {len(unscaled)} is greater than fixed size {size}")
    sign = b"\xff" if unscaled and unscaled[0] & 0x80 else b"\x00"
    return sign * (size - len(unscaled)) + unscaled


def _non_null(avro: AvroSchema) -> AvroSchema:
    """An optional's Avro schema without its null branch (the union itself for a wider union)."""
    if avro.type == "union":
        members = [m for m in avro.types if m.type != "null"]
        if len(members) == 1:
            return members[0]
    return avro


def _check_decimal_precision(precision: int, base: AvroSchema) -> None:
    """Avro's ``LogicalTypes.Decimal.validate``: a positive precision, within a fixed's size."""
    if precision <= 0:
        raise DataException(f"Invalid decimal precision: {precision} (must be positive)")
    if base.type == "fixed":
        max_precision = round(math.floor(math.log10(2) * (8 * base.size - 1)))
        if precision > max_precision:
            raise DataException(f"fixed({base.size}) cannot store {precision} digits (max {max_precision})")


def _maybe_make_optional(schema: Schema, base: AvroSchema) -> AvroSchema:
    if not schema.is_optional:
        return base
    if schema.default_value is not None:
        return union_of([base, primitive("null")])
    return union_of([primitive("null"), base])


def _is_named_avro_type(avro: AvroSchema) -> bool:
    if avro.is_named():
        return True
    return avro.type == "union" and any(m.is_named() for m in avro.types)


def _is_map_entry(avro: AvroSchema) -> bool:
    if avro.type != "record":
        return False
    if avro.namespace == NAMESPACE and avro.name == MAP_ENTRY_TYPE_NAME:
        return True
    return bool(avro.prop(CONNECT_INTERNAL_TYPE_NAME) == MAP_ENTRY_TYPE_NAME)


def _parameters_from_connect(params: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in params.items() if k != AVRO_FIELD_DEFAULT_FLAG_PROP}


def _apply_field_level_params(original: Schema, field_params: Mapping[str, Any]) -> Schema:
    existing = original.parameters or {}
    if all(str(v) == existing.get(str(k)) for k, v in field_params.items()):
        return original
    params = dict(existing)
    params.update({str(k): str(v) for k, v in field_params.items()})
    return Schema(original.type, optional=original.is_optional, default_value=original.default_value,
                  name=original.name, version=original.version, doc=original.doc, parameters=params,
                  fields=original.fields if original.type is SchemaType.STRUCT else None,
                  key_schema=original.key_schema if original.type is SchemaType.MAP else None,
                  value_schema=(original.value_schema
                                if original.type in (SchemaType.MAP, SchemaType.ARRAY) else None))


def _logical_conversion(schema: Schema, to_avro: bool) -> Callable[[Any], Any] | None:
    """Connect's conversion of a logical type's values to (or from) their Avro datum, or None for a
    schema of no logical type."""
    name = schema.name
    logical_type = Decimal if name == Decimal.LOGICAL_NAME else _TEMPORAL.get(name) if name is not None else None
    if logical_type is None:
        return None
    convert: Callable[[Schema, Any], Any] = logical_type.from_logical if to_avro else logical_type.to_logical
    return lambda value: convert(schema, value)


def _to_avro_logical(schema: Schema, value: Any) -> Any:
    conversion = _logical_conversion(schema, to_avro=True)
    return value if conversion is None else conversion(value)


def _to_connect_logical(schema: Schema, value: Any) -> Any:
    conversion = _logical_conversion(schema, to_avro=False)
    return value if value is None or conversion is None else conversion(value)


def _json_to_string(value: Any) -> str:
    return json_text(value)
