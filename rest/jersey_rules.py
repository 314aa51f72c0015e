"""Two request rules Jersey applies before any Connect resource runs, kept here so routes need not
repeat them:

- a trailing slash matches the same resource (``GET /connectors/c/status/`` answers the status), with
  no redirect (Starlette would answer 307);
- every Connect resource ``@Consumes(application/json)``: a body sent with another ``Content-Type``
  (``text/plain``, a form) is refused with 415 ``HTTP 415 Unsupported Media Type``. A request without a
  body is served whatever its ``Content-Type`` says (and one without a ``Content-Type`` too, as on
  Jersey). Here we differ on purpose: Jersey refuses a bodiless request labelled with another type, but
  axios, the usual JavaScript HTTP library, labels every bodiless ``PUT``/``POST`` as a form, and an
  empty body cannot be misread (docs/operations.md, "Differences from Apache Kafka Connect").
"""

from __future__ import annotations

from starlette.routing import Match
from starlette.types import Message, Receive, Scope, Send

from rest.errors import error_response
from rest.middleware import HttpMiddleware

#: Methods that carry a body a resource consumes.
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
UNSUPPORTED_MEDIA_TYPE = "HTTP 415 Unsupported Media Type"


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            return bytes(value).decode("latin-1")
    return None


def is_json_media_type(content_type: str) -> bool:
    """``application/json``, with any parameters (``; charset=UTF-8``), as ``@Consumes`` matches it."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media in ("application/json", "*/*", "application/*")


class JerseyRulesMiddleware(HttpMiddleware):
    """ASGI middleware applying the rules of the module docstring."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/"):
            stripped = path.rstrip("/") or "/"
            raw: bytes = scope.get("raw_path") or path.encode()
            scope = {**scope, "path": stripped, "raw_path": raw.rstrip(b"/") or b"/"}
        if scope["method"] in _BODY_METHODS:
            content_type = _header(scope, b"content-type")
            if content_type is not None and not is_json_media_type(content_type) and self._routed(scope):
                has_body, receive = await _peek_body(scope, receive)
                if has_body:
                    await error_response(415, UNSUPPORTED_MEDIA_TYPE)(scope, receive, send)
                    return
        await self.app(scope, receive, send)

    def _routed(self, scope: Scope) -> bool:
        # Only a request that reaches a resource is refused for its media type (404/405 come first).
        app = scope.get("app")
        router = getattr(app, "router", None)
        if router is None:
            return True
        return any(route.matches(scope)[0] is Match.FULL for route in router.routes)


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
