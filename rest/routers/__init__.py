"""Routers of the Connect REST API and the plumbing they share.

Handlers never block the event loop: herder requests are ``concurrent.futures.Future`` objects
awaited through :meth:`RestContext.complete` (reads come back already completed, from the herder's
snapshots, and are answered without a detour), and synchronous herder methods that may block run on
the context's thread pool through :meth:`RestContext.blocking`. Both give up after the request
timeout with Java's 500 ``"Request timed out"``.

Requests only the leader (create/update/delete, stop, task configs, fencing, restarts with flags,
offset changes) or the owner (plain connector restart, task restart) can serve go through
:func:`complete_or_forward`, the single seam where such requests are forwarded to the right worker
(:mod:`rest.forwarding`). While the worker is still joining the cluster (no leader known yet), such
requests wait for it instead of failing, as Java's queue up behind the herder's join.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

import httpx
from fastapi import Request

from connect_runtime.cluster.herder_api import Herder
from connect_runtime.config.rest_tls import PeerTls
from connect_runtime.errors import (
    ConflictHttpError,
    HttpStatusError,
    NotAssignedHttpError,
    NotLeaderHttpError,
    RequestTimeoutHttpError,
)
from rest.forwarding import ForwardedResponse, forward_request

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Java's message when the herder does not answer within the request timeout.
REQUEST_TIMED_OUT = "Request timed out"
#: Java's message when a request was interrupted (here: its future was cancelled).
REQUEST_INTERRUPTED = "Request interrupted"
#: 409 when a forwarded request (``forward=false``) still reached the wrong worker.
CONFLICTING_OPERATION = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
#: 409 when the leader (or owner) is not known (a rebalance is underway).
NO_KNOWN_LEADER = (
    "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway."
)
#: How often a request that waits for the worker to join asks whether it has.
JOIN_POLL_INTERVAL_S = 0.05


@dataclass(slots=True)
class RestContext:
    """What every handler needs: the herder, the request timeout, a pool for blocking calls, and the
    HTTP client forwarded requests share (set by the app's lifespan; None outside it)."""

    herder: Herder
    request_timeout_s: float = 90.0
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=16, thread_name_prefix="rest-herder-call")
    )
    http_client: httpx.AsyncClient | None = None
    #: How other workers are reached over https (the lifespan's client uses it; so does the fallback).
    peer_tls: PeerTls | None = None
    #: Set once the herder was seen ready (a leader known); from then on nothing waits for it again.
    joined: bool = False

    async def complete(self, future: Future[T], timeout_s: float | None = None) -> T:
        """Wait for a herder future without blocking the event loop.

        On timeout the herder's future is deliberately *not* cancelled (as ``asyncio.wrap_future``
        would do): the herder thread owns it and may still complete it; only this request gives up.
        """
        if future.done():  # reads served from the snapshots: no need for a trip through the loop
            return _result(future)
        loop = asyncio.get_running_loop()
        done = asyncio.Event()

        def _wake(_: Future[T]) -> None:
            # RuntimeError: the event loop is closed, so nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(done.set)

        future.add_done_callback(_wake)
        timeout = self.request_timeout_s if timeout_s is None else timeout_s
        try:
            async with asyncio.timeout(timeout):
                await done.wait()
        except TimeoutError:
            raise RequestTimeoutHttpError(REQUEST_TIMED_OUT) from None
        return _result(future)

    async def blocking(self, call: Callable[[], T], timeout_s: float | None = None) -> T:
        """Run a synchronous herder call on the thread pool, bounded by the request timeout."""
        return await self.complete(self.executor.submit(call), timeout_s)

    async def wait_joined(self, deadline: float) -> None:
        """Wait until the worker has joined the cluster (``Herder.is_ready``: its internal topics are
        read and a live leader is known), at most until ``deadline`` (``time.monotonic()``).

        Java's REST resources come up before the herder joins, and requests submitted meanwhile
        queue behind the join; a client that saw ``GET /`` answer must not get a 409 for a create
        just because the worker has not met its leader yet. Only the first join is awaited: a leader
        lost later is a rebalance, answered 409 as Java does.
        """
        while not self.joined:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RequestTimeoutHttpError(REQUEST_TIMED_OUT)
            if await self.blocking(self.herder.is_ready, timeout_s=remaining):
                self.joined = True
                return
            await asyncio.sleep(min(JOIN_POLL_INTERVAL_S, max(deadline - time.monotonic(), 0.0)))

    def shutdown(self) -> None:
        """Release the thread pool (calls still running are abandoned, not waited for)."""
        self.executor.shutdown(wait=False, cancel_futures=True)


