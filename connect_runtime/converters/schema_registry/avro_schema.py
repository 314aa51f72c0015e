"""Avro schemas as Avro's Java library holds, parses and prints them.

The registry compares schema *text*, and Confluent's converter registers the text Avro Java's compact
``Schema.toString()`` gives: reserved keys in a fixed order, custom properties in insertion order,
a named type printed once and then by name, a namespace left out where it equals the enclosing one,
numbers and strings as Jackson writes them. A Python worker must register byte-identical text, or a
Java worker and a Python worker would register two versions of one schema; fastavro's parser drops
and reorders properties, so this module keeps its own small model of a schema, and hands fastavro
only the finished text.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import java_float_to_string, json_dumps_compact

PRIMITIVES: Final = frozenset(("null", "boolean", "int", "long", "float", "double", "bytes", "string"))
NAMED: Final = frozenset(("record", "enum", "fixed"))

# Keys Avro Java reads as the schema itself; every other key of a schema object is a property.
_SCHEMA_RESERVED: Final = frozenset(
    ("doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type", "aliases"))
_ENUM_RESERVED: Final = _SCHEMA_RESERVED | {"default"}
_FIELD_RESERVED: Final = frozenset(("default", "doc", "name", "order", "type", "aliases"))


class Float32(float):
    """A JSON number that came from a Java ``float`` (Jackson prints it with ``Float.toString``)."""

    __slots__ = ()


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: A field without a default (``None`` is the JSON ``null`` default).
NO_DEFAULT: Final[Any] = _NoDefault()


@dataclass(eq=False)
class AvroSchema:
    """One Avro schema node. ``type`` is the Avro type name; the other attributes apply by type.

    Nodes compare by identity: Avro Java prints a named type again by name only when it is the same
    definition, and a converter that reuses a node reuses it on purpose.
    """

    type: str
    props: dict[str, Any] = field(default_factory=dict)
    # record, enum, fixed
    name: str | None = None
    namespace: str | None = None
    doc: str | None = None
    # record
    fields: list[AvroField] = field(default_factory=list)
    # enum
    symbols: list[str] = field(default_factory=list)
    enum_default: str | None = None
    # fixed
    size: int = 0
    # array: items, map: values, union: types
    items: AvroSchema | None = None
    values: AvroSchema | None = None
    types: list[AvroSchema] = field(default_factory=list)

    @property
    def full_name(self) -> str | None:
        """``namespace.name`` of a named type (just ``name`` without a namespace), else None."""
        if self.name is None:
            return None
        return f"{self.namespace}.{self.name}" if self.namespace else self.name

    def prop(self, key: str) -> Any:
        """A property's value, or None."""
        return self.props.get(key)

    def field(self, name: str) -> AvroField | None:
        """A record's field called ``name``, or None."""
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def text(self) -> str:
        """The compact text Avro Java's ``Schema.toString()`` prints."""
        out: list[str] = []
        _write(self, out, {}, [None])
        return "".join(out)

    def is_named(self) -> bool:
        """Whether this is a record, enum or fixed (a type that has a name)."""
        return self.type in NAMED


@dataclass(eq=False)
class AvroField:
    """A record field: ``default`` is :data:`NO_DEFAULT` for none, else the JSON value."""

    name: str
    schema: AvroSchema
    doc: str | None = None
    default: Any = NO_DEFAULT
    props: dict[str, Any] = field(default_factory=dict)
    order: str | None = None


def union_of(types: list[AvroSchema]) -> AvroSchema:
    """A union of ``types``; ``DataException`` with Avro's message for one Avro refuses: a union
    in a union, or two members of one name (the full name of a named type, else the type)."""
    union = AvroSchema("union", types=types)
    seen: set[str] = set()
    for member in types:
        if member.type == "union":
            raise DataException(f"Nested union: {union.text()}")
        name = member.full_name if member.is_named() else member.type
        if name in seen:
            raise DataException(f"Duplicate in union:{name}")
        seen.add(name or "")
    return union


def validate_name(name: str) -> str:
    """``name`` if Avro Java (1.12, its default validator) accepts it as the simple name of a type,
    a field name or an enum symbol, else ``DataException`` with Avro's message: a letter or ``_``,
    then letters, digits (``Character.isLetter`` / ``isLetterOrDigit``, per UTF-16 unit) or ``_``."""
    if not name:
        raise DataException("Empty name")
    if not _is_name_char(name[0], False):
        raise DataException(f"Illegal initial character: {name}")
    if not all(_is_name_char(c, True) for c in name):
        raise DataException(f"Illegal character in: {name}")
    return name


