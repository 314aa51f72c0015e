"""RetryWithToleranceOperator: retries of retriable failures with the reference's backoff, tolerance
none/all, counting, and the LogReporter's message."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from connect_runtime.api.errors import ConnectException, DataException, RetriableException
from connect_runtime.api.record import SourceRecord
from connect_runtime.config.connector_config import ToleranceType
from connect_runtime.converters import JsonConverter
from connect_runtime.types import ConnectorTaskId
from connect_runtime.worker.retry_with_tolerance import SKIP, RetryWithToleranceOperator, Stage

REC = SourceRecord({"id": 0}, {"seqno": 4}, "t", None, 0, {4})
TASK = ConnectorTaskId("conn", 0)


class Flaky:
    """Raises ``failures`` RetriableExceptions, then returns "ok"."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self, arg: str) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise RetriableException(f"flaky {self.calls}")
        return f"ok {arg}"


def test_none_fails_with_the_cause_and_no_retry_by_default() -> None:
    op = RetryWithToleranceOperator(TASK)
    flaky = Flaky(1)
    with pytest.raises(ConnectException, match=r"^Tolerance exceeded in error handler$") as info:
        op.failed(Stage.VALUE_CONVERTER, JsonConverter(), flaky, ("x",), REC, RetriableException("first"))
    assert str(info.value.__cause__) == "first"
    # As Java's task-error-metrics: the retriable error caught, then the error the record failed with.
    assert flaky.calls == 0 and (op.failures, op.errors, op.retries, op.skipped) == (2, 1, 0, 0)
    assert op.last_error_ms > 0


def test_all_skips_and_counts() -> None:
    op = RetryWithToleranceOperator(TASK, tolerance=ToleranceType.ALL)
    assert op.failed(Stage.TRANSFORMATION, object(), Flaky(0), ("x",), REC, DataException("bad")) is SKIP
    assert (op.failures, op.errors, op.skipped, op.logged) == (1, 1, 1, 0)


def test_retriable_failures_are_retried_with_backoff_until_they_succeed() -> None:
    op = RetryWithToleranceOperator(TASK, retry_timeout_ms=5000, retry_max_delay_ms=100)
    flaky = Flaky(2)
    started = time.monotonic()
    # First retry after min(300 ms, random < max delay 100 ms); the error came from the first call.
    assert op.failed(Stage.KEY_CONVERTER, JsonConverter(), flaky, ("x",), REC, RetriableException("0")) == "ok x"
    assert time.monotonic() - started < 1.0
    # Each failed attempt counts, each backoff is a retry; the record did not fail in the end.
    assert flaky.calls == 3 and (op.failures, op.retries, op.errors, op.last_error_ms) == (3, 3, 0, 0)


def test_non_retriable_failures_are_not_retried() -> None:
    op = RetryWithToleranceOperator(TASK, retry_timeout_ms=5000, tolerance=ToleranceType.ALL)
    flaky = Flaky(0)
    assert op.failed(Stage.VALUE_CONVERTER, JsonConverter(), flaky, ("x",), REC, DataException("bad")) is SKIP
    assert flaky.calls == 0


def test_retries_stop_at_the_timeout() -> None:
    op = RetryWithToleranceOperator(TASK, retry_timeout_ms=700, tolerance=ToleranceType.ALL)
    flaky = Flaky(100)
    started = time.monotonic()
    assert op.failed(Stage.VALUE_CONVERTER, JsonConverter(), flaky, ("x",), REC, RetriableException("0")) is SKIP
    elapsed = time.monotonic() - started
    # Backoff 300 ms, then 600 ms clipped to the deadline: two retries in about 0.7 s.
    assert 0.6 < elapsed < 1.5 and flaky.calls == 2
    # The time retried is kept: under exactly-once it is time the record's transaction stayed open.
    assert 0.6 < op.retrying_s <= elapsed and op.retry_timeout_ms == 700


def test_stop_ends_the_backoff() -> None:
    op = RetryWithToleranceOperator(TASK, retry_timeout_ms=-1, retry_max_delay_ms=60000)
    flaky = Flaky(10**9)
    threading.Timer(0.5, op.trigger_stop).start()
    started = time.monotonic()
    with pytest.raises(ConnectException):
        op.failed(Stage.VALUE_CONVERTER, JsonConverter(), flaky, ("x",), REC, RetriableException("0"))
    assert time.monotonic() - started < 3


def test_log_reporter_message(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, "connect_runtime.worker.retry_with_tolerance")
    quiet = RetryWithToleranceOperator(TASK, tolerance=ToleranceType.ALL)
    quiet.failed(Stage.VALUE_CONVERTER, JsonConverter(), Flaky(0), ("x",), REC, DataException("bad"))
    assert not caplog.records
    op = RetryWithToleranceOperator(TASK, tolerance=ToleranceType.ALL, log_errors=True)
    op.failed(Stage.VALUE_CONVERTER, JsonConverter(), Flaky(0), ("x",), REC, DataException("bad"))
    assert caplog.records[-1].getMessage() == (
        "Error encountered in task conn-0. Executing stage 'VALUE_CONVERTER' with class "
        "'connect_runtime.converters.json_converter.JsonConverter'.")
    assert caplog.records[-1].exc_info is not None
    detailed = RetryWithToleranceOperator(TASK, tolerance=ToleranceType.ALL, log_errors=True, log_messages=True)
    detailed.failed(Stage.TRANSFORMATION, JsonConverter(), Flaky(0), ("x",), REC, DataException("bad"))
    assert caplog.records[-1].getMessage().endswith(f", where source record is = {REC!r}.")


def test_logged_errors_are_counted() -> None:
    op = RetryWithToleranceOperator(TASK, tolerance=ToleranceType.ALL, log_errors=True)
    op.failed(Stage.TRANSFORMATION, object(), Flaky(0), ("x",), REC, DataException("bad"))
    assert op.logged == 1
