"""Futures for work handed to another thread (the herder's queue, a connector's thread, a waiting read)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


def deferred(fn: Callable[[], T]) -> tuple[Future[T], Callable[[], None]]:
    """A future of ``fn``'s outcome, and the call that runs ``fn`` and settles the future: the caller
    keeps the first and queues the second wherever ``fn`` must run (a cancelled future skips ``fn``)."""
    fut: Future[T] = Future()

    def run() -> None:
        if not fut.set_running_or_notify_cancel():
            return
        try:
            fut.set_result(fn())
        except BaseException as e:
            fut.set_exception(e)

    return fut, run


def completed(value: T) -> Future[T]:
    """A future that already has ``value``."""
    fut: Future[T] = Future()
    fut.set_result(value)
    return fut


def failed(error: BaseException) -> Future[Any]:
    """A future that already failed with ``error``."""
    fut: Future[Any] = Future()
    fut.set_exception(error)
    return fut