def _is_name_char(c: str, digit_ok: bool) -> bool:
    if c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z") or (digit_ok and "0" <= c <= "9"):
        return True
    if c.isascii() or ord(c) > 0xFFFF:
        return False  # Java sees a character beyond the BMP as two surrogates, no letters
    category = unicodedata.category(c)
    return category in _LETTER_CATEGORIES or (digit_ok and category == "Nd")


_LETTER_CATEGORIES: Final = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo"))


def primitive(type_name: str) -> AvroSchema:
    """A new primitive schema node (a fresh node, so properties may be added to it)."""
    return AvroSchema(type_name)


# -------------------------------------------------------------------------------------------------
# Printing


def json_text(value: Any) -> str:
    """``value`` (JSON data: None, bool, int, float, :class:`Float32`, str, list, dict) as Avro's
    ``Schema.toString`` writes it: compact, Java's number formats, Jackson's string escapes."""
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, Float32):
        text = java_float_to_string(value)
        # Jackson quotes non-finite numbers (WRITE_NAN_AS_STRINGS is on by default)
        return text if math.isfinite(value) else _quote(text)
    if isinstance(value, Mapping):
        return "{" + ",".join(_quote(str(k)) + ":" + json_text(v) for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    return json_dumps_compact(value).decode("utf-8")


def _quote(text: str) -> str:
    """A JSON string as Jackson's writer-based generator (the one ``Schema.toString`` uses) writes
    it: only quotes, backslashes and control characters escaped; other characters, those beyond
    the BMP too, as they are (the byte-based generator would escape those as surrogate pairs)."""
    return '"' + _ESCAPE_RE.sub(_escape_char, text) + '"'


_ESCAPE_RE: Final = re.compile('[\x00-\x1f"\\\\]')
_SHORT_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                         "\f": "\\f", "\r": "\\r"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04X}"


def _write(schema: AvroSchema, out: list[str], names: dict[str, AvroSchema], space: list[str | None]) -> None:
    kind = schema.type
    if kind in PRIMITIVES:
        if not schema.props:
            out.append(_quote(kind))
            return
        out.append('{"type":' + _quote(kind))
        _write_props(schema.props, out)
        out.append("}")
        return
    if kind == "union":
        out.append("[")
        for i, member in enumerate(schema.types):
            if i:
                out.append(",")
            _write(member, out, names, space)
        out.append("]")
        return
    if kind == "array" or kind == "map":
        child = schema.items if kind == "array" else schema.values
        assert child is not None
        out.append('{"type":' + _quote(kind) + (',"items":' if kind == "array" else ',"values":'))
        _write(child, out, names, space)
        _write_props(schema.props, out)
        out.append("}")
        return
    # A named type: by name when a type of this full name was printed before (Avro 1.12's
    # writeNameRef tracks full names only, so a *different* type of the same name is printed as a
    # reference too: Java registers that text, and so must we; the codec keeps the real types).
    full = schema.full_name
    assert full is not None
    if full in names:
        # Avro's Name.getQualified: the short name when in the enclosing namespace (or in none)
        short = not schema.namespace or schema.namespace == space[0]
        out.append(_quote((schema.name or "") if short else full))
        return
    names[full] = schema
    saved = space[0]
    out.append('{"type":' + _quote(kind) + ',"name":' + _quote(schema.name or ""))
    if schema.namespace:
        if schema.namespace != saved:
            out.append(',"namespace":' + _quote(schema.namespace))
    elif saved:
        out.append(',"namespace":""')
    if kind == "record":
        space[0] = schema.namespace or None
    if schema.doc is not None:
        out.append(',"doc":' + _quote(schema.doc))
    if kind == "record":
        out.append(',"fields":[')
        for i, f in enumerate(schema.fields):
            if i:
                out.append(",")
            out.append('{"name":' + _quote(f.name) + ',"type":')
            _write(f.schema, out, names, space)
            if f.doc is not None:
                out.append(',"doc":' + _quote(f.doc))
            if f.default is not NO_DEFAULT:
                out.append(',"default":' + json_text(f.default))
            if f.order is not None:
                out.append(',"order":' + _quote(f.order))
            _write_props(f.props, out)
            out.append("}")
        out.append("]")
    elif kind == "enum":
        out.append(',"symbols":' + json_text(schema.symbols))
        if schema.enum_default is not None:
            out.append(',"default":' + _quote(schema.enum_default))
    else:
        out.append(',"size":' + str(schema.size))
    _write_props(schema.props, out)
    out.append("}")
    space[0] = saved


