"""Converters turn record keys and values into bytes (and back)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance, ValidString

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
    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        """Serialize a record key or value for ``topic``."""

    @abstractmethod
    def to_connect_data(self, topic: str, data: bytes | None) -> Any:
        """Deserialize bytes read from ``topic``."""
