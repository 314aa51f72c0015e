"""``clients.init_transactions``: a broker connection first, so that librdkafka finds the transaction
coordinator at once rather than on its 500 ms retry timer (which made one planned handoff in three take
half a second longer). Pure logic: a fake producer records the calls."""

from __future__ import annotations

from typing import Any, cast

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer

from connect_runtime.clients import init_transactions


class _Producer:
    def __init__(self, metadata_fails: bool = False) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.metadata_fails = metadata_fails

    def list_topics(self, topic: str | None = None, timeout: float = -1) -> object:
        self.calls.append(("list_topics", timeout))
        if self.metadata_fails:
            raise KafkaException(KafkaError(KafkaError._TRANSPORT))
        return object()

    def init_transactions(self, timeout: float) -> None:
        self.calls.append(("init_transactions", timeout))


def test_a_connection_is_up_before_the_coordinator_is_looked_up() -> None:
    producer = _Producer()
    init_transactions(cast(Producer, producer), 30.0)
    assert producer.calls == [("list_topics", 5.0), ("init_transactions", 30.0)]


@pytest.mark.parametrize("timeout_s", [0.5, 60.0])
def test_the_metadata_request_never_outlasts_the_caller_s_timeout(timeout_s: float) -> None:
    producer = _Producer()
    init_transactions(cast(Producer, producer), timeout_s)
    assert producer.calls[0] == ("list_topics", min(timeout_s, 5.0))


def test_a_failed_metadata_request_leaves_the_error_to_init_transactions() -> None:
    producer = _Producer(metadata_fails=True)
    init_transactions(cast(Producer, producer), 30.0)
    assert producer.calls[-1] == ("init_transactions", 30.0)
