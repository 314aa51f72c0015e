"""Kafka Connect's ``JsonConverter``, byte-compatible with the Java one (Jackson serialization).

Why byte-compatible: the offsets topic keys records by the serialized bytes of
``["<connector>",{partition}]`` (Java's stores key by ``ByteBuffer``), so a Python worker and a
Java worker find each other's offsets only if both produce exactly the same bytes.

What Jackson (``ObjectMapper.writeValueAsBytes`` on the ``JsonNode`` tree Kafka builds) writes:

* compact output, no whitespace; object fields in insertion order;
* doubles with ``Double.toString`` (``1.0``, ``1.0E10``, ``1.0E-5``, ``1234567.0``); NaN and
  infinities as the *strings* ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
  (``JsonWriteFeature.WRITE_NAN_AS_STRINGS`` / ``QUOTE_NON_NUMERIC_NUMBERS`` is on by default);
* strings: ``\\"``, ``\\\\``, ``\\b``, ``\\t``, ``\\n``, ``\\f``, ``\\r``; other control characters
  U+0000..U+001F as ``\\u00XX`` with *upper-case* hex (``CharTypes.sOutputEscapes128`` +
  ``_writeGenericEscape``); ``/`` and U+007F unescaped; other non-ASCII written raw as UTF-8,
  except UTF-16 surrogates: ``UTF8JsonGenerator._outputMultiByteChar`` escapes every surrogate
  code unit, so a character outside the BMP (e.g. an emoji) becomes ``\\uD83D\\uDE00`` and a lone
  surrogate ``\\uD800`` (``COMBINE_UNICODE_SURROGATES_IN_UTF8`` is off by default);
* ``byte[]`` as a base64 string (``Base64Variants.MIME_NO_LINEFEEDS``: standard alphabet, padded);
* a schemaless map whose keys are all strings as an object, any other map as an array of
  ``[key,value]`` pairs (``JsonConverter.convertToJson``, MAP case).

The common case (str keys, str/int/bool/None leaves, text without control characters or
astral characters) goes through a C encoder; everything else through a careful pure-Python
encoder. Both produce identical bytes for the common case. Record keys and values
(``JsonConverter.from_connect_data``) use orjson (:func:`fast_json_body`, ~3x faster on a small
map); the internal topics' records (:func:`json_dumps_compact`) the standard library's encoder.
"""

from __future__ import annotations

import base64
import binascii
import datetime as _dt
import decimal
import json
import math
import re
import struct
from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, ValidString, Width
from connect_runtime.api.converter import Converter, HeaderConverter, converter_config_def
from connect_runtime.api.errors import ConfigException, DataException

__all__ = [
    "ENVELOPE_REQUIRED_MESSAGE",
    "JsonConverter",
    "fast_json_body",
    "java_double_to_string",
    "json_dumps_compact",
    "json_loads",
]

#: Java's message when ``schemas.enable=true`` meets data that is not a schema/payload envelope.
ENVELOPE_REQUIRED_MESSAGE: Final = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain '
    "additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false "
    "in your converter configuration."
)

_NoneType = type(None)
_SIMPLE_SCALARS: Final = frozenset((str, int, bool, _NoneType))
_CONTAINERS: Final = frozenset((dict, list, tuple))
_SIMPLE_TYPES: Final = _SIMPLE_SCALARS | _CONTAINERS
_STR_ONLY: Final = frozenset((str,))

# The C encoder with compact separators and raw (unescaped) non-ASCII. Control characters come
# out as lower-case "\u00xx", so any "\u00" in its output sends the value to the careful encoder.
def _make_fast_encode() -> Callable[[Any], str]:
    # JSONEncoder.encode builds a new C encoder on every call; build it once (a third of the cost of a
    # small map). c_make_encoder is CPython's accelerator: fall back to the public API without it.
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - non-CPython
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False,
                                allow_nan=False).encode
    encoder = make(None, _no_default, json.encoder.encode_basestring, None, ":", ",", False, False, False)

    def encode(value: Any) -> str:
        return "".join(encoder(value, 0))

    return encode


