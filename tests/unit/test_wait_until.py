"""The polling helper of the test harness: transient errors are retried, failed checks are not."""

from __future__ import annotations

import time

import pytest

from connect_runtime.testing.cluster import wait_until


def test_returns_the_first_truthy_result() -> None:
    results = iter([None, 0, "done"])
    assert wait_until(lambda: next(results), 5, interval_s=0) == "done"


def test_transient_errors_are_retried_and_reported_at_the_deadline() -> None:
    calls = 0

    def flaky() -> bool:
        nonlocal calls
        calls += 1
        raise ConnectionError(f"not up yet ({calls})")

    with pytest.raises(AssertionError, match=r"Timed out after 0.3s waiting for rest.*not up yet"):
        wait_until(flaky, 0.3, interval_s=0.01, message="rest")
    assert calls > 1


def test_assertion_error_propagates_at_once() -> None:
    calls = 0

    def check() -> bool:
        nonlocal calls
        calls += 1
        assert calls > 100, "wrong status"
        return True

    start = time.monotonic()
    with pytest.raises(AssertionError, match="wrong status"):
        wait_until(check, 30, interval_s=0.01)
    assert calls == 1
    assert time.monotonic() - start < 5  # not the 30 s timeout
