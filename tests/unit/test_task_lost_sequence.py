"""A broker restart moves partition leaders while batches are in flight, and the broker may lose track of a
transactional producer's sequence numbers (OUT_OF_ORDER_SEQUENCE_NUMBER, "requires epoch bump"): the
transaction fails, or librdkafka fails the producer instance and refuses sends with ``_FATAL``. An
exactly-once task then fails as a *transient* failure, which the worker restarts on its own with a new
producer (its ``init_transactions`` aborts what is left): found by the nemesis in a rolling broker restart,
where two tasks stayed FAILED until a REST restart. A fenced producer stays a final failure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from task_loop_setup import ScriptedTask, task_setup

from connect_runtime.api import SourceRecord
from connect_runtime.clients import is_transient
from connect_runtime.testing.fakes import FakeProducer, FakeStatusListener
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask


def _lost_sequence(fatal: bool = False) -> KafkaException:
    return KafkaException(KafkaError(KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER, "skipped sequence numbers",
                                     fatal=fatal, txn_requires_abort=not fatal))


def _fenced() -> KafkaException:
    return KafkaException(KafkaError(KafkaError._FENCED, "fenced by newer producer instance", fatal=True))


class _FailingCommit(FakeProducer):
    """Every commit fails with ``error``."""

    def __init__(self, events: list[str], error: KafkaException) -> None:
        super().__init__(events)
        self.error = error

    def commit_transaction(self, timeout: float) -> None:
        raise self.error


class _FatalProducer(_FailingCommit):
    """A producer instance librdkafka has failed: sends are refused with ``_FATAL``, and a commit reports
    the fatal error behind it (``error``)."""

    def produce(self, topic: str, value: Any = None, key: Any = None, *args: Any, **kwargs: Any) -> None:
        raise KafkaException(KafkaError(KafkaError._FATAL, "Unable to produce message: Local: Fatal error"))


def _fail(producer: Callable[[list[str]], FakeProducer]) -> tuple[str, bool, list[str]]:
    """Run a one-record task on ``producer(events)`` until it fails: its trace, whether the failure is
    transient, and the events (producer calls and states) in order."""
    events: list[str] = []
    statuses = FakeStatusListener(events)
    record = SourceRecord({"p": 0}, {"o": 1}, "data", value=1)
    setup = task_setup(ScriptedTask([[record]]), statuses=statuses, producer=producer(events))
    ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)._run()
    [(trace, transient)] = statuses.failures
    return trace, transient, events


def test_a_lost_sequence_is_transient_abortable_or_fatal() -> None:
    assert is_transient(_lost_sequence())
    assert is_transient(_lost_sequence(fatal=True))
    assert not is_transient(_fenced())


def test_a_commit_that_lost_its_sequence_fails_the_task_for_a_restart() -> None:
    trace, transient, events = _fail(lambda events: _FailingCommit(events, _lost_sequence()))
    assert transient, trace
    assert "skipped sequence numbers" in trace and "restarted with a new producer" in trace, trace
    assert "before its producer transaction expired" not in trace  # not a timeout
    assert events.index("abort") < events.index("FAILED")


def test_a_producer_failed_by_a_lost_sequence_fails_the_task_for_a_restart() -> None:
    trace, transient, _ = _fail(lambda events: _FatalProducer(events, _lost_sequence(fatal=True)))
    assert transient, trace
    assert "skipped sequence numbers" in trace, trace


def test_a_fenced_producer_stays_failed() -> None:
    trace, transient, _ = _fail(lambda events: _FatalProducer(events, _fenced()))
    assert not transient, trace
    assert "fenced by newer producer instance" in trace, trace


class _FencedMeanwhile(_FailingCommit):
    """The commit lost its sequence, and by the time the task aborts, a successor has fenced it."""

    def abort_transaction(self, timeout: float) -> None:
        self.events.append("abort")
        raise KafkaException(KafkaError(KafkaError.PRODUCER_FENCED, "fenced by the successor", fatal=True))


def test_a_lost_sequence_whose_abort_finds_the_producer_fenced_stays_failed() -> None:
    """A successor already runs: restarting this instance would fence it back."""
    trace, transient, _ = _fail(lambda events: _FencedMeanwhile(events, _lost_sequence()))
    assert not transient, trace
    assert "fenced by the successor" in trace and "skipped sequence numbers" in trace, trace
