"""Connect <-> Protobuf as Confluent's ``ProtobufData`` maps it: schemas both ways, and values between
Connect's (Structs, lists, dicts, logical types) and protobuf messages.

Writing, a STRUCT becomes a proto3 file with one top-level message (package = the struct name's
namespace, fields numbered 1, 2, ... unless ``io.confluent.connect.protobuf.Tag`` says otherwise,
INT8/INT16 as ``int32`` with ``connect.type`` in the ``confluent.field_meta`` option, maps as repeated
``<Name>Entry`` messages, logical types as ``confluent.type.Decimal``, ``google.type.Date``,
``google.type.TimeOfDay`` and ``google.protobuf.Timestamp``); any other primitive becomes the
``google.protobuf.*Value`` wrapper in ``wrappers.proto``. Reading, a message becomes a STRUCT whose
fields are optional (proto3 has no presence for scalars), each carrying its tag. The ``*DataConfig``
switches are Java's (:class:`ProtobufDataConfig`).

The schema side builds a :class:`protobuf_text.ProtoFile`; the value side compiles, once per schema,
a plan of per-field setters and getters over the message class protobuf's ``message_factory`` makes
from the compiled descriptor, so the per-record path only walks the plan.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from connect_runtime.api.data import Date, Decimal, Schema, SchemaBuilder, SchemaType, Struct, Time, Timestamp
from connect_runtime.api.errors import DataException
from connect_runtime.converters.schema_registry import protobuf_text
from connect_runtime.converters.schema_registry.format import StructFiller
from connect_runtime.converters.schema_registry.protobuf_text import (
    ProtoEnum,
    ProtoField,
    ProtoFile,
    ProtoMessage,
    ProtoOneof,
)

NAMESPACE = "io.confluent.connect.protobuf"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
PROTOBUF_TYPE_ENUM = NAMESPACE + ".Enum"
PROTOBUF_TYPE_UNION = NAMESPACE + ".Union"
PROTOBUF_TYPE_UNION_PREFIX = PROTOBUF_TYPE_UNION + "."
PROTOBUF_TYPE_TAG = NAMESPACE + ".Tag"
PROTOBUF_TYPE_PROP = NAMESPACE + ".Type"
PROTOBUF_TYPE_WRAPPER = NAMESPACE + ".Wrapper"
CONNECT_PRECISION_PROP = "connect.decimal.precision"
CONNECT_TYPE_PROP = "connect.type"

DECIMAL_TYPE = "confluent.type.Decimal"
DATE_TYPE = "google.type.Date"
TIME_TYPE = "google.type.TimeOfDay"
TIMESTAMP_TYPE = "google.protobuf.Timestamp"
WRAPPERS_LOCATION = "google/protobuf/wrappers.proto"
# Each type ProtobufData imports, and the file it imports it from.
DEPENDENCIES = {
    DECIMAL_TYPE: "confluent/type/decimal.proto",
    DATE_TYPE: "google/type/date.proto",
    TIME_TYPE: "google/type/timeofday.proto",
    TIMESTAMP_TYPE: "google/protobuf/timestamp.proto",
    **{f"google.protobuf.{w}": WRAPPERS_LOCATION for w in (
        "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value", "BoolValue",
        "StringValue", "BytesValue")},
}
_WRAPPER_SCHEMA_TYPES = {
    "google.protobuf.DoubleValue": SchemaType.FLOAT64,
    "google.protobuf.FloatValue": SchemaType.FLOAT32,
    "google.protobuf.Int64Value": SchemaType.INT64,
    "google.protobuf.UInt64Value": SchemaType.INT64,
    "google.protobuf.Int32Value": SchemaType.INT32,
    "google.protobuf.UInt32Value": SchemaType.INT64,
    "google.protobuf.BoolValue": SchemaType.BOOLEAN,
    "google.protobuf.StringValue": SchemaType.STRING,
    "google.protobuf.BytesValue": SchemaType.BYTES,
}
# A primitive root's wrapper message.
_ROOT_WRAPPERS = {
    SchemaType.INT8: "Int32Value", SchemaType.INT16: "Int32Value", SchemaType.INT32: "Int32Value",
    SchemaType.INT64: "Int64Value", SchemaType.FLOAT32: "FloatValue", SchemaType.FLOAT64: "DoubleValue",
    SchemaType.BOOLEAN: "BoolValue", SchemaType.STRING: "StringValue", SchemaType.BYTES: "BytesValue",
}

_F = FieldDescriptor
_UNSIGNED_64 = (_F.TYPE_UINT64, _F.TYPE_FIXED64)
_UNSIGNED_32 = (_F.TYPE_UINT32, _F.TYPE_FIXED32)
_EPOCH_DATE = datetime.date(1970, 1, 1)


# The files a schema may import and read with: protobuf's well-known types, Google's common types and
# Confluent's (Java's ProtobufSchema knows the same set), each after the files it imports.
_IMPORTABLE = (
    "google.protobuf.descriptor_pb2", "google.protobuf.any_pb2", "google.protobuf.duration_pb2",
    "google.protobuf.empty_pb2", "google.protobuf.field_mask_pb2", "google.protobuf.source_context_pb2",
    "google.protobuf.struct_pb2", "google.protobuf.timestamp_pb2", "google.protobuf.wrappers_pb2",
    "google.protobuf.type_pb2", "google.protobuf.api_pb2",
    "google.type.calendar_period_pb2", "google.type.color_pb2", "google.type.date_pb2",
    "google.type.datetime_pb2", "google.type.dayofweek_pb2", "google.type.expr_pb2", "google.type.fraction_pb2",
    "google.type.interval_pb2", "google.type.latlng_pb2", "google.type.money_pb2", "google.type.month_pb2",
    "google.type.phone_number_pb2", "google.type.postal_address_pb2", "google.type.quaternion_pb2",
    "google.type.timeofday_pb2",
    "confluent_kafka.schema_registry.confluent.meta_pb2", "confluent_kafka.schema_registry.confluent.type.decimal_pb2",
)


@functools.cache
def _dependency_protos() -> dict[str, descriptor_pb2.FileDescriptorProto]:
    # Loaded at the first schema compiled, not at import: a worker that never uses Protobuf skips it.
    protos = {}
    for name in _IMPORTABLE:
        proto = descriptor_pb2.FileDescriptorProto()
        importlib.import_module(name).DESCRIPTOR.CopyToProto(proto)
        protos[proto.name] = proto
    return protos


@functools.cache
def _known_types() -> dict[str, int]:
    """Every message and enum of the importable files, by full name."""
    known: dict[str, int] = {}
    for proto in _dependency_protos().values():
        for message in proto.message_type:
            known[f"{proto.package}.{message.name}"] = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
        for enum in proto.enum_type:
            known[f"{proto.package}.{enum.name}"] = descriptor_pb2.FieldDescriptorProto.TYPE_ENUM
    return known


@dataclass(frozen=True)
class ProtobufDataConfig:
    """Java's ``ProtobufDataConfig`` switches (``generalized.sum.type.support`` is refused at configure)."""

    enhanced_schema_support: bool = False
    scrub_invalid_names: bool = False
    int_for_enums: bool = False
    optional_for_nullables: bool = False
    optional_for_proto2: bool = True
    wrapper_for_nullables: bool = False
    wrapper_for_raw_primitives: bool = True
    generate_struct_for_nulls: bool = False
    generate_index_for_unions: bool = True
    flatten_unions: bool = False
    ignore_default_for_nullables: bool = False


