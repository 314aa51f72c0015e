"""A third-party REST extension, to check ``rest.extension.classes`` on real workers.

Found through ``plugin.path`` (this directory) as ``header_rest_extension.HeaderRestExtension``. It
adds a middleware that stamps every response with ``X-Test-Extension: <test.extension.stamp>`` (a
worker setting it reads in ``configure``) and a route, ``GET /test-extension/health``, that answers
the cluster's connectors and their health as read through ``ConnectClusterState``.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connect_runtime.api import ConfigException, ConnectRestExtension, ConnectRestExtensionContext


class StampMiddleware:
    def __init__(self, app: ASGIApp, stamp: str) -> None:
        self.app = app
        self.stamp = stamp.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), (b"x-test-extension", self.stamp)]}
            await send(message)

        await self.app(scope, receive, stamped)


class HeaderRestExtension(ConnectRestExtension):
    def configure(self, configs: Mapping[str, str]) -> None:
        if "test.extension.stamp" not in configs:
            raise ConfigException("test.extension.stamp is required")
        self.stamp = configs["test.extension.stamp"]
        self.closed_file = configs.get("test.extension.closed.file")

    def register(self, context: ConnectRestExtensionContext) -> None:
        state = context.cluster_state
        context.add_middleware(StampMiddleware, stamp=self.stamp)

        def health() -> dict[str, object]:
            out: dict[str, object] = {"kafka_cluster_id": state.cluster_details().kafka_cluster_id}
            for name in state.connectors():
                h = state.connector_health(name)
                out[name] = {"state": h.connector_state.state, "type": h.type.value,
                             "tasks": {str(i): t.state for i, t in h.tasks_state.items()},
                             "config": state.connector_config(name)}
            return out

        async def endpoint(request: Request) -> JSONResponse:
            return JSONResponse(await run_in_threadpool(health))

        context.add_route("/test-extension/health", endpoint)

    def close(self) -> None:
        if self.closed_file:
            with open(self.closed_file, "a") as f:
                f.write("closed\n")

    def version(self) -> str:
        return "1.2.3"
