"""Converters turn record keys, values and header values into bytes (and back)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, ValidString
from connect_runtime.api.data.schema import Schema

#: ``converter.type``: which role the runtime configures a converter for (set by the runtime).
CONVERTER_TYPE_CONFIG = "converter.type"


def converter_config_def() -> ConfigDef:
    """The key every converter's config def starts with (Kafka's ``ConverterConfig.newConfigDef()``)."""
    return ConfigDef().define(
        CONVERTER_TYPE_CONFIG, ConfigType.STRING, validator=ValidString.one_of("key", "value", "header"),
        importance=Importance.LOW, documentation="How this converter will be used.")


class Converter(ABC):
    """Serializes keys or values. Configure with ``key.converter.*`` / ``value.converter.*`` keys."""

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Apply the converter's own settings (prefix already stripped)."""

    def config_def(self) -> ConfigDef:
        """The converter's settings, as ``GET /connector-plugins/{converter}/config`` lists them."""
        return converter_config_def()

    @abstractmethod
    def from_connect_data(self, topic: str, value: Any, *, schema: Schema | None = None) -> bytes | None:
        """Serialize a record key or value for ``topic`` (Java's ``fromConnectData(topic, schema, value)``).

        The runtime passes ``schema`` (by keyword) only for a record that carries one
        (``SourceRecord.key_schema`` / ``value_schema``); for schemaless records it calls
        ``from_connect_data(topic, value)``, so a converter that takes no ``schema`` argument keeps
        working for them.
        """

    @abstractmethod
    def to_connect_data(self, topic: str, data: bytes | None) -> Any:
        """Deserialize bytes read from ``topic``."""


class HeaderConverter(ABC):
    """Serializes record header values (Kafka Connect's ``HeaderConverter``).

    The worker's ``header.converter`` (default ``org.apache.kafka.connect.storage.SimpleHeaderConverter``)
    or the connector's own ``header.converter`` converts every header a source task or a transform puts
    on a record; ``header.converter.*`` settings configure it. A header value is a Python value (str,
    bytes, bool, int, float, Decimal, dict, list, Struct, date/time or None), with its schema when the
    header has one.

    A class can be both a :class:`Converter` and a :class:`HeaderConverter`, as the built-in
    ``JsonConverter``, ``StringConverter`` and ``ByteArrayConverter`` are (their header form is their
    key/value form). Such a class must accept both ``configure`` calls: give it
    ``def configure(self, configs, is_key=False)``. A class that is not a :class:`HeaderConverter` is
    refused as a ``header.converter`` (at validation, and at worker start-up for the worker's key).
    """

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the converter's own settings (the ``header.converter.`` prefix stripped).

        The runtime adds ``converter.type=header``, as Kafka Connect does.
        """

    def config_def(self) -> ConfigDef:
        """The converter's settings, as ``GET /connector-plugins/{converter}/config`` lists them."""
        return converter_config_def()

    @abstractmethod
    def from_connect_header(self, topic: str, header_key: str, value: Any, *,
                            schema: Schema | None = None) -> bytes | None:
        """Serialize the value of header ``header_key`` on a record for ``topic`` (None may stay None).

        The runtime passes ``schema`` (by keyword) only for a header that carries one (a
        :class:`~connect_runtime.api.record.Header` with a schema); for the others it calls
        ``from_connect_header(topic, header_key, value)``, so a converter that takes no ``schema``
        argument keeps working for them.
        """

    @abstractmethod
    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        """Deserialize the raw value of header ``header_key`` read from ``topic``."""
