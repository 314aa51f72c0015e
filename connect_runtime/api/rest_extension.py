"""The REST extension point: plug authentication, extra headers or extra endpoints into the worker's
REST API (Kafka Connect's ``ConnectRestExtension``, ``ConnectRestExtensionContext`` and
``ConnectClusterState``).

A worker creates one instance of every class named in ``rest.extension.classes`` (comma-separated;
found like other plugins: an entry point of group ``connect_runtime.plugins``, or a dotted path the
plugin loader accepts), then calls, in this order:

1. :meth:`ConnectRestExtension.configure` with the worker's settings (every key of the worker file,
   as strings, config-provider placeholders resolved). Raise to refuse them: the worker then refuses
   to start with one line naming ``rest.extension.classes``.
2. :meth:`ConnectRestExtension.register` with a :class:`ConnectRestExtensionContext`, before the REST
   API serves its first request: add ASGI middleware (an authentication filter) and routes there.
3. :meth:`ConnectRestExtension.close` when the worker stops.

Example, an extension that refuses requests without a known API key::

    from connect_runtime.api import ConnectRestExtension, ConnectRestExtensionContext

    class ApiKeyMiddleware:
        def __init__(self, app, keys):
            self.app, self.keys = app, keys

        async def __call__(self, scope, receive, send):
            if scope["type"] == "http":
                key = dict(scope["headers"]).get(b"x-api-key", b"").decode("latin-1")
                if key not in self.keys:
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b""})
                    return
            await self.app(scope, receive, send)

    class ApiKeyExtension(ConnectRestExtension):
        def configure(self, configs):
            self.keys = set(configs["my.api.keys"].split(","))

        def register(self, context):
            context.add_middleware(ApiKeyMiddleware, keys=self.keys)

The REST layer implements the context; this module only describes it, so extensions depend on the
public API alone.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from connect_runtime.api.runtime_info import runtime_version

__all__ = [
    "ConnectClusterDetails",
    "ConnectClusterState",
    "ConnectRestExtension",
    "ConnectRestExtensionContext",
    "ConnectorHealth",
    "ConnectorState",
    "ConnectorType",
    "TaskState",
]


class ConnectorType(StrEnum):
    """Whether a connector is a source or a sink (``unknown`` when its class cannot be loaded)."""

    SOURCE = "source"
    SINK = "sink"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class ConnectorState:
    """The state of a connector as last reported in the status topic.

    ``state`` is one of ``UNASSIGNED``, ``RUNNING``, ``PAUSED``, ``STOPPED``, ``FAILED``,
    ``RESTARTING``; ``worker_id`` the worker running it; ``trace_message`` the failure's trace.
    """

    state: str
    worker_id: str
    trace_message: str | None = None


@dataclass(frozen=True, slots=True)
class TaskState:
    """The state of one task (see :class:`ConnectorState` for the fields) and its id."""

    task_id: int
    state: str
    worker_id: str
    trace_message: str | None = None


@dataclass(frozen=True, slots=True)
class ConnectorHealth:
    """A connector's health: its own state and its tasks' states, by task id."""

    name: str
    connector_state: ConnectorState
    tasks_state: Mapping[int, TaskState] = field(default_factory=dict)
    type: ConnectorType = ConnectorType.UNKNOWN


@dataclass(frozen=True, slots=True)
class ConnectClusterDetails:
    """Facts about the Connect cluster that do not change while the worker runs."""

    kafka_cluster_id: str


@runtime_checkable
class ConnectClusterState(Protocol):
    """Read-only view of the Connect cluster for extensions (Java's ``ConnectClusterState``).

    The calls are synchronous and may wait for the worker up to its REST request timeout: from an
    ``async`` endpoint or middleware call them through a thread (``await
    starlette.concurrency.run_in_threadpool(state.connectors)``) rather than on the event loop.
    """

    def connectors(self) -> list[str]:
        """The names of the connectors currently deployed in the cluster.

        Raises :class:`~connect_runtime.api.ConnectException` if the worker cannot answer in time.
        """
        ...

    def connector_health(self, name: str) -> ConnectorHealth:
        """The current health of connector ``name`` and its tasks.

        Raises :class:`~connect_runtime.api.ConnectException` (a not-found error) for an unknown
        connector, which may be one :meth:`connectors` listed a moment ago.
        """
        ...

    def connector_config(self, name: str) -> dict[str, str]:
        """The configuration connector ``name`` was submitted with (a copy).

        Raises :class:`~connect_runtime.api.ConnectException` for an unknown connector.
        """
        ...

    def cluster_details(self) -> ConnectClusterDetails:
        """Details of the cluster's set-up (the Kafka cluster id)."""
        ...


@runtime_checkable
class ConnectRestExtensionContext(Protocol):
    """What :meth:`ConnectRestExtension.register` may do to the REST API (Java's
    ``ConnectRestExtensionContext``, with ASGI in place of JAX-RS)."""

    @property
    def cluster_state(self) -> ConnectClusterState:
        """The cluster's connectors and their health."""
        ...

    def add_middleware(self, middleware: Callable[..., Any], **options: Any) -> None:
        """Wrap the REST API in an ASGI middleware: ``middleware(app, **options)`` must return an ASGI
        app (the usual Starlette middleware class signature).

        It sees every request to the API except CORS preflights (answered before any extension
        runs), including the internal worker-to-worker endpoints (``POST /connectors/{c}/tasks``,
        ``PUT /connectors/{c}/fence``): an authentication filter must let those through, since
        workers authenticate them with their request signatures (KIP-507), as Java's
        ``JaasBasicAuthFilter`` does. Middleware added later runs earlier (outermost).
        """
        ...

    def add_route(self, path: str, endpoint: Callable[..., Any], methods: Sequence[str] = ("GET",),
                  *, include_in_schema: bool = False) -> None:
        """Serve ``endpoint`` at ``path`` (a FastAPI path operation: ``async def f(request:
        starlette.requests.Request) -> Response`` works; path parameters such as ``{name}`` too).

        The API's own routes win when paths overlap. Routes are left out of ``/openapi.json`` unless
        ``include_in_schema`` is true.
        """
        ...


class ConnectRestExtension(ABC):
    """Base class of REST extensions (Java's ``ConnectRestExtension``); see the module docstring.

    Subclasses need a constructor without arguments.
    """

    def configure(self, configs: Mapping[str, str]) -> None:
        """Receive the worker's settings (all keys of the worker file) before :meth:`register`.

        Raise (e.g. :class:`~connect_runtime.api.ConfigException`) to refuse them; the worker does
        not start. The default accepts anything.
        """

    @abstractmethod
    def register(self, context: ConnectRestExtensionContext) -> None:
        """Add middleware and routes to the REST API through ``context``; called once, at start-up."""

    def close(self) -> None:
        """Release resources; called once when the worker stops. The default does nothing."""

    def version(self) -> str:
        """The extension's version (logged at start-up); the runtime's version by default."""
        return runtime_version()
