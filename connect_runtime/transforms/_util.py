"""Checks shared by the built-in transforms (Kafka's ``transforms.util.Requirements``)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from connect_runtime.api.errors import DataException


def type_name(value: Any) -> str:
    """The name of ``value``'s type for error messages ("null" for None, as Java says)."""
    return "null" if value is None else type(value).__name__


def require_map(value: Any, purpose: str) -> dict[str, Any]:
    """``value`` if it is a map (schemaless data); otherwise the reference's :class:`DataException`."""
    if not isinstance(value, dict):
        raise DataException(
            f"Only Map objects supported in absence of schema for [{purpose}], found: {type_name(value)}")
    return value


def runtime_version() -> str:
    """The version the built-in transforms and predicates report (the runtime's, as Java's report
    Kafka's)."""
    try:
        return version("connect-runtime")
    except PackageNotFoundError:
        return "undefined"
