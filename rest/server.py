"""Serve the REST application with uvicorn on a background thread.

The worker process owns the herder thread and one thread per connector (tasks run in processes of
their own); the REST API gets one more thread
running uvicorn's event loop. :class:`RestServer` binds the listening socket itself, so that a port
already in use fails :meth:`RestServer.start` with a clear error at once, and port 0 (an ephemeral
port, for tests) is known before the first request.

A worker serves each of its listeners (http or https, regular or admin) with its own
:class:`RestServer`, since one uvicorn server has one TLS context; :class:`RestServers` starts and
stops them together.
"""

from __future__ import annotations

import errno
import logging
import socket
import ssl
import threading
import time
from collections.abc import Collection, Sequence
from typing import Any

import uvicorn

logger = logging.getLogger(__name__)


class RestServerError(RuntimeError):
    """The REST server could not start (e.g. its port is in use)."""


class RestServer:
    """Runs an ASGI app with uvicorn in a daemon thread: ``start()``, ``port``, ``stop()``.

    ``ssl_context`` makes it an https server. ``graceful_timeout_s`` bounds :meth:`stop`: in-flight
    requests get that long to finish before the server exits anyway. ``replaced_headers`` names the
    server's own response headers (``date``, ``server``) it leaves out because the app sends its own
    (see :func:`rest.response_headers.replaced_server_headers`).
    """

    def __init__(
        self,
        app: Any,
        host: str = "0.0.0.0",
        port: int = 8083,
        *,
        graceful_timeout_s: float = 10.0,
        startup_timeout_s: float = 30.0,
        access_log: bool = False,
        ssl_context: ssl.SSLContext | None = None,
        replaced_headers: Collection[str] = (),
    ) -> None:
        self._app = app
        self._replaced_headers = frozenset(name.lower() for name in replaced_headers)
        self._ssl_context = ssl_context
        self._host = host
        self._requested_port = port
        self._graceful_timeout_s = graceful_timeout_s
        self._startup_timeout_s = startup_timeout_s
        self._access_log = access_log
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None
        self._lock = threading.Lock()

    @property
    def host(self) -> str:
        """The host (interface) the server listens on."""
        return self._host

    @property
    def port(self) -> int:
        """The port actually listened on (the ephemeral one when constructed with port 0)."""
        if self._port is None:
            raise RestServerError("The REST server has not been started")
        return self._port

    @property
    def scheme(self) -> str:
        """``https`` when serving TLS, else ``http``."""
        return "https" if self._ssl_context is not None else "http"

    @property
    def url(self) -> str:
        """The URL actually served, e.g. ``https://127.0.0.1:43817`` (all interfaces: ``localhost``)."""
        host = self._host if self._host not in ("", "0.0.0.0", "::") else "localhost"
        host = f"[{host}]" if ":" in host else host
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def is_running(self) -> bool:
        """True between a successful :meth:`start` and :meth:`stop`."""
        return self._thread is not None and self._thread.is_alive()

    def _bind(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted connections only when the
        # listening socket says it is TCP (proto 0 does not count). Without it, Nagle's algorithm
        # holds the response body back until the client's delayed ACK: +40 ms on every request.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            # Lets a restarted worker rebind while old connections sit in TIME_WAIT; on Linux this
            # does not allow two listeners on one port, so "in use" is still detected.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self._host, self._requested_port))
        except OSError as exc:
            sock.close()
            if exc.errno == errno.EADDRINUSE:
                raise RestServerError(
                    f"Cannot start the REST server: port {self._requested_port} on {self._host or '0.0.0.0'} "
                    f"is already in use ({self.scheme} listener; set a different port in listeners or admin.listeners)"
                ) from exc
            raise RestServerError(
                f"Cannot start the REST server on {self._host}:{self._requested_port} ({self.scheme}): {exc}"
            ) from exc
        return sock

    def start(self) -> None:
        """Bind, start serving on a background thread, and return once the socket is listening."""
        with self._lock:
            if self._thread is not None:
                raise RestServerError("The REST server is already started")
            sock = self._bind()
            self._socket = sock
            self._port = int(sock.getsockname()[1])
            config = uvicorn.Config(
                self._app,
                log_config=None,
                access_log=self._access_log,
                lifespan="on",
                timeout_graceful_shutdown=max(1, int(self._graceful_timeout_s)),
                server_header="server" not in self._replaced_headers,
                date_header="date" not in self._replaced_headers,
            )
            if self._ssl_context is not None:
                # Our own context (built from the worker's ssl.* settings), not uvicorn's file-based one:
                # load() would leave config.ssl None without ssl_certfile, so it is set after loading.
                config.load()
                config.ssl = self._ssl_context
            server = uvicorn.Server(config)
            self._server = server
            thread = threading.Thread(
                target=self._serve, args=(server, sock), name=f"rest-server-{self._port}", daemon=True
            )
            self._thread = thread
            thread.start()
            deadline = time.monotonic() + self._startup_timeout_s
            while not server.started:
                if not thread.is_alive():
                    self._cleanup()
                    raise RestServerError(f"The REST server on port {self._port} failed to start")
                if time.monotonic() > deadline:
                    server.should_exit = True
                    thread.join(self._graceful_timeout_s)
                    self._cleanup()
                    raise RestServerError(
                        f"The REST server on port {self._port} did not start "
                        f"within {self._startup_timeout_s} s"
                    )
                time.sleep(0.01)
            logger.info("REST server listening on %s://%s:%d", self.scheme, self._host or "0.0.0.0", self._port)

    @staticmethod
    def _serve(server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            server.run(sockets=[sock])
        except BaseException:  # SystemExit from uvicorn on startup failure included
            logger.exception("REST server thread exited with an error")

    def stop(self) -> None:
        """Stop accepting connections, let in-flight requests finish (bounded), and join the thread."""
        with self._lock:
            server, thread = self._server, self._thread
            if server is None or thread is None:
                return
            server.should_exit = True
            thread.join(self._graceful_timeout_s + 5.0)
            if thread.is_alive():
                logger.warning("REST server did not stop gracefully in time; forcing exit")
                server.force_exit = True
                thread.join(5.0)
            if thread.is_alive():
                logger.error("REST server thread is still running after forced exit")
            else:
                logger.info("REST server on port %s stopped", self._port)
            self._cleanup()

    def _cleanup(self) -> None:
        if self._socket is not None:
            self._socket.close()
        self._socket = None
        self._server = None
        self._thread = None

    def __enter__(self) -> RestServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class RestServers:
    """Several :class:`RestServer` started and stopped as one (a worker's listeners).

    :meth:`start` starts them in order; if one fails, those already started are stopped and the
    error is raised, so a worker never runs with only some of its listeners.
    """

    def __init__(self, servers: Sequence[RestServer]) -> None:
        if not servers:
            raise ValueError("at least one REST server is needed")
        self.servers = list(servers)

    def start(self) -> None:
        started: list[RestServer] = []
        try:
            for server in self.servers:
                server.start()
                started.append(server)
        except BaseException:
            for server in reversed(started):
                server.stop()
            raise

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def __enter__(self) -> RestServers:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
