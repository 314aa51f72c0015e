""".proto files as the Protobuf converter registers them: a small model of one file, the text Confluent's
``ProtobufSchemaUtils.toString`` prints for it, the model read back from any ``.proto`` text, and the
``FileDescriptorProto`` that protobuf's descriptor pool compiles message classes from.

Why a model of our own: registries (Apicurio above all) store and compare ``.proto`` *text*, so the text
must be the one Java's converter registers, byte for byte, and protobuf's Python package prints no
``.proto`` text at all. The model holds exactly what ``ProtobufData`` writes and reads (messages, fields,
oneofs, enums, imports and the ``confluent.field_meta`` parameters); options other than the field meta
and the file options are read and dropped, as they change neither the wire format nor the Connect schema.
Text is parsed by ``protobuf_parse``, then names are resolved here with protobuf's scoping rules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from google.protobuf import descriptor_pb2

from connect_runtime.api.errors import DataException

#: The option holding Confluent's per-field metadata (``confluent/meta.proto``'s ``Meta``).
FIELD_META_OPTION = "confluent.field_meta"
_PRECISION_KEY = "precision"
_SCALE_KEY = "scale"

_FDP = descriptor_pb2.FieldDescriptorProto
SCALAR_TYPES: dict[str, int] = {
    "double": _FDP.TYPE_DOUBLE,
    "float": _FDP.TYPE_FLOAT,
    "int64": _FDP.TYPE_INT64,
    "uint64": _FDP.TYPE_UINT64,
    "int32": _FDP.TYPE_INT32,
    "fixed64": _FDP.TYPE_FIXED64,
    "fixed32": _FDP.TYPE_FIXED32,
    "bool": _FDP.TYPE_BOOL,
    "string": _FDP.TYPE_STRING,
    "bytes": _FDP.TYPE_BYTES,
    "uint32": _FDP.TYPE_UINT32,
    "sfixed32": _FDP.TYPE_SFIXED32,
    "sfixed64": _FDP.TYPE_SFIXED64,
    "sint32": _FDP.TYPE_SINT32,
    "sint64": _FDP.TYPE_SINT64,
}
_SCALAR_NAMES = {number: name for name, number in SCALAR_TYPES.items()}
_LABELS = {"optional": _FDP.LABEL_OPTIONAL, "required": _FDP.LABEL_REQUIRED, "repeated": _FDP.LABEL_REPEATED}

# File options in the order Java's ProtobufSchema.toProtoFile lists them, with their kind.
_FILE_OPTIONS: tuple[tuple[str, str], ...] = (
    ("java_package", "string"),
    ("java_outer_classname", "string"),
    ("java_multiple_files", "bool"),
    ("java_generate_equals_and_hash", "bool"),
    ("java_string_check_utf8", "bool"),
    ("optimize_for", "enum"),
    ("go_package", "string"),
    ("cc_generic_services", "bool"),
    ("java_generic_services", "bool"),
    ("py_generic_services", "bool"),
    ("deprecated", "bool"),
    ("cc_enable_arenas", "bool"),
    ("objc_class_prefix", "string"),
    ("csharp_namespace", "string"),
    ("swift_prefix", "string"),
    ("php_class_prefix", "string"),
    ("php_namespace", "string"),
    ("php_metadata_namespace", "string"),
    ("ruby_package", "string"),
)


@dataclass
class ProtoField:
    """One field: its type as written (a scalar keyword, or a message or enum name), its label and the
    ``connect.*`` / decimal parameters of its ``confluent.field_meta`` option."""

    name: str
    number: int
    type: str
    label: str | None = None
    params: dict[str, str] = field(default_factory=dict)


@dataclass
class ProtoOneof:
    name: str
    fields: list[ProtoField] = field(default_factory=list)


@dataclass
class ProtoEnum:
    name: str
    values: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class ProtoMessage:
    name: str
    fields: list[ProtoField] = field(default_factory=list)
    oneofs: list[ProtoOneof] = field(default_factory=list)
    messages: list[ProtoMessage] = field(default_factory=list)
    enums: list[ProtoEnum] = field(default_factory=list)
    #: True for the entry message protoc synthesises for a ``map<K, V>`` field.
    map_entry: bool = False


@dataclass
class ProtoFile:
    syntax: str | None
    package: str | None
    imports: list[str] = field(default_factory=list)
    messages: list[ProtoMessage] = field(default_factory=list)
    enums: list[ProtoEnum] = field(default_factory=list)
    options: list[tuple[str, str, object]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------------
# Printing, as ProtobufSchemaUtils.toString (not normalized)


def to_text(file: ProtoFile) -> str:
    """The text Java's ``ProtobufSchema.canonicalString()`` gives for ``file``."""
    out: list[str] = []
    if file.syntax is not None:
        out.append(f'syntax = "{file.syntax}";\n')
    if file.package is not None:
        out.append(f"package {file.package};\n")
    if file.imports:
        out.append("\n")
        out.extend(f'import "{name}";\n' for name in file.imports)
    if file.options:
        out.append("\n")
        out.extend(f"option {_option_text(name, kind, value)};\n" for name, kind, value in file.options)
    if file.messages or file.enums:
        out.append("\n")
        out.extend(_message_text(message) for message in file.messages)
        out.extend(_enum_text(enum) for enum in file.enums)
    return "".join(out)


