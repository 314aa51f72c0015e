"""Rate-limited logging: first occurrence at once, then one line per interval with a count."""

from __future__ import annotations

import logging

import pytest

from connect_runtime.logging_util import RateLimitedLogger, RateLimiter, RateLimitFilter, kafka_client_key


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_limiter_first_then_once_per_interval_with_the_suppressed_count() -> None:
    clock = _Clock()
    limiter = RateLimiter(10.0, clock)
    assert limiter.check("k") == 0
    assert [limiter.check("k") for _ in range(5)] == [None] * 5
    assert limiter.check("other") == 0  # keys are independent
    clock.now += 9.9
    assert limiter.check("k") is None
    clock.now += 0.1
    assert limiter.check("k") == 6
    assert limiter.check("k") is None
    limiter.reset("k")
    assert limiter.check("k") == 0


def test_rate_limited_logger_keys_on_the_template(caplog: pytest.LogCaptureFixture) -> None:
    clock = _Clock()
    log = RateLimitedLogger(logging.getLogger("test.rl"), 30.0, clock)
    with caplog.at_level(logging.INFO, logger="test.rl"):
        assert log.warning("reader of %s failed: %s", "configs", "_TRANSPORT")
        for i in range(100):
            assert not log.warning("reader of %s failed: %s", "configs", f"error {i}")
        assert log.info("something else %d", 1)  # another template (and level)
        clock.now += 30
        assert log.warning("reader of %s failed: %s", "configs", "_NOENT")
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "reader of configs failed: _TRANSPORT",
        "something else 1",
        "reader of configs failed: _NOENT (100 similar message(s) suppressed in the last 30 s)",
    ]


def test_rate_limited_logger_with_an_explicit_key_and_percent_in_args(caplog: pytest.LogCaptureFixture) -> None:
    clock = _Clock()
    log = RateLimitedLogger(logging.getLogger("test.rl2"), 5.0, clock)
    with caplog.at_level(logging.WARNING, logger="test.rl2"):
        log.warning("a %s", "100%", key="k")
        log.warning("b %s", "x", key="k")  # same key, other text: a repeat
        clock.now += 5
        log.warning("c %s", "50%", key="k")
    assert [r.getMessage() for r in caplog.records] == [
        "a 100%", "c 50% (1 similar message(s) suppressed in the last 5 s)"]


def _librdkafka_record(level: int, client: str, text: str) -> logging.LogRecord:
    # confluent-kafka logs every librdkafka line as logger.log(level, "%s [%s] %s", fac, name, text)
    return logging.LogRecord("connect_runtime.kafka_client", level, __file__, 1, "%s [%s] %s",
                             ("FAIL", client, text), None)


def test_filter_groups_librdkafka_lines_across_clients_and_numbers() -> None:
    clock = _Clock()
    flt = RateLimitFilter(30.0, key=kafka_client_key, clock=clock)
    first = _librdkafka_record(logging.ERROR, "rdkafka#consumer-3",
                               "127.0.0.1:5/bootstrap: Connect to ipv4#127.0.0.1:5 failed: Connection refused "
                               "(after 0ms in state CONNECT)")
    assert flt.filter(first)
    repeats = [_librdkafka_record(logging.ERROR, f"rdkafka#producer-{i}",
                                  f"127.0.0.1:5/bootstrap: Connect to ipv4#127.0.0.1:5 failed: Connection refused "
                                  f"(after {i}ms in state CONNECT, {i} identical error(s) suppressed)")
               for i in range(50)]
    assert not any(flt.filter(r) for r in repeats)
    other = _librdkafka_record(logging.ERROR, "rdkafka#consumer-3", "1/1 brokers are down")
    assert flt.filter(other)
    clock.now += 30
    last = _librdkafka_record(logging.ERROR, "rdkafka#consumer-9",
                              "127.0.0.1:5/bootstrap: Connect to ipv4#127.0.0.1:5 failed: Connection refused "
                              "(after 1ms in state CONNECT)")
    assert flt.filter(last)
    assert last.getMessage().endswith("(50 similar message(s) suppressed in the last 30 s)")
    assert last.getMessage().startswith("FAIL [rdkafka#consumer-9] ")


def test_filter_leaves_lines_below_its_level_alone() -> None:
    flt = RateLimitFilter(30.0, clock=_Clock())
    rec = logging.LogRecord("x", logging.INFO, __file__, 1, "same %s", ("line",), None)
    assert all(flt.filter(rec) for _ in range(10))
