"""KIP-891 plugin versions of a connector config: ``connector.plugin.version`` and
``<kind>.converter.plugin.version``, checked at validation and when the connector starts (the rules are
in :mod:`connect_runtime.version`). One version of each plugin is installed, so a request is met by that
version or refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from connect_runtime.api.connector import Connector
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.version import plugin_version, version_error

CONVERTER_KINDS = ("key", "value", "header")


def installed_version(plugins: PluginRegistry, name: str) -> str | None:
    """The version of the installed plugin ``name`` (None when it is not installed or has none)."""
    try:
        return plugin_version(plugins.resolve(str(name).strip())())
    except Exception:
        return None


def converter_versions(plugins: PluginRegistry, props: Mapping[str, str],
                       worker: WorkerConfig) -> Callable[[str], str | None]:
    """For a converter kind (``key``...), the installed version of the converter the connector uses: the
    one ``props`` names, else the worker's."""
    defaults = {"key": worker.key_converter, "value": worker.value_converter, "header": worker.header_converter}

    def version(kind: str) -> str | None:
        return installed_version(plugins, props.get(f"{kind}.converter") or defaults[kind])
    return version


def check_requested_versions(props: Mapping[str, str], connector_class: str, connector: Connector,
                             on_error: Callable[[str, str], None],
                             converter_version: Callable[[str], str | None] = lambda kind: None) -> None:
    """Report (key, message) for every ``*.plugin.version`` in ``props`` the installed plugins do not meet;
    ``converter_version`` gives the installed version of the converter of each kind."""
    requested = props.get("connector.plugin.version")
    if requested:
        error = version_error(connector_class, plugin_version(connector), requested)
        if error:
            on_error("connector.plugin.version", error)
    for kind in CONVERTER_KINDS:
        key = f"{kind}.converter.plugin.version"
        requested = props.get(key)
        if requested:
            converter = props.get(f"{kind}.converter") or f"the worker's {kind}.converter"
            error = version_error(converter, converter_version(kind), requested)
            if error:
                on_error(key, error)
