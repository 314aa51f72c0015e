"""HTTP clients for calls to other workers (forwarded REST requests, signed internal requests).

Plain http needs nothing; https uses the worker's :class:`~connect_runtime.config.rest_tls.PeerTls`
context (the peer is verified by the configured truststore, the keystore is presented when the peer
asks for a client certificate), as Java's ``RestClient`` does. When that context could not be built,
https calls fail with the one-line reason instead of falling back to an unverified connection.
"""

from __future__ import annotations

from typing import Any

import httpx

from connect_runtime.config.rest_tls import PeerTls

__all__ = ["async_peer_client", "peer_client"]


class _RefusedTls(httpx.BaseTransport):
    def __init__(self, reason: str) -> None:
        self._reason = reason

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(self._reason, request=request)


class _AsyncRefusedTls(httpx.AsyncBaseTransport):
    def __init__(self, reason: str) -> None:
        self._reason = reason

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(self._reason, request=request)


def peer_client(tls: PeerTls | None, timeout_s: float) -> httpx.Client:
    """A blocking client of other workers; ``tls`` None: https peers verified by the system's CAs."""
    return httpx.Client(**_client_settings(tls, timeout_s, _RefusedTls))


def async_peer_client(tls: PeerTls | None, timeout_s: float) -> httpx.AsyncClient:
    """An asyncio client of other workers (see :func:`peer_client`)."""
    return httpx.AsyncClient(**_client_settings(tls, timeout_s, _AsyncRefusedTls))


def _client_settings(tls: PeerTls | None, timeout_s: float,
                     refused: type[_RefusedTls | _AsyncRefusedTls]) -> dict[str, Any]:
    # Without a usable TLS context https calls fail with its reason, never fall back to an unverified one.
    if tls is not None and tls.context is None:
        return {"timeout": timeout_s, "follow_redirects": False,
                "mounts": {"https://": refused(tls.error or "TLS is not configured")}}
    verify = tls.context if tls is not None and tls.context is not None else True
    return {"timeout": timeout_s, "follow_redirects": False, "verify": verify}