@dataclass(frozen=True)
class ProtobufSchema:
    """A registry schema: its file model and text, and the message a payload of it holds."""

    file: ProtoFile
    text: str
    #: Confluent's message indexes of the message within the file ([0]: the first top-level one).
    indexes: tuple[int, ...]
    message_name: str


class ProtobufData:
    """The mapping, under one data config; stateless apart from it."""

    def __init__(self, config: ProtobufDataConfig | None = None) -> None:
        self.config = config or ProtobufDataConfig()

    # -- Connect schema -> .proto ------------------------------------------------------------------

    def from_connect_schema(self, schema: Schema) -> ProtobufSchema:
        """The ``.proto`` file Java's ``fromConnectSchema`` builds for ``schema``."""
        ctx = _FromConnect()
        full_name = ctx.name_or_default(schema.name)
        namespace, name = self._split_name(full_name)
        if schema.type is SchemaType.STRUCT:
            message = self._message(ctx, name, schema)
            file = ProtoFile(syntax="proto3", package=namespace, imports=ctx.imports, messages=[message])
            return ProtobufSchema(file, protobuf_text.to_text(file), (0,), _join(namespace, name))
        wrapper = _ROOT_WRAPPERS.get(schema.type)
        if wrapper is None:
            raise DataException(f"Unsupported root schema of type {schema.type}")
        file = protobuf_text.from_descriptor_proto(_dependency_protos()[WRAPPERS_LOCATION])
        index = next(i for i, m in enumerate(file.messages) if m.name == wrapper)
        return ProtobufSchema(file, protobuf_text.to_text(file), (index,), f"google.protobuf.{wrapper}")

    def _message(self, ctx: _FromConnect, name: str, schema: Schema) -> ProtoMessage:
        message = ProtoMessage(name)
        index = 1
        for f in schema.fields:
            tag_param = (f.schema.parameters or {}).get(PROTOBUF_TYPE_TAG)
            if tag_param is not None:
                tag = _tag(tag_param, f.name)
            else:
                tag = index
                index += 1
            proto_field = self._field(ctx, message, f.schema, self.scrub(f.name), tag, False)
            if proto_field is not None:
                message.fields.append(proto_field)
        return message

    def _oneof(self, ctx: _FromConnect, message: ProtoMessage, union: Schema, name: str) -> None:
        oneof = ProtoOneof(name)
        message.oneofs.append(oneof)
        for f in union.fields:
            tag_param = (f.schema.parameters or {}).get(PROTOBUF_TYPE_TAG)
            if tag_param is None:
                raise DataException(f"Union member {f.name} of {name} has no {PROTOBUF_TYPE_TAG} parameter")
            proto_field = self._field(ctx, message, f.schema, self.scrub(f.name), _tag(tag_param, f.name), True)
            if proto_field is not None:
                proto_field.label = None
                oneof.fields.append(proto_field)

    def _field(
        self, ctx: _FromConnect, message: ProtoMessage, schema: Schema, name: str, tag: int, oneof_member: bool
    ) -> ProtoField | None:
        label = self._label(schema)
        if schema.type is SchemaType.ARRAY:
            assert schema.value_schema is not None
            schema = schema.value_schema
        params: dict[str, str] = {}
        type_name = self._data_type(ctx, schema, name, params, oneof_member)
        parameters = schema.parameters or {}
        if schema.type is SchemaType.STRUCT:
            if _is_union(schema):
                assert schema.name is not None
                union_name = self._unqualified(ctx, schema.name[len(PROTOBUF_TYPE_UNION_PREFIX):])
                self._oneof(ctx, message, schema, union_name)
                return None
            if type_name != message.name and type_name not in ctx.children(message):
                ctx.children(message).add(type_name)
                message.messages.append(self._message(ctx, type_name, schema))
        elif schema.type is SchemaType.MAP:
            message.messages.append(self._map_entry(ctx, type_name, schema))
        elif PROTOBUF_TYPE_ENUM in parameters:
            enum_name = self._unqualified(ctx, schema.name)
            if not any(e.name == enum_name for e in message.enums):
                prefix = PROTOBUF_TYPE_ENUM + "."
                message.enums.append(ProtoEnum(
                    enum_name, [(k[len(prefix):], int(v)) for k, v in parameters.items() if k.startswith(prefix)]))
        else:
            dependency = DEPENDENCIES.get(type_name)
            if dependency is not None and dependency not in ctx.imports:
                ctx.imports.append(dependency)
        return ProtoField(name, tag, type_name, label, params)

    def _label(self, schema: Schema) -> str | None:
        if schema.type in (SchemaType.ARRAY, SchemaType.MAP):
            return "repeated"
        if self.config.optional_for_nullables and schema.is_optional:
            return "optional"
        return None

    def _map_entry(self, ctx: _FromConnect, name: str, schema: Schema) -> ProtoMessage:
        assert schema.key_schema is not None and schema.value_schema is not None
        entry = ProtoMessage(name)
        for field_name, tag, field_schema in (("key", 1, schema.key_schema), ("value", 2, schema.value_schema)):
            proto_field = self._field(ctx, entry, field_schema, field_name, tag, False)
            assert proto_field is not None
            entry.fields.append(proto_field)
        return entry

    def _data_type(
        self, ctx: _FromConnect, schema: Schema, field_name: str, params: dict[str, str], oneof_member: bool
    ) -> str:
        parameters = schema.parameters or {}
        name = schema.name
        if name == Decimal.LOGICAL_NAME:
            # Java fills a HashMap, whose order for these two keys is precision, scale.
            if CONNECT_PRECISION_PROP in parameters:
                params["precision"] = parameters[CONNECT_PRECISION_PROP]
            if "scale" in parameters:
                params["scale"] = parameters["scale"]
            return DECIMAL_TYPE
        if name == Date.LOGICAL_NAME:
            return DATE_TYPE
        if name == Time.LOGICAL_NAME:
            return TIME_TYPE
        if name == Timestamp.LOGICAL_NAME:
            return TIMESTAMP_TYPE
        wrap = (
            self.config.wrapper_for_nullables and schema.is_optional
            and (not oneof_member or parameters.get(PROTOBUF_TYPE_WRAPPER, "").lower() == "true")
        )
        t = schema.type
        if t in (SchemaType.INT8, SchemaType.INT16):
            params[CONNECT_TYPE_PROP] = "int8" if t is SchemaType.INT8 else "int16"
            return "google.protobuf.Int32Value" if wrap else "int32"
        if t is SchemaType.INT32:
            if PROTOBUF_TYPE_ENUM in parameters:
                return parameters[PROTOBUF_TYPE_ENUM]
            return "google.protobuf.Int32Value" if wrap else parameters.get(PROTOBUF_TYPE_PROP, "int32")
        if t is SchemaType.INT64:
            proto_type = parameters.get(PROTOBUF_TYPE_PROP, "int64")
            if not wrap:
                return proto_type
            if proto_type in ("uint32", "fixed32"):
                return "google.protobuf.UInt32Value"
            if proto_type in ("uint64", "fixed64"):
                return "google.protobuf.UInt64Value"
            return "google.protobuf.Int64Value"
        if t is SchemaType.FLOAT32:
            return "google.protobuf.FloatValue" if wrap else "float"
        if t is SchemaType.FLOAT64:
            return "google.protobuf.DoubleValue" if wrap else "double"
        if t is SchemaType.BOOLEAN:
            return "google.protobuf.BoolValue" if wrap else "bool"
        if t is SchemaType.STRING:
            if PROTOBUF_TYPE_ENUM in parameters:
                return parameters[PROTOBUF_TYPE_ENUM]
            return "google.protobuf.StringValue" if wrap else "string"
        if t is SchemaType.BYTES:
            return "google.protobuf.BytesValue" if wrap else "bytes"
        if t is SchemaType.ARRAY:
            raise DataException("Array cannot be nested")
        if t is SchemaType.MAP:
            return _to_map_entry(self._unqualified(ctx, name))
        struct_name = self._unqualified(ctx, name)
        return struct_name + "Message" if struct_name == field_name else struct_name

    def _split_name(self, full_name: str) -> tuple[str | None, str]:
        parts = [self.scrub(p) for p in full_name.split(".")]
        if len(parts) <= 1:
            return None, parts[0]
        return ".".join(parts[:-1]), parts[-1]

    def _unqualified(self, ctx: _FromConnect, name: str | None) -> str:
        return self.scrub(ctx.name_or_default(name).rsplit(".", 1)[-1])

    def scrub(self, name: str) -> str:
        """The name as written to the schema (``scrub.invalid.names``: Java's ``doScrubName``)."""
        return scrub_name(name) if self.config.scrub_invalid_names else name

    # -- .proto -> Connect schema ------------------------------------------------------------------

    def to_connect_schema(self, descriptor: Descriptor, params: _FieldParams, version: int | None) -> Schema:
        """The Connect schema Java's ``toConnectSchema`` gives for a message."""
        builder = None
        if self.config.wrapper_for_raw_primitives:
            builder = self._unwrapped(descriptor)
        if builder is None:
            builder = self._struct_schema(descriptor, params, set())
        if version is not None:
            builder.version(version)
        return builder.build()

    def _struct_schema(self, descriptor: Descriptor, params: _FieldParams, seen: set[str]) -> SchemaBuilder:
        if descriptor.full_name in seen:
            raise DataException(f"Recursive Protobuf message {descriptor.full_name} has no Connect schema")
        seen = seen | {descriptor.full_name}
        builder = SchemaBuilder.struct().name(
            descriptor.full_name if self.config.enhanced_schema_support else descriptor.name)
        for oneof in _real_oneofs(descriptor, params):
            if self.config.flatten_unions:
                for f in oneof.fields:
                    builder.field(f.name, self._field_schema(f, params, seen, True))
            else:
                union = SchemaBuilder.struct().name(PROTOBUF_TYPE_UNION_PREFIX + (
                    oneof.full_name if self.config.enhanced_schema_support else oneof.name))
                for f in oneof.fields:
                    union.field(f.name, self._field_schema(f, params, seen, True))
                builder.field(self._union_field_name(oneof.name, oneof.index), union.optional().build())
        for f in descriptor.fields:
            if _real_oneof(f, params) is None:
                builder.field(f.name, self._field_schema(f, params, seen, False))
        return builder

    def _union_field_name(self, name: str, index: int) -> str:
        return f"{name}_{index}" if self.config.generate_index_for_unions else name

    def _field_schema(self, f: FieldDescriptor, params: _FieldParams, seen: set[str], oneof_member: bool) -> Schema:
        t = f.type
        meta = params.get(f.full_name, {})
        builder: SchemaBuilder
        if t in (_F.TYPE_INT32, _F.TYPE_SINT32, _F.TYPE_SFIXED32):
            connect_type = meta.get(CONNECT_TYPE_PROP)
            if connect_type == "int8":
                builder = SchemaBuilder.int8()
            elif connect_type == "int16":
                builder = SchemaBuilder.int16()
            else:
                builder = SchemaBuilder.int32()
                if t != _F.TYPE_INT32:
                    builder.parameter(PROTOBUF_TYPE_PROP, _TYPE_NAMES[t])
        elif t in (_F.TYPE_UINT32, _F.TYPE_FIXED32, _F.TYPE_INT64, _F.TYPE_UINT64, _F.TYPE_SINT64, _F.TYPE_FIXED64,
                   _F.TYPE_SFIXED64):
            builder = SchemaBuilder.int64()
            if t != _F.TYPE_INT64:
                builder.parameter(PROTOBUF_TYPE_PROP, _TYPE_NAMES[t])
        elif t == _F.TYPE_FLOAT:
            builder = SchemaBuilder.float32()
        elif t == _F.TYPE_DOUBLE:
            builder = SchemaBuilder.float64()
        elif t == _F.TYPE_BOOL:
            builder = SchemaBuilder.bool()
        elif t == _F.TYPE_STRING:
            builder = SchemaBuilder.string()
        elif t == _F.TYPE_BYTES:
            builder = SchemaBuilder.bytes()
        elif t == _F.TYPE_ENUM:
            enum = f.enum_type
            builder = SchemaBuilder.int32() if self.config.int_for_enums else SchemaBuilder.string()
            builder.name(enum.full_name if self.config.enhanced_schema_support else enum.name)
            builder.parameter(PROTOBUF_TYPE_ENUM, enum.name)
            for value in enum.values:
                builder.parameter(f"{PROTOBUF_TYPE_ENUM}.{value.name}", str(value.number))
            builder.optional()
        elif t == _F.TYPE_MESSAGE:
            builder = self._message_field_schema(f, params, seen)
            builder.optional()
        else:
            raise DataException(f"Unknown Connect schema type: {t}")
        if f.is_repeated and builder.build().type is not SchemaType.MAP:
            builder = SchemaBuilder.array(builder.optional().build()).optional()
        if oneof_member:
            builder.optional()
            wrapper = t == _F.TYPE_MESSAGE and f.message_type.full_name in _WRAPPER_SCHEMA_TYPES
            if self.config.wrapper_for_nullables and wrapper:
                builder.parameter(PROTOBUF_TYPE_WRAPPER, "true")
        elif self.config.optional_for_nullables:
            if self._has_optional_keyword(f, params):
                builder.optional()
        elif not self.config.wrapper_for_nullables:
            builder.optional()
        builder.parameter(PROTOBUF_TYPE_TAG, str(f.number))
        return builder.build()

    def _message_field_schema(self, f: FieldDescriptor, params: _FieldParams, seen: set[str]) -> SchemaBuilder:
        full_name = f.message_type.full_name
        if full_name == DECIMAL_TYPE:
            meta = params.get(f.full_name, {})
            precision = _int_or_none(meta.get("precision"))
            builder = Decimal.builder(_int_or_none(meta.get("scale")) or 0)
            if precision is not None:
                builder.parameter(CONNECT_PRECISION_PROP, str(precision))
            return builder
        if full_name == DATE_TYPE:
            return Date.builder()
        if full_name == TIME_TYPE:
            return Time.builder()
        if full_name == TIMESTAMP_TYPE:
            return Timestamp.builder()
        if self.config.wrapper_for_nullables:
            unwrapped = self._unwrapped(f.message_type)
            if unwrapped is not None:
                return unwrapped
        if _is_map(f):
            key, value = f.message_type.fields
            entry_name = f.message_type.full_name if self.config.enhanced_schema_support else f.message_type.name
            return SchemaBuilder.map(
                self._field_schema(key, params, seen, False), self._field_schema(value, params, seen, False)
            ).name(_to_map_field(entry_name))
        return self._struct_schema(f.message_type, params, seen)

    @staticmethod
    def _unwrapped(descriptor: Descriptor) -> SchemaBuilder | None:
        t = _WRAPPER_SCHEMA_TYPES.get(descriptor.full_name)
        return None if t is None else SchemaBuilder(t)

    @staticmethod
    def _has_optional_keyword(f: FieldDescriptor, params: _FieldParams) -> bool:
        # Java's hasOptionalKeyword: proto3 `optional`, or a proto2 optional field outside a oneof.
        if f.full_name in params.proto3_optional:
            return True
        return params.proto2 and not f.is_repeated and not f.is_required and f.containing_oneof is None

    # -- values: Connect -> message ----------------------------------------------------------------

    def struct_writer(self, schema: Schema, descriptor: Descriptor) -> Callable[[Message, Struct], None]:
        """Fills a message of ``descriptor`` from a Struct of ``schema`` (Java's ``fromConnectData``)."""
        steps: list[tuple[Any, Callable[[Message, Any], None]]] = []
        by_name = descriptor.fields_by_name
        for f in schema.fields:
            if f.schema.type is SchemaType.STRUCT and _is_union(f.schema):
                members = []
                for member in f.schema.fields:
                    member_field = by_name.get(self.scrub(member.name))
                    if member_field is None:
                        raise DataException(f"Cannot find field with name {self.scrub(member.name)}")
                    members.append((member, self.value_setter(member.schema, member_field)))
                steps.append((f, _union_setter(members, self.config.ignore_default_for_nullables)))
                continue
            name = self.scrub(f.name)
            proto_field = by_name.get(name)
            if proto_field is None:
                raise DataException(f"Cannot find field with name {name}")
            steps.append((f, self.value_setter(f.schema, proto_field)))
        # Struct.get / get_without_default by field index, resolved here rather than per record.
        use_defaults = not self.config.ignore_default_for_nullables
        indexed = [(f.index, f.schema.default_value if use_defaults else None, setter) for f, setter in steps]

        def fill(message: Message, struct: Struct) -> None:
            if struct.__class__ is not Struct:
                raise DataException(f"Invalid type for STRUCT: {type(struct)}")
            if struct.schema is not schema and struct.schema != schema:
                raise DataException("Mismatching struct schema")
            values = struct._values
            for index, default, setter in indexed:
                value = values[index]
                if value is None:
                    value = default
                if value is not None:
                    setter(message, value)

        return fill

    def value_setter(self, schema: Schema, f: FieldDescriptor) -> Callable[[Message, Any], None]:
        """Sets field ``f`` of a message from a non-null Connect value of ``schema``."""
        name = f.name
        if schema.type is SchemaType.ARRAY:
            assert schema.value_schema is not None
            is_message, element = self._element_writer(schema.value_schema, f)

            def set_array(message: Message, values: Any) -> None:
                if None in values:
                    raise DataException(f"Protobuf cannot hold a null element in the array {name}")
                repeated = getattr(message, name)
                if is_message:
                    for v in values:
                        element(repeated.add(), v)
                else:
                    repeated.extend([element(v) for v in values])

            return set_array
        if schema.type is SchemaType.MAP:
            return self._map_setter(schema, f)
        is_message, element = self._element_writer(schema, f)
        if is_message:
            def set_message(message: Message, value: Any) -> None:
                child = getattr(message, name)
                child.SetInParent()
                element(child, value)

            return set_message

        def set_scalar(message: Message, value: Any) -> None:
            setattr(message, name, element(value))

        return set_scalar

    def _map_setter(self, schema: Schema, f: FieldDescriptor) -> Callable[[Message, Any], None]:
        assert schema.key_schema is not None and schema.value_schema is not None
        name = f.name
        entry = f.message_type
        key_field, value_field = entry.fields_by_name["key"], entry.fields_by_name["value"]
        set_key = self.value_setter(schema.key_schema, key_field)
        set_value = self.value_setter(schema.value_schema, value_field)
        if entry.GetOptions().map_entry:
            # A real map field: protobuf keeps it as a mapping, written through a scratch entry message.
            entry_class = message_factory.GetMessageClass(entry)

            def set_map(message: Message, values: Mapping[Any, Any]) -> None:
                target = getattr(message, name)
                for k, v in values.items():
                    scratch = entry_class()
                    if k is not None:
                        set_key(scratch, k)
                    if v is not None:
                        set_value(scratch, v)
                    if value_field.message_type is not None:
                        target[scratch.key].CopyFrom(scratch.value)
                    else:
                        target[scratch.key] = scratch.value

            return set_map

        def set_entries(message: Message, values: Mapping[Any, Any]) -> None:
            repeated = getattr(message, name)
            for k, v in values.items():
                item = repeated.add()
                if k is not None:
                    set_key(item, k)
                if v is not None:
                    set_value(item, v)

        return set_entries

    def _element_writer(self, schema: Schema, f: FieldDescriptor) -> tuple[bool, Callable[..., Any]]:
        """``(True, fill(message, value))`` for a message-typed field, else ``(False, convert(value))``."""
        logical = _LOGICAL_WRITERS.get(schema.name) if schema.name else None
        if logical is not None:
            return True, lambda m, v: logical(schema, m, v)
        message_type = f.message_type
        if message_type is not None:
            if message_type.full_name in _WRAPPER_SCHEMA_TYPES:
                convert = self._scalar_writer(schema, message_type.fields_by_name["value"])

                def wrap(m: Message, v: Any) -> None:
                    m.value = convert(v)

                return True, wrap
            if schema.type is SchemaType.STRUCT:
                return True, self.struct_writer(schema, message_type)
            raise DataException(f"Cannot write a {schema.type} value to the message field {f.name}")
        return False, self._scalar_writer(schema, f)

    def _scalar_writer(self, schema: Schema, f: FieldDescriptor) -> Callable[[Any], Any]:
        parameters = schema.parameters or {}
        t = schema.type
        if f.enum_type is not None:
            if t is SchemaType.STRING:
                prefix = PROTOBUF_TYPE_ENUM + "."

                def enum_number(v: str) -> int:
                    number = parameters.get(prefix + v)
                    if number is None:
                        raise DataException(f"Invalid enum symbol {v!r} for {f.enum_type.name}")
                    return int(number)

                return enum_number
            return _identity
        if t is SchemaType.BYTES:
            return bytes
        if f.type in _UNSIGNED_64:
            return lambda v: v & 0xFFFFFFFFFFFFFFFF
        if f.type in _UNSIGNED_32:
            return lambda v: v & 0xFFFFFFFF
        return _identity

    # -- values: message -> Connect ----------------------------------------------------------------

    def struct_reader(
        self, schema: Schema, descriptor: Descriptor, params: _FieldParams
    ) -> Callable[[Message], Struct]:
        """The Struct of ``schema`` for a message of ``descriptor`` (Java's ``toConnectData``)."""
        union_steps = []
        for oneof in _real_oneofs(descriptor, params):
            readers: dict[str, tuple[Any, Any, Callable[[Message], Any]]] = {}
            for f in oneof.fields:
                if self.config.flatten_unions:
                    connect_field = schema.field(f.name)
                    assert connect_field is not None
                    readers[f.name] = (connect_field, None, self.value_getter(connect_field.schema, f, params))
                else:
                    union_field = schema.field(self._union_field_name(oneof.name, oneof.index))
                    assert union_field is not None
                    member = union_field.schema.field(f.name)
                    assert member is not None
                    readers[f.name] = (union_field, member, self.value_getter(member.schema, f, params))
            union_steps.append((oneof.name, readers))
        field_steps = []
        for f in descriptor.fields:
            if _real_oneof(f, params) is not None:
                continue
            connect_field = schema.field(f.name)
            assert connect_field is not None
            always = (
                (f.type != _F.TYPE_MESSAGE or f.is_repeated) and not self._is_optional(f, params)
            ) or self.config.generate_struct_for_nulls
            getter = self.value_getter(connect_field.schema, f, params)
            field_steps.append((f.name, connect_field.index, always, getter))
        fill = StructFiller(schema).fill
        field_count = len(schema.fields)

        def read(message: Message) -> Struct:
            struct = Struct(schema)
            for oneof_name, readers in union_steps:
                which = message.WhichOneof(oneof_name)
                if which is None:
                    continue
                target, member, getter = readers[which]
                value = getter(message)
                if member is None:
                    struct.put(target, value)
                else:
                    union = Struct(target.schema)
                    union.put(member, value)
                    struct.put(target, union)
            values: list[Any] = [None] * field_count
            for name, index, always, getter in field_steps:
                if always or message.HasField(name):
                    values[index] = getter(message)
            return fill(struct, values)

        return read

    def _is_optional(self, f: FieldDescriptor, params: _FieldParams) -> bool:
        return f.full_name in params.proto3_optional or (
            self.config.optional_for_proto2 and self._has_optional_keyword(f, params))

    def value_getter(self, schema: Schema, f: FieldDescriptor, params: _FieldParams) -> Callable[[Message], Any]:
        """Reads field ``f`` of a message as a Connect value of ``schema``."""
        name = f.name
        if schema.type is SchemaType.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            entry = f.message_type
            read_key = self._element_reader(schema.key_schema, entry.fields_by_name["key"], params)
            read_value = self._element_reader(schema.value_schema, entry.fields_by_name["value"], params)
            if entry.GetOptions().map_entry:
                return lambda m: {read_key(k): read_value(v) for k, v in getattr(m, name).items()}
            return lambda m: {read_key(e.key): read_value(e.value) for e in getattr(m, name)}
        if schema.type is SchemaType.ARRAY:
            assert schema.value_schema is not None
            read_element = self._element_reader(schema.value_schema, f, params)
            return lambda m: [read_element(v) for v in getattr(m, name)]
        read = self._element_reader(schema, f, params)
        return lambda m: read(getattr(m, name))

    def _element_reader(self, schema: Schema, f: FieldDescriptor, params: _FieldParams) -> Callable[[Any], Any]:
        logical = _LOGICAL_READERS.get(schema.name) if schema.name else None
        if logical is not None:
            return lambda v: logical(schema, v)
        t = schema.type
        message_type = f.message_type
        if t is SchemaType.STRUCT:
            assert message_type is not None
            return self.struct_reader(schema, message_type, params)
        unwrap = message_type is not None and message_type.full_name in _WRAPPER_SCHEMA_TYPES
        if f.enum_type is not None and t is SchemaType.STRING:
            names = {v.number: v.name for v in f.enum_type.values}
            return lambda v: names.get(v, str(v))
        convert = _SCALAR_READERS.get(t, _identity)
        if unwrap:
            return lambda v: convert(v.value)
        return convert