def _write_props(props: Mapping[str, Any], out: list[str]) -> None:
    for key, value in props.items():
        out.append("," + _quote(key) + ":" + json_text(value))


def codec_schema(avro: AvroSchema) -> Any:
    """The schema fastavro writes and reads ``avro``'s data with, built from the nodes, not the text.

    The text is no faithful description: Avro Java prints a second, different type of an already
    printed full name as a mere name reference (two unrelated maps with non-string keys both make
    ``io.confluent.connect.avro.MapEntry``), and its name lookup falls back to the null namespace
    where fastavro's does not. Java writes each value with the real node, so the codec has every
    node under its :func:`_codec_name` (a later, different node of the same name gets a suffix),
    the branches of a union of several types wrapped (:func:`union_branch_name`), no logical
    types (Connect's conversions run instead, as in Java) and no defaults (every datum is
    complete; fastavro checks defaults more strictly than Avro Java, which registered them).
    """
    return _codec_node(avro, {}, set())


#: The field of codec_schema's union branch wrappers.
BRANCH_FIELD: Final = "v"


def union_branch_name(union: AvroSchema, index: int) -> str:
    """The name of the wrapper record :func:`codec_schema` gives the ``index``-th member of a
    union of several types (in fastavro's tuple notation, the name of that branch). The names
    hold for the life of the union node, as the codec and the value writers made from it do."""
    return f".union{id(union)}.{index}"


def _codec_name(avro: AvroSchema) -> str:
    """A named type's name in :func:`codec_schema` (and so in fastavro's union tuples): the full
    name, with a leading dot when it has no namespace. fastavro qualifies a name without a dot by
    the enclosing namespace, where Avro Java falls back to the null namespace."""
    full = avro.full_name or ""
    return full if "." in full else "." + full


def _codec_node(avro: AvroSchema, defined: dict[int, str], taken: set[str]) -> Any:
    kind = avro.type
    if kind == "union":
        if sum(member.type != "null" for member in avro.types) < 2:
            return [_codec_node(member, defined, taken) for member in avro.types]
        # Each branch of a union of several types is wrapped in a record of one field, which Avro
        # encodes as that field alone: the bytes are the same, and fastavro's tuple notation then
        # names the branch both ways, where its own guess from a value is no guide (an int64 in
        # an int branch, a float read as a double, a map taken for a record).
        branches: list[Any] = []
        for i, member in enumerate(avro.types):
            if member.type == "null":
                branches.append("null")
                continue
            wrapper = union_branch_name(avro, i)
            if wrapper in taken:
                branches.append(wrapper)  # this union met before: its wrappers are defined
                continue
            taken.add(wrapper)
            branches.append({"type": "record", "name": wrapper, "namespace": "",
                             "fields": [{"name": BRANCH_FIELD, "type": _codec_node(member, defined, taken)}]})
        return branches
    if kind == "array":
        assert avro.items is not None
        return {"type": "array", "items": _codec_node(avro.items, defined, taken)}
    if kind == "map":
        assert avro.values is not None
        return {"type": "map", "values": _codec_node(avro.values, defined, taken)}
    if not avro.is_named():
        return kind
    name = defined.get(id(avro))
    if name is not None:
        return name
    full = _codec_name(avro)
    name, suffix = full, 1
    while name in taken:
        suffix += 1
        name = f"{full}_{suffix}"
    taken.add(name)
    defined[id(avro)] = name
    node: dict[str, Any] = {"type": kind, "name": name, "namespace": ""}
    if kind == "record":
        node["fields"] = [{"name": f.name, "type": _codec_node(f.schema, defined, taken)} for f in avro.fields]
    elif kind == "enum":
        node["symbols"] = avro.symbols
    else:
        node["size"] = avro.size
    return node


