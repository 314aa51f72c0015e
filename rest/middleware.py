"""The base of the REST server's ASGI middlewares.

Each of them acts on HTTP requests only: lifespan (and any other) messages go on to the application
untouched, so the check lives here once and a middleware writes only what it does to a request.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware(ABC):
    """An ASGI middleware that handles HTTP requests (:meth:`handle`) and passes everything else on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    @abstractmethod
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one HTTP request; ``self.app`` is the rest of the stack."""
