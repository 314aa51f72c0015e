"""The worker's ``response.http.headers.config`` applied to REST responses, as Kafka Connect's worker does
with Jetty's ``HeaderFilter`` (the rules' grammar: :mod:`connect_runtime.config.response_headers`).

- Every response of the application gets the headers: the API's answers and its error bodies alike (404
  for an unknown path, 405, 400, 401 from an authentication extension, 413...).
- Jetty's filter puts the headers on the response before the resource runs, so a header the resource
  sets itself replaces a ``set`` / ``setDate`` one. Kept here: a ``set`` rule's header is sent only if
  the response has no header of that name (``set Content-Type: text/plain`` leaves a JSON answer's
  ``Content-Type`` alone); an ``add`` / ``addDate`` rule's header is always sent. Among the rules, a
  later ``set`` replaces the headers of that name the earlier rules gave.
- Date rules are evaluated per response: the current time plus the offset, as an HTTP date (RFC 1123,
  GMT). A time past year 9999 (or before year 1) is sent as that bound.
- The HTTP server adds ``Date`` and ``Server`` itself, after the application: for a ``set`` /
  ``setDate`` rule of either the worker tells it not to (:func:`replaced_server_headers`), so the rule's
  header replaces the server's, as in Jetty. An ``add`` rule's header is sent besides the server's.
- As Java (which adds the filter to the regular REST context only), the worker applies it to the
  listeners of ``listeners`` (with ``/admin/*`` when those endpoints are served there) and not to the
  ``admin.listeners`` ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from time import time_ns

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connect_runtime.config.response_headers import ResponseHeaderRule
from rest.middleware import HttpMiddleware

__all__ = ["ResponseHeadersMiddleware", "http_date", "replaced_server_headers"]

#: The headers the HTTP server (uvicorn) adds to every response unless told not to.
_SERVER_HEADERS = frozenset({"date", "server"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_FIRST = datetime.min.replace(tzinfo=UTC)
_LAST = datetime.max.replace(tzinfo=UTC, microsecond=0)


def http_date(epoch_ms: int) -> str:
    """``epoch_ms`` (milliseconds since 1970, UTC) as an HTTP date, ``Tue, 24 Nov 2026 19:00:00 GMT``."""
    try:
        moment = _EPOCH + timedelta(milliseconds=epoch_ms)
    except OverflowError:
        moment = _LAST if epoch_ms > 0 else _FIRST
    return format_datetime(moment, usegmt=True)


def replaced_server_headers(rules: Sequence[ResponseHeaderRule]) -> frozenset[str]:
    """The HTTP server's own headers (``date``, ``server``) that ``set`` / ``setDate`` rules replace: the
    server must leave them out (``RestServer(replaced_headers=...)``)."""
    return frozenset(rule.name.lower() for rule in rules
                     if not rule.action.adds and rule.name.lower() in _SERVER_HEADERS)


class ResponseHeadersMiddleware(HttpMiddleware):
    """ASGI middleware applying parsed ``response.http.headers.config`` rules, as the module docstring
    describes (a ``set`` header never replaces one the application sets; an ``add`` one is added)."""

    def __init__(self, app: ASGIApp, rules: Sequence[ResponseHeaderRule]) -> None:
        super().__init__(app)
        # Encoded once; date values are computed per response.
        self.rules = [(rule.action.adds, rule.action.is_date, rule.name.lower().encode("ascii"),
                       rule.value.encode("ascii"), rule.offset_ms) for rule in rules]

    def headers_for(self, present: set[bytes]) -> list[tuple[bytes, bytes]]:
        """The headers to append to a response whose header names (lower case) are ``present``."""
        configured: list[tuple[bool, bytes, bytes]] = []
        now_ms: int | None = None
        for adds, is_date, name, value, offset_ms in self.rules:
            if is_date:
                if now_ms is None:
                    now_ms = time_ns() // 1_000_000
                value = http_date(now_ms + offset_ms).encode("ascii")
            if not adds:
                configured = [entry for entry in configured if entry[1] != name]
            configured.append((adds, name, value))
        return [(name, value) for adds, name, value in configured if adds or name not in present]

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {bytes(name).lower() for name, _ in headers}
                message = {**message, "headers": [*headers, *self.headers_for(present)]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
