"""A bound on request bodies (``rest.request.max.bytes``): a larger body is refused with 413 and
Kafka Connect's error body, without ever being held in memory.

A ``Content-Length`` above the limit is answered at once, before the application reads anything; a
body without one (chunked) is counted as the application receives it, and the request fails as soon
as the count passes the limit. Either way the response says ``Connection: close``, so the server
drops the rest of the body instead of reading it to find the next request.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connect_runtime.errors import HttpStatusError
from rest.errors import error_response
from rest.middleware import HttpMiddleware

#: The HTTP status of a body over the limit (Jetty's ``SizeLimitHandler`` answers the same).
PAYLOAD_TOO_LARGE = 413


class RequestBodyTooLarge(HttpStatusError):
    """The request body is larger than ``rest.request.max.bytes`` (413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(too_large_message(limit), status=PAYLOAD_TOO_LARGE)


def too_large_message(limit: int) -> str:
    """The 413 message."""
    return f"Request body is larger than the limit of {limit} bytes (rest.request.max.bytes)"


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server refuses a malformed Content-Length itself
    return None


class RequestSizeLimitMiddleware(HttpMiddleware):
    """ASGI middleware enforcing ``max_body_bytes`` on every HTTP request body."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        if max_body_bytes <= 0:
            raise ValueError(f"max_body_bytes must be positive, got {max_body_bytes}")
        super().__init__(app)
        self.max_body_bytes = max_body_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.max_body_bytes
        length = _content_length(scope)
        if length is not None and length > limit:
            response = error_response(PAYLOAD_TOO_LARGE, too_large_message(limit), {"Connection": "close"})
            await response(scope, receive, send)
            return
        received = 0
        exceeded = False

        async def counting_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise RequestBodyTooLarge(limit)
            return message

        async def closing_send(message: Message) -> None:
            if exceeded and message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", ()) if h[0].lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, counting_receive, closing_send)
