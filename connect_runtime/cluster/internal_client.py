"""Worker-to-worker requests: signed (KIP-507) calls to the leader's internal endpoints."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from urllib.parse import quote

import httpx

from connect_runtime.cluster.herder_api import SessionKeyInfo
from connect_runtime.cluster.peer_http import peer_client
from connect_runtime.cluster.request_signature import sign
from connect_runtime.config.rest_tls import PeerTls
from connect_runtime.errors import HttpStatusError, ServiceUnavailableHttpError

logger = logging.getLogger(__name__)


class InternalClient:
    """Sends signed internal requests; the session key is looked up at every call (it rotates).

    ``tls`` is how the leader is reached when its advertised URL is https (None: verified by the
    system's CAs).
    """

    def __init__(self, session_key: Callable[[], SessionKeyInfo | None], algorithm: str,
                 timeout_s: float = 90.0, tls: PeerTls | None = None) -> None:
        self._session_key = session_key
        self._algorithm = algorithm
        self._http = peer_client(tls, timeout_s)

    def _signed(self, method: str, url: str, body: bytes) -> None:
        key = self._session_key()
        if key is None:
            raise ServiceUnavailableHttpError("No session key has been read yet; cannot sign internal requests")
        headers = {"Content-Type": "application/json", **sign(key.key, self._algorithm, body)}
        try:
            resp = self._http.request(method, url, content=body, headers=headers)
        except httpx.HTTPError as e:
            raise HttpStatusError(f"Internal request {method} {url} failed: {e}") from e
        if resp.status_code >= 400:
            try:
                message = str(resp.json().get("message", resp.text))
            except ValueError:
                message = resp.text
            raise HttpStatusError(message, status=resp.status_code)

    def put_task_configs(self, leader_url: str, connector: str, configs: list[dict[str, str]]) -> None:
        """``POST /connectors/{c}/tasks`` on the leader."""
        body = json.dumps(configs, separators=(",", ":")).encode()
        self._signed("POST", f"{leader_url.rstrip('/')}/connectors/{_quote(connector)}/tasks", body)

    def fence_zombies(self, leader_url: str, connector: str) -> None:
        """``PUT /connectors/{c}/fence`` on the leader (empty body)."""
        self._signed("PUT", f"{leader_url.rstrip('/')}/connectors/{_quote(connector)}/fence", b"")

    def close(self) -> None:
        self._http.close()


def _quote(name: str) -> str:
    return quote(name, safe="")
