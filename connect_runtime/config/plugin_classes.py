"""Finding a plugin class named by its dotted path (``mypackage.module.ClassName``): in the worker file,
in connector configs and in the plugin registry."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["load_plugin_class"]


def load_plugin_class(name: str) -> type | None:
    """The class a dotted path names: ``pkg.module.Class``, or a nested ``pkg.module.Outer.Inner`` (also
    written ``pkg.module.Outer$Inner``, as Java names nested classes); None when it cannot be imported."""
    parts = name.strip().replace("$", ".").split(".")
    # The longest importable prefix is the module; the rest are attributes (nested classes).
    for split in range(len(parts) - 1, 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:split]))
        except (ImportError, ValueError, TypeError):
            continue
        try:
            for attr in parts[split:]:
                found = getattr(found, attr)
        except AttributeError:
            return None
        return found if isinstance(found, type) else None
    return None
