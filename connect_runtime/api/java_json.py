"""JSON exactly as Apache Kafka Connect's Java ``JsonConverter`` (Jackson) writes and reads it.

For plugins whose bytes a Java worker reads or keys by, and for the runtime's own internal topics:
the offsets topic keys records by the serialized bytes of ``["<connector>",{partition}]`` (Java's
stores key by ``ByteBuffer``), so a Python worker and a Java worker find each other's offsets only
if both produce exactly the same bytes. It lives in the plugin API because
:class:`~connect_runtime.api.DelegatedDelivery` writes such records; it imports nothing else of the
runtime, so every layer may use it.

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
import decimal
import fractions
import json
import math
import re
import struct
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import orjson

from connect_runtime.api.errors import DataException

__all__ = [
    "fast_json_body",
    "java_double_to_string",
    "json_dumps_compact",
    "json_loads",
    "json_loads_decimal",
]

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
    return _java_shortest(value, repr(value), _is_double)


def java_float_to_string(value: float) -> str:
    """Format ``value`` rounded to a 32-bit float as Java's ``Float.toString`` (JDK 19+): the
    shortest digits that round-trip as a float, in :func:`java_double_to_string`'s notation."""
    value = to_float32(value)
    if value != value or value in (math.inf, -math.inf) or value == 0.0:
        return java_double_to_string(value)
    for precision in range(1, 10):
        text = f"{value:.{precision - 1}e}"
        if to_float32(float(text)) == value:
            break
    return _java_shortest(value, text, _is_float32)


# Half a unit in the last place above the largest float: a double below it rounds to that float.
_FLOAT32_MAX: Final = 3.4028234663852886e38
_FLOAT32_OVERFLOW: Final = (2 - 2**-24) * 2.0**127


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest float, as Java's ``(float)`` cast of a double (ties to even;
    from half a unit above the largest float on, an infinity). The runtime's one such rounding."""
    try:
        result: float = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:  # beyond the largest float: it, or infinity past the rounding boundary
        return math.copysign(_FLOAT32_MAX if abs(value) < _FLOAT32_OVERFLOW else math.inf, value)
    return result


def exact_to_float32(value: int | decimal.Decimal) -> float:
    """``value`` rounded once to the nearest float (ties to even), as Java's ``(float)`` of a long,
    ``BigDecimal.floatValue()`` and ``Float.parseFloat`` do: through a double it could round twice."""
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return float(value)
        if value.is_zero() or value.adjusted() < -46:  # below half the smallest float
            return -0.0 if value.is_signed() else 0.0
        if value.adjusted() > 39:  # beyond the largest float
            return -math.inf if value.is_signed() else math.inf
    exact = fractions.Fraction(value)
    if exact == 0:
        return 0.0
    magnitude = abs(exact)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if magnitude < fractions.Fraction(2) ** exponent:
        exponent -= 1
    quantum = fractions.Fraction(2) ** (max(exponent, -126) - 23)  # 24 significant bits, fewer if subnormal
    rounded = round(magnitude / quantum) * quantum  # round() on a Fraction ties to even
    result = math.inf if rounded >= 2**128 else float(rounded)
    return -result if exact < 0 else result


def _is_double(candidate: float, value: float) -> bool:
    return candidate == value


def _is_float32(candidate: float, value: float) -> bool:
    return to_float32(candidate) == value


