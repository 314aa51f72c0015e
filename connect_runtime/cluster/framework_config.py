"""The framework's connector keys as one worker presents them (Java's ``ConnectorConfig`` with KIP-891):
converter keys default to this worker's converters, recommend the installed ones and refuse a class of
the wrong kind (a ``header.converter`` must be a HeaderConverter); the connector's
``connector.plugin.version`` defaults to, and recommends, the installed version of that connector."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef, ConfigKey
from connect_runtime.api.connector import Connector, SourceConnector
from connect_runtime.api.converter import Converter, HeaderConverter
from connect_runtime.api.errors import ConfigException
from connect_runtime.config.connector_config import (
    CONNECTOR_PLUGIN_VERSION,
    PLUGIN_VERSION_SUFFIX,
    TASKS_MAX,
    connector_config_def,
    source_connector_config_def,
    tasks_max_limit_problem,
)
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.converters import BUILTIN_CONVERTERS
from connect_runtime.plugins.registry import JAVA_CONVERTER_NAMES, PluginNotFoundError, PluginRegistry, qualified_name
from connect_runtime.plugins.versions import installed_version
from connect_runtime.version import plugin_version

_BUILTIN_CLASSES = frozenset(BUILTIN_CONVERTERS.values())


def converter_names(plugins: PluginRegistry, base: type = Converter) -> list[str]:
    """The converters (``base`` :class:`HeaderConverter`: the header converters) a connector may name:
    built-ins by their Kafka class name, others by Python name."""
    builtin = set(BUILTIN_CONVERTERS.values())
    others = sorted(qualified_name(c) for c in plugins.all_plugins()
                    if c not in builtin and issubclass(c, base))
    return [*(n for n in JAVA_CONVERTER_NAMES if issubclass(BUILTIN_CONVERTERS[n], base)), *others]


def class_validator(plugins: PluginRegistry, base: type) -> Any:
    """A validator for a class-valued key: the class must exist, be a ``base`` and not be abstract
    (Java's ``ConcreteSubClassValidator`` with its messages)."""
    def check(name: str, value: Any) -> None:
        if value is None:
            return
        try:
            cls = plugins.resolve(str(value))
        except PluginNotFoundError:
            raise ConfigException(name, value, f"Class {value} could not be found.") from None
        if not issubclass(cls, base):
            raise ConfigException(f"Class class {value} does not implement the {base.__name__} interface")
        if inspect.isabstract(cls):
            raise ConfigException("This class is abstract and cannot be created.")
    return check


#: The converter keys and the kind of class each must name.
_CONVERTER_KEYS: dict[str, type] = {
    "key.converter": Converter, "value.converter": Converter, "header.converter": HeaderConverter}


def check_worker_converters(config: WorkerConfig, plugins: PluginRegistry) -> None:
    """Refuse, at start-up, a worker converter key that names a missing class or one of the wrong kind
    (e.g. a ``header.converter`` that is not a HeaderConverter): one ConfigException naming the key."""
    names = {"key.converter": config.key_converter, "value.converter": config.value_converter,
             "header.converter": config.header_converter}
    for key, name in names.items():
        try:
            class_validator(plugins, _CONVERTER_KEYS[key])(key, name)
        except ConfigException as e:
            message = str(e)
            if key not in message:
                raise ConfigException(key, name, message) from None
            raise


def framework_config_def(config: WorkerConfig, plugins: PluginRegistry, connector: Connector, *,
                         worker_converters: bool = True, props: Mapping[str, Any] | None = None) -> ConfigDef:
    """The common keys for ``connector`` (source keys for a source connector), with this worker's defaults.

    ``worker_converters=False`` leaves the converter keys without a default, as Java's plugin config
    definition (``GET /connector-plugins/{p}/config``) shows them; validation shows the worker's, and each
    converter's version key defaults to, and recommends, the installed version of the converter ``props``
    (else the worker) names.
    """
    base = source_connector_config_def() if isinstance(connector, SourceConnector) else connector_config_def()
    keys: list[ConfigKey] = []
    installed = plugin_version(connector)
    defaults = {"key.converter": config.key_converter, "value.converter": config.value_converter,
                "header.converter": config.header_converter}
    for key in base.keys.values():
        if key.name == CONNECTOR_PLUGIN_VERSION and installed:
            key = dataclasses.replace(key, default=installed, recommended_values=_constant([installed]))
        elif key.name == TASKS_MAX:
            key = dataclasses.replace(key, validator=_tasks_max_validator(key.validator, config.tasks_max_limit))
        elif key.name in defaults:
            kind = _CONVERTER_KEYS[key.name]
            key = dataclasses.replace(key, default=defaults[key.name] if worker_converters else None,
                                      validator=class_validator(plugins, kind),
                                      recommended_values=_constant(converter_names(plugins, kind)))
        elif worker_converters and key.name.removesuffix(PLUGIN_VERSION_SUFFIX) in defaults:
            converter = key.name.removesuffix(PLUGIN_VERSION_SUFFIX)
            version = installed_version(plugins, (props or {}).get(converter) or defaults[converter])
            if version is not None:
                key = dataclasses.replace(key, default=version, recommended_values=_constant([version]))
        keys.append(key)
    return ConfigDef(keys)


def _tasks_max_validator(base: Any, limit: int) -> Any:
    """``tasks.max``'s own check, then this worker's ``tasks.max.limit``: checked before anything is sized
    by it (a connector asked for ``tasks.max`` task configs may build that many)."""
    def check(name: str, value: Any) -> None:
        if base is not None:
            base(name, value)
        if isinstance(value, int):
            problem = tasks_max_limit_problem(value, limit)
            if problem is not None:
                raise ConfigException(name, value, problem)
    return check


def _constant(values: list[Any]) -> Any:
    return lambda _props: list(values)