def _no_default(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_fast_encode: Final[Callable[[Any], str]] = _make_fast_encode()
# Characters Jackson writes as \uXXXX escapes of their UTF-16 code units: the fast path's
# output must not contain any (nor a "\u00" control-character escape, which Python writes in
# lower-case hex).
_SURROGATE_OR_ASTRAL: Final = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")

# Characters the careful encoder escapes (Jackson's table plus surrogates and astral characters).
_ESCAPE_RE: Final = re.compile('[\x00-\x1f"\\\\\ud800-\udfff\U00010000-\U0010ffff]')
_SHORT_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04X}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"


def _quote(text: str) -> str:
    """A JSON string literal exactly as Jackson's ``UTF8JsonGenerator.writeString`` writes it."""
    return '"' + _ESCAPE_RE.sub(_escape_char, text) + '"'


_EXACT_CONTEXT: Final = decimal.Context(prec=1200)


def java_double_to_string(value: float) -> str:
    """Format a float as Java's ``Double.toString`` (JDK 19+ specification).

    Shortest digits that round-trip (what ``repr`` gives), except that when one digit would do,
    the closest decimal of at most two digits wins (``Double.MIN_VALUE`` is ``4.9E-324``, not
    ``5e-324``). Plain notation for 1e-3 <= |d| < 1e7, else ``d.dddE±n``; always at least one
    fractional digit. Infinite and NaN values give ``Infinity``, ``-Infinity`` and ``NaN``.

    JDK 17 and older (``FloatingDecimal``) print some doubles with more digits than needed: some
    of magnitude >= 2**53 (``1.0E23`` is ``9.999999999999999E22`` there) and some subnormals. For
    every other double the two agree.
    """
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign = "-"
        text = text[1:]
    mantissa, _, exp_text = text.partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = int_part + frac_part
    point = len(int_part) + (int(exp_text) if exp_text else 0)  # value = 0.<digits> * 10**point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    exponent = point - 1  # value = d.ddd * 10**exponent
    if len(digits) == 1:
        digits, exponent = _closest_two_digits(abs(value), digits, exponent)
    if -3 <= exponent < 7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole = "0"
            fraction = "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _closest_two_digits(magnitude: float, digits: str, exponent: int) -> tuple[str, int]:
    """Java's rule for a one-digit shortest form: pick the closest decimal of length <= 2."""
    exact = decimal.Decimal(magnitude)
    decade = exact.adjusted()
    scaled = exact.scaleb(1 - decade, context=_EXACT_CONTEXT)
    candidate = int(scaled.to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=_EXACT_CONTEXT))
    if not 10 <= candidate <= 100 or float(f"{candidate}e{decade - 1}") != magnitude:
        return digits, exponent
    if candidate == 100:
        return "1", decade + 1
    return str(candidate).rstrip("0"), decade


def _is_simple(value: Any) -> bool:
    """True if the C encoder's output for ``value`` can only differ from Jackson's in strings."""
    kind = type(value)
    if kind is dict:
        if value and set(map(type, value)) != _STR_ONLY:
            return False
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return kind in _SIMPLE_SCALARS
    kinds = set(map(type, items))
    if kinds <= _SIMPLE_SCALARS:
        return True
    if not kinds <= _SIMPLE_TYPES:
        return False
    return all(_is_simple(item) for item in items if type(item) in _CONTAINERS)


