"""A reader's list-offsets request asks again for a partition whose answer is late (its cached leader was
killed), counts the first answer per partition, and fails a partition only once every request failed."""

from __future__ import annotations

from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any

import pytest
from confluent_kafka import KafkaException, TopicPartition

from connect_runtime.storage import kafka_log
from connect_runtime.storage.kafka_log import _EndOffsetsRequest

TP0, TP1 = TopicPartition("t", 0), TopicPartition("t", 1)


class _Sender:
    """Records each request's partitions and hands back futures the test completes."""

    def __init__(self) -> None:
        self.sent: list[dict[TopicPartition, Future[Any]]] = []

    def __call__(self, partitions: list[TopicPartition]) -> dict[TopicPartition, Future[Any]]:
        self.sent.append({tp: Future() for tp in partitions})
        return self.sent[-1]


def _answer(future: Future[Any], offset: int) -> None:
    future.set_result(SimpleNamespace(offset=offset))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr(kafka_log.time, "monotonic", lambda: now[0])
    return now


def test_a_late_partition_is_asked_again_and_its_first_answer_counts(clock: list[float]) -> None:
    send = _Sender()
    request = _EndOffsetsRequest(send, [TP0, TP1])
    _answer(send.sent[0][TP0], 5)
    assert request.offsets() is None and not request.late()

    clock[0] += kafka_log._END_OFFSETS_RESEND_S
    assert request.late()
    request.resend()
    assert list(send.sent[1]) == [TP1]  # only what is still unanswered
    _answer(send.sent[1][TP1], 7)
    assert request.offsets() == {0: 5, 1: 7}  # the first request's TP1 may wait its whole timeout


def test_resends_back_off_and_stop(clock: list[float]) -> None:
    send = _Sender()
    request = _EndOffsetsRequest(send, [TP0])
    waits = []
    while True:
        step = 0.0
        while not request.late() and step < 100:
            clock[0] += 0.5
            step += 0.5
        if step >= 100:
            break
        waits.append(step)
        request.resend()
    assert len(send.sent) == kafka_log._END_OFFSETS_MAX_SENDS
    assert waits == [kafka_log._END_OFFSETS_RESEND_S * 2 ** i for i in range(len(waits))]


def test_a_partition_fails_only_when_every_request_for_it_failed(clock: list[float]) -> None:
    send = _Sender()
    request = _EndOffsetsRequest(send, [TP0])
    clock[0] += kafka_log._END_OFFSETS_RESEND_S
    request.resend()
    send.sent[0][TP0].set_exception(KafkaException("the killed leader's answer"))
    assert request.offsets() is None  # the second request may still answer
    send.sent[1][TP0].set_exception(KafkaException("no leader"))
    with pytest.raises(KafkaException, match="no leader"):
        request.offsets()


def test_an_answer_after_a_failure_counts(clock: list[float]) -> None:
    send = _Sender()
    request = _EndOffsetsRequest(send, [TP0])
    clock[0] += kafka_log._END_OFFSETS_RESEND_S
    request.resend()
    _answer(send.sent[1][TP0], 3)
    send.sent[0][TP0].set_exception(KafkaException("timed out"))
    assert request.offsets() == {0: 3}


def test_a_resend_that_raises_waits_its_turn(clock: list[float]) -> None:
    send = _Sender()
    request = _EndOffsetsRequest(send, [TP0])
    clock[0] += kafka_log._END_OFFSETS_RESEND_S

    def broken(partitions: list[TopicPartition]) -> dict[TopicPartition, Future[Any]]:
        raise KafkaException("the admin client refused")

    request._send = broken
    with pytest.raises(KafkaException):
        request.resend()
    assert not request.late()  # the next try comes after the longer wait, not on the next loop
    _answer(send.sent[0][TP0], 1)
    assert request.offsets() == {0: 1}


def test_a_request_still_unanswered_at_its_deadline_fails_so_that_the_reader_asks_anew(clock: list[float]) -> None:
    """Every request went to a dead leader: rather than wait for the last one's own timeout (up to 14 s +
    30 s after the first), the whole request fails at the first one's and the reader starts over."""
    send = _Sender()
    request = _EndOffsetsRequest(send, [TP0])
    while request.late() or clock[0] < 100 + kafka_log._END_OFFSETS_DEADLINE_S - 1:
        if request.late():
            request.resend()
        clock[0] += 0.5
        assert request.offsets() is None
    clock[0] = 100 + kafka_log._END_OFFSETS_DEADLINE_S
    with pytest.raises(TimeoutError):
        request.offsets()


class _AnsweredWhileLookedAt(Future[Any]):
    """Pending when first asked whether it is done, and answered by then: the client's thread completed it."""

    def done(self) -> bool:
        was_done = super().done()
        if not was_done:
            self.set_result(SimpleNamespace(offset=4))
        return was_done


def test_an_answer_that_arrives_while_it_is_checked_counts_at_the_next_check(clock: list[float]) -> None:
    request = _EndOffsetsRequest(lambda partitions: {tp: _AnsweredWhileLookedAt() for tp in partitions}, [TP0])
    assert request.offsets() is None  # pending when looked at: not yet an answer, nor a failure
    assert request.offsets() == {0: 4}
