"""Finding plugin classes by name: the plugins discovered at start-up (built-ins, entry points of group
``connect_runtime.plugins``, the modules of ``plugin.path`` directories), dotted Python paths the
worker's :class:`~connect_runtime.config.plugin_classes.PluginAllowlist` allows, and Kafka Connect's
aliases (the simple class name, and the simple name without its ``Connector``/``Converter`` suffix).

Discovery happens once, when the registry is built (the worker builds it when it starts); resolving a
name never scans anything, and a name outside the allowlist is not found without importing anything."""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Mapping
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Final

from connect_runtime.api.config_provider import ConfigProvider
from connect_runtime.api.connector import Connector, SourceConnector
from connect_runtime.api.converter import Converter, HeaderConverter
from connect_runtime.api.errors import ConfigException, ConnectException
from connect_runtime.api.override_policy import ConnectorClientConfigOverridePolicy
from connect_runtime.api.rest_extension import ConnectRestExtension
from connect_runtime.api.task import SourceTask
from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.config.plugin_classes import ENTRY_POINT_GROUP, PLUGIN_PATH_CONFIG, PluginAllowlist
from connect_runtime.converters import BUILTIN_CONVERTERS
from connect_runtime.transforms import BUILTIN_PREDICATES, BUILTIN_TRANSFORMS

logger = logging.getLogger(__name__)

__all__ = ["ENTRY_POINT_GROUP", "PLUGIN_BASES", "PluginNotFoundError", "PluginRegistry"]

#: The kinds of plugin a registry knows: a class found by discovery or by dotted path is registered
#: only if it subclasses one of these (so ``builtins.int`` is never a plugin).
PLUGIN_BASES: tuple[type, ...] = (Connector, Converter, HeaderConverter, Transformation, Predicate, ConfigProvider,
                                  ConnectorClientConfigOverridePolicy, ConnectRestExtension)
#: The kinds ``GET /connector-plugins`` lists (Java lists neither config providers, override policies nor
#: REST extensions).
LISTED_BASES: tuple[type, ...] = (Connector, Converter, HeaderConverter, Transformation, Predicate)

#: Apache Kafka's class names of plugins we ship a counterpart of -> our class (imported when first
#: asked for). Connector configs and task configs written by a Java Connect cluster (``connector.class``,
#: ``task.class``) then start here as they are.
JAVA_CLASS_NAMES: dict[str, str] = {
    "org.apache.kafka.connect.tools.VerifiableSourceConnector":
        "connectors.verifiable.connector.VerifiableSourceConnector",
    "org.apache.kafka.connect.tools.VerifiableSourceTask": "connectors.verifiable.connector.VerifiableSourceTask",
    "org.apache.kafka.connect.file.FileStreamSourceConnector": "connectors.file.source.FileStreamSourceConnector",
    "org.apache.kafka.connect.file.FileStreamSourceTask": "connectors.file.source.FileStreamSourceTask",
}


def java_class_name(cls: type) -> str | None:
    """The Apache Kafka class name ``cls`` stands in for, if it is one of our counterparts."""
    qualified = qualified_name(cls)
    return next((java for java, ours in JAVA_CLASS_NAMES.items() if ours == qualified), None)


#: The Java class names of our built-in converters, Kafka's and Confluent's (what a Java worker with
#: them installed recommends for ``*.converter``).
JAVA_CONVERTER_NAMES: Final = sorted(name for name in BUILTIN_CONVERTERS
                                     if name.startswith(("org.apache.kafka.", "io.confluent.")))
#: Built-in converter, transform and predicate class -> the Kafka class name a Java worker lists it under
#: (their Kafka names are registered as names of these classes; connectors' are in JAVA_CLASS_NAMES).
_LISTED_NAMES: Final[Mapping[type, str]] = {
    **{BUILTIN_CONVERTERS[n]: n for n in reversed(JAVA_CONVERTER_NAMES)},
    **{cls: n for n, cls in (*BUILTIN_TRANSFORMS.items(), *BUILTIN_PREDICATES.items())},
}


def listed_name(cls: type) -> str:
    """The class name ``GET /connector-plugins`` shows and validation recommends: Kafka's name for a
    built-in converter, transform or predicate (as a Java worker lists it), the Python qualified name
    otherwise."""
    return _LISTED_NAMES.get(cls) or qualified_name(cls)


class PluginNotFoundError(ConnectException):
    """No plugin matches the given class name or alias (the REST layer answers 400)."""


