"""Poll for a condition with a deadline, instead of sleeping: the toolkit's waiting primitives."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T | None], timeout_s: float = 60.0, interval_s: float = 0.2,
               message: str = "condition") -> T:
    """Poll ``condition`` every ``interval_s`` until it returns something truthy, and return that value.

    Returns the first truthy result itself (not ``True``), so a condition can hand back what it found:
    ``status = wait_until(lambda: running_status(), 30)``. A condition that is still falsy after
    ``timeout_s`` seconds raises AssertionError ``"Timed out after {timeout_s}s waiting for {message}"``
    (with the last exception the condition raised, if any); ``condition`` is called at least once,
    even with ``timeout_s=0``.

    Other exceptions from ``condition`` count as "not yet" (e.g. REST not up yet) and the last one is
    reported at the deadline; an AssertionError is a failed check, not a transient state, so it
    propagates at once instead of turning into a timeout that hides what was wrong.
    """
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while True:
        try:
            result = condition()
            if result:
                return result
        except AssertionError:
            raise
        except Exception as e:
            last_error = e
        if time.monotonic() >= deadline:
            raise AssertionError(f"Timed out after {timeout_s}s waiting for {message}"
                                 + (f" (last error: {last_error!r})" if last_error else ""))
        time.sleep(interval_s)


def assert_settles(read: Callable[[], T], settle_s: float = 15.0, window_s: float = 2.5,
                   message: str = "value") -> T:
    """Wait until ``read()`` stops changing (two readings half a second apart agree, within
    ``settle_s``: work in flight, such as a stopping task's final commit, may still land), then assert
    it stays the same for ``window_s``. Returns the settled value.

    For "nothing more is written": comparing against a reading taken once is racy, since a single
    commit that lands just after it (a transaction marker counts) never lets the two agree again.
    """
    def settled() -> tuple[T] | None:
        first = read()
        time.sleep(0.5)  # part of the polled condition: two readings half a second apart
        return (first,) if read() == first else None

    (value,) = wait_until(settled, settle_s, interval_s=0.1, message=f"{message} to stop changing")
    deadline = time.monotonic() + window_s
    while time.monotonic() < deadline:
        now = read()
        assert now == value, f"{message} changed after it had settled: {value!r} -> {now!r}"
        time.sleep(0.25)
    return value
