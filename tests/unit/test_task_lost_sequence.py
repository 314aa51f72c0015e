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
from concurrent.futures import Future
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException
from task_loop_setup import task_setup

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.clients import is_transient
from connect_runtime.testing.fakes import FakeOffsetStore, FakeProducer, FakeStatusListener
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
    instance started at; instances and their events are kept in ``log``. After ``stop_after`` polls in all,
    it stops the task loop ``loop``; every ``idle_every``-th poll returns None."""

    log: list[str] = []
    instances: list[_Numbers] = []
    committed_n = 0  # the offset of the last record whose transaction committed (``commit``)
    visible_n = 0  # what the task's offset reader shows: committed_n as of the last read to the end
    stop_after = 1_000_000
    idle_every = 0
    loop: ExactlyOnceWorkerSourceTask | None = None

    def __init__(self) -> None:
        self.n = 0
        type(self).instances.append(self)

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.n = type(self).visible_n
        self.log.append(f"start {len(self.instances)}")

    def poll(self) -> list[SourceRecord] | None:
        polls = sum(1 for e in self.log if e.startswith("poll")) + 1
        if polls >= self.stop_after and self.loop is not None:
            self.loop.stop()
        if self.idle_every and polls % self.idle_every == 0:
            self.log.append("poll None")
            return None
        self.n += 1
        self.log.append(f"poll {self.n}")
        return [SourceRecord({"p": 0}, {"n": self.n}, "data", value=self.n)]

    def commit(self) -> None:
        type(self).committed_n = self.n

    def stop(self) -> None:
        self.log.append(f"stop {len(self.instances)}")


def _numbers(stop_after: int = 1_000_000, idle_every: int = 0) -> type[_Numbers]:
    class Numbers(_Numbers):
        log: list[str] = []
        instances: list[_Numbers] = []
        committed_n = 0
        visible_n = 0

    Numbers.stop_after = stop_after
    Numbers.idle_every = idle_every
    return Numbers


class _LaggingOffsets(FakeOffsetStore):
    """The task's offsets as its plugin sees them: what was committed as of the last read to the end (the
    store's background reader is always behind)."""

    def __init__(self, plugin: type[_Numbers]) -> None:
        super().__init__()
        self.plugin = plugin

    def read_to_end(self) -> Future[None]:
        self.plugin.visible_n = self.plugin.committed_n
        self.plugin.log.append("read offsets")
        return super().read_to_end()


def _run(producer: Callable[[list[str]], FakeProducer], plugin: type[_Numbers] | None = None,
         loop_class: type[ExactlyOnceWorkerSourceTask] = ExactlyOnceWorkerSourceTask,
         ) -> tuple[FakeStatusListener, list[str], type[_Numbers]]:
    """Run a task of ``plugin`` (numbers) on ``producer(events)`` until it fails or stops: its statuses, and the
    events (producer calls and states) in order."""
    plugin = plugin or _numbers()
    events: list[str] = []
    statuses = FakeStatusListener(events)
    setup = task_setup(plugin(), statuses=statuses, producer=producer(events), offset_store=_LaggingOffsets(plugin))
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
    """Commit number ``at`` (from 1) fails with a lost sequence (abortable); the abort succeeds, and so does
    every other commit."""

    def __init__(self, events: list[str], at: int = 1) -> None:
        super().__init__(events)
        self.at = at
        self.commits = 0

    def commit_transaction(self, timeout: float) -> None:
        self.commits += 1
        if self.commits == self.at:
            raise _lost_sequence()
        super().commit_transaction(timeout)


def test_a_commit_that_lost_its_sequence_rewinds_to_the_committed_offsets_and_stays_running() -> None:
    statuses, events, plugin = _run(lambda events: _LosesSequenceOnce(events, at=2), _numbers(stop_after=4))
    assert not statuses.failures, statuses.failures
    assert "FAILED" not in events and events[0] == "RUNNING", events
    assert events.count("RUNNING") == 1, events  # no new start-up: RUNNING throughout
    # The first instance's 1 committed, its 2 was aborted: it is stopped, the offsets are read to the end, and a
    # new instance starts from what was committed, 1, so it polls 2 again.
    assert plugin.log == ["read offsets", "start 1", "poll 1", "poll 2", "stop 1",
                          "read offsets", "start 2", "poll 2", "poll 3", "stop 2"], plugin.log
    assert plugin.committed_n == 3
    # One abort between the first and the second commit; the other is the clean stop's, which aborts nothing.
    assert events.count("commit") == 3 and events.count("abort") == 2, events
    assert events.index("commit") < events.index("abort") < events.index("commit", events.index("commit") + 1)


