"""A reader that does not find its topic at start looks again until the missing-topic grace has passed,
and gives back its consumer however the start ends."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace
from typing import Any, cast

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from connect_runtime.storage import kafka_log
from connect_runtime.storage.kafka_log import KafkaBasedLog
from connect_runtime.testing import wait_until


class _Consumer:
    """A consumer whose broker never has the topic (or fails every metadata request with ``error``)."""

    made: list[_Consumer] = []

    def __init__(self, conf: dict[str, Any], error: Exception | None = None) -> None:
        self.error, self.lookups, self.closed = error, 0, False
        _Consumer.made.append(self)

    def list_topics(self, topic: str, timeout: float) -> Any:
        self.lookups += 1
        if self.error is not None:
            raise self.error
        return SimpleNamespace(topics={})

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def consumers(monkeypatch: pytest.MonkeyPatch) -> list[_Consumer]:
    _Consumer.made = []
    monkeypatch.setattr(kafka_log, "Consumer", _Consumer)
    return _Consumer.made


def _log(grace_s: float) -> KafkaBasedLog:
    return KafkaBasedLog("connect-status", {"bootstrap.servers": "b:9092"}, cast(AdminClient, None),
                         lambda *record: None, missing_topic_grace_s=grace_s)


def test_a_topic_that_never_appears_fails_the_start_once_the_grace_has_passed(consumers: list[_Consumer]) -> None:
    began = time.monotonic()
    with pytest.raises(KafkaException, match="Topic connect-status has no partitions or does not exist"):
        _log(grace_s=0.5).start(timeout_s=10)
    assert time.monotonic() - began >= 0.5
    assert consumers[0].lookups > 1 and consumers[0].closed


def test_a_log_stopped_while_it_looks_for_its_topic_stops_looking(consumers: list[_Consumer]) -> None:
    log = _log(grace_s=60)
    errors: list[BaseException] = []

    def start() -> None:
        try:
            log.start(timeout_s=60)
        except BaseException as e:
            errors.append(e)

    starting = threading.Thread(target=start, daemon=True)
    starting.start()
    wait_until(lambda: consumers and consumers[0].lookups >= 1, 10, message="the first look-up")
    log.stop()
    wait_until(lambda: not starting.is_alive(), 5, message="the start to give up")
    assert len(errors) == 1 and "stopped" in str(errors[0])
    assert consumers[0].closed


def test_a_failed_look_up_closes_the_consumer(monkeypatch: pytest.MonkeyPatch, consumers: list[_Consumer]) -> None:
    monkeypatch.setattr(kafka_log, "Consumer", lambda conf: _Consumer(conf, KafkaException("timed out")))
    with pytest.raises(KafkaException, match="timed out"):
        _log(grace_s=0.5).start(timeout_s=1)
    assert consumers[0].closed
