"""REST extensions (``rest.extension.classes``): finding, configuring, registering and closing them,
and the REST layer's implementation of :class:`connect_runtime.api.ConnectRestExtensionContext` and
:class:`connect_runtime.api.ConnectClusterState` (Java's ``RestServer.registerRestExtensions``,
``ConnectRestExtensionContextImpl`` and ``ConnectClusterStateImpl``).

Kafka's ``BasicAuthSecurityRestExtension`` class name stands for our built-in
:class:`rest.basic_auth.BasicAuthSecurityRestExtension`; other names are resolved by the plugin
registry. An extension that cannot be found, created, configured or registered refuses start-up with
one line naming ``rest.extension.classes``.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import Any, Protocol, TypeVar

from fastapi import FastAPI

from connect_runtime.api.errors import ConfigException, ConnectException
from connect_runtime.api.rest_extension import (
    ConnectClusterDetails,
    ConnectClusterState,
    ConnectorHealth,
    ConnectorState,
    ConnectorType,
    ConnectRestExtension,
    TaskState,
)
from connect_runtime.cluster.herder_api import Herder
from rest.basic_auth import CONFIG_KEYS as BASIC_AUTH_KEYS
from rest.basic_auth import JAVA_CLASS_NAME as BASIC_AUTH_JAVA_NAME
from rest.basic_auth import BasicAuthSecurityRestExtension

logger = logging.getLogger(__name__)

__all__ = [
    "REST_EXTENSION_CLASSES_CONFIG",
    "ClusterStateView",
    "ExtensionContext",
    "RestExtensions",
    "load_rest_extensions",
    "register_extensions",
]

REST_EXTENSION_CLASSES_CONFIG = "rest.extension.classes"
_BUILTIN: Mapping[str, type[ConnectRestExtension]] = {
    BASIC_AUTH_JAVA_NAME: BasicAuthSecurityRestExtension,
    f"{BasicAuthSecurityRestExtension.__module__}.{BasicAuthSecurityRestExtension.__qualname__}":
        BasicAuthSecurityRestExtension,
    "BasicAuthSecurityRestExtension": BasicAuthSecurityRestExtension,
}

T = TypeVar("T")


class PluginResolver(Protocol):
    """The part of :class:`connect_runtime.plugins.registry.PluginRegistry` used here."""

    def resolve(self, name: str) -> type: ...


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class RestExtensions:
    """The configured extensions of a worker; :meth:`close` closes each once (worker stop)."""

    def __init__(self, extensions: Sequence[ConnectRestExtension] = ()) -> None:
        self.extensions = list(extensions)
        self._closed = False

    def close(self) -> None:
        """Close every extension (errors are logged, not raised); later calls do nothing."""
        if self._closed:
            return
        self._closed = True
        for extension in reversed(self.extensions):
            try:
                extension.close()
            except Exception:
                logger.exception("REST extension %s failed to close", type(extension).__name__)


def _extension_class(name: str, plugins: PluginResolver) -> type[ConnectRestExtension]:
    cls: Any = _BUILTIN.get(name)
    if cls is None:
        try:
            cls = plugins.resolve(name)
        except ConnectException:  # not found (PluginNotFoundError); anything else is a bug and surfaces
            cls = None
    if cls is None:
        raise ConfigException(f"{REST_EXTENSION_CLASSES_CONFIG}: class {name} could not be found")
    if not (isinstance(cls, type) and issubclass(cls, ConnectRestExtension)) or inspect.isabstract(cls):
        raise ConfigException(f"{REST_EXTENSION_CLASSES_CONFIG}: {name} is not a concrete "
                              "connect_runtime.api.ConnectRestExtension")
    return cls


def load_rest_extensions(names: Sequence[str], worker_configs: Mapping[str, str],
                         plugins: PluginResolver) -> RestExtensions:
    """Create and configure the extensions ``names`` (``rest.extension.classes``) with the worker's
    settings; raise :class:`ConfigException` (one line naming the key) if one cannot be.

    The built-in Basic authentication's own settings are refused when it is not among ``names``:
    a credentials file the worker would not use is an operator's mistake, not a choice.
    """
    classes = [_extension_class(name, plugins) for name in names]
    if BasicAuthSecurityRestExtension not in classes:
        for key in BASIC_AUTH_KEYS:
            if key in worker_configs:
                raise ConfigException(f"{key} is set but {REST_EXTENSION_CLASSES_CONFIG} does not list "
                                      f"{BASIC_AUTH_JAVA_NAME}")
    loaded = RestExtensions()
    for name, cls in zip(names, classes, strict=True):
        try:
            extension = cls()
            loaded.extensions.append(extension)
            extension.configure(dict(worker_configs))
        except Exception as e:
            loaded.close()
            raise ConfigException(
                f"{REST_EXTENSION_CLASSES_CONFIG}: {name} failed to configure: {_one_line(e)}") from None
        try:
            version = extension.version()
        except Exception:
            version = "unknown"
        logger.info("Loaded REST extension %s (version %s)", name, version)
    return loaded


class ClusterStateView:
    """:class:`ConnectClusterState` over the herder: every call waits at most ``timeout_s``."""

    def __init__(self, herder: Herder, timeout_s: float) -> None:
        self._herder = herder
        self._timeout_s = timeout_s

    def _wait(self, future: Future[T], failure: str) -> T:
        try:
            return future.result(self._timeout_s)
        except FutureTimeoutError:
            raise ConnectException(f"{failure}: the worker did not answer in time") from None

    def connectors(self) -> list[str]:
        """The names of the cluster's connectors."""
        names: list[str] = self._wait(self._herder.connectors(), "Failed to retrieve list of connectors")
        return list(names)

    def connector_health(self, name: str) -> ConnectorHealth:
        """Connector ``name``'s state and its tasks' states (not-found error if unknown)."""
        info = self._wait(self._herder.connector_status(name), f"Failed to retrieve the status of connector '{name}'")
        try:
            kind = ConnectorType(info.type)
        except ValueError:
            kind = ConnectorType.UNKNOWN
        return ConnectorHealth(
            name=info.name,
            connector_state=ConnectorState(info.connector.state, info.connector.worker_id, info.connector.trace),
            tasks_state={t.id: TaskState(t.id, t.state, t.worker_id, t.trace) for t in info.tasks},
            type=kind,
        )

    def connector_config(self, name: str) -> dict[str, str]:
        """Connector ``name``'s submitted configuration (not-found error if unknown)."""
        config = self._wait(self._herder.connector_config(name),
                            f"Failed to retrieve configuration for connector '{name}'")
        return dict(config)

    def cluster_details(self) -> ConnectClusterDetails:
        """The Kafka cluster id the worker is connected to."""
        return ConnectClusterDetails(self._herder.kafka_cluster_id())


