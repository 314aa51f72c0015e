"""The ``transforms.<alias>.*`` and ``predicates.<alias>.*`` keys of a connector config (Kafka's
``ConnectorConfig.enrich``).

For every alias listed in ``transforms`` (``predicates``) the connector's config definition gains
``transforms.<alias>.type`` (``predicates.<alias>.type``), validated as Kafka Connect does (missing, a
class that cannot be found, not a Transformation/Predicate, abstract), and the plugin's own keys under
the alias' prefix in group ``Transforms: <alias>`` (``Predicates: <alias>``), so validation reports
them in ConfigInfos as Java does. Each alias also gets ``plugin.version`` (KIP-891; a version or range
the installed version satisfies) and each transform the implicit ``predicate`` and ``negate``.

This module knows plugins only through the ``resolve`` callable it is given (the plugin registry's),
so it stays below the plugin and worker layers.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from connect_runtime.api.config_def import NO_DEFAULT, ConfigDef, ConfigKey, ConfigType, Importance, Width
from connect_runtime.api.config_values import InvalidValue, parse_list
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.config.connector_config import PREDICATES_GROUP, TRANSFORMS_GROUP
from connect_runtime.version import plugin_version, version_error

__all__ = [
    "NEGATE",
    "PLUGIN_VERSION",
    "PREDICATE",
    "PREDICATES",
    "TRANSFORMS",
    "Resolve",
    "aliases",
    "enrich",
    "plugin_config_def",
]

log = logging.getLogger(__name__)

TRANSFORMS: Final = "transforms"
PREDICATES: Final = "predicates"
#: The implicit per-transform keys naming its predicate and whether to negate it.
PREDICATE: Final = "predicate"
NEGATE: Final = "negate"
#: The plugin version key of each alias (KIP-891): a version or range the installed one satisfies.
PLUGIN_VERSION: Final = "plugin.version"

#: Finds a plugin class by name; raises (any exception) when there is none.
Resolve = Callable[[str], type]

_IMPORTANCE_ORDER = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}


@dataclass(frozen=True)
class _Kind:
    config: str  # "transforms"
    group: str  # "Transforms"
    base: type  # Transformation
    noun: str  # "transformation"


_TRANSFORMATION = _Kind(TRANSFORMS, TRANSFORMS_GROUP, Transformation, "transformation")
_PREDICATE = _Kind(PREDICATES, PREDICATES_GROUP, Predicate, "predicate")


def aliases(props: Mapping[str, Any], config: str) -> list[str]:
    """The distinct aliases listed in ``props[config]`` (``transforms`` or ``predicates``), in order."""
    raw = props.get(config)
    if raw is None:
        return []
    try:
        return list(dict.fromkeys(parse_list(raw)))
    except InvalidValue:
        return []


def plugin_config_def(key: str, value: Any, cls: type, base: type) -> ConfigDef:
    """``cls``'s config definition, after the checks Kafka makes of a ``*.type`` value (the
    reference's messages); ``key`` and ``value`` name the setting for the errors."""
    if not issubclass(cls, base):
        raise ConfigException(f"Class class {cls.__module__}.{cls.__qualname__} does not implement the "
                              f"{base.__name__} interface")
    if inspect.isabstract(cls):
        concrete = [f"{c.__module__}.{c.__qualname__}" for c in cls.__subclasses__() if not inspect.isabstract(c)]
        message = "This class is abstract and cannot be created."
        if concrete:
            message += " Did you mean " + ", ".join(concrete) + "?"
        raise ConfigException(message)
    try:
        plugin: Any = cls()
        definition = plugin.config_def()
    except Exception as e:
        raise ConfigException(key, str(value), f"Error getting config definition from {base.__name__}: {e}") from e
    if not isinstance(definition, ConfigDef):
        raise ConfigException(f"{cls.__module__}.{cls.__qualname__}.config_def() must return a ConfigDef that is "
                              "not null.")
    return definition


def _resolve_class(key: str, value: Any, resolve: Resolve) -> type:
    try:
        return resolve(str(value))
    except Exception:
        raise ConfigException(key, value, f"Class {value} could not be found.") from None


def enrich(base: ConfigDef, props: Mapping[str, Any], resolve: Resolve,
           recommend: Callable[[type], list[str]] | None = None) -> ConfigDef:
    """``base`` plus the keys of every transform and predicate ``props`` lists (a new ConfigDef).

    A ``*.type`` that is missing or cannot be used adds only the ``*.type`` key (whose validation then
    reports why), as Kafka does when validating. ``recommend`` lists the class names recommended for
    a ``*.type`` key given the base class (Transformation or Predicate).
    """
    keys: list[ConfigKey] = list(base.keys.values())
    defined_predicates = set(aliases(props, PREDICATES))
    for kind in (_TRANSFORMATION, _PREDICATE):
        for alias in aliases(props, kind.config):
            keys.extend(_alias_keys(kind, alias, props, resolve, recommend, defined_predicates))
    return ConfigDef(keys)


