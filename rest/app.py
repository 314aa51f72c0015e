"""The FastAPI application of the Kafka Connect REST API.

``create_app(herder)`` is the only entry point: it wires the routers to a :class:`Herder` (the
narrow interface in ``connect_runtime.cluster.herder_api``) and installs Connect's error mapping.
Serve it with :class:`rest.server.RestServer` (or any ASGI server).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from connect_runtime.api.rest_extension import ConnectRestExtension
from connect_runtime.cluster.herder_api import Herder
from connect_runtime.cluster.peer_http import async_peer_client
from connect_runtime.config.response_headers import ResponseHeaderRule
from connect_runtime.config.rest_tls import PeerTls
from connect_runtime.config.worker_config import DEFAULT_REST_REQUEST_MAX_BYTES
from connect_runtime.version import runtime_version
from rest.cors import CrossOriginMiddleware
from rest.errors import install_exception_handlers
from rest.extensions import register_extensions
from rest.jersey_rules import JerseyRulesMiddleware
from rest.models import ErrorMessage
from rest.request_limits import RequestSizeLimitMiddleware
from rest.response_headers import ResponseHeadersMiddleware
from rest.routers import RestContext, connectors, internal, loggers, metrics, plugins, root
from rest.ui import ConsoleMiddleware

logger = logging.getLogger(__name__)

#: Java's ``ConnectorsResource.REQUEST_TIMEOUT_MS`` (90 s).
DEFAULT_REQUEST_TIMEOUT_S = 90.0


def create_app(herder: Herder, request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S, *,
               regular: bool = True, admin: bool = True, peer_tls: PeerTls | None = None,
               extensions: Sequence[ConnectRestExtension] = (), allowed_origins: str = "",
               allowed_methods: str = "",
               max_request_bytes: int = DEFAULT_REST_REQUEST_MAX_BYTES,
               response_headers: Sequence[ResponseHeaderRule] = (), console: bool = True) -> FastAPI:
    """Build the REST application for ``herder``.

    ``request_timeout_s`` bounds every wait on the herder; past it the request fails with 500
    ``"Request timed out"`` (tests use a small value). ``regular`` / ``admin`` choose the endpoints
    served (``admin``: ``/admin/*``, ``/metrics``), as a listener of ``listeners`` / ``admin.listeners`` serves them;
    the others answer 404. ``peer_tls`` is how requests are forwarded to workers advertised over https.
    ``extensions`` (configured REST extensions, see :mod:`rest.extensions`) register their middleware
    and routes here; ``allowed_origins`` and ``allowed_methods`` are ``access.control.allow.origin`` /
    ``access.control.allow.methods`` (CORS, :mod:`rest.cors`; empty origins: off).
    ``max_request_bytes`` bounds request bodies (the worker's ``rest.request.max.bytes``): a larger one
    is refused with 413. ``response_headers`` are the parsed ``response.http.headers.config`` rules, put
    on every response (:mod:`rest.response_headers`); the worker gives them to its regular listeners only.
    ``console`` serves the operator console at ``/ui/`` (:mod:`rest.ui`; the worker's ``rest.ui.enable``)
    when the app serves the regular endpoints.
    """
    if request_timeout_s <= 0:
        raise ValueError(f"request_timeout_s must be positive, got {request_timeout_s}")
    context = RestContext(herder=herder, request_timeout_s=request_timeout_s, peer_tls=peer_tls)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            # One pooled client for every forwarded request (to the leader or a task's owner).
            async with async_peer_client(peer_tls, request_timeout_s) as client:
                context.http_client = client
                try:
                    yield
                finally:
                    context.http_client = None
        finally:
            context.shutdown()

    app = FastAPI(
        title="Kafka Connect REST API (connect-runtime)",
        version=runtime_version(),
        description="The Apache Kafka Connect REST API, served by connect-runtime.",
        lifespan=lifespan,
        redirect_slashes=False,
    )
    app.state.connect_context = context
    _use_connect_error_schema(app)
    # The catch-all is added after (so around) Jersey's rules: an error raised while they read a body
    # (one over the size limit) gets its Connect error body too.
    app.add_middleware(JerseyRulesMiddleware)
    install_exception_handlers(app)
    if regular:
        app.include_router(root.router)
        app.include_router(connectors.router)
        app.include_router(internal.router)
        app.include_router(plugins.router)
    if admin:
        app.include_router(loggers.router)
        app.include_router(metrics.router)
    # Extensions' middleware wraps the API (authentication before any resource runs); CORS wraps
    # them all, so a browser's preflight (never carrying credentials) is answered before them.
    register_extensions(app, herder, extensions, request_timeout_s)
    if console and regular:
        # Outside the extensions: the console's files hold no data, and its sign-in form must load
        # before any credentials exist (Basic authentication's 401 makes no browser prompt).
        app.add_middleware(ConsoleMiddleware)
    if allowed_origins.strip():
        app.add_middleware(CrossOriginMiddleware, allowed_origins=allowed_origins,
                           allowed_methods=allowed_methods)
    # Outermost: an oversized body is refused before anything else looks at the request.
    app.add_middleware(RequestSizeLimitMiddleware, max_body_bytes=max_request_bytes)
    # Outside everything: as Jetty's HeaderFilter, every response gets the headers, refusals included.
    if response_headers:
        app.add_middleware(ResponseHeadersMiddleware, rules=response_headers)
    logger.debug("REST application created (request timeout %.1f s, regular endpoints %s, admin endpoints %s)",
                 request_timeout_s, regular, admin)
    return app


#: Every operation may fail with Kafka Connect's error body: 4xx for a bad request, an unknown
#: connector, a conflict, a body too large...; 5xx for an internal error or a request timeout.
_ERROR_RESPONSES = {
    "4XX": "Invalid request, unknown resource, conflicting operation or unsupported body",
    "5XX": "Internal error, or the request timed out",
}


def _use_connect_error_schema(app: FastAPI) -> None:
    """Document Connect's error body on every operation, where FastAPI would document its 422 (never
    returned here): the spec is the contract the fuzz test holds the worker to."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        error_schema = ErrorMessage.model_json_schema()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components["ErrorMessage"] = error_schema
        components.pop("HTTPValidationError", None)
        components.pop("ValidationError", None)
        error_ref = {"$ref": "#/components/schemas/ErrorMessage"}
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                responses.pop("422", None)
                for code, description in _ERROR_RESPONSES.items():
                    responses.setdefault(code, {
                        "description": description, "content": {"application/json": {"schema": error_ref}}})
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