def _option_text(name: str, kind: str, value: object) -> str:
    if kind == "string":
        return f'{name} = "{escape(str(value))}"'
    if kind == "bool":
        return f"{name} = {'true' if value else 'false'}"
    return f"{name} = {value}"


def _indented(text: str) -> str:
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return "".join(f"  {line}\n" for line in lines)


def _message_text(message: ProtoMessage) -> str:
    out = [f"message {message.name} {{"]
    if message.map_entry:
        out.append("\n")
        out.append(_indented("option map_entry = true;\n"))
    if message.fields:
        out.append("\n")
        out.extend(_indented(_field_text(f, f.label)) for f in message.fields)
    if message.oneofs:
        out.append("\n")
        for oneof in message.oneofs:
            body = [f"oneof {oneof.name} {{"]
            if oneof.fields:
                body.append("\n")
                body.extend(_indented(_field_text(f, None)) for f in oneof.fields)
            body.append("}\n")
            out.append(_indented("".join(body)))
    if message.messages or message.enums:
        out.append("\n")
        out.extend(_indented(_message_text(nested)) for nested in message.messages)
        out.extend(_indented(_enum_text(nested)) for nested in message.enums)
    out.append("}\n")
    return "".join(out)


def _enum_text(enum: ProtoEnum) -> str:
    out = [f"enum {enum.name} {{"]
    if enum.values:
        out.append("\n")
        out.extend(_indented(f"{name} = {number};\n") for name, number in enum.values)
    out.append("}\n")
    return "".join(out)


def _field_text(f: ProtoField, label: str | None) -> str:
    prefix = f"{label} " if label is not None else ""
    text = f"{prefix}{f.type} {f.name} = {f.number}"
    if f.params:
        text += " [" + _field_meta_text(f.params) + "]"
    return text + ";\n"


def _field_meta_text(params: dict[str, str]) -> str:
    # Java prints a decimal's precision and scale value first ("for backward compatibility").
    entries = []
    for key, value in params.items():
        value_first = key in (_PRECISION_KEY, _SCALE_KEY)
        pairs = [("value", value), ("key", key)] if value_first else [("key", key), ("value", value)]
        body = "".join(
            _indented(f'{k}: "{escape(v)}"' + ("," if i < len(pairs) - 1 else "")) for i, (k, v) in enumerate(pairs)
        )
        entries.append("{\n" + body + "}")
    items = "".join(_indented(entry + ("," if i < len(entries) - 1 else "")) for i, entry in enumerate(entries))
    return f"({FIELD_META_OPTION}) = {{\n" + _indented("params: [\n" + items + "]") + "}"


def escape(text: str) -> str:
    """Java's ``ProtobufSchemaUtils.escapeChars``."""
    return text.translate(_ESCAPES)


_ESCAPES = str.maketrans({
    "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
    "\\": "\\\\", "'": "\\'", '"': '\\"',
})


# ---------------------------------------------------------------------------------------------------
# Reading text and descriptors into the model


def parse(text: str) -> ProtoFile:
    """The model of a ``.proto`` text; raises ``DataException`` when it is not valid ``.proto``."""
    # Imported on first use: the parser's grammar tables take a quarter of a second to load, which a
    # worker that never reads Protobuf should not pay at start.
    from connect_runtime.converters.schema_registry import protobuf_parse

    return protobuf_parse.parse(text)


def from_descriptor_proto(proto: descriptor_pb2.FileDescriptorProto) -> ProtoFile:
    """The model of a compiled file (a well-known type's), with its options, for printing."""
    file = ProtoFile(syntax=proto.syntax or "proto2", package=proto.package or None, imports=list(proto.dependency))
    options = proto.options
    for name, kind in _FILE_OPTIONS:
        if options.HasField(name):
            value: object = getattr(options, name)
            if kind == "enum":
                value = descriptor_pb2.FileOptions.OptimizeMode.Name(value)
            file.options.append((name, kind, value))
    file.messages = [_message_from_proto(m, file.syntax == "proto3") for m in proto.message_type]
    return file


def _message_from_proto(proto: descriptor_pb2.DescriptorProto, proto3: bool) -> ProtoMessage:
    message = ProtoMessage(proto.name)
    for f in proto.field:
        label = "repeated" if f.label == _FDP.LABEL_REPEATED else (None if proto3 else "optional")
        type_name = f.type_name if f.type_name else _SCALAR_NAMES[f.type]
        message.fields.append(ProtoField(f.name, f.number, type_name, label))
    message.messages = [_message_from_proto(m, proto3) for m in proto.nested_type]
    return message


# ---------------------------------------------------------------------------------------------------
# Compiling the model to a FileDescriptorProto