def test_an_empty_commit_does_not_reset_the_count_of_rewinds() -> None:
    """A source that polls nothing between two lost sequences still fails after MAX_REWINDS of them."""
    statuses, _, plugin = _run(lambda events: _FailingCommit(events, _lost_sequence()),
                                    _numbers(stop_after=40, idle_every=2))
    [(trace, transient)] = statuses.failures
    assert transient and f"({MAX_REWINDS} times in a row)" in trace, trace
    assert len(plugin.instances) == MAX_REWINDS + 1, plugin.log


class _StopDuringAbort(_FailingCommit):
    """The commit lost its sequence, and the task is asked to stop while its abort runs."""

    loop: ExactlyOnceWorkerSourceTask | None = None

    def abort_transaction(self, timeout: float) -> None:
        super().abort_transaction(timeout)
        if self.loop is not None:
            self.loop.stop()


def test_a_task_stopped_while_aborting_starts_no_new_instance() -> None:
    plugin = _numbers()
    producers: list[_StopDuringAbort] = []

    def producer(events: list[str]) -> FakeProducer:
        producers.append(_StopDuringAbort(events, _lost_sequence()))
        return producers[0]

    events: list[str] = []
    statuses = FakeStatusListener(events)
    setup = task_setup(plugin(), statuses=statuses, producer=producer(events), offset_store=_LaggingOffsets(plugin))
    loop = ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    producers[0].loop = loop
    loop._run()
    assert plugin.log == ["read offsets", "start 1", "poll 1", "stop 1"], plugin.log
    assert not statuses.failures and "FAILED" not in events, events


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


class _StateOnOffsetsOnce(_StateOnSendOnce):
    """The sequence was lost while the data records went out: librdkafka refuses the commit's offsets record
    (the 3-broker nemesis, a rolling restart)."""

    def produce(self, topic: str, value: Any = None, key: Any = None, *args: Any, **kwargs: Any) -> None:
        if topic == "offsets":
            super().produce(topic, value, key, *args, **kwargs)
        else:
            FakeProducer.produce(self, topic, value, key, *args, **kwargs)


@pytest.mark.parametrize("producer", [_StateOnSendOnce, _StateOnOffsetsOnce], ids=["a record", "the offsets"])
def test_a_send_refused_for_a_lost_sequence_rewinds(producer: Callable[[list[str]], FakeProducer]) -> None:
    """The nemesis's cases: the failure shows on ``produce`` of a record, or of the commit's offsets record."""
    statuses, events, plugin = _run(producer, _numbers(stop_after=2))
    assert not statuses.failures, statuses.failures
    assert plugin.log == ["read offsets", "start 1", "poll 1", "stop 1",
                          "read offsets", "start 2", "poll 1", "stop 2"], plugin.log
    assert "FAILED" not in events, events


def test_a_rewind_gives_the_new_instance_a_fresh_transaction_context() -> None:
    """transaction.boundary=connector: a commit the stopped instance asked for does not carry over."""

    class Asking(_numbers(stop_after=3)):  # type: ignore[misc]
        def poll(self) -> list[SourceRecord] | None:
            records = super().poll()
            if len(self.instances) == 1 and records:
                # A commit after this record, which loses its sequence, and one after the batch, left pending.
                self.context.transaction_context.commit_transaction(records[0])
                self.context.transaction_context.commit_transaction()
            return records

    statuses, events, plugin = _run(_LosesSequenceOnce, Asking, ConnectorBoundaryWorkerSourceTask)
    assert not statuses.failures, statuses.failures
    assert plugin.log == ["read offsets", "start 1", "poll 1", "stop 1",
                          "read offsets", "start 2", "poll 1", "poll 2", "stop 2"], plugin.log
    # The new instance never asked for a commit, and the stopped one's batch request died with it.
    assert events.count("commit") == 0 and plugin.committed_n == 0, events
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
