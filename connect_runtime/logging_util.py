"""Rate limiting for log lines that repeat while something outside the worker is broken.

When Kafka is unreachable every client of a worker (the readers of the three internal topics, the
shared producer, each task's producer, admin clients) reports the same failure again and again; a
30 s broker outage would write thousands of ERROR lines and bury the one line that matters.
The first occurrence of a message is always logged; repeats within ``interval_s`` are counted and
dropped; the next one after the interval is logged with the count of what was dropped, so the log
still says how long and how often the problem lasted.

Two ways to use it:

- :class:`RateLimitedLogger` wraps a logger for the loops of the runtime that retry (readers,
  heartbeats, status writes): ``RateLimitedLogger(logger, 30).warning("... %s", topic)``;
- :class:`RateLimitFilter` is a :class:`logging.Filter` for a logger whose lines the runtime does not
  write itself (librdkafka's, through ``connect_runtime.kafka_client``).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

#: One line per message template per 30 s after the first.
DEFAULT_INTERVAL_S = 30.0


class RateLimiter:
    """Decides, per key, whether an occurrence is logged; counts the ones that are not."""

    def __init__(self, interval_s: float = DEFAULT_INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        # key -> (time the last logged occurrence was let through, repeats suppressed since then)
        self._seen: dict[Hashable, tuple[float, int]] = {}

    def check(self, key: Hashable) -> int | None:
        """None when this occurrence must be dropped; otherwise how many were dropped before it."""
        now = self._clock()
        with self._lock:
            seen = self._seen.get(key)
            if seen is None or now - seen[0] >= self.interval_s:
                self._seen[key] = (now, 0)
                if len(self._seen) > 10_000:  # messages with unbounded variety: forget the oldest
                    oldest = min(self._seen, key=lambda k: self._seen[k][0])
                    del self._seen[oldest]
                return 0 if seen is None else seen[1]
            self._seen[key] = (seen[0], seen[1] + 1)
            return None

    def reset(self, key: Hashable) -> None:
        """Forget ``key``: its next occurrence is logged at once (e.g. after the problem cleared)."""
        with self._lock:
            self._seen.pop(key, None)


def _suppressed_suffix(count: int, interval_s: float) -> str:
    return f" ({count} similar message(s) suppressed in the last {interval_s:g} s)" if count else ""


class RateLimitedLogger:
    """A logger wrapper that rate-limits by (level, message template).

    The template (the format string before ``%`` arguments are applied) is the key, so the same
    failure with a different error text or offset still counts as a repeat.
    """

    def __init__(self, logger: logging.Logger, interval_s: float = DEFAULT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self._limiter = RateLimiter(interval_s, clock)

    def log(self, level: int, msg: str, *args: Any, key: Hashable = None, **kwargs: Any) -> bool:
        """Log unless rate-limited; returns whether the line was written. ``key`` overrides the
        template as the identity of the message (e.g. to rate-limit per topic)."""
        if not self.logger.isEnabledFor(level):
            return False
        suppressed = self._limiter.check((level, msg if key is None else key))
        if suppressed is None:
            return False
        kwargs.setdefault("stacklevel", 2)
        self.logger.log(level, msg + _suppressed_suffix(suppressed, self._limiter.interval_s).replace("%", "%%"),
                        *args, **kwargs)
        return True

    def reset(self, level: int, msg: str, key: Hashable = None) -> None:
        """The condition behind ``msg`` cleared: log its next occurrence at once."""
        self._limiter.reset((level, msg if key is None else key))

    def debug(self, msg: str, *args: Any, **kwargs: Any) -> bool:
        kwargs.setdefault("stacklevel", 3)
        return self.log(logging.DEBUG, msg, *args, **kwargs)

    def info(self, msg: str, *args: Any, **kwargs: Any) -> bool:
        kwargs.setdefault("stacklevel", 3)
        return self.log(logging.INFO, msg, *args, **kwargs)

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> bool:
        kwargs.setdefault("stacklevel", 3)
        return self.log(logging.WARNING, msg, *args, **kwargs)

    def error(self, msg: str, *args: Any, **kwargs: Any) -> bool:
        kwargs.setdefault("stacklevel", 3)
        return self.log(logging.ERROR, msg, *args, **kwargs)


_VARYING = re.compile(r"\d+")
#: librdkafka's own repeat counter, appended to a line that it also repeats.
_LIBRDKAFKA_REPEATS = re.compile(r",? ?\d+ identical error\(s\) suppressed")


def kafka_client_key(record: logging.LogRecord) -> Hashable:
    """The identity of a librdkafka log line: its facility and text with numbers blanked out.

    confluent-kafka logs every librdkafka line with one template (``"%s [%s] %s"``: facility, client
    name, text), so the template cannot tell lines apart; and the client name (``rdkafka#producer-7``)
    and numbers (broker ids, elapsed ms, counts of "identical errors suppressed") vary between
    repeats of the same failure reported by every client of the worker.
    """
    args = record.args
    if isinstance(args, tuple) and len(args) == 3 and record.msg == "%s [%s] %s":
        facility, _client, text = args
        return record.levelno, str(facility), _VARYING.sub("#", _LIBRDKAFKA_REPEATS.sub("", str(text)))
    return record.levelno, _VARYING.sub("#", record.getMessage())


def template_key(record: logging.LogRecord) -> Hashable:
    """Rate-limit by logger, level and message template."""
    return record.name, record.levelno, str(record.msg)


class RateLimitFilter(logging.Filter):
    """A :class:`logging.Filter` that lets the first occurrence of a message through, then at most one
    per ``interval_s`` with the count of the dropped repeats appended. Lines below ``min_level`` are
    never limited."""

    def __init__(self, interval_s: float = DEFAULT_INTERVAL_S, *, key: Callable[[logging.LogRecord], Hashable]
                 = template_key, min_level: int = logging.WARNING, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        super().__init__()
        self._limiter = RateLimiter(interval_s, clock)
        self._key = key
        self._min_level = min_level

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < self._min_level:
            return True
        suppressed = self._limiter.check(self._key(record))
        if suppressed is None:
            return False
        if suppressed:
            record.msg = record.getMessage() + _suppressed_suffix(suppressed, self._limiter.interval_s)
            record.args = None
        return True
