"""Kafka Connect's ``StringConverter``: values are written as their string form."""

from __future__ import annotations

import codecs
import datetime
import decimal
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, Width
from connect_runtime.api.converter import Converter, HeaderConverter, converter_config_def
from connect_runtime.api.data.schema import Schema, SchemaType
from connect_runtime.api.data.schema_and_value import SchemaAndValue
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.java_json import java_double_to_string, java_float_to_string
from connect_runtime.version import runtime_version

__all__ = ["StringConverter", "java_to_string"]

_BIG_ENDIAN_BOM = b"\xfe\xff"


def java_to_string(value: Any, schema: Schema | None = None) -> str:
    """The text Java's ``Object.toString()`` gives for the Java counterpart of ``value``.

    Java's StringConverter writes ``value.toString()``, so a Java worker writes ``true`` for a
    Boolean, ``1.0E10`` for a Double, ``{a=1, b=x}`` for a Map, ``[1, 2]`` for a List and
    ``Struct{a=1,b=x}`` for a Struct (its fields that are set). ``schema`` says which Java class a
    Python value stands for: a float of a FLOAT32 schema is a Float (``Float.toString``), a
    ``decimal.Decimal`` a BigDecimal (``toString``: ``1.2E+3``, never ``-0``), a date, time or
    datetime of a logical schema a ``java.util.Date``, printed as ``Date.toString`` does in the UTC
    time zone (``Thu Jan 01 00:00:00 UTC 1970``, the Julian calendar before 15 October 1582). Bytes
    are the exception: Java would write the meaningless ``[B@1b6d3586``; here they are decoded as
    UTF-8 (invalid sequences replaced) instead.
    """
    if isinstance(value, str):
        return str(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if schema is not None and schema.type is SchemaType.FLOAT32:
            return java_float_to_string(value)
        return java_double_to_string(value)
    if isinstance(value, decimal.Decimal):
        return str(value.copy_abs() if value.is_zero() else value)
    if isinstance(value, datetime.date | datetime.time):
        return _java_date_to_string(value)
    if isinstance(value, Struct):
        pairs = ((field, value.get_without_default(field)) for field in value.schema.fields)
        return "Struct{" + ",".join(
            f"{field.name}={java_to_string(item, field.schema)}" for field, item in pairs if item is not None) + "}"
    if isinstance(value, Mapping):
        keys = _inner(schema, SchemaType.MAP, "key_schema")
        values = _inner(schema, SchemaType.MAP, "value_schema")
        return "{" + ", ".join(f"{java_to_string(k, keys)}={java_to_string(v, values)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list | tuple | set | frozenset):
        items = _inner(schema, SchemaType.ARRAY, "value_schema")
        return "[" + ", ".join(java_to_string(item, items) for item in value) + "]"
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def _inner(schema: Schema | None, kind: SchemaType, attribute: str) -> Schema | None:
    if schema is None or schema.type is not kind:
        return None
    inner: Schema | None = getattr(schema, attribute)
    return inner


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
# java.util.Date switches from the Julian to the Gregorian calendar here (GregorianCalendar's cutover).
_GREGORIAN_CUTOVER = datetime.date(1582, 10, 15)
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _java_date_to_string(value: datetime.date | datetime.time) -> str:
    """``java.util.Date.toString()`` in UTC of a Date, Time or Timestamp logical value."""
    if isinstance(value, datetime.time):  # a Time is a Date on 1970-01-01
        moment = datetime.datetime.combine(_EPOCH.date(), value, value.tzinfo or datetime.UTC)
    elif isinstance(value, datetime.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)
    else:
        moment = datetime.datetime.combine(value, datetime.time(), datetime.UTC)
    moment = moment.astimezone(datetime.UTC)
    day = moment.date()
    year, month, day_of_month = day.year, day.month, day.day
    if day < _GREGORIAN_CUTOVER:
        year, month, day_of_month = _julian(day)
    return (f"{_DAYS[day.weekday()]} {_MONTHS[month - 1]} {day_of_month:02d} {moment:%H:%M:%S} UTC {year}")


def _julian(day: datetime.date) -> tuple[int, int, int]:
    """The Julian calendar's year, month and day of ``day`` (through its Julian day number)."""
    c = day.toordinal() + 1_721_425 + 32_082
    d = (4 * c + 3) // 1461
    e = c - 1461 * d // 4
    m = (5 * e + 2) // 153
    return d - 4800 + m // 10, m + 3 - 12 * (m // 10), e - (153 * m + 2) // 5 + 1


class StringConverter(Converter, HeaderConverter):
    """Kafka Connect's ``org.apache.kafka.connect.storage.StringConverter``.

    ``from_connect_data`` writes the value's Java-style string form (:func:`java_to_string`)
    encoded with ``converter.encoding`` (default ``UTF8``; characters the encoding cannot hold become
    ``?``, as ``String.getBytes(Charset)`` does); None stays None. ``to_connect_data`` decodes bytes
    to a str (malformed input replaced by U+FFFD, as ``new String(bytes, charset)`` does).
    ``serializer.encoding``/``deserializer.encoding`` set the two directions separately, as in Java
    (``converter.encoding`` wins when both are given). An unknown encoding fails at ``configure``
    time with a :class:`ConfigException` (Java fails at ``configure`` too, with
    ``UnsupportedCharsetException``).
    """

    def __init__(self) -> None:
        self._encode_with = "utf-8"
        self._decode_with = "utf-8"

    def version(self) -> str:
        """The runtime's version, as Kafka's built-in converters report Kafka's."""
        return runtime_version()

    def config_def(self) -> ConfigDef:
        """Kafka's ``StringConverterConfig`` keys."""
        return converter_config_def().define(
            "converter.encoding", ConfigType.STRING, "UTF-8", None, Importance.HIGH,
            "The name of the Java character set to use for encoding strings as byte arrays.", None, -1, Width.MEDIUM,
            "Encoding")

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Pick the character encodings (``converter.encoding`` and friends)."""
        common = configs.get("converter.encoding")
        self._encode_with = _codec(
            "converter.encoding" if common is not None else "serializer.encoding",
            common if common is not None else configs.get("serializer.encoding", "UTF8"),
        )
        self._decode_with = _codec(
            "converter.encoding" if common is not None else "deserializer.encoding",
            common if common is not None else configs.get("deserializer.encoding", "UTF8"),
        )

    def from_connect_data(self, topic: str, value: Any, *, schema: Schema | None = None) -> bytes | None:
        """Encode the value's string form (:func:`java_to_string`); None stays None. The schema only says
        which Java class a Python value stands for, as Java's converter ignores it."""
        if value is None:
            return None
        text = java_to_string(value, schema)
        if self._encode_with == "utf-16":
            # Java's "UTF-16" charset writes a big-endian byte order mark, then big-endian units.
            return _BIG_ENDIAN_BOM + text.encode("utf-16-be", errors="replace")
        return text.encode(self._encode_with, errors="replace")

    def from_connect_header(self, topic: str, header_key: str, value: Any, *,
                            schema: Schema | None = None) -> bytes | None:
        """A header value is written as a record value is (Java's ``fromConnectHeader``)."""
        return self.from_connect_data(topic, value, schema=schema)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        """A header value is read as a record value is (Java's ``toConnectHeader``)."""
        return self.to_connect_data(topic, data)

    def to_connect_schema_and_value(self, topic: str, data: bytes | None) -> SchemaAndValue:
        """Java's ``toConnectData``: :meth:`to_connect_data`'s value with the schema Java gives it,
        ``OPTIONAL_STRING_SCHEMA``."""
        return SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, self.to_connect_data(topic, data))

    def to_connect_data(self, topic: str, data: bytes | None) -> str | None:
        """Decode bytes to a str; None stays None."""
        if data is None:
            return None
        raw = bytes(data)
        if self._decode_with == "utf-16" and not raw.startswith((b"\xfe\xff", b"\xff\xfe")):
            return raw.decode("utf-16-be", errors="replace")  # Java's UTF-16 default is big-endian
        return raw.decode(self._decode_with, errors="replace")


def _codec(name: str, encoding: Any) -> str:
    if not isinstance(encoding, str):
        raise ConfigException(name, encoding, "Expected a character encoding name")
    try:
        codec = codecs.lookup(encoding.strip())
    except LookupError as exc:
        raise ConfigException(name, encoding, "Unsupported character encoding") from exc
    return codec.name