def to_descriptor_proto(
    file: ProtoFile, file_name: str, known_types: dict[str, int]
) -> descriptor_pb2.FileDescriptorProto:
    """The compiled form of ``file``: type names resolved to full names (against this file's types and
    ``known_types``, full name to ``TYPE_MESSAGE`` / ``TYPE_ENUM``), proto3 ``optional`` fields in
    synthetic oneofs. Options are left out: they change neither the wire format nor the mapping."""
    package = file.package or ""
    symbols = dict(known_types)
    for full_name, kind in _declared(file.messages, file.enums, package):
        symbols[full_name] = kind
    proto3 = file.syntax == "proto3"
    result = descriptor_pb2.FileDescriptorProto(name=file_name, package=package, syntax=file.syntax or "proto2")
    result.dependency.extend(file.imports)
    for message in file.messages:
        result.message_type.append(_compile_message(message, package, symbols, proto3))
    for enum in file.enums:
        result.enum_type.append(_compile_enum(enum))
    return result


def _declared(messages: list[ProtoMessage], enums: list[ProtoEnum], scope: str) -> Iterator[tuple[str, int]]:
    for enum in enums:
        yield _join(scope, enum.name), _FDP.TYPE_ENUM
    for message in messages:
        full = _join(scope, message.name)
        yield full, _FDP.TYPE_MESSAGE
        yield from _declared(message.messages, message.enums, full)


def _join(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


def _resolve(type_name: str, scope: str, symbols: dict[str, int]) -> tuple[str, int]:
    if type_name.startswith("."):
        found = symbols.get(type_name[1:])
        if found is not None:
            return type_name, found
    else:
        parts = scope.split(".") if scope else []
        for i in range(len(parts), -1, -1):
            candidate = _join(".".join(parts[:i]), type_name)
            found = symbols.get(candidate)
            if found is not None:
                return "." + candidate, found
    raise DataException(f"Could not resolve Protobuf type {type_name} in {scope or 'the file'}")


def _compile_message(
    message: ProtoMessage, scope: str, symbols: dict[str, int], proto3: bool
) -> descriptor_pb2.DescriptorProto:
    full = _join(scope, message.name)
    result = descriptor_pb2.DescriptorProto(name=message.name)
    if message.map_entry:
        result.options.map_entry = True
    synthetic: list[str] = []
    for f in message.fields:
        compiled = _compile_field(f, full, symbols, proto3 and not message.map_entry)
        if proto3 and f.label == "optional" and not message.map_entry:
            compiled.proto3_optional = True
            synthetic.append(f.name)
            compiled.oneof_index = len(message.oneofs) + len(synthetic) - 1
        result.field.append(compiled)
    for index, oneof in enumerate(message.oneofs):
        result.oneof_decl.add(name=oneof.name)
        for f in oneof.fields:
            compiled = _compile_field(f, full, symbols, False)
            compiled.oneof_index = index
            result.field.append(compiled)
    for name in synthetic:
        # Synthetic oneofs come after the real ones, as protoc orders them.
        result.oneof_decl.add(name=_synthetic_oneof_name(name, result))
    for nested in message.messages:
        result.nested_type.append(_compile_message(nested, full, symbols, proto3))
    for enum in message.enums:
        result.enum_type.append(_compile_enum(enum))
    return result


def _synthetic_oneof_name(field_name: str, message: descriptor_pb2.DescriptorProto) -> str:
    taken = {f.name for f in message.field} | {o.name for o in message.oneof_decl}
    name = "_" + field_name
    while name in taken:
        name = "X" + name
    return name


def _compile_field(
    f: ProtoField, scope: str, symbols: dict[str, int], proto3: bool
) -> descriptor_pb2.FieldDescriptorProto:
    result = descriptor_pb2.FieldDescriptorProto(name=f.name, number=f.number)
    result.label = _LABELS.get(f.label or "optional", _FDP.LABEL_OPTIONAL)
    if proto3 and result.label == _FDP.LABEL_REQUIRED:
        raise DataException(f"Required fields are not allowed in proto3: {f.name}")
    scalar = SCALAR_TYPES.get(f.type)
    if scalar is not None:
        result.type = scalar
    else:
        type_name, kind = _resolve(f.type, scope, symbols)
        result.type_name = type_name
        result.type = kind
    return result


def _compile_enum(enum: ProtoEnum) -> descriptor_pb2.EnumDescriptorProto:
    result = descriptor_pb2.EnumDescriptorProto(name=enum.name)
    for name, number in enum.values:
        result.value.add(name=name, number=number)
    return result


def message_path(file: ProtoFile, indexes: list[int]) -> str:
    """The full name of the message that Confluent's message indexes point at in ``file``."""
    messages = file.messages
    names: list[str] = [file.package] if file.package else []
    for index in indexes:
        if not 0 <= index < len(messages):
            raise DataException(f"Invalid message indexes: {indexes}")
        names.append(messages[index].name)
        messages = messages[index].messages
    if not indexes:
        raise DataException("Invalid message indexes: []")
    return ".".join(names)
