"""Error handling for the per-record stages of a source task (transforms and converters), as the
connector's ``errors.*`` settings ask (Kafka's ``RetryWithToleranceOperator`` and ``LogReporter``).

A stage that raised is handed here, from the exception handler only, so records that succeed pay
nothing. A :class:`RetriableException` is retried with Kafka's backoff (300 ms doubling per attempt;
past ``errors.retry.delay.max.ms`` a random delay up to it) until ``errors.retry.timeout`` has passed
(0: never retried; -1: forever). What still fails is counted and, with ``errors.log.enable``, logged
as the reference logs it; then the record is skipped (``errors.tolerance=all``: its offset is not
committed, as for a record a transform drops) or the task fails (``none``).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from enum import Enum
from typing import Any, Final

from connect_runtime.api.errors import ConnectException, RetriableException
from connect_runtime.api.record import SourceRecord
from connect_runtime.config.connector_config import ToleranceType
from connect_runtime.types import ConnectorTaskId

logger = logging.getLogger(__name__)

#: The first retry's delay; each further attempt doubles it.
RETRIES_DELAY_MIN_MS: Final = 300


class ToleranceExceeded(ConnectException):
    """A record's failure was not tolerated, retries included (Java's ``ConnectException`` of that
    message). Final even when caused by a retriable error: ``errors.retry.timeout`` has already been
    spent on it, so the worker does not restart the task as it restarts one Kafka's unavailability failed.
    """


class Stage(Enum):
    """Where in the record's processing an operation failed (the names the reference logs)."""

    TRANSFORMATION = "TRANSFORMATION"
    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"


class _Skip:
    def __repr__(self) -> str:
        return "SKIP"


#: Returned by :meth:`RetryWithToleranceOperator.failed` when the record is to be skipped.
SKIP: Final[Any] = _Skip()


class RetryWithToleranceOperator:
    """Retries, reports and tolerates (or not) the failures of one task's records."""

    def __init__(self, task_id: ConnectorTaskId | None = None, *, retry_timeout_ms: int = 0,
                 retry_max_delay_ms: int = 60000, tolerance: ToleranceType = ToleranceType.NONE,
                 log_errors: bool = False, log_messages: bool = False) -> None:
        self._task_id = task_id
        self._retry_timeout_ms = retry_timeout_ms
        self._max_delay_ms = retry_max_delay_ms
        self.tolerance = tolerance
        self._log_errors = log_errors
        self._log_messages = log_messages
        self._stop = threading.Event()
        # The reference's task-error-metrics, counted as its RetryWithToleranceOperator counts them (only
        # on the failure path: a record that succeeds costs nothing). Read by the task's metrics report.
        #: Failed attempts: each retriable error caught, plus the error a record finally failed with.
        self.failures = 0
        #: Records whose processing failed (skipped or not).
        self.errors = 0
        #: Records skipped because of a tolerated failure.
        self.skipped = 0
        #: Backoffs before another attempt.
        self.retries = 0
        #: Failures logged (``errors.log.enable``).
        self.logged = 0
        #: When the last failure happened, in epoch ms (0: never).
        self.last_error_ms = 0
        #: Seconds spent backing off and retrying records, in all: under exactly-once a record being
        #: retried holds its transaction open, which the task's error names when the broker expires it.
        self.retrying_s = 0.0

    @property
    def retry_timeout_ms(self) -> int:
        """``errors.retry.timeout``: how long a record is retried (-1: without end)."""
        return self._retry_timeout_ms

    def trigger_stop(self) -> None:
        """The task is stopping: end any backoff now and retry no more."""
        self._stop.set()

    def failed(self, stage: Stage, plugin: object, operation: Callable[..., Any], args: tuple[Any, ...],
               original: SourceRecord, error: Exception) -> Any:
        """``operation(*args)`` raised ``error``: its result after successful retries, or :data:`SKIP`.

        Raises :class:`ConnectException` ("Tolerance exceeded in error handler", caused by the last
        error) when the failure is not tolerated.
        """
        attempt = 1
        if isinstance(error, RetriableException):
            self.failures += 1
            if self._retry_timeout_ms != 0:
                start = time.monotonic()
                deadline = float("inf") if self._retry_timeout_ms < 0 else start + self._retry_timeout_ms / 1000.0
                try:
                    while time.monotonic() < deadline and not self._stop.is_set():
                        self._backoff(attempt, deadline)
                        self.retries += 1
                        if self._stop.is_set():
                            break
                        attempt += 1
                        try:
                            return operation(*args)
                        except RetriableException as e:
                            error = e
                            self.failures += 1
                        except Exception as e:
                            error = e
                            break
                finally:
                    self.retrying_s += time.monotonic() - start
        # As the reference: the error the record ends with counts once more, besides its retriable attempts.
        self.failures += 1
        self.errors += 1
        self.last_error_ms = time.time_ns() // 1_000_000
        if self._log_errors:
            self.logged += 1
            self._report(stage, plugin, original, error)
        if self.tolerance is not ToleranceType.ALL:
            raise ToleranceExceeded("Tolerance exceeded in error handler") from error
        self.skipped += 1
        return SKIP

    def sends_failed(self, count: int) -> None:
        """The producer failed to deliver ``count`` records and the task goes on without them
        (``errors.tolerance=all``). Counted as the reference's ``executeFailed`` counts a failed send within
        tolerance: a failure each, logged each with ``errors.log.enable``; not errors nor skipped records."""
        self.failures += count
        self.last_error_ms = time.time_ns() // 1_000_000
        if self._log_errors:
            self.logged += count

    def _backoff(self, attempt: int, deadline: float) -> None:
        delay_ms = RETRIES_DELAY_MIN_MS << min(attempt - 1, 40)
        if delay_ms > self._max_delay_ms:
            delay_ms = random.randrange(max(self._max_delay_ms, 1))
        delay_s = min(delay_ms / 1000.0, max(0.0, deadline - time.monotonic()))
        logger.debug("Sleeping for up to %s millis", int(delay_s * 1000))
        self._stop.wait(delay_s)

    def _report(self, stage: Stage, plugin: object, original: SourceRecord, error: Exception) -> None:
        """The reference's ``LogReporter.Source`` message, with the error's traceback."""
        cls = type(plugin)
        message = (f"Error encountered in task {self._task_id}. Executing stage '{stage.value}' with class "
                   f"'{cls.__module__}.{cls.__qualname__}'")
        if self._log_messages:
            message += f", where source record is = {original!r}"
        logger.error("%s.", message, exc_info=error)
