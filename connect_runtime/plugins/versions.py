"""KIP-891 plugin versions: ``connector.plugin.version`` and ``<kind>.converter.plugin.version``.

One version of each plugin is installed, so a requested version (a version, or a Maven-style range such
as ``[1.0,2.0)``) is honoured by checking that the installed version satisfies it; anything else is
refused, at validation and when the connector starts, never ignored. Plugins without a version (our
converters) accept no request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from connect_runtime.api.connector import Connector

_RANGE = re.compile(r"^\s*([\[(])\s*([^,\s]*)\s*,\s*([^,\s]*)\s*([\])])\s*$")


def _version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    # Numeric parts compare as numbers, anything else as text after numbers (1.0 < 1.0.1 < 1.0-rc).
    parts = re.split(r"[.\-]", version.strip())
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


def version_error(plugin: str, installed: str | None, requested: str) -> str | None:
    """The error for a ``*.plugin.version`` request, None when the installed plugin satisfies it."""
    if installed is None:
        return (f"Plugin {plugin} has no version, so version {requested} cannot be selected; "
                "leave the plugin version unset")
    if satisfies(installed, requested):
        return None
    return (f"Version {requested} of plugin {plugin} is not installed; the installed version is "
            f"{installed}")


def connector_version(connector: Connector) -> str | None:
    """The connector's version; None if it cannot tell."""
    try:
        return connector.version()
    except Exception:
        return None


def check_requested_versions(props: Mapping[str, str], connector_class: str, connector: Connector,
                             on_error: Callable[[str, str], None]) -> None:
    """Report (key, message) for every ``*.plugin.version`` in ``props`` the installed plugins do not meet."""
    requested = props.get("connector.plugin.version")
    if requested:
        error = version_error(connector_class, connector_version(connector), requested)
        if error:
            on_error("connector.plugin.version", error)
    for kind in ("key", "value", "header"):
        key = f"{kind}.converter.plugin.version"
        requested = props.get(key)
        if requested:
            converter = props.get(f"{kind}.converter") or f"the worker's {kind}.converter"
            on_error(key, version_error(converter, None, requested) or "")
