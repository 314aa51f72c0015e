"""The framework's connector keys as one worker presents them (Java's ``ConnectorConfig`` with KIP-891):
converter keys default to this worker's converters and recommend the installed ones; the connector's
``connector.plugin.version`` defaults to, and recommends, the installed version of that connector."""

from __future__ import annotations

import dataclasses
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigKey
from connect_runtime.api.connector import Connector, SourceConnector
from connect_runtime.api.converter import Converter
from connect_runtime.config.connector_config import (
    CONNECTOR_PLUGIN_VERSION,
    connector_config_def,
    source_connector_config_def,
)
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.converters import BUILTIN_CONVERTERS
from connect_runtime.plugins.registry import JAVA_CONVERTER_NAMES, PluginRegistry, qualified_name
from connect_runtime.version import plugin_version

_BUILTIN_CLASSES = frozenset(BUILTIN_CONVERTERS.values())


def converter_names(plugins: PluginRegistry) -> list[str]:
    """The converters a connector may name: built-ins by their Kafka class name, others by Python name."""
    builtin = set(BUILTIN_CONVERTERS.values())
    others = sorted(qualified_name(c) for c in plugins.all_plugins()
                    if c not in builtin and issubclass(c, Converter))
    return [*JAVA_CONVERTER_NAMES, *others]


def framework_config_def(config: WorkerConfig, plugins: PluginRegistry, connector: Connector) -> ConfigDef:
    """The common keys for ``connector`` (source keys for a source connector), with this worker's defaults."""
    base = source_connector_config_def() if isinstance(connector, SourceConnector) else connector_config_def()
    keys: list[ConfigKey] = []
    installed = plugin_version(connector)
    converters = converter_names(plugins)
    worker_converters = {"key.converter": config.key_converter, "value.converter": config.value_converter}
    for key in base.keys.values():
        if key.name == CONNECTOR_PLUGIN_VERSION and installed:
            key = dataclasses.replace(key, default=installed, recommended_values=_constant([installed]))
        elif key.name in worker_converters:
            key = dataclasses.replace(key, default=worker_converters[key.name],
                                      recommended_values=_constant(converters))
        keys.append(key)
    return ConfigDef(keys)


def _constant(values: list[Any]) -> Any:
    return lambda _props: list(values)
