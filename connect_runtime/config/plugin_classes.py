"""Finding a plugin class named by its dotted path (``mypackage.module.ClassName``) in the worker file."""

from __future__ import annotations

import importlib

__all__ = ["load_plugin_class"]


def load_plugin_class(name: str) -> type | None:
    """The class ``name`` names (``module.Class``), or None when it cannot be imported."""
    module, _, attr = name.strip().rpartition(".")
    if not module or not attr:
        return None
    try:
        found = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        return None
    return found if isinstance(found, type) else None
