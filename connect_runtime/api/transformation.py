"""Single message transforms and their predicates (applied per record, in order)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.record import SourceRecord


class Transformation(ABC):
    """Changes or drops (returns None) a record before it is converted and sent."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the transform's settings (``transforms.<alias>.`` prefix stripped)."""

    def config_def(self) -> ConfigDef:
        """The transform's config keys."""
        return ConfigDef()

    @abstractmethod
    def apply(self, record: SourceRecord) -> SourceRecord | None:
        """Return the transformed record, or None to drop it."""

    def close(self) -> None:
        """Release resources."""


class Predicate(ABC):
    """Decides whether a transform applies to a record."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the predicate's settings."""

    @abstractmethod
    def test(self, record: SourceRecord) -> bool:
        """True if the transform should apply to ``record``."""
