"""KIP-891 plugin versions of a connector config: ``connector.plugin.version`` and
``<kind>.converter.plugin.version``, checked at validation and when the connector starts (the rules are
in :mod:`connect_runtime.version`). Our converters have no version, so they accept no request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from connect_runtime.api.connector import Connector
from connect_runtime.version import plugin_version, version_error


def check_requested_versions(props: Mapping[str, str], connector_class: str, connector: Connector,
                             on_error: Callable[[str, str], None]) -> None:
    """Report (key, message) for every ``*.plugin.version`` in ``props`` the installed plugins do not meet."""
    requested = props.get("connector.plugin.version")
    if requested:
        error = version_error(connector_class, plugin_version(connector), requested)
        if error:
            on_error("connector.plugin.version", error)
    for kind in ("key", "value", "header"):
        key = f"{kind}.converter.plugin.version"
        requested = props.get(key)
        if requested:
            converter = props.get(f"{kind}.converter") or f"the worker's {kind}.converter"
            on_error(key, version_error(converter, None, requested) or "")