def plugin_types(cls: type) -> list[str]:
    """The plugin types as ``GET /connector-plugins`` reports them: a class that is both a
    converter and a header converter is listed once as each, as Java lists it."""
    if issubclass(cls, Converter) and issubclass(cls, HeaderConverter):
        return ["converter", "header_converter"]
    return [plugin_type(cls)]


#: Plugin base classes and the type ``GET /connector-plugins`` reports for them; the first match wins
#: (a source connector is also a connector, and the one that is not is a sink).
_PLUGIN_TYPES: Final[tuple[tuple[type, str], ...]] = (
    (SourceConnector, "source"),
    (Connector, "sink"),
    (Converter, "converter"),
    (HeaderConverter, "header_converter"),
    (Transformation, "transformation"),
    (Predicate, "predicate"),
    (ConnectRestExtension, "rest_extension"),
)


def plugin_type(cls: type) -> str:
    """The plugin type as ``GET /connector-plugins`` reports it (a class that is both a converter and a
    header converter: ``converter``; see :func:`plugin_types`)."""
    return next((name for base, name in _PLUGIN_TYPES if issubclass(cls, base)), "unknown")


def qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class PluginRegistry:
    """All known plugins and their aliases, discovered once when the registry is built.

    Discovery: the built-in plugins, the entry points of group ``connect_runtime.plugins``, and the
    top-level modules and packages of each ``plugin.path`` directory of ``allowlist``, which are imported
    and scanned for plugin classes (subclasses of :data:`PLUGIN_BASES` defined in that module or below
    it). Afterwards :meth:`resolve` finds a name among them, or imports a dotted path the allowlist
    allows (registered if it names a plugin class); nothing else is ever imported.

    A ``plugin.path`` module that fails to import raises :class:`ConfigException` naming ``plugin.path``
    (the worker refuses to start). The default allowlist allows no dotted paths beyond the installed
    entry points' modules (tests and embedding pass their own).
    """

    def __init__(self, allowlist: PluginAllowlist | None = None) -> None:
        self.allowlist = allowlist if allowlist is not None else PluginAllowlist()
        self._by_name: dict[str, type] = {}
        self._classes: list[type] = []
        # Task classes, by qualified (and Java) name: found through their connectors, not listed as plugins.
        self._tasks: dict[str, type[SourceTask]] = {}
        self._load_builtins()
        self._load_entry_points()
        self._load_plugin_path()

    def _load_builtins(self) -> None:
        for name, cls in BUILTIN_CONVERTERS.items():
            self._register(cls, extra=(name,))
        # Java class name and its simple name (``RegexRouter``, ``InsertField$Value``).
        for java_name, smt in (*BUILTIN_TRANSFORMS.items(), *BUILTIN_PREDICATES.items()):
            self._register(smt, extra=(java_name, java_name.rpartition(".")[2]))

    def _load_entry_points(self) -> None:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                cls = ep.load()
            except Exception:
                logger.exception("Could not load plugin %s (%s)", ep.name, ep.value)
                continue
            self._register(cls, extra=(ep.name,))

    def _load_plugin_path(self) -> None:
        for directory in set(self.allowlist.plugin_path) - set(self.allowlist.path_modules.values()):
            # Likely a Java worker's plugin directory: its jars are not plugins here.
            logger.warning("plugin.path directory %s holds no Python plugin module or package", directory)
        for module_name, directory in self.allowlist.path_modules.items():
            try:
                module = importlib.import_module(module_name)
            except (Exception, SystemExit) as e:
                raise ConfigException(PLUGIN_PATH_CONFIG, str(directory),
                                      f"module {module_name} failed to import: {e!r}") from None
            origin = getattr(module, "__file__", None)
            if origin is None or Path(origin).resolve().parent not in (directory.resolve(),
                                                                       (directory / module_name).resolve()):
                raise ConfigException(PLUGIN_PATH_CONFIG, str(directory),
                                      f"module {module_name} is shadowed by {origin or 'a built-in module'}")
            found = self._scan(module)
            logger.info("Found %d plugin(s) in module %s of plugin.path directory %s", found, module_name,
                        directory)

    def _scan(self, module: ModuleType) -> int:
        """Register the plugin classes ``module`` defines (in it or its submodules); how many."""
        count = 0
        for value in list(vars(module).values()):
            if (isinstance(value, type) and issubclass(value, PLUGIN_BASES) and value not in PLUGIN_BASES
                    and (value.__module__ + ".").startswith(module.__name__ + ".")):
                self._register(value)
                count += 1
        return count

    def _register(self, cls: type, extra: tuple[str, ...] = ()) -> None:
        if cls not in self._classes:
            self._classes.append(cls)
            if issubclass(cls, Connector) and not inspect.isabstract(cls):
                self._register_task_of(cls)
        simple = cls.__name__
        names = [qualified_name(cls), simple, *extra]
        for suffix in ("Connector", "Converter"):
            if simple.endswith(suffix) and len(simple) > len(suffix):
                names.append(simple[: -len(suffix)])
        for n in names:
            self._by_name.setdefault(n, cls)

    def _register_task_of(self, connector: type[Connector]) -> None:
        try:
            task = connector().task_class()
        except Exception:  # a connector that cannot say: its task is found by an allowed dotted path only
            logger.debug("Could not ask connector %s for its task class", qualified_name(connector), exc_info=True)
            return
        if isinstance(task, type) and issubclass(task, SourceTask):
            self._tasks.setdefault(qualified_name(task), task)
            java = java_class_name(task)
            if java is not None:
                self._tasks.setdefault(java, task)

    def register(self, cls: type) -> None:
        """Make ``cls`` available by its names (for tests and embedding)."""
        self._register(cls)

    def resolve(self, name: str) -> type:
        """The plugin class named ``name``: an alias or qualified name of a discovered plugin, or a dotted
        ``module.Class`` path the allowlist allows that names a plugin class (see :data:`PLUGIN_BASES`)."""
        cls = self._by_name.get(name)
        if cls is not None:
            return cls
        # A Java class name we have a counterpart of stands for that counterpart.
        target = JAVA_CLASS_NAMES.get(name, name)
        found = self._by_name.get(target)
        if found is None and self.allowlist.allows(target):  # checked first: nothing else is imported
            found = self.allowlist.load(target)
        if isinstance(found, type) and issubclass(found, PLUGIN_BASES):
            self._register(found, extra=(name,))
            return found
        raise PluginNotFoundError(
            f"Failed to find any class that implements Connector and which name matches {name}, available "
            f"connectors are: {', '.join(sorted(qualified_name(c) for c in self.connectors()))}")

    def task_class(self, name: str) -> type[SourceTask]:
        """The task class named ``name`` (a task config's ``task.class``): the task class of a known
        connector, or an allowed dotted path naming a :class:`SourceTask`."""
        task = self._tasks.get(name)
        if task is not None:
            return task
        found = self.allowlist.load(name) if self.allowlist.allows(name) else None
        if isinstance(found, type) and issubclass(found, SourceTask):
            self._tasks[name] = found
            return found
        raise PluginNotFoundError(f"Failed to find any class that implements SourceTask and which name matches "
                                  f"{name}")

    def connector_class(self, name: str) -> type[Connector]:
        cls = self.resolve(name)
        if not issubclass(cls, Connector):
            raise PluginNotFoundError(f"Class {name} is not a Connector")
        return cls

    def converter(self, name: str) -> type[Converter]:
        cls = self.resolve(name)
        if not issubclass(cls, Converter):
            raise PluginNotFoundError(f"Class {name} is not a Converter")
        return cls

    def header_converter(self, name: str) -> type[HeaderConverter]:
        """The :class:`HeaderConverter` named ``name``; a class that is not one is refused."""
        cls = self.resolve(name)
        if not issubclass(cls, HeaderConverter):
            raise PluginNotFoundError(f"Class {name} is not a HeaderConverter")
        return cls

    def connectors(self) -> list[type[Connector]]:
        return [c for c in self._classes if isinstance(c, type) and issubclass(c, Connector)]

    def transformations(self) -> list[type[Transformation]]:
        """The concrete transformations known (for the ``transforms.<alias>.type`` recommendations)."""
        return [c for c in self._classes if issubclass(c, Transformation) and not inspect.isabstract(c)]

    def predicates(self) -> list[type[Predicate]]:
        """The concrete predicates known (for the ``predicates.<alias>.type`` recommendations)."""
        return [c for c in self._classes if issubclass(c, Predicate) and not inspect.isabstract(c)]

    def all_plugins(self) -> list[type]:
        """Every plugin class ``GET /connector-plugins`` may list that can be instantiated (abstract bases
        are only known by name; config providers and override policies are not listed, as in Java)."""
        return [c for c in self._classes if issubclass(c, LISTED_BASES) and not inspect.isabstract(c)]
