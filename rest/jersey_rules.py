"""The request rules Jetty and Jersey apply before any Connect resource runs, kept here so routes need
not repeat them:

- a trailing slash matches the same resource (``GET /connectors/c/status/`` answers the status), with
  no redirect (Starlette would answer 307); an empty segment (``/connectors//c``) or an encoded slash
  (``/connectors/a%2Fb``) is refused with 400, as Jetty refuses such an ambiguous URI, instead of
  being read as another path; so is a ``Content-Type`` that is not a media type (``garbage``);
- every Connect resource ``@Produces(application/json)``: a client whose ``Accept`` takes no JSON
  gets 406 ``HTTP 406 Not Acceptable`` (``/metrics``, which answers Prometheus' text, is not refused);
- ``HEAD`` is served wherever ``GET`` is (the same status and headers, no body), and ``OPTIONS`` on
  every path a resource serves answers 200 with the methods it allows (``Allow`` and, when the client
  accepts ``text/plain``, the same list as the body), as Jersey's generated handlers do;
- every Connect resource ``@Consumes(application/json)``: a body sent with another ``Content-Type``
  (``text/plain``, a form) is refused with 415 ``HTTP 415 Unsupported Media Type``, and so is a body
  without a ``Content-Type`` (or labelled ``*/*``) sent to a resource that reads one, for which Jersey
  has no reader. A request without a body is served whatever its ``Content-Type`` says. Here we differ
  on purpose: Jersey refuses a bodiless request labelled with another type, but axios, the usual
  JavaScript HTTP library, labels every bodiless ``PUT``/``POST`` as a form, and an empty body cannot
  be misread (docs/operations.md, "Differences from Apache Kafka Connect").

A refusal because no resource method matches (an unknown path, a method the path does not serve, a
``Content-Type`` it does not consume, an ``Accept`` it cannot satisfy) carries Connect's error body but
no ``Content-Type``, as Java's does (its exception mapper builds that response before any resource
chose a media type): :func:`rest.errors.routing_error_response`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import Message, Receive, Scope, Send

from connect_runtime.errors import HttpStatusError
from rest.errors import RESOURCE_METHODS, allowed_methods, error_response, routing_error_response
from rest.middleware import HttpMiddleware

#: Media types Jersey's ``@Consumes(application/json)`` matches, and the one its JSON reader reads.
_CONSUMED_MEDIA_TYPES = frozenset({"application/json", "application/*", "*/*"})
_JSON = "application/json"
#: Accept ranges under which Jersey's generated ``OPTIONS`` answer lists the methods as text.
_PLAIN_TEXT_RANGES = frozenset({"text/plain", "text/*", "*/*"})
#: Paths whose resources answer text, not JSON, and so negotiate their own ``Accept``.
_TEXT_RESOURCES = frozenset({"/metrics"})
UNSUPPORTED_MEDIA_TYPE = "HTTP 415 Unsupported Media Type"
NOT_ACCEPTABLE = "HTTP 406 Not Acceptable"
BAD_REQUEST = "HTTP 400 Bad Request"
AMBIGUOUS_EMPTY_SEGMENT = "Ambiguous URI empty segment"
AMBIGUOUS_PATH_SEPARATOR = "Ambiguous URI path separator"


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            return bytes(value).decode("latin-1")
    return None


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


#: ``type/subtype``, each a token (RFC 9110), as Jetty parses a ``Content-Type`` before anything else.
_MEDIA_TYPE = re.compile(r"[!#$%&'*+.^_`|~0-9a-z-]+/[!#$%&'*+.^_`|~0-9a-z-]+")


def is_json_media_type(content_type: str) -> bool:
    """Whether ``@Consumes(application/json)`` matches ``content_type`` (any parameters, such as
    ``; charset=UTF-8``, and the wildcards ``*/*`` and ``application/*``)."""
    return _media_type(content_type) in _CONSUMED_MEDIA_TYPES


def _accepts_json(accept: str | None) -> bool:
    """Whether a client sending ``accept`` takes JSON, as Jersey's ``@Produces(application/json)``
    decides: any range that matches it, whatever its quality (no header, or an empty one: anything)."""
    if accept is None or not accept.strip():
        return True
    return any(_media_type(part) in _CONSUMED_MEDIA_TYPES for part in accept.split(","))


def _preferred_accept(accept: str | None) -> str | None:
    """The client's most preferred media range of ``accept`` (ties: the first), verbatim; None when
    it accepts anything."""
    if accept is None or not accept.strip():
        return None
    ranges: list[tuple[float, str]] = []
    for part in accept.split(","):
        part = part.strip()
        if not part:
            continue
        quality = 1.0
        for param in part.split(";")[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            ranges.append((quality, part))
    if not ranges:
        return None
    return max(ranges, key=lambda r: r[0])[1]


def response_media_type(method: str, accept: str | None) -> str:
    """The ``Content-Type`` Jersey gives an answer of the resource method serving ``method``: JSON, but
    for its generated ``OPTIONS`` handlers: ``text/plain`` when the client takes that, else the media
    range it prefers, verbatim."""
    if method != "OPTIONS":
        return _JSON
    preferred = _preferred_accept(accept)
    if preferred is None or _media_type(preferred) in _PLAIN_TEXT_RANGES:
        return "text/plain"
    return preferred


def options_response(served: Iterable[str], accept: str | None) -> Response:
    """Jersey's answer to ``OPTIONS`` on a resource serving ``served``: 200 with ``Allow``; the methods
    as ``text/plain`` when the client takes that, else no body."""
    methods = allowed_methods(served)
    media_type = response_media_type("OPTIONS", accept)
    body = ", ".join(methods) if media_type == "text/plain" else ""
    return Response(body, headers={"Allow": ",".join(methods), "Content-Type": media_type})


class JerseyRulesMiddleware(HttpMiddleware):
    """ASGI middleware applying the rules of the module docstring."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw: bytes = scope.get("raw_path") or scope["path"].encode()
        if b"//" in raw or b"%2f" in raw.lower():
            message = AMBIGUOUS_EMPTY_SEGMENT if b"//" in raw else AMBIGUOUS_PATH_SEPARATOR
            await error_response(400, message)(scope, receive, send)
            return
        content_type = _header(scope, b"content-type")
        if content_type is not None and not _MEDIA_TYPE.fullmatch(_media_type(content_type)):
            await error_response(400, BAD_REQUEST)(scope, receive, send)
            return
        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/"):
            scope = {**scope, "path": path[:-1], "raw_path": raw[:-1]}
        method: str = scope["method"]
        if method == "OPTIONS":
            served = _routes(scope, RESOURCE_METHODS)
            if served and not _routes(scope, ("OPTIONS",)):
                await options_response(served, _header(scope, b"accept"))(scope, receive, send)
                return
        elif method == "HEAD":
            if _routes(scope, ("GET",)):
                scope = {**scope, "method": "GET"}
            send = _without_body(send)
        else:
            refusal, receive = await self._media_type_refusal(scope, receive)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        # 404/405 come first: only a request some resource serves is refused for its Accept.
        takes_json = method == "OPTIONS" or _accepts_json(_header(scope, b"accept"))
        if not takes_json and scope["path"] not in _TEXT_RESOURCES and _routes(scope, (scope["method"],)):
            await routing_error_response(406, NOT_ACCEPTABLE)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _media_type_refusal(self, scope: Scope, receive: Receive) -> tuple[Response | None, Receive]:
        """The 415 for a body the resource does not consume (None: serve the request), and a
        ``receive`` that still yields the whole body (and refuses one Jersey would have no reader for)."""
        content_type = _header(scope, b"content-type")
        if content_type is not None and not is_json_media_type(content_type):
            if not _routes(scope, (scope["method"],)):  # 404/405 come first
                return None, receive
            has_body, receive = await _peek_body(scope, receive)
            return (routing_error_response(415, UNSUPPORTED_MEDIA_TYPE) if has_body else None), receive
        if content_type is None or _media_type(content_type) != _JSON:
            return None, _refusing_body(scope, receive)
        return None, receive


#: Stands for a route when there is no router to find the real one in.
_UNKNOWN_ROUTE = BaseRoute()


def _routes(scope: Scope, methods: Iterable[str]) -> dict[str, BaseRoute]:
    """The route serving each of ``methods`` at the request's path (those some route serves)."""
    router = getattr(scope.get("app"), "router", None)
    if router is None:
        # No router to ask (the app wrapped or mounted): count every method as served, so that rules
        # that only apply to served requests (authentication, 415, 406) fail closed.
        return {method: _UNKNOWN_ROUTE for method in methods}
    found: dict[str, BaseRoute] = {}
    for method in methods:
        probe = {**scope, "method": method}
        route = next((r for r in router.routes if r.matches(probe)[0] is Match.FULL), None)
        if route is not None:
            found[method] = route
    return found


def is_served(scope: Scope) -> bool:
    """Whether a resource serves the request as Jersey matches it (a trailing slash ignored, ``HEAD``
    wherever ``GET`` is served, ``OPTIONS`` wherever any method is): what a filter after matching, such
    as Kafka's Basic authentication, gets to see; any other request gets its 404 or 405 first."""
    path: str = scope["path"]
    if len(path) > 1 and path.endswith("/"):
        scope = {**scope, "path": path[:-1]}
    method: str = scope["method"]
    methods = RESOURCE_METHODS if method == "OPTIONS" else ("GET",) if method == "HEAD" else (method,)
    return bool(_routes(scope, methods))


class UnreadableBody(HttpStatusError):
    """A body without a ``Content-Type``, or labelled only ``*/*`` / ``application/*``, reached a
    resource that reads one: Jersey picks its JSON reader by the label, finds none, and answers 415."""

    def __init__(self) -> None:
        super().__init__(UNSUPPORTED_MEDIA_TYPE, status=415)


def _refusing_body(scope: Scope, receive: Receive) -> Receive:
    """``receive`` for a request whose body Jersey could not read: a resource that reads no body (or
    reads it as raw bytes, as the signed internal ones do) serves it; one that reads JSON fails with
    :class:`UnreadableBody` when the first byte arrives. The router has put the matched route in
    ``scope`` by then."""

    async def refusing_receive() -> Message:
        message = await receive()
        if message["type"] == "http.request" and message.get("body") and _reads_json(scope.get("route")):
            raise UnreadableBody()
        return message

    return refusing_receive


def _reads_json(route: object) -> bool:
    """Whether a route's handler reads a JSON body: it documents one in the OpenAPI spec, as a Jersey
    resource method with an entity parameter declares it."""
    extra = getattr(route, "openapi_extra", None)
    return isinstance(extra, dict) and "requestBody" in extra


def _without_body(send: Send) -> Send:
    """``send`` for a ``HEAD`` request: the response's status and headers (its ``Content-Length``
    included), never its body."""

    async def head_send(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return head_send


async def _peek_body(scope: Scope, receive: Receive) -> tuple[bool, Receive]:
    """Whether the request has a body of at least one byte, and a ``receive`` that still yields all of
    it. ``Content-Length`` answers without reading; a chunked body is read up to its first non-empty
    chunk (or its end), and what was read is replayed."""
    length = _header(scope, b"content-length")
    if length is not None and _header(scope, b"transfer-encoding") is None:
        return length.strip() not in ("", "0"), receive
    read: list[Message] = []
    has_body = False
    while True:
        message = await receive()
        read.append(message)
        if message["type"] != "http.request":
            break
        if message.get("body"):
            has_body = True
            break
        if not message.get("more_body", False):
            break

    async def replay() -> Message:
        return read.pop(0) if read else await receive()

    return has_body, replay