class ExtensionContext:
    """:class:`connect_runtime.api.ConnectRestExtensionContext` on a FastAPI application."""

    def __init__(self, app: FastAPI, cluster_state: ConnectClusterState) -> None:
        self._app = app
        self._cluster_state = cluster_state

    @property
    def cluster_state(self) -> ConnectClusterState:
        """The cluster's connectors and their health."""
        return self._cluster_state

    def add_middleware(self, middleware: Callable[..., Any], **options: Any) -> None:
        """Wrap the API in ``middleware(app, **options)`` (outermost so far, inside CORS)."""
        self._app.add_middleware(middleware, **options)

    def add_route(self, path: str, endpoint: Callable[..., Any], methods: Sequence[str] = ("GET",),
                  *, include_in_schema: bool = False) -> None:
        """Serve ``endpoint`` at ``path`` for ``methods``."""
        self._app.add_api_route(path, endpoint, methods=list(methods), include_in_schema=include_in_schema)


def register_extensions(app: FastAPI, herder: Herder, extensions: Sequence[ConnectRestExtension],
                        timeout_s: float) -> None:
    """Let each extension register its middleware and routes on ``app``; one that fails refuses
    start-up (:class:`ConfigException` naming ``rest.extension.classes``)."""
    if not extensions:
        return
    context = ExtensionContext(app, ClusterStateView(herder, timeout_s))
    for extension in extensions:
        try:
            extension.register(context)
        except Exception as e:
            raise ConfigException(f"{REST_EXTENSION_CLASSES_CONFIG}: {type(extension).__name__} failed to "
                                  f"register: {_one_line(e)}") from None


class Service(Protocol):
    """A REST server: ``start()`` and ``stop()``."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class ServiceWithExtensions:
    """A REST server whose extensions are closed when it stops (as Java's ``RestServer.stop``)."""

    def __init__(self, server: Service, extensions: RestExtensions) -> None:
        self.server = server
        self.extensions = extensions

    def start(self) -> None:
        """Start the server."""
        self.server.start()

    def stop(self) -> None:
        """Stop the server, then close the extensions."""
        try:
            self.server.stop()
        finally:
            self.extensions.close()