class _FieldParams(dict[str, dict[str, str]]):
    """Per field full name, its ``confluent.field_meta`` params; plus the proto3 ``optional`` fields."""

    def __init__(self) -> None:
        super().__init__()
        self.proto3_optional: set[str] = set()
        self.proto2 = False


def field_params(file: ProtoFile) -> _FieldParams:
    """The meta params and proto3 ``optional`` fields of every field of ``file``, by full name."""
    result = _FieldParams()
    result.proto2 = file.syntax != "proto3"

    def walk(messages: list[ProtoMessage], scope: str) -> None:
        for message in messages:
            full = _join(scope, message.name)
            for f in message.fields + [m for o in message.oneofs for m in o.fields]:
                if f.params:
                    result[f"{full}.{f.name}"] = f.params
            if not result.proto2:
                result.proto3_optional.update(
                    f"{full}.{f.name}" for f in message.fields if f.label == "optional" and not message.map_entry)
            walk(message.messages, full)

    walk(file.messages, file.package or "")
    return result


def message_class(file: ProtoFile, message_name: str) -> type[Message]:
    """The message class of ``message_name`` compiled from ``file``, in a pool of its own (two versions of
    one schema declare the same names)."""
    pool = descriptor_pool.DescriptorPool()
    for proto in _dependency_protos().values():
        pool.Add(proto)
    # A primitive root's file is wrappers.proto itself, already in the pool.
    if not all(_join(file.package, m.name) in _known_types() for m in file.messages):
        proto = protobuf_text.to_descriptor_proto(file, "connect-runtime/schema.proto", _known_types())
        # Other imports (a schema's references) are not fetched: a type from one fails to resolve above.
        kept = [d for d in proto.dependency if d in _dependency_protos()]
        del proto.dependency[:]
        proto.dependency.extend(kept)
        try:
            pool.Add(proto)
        except (TypeError, ValueError) as e:
            raise DataException(f"Invalid Protobuf schema: {e}") from e
    try:
        found: type[Message] = message_factory.GetMessageClass(pool.FindMessageTypeByName(message_name))
        return found
    except KeyError as e:
        raise DataException(f"Invalid Protobuf schema: no message {message_name}") from e