def _encode(value: Any, out: list[str]) -> None:
    """The careful encoder: schemaless ``JsonConverter.convertToJson`` + Jackson serialization."""
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_quote(value))
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        text = java_double_to_string(value)
        # Jackson writes non-finite doubles as strings (QUOTE_NON_NUMERIC_NUMBERS).
        out.append(text if math.isfinite(value) else f'"{text}"')
    elif isinstance(value, Mapping):
        if all(isinstance(key, str) for key in value):
            out.append("{")
            first = True
            for key, item in value.items():
                if not first:
                    out.append(",")
                first = False
                out.append(_quote(key))
                out.append(":")
                _encode(item, out)
            out.append("}")
        else:  # Java: a map with any non-String key is written as an array of [key,value] pairs
            out.append("[")
            first = True
            for key, item in value.items():
                if not first:
                    out.append(",")
                first = False
                out.append("[")
                _encode(key, out)
                out.append(",")
                _encode(item, out)
                out.append("]")
            out.append("]")
    elif isinstance(value, list | tuple):
        out.append("[")
        first = True
        for item in value:
            if not first:
                out.append(",")
            first = False
            _encode(item, out)
        out.append("]")
    elif isinstance(value, bytes | bytearray | memoryview):
        out.append('"' + base64.b64encode(value).decode("ascii") + '"')
    else:
        raise DataException(
            f"Python class {type(value).__module__}.{type(value).__qualname__} "
            "does not have corresponding schema type."
        )


def json_dumps_compact(value: Any) -> bytes:
    """Serialize a schemaless value to the exact bytes Java's ``JsonConverter`` writes with
    ``schemas.enable=false`` (``None`` gives ``b"null"``).

    Accepts dict/Mapping, list, tuple, str, int, float, bool, None, bytes/bytearray/memoryview;
    anything else raises :class:`DataException` (as Java does for classes without a schema type).
    """
    kind = type(value)
    # The hot cases first: Java writes ints as decimal digits and plain ASCII strings quoted as is.
    if kind is int:
        return str(value).encode()
    if kind is str and value.isascii() and _ESCAPE_RE.search(value) is None:
        encoded: bytes = value.encode()
        return b'"' + encoded + b'"'
    try:
        if _is_simple(value):
            text = _fast_encode(value)
            if "\\u00" not in text and (text.isascii() or _SURROGATE_OR_ASTRAL.search(text) is None):
                return text.encode("utf-8")
        out: list[str] = []
        _encode(value, out)
    except RecursionError as exc:
        raise DataException("Value is nested too deeply (or contains itself) to convert to JSON") from exc
    return "".join(out).encode("utf-8")


# --- the fast path for record keys and values (JsonConverter.from_connect_data) ----------------
#
# orjson writes, for exactly these types, the bytes Jackson writes: compact, fields in insertion
# order, ints as decimal digits, true/false/null, strings raw UTF-8 with \" \\ \b \t \n \f \r
# escapes and "/" and U+007F unescaped. Where it differs it is either refused here by type
# (floats: Python's shortest repr, not Double.toString, and NaN as null; bytes; Enum, UUID and
# other types orjson writes natively and Java has no counterpart for; subclasses of the allowed
# types), or raises (non-str dict keys, ints outside 64 bits, lone surrogates, nesting deeper than
# orjson's limit), or is caught in its output: control characters other than the short escapes
# (lower-case "\u00xx" where Jackson writes upper case) and characters outside the BMP (raw
# UTF-8 where Jackson writes surrogate-pair escapes). Everything else goes to the careful encoder.
# Chosen over msgspec by measurement: both encode a 5-field map in ~0.19 us, but msgspec writes
# int dict keys as strings, so its callers would have to check every key's type as well.
_FAST_LEAVES: Final = _SIMPLE_SCALARS
_FAST_TYPES: Final = _SIMPLE_TYPES
_BACKSLASH: Final = ord("\\")
_orjson_dumps: Final = orjson.dumps


def _fast_types(value: Any) -> bool:
    """True if ``value`` holds only exact dict/list/tuple/str/int/bool/None (keys unchecked:
    orjson refuses any non-str key)."""
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return kind in _FAST_LEAVES
    # One C-level pass over the items' types; containers below are checked one level at a time.
    kinds = set(map(type, items))
    if kinds <= _FAST_LEAVES:
        return True
    if not kinds <= _FAST_TYPES:
        return False
    return all(_fast_types(item) for item in items if type(item) in _CONTAINERS)


