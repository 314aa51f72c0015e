"""Builds a task's transformation chain from its connector's config (Kafka's
``ConnectorConfig.transformationStages`` and ``TransformationStage``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TypeVar

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.errors import ConfigException, ConnectException
from connect_runtime.api.record import SourceRecord
from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.config.transformation_config import (
    NEGATE,
    PLUGIN_VERSION,
    PREDICATE,
    PREDICATES,
    TRANSFORMS,
    aliases,
    enrich,
)
from connect_runtime.plugins.registry import PluginRegistry

logger = logging.getLogger(__name__)

_P = TypeVar("_P", Transformation, Predicate)


class PredicatedTransformation(Transformation):
    """A transformation applied only to records for which ``predicate.test(record) != negate``."""

    def __init__(self, transformation: Transformation, predicate: Predicate, negate: bool) -> None:
        self.transformation = transformation
        self._predicate = predicate
        self._negate = negate
        # Bound once: this runs for every record.
        self._test = predicate.test
        self._transform = transformation.apply

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        # `not` makes any truthy answer a bool: apply when test(record) != negate.
        if (not self._test(record)) is self._negate:
            return self._transform(record)
        return record

    def close(self) -> None:
        close_quietly(self.transformation)
        close_quietly(self._predicate)

    def __repr__(self) -> str:
        return (f"PredicatedTransformation{{predicate={self._predicate!r}, transformation={self.transformation!r}, "
                f"negate={self._negate}}}")


def close_quietly(plugin: Transformation | Predicate) -> None:
    """Close a transformation or predicate; an error is logged, not raised."""
    try:
        plugin.close()
    except Exception:
        logger.exception("Failed to close %r", plugin)


def build_transformation_chain(props: Mapping[str, str], plugins: PluginRegistry) -> list[Transformation]:
    """The configured transformations, configured and in order (a predicated one wrapped in a
    :class:`PredicatedTransformation` with its own predicate instance, as Kafka does).

    Raises :class:`ConfigException` (the first invalid setting) or :class:`ConnectException` (a
    plugin failed to configure); whatever was built is closed first.
    """
    transform_aliases = aliases(props, TRANSFORMS)
    if not transform_aliases:
        return []
    values = enrich(ConfigDef(), props, plugins.resolve).parse(props)
    chain: list[Transformation] = []
    try:
        for alias in transform_aliases:
            prefix = f"{TRANSFORMS}.{alias}."
            configs = {k[len(prefix):]: v for k, v in props.items() if k.startswith(prefix)}
            for implicit in (PREDICATE, NEGATE, PLUGIN_VERSION):
                configs.pop(implicit, None)
            transform_cls = plugins.resolve(values[prefix + "type"])
            if not issubclass(transform_cls, Transformation):  # validated above; narrows the type
                raise ConfigException(prefix + "type", values[prefix + "type"], "Not a Transformation")
            transformation = _configured(transform_cls, configs, alias)
            predicate_alias = values[prefix + PREDICATE]
            if predicate_alias is None:
                chain.append(transformation)
                continue
            try:
                predicate_prefix = f"{PREDICATES}.{predicate_alias}."
                predicate_configs = {k[len(predicate_prefix):]: v for k, v in props.items()
                                     if k.startswith(predicate_prefix)}
                predicate_configs.pop(PLUGIN_VERSION, None)
                predicate_cls = plugins.resolve(values[predicate_prefix + "type"])
                if not issubclass(predicate_cls, Predicate):
                    raise ConfigException(predicate_prefix + "type", values[predicate_prefix + "type"],
                                          "Not a Predicate")
                predicate = _configured(predicate_cls, predicate_configs, predicate_alias)
            except BaseException:
                close_quietly(transformation)
                raise
            chain.append(PredicatedTransformation(transformation, predicate, bool(values[prefix + NEGATE])))
    except BaseException:
        for built in chain:
            close_quietly(built)
        raise
    return chain


def _configured(cls: type[_P], configs: Mapping[str, str], alias: str) -> _P:
    plugin = cls()
    try:
        plugin.configure(configs)
    except ConfigException:
        close_quietly(plugin)
        raise
    except Exception as e:
        close_quietly(plugin)
        raise ConnectException(f"Failed to configure '{alias}' ({cls.__module__}.{cls.__qualname__}): {e}") from e
    return plugin