class _FromConnect:
    """Java's ``FromConnectContext``: the ConnectDefaultN counter, nested names per message, imports."""

    def __init__(self) -> None:
        self.index = 0
        self.imports: list[str] = []
        self._children: dict[int, set[str]] = {}

    def name_or_default(self, name: str | None) -> str:
        if name:
            return name
        self.index += 1
        return f"{DEFAULT_SCHEMA_NAME}{self.index}"

    def children(self, message: ProtoMessage) -> set[str]:
        return self._children.setdefault(id(message), set())


def _is_union(schema: Schema) -> bool:
    return schema.name is not None and schema.name.startswith(PROTOBUF_TYPE_UNION)


def _real_oneof(f: FieldDescriptor, params: _FieldParams) -> Any:
    return None if f.full_name in params.proto3_optional else f.containing_oneof


def _real_oneofs(descriptor: Descriptor, params: _FieldParams) -> list[Any]:
    return [o for o in descriptor.oneofs if not any(f.full_name in params.proto3_optional for f in o.fields)]


def _is_map(f: FieldDescriptor) -> bool:
    if not f.is_repeated:
        return False
    fields = f.message_type.fields
    return (
        f.message_type.name.endswith("Entry") and len(fields) == 2 and fields[0].name == "key"
        and fields[1].name == "value" and not fields[0].is_repeated and not fields[1].is_repeated
    )


