"""A broker restart moves partition leaders while batches are in flight, and the broker may lose track of a
transactional producer's sequence numbers (OUT_OF_ORDER_SEQUENCE_NUMBER, "requires epoch bump"): found by the
nemesis in a rolling broker restart, where two tasks stayed FAILED until a REST restart.

librdkafka makes that an abortable error whose abort bumps the producer's epoch: the task aborts, and goes on
RUNNING from its last committed offsets with a new instance of its plugin (a rewind). Where it cannot (librdkafka
failed the producer instance, the abort failed, or it keeps happening) the task fails as a *transient* failure,
which the worker restarts on its own with a new producer. A fenced producer stays a final failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from task_loop_setup import task_setup

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.clients import is_transient
from connect_runtime.testing.fakes import FakeProducer, FakeStatusListener
from connect_runtime.worker.exactly_once_source_task import (
    ConnectorBoundaryWorkerSourceTask,
    ExactlyOnceWorkerSourceTask,
)
from connect_runtime.worker.source_task_base import MAX_REWINDS


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


class _Numbers(SourceTask):
    """Each poll returns the next number as one record (offset ``{"n": n}``), counting on from the offset its
    instance started at; instances and their events are kept in ``log``. After ``stop_after`` records in all,
    it stops the task loop ``loop``."""

    log: list[str] = []
    instances: list[_Numbers] = []
    committed_n = 0  # what a new instance starts from: the fake offset store keeps nothing
    stop_after = 1_000_000
    loop: ExactlyOnceWorkerSourceTask | None = None

    def __init__(self) -> None:
        self.n = 0
        type(self).instances.append(self)

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.n = type(self).committed_n
        self.log.append(f"start {len(self.instances)}")

    def poll(self) -> list[SourceRecord]:
        self.n += 1
        if sum(1 for e in self.log if e.startswith("poll")) + 1 >= self.stop_after and self.loop is not None:
            self.loop.stop()
        self.log.append(f"poll {self.n}")
        return [SourceRecord({"p": 0}, {"n": self.n}, "data", value=self.n)]

    def commit(self) -> None:
        type(self).committed_n = self.n

    def stop(self) -> None:
        self.log.append(f"stop {len(self.instances)}")


def _numbers(stop_after: int = 1_000_000) -> type[_Numbers]:
    class Numbers(_Numbers):
        log: list[str] = []
        instances: list[_Numbers] = []
        committed_n = 0

    Numbers.stop_after = stop_after
    return Numbers


def _run(producer: Callable[[list[str]], FakeProducer], plugin: type[_Numbers] | None = None,
         loop_class: type[ExactlyOnceWorkerSourceTask] = ExactlyOnceWorkerSourceTask,
         ) -> tuple[FakeStatusListener, list[str], type[_Numbers]]:
    """Run a task of ``plugin`` (numbers) on ``producer(events)`` until it fails or stops: its statuses, and the
    events (producer calls and states) in order."""
    plugin = plugin or _numbers()
    events: list[str] = []
    statuses = FakeStatusListener(events)
    setup = task_setup(plugin(), statuses=statuses, producer=producer(events))
    loop = loop_class(setup, fence=lambda: None, verify_generation=lambda: None)
    plugin.loop = loop
    loop._run()
    return statuses, events, plugin


def _fail(producer: Callable[[list[str]], FakeProducer]) -> tuple[str, bool, list[str]]:
    """Run a task on ``producer(events)`` until it fails: its trace, whether the failure is transient, and the
    events in order."""
    statuses, events, _ = _run(producer)
    [(trace, transient)] = statuses.failures
    return trace, transient, events


def test_a_lost_sequence_is_transient_abortable_or_fatal() -> None:
    assert is_transient(_lost_sequence())
    assert is_transient(_lost_sequence(fatal=True))
    assert not is_transient(_fenced())


class _LosesSequenceOnce(FakeProducer):
    """The first commit fails with a lost sequence (abortable); the abort succeeds, and so does the rest."""

    def __init__(self, events: list[str]) -> None:
        super().__init__(events)
        self.failed = False

    def commit_transaction(self, timeout: float) -> None:
        if not self.failed:
            self.failed = True
            raise _lost_sequence()
        super().commit_transaction(timeout)


def test_a_commit_that_lost_its_sequence_rewinds_to_the_committed_offsets_and_stays_running() -> None:
    statuses, events, plugin = _run(_LosesSequenceOnce, _numbers(stop_after=3))
    assert not statuses.failures, statuses.failures
    assert "FAILED" not in events and events[0] == "RUNNING", events
    assert events.count("RUNNING") == 1, events  # no new start-up: RUNNING throughout
    # The first instance polled 1, whose transaction was aborted; it is stopped, and a new instance starts from
    # the committed offsets (none yet), so it polls 1 again.
    assert plugin.log == ["start 1", "poll 1", "stop 1", "start 2", "poll 1", "poll 2", "stop 2"], plugin.log
    assert plugin.committed_n == 2
    assert events.index("abort") < events.index("commit"), events


def test_a_lost_sequence_in_every_commit_fails_the_task_for_a_restart() -> None:
    trace, transient, events = _fail(lambda events: _FailingCommit(events, _lost_sequence()))
    assert transient, trace
    assert f"({MAX_REWINDS} times in a row)" in trace and "skipped sequence numbers" in trace, trace
    assert "before its producer transaction expired" not in trace  # not a timeout
    # Each of the MAX_REWINDS + 1 failed commits is aborted, then the failing task closes its producer.
    assert events.count("abort") == MAX_REWINDS + 2, events
    assert events.index("abort") < events.index("FAILED")


class _AbortFails(_FailingCommit):
    """The commit lost its sequence and the abort that should bump the epoch times out."""

    def abort_transaction(self, timeout: float) -> None:
        self.events.append("abort")
        raise KafkaException(KafkaError(KafkaError._TIMED_OUT, "abort timed out"))


def test_a_lost_sequence_whose_abort_fails_fails_the_task_for_a_restart() -> None:
    trace, transient, _ = _fail(lambda events: _AbortFails(events, _lost_sequence()))
    assert transient, trace
    assert "skipped sequence numbers" in trace and "restarted with a new producer" in trace, trace
    assert "times in a row" not in trace, trace


class _StateOnSendOnce(FakeProducer):
    """The broker lost the sequence of an earlier batch: librdkafka refuses the next send with ``_STATE``, and a
    commit reports why; the abort succeeds, and the producer goes on."""

    def __init__(self, events: list[str]) -> None:
        super().__init__(events)
        self.failed = False

    def produce(self, topic: str, value: Any = None, key: Any = None, *args: Any, **kwargs: Any) -> None:
        if not self.failed:
            raise KafkaException(KafkaError(KafkaError._STATE, "Unable to produce message: Local: Erroneous state"))
        super().produce(topic, value, key, *args, **kwargs)

    def commit_transaction(self, timeout: float) -> None:
        if not self.failed:
            self.failed = True
            raise _lost_sequence()
        super().commit_transaction(timeout)


def test_a_send_refused_for_a_lost_sequence_rewinds() -> None:
    """The nemesis's case: the failure shows on ``produce``, not on the commit."""
    statuses, events, plugin = _run(_StateOnSendOnce, _numbers(stop_after=2))
    assert not statuses.failures, statuses.failures
    assert plugin.log == ["start 1", "poll 1", "stop 1", "start 2", "poll 1", "stop 2"], plugin.log
    assert "FAILED" not in events, events


def test_a_rewind_gives_the_new_instance_a_fresh_transaction_context() -> None:
    """transaction.boundary=connector: a commit the stopped instance asked for does not carry over."""
    contexts: list[Any] = []

    class Asking(_numbers(stop_after=3)):  # type: ignore[misc]
        def poll(self) -> list[SourceRecord]:
            records = super().poll()
            contexts.append(self.context.transaction_context)
            if len(contexts) == 1:
                self.context.transaction_context.commit_transaction(records[0])
            return records

    statuses, events, plugin = _run(_LosesSequenceOnce, Asking, ConnectorBoundaryWorkerSourceTask)
    assert not statuses.failures, statuses.failures
    assert contexts[0] is not contexts[1] and contexts[1] is contexts[2]
    assert plugin.committed_n == 0  # the new instance never asked for a commit: nothing committed but the last
    assert "FAILED" not in events, events


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