def _result(future: Future[T]) -> T:
    """The result of a completed herder future (a cancelled one is Java's interrupted request)."""
    try:
        return future.result(timeout=0)
    except concurrent.futures.CancelledError:
        raise HttpStatusError(REQUEST_INTERRUPTED, status=500) from None


async def get_context(request: Request) -> RestContext:
    """FastAPI dependency: the context ``create_app`` stored on the application.

    ``async`` on purpose: FastAPI runs a plain ``def`` dependency on its thread pool, a thread hop
    per request that cost more than everything else a status read does.
    """
    ctx = request.app.state.connect_context
    if not isinstance(ctx, RestContext):  # pragma: no cover - wiring error
        raise RuntimeError("The REST application has no RestContext; build it with rest.app.create_app")
    return ctx


def parse_forward(value: str | None) -> bool | None:
    """The ``forward`` query parameter as Java's ``Boolean`` binding reads it (absent = ``None``)."""
    if value is None:
        return None
    return value.strip().lower() == "true"


def parse_java_boolean(value: str | None) -> bool:
    """A ``@DefaultValue("false") Boolean`` query parameter: only ``true`` (any case) is true."""
    return value is not None and value.strip().lower() == "true"


async def complete_or_forward(
    ctx: RestContext,
    request: Request,
    forward: bool | None,
    submit: Callable[[], Future[T]],
    *,
    internal: bool = False,
) -> T:
    """Run a herder request that only one worker may serve; on any other worker, forward it there.

    Mirrors Java's ``HerderRequestHandler.completeOrForwardRequest``: the herder answers
    ``NotLeaderHttpError`` (leader-only operations) or ``NotAssignedHttpError`` (owner-only ones) with the URL
    to go to, and the request is re-sent there: ``forward`` absent → with ``forward=true`` (the target
    may forward once more); ``forward=true`` → with ``forward=false``; ``forward=false`` and still the
    wrong worker → 409 (two hops should always suffice, so a rebalance is underway). An unknown target
    URL is a 409 too. The target's answer is relayed as this request's answer through
    :class:`rest.forwarding.ForwardedResponse`. ``internal`` requests are re-signed (KIP-507).

    Until the worker has joined the cluster the request waits for it (:meth:`RestContext.wait_joined`);
    the request timeout bounds the wait and the herder's work together.
    """
    deadline = time.monotonic() + ctx.request_timeout_s
    await ctx.wait_joined(deadline)
    try:
        return await ctx.complete(submit(), max(deadline - time.monotonic(), 0.0))
    except (NotLeaderHttpError, NotAssignedHttpError) as exc:
        target = exc.leader_url if isinstance(exc, NotLeaderHttpError) else exc.owner_url
        if forward is False:
            logger.error(
                "Request '%s %s' failed because it couldn't find the target Connect worker within two hops "
                "(between workers).",
                request.method,
                request.url.path,
            )
            raise ConflictHttpError(CONFLICTING_OPERATION) from None
        if target is None:
            raise ConflictHttpError(NO_KNOWN_LEADER) from None
        signing = None
        if internal:
            herder = ctx.herder
            signing = await ctx.blocking(lambda: (herder.session_key(), herder.signature_algorithm()))
        response = await forward_request(
            ctx.http_client, request, target, forward is None, ctx.request_timeout_s, signing, tls=ctx.peer_tls
        )
        raise ForwardedResponse(response) from None
