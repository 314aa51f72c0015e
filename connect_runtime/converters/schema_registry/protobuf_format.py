"""Protobuf as a registry format (schema type ``PROTOBUF``): Confluent's ``ProtobufData`` mapping, and
the payload Confluent's Protobuf serializer writes after the 5-byte header: the message indexes
(zigzag varints; ``[0]``, the first message of the file, as the single byte ``0x00``) then the
serialized message.

Schemas are registered as ``.proto`` text, as Java's ``ProtobufConverter`` registers them (registries
such as Apicurio compare and check compatibility on the text), and read back from text, so what Java's
converter wrote reads too. Each :class:`ProtobufFormatSchema` compiles its message class and its value
plan once.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, Range
from connect_runtime.api.data import Schema, SchemaType, Struct
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.converters.schema_registry import protobuf_compat, protobuf_text
from connect_runtime.converters.schema_registry.format import FormatSchema, SchemaFormat
from connect_runtime.converters.schema_registry.protobuf_data import (
    ProtobufData,
    ProtobufDataConfig,
    ProtobufSchema,
    field_params,
    message_class,
)

# Java's ProtobufDataConfig keys (with AbstractDataConfig's), each with its ProtobufDataConfig field.
_BOOLEAN_KEYS: dict[str, tuple[str, bool, str]] = {
    "enhanced.protobuf.schema.support": (
        "enhanced_schema_support", False, "Toggle for enabling/disabling enhanced protobuf schema support: package "
        "name preservation"),
    "scrub.invalid.names": (
        "scrub_invalid_names", False, "Whether to scrub invalid names by replacing invalid characters with valid ones"),
    "int.for.enums": ("int_for_enums", False, "Whether to represent enums as integers"),
    "optional.for.nullables": (
        "optional_for_nullables", False, "Whether nullable fields should be specified with an optional label"),
    "optional.for.proto2": ("optional_for_proto2", True, "Whether proto2 optionals are supported"),
    "wrapper.for.nullables": (
        "wrapper_for_nullables", False, "Whether nullable fields should use primitive wrapper messages"),
    "wrapper.for.raw.primitives": (
        "wrapper_for_raw_primitives", True,
        "Whether a wrapper message should be interpreted as a raw primitive at the root level"),
    "generate.struct.for.nulls": (
        "generate_struct_for_nulls", False, "Whether to generate a default struct for null messages"),
    "generate.index.for.unions": (
        "generate_index_for_unions", True, "Whether to suffix union names with an underscore followed by an index"),
    "flatten.unions": ("flatten_unions", False, "Whether to flatten unions (oneofs)"),
    "ignore.default.for.nullables": (
        "ignore_default_for_nullables", False,
        "Whether to ignore the default for nullable fields when the value is null"),
}
GENERALIZED_SUM_TYPE_SUPPORT = "generalized.sum.type.support"
SCHEMAS_CACHE_SIZE = "schemas.cache.config"
SKIP_KNOWN_TYPES = "skip.known.types"


def _only_false(name: str, value: Any) -> None:
    # Generalized sum types (ConnectUnion / ConnectEnum parameters) are not mapped; refused at validation.
    if value:
        raise ConfigException(name, value, "generalized sum types are not supported by this Protobuf converter")


def _only_true(name: str, value: Any) -> None:
    # Registering the imported files as referenced subjects is not done, so they must be skipped.
    if not value:
        raise ConfigException(name, value, "registering known types as schema references is not supported")


def encode_indexes(indexes: tuple[int, ...]) -> bytes:
    """Confluent's ``MessageIndexes.toByteArray``: ``[0]`` is one zero byte, else the count and the
    indexes as zigzag varints."""
    if indexes == (0,):
        return b"\x00"
    return b"".join(_zigzag_varint(n) for n in (len(indexes), *indexes))


def decode_indexes(payload: bytes | memoryview) -> tuple[tuple[int, ...], int]:
    """The message indexes at the start of ``payload`` and the offset of the message after them."""
    if payload[:1] == b"\x00":  # the first message, as almost every payload names it
        return (0,), 1
    count, offset = _read_zigzag_varint(payload, 0)
    if count == 0:
        return (0,), offset
    if count < 0 or count > len(payload):
        raise DataException(f"Invalid Protobuf message indexes: count {count}")
    indexes = []
    for _ in range(count):
        index, offset = _read_zigzag_varint(payload, offset)
        indexes.append(index)
    return tuple(indexes), offset


def _zigzag_varint(value: int) -> bytes:
    n = ((value << 1) ^ (value >> 31)) & 0xFFFFFFFF
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_zigzag_varint(payload: bytes | memoryview, offset: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if offset >= len(payload) or shift > 28:
            raise DataException("Invalid Protobuf message indexes: truncated or too long varint")
        byte = payload[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
    return (result >> 1) ^ -(result & 1), offset


class ProtobufFormatSchema(FormatSchema):
    """One ``.proto`` schema: its text, its Connect schema, and the compiled message class and plans."""

    def __init__(
        self, data: ProtobufData, schema: ProtobufSchema, connect_schema: Schema, version: int | None = None
    ) -> None:
        self._data, self._schema, self._version = data, schema, version
        self._others: dict[tuple[int, ...], ProtobufFormatSchema] = {}
        self.text = schema.text
        self.connect_schema = connect_schema
        self.record_name = schema.message_name
        self.indexes = schema.indexes
        self._header = encode_indexes(schema.indexes)
        self._class = message_class(schema.file, schema.message_name)
        descriptor = self._class.DESCRIPTOR
        self._foreign: dict[Schema, Any] = {}
        if connect_schema.type is SchemaType.STRUCT and descriptor.full_name.split(".")[0:2] != ["google", "protobuf"]:
            params = field_params(schema.file)
            self._write = data.struct_writer(connect_schema, descriptor)
            self._read = data.struct_reader(connect_schema, descriptor, params)
        else:
            self._write, self._read = self._wrapper_codec(data, connect_schema, descriptor)

    @staticmethod
    def _wrapper_codec(data: ProtobufData, connect_schema: Schema, descriptor: Any) -> tuple[Any, Any]:
        value_field = descriptor.fields_by_name.get("value")
        if value_field is None:
            raise DataException(f"{descriptor.full_name} is not a wrapper message")
        if connect_schema.type is SchemaType.STRUCT:
            # wrapper.for.raw.primitives=false: the wrapper as a struct with one optional field.
            params = field_params(protobuf_text.ProtoFile(syntax="proto3", package=None))
            return (data.struct_writer(connect_schema, descriptor),
                    data.struct_reader(connect_schema, descriptor, params))
        no_params = field_params(protobuf_text.ProtoFile(syntax="proto3", package=None))
        return data.value_setter(connect_schema, value_field), data.value_getter(connect_schema, value_field, no_params)

    def for_payload(self, payload: bytes | memoryview) -> ProtobufFormatSchema:
        """This schema, or the one of the file's other message the payload's indexes name (a primitive
        written as its wrapper in ``wrappers.proto`` is that file's eighth message, for instance)."""
        indexes, _ = decode_indexes(payload)
        if indexes == self.indexes:
            return self
        other = self._others.get(indexes)
        if other is None:
            other = _read_schema(self._data, self._schema.file, self.text, indexes, self._version)
            self._others[indexes] = other
        return other

    def encode(self, value: Any) -> bytes:
        message = self._class()
        if value.__class__ is Struct and value.schema is not self.connect_schema \
                and value.schema != self.connect_schema:
            self._foreign_writer(value.schema)(message, value)
        else:
            self._write(message, value)
        body: bytes = message.SerializeToString()
        return self._header + body

    def _foreign_writer(self, schema: Schema) -> Any:
        # A Struct of another schema than this one (use.latest.version writes records with the
        # subject's latest schema): its fields go to this message's fields of the same names.
        writer = self._foreign.get(schema)
        if writer is None:
            if len(self._foreign) >= 100:
                self._foreign.clear()
            writer = self._data.struct_writer(schema, self._class.DESCRIPTOR)
            self._foreign[schema] = writer
        return writer

    def reads(self, writer: FormatSchema) -> bool | None:
        """Confluent's ``isBackwardCompatible`` of this schema against ``writer``'s (see ``protobuf_compat``)."""
        if not isinstance(writer, ProtobufFormatSchema):
            return None
        return not protobuf_compat.incompatibilities(writer._schema.file, self._schema.file)

    def decode(self, payload: bytes | memoryview) -> Any:
        indexes, offset = decode_indexes(payload)
        if indexes != self.indexes:
            raise DataException(
                f"Protobuf message indexes {list(indexes)} name another message than {self.record_name} "
                f"{list(self.indexes)}")
        message = self._class()
        try:
            message.ParseFromString(bytes(payload[offset:]))
        except Exception as e:
            raise DataException(f"Invalid Protobuf message for {self.record_name}: {e}") from e
        return self._read(message)


class ProtobufFormat(SchemaFormat):
    """Connect <-> Protobuf as Confluent's ``ProtobufConverter`` (``ProtobufData``) maps it."""

    schema_type: ClassVar[str] = "PROTOBUF"

    def __init__(self) -> None:
        self._data = ProtobufData()
        self._from_connect = lru_cache(maxsize=1000)(self._build_from_connect)
        self._from_registry = lru_cache(maxsize=1000)(self._build_from_registry)

    def config_def(self) -> ConfigDef:
        config = ConfigDef()
        for key, (_, default, doc) in _BOOLEAN_KEYS.items():
            config.define(key, ConfigType.BOOLEAN, default, importance=Importance.MEDIUM, documentation=doc)
        config.define(
            GENERALIZED_SUM_TYPE_SUPPORT, ConfigType.BOOLEAN, False, _only_false, importance=Importance.MEDIUM,
            documentation="Toggle for enabling/disabling generalized sum type support: interoperability of "
            "enum/union with other schema formats (not supported: only false is accepted)")
        config.define(
            SCHEMAS_CACHE_SIZE, ConfigType.INT, 1000, Range.at_least(1), importance=Importance.LOW,
            documentation="Size of the converted schemas cache")
        config.define(
            SKIP_KNOWN_TYPES, ConfigType.BOOLEAN, True, _only_true, importance=Importance.LOW,
            documentation="Whether to skip known types when resolving schema dependencies (only true is "
            "accepted: the files ProtobufData imports are all known types, so no references are registered)")
        return config

    def configure(self, configs: Mapping[str, Any]) -> None:
        values = self.config_def().parse(configs)
        self._data = ProtobufData(ProtobufDataConfig(
            **{attr: values[key] for key, (attr, _, _) in _BOOLEAN_KEYS.items()}))
        size = values[SCHEMAS_CACHE_SIZE]
        self._from_connect = lru_cache(maxsize=size)(self._build_from_connect)
        self._from_registry = lru_cache(maxsize=size)(self._build_from_registry)

    def from_connect(self, schema: Schema) -> ProtobufFormatSchema:
        return self._from_connect(schema)

    def from_registry(self, text: str, version: int | None) -> ProtobufFormatSchema:
        return self._from_registry(text, version)

    def _build_from_connect(self, schema: Schema) -> ProtobufFormatSchema:
        return ProtobufFormatSchema(self._data, self._data.from_connect_schema(schema), schema)

    def _build_from_registry(self, text: str, version: int | None) -> ProtobufFormatSchema:
        file = protobuf_text.parse(text)
        if not file.messages:
            raise DataException("Protobuf schema declares no message")
        # The first message, as Java's ProtobufSchema names a parsed file; a payload naming another
        # one is read through for_payload.
        return _read_schema(self._data, file, text, (0,), version)


def _read_schema(
    data: ProtobufData, file: protobuf_text.ProtoFile, text: str, indexes: tuple[int, ...], version: int | None
) -> ProtobufFormatSchema:
    name = protobuf_text.message_path(file, list(indexes))
    descriptor = message_class(file, name).DESCRIPTOR
    connect_schema = data.to_connect_schema(descriptor, field_params(file), version)
    return ProtobufFormatSchema(data, ProtobufSchema(file, text, indexes, name), connect_schema, version)
