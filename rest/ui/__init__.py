"""The operator console: static files served at ``/ui/`` by every worker whose ``rest.ui.enable`` is
true, on its regular listeners.

The console is plain ES modules and CSS (nothing to build): the browser talks to the worker's own REST
API with the user's credentials, so the files themselves hold no data and are served without
authentication. That is what lets it work behind Basic authentication, whose 401 (as Java's) carries no
``WWW-Authenticate`` challenge, so a browser would never prompt: the page shows its own sign-in form
and sends the credentials as an ``Authorization`` header.

:class:`ConsoleMiddleware` answers ``/ui`` and everything under it before the Connect resources'
rules and the REST extensions see the request: Jersey's rules (no trailing slash, JSON only) are for
the API, not for files. Every answer carries a strict ``Content-Security-Policy`` (scripts, styles and
connections from the worker only, no inline code, no framing): the console renders data as text only,
and the policy keeps it so should a bug ever put a connector's name into markup.
"""

from __future__ import annotations

from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rest.middleware import HttpMiddleware

__all__ = ["CONSOLE_PATH", "CONTENT_SECURITY_POLICY", "ConsoleMiddleware"]

#: Where the console is served.
CONSOLE_PATH = "/ui"
#: Nothing but the worker itself: no inline scripts or styles, no plugins, no framing, no <base>.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_STATIC_DIR = Path(__file__).parent / "static"
_SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    # A worker upgrade must not leave a browser running an older console against a newer API.
    (b"cache-control", b"no-cache"),
)


class ConsoleMiddleware(HttpMiddleware):
    """ASGI middleware serving the console's files at ``/ui/`` (``/ui`` redirects there); every other
    request goes on to the REST API."""

    def __init__(self, app: ASGIApp) -> None:
        super().__init__(app)
        self._files = StaticFiles(directory=_STATIC_DIR, html=True)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        if path != CONSOLE_PATH and not path.startswith(CONSOLE_PATH + "/"):
            await self.app(scope, receive, send)
            return
        send = _with_security_headers(send)
        if path == CONSOLE_PATH:
            # Relative links in the page resolve against /ui/, never against /.
            await RedirectResponse(CONSOLE_PATH + "/", status_code=308)(scope, receive, send)
            return
        try:
            await self._files({**scope, "root_path": CONSOLE_PATH}, receive, send)
        except HTTPException as e:
            # Outside FastAPI's handlers: a missing file or another method is answered here, as text.
            await PlainTextResponse(e.detail, status_code=e.status_code, headers=e.headers)(scope, receive, send)


def _with_security_headers(send: Send) -> Send:
    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *_SECURITY_HEADERS]}
        await send(message)

    return send_with_headers
