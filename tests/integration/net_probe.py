"""A stand-in for a worker in the network-fault tests: serves HTTP on a port (``GET /health``) and, on
``GET /probe`` (a new connection) or ``GET /persistent`` (one kept open), asks the broker for its API
versions, answering ``{"ok": ..., "error": ..., "latency_s": ...}``; ``GET /peer`` does the same with
``GET /health`` of the HTTP port PEER_PORT on 127.0.0.1.

    python net_probe.py PORT BROKER_HOST:BROKER_PORT PEER_PORT
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TIMEOUT_S = 2.0
# ApiVersions v0: size, api key 18, version 0, correlation id, null client id; empty body
REQUEST = struct.pack("!ihhih", 10, 18, 0, 1, -1)


def _exchange(sock: socket.socket) -> None:
    sock.sendall(REQUEST)
    size = struct.unpack("!i", _read(sock, 4))[0]
    _read(sock, size)


def _read(sock: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed by the peer")
        out += chunk
    return out


class Probe:
    def __init__(self, broker: tuple[str, int]) -> None:
        self.broker = broker
        self.lock = threading.Lock()
        self.kept: socket.socket | None = None

    def once(self, persistent: bool) -> dict[str, object]:
        started = time.monotonic()
        try:
            if persistent:
                with self.lock:
                    if self.kept is None:
                        self.kept = socket.create_connection(self.broker, TIMEOUT_S)
                    try:
                        _exchange(self.kept)
                    except OSError:
                        self.kept.close()  # out of step with the broker now: the next probe reconnects
                        self.kept = None
                        raise
            else:
                with socket.create_connection(self.broker, TIMEOUT_S) as sock:
                    _exchange(sock)
        except OSError as exc:
            return {"ok": False, "error": repr(exc), "latency_s": time.monotonic() - started}
        return {"ok": True, "error": None, "latency_s": time.monotonic() - started}


def peer(port: int) -> dict[str, object]:
    started = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=TIMEOUT_S) as answer:
            answer.read()
    except OSError as exc:
        return {"ok": False, "error": repr(exc), "latency_s": time.monotonic() - started}
    return {"ok": True, "error": None, "latency_s": time.monotonic() - started}


def main() -> None:
    port = int(sys.argv[1])
    host, _, broker_port = sys.argv[2].rpartition(":")
    probe = Probe((host, int(broker_port)))
    peer_port = int(sys.argv[3])
    probe.once(persistent=True)  # open the kept connection now, inside whatever cgroup this runs in

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/health":
                body: dict[str, object] = {"ok": True}
            elif self.path == "/peer":
                body = peer(peer_port)
            else:
                body = probe.once(persistent=self.path == "/persistent")
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
