"""Finding plugin classes by name: entry points (group ``connect_runtime.plugins``), dotted Python
paths, and Kafka Connect's aliases (the simple class name, and the simple name without its
``Connector``/``Converter`` suffix)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Final

from connect_runtime.api.connector import Connector, SourceConnector
from connect_runtime.api.converter import Converter, HeaderConverter
from connect_runtime.api.errors import ConnectException
from connect_runtime.api.rest_extension import ConnectRestExtension
from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.config.plugin_classes import load_plugin_class
from connect_runtime.converters import BUILTIN_CONVERTERS
from connect_runtime.transforms import BUILTIN_PREDICATES, BUILTIN_TRANSFORMS

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "connect_runtime.plugins"

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


#: Kafka's class names of our built-in converters (what a Java worker recommends for ``*.converter``).
JAVA_CONVERTER_NAMES: Final = sorted(name for name in BUILTIN_CONVERTERS if name.startswith("org.apache.kafka."))
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


def plugin_type(cls: type) -> str:
    """The plugin type as ``GET /connector-plugins`` reports it (a class that is both a converter and a
    header converter: ``converter``; see :func:`plugin_types`)."""
    if issubclass(cls, SourceConnector):
        return "source"
    if issubclass(cls, Connector):
        return "sink"
    if issubclass(cls, Converter):
        return "converter"
    if issubclass(cls, HeaderConverter):
        return "header_converter"
    if issubclass(cls, Transformation):
        return "transformation"
    if issubclass(cls, Predicate):
        return "predicate"
    if issubclass(cls, ConnectRestExtension):
        return "rest_extension"
    return "unknown"


def qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class PluginRegistry:
    """All known plugins and their aliases."""

    def __init__(self) -> None:
        self._by_name: dict[str, type] = {}
        self._classes: list[type] = []
        self._load_builtins()
        self._load_entry_points()

    def _load_builtins(self) -> None:
        for name, cls in BUILTIN_CONVERTERS.items():
            self._register(cls, extra=(name,))
        # Built-in connectors, found without reinstalling the package (their Java names: JAVA_CLASS_NAMES).
        from connectors.file import FileStreamSourceConnector

        self._register(FileStreamSourceConnector)
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

    def _register(self, cls: type, extra: tuple[str, ...] = ()) -> None:
        if cls not in self._classes:
            self._classes.append(cls)
        simple = cls.__name__
        names = [qualified_name(cls), simple, *extra]
        for suffix in ("Connector", "Converter"):
            if simple.endswith(suffix) and len(simple) > len(suffix):
                names.append(simple[: -len(suffix)])
        for n in names:
            self._by_name.setdefault(n, cls)

    def register(self, cls: type) -> None:
        """Make ``cls`` available by its names (for tests and embedding)."""
        self._register(cls)

    def resolve(self, name: str) -> type:
        """The class named ``name`` (alias, qualified name, or an importable ``module.Class``)."""
        cls = self._by_name.get(name)
        if cls is not None:
            return cls
        counterpart = JAVA_CLASS_NAMES.get(name)
        if counterpart is not None:
            found_cls = self.resolve(counterpart)
            self._by_name[name] = found_cls
            return found_cls
        found = load_plugin_class(name)
        if found is not None:
            self._register(found)
            return found
        raise PluginNotFoundError(
            f"Failed to find any class that implements Connector and which name matches {name}, available "
            f"connectors are: {', '.join(sorted(qualified_name(c) for c in self.connectors()))}")

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
        """Every plugin class that can be instantiated (abstract bases are only known by name)."""
        return [c for c in self._classes if not inspect.isabstract(c)]