def _java_shortest(value: float, text: str, round_trips: Callable[[float, float], bool]) -> str:
    """Java's notation for the shortest round-tripping digits in ``text`` (``repr``-style or ``%e``)."""
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
        digits, exponent = _closest_two_digits(abs(value), digits, exponent, round_trips)
    if -3 <= exponent < 7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole = "0"
            fraction = "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _closest_two_digits(magnitude: float, digits: str, exponent: int,
                        round_trips: Callable[[float, float], bool]) -> tuple[str, int]:
    """Java's rule for a one-digit shortest form: pick the closest decimal of length <= 2."""
    exact = decimal.Decimal(magnitude)
    decade = exact.adjusted()
    scaled = exact.scaleb(1 - decade, context=_EXACT_CONTEXT)
    candidate = int(scaled.to_integral_value(rounding=decimal.ROUND_HALF_EVEN, context=_EXACT_CONTEXT))
    if not 10 <= candidate <= 100 or not round_trips(float(f"{candidate}e{decade - 1}"), magnitude):
        return digits, exponent
    if candidate == 100:
        return "1", decade + 1
    return str(candidate).rstrip("0"), decade


def _simple_types(value: Any, str_keys: bool) -> bool:
    """True if ``value`` holds only exact dict/list/tuple/str/int/bool/None, and with ``str_keys`` only
    str dict keys: then the C encoders' output for it can only differ from Jackson's in strings.
    (orjson refuses any non-str key by itself; the ``json`` module's would write an int key as a string.)
    """
    kind = type(value)
    if kind is dict:
        if str_keys and value and set(map(type, value)) != _STR_ONLY:
            return False
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return kind in _SIMPLE_SCALARS
    # One C-level pass over the items' types; containers below are checked one level at a time.
    kinds = set(map(type, items))
    if kinds <= _SIMPLE_SCALARS:
        return True
    if not kinds <= _SIMPLE_TYPES:
        return False
    return all(_simple_types(item, str_keys) for item in items if type(item) in _CONTAINERS)


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
            _encode_all("{", value.items(), _encode_field, "}", out)
        else:  # Java: a map with any non-String key is written as an array of [key,value] pairs
            _encode_all("[", value.items(), _encode_pair, "]", out)
    elif isinstance(value, list | tuple):
        _encode_all("[", value, _encode, "]", out)
    elif isinstance(value, bytes | bytearray | memoryview):
        out.append('"' + base64.b64encode(value).decode("ascii") + '"')
    else:
        raise _no_schema_type(value)


def _no_schema_type(value: Any) -> DataException:
    # Imported here, on this error path only: the data model's Values imports this codec, so a
    # module-level import back into the data model would make the two load in one order only.
    from connect_runtime.api.data.struct import Struct

    if isinstance(value, Struct):
        # Java's schemaless convertToJson knows a Struct's type, then finds no schema to match it.
        return DataException("Mismatching schema.")
    return DataException(
        f"Python class {type(value).__module__}.{type(value).__qualname__} does not have corresponding schema type."
    )


def _encode_all(start: str, items: Iterable[Any], encode: Callable[[Any, list[str]], None], end: str,
                out: list[str]) -> None:
    out.append(start)
    for index, item in enumerate(items):
        if index:
            out.append(",")
        encode(item, out)
    out.append(end)


def _encode_field(field: tuple[str, Any], out: list[str]) -> None:
    out.append(_quote(field[0]))
    out.append(":")
    _encode(field[1], out)


def _encode_pair(pair: tuple[Any, Any], out: list[str]) -> None:
    _encode_all("[", pair, _encode, "]", out)


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
        if _simple_types(value, str_keys=True):
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
# orjson writes, for exactly the _SIMPLE_TYPES, the bytes Jackson writes: compact, fields in insertion
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
_BACKSLASH: Final = ord("\\")
_orjson_dumps: Final = orjson.dumps


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
        if items and not _SIMPLE_SCALARS.issuperset(map(type, items)) and not (
            set(map(type, items)) <= _SIMPLE_TYPES
            and all(_simple_types(item, str_keys=False) for item in items if type(item) in _CONTAINERS)
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


def json_loads_decimal(data: bytes | bytearray | memoryview) -> Any:
    """:func:`json_loads`, with every JSON number that has a fraction or exponent read as a
    ``decimal.Decimal`` (Jackson's ``USE_BIG_DECIMAL_FOR_FLOATS``), so no digit is lost."""
    return _read_tree(data, _decimal_decoder)