def fast_json_body(value: Any) -> bytes | None:
    """The schemaless JSON bytes of a str, dict, list or tuple from the C encoder when they are provably
    the bytes :func:`json_dumps_compact` (and Java's ``JsonConverter``) writes, else None."""
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    elif kind is str:
        items = ()
    else:
        return None
    try:
        # The first level inline: a flat map costs one C-level pass over its values' types.
        if items and not _FAST_LEAVES.issuperset(map(type, items)) and not (
            set(map(type, items)) <= _FAST_TYPES
            and all(_fast_types(item) for item in items if type(item) in _CONTAINERS)
        ):
            return None
        body: bytes = _orjson_dumps(value)
    except (TypeError, RecursionError):  # orjson.JSONEncodeError is a TypeError
        return None
    # "92 in body" is a memchr; "b'\\u00' in body" is slower, so it runs only after a backslash.
    if _BACKSLASH in body and b"\\u00" in body:
        return None
    if not body.isascii() and (0xF0 in body or 0xF1 in body or 0xF2 in body or 0xF3 in body or 0xF4 in body):
        return None  # a 4-byte UTF-8 sequence: a character outside the BMP
    return body


def _reject_constant(name: str) -> Any:
    # Jackson's parser rejects NaN/Infinity tokens (ALLOW_NON_NUMERIC_NUMBERS is off by default).
    raise ValueError(f"Non-standard token '{name}': NaN and Infinity are not valid JSON numbers")


_decoder: Final = json.JSONDecoder(parse_constant=_reject_constant)
_decimal_decoder: Final = json.JSONDecoder(parse_constant=_reject_constant, parse_float=decimal.Decimal)
_LEADING_WS: Final = re.compile(r"[ \t\n\r]*")
_UTF8_BOM: Final = b"\xef\xbb\xbf"


def _read_tree(data: bytes | bytearray | memoryview, decoder: json.JSONDecoder) -> Any:
    raw = bytes(data)
    if raw.startswith(_UTF8_BOM):
        raw = raw[3:]
    text = raw.decode("utf-8")
    whitespace = _LEADING_WS.match(text)
    start = whitespace.end() if whitespace is not None else 0
    if start == len(text):
        return None  # Jackson's MissingNode: treated like null by the converter
    # Like ObjectMapper.readTree: the first value counts, trailing content is not looked at.
    value, _ = decoder.raw_decode(text, start)
    return value


def json_loads(data: bytes | bytearray | memoryview) -> Any:
    """Parse JSON bytes the way ``JsonConverter.toConnectData`` does with schemas disabled.

    Empty input gives None; NaN/Infinity tokens and invalid UTF-8 are errors; content after the
    first value is ignored (Jackson's ``readTree`` does not check for trailing tokens). Raises
    ``ValueError`` (``json.JSONDecodeError`` or ``UnicodeDecodeError``) on malformed input.
    """
    return _read_tree(data, _decoder)