# -------------------------------------------------------------------------------------------------
# Parsing


def parse(text: str) -> AvroSchema:
    """The schema of Avro JSON ``text`` (as the registry returns it), properties in document order.

    Raises ``DataException`` for text that is not an Avro schema.
    """
    try:
        document = json.loads(text)
    except ValueError as e:
        raise DataException(f"Invalid Avro schema: {e}") from e
    return _Parser().parse(document, None)


class _Parser:
    def __init__(self) -> None:
        self.names: dict[str, AvroSchema] = {}

    def parse(self, node: Any, space: str | None) -> AvroSchema:
        if isinstance(node, str):
            return self._reference(node, space)
        if isinstance(node, list):
            return AvroSchema("union", types=[self.parse(member, space) for member in node])
        if not isinstance(node, dict) or "type" not in node:
            raise DataException(f"Invalid Avro schema: {node!r}")
        kind = node["type"]
        if not isinstance(kind, str):
            # {"type": {...}} or {"type": [...]}: Avro reads the inner schema (its props are lost).
            return self.parse(kind, space)
        if kind in PRIMITIVES:
            return AvroSchema(kind, props=_props(node, _SCHEMA_RESERVED))
        if kind == "array":
            return AvroSchema("array", items=self.parse(node.get("items"), space),
                              props=_props(node, _SCHEMA_RESERVED))
        if kind == "map":
            return AvroSchema("map", values=self.parse(node.get("values"), space),
                              props=_props(node, _SCHEMA_RESERVED))
        if kind in NAMED:
            return self._named(kind, node, space)
        return self._reference(kind, space)

    def _reference(self, name: str, space: str | None) -> AvroSchema:
        if name in PRIMITIVES:
            return AvroSchema(name)
        full = name if "." in name or not space else f"{space}.{name}"
        found = self.names.get(full) or self.names.get(name)
        if found is None:
            raise DataException(f"Invalid Avro schema: undefined name {name!r}")
        return found

    def _named(self, kind: str, node: dict[str, Any], space: str | None) -> AvroSchema:
        raw_name = node.get("name")
        if not isinstance(raw_name, str) or not raw_name:
            raise DataException(f"Invalid Avro schema: a {kind} needs a name")
        namespace = node.get("namespace", space)
        if "." in raw_name:
            namespace, _, raw_name = raw_name.rpartition(".")
        namespace = namespace or None
        reserved = _ENUM_RESERVED if kind == "enum" else _SCHEMA_RESERVED
        schema = AvroSchema(kind, name=raw_name, namespace=namespace, doc=node.get("doc"),
                            props=_props(node, reserved))
        self.names[schema.full_name or raw_name] = schema
        if kind == "record":
            for f in node.get("fields") or []:
                schema.fields.append(AvroField(
                    f["name"], self.parse(f["type"], namespace), doc=f.get("doc"),
                    default=f.get("default", NO_DEFAULT), props=_props(f, _FIELD_RESERVED),
                    order=f.get("order")))
        elif kind == "enum":
            schema.symbols = list(node.get("symbols") or [])
            schema.enum_default = node.get("default")
        else:
            schema.size = int(node.get("size", 0))
        return schema


def _props(node: Mapping[str, Any], reserved: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k not in reserved}


# -------------------------------------------------------------------------------------------------
# Defaults


def is_valid_default(schema: AvroSchema, value: Any) -> bool:
    """Whether Avro Java (1.12) accepts the JSON ``value`` as a default of ``schema``; a field whose
    default it refuses is written without one."""
    kind = schema.type
    if kind == "union":
        return any(is_valid_default(member, value) for member in schema.types)
    if kind in ("string", "bytes", "enum", "fixed"):
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31
    if kind == "long":
        return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63
    if kind in ("float", "double"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "array":
        assert schema.items is not None
        items = schema.items
        return isinstance(value, list) and all(is_valid_default(items, v) for v in value)
    if kind == "map":
        assert schema.values is not None
        values = schema.values
        return isinstance(value, dict) and all(is_valid_default(values, v) for v in value.values())
    if kind == "record":
        if not isinstance(value, dict):
            return False
        for f in schema.fields:
            member = value.get(f.name, f.default)
            if member is NO_DEFAULT or not is_valid_default(f.schema, member):
                return False
        return True
    return False