def _join(scope: str | None, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def _tag(text: str, field_name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise DataException(f"Invalid {PROTOBUF_TYPE_TAG} parameter {text!r} of field {field_name}") from None


def _int_or_none(text: str | None) -> int | None:
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def _to_map_entry(name: str) -> str:
    # Guava's LOWER_UNDERSCORE -> UPPER_CAMEL when the name has an underscore, as Java's toMapEntry.
    if "_" in name:
        name = "".join(word[:1].upper() + word[1:].lower() for word in name.split("_") if word)
    return name + "Entry"


def _to_map_field(name: str) -> str:
    # Java's toMapField: the last part without "Entry", UPPER_CAMEL -> LOWER_UNDERSCORE.
    parts = name.split(".")
    last = parts[-1]
    if last.endswith("Entry"):
        last = last[: -len("Entry")]
        last = "".join(("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(last))
        parts[-1] = last
    return ".".join(parts)


def scrub_name(name: str) -> str:
    """Java's ``ProtobufData.doScrubName``: URL-encode, prefix ``x`` before a digit or ``_``, then
    replace every character but ``[A-Za-z0-9_]`` with ``_``."""
    if not name:
        return name
    if all(c.isascii() and (c.isalnum() or c == "_") for c in name) and not (name[0].isdigit() or name[0] == "_"):
        return name
    encoded = "".join(
        c if c.isascii() and (c.isalnum() or c in ".-*_") else "+" if c == " "
        else "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
        for c in name
    )
    if encoded[0].isdigit() or encoded[0] == "_":
        encoded = "x" + encoded
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in encoded)


def _identity(value: Any) -> Any:
    return value


def _union_setter(
    members: list[tuple[Any, Callable[[Message, Any], None]]], without_default: bool
) -> Callable[[Message, Any], None]:
    get = Struct.get_without_default if without_default else Struct.get

    def set_union(message: Message, union: Any) -> None:
        for member, setter in members:
            value = get(union, member)
            if value is not None:
                setter(message, value)
                return
        raise DataException("Cannot find non-null field")

    return set_union


def _write_decimal(schema: Schema, message: Any, value: decimal.Decimal) -> None:
    if not isinstance(value, decimal.Decimal):
        raise DataException(f"Invalid type for Decimal, expected Decimal but was {type(value)}")
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):
        raise DataException(f"Decimal value {value} is not finite")
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    length = (unscaled if unscaled >= 0 else ~unscaled).bit_length() // 8 + 1
    message.value = unscaled.to_bytes(length, "big", signed=True)
    message.precision = len(str(abs(unscaled)))
    message.scale = -exponent


def _write_date(schema: Schema, message: Any, value: Any) -> None:
    day = _EPOCH_DATE + datetime.timedelta(days=Date.from_logical(schema, value))
    message.year, message.month, message.day = day.year, day.month, day.day


def _write_time(schema: Schema, message: Any, value: Any) -> None:
    millis = Time.from_logical(schema, value)
    message.hours, rest = divmod(millis, 3_600_000)
    message.minutes, rest = divmod(rest, 60_000)
    message.seconds, rest = divmod(rest, 1000)
    message.nanos = rest * 1_000_000


def _write_timestamp(schema: Schema, message: Any, value: Any) -> None:
    seconds, millis = divmod(Timestamp.from_logical(schema, value), 1000)
    message.seconds = seconds
    message.nanos = millis * 1_000_000


def _read_decimal(schema: Schema, message: Any) -> decimal.Decimal:
    if not message.value:
        raise DataException("Invalid Decimal value: zero length bytes")
    unscaled = int.from_bytes(message.value, "big", signed=True)
    digits = tuple(int(d) for d in str(abs(unscaled)))
    return decimal.Decimal((1 if unscaled < 0 else 0, digits, -message.scale))


def _read_date(schema: Schema, message: Any) -> datetime.date:
    try:
        return datetime.date(message.year, message.month, message.day)
    except ValueError as e:
        raise DataException(f"Invalid google.type.Date: {e}") from e


def _read_time(schema: Schema, message: Any) -> datetime.time:
    try:
        return datetime.time(message.hours, message.minutes, message.seconds,
                             (message.nanos // 1_000_000) * 1000, tzinfo=datetime.UTC)
    except ValueError as e:
        raise DataException(f"Invalid google.type.TimeOfDay: {e}") from e


def _read_timestamp(schema: Schema, message: Any) -> datetime.datetime:
    return Timestamp.to_logical(schema, message.seconds * 1000 + message.nanos // 1_000_000)


_LOGICAL_WRITERS: dict[str, Callable[[Schema, Any, Any], None]] = {
    Decimal.LOGICAL_NAME: _write_decimal,
    Date.LOGICAL_NAME: _write_date,
    Time.LOGICAL_NAME: _write_time,
    Timestamp.LOGICAL_NAME: _write_timestamp,
}
_LOGICAL_READERS: dict[str, Callable[[Schema, Any], Any]] = {
    Decimal.LOGICAL_NAME: _read_decimal,
    Date.LOGICAL_NAME: _read_date,
    Time.LOGICAL_NAME: _read_time,
    Timestamp.LOGICAL_NAME: _read_timestamp,
}


def _signed_64(value: int) -> int:
    # Java reads a uint64 into a long: values above Long.MAX_VALUE wrap to negative.
    return value - (1 << 64) if value >= 1 << 63 else value


def _byte(value: int) -> int:
    # Java's Number.byteValue / shortValue: an int32 beyond the range wraps.
    return (value + 0x80) % 0x100 - 0x80


def _short(value: int) -> int:
    return (value + 0x8000) % 0x10000 - 0x8000


_SCALAR_READERS: dict[SchemaType, Callable[[Any], Any]] = {
    SchemaType.INT8: _byte,
    SchemaType.INT16: _short,
    SchemaType.INT64: _signed_64,
    SchemaType.FLOAT32: float,
    SchemaType.FLOAT64: float,
    SchemaType.BYTES: bytes,
}
_TYPE_NAMES = {number: name for name, number in protobuf_text.SCALAR_TYPES.items()}
