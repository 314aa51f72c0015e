"""Kafka Connect's ``SimpleHeaderConverter``: header values as text, through Java's ``Values``.

Writing is ``Values.convert_to_string`` in UTF-8 (a string as it is, numbers and booleans as Java
prints them, bytes in base64, arrays ``[a,b]`` and maps ``{k:v}`` with strings quoted inside, temporal
values as ISO text; a header's schema says a float's width); reading is ``Values.parse_string``,
which infers the schema back (``42`` is an INT8, ``[1,2]`` an array of INT8).
"""

from __future__ import annotations

import logging
from typing import Any

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.converter import HeaderConverter
from connect_runtime.api.data import Schema, SchemaAndValue, Values
from connect_runtime.version import runtime_version

__all__ = ["SimpleHeaderConverter", "values_to_string"]

log = logging.getLogger(__name__)


def values_to_string(value: Any, schema: Schema | None = None) -> str | None:
    """Kafka's ``Values.convertToString(schema, value)`` (None for None)."""
    return Values.convert_to_string(schema, value)


def _decode_utf8_as_java(raw: bytes) -> str:
    """``new String(raw, UTF_8)``: malformed input becomes U+FFFD as with Python's "replace", except
    where Java's decoder takes more bytes as one malformed sequence: a three-byte lead (not ``E0``)
    and a continuation byte Python refuses after it (``ED A0``, an encoded surrogate) are one
    sequence, with the next continuation byte too."""
    parts: list[str] = []
    start = 0
    while True:
        try:
            parts.append(raw[start:].decode("utf-8"))
            return "".join(parts)
        except UnicodeDecodeError as e:
            bad = start + e.start
            parts.append(raw[start:bad].decode("utf-8"))
            parts.append("\ufffd")
            length = e.end - e.start
            if 0xE1 <= raw[bad] <= 0xEF and bad + 1 < len(raw) and raw[bad + 1] & 0xC0 == 0x80:
                length = 3 if bad + 2 < len(raw) and raw[bad + 2] & 0xC0 == 0x80 else 2
            start = bad + length


class SimpleHeaderConverter(HeaderConverter):
    """Kafka Connect's ``org.apache.kafka.connect.storage.SimpleHeaderConverter`` (the worker's default
    ``header.converter``): writes a header value as its text form (``Values.convert_to_string``) in
    UTF-8, None as a null header value, and reads text back with ``Values.parse_string``. It has no
    settings.
    """

    def version(self) -> str:
        """The runtime's version, as Kafka's built-in converters report Kafka's."""
        return runtime_version()

    def config_def(self) -> ConfigDef:
        """No settings (Java's is an empty ConfigDef)."""
        return ConfigDef()

    def from_connect_header(self, topic: str, header_key: str, value: Any, *,
                            schema: Schema | None = None) -> bytes | None:
        """The value's text form as UTF-8; None stays None."""
        if type(value) is str:  # the common case first
            return value.encode("utf-8", "replace")
        text = Values.convert_to_string(schema, value)
        # Java's String.getBytes(UTF_8) writes "?" for a lone surrogate, as "replace" does.
        return None if text is None else text.encode("utf-8", "replace")

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        """The value the header text stands for (``Values.parse_string``; None for a null value)."""
        return self.to_connect_header_schema_and_value(topic, header_key, data).value

    def to_connect_header_schema_and_value(self, topic: str, header_key: str,
                                           data: bytes | None) -> SchemaAndValue:
        """Java's ``toConnectHeader``: the schema inferred from the text with its value.

        Bytes that are not UTF-8 are decoded with replacement characters, as Java's ``String`` does;
        text the parser fails on is kept as BYTES, the raw value (as Java).
        """
        if data is None:
            return SchemaAndValue.NULL
        raw = bytes(data)
        try:
            return Values.parse_string(_decode_utf8_as_java(raw))
        except Exception:  # as Java's catch of Throwable: the raw bytes rather than no record
            log.warning("Failed to deserialize value for header '%s' on topic '%s', so using byte array",
                        header_key, topic, exc_info=True)
            return SchemaAndValue(Schema.BYTES_SCHEMA, raw)
