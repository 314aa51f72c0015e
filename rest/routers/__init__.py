"""Routers of the Connect REST API and the plumbing they share.

Handlers never block the event loop: herder requests are ``concurrent.futures.Future`` objects
awaited through :meth:`RestContext.complete`, and synchronous herder methods that may block run on
the context's thread pool through :meth:`RestContext.blocking`. Both give up after the request
timeout with Java's 500 ``"Request timed out"``.

Leader-only requests (connector create/update/delete) go through :func:`complete_or_forward`, the
single seam where forwarding to the leader will be added.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from fastapi import Request

from connect_runtime.cluster.herder_api import Herder
from connect_runtime.errors import ConflictError, ConnectRestError, NotLeaderError, RequestTimeoutError

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Java's message when the herder does not answer within the request timeout.
REQUEST_TIMED_OUT = "Request timed out"
#: Java's message when a request was interrupted (here: its future was cancelled).
REQUEST_INTERRUPTED = "Request interrupted"
#: 409 when a forwarded request (``forward=false``) still reached the wrong worker.
CONFLICTING_OPERATION = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
#: 409 when the leader is not known (a rebalance is underway).
NO_KNOWN_LEADER = (
    "Cannot complete request momentarily due to no known leader URL, likely because a rebalance was underway."
)


@dataclass(slots=True)
class RestContext:
    """What every handler needs: the herder, the request timeout and a pool for blocking calls."""

    herder: Herder
    request_timeout_s: float = 90.0
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=16, thread_name_prefix="rest-herder-call")
    )

    async def complete(self, future: Future[T], timeout_s: float | None = None) -> T:
        """Wait for a herder future without blocking the event loop.

        On timeout the herder's future is deliberately *not* cancelled (as ``asyncio.wrap_future``
        would do): the herder thread owns it and may still complete it; only this request gives up.
        """
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
            raise RequestTimeoutError(REQUEST_TIMED_OUT) from None
        try:
            return future.result(timeout=0)
        except concurrent.futures.CancelledError:
            raise ConnectRestError(REQUEST_INTERRUPTED, status=500) from None

    async def blocking(self, call: Callable[[], T], timeout_s: float | None = None) -> T:
        """Run a synchronous herder call on the thread pool, bounded by the request timeout."""
        return await self.complete(self.executor.submit(call), timeout_s)

    def shutdown(self) -> None:
        """Release the thread pool (calls still running are abandoned, not waited for)."""
        self.executor.shutdown(wait=False, cancel_futures=True)


def get_context(request: Request) -> RestContext:
    """FastAPI dependency: the context ``create_app`` stored on the application."""
    ctx = request.app.state.connect_context
    if not isinstance(ctx, RestContext):  # pragma: no cover - wiring error
        raise RuntimeError("The REST application has no RestContext; build it with rest.app.create_app")
    return ctx


def parse_forward(value: str | None) -> bool | None:
    """The ``forward`` query parameter as Java's ``Boolean`` binding reads it (absent = ``None``)."""
    if value is None:
        return None
    return value.strip().lower() == "true"


async def forward_to_leader(request: Request, leader_url: str, recursive: bool) -> T:
    """Forward a leader-only request (not implemented yet: answers 409 so the client retries).

    The forwarding issue replaces this body: re-send ``request`` to ``leader_url`` + path with
    ``forward=<recursive>`` (``true`` only on the first hop), strip signature headers, and relay
    the leader's status and body.
    """
    logger.info(
        "Not the leader for %s %s; the leader is %s (forwarding not implemented yet)",
        request.method,
        request.url.path,
        leader_url,
    )
    raise ConflictError(
        f"Cannot complete request: this worker is not the leader and request forwarding to the leader "
        f"({leader_url}) is not supported yet"
    )


async def complete_or_forward(
    ctx: RestContext, request: Request, forward: bool | None, submit: Callable[[], Future[T]]
) -> T:
    """Run a leader-only herder request; when this worker is not the leader, forward it.

    Mirrors Java's ``HerderRequestHandler.completeOrForwardRequest``: at most two hops
    (``forward`` absent → forward with ``forward=true``; ``forward=true`` → forward with
    ``forward=false``; ``forward=false`` and still not the leader → 409).
    """
    try:
        return await ctx.complete(submit())
    except NotLeaderError as exc:
        if forward is False:
            raise ConflictError(CONFLICTING_OPERATION) from None
        if exc.leader_url is None:
            raise ConflictError(NO_KNOWN_LEADER) from None
        result: T = await forward_to_leader(request, exc.leader_url, recursive=forward is None)
        return result
