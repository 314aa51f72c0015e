"""``kafka_clients.init_transactions``: a broker connection first, so that librdkafka finds the transaction
coordinator at once rather than on its 500 ms retry timer (which made one planned handoff in three take
half a second longer). Pure logic: a fake producer records the calls."""

from __future__ import annotations

from typing import Any, cast

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer

from connect_runtime.api.kafka_clients import init_transactions


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Producer:
    """Its metadata request fails after its whole timeout when ``metadata_fails`` (no broker answers)."""

    def __init__(self, clock: _Clock, metadata_fails: bool = False) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.clock = clock
        self.metadata_fails = metadata_fails

    def list_topics(self, topic: str | None = None, timeout: float = -1) -> object:
        self.calls.append(("list_topics", timeout))
        if self.metadata_fails:
            self.clock.now += timeout
            raise KafkaException(KafkaError(KafkaError._TRANSPORT))
        return object()

    def init_transactions(self, timeout: float) -> None:
        self.calls.append(("init_transactions", timeout))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr("connect_runtime.api.kafka_clients.time.monotonic", fake)
    return fake


def test_a_connection_is_up_before_the_coordinator_is_looked_up(clock: _Clock) -> None:
    producer = _Producer(clock)
    init_transactions(cast(Producer, producer), 30.0)
    assert [c[0] for c in producer.calls] == ["list_topics", "init_transactions"]
    assert producer.calls[0][1] == 1.0


@pytest.mark.parametrize("timeout_s", [0.5, 60.0])
def test_both_calls_share_the_caller_s_timeout(clock: _Clock, timeout_s: float) -> None:
    producer = _Producer(clock, metadata_fails=True)
    init_transactions(cast(Producer, producer), timeout_s)
    metadata_s, init_s = producer.calls[0][1], producer.calls[1][1]
    assert metadata_s == min(1.0, timeout_s / 2)
    assert metadata_s + init_s == pytest.approx(timeout_s)


def test_a_failed_metadata_request_leaves_the_error_to_init_transactions(clock: _Clock) -> None:
    producer = _Producer(clock, metadata_fails=True)
    init_transactions(cast(Producer, producer), 30.0)
    assert producer.calls[-1][0] == "init_transactions"