def _alias_keys(kind: _Kind, alias: str, props: Mapping[str, Any], resolve: Resolve,
                recommend: Callable[[type], list[str]] | None, defined_predicates: set[str]) -> list[ConfigKey]:
    prefix = f"{kind.config}.{alias}."
    group = f"{kind.group}: {alias}"
    type_key = prefix + "type"

    def check_type(name: str, value: Any) -> None:
        cls = _resolve_class(name, value, resolve)
        if kind is _TRANSFORMATION and prefix + NEGATE in props and prefix + PREDICATE not in props:
            raise ConfigException(f"Config '{prefix}{NEGATE}' was provided but there is no config "
                                  f"'{prefix}{PREDICATE}' defining a predicate to be negated.")
        plugin_config_def(name, value, cls, kind.base)

    recommended = None if recommend is None else (lambda _props: recommend(kind.base))
    keys = [ConfigKey(type_key, ConfigType.CLASS, NO_DEFAULT, check_type, Importance.HIGH,
                      f"Class for the '{alias}' {kind.noun}.", group, 0, Width.LONG,
                      f"{kind.base.__name__} type for {alias}", (), recommended)]

    def version_key(default: str | None, validator: Callable[[str, Any], None] | None) -> ConfigKey:
        return ConfigKey(prefix + PLUGIN_VERSION, ConfigType.STRING, default, validator, Importance.HIGH,
                         f"Version of the '{alias}' {kind.noun}.", group, 1, Width.LONG,
                         f"{kind.base.__name__} version for {alias}", (),
                         lambda _props: [] if default is None else [default])

    try:
        cls = resolve(str(props[type_key]))
        own = plugin_config_def(type_key, props[type_key], cls, kind.base)
        installed = plugin_version(cls())
    except Exception:
        # The type key's validation says what is wrong; the version key is listed all the same, as Kafka does.
        return [*keys, version_key(None, None)]
    keys.append(version_key(installed, _installed_version(cls, installed)))
    child: list[ConfigKey] = []
    if kind is _TRANSFORMATION:
        child.append(ConfigKey(PREDICATE, ConfigType.STRING, None, None, Importance.MEDIUM,
                               "The alias of a predicate used to determine whether to apply this transformation.",
                               display_name=PREDICATE))
        child.append(ConfigKey(NEGATE, ConfigType.BOOLEAN, False, None, Importance.MEDIUM,
                               "Whether the configured predicate should be negated.", display_name=NEGATE))
    for key in own.keys.values():
        if key.name == PLUGIN_VERSION or (kind is _TRANSFORMATION and key.name in (PREDICATE, NEGATE)):
            log.warning("Transformer config %s is masked by implicit config of that name", key.name)
            continue
        child.append(key)
    embedded = _embed(prefix, group, 2, child)
    if kind is _TRANSFORMATION:
        # Stricter than Kafka, which fails only when the task starts: a transform's predicate must be
        # one of the connector's `predicates`.
        predicate_key = prefix + PREDICATE
        embedded = [replace(k, validator=_predicate_defined(defined_predicates)) if k.name == predicate_key else k
                    for k in embedded]
    return keys + embedded


def _installed_version(cls: type, installed: str | None) -> Callable[[str, Any], None]:
    """One version of a plugin is installed: a request it does not satisfy (a version, or a range as for
    ``connector.plugin.version``) is refused, not ignored."""

    def check(name: str, value: Any) -> None:
        if value is None:
            return
        error = version_error(f"{cls.__module__}.{cls.__qualname__}", installed, str(value))
        if error:
            raise ConfigException(name, value, error)

    return check


def _predicate_defined(defined: set[str]) -> Callable[[str, Any], None]:
    def check(name: str, value: Any) -> None:
        if value is not None and value not in defined:
            raise ConfigException(name, value, f"Predicate '{value}' is not defined: list it in '{PREDICATES}' and "
                                  f"set '{PREDICATES}.{value}.type'")

    return check


def _sorted(keys: Iterable[ConfigKey]) -> list[ConfigKey]:
    """Kafka's ``ConfigDef.sortedConfigs``: keys without a group first, then by group (in order of
    first definition), order in group, required before defaulted, importance and name."""
    keys = list(keys)
    group_order: dict[str, int] = {}
    for k in keys:
        if k.group is not None:
            group_order.setdefault(k.group, len(group_order))
    return sorted(keys, key=lambda k: (
        -1 if k.group is None else group_order[k.group], k.order_in_group, 0 if k.required else 1,
        _IMPORTANCE_ORDER[k.importance], k.name))


def _embed(prefix: str, group: str, starting_order: int, child: Iterable[ConfigKey]) -> list[ConfigKey]:
    """Kafka's ``ConfigDef.embed``: ``child``'s keys under ``prefix`` in ``group`` (or ``group: <own
    group>``); validators see the name without the prefix, recommenders the unprefixed settings."""
    out: list[ConfigKey] = []
    for order, key in enumerate(_sorted(child), start=starting_order):
        out.append(ConfigKey(
            prefix + key.name, key.type, key.default, _embedded_validator(prefix, key.validator),
            key.importance, key.documentation, group if key.group is None else f"{group}: {key.group}", order,
            key.width, key.display_name, tuple(prefix + d for d in key.dependents),
            _embedded_recommender(prefix, key.recommended_values)))
    return out


def _embedded_validator(prefix: str, validator: Callable[[str, Any], None] | None
                        ) -> Callable[[str, Any], None] | None:
    if validator is None:
        return None
    return lambda name, value: validator(name[len(prefix):], value)


def _embedded_recommender(prefix: str, recommender: Callable[[Mapping[str, Any]], list[Any]] | None
                          ) -> Callable[[Mapping[str, Any]], list[Any]] | None:
    if recommender is None:
        return None
    return lambda props: recommender({k[len(prefix):]: v for k, v in props.items() if k.startswith(prefix)})
