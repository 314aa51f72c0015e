"""Converters turn record keys and values into bytes (and back)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any


class Converter(ABC):
    """Serializes keys or values. Configure with ``key.converter.*`` / ``value.converter.*`` keys."""

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Apply the converter's own settings (prefix already stripped)."""

    @abstractmethod
    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        """Serialize a record key or value for ``topic``."""

    @abstractmethod
    def to_connect_data(self, topic: str, data: bytes | None) -> Any:
        """Deserialize bytes read from ``topic``."""