def _parse_bool(configs: Mapping[str, Any], name: str, default: bool) -> bool:
    value = configs.get(name, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ConfigException(name, value, "Expected value to be either true or false")


class JsonConverter(Converter, HeaderConverter):
    """Kafka Connect's ``org.apache.kafka.connect.json.JsonConverter`` for schemaless data.

    Settings (prefix stripped): ``schemas.enable`` (default true, like Java: values are wrapped in
    ``{"schema":null,"payload":...}``); ``decimal.format`` (BASE64|NUMERIC), ``schemas.cache.size``,
    ``replace.null.with.default`` and ``converter.type`` are accepted and have no effect on
    schemaless data. ``from_connect_data`` turns None into None (a tombstone), as Java does for a
    null schema and value. ``to_connect_data`` returns plain Python values; an envelope that carries
    a schema (written by a Java producer with schemas) is converted following that schema: bytes
    are decoded from base64, structs become dicts, maps with non-string keys are rebuilt from their
    pair arrays, and the Decimal/Date/Time/Timestamp logical types become ``decimal.Decimal``,
    ``datetime.date``, ``datetime.time`` and ``datetime.datetime`` (UTC).
    """

    def __init__(self) -> None:
        self._schemas_enabled = True

    @property
    def schemas_enabled(self) -> bool:
        """Whether values are wrapped in (and expected in) a schema/payload envelope."""
        return self._schemas_enabled

    def config_def(self) -> ConfigDef:
        """Kafka's ``JsonConverterConfig`` keys."""
        return (
            converter_config_def()
            .define("schemas.enable", ConfigType.BOOLEAN, True, None, Importance.HIGH,
                    "Whether serialized keys and values carry their schema (a schema/payload envelope).",
                    "Schemas", 0, Width.MEDIUM, "Enable Schemas")
            .define("schemas.cache.size", ConfigType.INT, 1000, None, Importance.HIGH,
                    "How many schemas this converter caches.", "Schemas", 1, Width.MEDIUM, "Schema Cache Size")
            .define("decimal.format", ConfigType.STRING, "BASE64",
                    ValidString.one_of("BASE64", "NUMERIC", case_sensitive=False), Importance.LOW,
                    "How decimals are serialized: 'BASE64' (default) or 'NUMERIC' (case insensitive).",
                    "Serialization", 0, Width.MEDIUM, "Decimal Format")
            .define("replace.null.with.default", ConfigType.BOOLEAN, True, None, Importance.LOW,
                    "Whether a null field of a struct is serialized as its schema's default value.",
                    "Serialization", 1, Width.MEDIUM, "Replace null with default")
        )

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Read ``schemas.enable`` and validate ``decimal.format``; other settings are ignored."""
        self._schemas_enabled = _parse_bool(configs, "schemas.enable", True)
        decimal_format = configs.get("decimal.format", "BASE64")
        if not isinstance(decimal_format, str) or decimal_format.upper() not in ("BASE64", "NUMERIC"):
            raise ConfigException("decimal.format", decimal_format, "String must be one of: BASE64, NUMERIC")

    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        """Serialize ``value`` to JSON bytes; None stays None."""
        if value is None:
            return None
        if type(value) is int:  # the commonest key: digits, as Java writes a long
            try:
                body = _orjson_dumps(value)
            except TypeError:  # beyond 64 bits
                body = json_dumps_compact(value)
        elif (fast := fast_json_body(value)) is not None:
            body = fast
        else:
            body = json_dumps_compact(value)
        if self._schemas_enabled:
            return b'{"schema":null,"payload":' + body + b"}"
        return body

    def from_connect_header(self, topic: str, header_key: str, value: Any) -> bytes | None:
        """A header value is written as a record value is (Java's ``fromConnectHeader``)."""
        return self.from_connect_data(topic, value)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        """A header value is read as a record value is (Java's ``toConnectHeader``)."""
        return self.to_connect_data(topic, data)

    def to_connect_data(self, topic: str, data: bytes | None) -> Any:
        """Parse JSON bytes; with schemas enabled, unwrap (and apply) the envelope's schema."""
        if data is None:
            return None
        try:
            node = json_loads(data)
        except ValueError as exc:
            raise DataException(
                f"Converting byte[] to Kafka Connect data failed due to serialization error: {exc}"
            ) from exc
        if not self._schemas_enabled:
            return node
        if not (isinstance(node, dict) and len(node) == 2 and "schema" in node and "payload" in node):
            raise DataException(ENVELOPE_REQUIRED_MESSAGE)
        schema = node["schema"]
        if schema is None:
            return node["payload"]
        # Java parses floats as BigDecimal here (USE_BIG_DECIMAL_FOR_FLOATS): re-read exactly so
        # NUMERIC decimals keep every digit; float fields are turned back into floats below.
        node = _read_tree(data, _decimal_decoder)
        return _to_connect(_parse_schema(node["schema"]), node["payload"])


# --- reading envelopes that carry a schema ---------------------------------------------------

_DECIMAL_NAME: Final = "org.apache.kafka.connect.data.Decimal"
_DATE_NAME: Final = "org.apache.kafka.connect.data.Date"
_TIME_NAME: Final = "org.apache.kafka.connect.data.Time"
_TIMESTAMP_NAME: Final = "org.apache.kafka.connect.data.Timestamp"
_EPOCH_DATE: Final = _dt.date(1970, 1, 1)
_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_PRIMITIVE_TYPES: Final = ("boolean", "int8", "int16", "int32", "int64", "float", "double", "bytes", "string")
_TYPES: Final = frozenset((*_PRIMITIVE_TYPES, "array", "map", "struct"))


class _Schema:
    """The parts of a Connect schema (``JsonConverter.asConnectSchema``) conversion needs."""

    __slots__ = ("default", "fields", "items", "keys", "name", "optional", "parameters", "type", "values")

    def __init__(self, type_: str) -> None:
        self.type = type_
        self.optional = False
        self.name: str | None = None
        self.parameters: dict[str, str] = {}
        self.default: Any = None
        self.items: _Schema | None = None
        self.keys: _Schema | None = None
        self.values: _Schema | None = None
        self.fields: list[tuple[str, _Schema]] = []


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


def _parse_schema(node: Any) -> _Schema | None:
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
        schema.items = _parse_schema(items)
    elif type_node == "map":
        if "keys" not in node:
            raise DataException("Map schema did not specify the key type")
        if "values" not in node:
            raise DataException("Map schema did not specify the value type")
        schema.keys = _parse_schema(node["keys"])
        schema.values = _parse_schema(node["values"])
    elif type_node == "struct":
        fields = node.get("fields")
        if not isinstance(fields, list):
            raise DataException('Struct schema\'s "fields" argument is not an array.')
        for field in fields:
            field_name = field.get("field") if isinstance(field, dict) else None
            if not isinstance(field_name, str):
                raise DataException("Struct schema's field name not specified properly")
            field_schema = _parse_schema(field)
            assert field_schema is not None
            schema.fields.append((field_name, field_schema))
    schema.optional = node.get("optional") is True
    name = node.get("name")
    if isinstance(name, str):
        schema.name = name
    parameters = node.get("parameters")
    if isinstance(parameters, dict):
        for key, param in parameters.items():
            if not isinstance(param, str):
                raise DataException("Schema parameters must have string values.")
            schema.parameters[key] = param
    if node.get("default") is not None:
        schema.default = _to_connect(schema, node["default"])
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
    return float(value)


def _to_connect(schema: _Schema | None, value: Any) -> Any:
    """``JsonConverter.convertToConnect`` for a parsed payload (floats may be Decimals)."""
    if schema is None:
        return _plain(value)
    if value is None:
        if schema.default is not None:
            return schema.default
        if schema.optional:
            return None
        raise DataException(f"Invalid null value for required {schema.type.upper()} field")
    logical = schema.name
    if logical == _DECIMAL_NAME:
        return _to_decimal(schema, value)
    if logical == _DATE_NAME:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _logical_type_error("Date", "integer", value)
        return _EPOCH_DATE + _dt.timedelta(days=value)
    if logical == _TIME_NAME:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _logical_type_error("Time", "integer", value)
        if not 0 <= value < 86_400_000:
            raise DataException("Time values must be between 0 and 86400000 (milliseconds in a day)")
        return (_dt.datetime.min + _dt.timedelta(milliseconds=value)).time()
    if logical == _TIMESTAMP_NAME:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _logical_type_error("Timestamp", "integral", value)
        return _EPOCH + _dt.timedelta(milliseconds=value)
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
        return struct.unpack("<f", struct.pack("<f", _java_floating(value)))[0]
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
        return [_to_connect(schema.items, element) for element in elements]
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
                key = _to_connect(schema.keys, entry[0])
                try:
                    result[key] = _to_connect(schema.values, entry[1])
                except TypeError as exc:  # unhashable key (a list or dict)
                    raise DataException(f"Unhashable map key of type {type(key).__name__}") from exc
            return result
        if not isinstance(value, dict):
            raise DataException(
                "Maps with string fields should be encoded as JSON objects, but found " + _node_type(value)
            )
        return {key: _to_connect(schema.values, item) for key, item in value.items()}
    # struct
    if not isinstance(value, dict):
        raise DataException(f"Structs should be encoded as JSON objects, but found {_node_type(value)}")
    return {name: _to_connect(field, value.get(name)) for name, field in schema.fields}


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


def _plain(value: Any) -> Any:
    """Schemaless payload inside a schema'd envelope: Decimals (from the exact re-read) to floats."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
