"""Kafka Connect's ``StringConverter``: values are written as their string form."""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, Width
from connect_runtime.api.converter import Converter, HeaderConverter, converter_config_def
from connect_runtime.api.data.schema import Schema
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.java_json import java_double_to_string
from connect_runtime.version import runtime_version

__all__ = ["StringConverter", "java_to_string"]

_BIG_ENDIAN_BOM = b"\xfe\xff"


def java_to_string(value: Any) -> str:
    """The text Java's ``Object.toString()`` gives for the Java counterpart of ``value``.

    Java's StringConverter writes ``value.toString()``, so a Java worker writes ``true`` for a
    Boolean, ``1.0E10`` for a Double, ``{a=1, b=x}`` for a Map and ``[1, 2]`` for a List. Bytes are
    the exception: Java would write the meaningless ``[B@1b6d3586``; here they are decoded as UTF-8
    (invalid sequences replaced) instead.
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
        return java_double_to_string(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{java_to_string(k)}={java_to_string(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple | set | frozenset):
        return "[" + ", ".join(java_to_string(item) for item in value) + "]"
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


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
        """Encode the value's string form; None stays None. The schema is ignored, as in Java."""
        if value is None:
            return None
        text = java_to_string(value)
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
