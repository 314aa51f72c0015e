"""Versions: the runtime's own, a plugin's, and whether a plugin's meets a requested one (KIP-891).

One version of each plugin is installed, so a requested version (a version, or a Maven-style range such
as ``[1.0,2.0)``) is honoured by checking that the installed version satisfies it; anything else is
refused, never ignored. Plugins without a version accept no request.
"""

from __future__ import annotations

import re

from connect_runtime.api.runtime_info import UNKNOWN_VERSION, runtime_version

__all__ = ["UNDEFINED_VERSION", "UNKNOWN_VERSION", "plugin_version", "runtime_version", "satisfies", "version_error",
           "version_requirement"]

#: A plugin's version in plugin listings when it has none (Kafka's ``PluginDesc.UNDEFINED_VERSION``).
UNDEFINED_VERSION = "undefined"

_RANGE = re.compile(r"^\s*([\[(])\s*([^,\s]*)\s*,\s*([^,\s]*)\s*([\])])\s*$")


def plugin_version(plugin: object) -> str | None:
    """What ``plugin.version()`` returns; None when it has no such method, it fails or it returns nothing."""
    try:
        found = plugin.version()  # type: ignore[attr-defined]
    except Exception:
        return None
    return found if isinstance(found, str) and found else None


def _version_key(text: str) -> tuple[tuple[int, int | str], ...]:
    # Numeric parts compare as numbers, anything else as text after numbers (1.0 < 1.0.1 < 1.0-rc).
    parts = re.split(r"[.\-]", text.strip())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


def satisfies(installed: str, requested: str) -> bool:
    """Whether ``installed`` satisfies ``requested``: an exact version, or a range ``[a,b)``, ``(a,]``…"""
    match = _RANGE.match(requested)
    if match is None:
        return installed.strip() == requested.strip()
    low_bracket, low, high, high_bracket = match.groups()
    have = _version_key(installed)
    below = bool(low) and (have < _version_key(low) or (low_bracket == "(" and have == _version_key(low)))
    above = bool(high) and (have > _version_key(high) or (high_bracket == ")" and have == _version_key(high)))
    return not below and not above


_EXACT = re.compile(r"^\[\s*([^,\[\]()\s]+)\s*\]$")


def version_requirement(spec: str) -> str:
    """Java's ``PluginUtils.connectorVersionRequirement`` for one range: ``spec`` as a range, a plain
    version being a hard requirement (``1.0`` is ``[1.0,1.0]``, as Java prints it); ValueError when it is
    not a version specification."""
    text = spec.strip()
    if not text.startswith(("[", "(")):
        if not text or any(c in text for c in "[](),"):
            raise ValueError(f"Invalid version specification: {spec}")
        return f"[{text},{text}]"
    exact = _EXACT.match(text)
    if exact is not None:
        return f"[{exact.group(1)},{exact.group(1)}]"
    if _RANGE.match(text) is None:
        raise ValueError(f"Invalid version specification: {spec}")
    return re.sub(r"\s+", "", text)


def version_error(plugin: str, installed: str | None, requested: str) -> str | None:
    """The error for a ``*.plugin.version`` request, None when the installed plugin satisfies it."""
    if installed is None:
        return (f"Plugin {plugin} has no version, so version {requested} cannot be selected; "
                "leave the plugin version unset")
    if satisfies(installed, requested):
        return None
    return (f"Version {requested} of plugin {plugin} is not installed; the installed version is "
            f"{installed}")
