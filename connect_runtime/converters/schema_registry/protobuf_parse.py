""".proto text read into ``protobuf_text``'s model with ``proto-schema-parser`` (a pure-Python parser of
the whole grammar): messages, fields with their ``confluent.field_meta`` parameters, ``map<K, V>`` fields
as protoc's entry messages, oneofs, enums and imports; other options are dropped."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from antlr4.error.ErrorListener import ErrorListener
from proto_schema_parser import ast
from proto_schema_parser.parser import Parser

from connect_runtime.api.errors import DataException
from connect_runtime.converters.schema_registry.protobuf_text import (
    FIELD_META_OPTION,
    ProtoEnum,
    ProtoField,
    ProtoFile,
    ProtoMessage,
    ProtoOneof,
)


def parse(text: str) -> ProtoFile:
    """The model of a ``.proto`` text; raises ``DataException`` when it is not valid ``.proto``."""
    try:
        parsed = Parser(setup_lexer=_raise_on_errors, setup_parser=_raise_on_errors).parse(text)
    except Exception as e:
        raise DataException(f"Could not parse Protobuf schema: {e}") from e
    file = ProtoFile(syntax=parsed.syntax or "proto2", package=None)
    for element in parsed.file_elements:
        if isinstance(element, ast.Package):
            file.package = element.name
        elif isinstance(element, ast.Import):
            file.imports.append(element.name)
        elif isinstance(element, ast.Message):
            file.messages.append(_message(element))
        elif isinstance(element, ast.Enum):
            file.enums.append(_enum(element))
    return file


class _RaisingListener(ErrorListener):  # type: ignore[misc]
    # The parser recovers from syntax errors and prints them by default; a schema must parse whole.
    def syntaxError(self, recognizer: Any, offendingSymbol: Any, line: int, column: int, msg: str, e: Any) -> None:
        raise ValueError(f"line {line}:{column} {msg}")


def _raise_on_errors(recognizer: Any) -> None:
    recognizer.removeErrorListeners()
    recognizer.addErrorListener(_RaisingListener())


def _message(parsed: ast.Message) -> ProtoMessage:
    message = ProtoMessage(parsed.name)
    for element in parsed.elements:
        if isinstance(element, ast.Field):
            message.fields.append(_field(element))
        elif isinstance(element, ast.MapField):
            entry = _map_entry_name(element.name)
            message.messages.append(ProtoMessage(
                entry,
                fields=[ProtoField("key", 1, element.key_type, "optional"),
                        ProtoField("value", 2, element.value_type, "optional")],
                map_entry=True,
            ))
            message.fields.append(
                ProtoField(element.name, element.number, entry, "repeated", _meta_params(element.options)))
        elif isinstance(element, ast.OneOf):
            message.oneofs.append(ProtoOneof(
                element.name, [_field(f) for f in element.elements if isinstance(f, ast.Field)]))
        elif isinstance(element, ast.Message):
            message.messages.append(_message(element))
        elif isinstance(element, ast.Enum):
            message.enums.append(_enum(element))
    return message


def _map_entry_name(field_name: str) -> str:
    # protoc's name for a map field's entry message: the field name in UpperCamel plus "Entry".
    return "".join(part[:1].upper() + part[1:] for part in field_name.split("_")) + "Entry"


def _field(parsed: ast.Field) -> ProtoField:
    label = parsed.cardinality.value.lower() if parsed.cardinality is not None else None
    return ProtoField(parsed.name, parsed.number, parsed.type, label, _meta_params(parsed.options))


def _enum(parsed: ast.Enum) -> ProtoEnum:
    return ProtoEnum(parsed.name, [(v.name, v.number) for v in parsed.elements if isinstance(v, ast.EnumValue)])


def _meta_params(options: Iterable[ast.Option]) -> dict[str, str]:
    params: dict[str, str] = {}
    for option in options:
        if option.name.strip("()").lstrip(".") != FIELD_META_OPTION or not isinstance(option.value, ast.MessageLiteral):
            continue
        for element in option.value.elements:
            if isinstance(element, ast.MessageLiteralField) and element.name == "params":
                for entry in element.value if isinstance(element.value, list) else [element.value]:
                    if isinstance(entry, ast.MessageLiteral):
                        kv = {e.name: e.value for e in entry.elements if isinstance(e, ast.MessageLiteralField)}
                        if "key" in kv:
                            params[str(kv["key"])] = str(kv.get("value", ""))
    return params


