"""Kafka Connect's ``ByteArrayConverter``: raw bytes in, raw bytes out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api.converter import Converter, HeaderConverter
from connect_runtime.api.data.schema import Schema, SchemaType
from connect_runtime.api.data.schema_and_value import SchemaAndValue
from connect_runtime.api.errors import DataException
from connect_runtime.version import runtime_version

__all__ = ["ByteArrayConverter"]


class ByteArrayConverter(Converter, HeaderConverter):
    """Kafka Connect's ``org.apache.kafka.connect.converters.ByteArrayConverter``.

    ``bytes`` pass through untouched, ``bytearray`` and ``memoryview`` (Java's ``ByteBuffer``) are
    copied to ``bytes``, None stays None; any other value raises :class:`DataException` with Java's
    message. ``to_connect_data`` returns the bytes as read. It has no settings.
    """

    def version(self) -> str:
        """The runtime's version, as Kafka's built-in converters report Kafka's."""
        return runtime_version()

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Nothing to configure (as a key, value or header converter)."""

    def from_connect_data(self, topic: str, value: Any, *, schema: Schema | None = None) -> bytes | None:
        """Return the value's bytes; None stays None. A ``schema`` must be of type BYTES, as in Java."""
        if schema is not None and schema.type is not SchemaType.BYTES:
            raise DataException(f"Invalid schema type for ByteArrayConverter: {schema.type}")
        if value is None or type(value) is bytes:
            return value
        if isinstance(value, bytes | bytearray | memoryview):
            return bytes(value)
        raise DataException(f"ByteArrayConverter is not compatible with objects of type {type(value)}")

    def to_connect_schema_and_value(self, topic: str, data: bytes | None) -> SchemaAndValue:
        """Java's ``toConnectData``: :meth:`to_connect_data`'s value with the schema Java gives it,
        ``OPTIONAL_BYTES_SCHEMA``."""
        return SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, self.to_connect_data(topic, data))

    def to_connect_data(self, topic: str, data: bytes | None) -> bytes | None:
        """Return the bytes as read (None for a tombstone)."""
        return data

    def from_connect_header(self, topic: str, header_key: str, value: Any, *,
                            schema: Schema | None = None) -> bytes | None:
        """A header value is written as a record value is (Java's ``fromConnectHeader``)."""
        return self.from_connect_data(topic, value, schema=schema)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        """A header value is read as a record value is (Java's ``toConnectHeader``)."""
        return self.to_connect_data(topic, data)
