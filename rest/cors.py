"""Cross-origin resource sharing (CORS) for the REST API, as Kafka Connect's worker gives it: Jetty's
``CrossOriginFilter`` configured by ``access.control.allow.origin`` and ``access.control.allow.methods``.

- ``access.control.allow.origin`` empty: no CORS headers at all. ``*``: any origin. Otherwise a comma
  list of origins, where ``*`` inside an origin matches any text (``https://*.example.com``).
- A request with an allowed ``Origin`` gets ``Access-Control-Allow-Origin: <its origin>`` (the origin
  itself, also when ``*`` is configured), ``Access-Control-Allow-Credentials: true`` and, unless any
  origin is allowed, ``Vary: Origin``. Whatever its method: as Jetty, only preflights check methods.
- A preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) from an allowed
  origin, for an allowed method (``access.control.allow.methods``, default ``GET,POST,HEAD``, case
  sensitive) and allowed request headers (``X-Requested-With``, ``Content-Type``, ``Accept``,
  ``Origin``) is answered 200 here with those headers plus ``Access-Control-Max-Age: 1800``,
  ``Access-Control-Allow-Methods`` and ``Access-Control-Allow-Headers``. Jetty hands such a preflight
  on to the resources (where an authentication filter may refuse it, since browsers never send
  credentials with a preflight); answering it here keeps CORS usable with authentication on.
- Other origins, and preflights that are not allowed, get no CORS headers and go on to the API.

Starlette's ``CORSMiddleware`` differs (400 for refused preflights, ``*`` instead of the origin,
credential headers for any origin), hence this small middleware.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rest.middleware import HttpMiddleware

__all__ = ["DEFAULT_ALLOWED_HEADERS", "DEFAULT_ALLOWED_METHODS", "CrossOriginMiddleware"]

#: Jetty's defaults (Kafka leaves them unchanged).
DEFAULT_ALLOWED_METHODS = ("GET", "POST", "HEAD")
DEFAULT_ALLOWED_HEADERS = ("X-Requested-With", "Content-Type", "Accept", "Origin")
PREFLIGHT_MAX_AGE_S = 1800


def _csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


class CrossOriginMiddleware(HttpMiddleware):
    """ASGI middleware applying the CORS rules of the module docstring."""

    def __init__(self, app: ASGIApp, allowed_origins: str, allowed_methods: str = "") -> None:
        """``allowed_origins`` and ``allowed_methods`` are the worker settings' raw values."""
        super().__init__(app)
        origins = _csv(allowed_origins)
        self.any_origin = "*" in origins
        self.exact_origins = frozenset(o for o in origins if "*" not in o)
        self.origin_patterns = [re.compile(re.escape(o).replace(r"\*", ".*")) for o in origins if "*" in o and o != "*"]
        methods: Sequence[str] = _csv(allowed_methods) or DEFAULT_ALLOWED_METHODS
        self.allowed_methods = tuple(methods)
        self.allowed_headers = frozenset(h.lower() for h in DEFAULT_ALLOWED_HEADERS)

    def origin_allowed(self, origin: str) -> bool:
        """Whether ``Origin: origin`` is allowed (a space-separated list: any of them)."""
        if self.any_origin:
            return bool(origin.strip())
        for one in origin.split(" "):
            if one in self.exact_origins or any(p.fullmatch(one) for p in self.origin_patterns):
                return True
        return False

    def _cors_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        headers = [(b"access-control-allow-origin", origin.encode("latin-1")),
                   (b"access-control-allow-credentials", b"true")]
        if not self.any_origin:
            headers.append((b"vary", b"Origin"))
        return headers

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = request_method = request_headers = None
        for name, value in scope.get("headers", ()):
            if name == b"origin":
                origin = bytes(value).decode("latin-1")
            elif name == b"access-control-request-method":
                request_method = bytes(value).decode("latin-1")
            elif name == b"access-control-request-headers":
                request_headers = bytes(value).decode("latin-1")
        if origin is None or not self.origin_allowed(origin):
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS" and request_method is not None:
            requested = _csv(request_headers or "")
            if request_method.strip() in self.allowed_methods and all(
                    h.lower() in self.allowed_headers for h in requested):
                await self._preflight(origin, send)
                return
            await self.app(scope, receive, send)  # a refused preflight: no CORS headers
            return
        extra = self._cors_headers(origin)

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_cors)

    async def _preflight(self, origin: str, send: Send) -> None:
        headers = [
            *self._cors_headers(origin),
            (b"access-control-max-age", str(PREFLIGHT_MAX_AGE_S).encode()),
            (b"access-control-allow-methods", ",".join(self.allowed_methods).encode("latin-1")),
            (b"access-control-allow-headers", ",".join(DEFAULT_ALLOWED_HEADERS).encode()),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
