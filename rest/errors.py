"""Error rendering: every failure becomes Connect's ``{"error_code": <status>, "message": "..."}``.

This is the Python counterpart of Java's ``ConnectExceptionMapper``: a ``HttpStatusError`` keeps its
status; any other ``ConnectException`` (or unexpected exception) is a 500 with the exception's
message; routing errors (unknown path 404, wrong method 405) use Jersey's ``"HTTP 404 Not Found"``
wording; request validation errors are 400 (Java answers 400 for JSON mapping errors; we use 400
for every body/parameter problem, never FastAPI's 422). A client never sees a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from http import HTTPStatus

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match
from starlette.types import Message, Receive, Scope, Send

from connect_runtime.api.errors import ConnectException
from connect_runtime.errors import HttpStatusError
from connect_runtime.plugins.registry import PluginNotFoundError
from connect_runtime.storage.config_writer import ConfigWriteError
from connect_runtime.worker.offsets_admin import InvalidOffsetsRequest
from rest.forwarding import ForwardedResponse
from rest.middleware import HttpMiddleware
from rest.models import ErrorMessage

logger = logging.getLogger(__name__)


def error_response(
    status: int, message: str | None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The Connect error body with the given HTTP status."""
    body = ErrorMessage(error_code=status, message=message).to_json()
    return JSONResponse(status_code=status, content=body, headers=dict(headers) if headers else None)


def routing_error_response(
    status: int, message: str | None, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The Connect error body without a ``Content-Type``: Java's answer when no resource method matches
    the request (unknown path 404, method not served 405, a ``Content-Type`` not consumed 415), for
    its exception mapper's response then carries no media type."""
    response = error_response(status, message, headers)
    del response.headers["content-type"]
    return response


def _http_exception_message(exc: StarletteHTTPException) -> str:
    try:
        phrase = HTTPStatus(exc.status_code).phrase
    except ValueError:
        phrase = ""
    if not exc.detail or exc.detail == phrase:
        # Jersey's WebApplicationException message, e.g. "HTTP 404 Not Found".
        return f"HTTP {exc.status_code} {phrase}".rstrip()
    return str(exc.detail)


def _validation_message(exc: RequestValidationError) -> str:
    parts: list[str] = []
    for err in exc.errors():
        loc = " -> ".join(str(p) for p in err.get("loc", ()))
        msg = str(err.get("msg", "invalid value"))
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "Invalid request: " + "; ".join(parts) if parts else "Invalid request"


def response_for_exception(request_path: str, exc: BaseException) -> JSONResponse:
    """Map any exception to the Connect error response (Java's ``ConnectExceptionMapper``)."""
    if isinstance(exc, HttpStatusError):
        if exc.status >= 500:
            logger.error("REST request to %s failed: %s", request_path, exc.log_message)
        else:
            logger.debug("REST request to %s failed with %d: %s", request_path, exc.status, exc.log_message)
        return error_response(exc.status, exc.message)
    if isinstance(exc, StarletteHTTPException):
        return error_response(exc.status_code, _http_exception_message(exc), exc.headers)
    if isinstance(exc, RequestValidationError):
        return error_response(400, _validation_message(exc))
    if isinstance(exc, PluginNotFoundError | InvalidOffsetsRequest):  # the request names no plugin or bad offsets
        logger.debug("REST request to %s failed with 400: %s", request_path, exc)
        return error_response(400, str(exc))
    if isinstance(exc, ConfigWriteError):  # transient and retriable: no stack trace in the log
        logger.error("REST request to %s failed: %s (%s)", request_path, exc, exc.__cause__)
        return error_response(500, str(exc))
    if isinstance(exc, ConnectException):
        logger.error("REST request to %s failed", request_path, exc_info=exc)
        return error_response(500, str(exc) or type(exc).__name__)
    logger.error("Uncaught exception in REST call to %s", request_path, exc_info=exc)
    return error_response(500, str(exc) or type(exc).__name__)


#: The methods Connect's resources serve (``HEAD`` and ``OPTIONS`` follow from them: rest/jersey_rules.py).
RESOURCE_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
#: The order in which Jersey lists allowed methods: its ``HashSet``'s iteration order, which for these
#: names is fixed (their hash buckets), so clients see the same list on both runtimes.
_JERSEY_ALLOW_ORDER = ("HEAD", "DELETE", "POST", "GET", "OPTIONS", "PUT", "PATCH")


def allowed_methods(served: Iterable[str]) -> list[str]:
    """The methods Jersey allows on a resource serving ``served``, in Jersey's order: those, ``HEAD``
    where ``GET`` is served, and ``OPTIONS``."""
    methods = set(served) | {"OPTIONS"}
    if "GET" in methods:
        methods.add("HEAD")
    return [m for m in _JERSEY_ALLOW_ORDER if m in methods] + sorted(methods - set(_JERSEY_ALLOW_ORDER))


def _allowed_methods(request: Request) -> list[str]:
    """Every method allowed at this path (Starlette's ``Allow`` only names the first route's); empty
    when no route serves the path."""
    served = [method for method in RESOURCE_METHODS
              if any(route.matches({**request.scope, "method": method})[0] is Match.FULL
                     for route in request.app.router.routes)]
    return allowed_methods(served) if served else []


async def _relay_forwarded(request: Request, exc: Exception) -> Response:
    """The answer of the worker a request was forwarded to, sent back unchanged."""
    if not isinstance(exc, ForwardedResponse):  # pragma: no cover - registered for that type only
        return response_for_exception(request.url.path, exc)
    return exc.response


async def _handle(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, StarletteHTTPException) and exc.status_code in (404, 405):
        allowed = _allowed_methods(request)
        if exc.status_code == 405 or not allowed:  # no route serves the request: a routing error
            # RFC 9110 requires Allow on a 405 (Java's exception mapper drops Jersey's).
            headers = {"Allow": ", ".join(allowed)} if exc.status_code == 405 and allowed else None
            return routing_error_response(exc.status_code, _http_exception_message(exc), headers)
    return response_for_exception(request.url.path, exc)


class CatchAllMiddleware(HttpMiddleware):
    """Turns exceptions no handler claimed into a 500 error body instead of a bare 500 page.

    Starlette sends exceptions without a registered handler to ``ServerErrorMiddleware``, which
    re-raises them after responding; catching them here keeps the body in Connect's shape and the
    server log free of duplicate tracebacks.
    """

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            # The client went away before its body was complete: no one to answer, and no error of ours.
            logger.debug("Client disconnected while sending the body of a request to %s", scope.get("path", ""))
        except Exception as exc:
            if started:
                # Too late for an error body; let the server close the connection.
                raise
            response = response_for_exception(str(scope.get("path", "")), exc)
            await response(scope, receive, send)


def install_exception_handlers(app: FastAPI) -> None:
    """Register the Connect error mapping on ``app`` (handlers plus the catch-all middleware)."""
    handled: tuple[type[Exception], ...] = (
        ConnectException,
        StarletteHTTPException,
        RequestValidationError,
    )
    for exc_type in handled:
        app.add_exception_handler(exc_type, _handle)
    app.add_exception_handler(ForwardedResponse, _relay_forwarded)
    app.add_middleware(CatchAllMiddleware)


