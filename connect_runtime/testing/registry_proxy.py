"""A schema registry behind HTTP Basic authentication, for tests of clients that log in to one.

Apicurio Registry (the local registry, :mod:`connect_runtime.testing.local_registry`) has no users of
its own: its Basic authentication only swaps the credentials for a token of an OpenID Connect server.
So the toolkit puts a small reverse proxy in front of any registry instead: :class:`BasicAuthProxy`
answers 401 to a request without the right ``Authorization: Basic`` header, as Confluent's registry
does, and forwards every other request unchanged. It lives in the toolkit (not in the runtime's own
tests) because a plugin author testing a connector against a secured registry needs the same thing;
the ``registry_basic_auth`` fixture of the pytest plugin starts one in front of the session's registry.

Its :attr:`~BasicAuthProxy.delay_s` also makes it a *slow* registry: each forwarded request waits that
long first.
"""

from __future__ import annotations

import base64
import http.client
import http.server
import threading
import time
import urllib.parse
from types import TracebackType

from connect_runtime.testing.launcher import HOST

_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
                         "proxy-authorization", "proxy-authenticate"})
_UNAUTHORIZED = b'{"error_code":401,"message":"Unauthorized"}'


class BasicAuthProxy:
    """A reverse proxy on 127.0.0.1 in front of the registry at ``upstream`` that demands ``user``'s
    ``password`` (HTTP Basic).

    :attr:`url` is ``upstream`` with the proxy's address: same path, so it is a ``schema.registry.url``.
    Use it as a context manager, or call :meth:`start` and :meth:`close`.
    """

    def __init__(self, upstream: str, user: str = "registry-user", password: str = "registry-secret") -> None:
        parsed = urllib.parse.urlsplit(upstream)
        if parsed.scheme != "http" or parsed.hostname is None:
            raise ValueError(f"the proxy forwards to an http:// registry, not {upstream!r}")
        self.upstream = upstream
        self.user = user
        self.password = password
        self.delay_s = 0.0
        """Seconds each forwarded request waits before it is forwarded (a slow registry)."""
        self.requests = 0
        """Requests received so far, refused ones included."""
        self._upstream_host = parsed.hostname
        self._upstream_port = parsed.port or 80
        self._expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        self._server = http.server.ThreadingHTTPServer((HOST, 0), self._handler_class())
        self._thread: threading.Thread | None = None
        self.url = f"http://{HOST}:{self._server.server_address[1]}{parsed.path.rstrip('/')}"
        """The registry URL through the proxy (``http://127.0.0.1:PORT/<upstream path>``)."""
        self.user_info = f"{user}:{password}"
        """``user:password``, the value of ``basic.auth.user.info``."""

    def start(self) -> BasicAuthProxy:
        """Serve in a daemon thread; returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._server.serve_forever, name="registry-basic-auth-proxy",
                                            daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and close the listening socket."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> BasicAuthProxy:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _handler_class(self) -> type[http.server.BaseHTTPRequestHandler]:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as clients of a real registry expect

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: one line per request on stderr would drown a test's output."""

            def _handle(self) -> None:
                proxy.requests += 1
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                if self.headers.get("Authorization") != proxy._expected:
                    self._answer(401, [("Content-Type", "application/json"),
                                       ("WWW-Authenticate", 'Basic realm="registry"')], _UNAUTHORIZED)
                    return
                if proxy.delay_s > 0:
                    time.sleep(proxy.delay_s)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in _HOP_BY_HOP | {"host", "authorization", "content-length"}}
                conn = http.client.HTTPConnection(proxy._upstream_host, proxy._upstream_port, timeout=60)
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    kept = [(k, v) for k, v in resp.getheaders() if k.lower() not in _HOP_BY_HOP | {"content-length"}]
                    self._answer(resp.status, kept, data)
                except OSError as exc:
                    self._answer(502, [("Content-Type", "application/json")],
                                 f'{{"error_code":502,"message":"{type(exc).__name__}"}}'.encode())
                finally:
                    conn.close()

            def _answer(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

        return Handler
