"""Whether one ``.proto`` file reads what another writes: Confluent's ``ProtobufSchema.isBackwardCompatible``
(its ``SchemaDiff`` rules), which ``latest.compatibility.strict`` applies before a converter writes with
the subject's latest schema.

The rules, from Confluent's ``diff`` package: fields are matched by number across a message (oneof
members included); adding or removing a field is compatible, unless it is ``required`` or the removed
field was a member of a oneof that lives on; a field keeps its kind (scalar or enum, message, map), its
scalar group (``int32``/``int64``/``uint32``/``uint64``/``bool`` and enums, ``sint32``/``sint64``,
``fixed32``/``sfixed32``, ``fixed64``/``sfixed64``, ``float``, ``double``, ``string``/``bytes``), a
numeric field its label, a message field its type's name; a message may not disappear, the package may
not change, and fields that were independent may not be put into one oneof.
"""

from __future__ import annotations

from collections.abc import Iterator

from connect_runtime.converters.schema_registry.protobuf_text import ProtoFile, ProtoMessage

_GROUPS = {
    "int32": "number", "int64": "number", "uint32": "number", "uint64": "number", "bool": "number",
    "sint32": "signed", "sint64": "signed", "fixed32": "fixed32", "sfixed32": "fixed32",
    "fixed64": "fixed64", "sfixed64": "fixed64", "float": "float", "double": "double",
    "string": "string_or_bytes", "bytes": "string_or_bytes",
}


def incompatibilities(original: ProtoFile, update: ProtoFile) -> list[str]:
    """The differences that make ``update`` unable to read what ``original`` writes (empty: compatible)."""
    found: list[str] = []
    if (original.package or "") != (update.package or ""):
        found.append("PACKAGE_CHANGED")
    before, after = _Types(original), _Types(update)
    for path, message in before.messages.items():
        updated = after.messages.get(path)
        if updated is None:
            found.append(f"MESSAGE_REMOVED {path}")
        else:
            found.extend(f"{d} at {path}" for d in _message_differences(path, message, updated, before, after))
    return found


class _Types:
    """A file's messages and enums by their path within the package (``Outer.Inner``)."""

    def __init__(self, file: ProtoFile) -> None:
        self.package = file.package or ""
        self.messages: dict[str, ProtoMessage] = {}
        self.enums: set[str] = set()
        self._walk(file.messages, [e.name for e in file.enums], "")

    def _walk(self, messages: list[ProtoMessage], enums: list[str], scope: str) -> None:
        self.enums.update(scope + e for e in enums)
        for message in messages:
            path = scope + message.name
            self.messages[path] = message
            self._walk(message.messages, [e.name for e in message.enums], path + ".")

    def kind(self, type_name: str, scope: str) -> tuple[str, str]:
        """("scalar", its group) for scalars and enums, else ("message", the resolved path)."""
        group = _GROUPS.get(type_name)
        if group is not None:
            return "scalar", group
        if type_name.startswith("."):
            name = type_name[1:]
            candidates = [name[len(self.package) + 1:] if self.package and name.startswith(self.package + ".")
                          else name]
        else:
            parts = scope.split(".")
            candidates = [".".join([*parts[:i], type_name]) for i in range(len(parts), -1, -1)]
        for candidate in candidates:
            if candidate in self.enums:
                return "scalar", "number"
            if candidate in self.messages:
                return "message", candidate
        return "message", type_name.lstrip(".")


def _message_differences(
    path: str, original: ProtoMessage, update: ProtoMessage, before: _Types, after: _Types
) -> Iterator[str]:
    original_fields, original_oneof = _by_tag(original)
    update_fields, _ = _by_tag(update)
    for oneof in update.oneofs:
        groups = {f"oneof:{original_oneof[f.number]}" if f.number in original_oneof else f"field:{f.number}"
                  for f in oneof.fields if f.number in original_fields}
        if len(groups) > 1:
            yield f"FIELDS_MOVED_TO_ONEOF {oneof.name}"
    living_oneofs = {o.name for o in update.oneofs} | {original_oneof[t] for t in original_oneof if t in update_fields}
    for tag in sorted(original_fields.keys() | update_fields.keys()):
        was, now = original_fields.get(tag), update_fields.get(tag)
        if now is None:
            assert was is not None
            if tag in original_oneof and original_oneof[tag] in living_oneofs:
                yield f"ONEOF_FIELD_REMOVED {tag}"
            elif was[1] == "required":
                yield f"REQUIRED_FIELD_REMOVED {tag}"
        elif was is None:
            if now[1] == "required":
                yield f"REQUIRED_FIELD_ADDED {tag}"
        else:
            was_kind, was_name = before.kind(was[0], path)
            now_kind, now_name = after.kind(now[0], path)
            if was_kind != now_kind:
                yield f"FIELD_KIND_CHANGED {tag}"
            elif was_name != now_name:
                yield f"{'FIELD_NAMED_TYPE_CHANGED' if was_kind == 'message' else 'FIELD_SCALAR_KIND_CHANGED'} {tag}"
            elif (was_kind == "scalar" and was_name != "string_or_bytes" and was[1] is not None
                  and now[1] is not None and was[1] != now[1]):
                yield f"FIELD_NUMERIC_LABEL_CHANGED {tag}"


def _by_tag(message: ProtoMessage) -> tuple[dict[int, tuple[str, str | None]], dict[int, str]]:
    """Every field by number as (type, label), oneof members included, and each member's oneof."""
    fields: dict[int, tuple[str, str | None]] = {f.number: (f.type, f.label) for f in message.fields}
    oneof_of: dict[int, str] = {}
    for oneof in message.oneofs:
        for f in oneof.fields:
            fields[f.number] = (f.type, None)
            oneof_of[f.number] = oneof.name
    return fields, oneof_of
