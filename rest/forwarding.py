"""Request forwarding: re-send a request that must run on another worker (the leader or the owner).

This is the HTTP half of Java's ``HerderRequestHandler.completeOrForwardRequest`` + ``RestClient``;
:func:`rest.routers.complete_or_forward` decides *whether* to forward, this module does it: the same
method, path, query and raw body go to the target worker with ``forward=<recursive>``, and the target's
answer (status, body, ``Content-Type``, ``Location``) becomes this request's answer.

Internal requests are re-signed: the incoming KIP-507 headers are dropped and the body is signed again
with this worker's current session key and ``inter.worker.signature.algorithm``, as Kafka Connect
does (a key rotation between the hops then cannot fail the second hop).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from urllib.parse import quote, urlsplit

import httpx
from fastapi import Request, Response

from connect_runtime.cluster.herder_api import SessionKeyInfo
from connect_runtime.cluster.peer_http import async_peer_client
from connect_runtime.cluster.request_signature import NO_SESSION_KEY, sign
from connect_runtime.config.rest_tls import PeerTls
from connect_runtime.errors import HttpStatusError, ServiceUnavailableHttpError

logger = logging.getLogger(__name__)

#: RestClient's message when the target cannot be reached (connection refused, timeout, ...).
FORWARD_IO_ERROR = "IO Error trying to forward REST request: "
#: RestClient's message for an answer that is neither 2xx nor an error status.
UNEXPECTED_STATUS = "Unexpected status code when handling forwarded request: "

#: Request headers worth carrying to the target (RestClient copies ``Authorization``; the body's
#: type matters to the target's parser). Everything else (Host, Content-Length, hop-by-hop headers,
#: the incoming signature) is recomputed or dropped.
_FORWARDED_REQUEST_HEADERS = ("authorization", "content-type")
#: Response headers relayed to the client.
_RELAYED_RESPONSE_HEADERS = ("content-type", "location")


class ForwardedResponse(Exception):  # a control-flow signal, not an error
    """Carries the target worker's answer out of a handler; rendered as is by the app.

    Raising keeps handlers simple: ``complete_or_forward`` either returns the herder's result for the
    handler to render, or the handler is abandoned and the forwarded answer is sent instead.
    """

    def __init__(self, response: Response) -> None:
        super().__init__(f"forwarded response {response.status_code}")
        self.response = response


def _raw_path(request: Request) -> str:
    """The request path exactly as received (percent-encoding kept: ``a%2Fb`` must stay one segment)."""
    raw = request.scope.get("raw_path")
    if isinstance(raw, bytes) and raw:
        return raw.decode("latin-1").split("?", 1)[0]
    return quote(request.url.path, safe="/:@!$&'()*+,;=~")


def forward_url(request: Request, target_url: str, recursive: bool) -> httpx.URL:
    """``target_url`` + this request's path, ``forward=<recursive>`` first, then the other parameters."""
    params: list[tuple[str, str]] = [("forward", "true" if recursive else "false")]
    params.extend((k, v) for k, v in request.query_params.multi_items() if k != "forward")
    return httpx.URL(target_url.rstrip("/") + _raw_path(request), params=params)


def _request_headers(request: Request) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": "kafka-connect"}
    for name in _FORWARDED_REQUEST_HEADERS:
        value = request.headers.get(name)
        if value is not None:
            headers[name] = value
    return headers


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _relayed_location(location: str, target_url: str, request: Request) -> str:
    """Point a ``Location`` on the target at this worker instead, as Java's follower answers.

    Java rebuilds the response locally, so Jersey resolves ``/connectors/<name>`` against the base URI
    of the worker the client called; the client may not even be able to reach the leader's address.
    """
    target = urlsplit(location)
    if target.scheme and _origin(location) == _origin(target_url):
        local = str(request.base_url).rstrip("/")
        rest = target.path + (f"?{target.query}" if target.query else "")
        return local + rest
    return location


async def forward_request(
    client: httpx.AsyncClient | None,
    request: Request,
    target_url: str,
    recursive: bool,
    timeout_s: float,
    signing: tuple[SessionKeyInfo | None, str] | None = None,
    *,
    tls: PeerTls | None = None,
) -> Response:
    """Send ``request`` to ``target_url`` and return the target's answer as this worker's response.

    ``signing`` is ``(session key, algorithm)`` for internal requests: the body is re-signed. ``tls``
    is how an https target is reached when there is no shared ``client``. A transport failure is
    Java's 500 ``"IO Error trying to forward REST request: ..."``.
    """
    body = await request.body()
    url = forward_url(request, target_url, recursive)
    headers = _request_headers(request)
    if signing is not None:
        key, algorithm = signing
        if key is None:
            raise ServiceUnavailableHttpError(NO_SESSION_KEY)
        headers.update(sign(key.key, algorithm, body))
    logger.debug("Forwarding request %s %s", request.method, url)
    try:
        if client is None:
            # No lifespan ran (e.g. an app driven without startup events): use a one-off client.
            async with async_peer_client(tls, timeout_s) as one_off:
                answer = await one_off.request(request.method, url, content=body, headers=headers)
        else:
            answer = await client.request(request.method, url, content=body, headers=headers, timeout=timeout_s)
    except httpx.HTTPError as exc:
        logger.error("IO error forwarding REST request %s %s: %s", request.method, url, exc)
        raise HttpStatusError(FORWARD_IO_ERROR + (str(exc) or type(exc).__name__), status=500) from exc
    status = answer.status_code
    logger.debug("Forwarded request %s %s answered %d", request.method, url, status)
    if status < 200 or 300 <= status < 400:
        raise HttpStatusError(UNEXPECTED_STATUS + str(status), status=500)
    return _relay(answer, target_url, request)


def _relay(answer: httpx.Response, target_url: str, request: Request) -> Response:
    relayed: dict[str, str] = {}
    for name in _RELAYED_RESPONSE_HEADERS:
        value = answer.headers.get(name)
        if value is not None:
            relayed[name] = _relayed_location(value, target_url, request) if name == "location" else value
    if answer.status_code in (204, 304):
        return Response(status_code=answer.status_code, headers=_without_content_type(relayed))
    return Response(content=answer.content, status_code=answer.status_code, headers=relayed)


def _without_content_type(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k != "content-type"}
