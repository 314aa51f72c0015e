"""The exactly-once task loop polls its next batch while the previous transaction commits (poll and
interval boundaries), on a real broker, in-process: the commit runs on the task's commit thread, the
plugin is polled on the task's thread meanwhile, and no record of the new batch reaches the producer
before the commit returned. A failed commit drops the batch polled meanwhile unsent and fails the task
with the usual message; a plugin with its own ``commit()`` is never polled before it was called.

The producer is a subclass of confluent-kafka's that records what the loop did with it; its
``commit_transaction`` waits (briefly) for the plugin's next poll to start, which only an overlapping
loop can do within the wait.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.clients import producer_config
from connect_runtime.config.connector_config import TransactionBoundary
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.storage.offset_store import (
    ConnectorOffsetBackingStore,
    ConnectorOffsetReader,
    KafkaOffsetBackingStore,
)
from connect_runtime.testing.cluster import read_committed, wait_until
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask, eos_producer_config
from connect_runtime.worker.source_task_base import TaskSetup

pytestmark = pytest.mark.kafka

CONNECTOR = "overlap"
BATCH = 10
#: How long the first commit waits for the next poll to start (an overlapping loop starts it at once).
OVERLAP_WAIT_S = 5.0
#: The same where the next poll must not start during the commit (the wait then always runs out).
NO_OVERLAP_WAIT_S = 1.0


class _Log:
    """What happened, in order, from every thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, int]] = []
        self.poll_started = threading.Event()

    def add(self, what: str, n: int = 0) -> None:
        with self.lock:
            self.events.append((what, n))

    def snapshot(self) -> list[tuple[str, int]]:
        with self.lock:
            return list(self.events)


class _WatchedProducer(Producer):
    """A real transactional producer that logs data records, commit starts and ends; the first commit
    waits up to OVERLAP_WAIT_S for a poll to start, and with ``fence_first`` the first commit is fenced
    (another producer with the same transactional id initialises transactions) so that it fails."""

    log: _Log
    data_topic: str
    fence_conf: dict[str, Any] | None
    commits: int
    overlap_wait_s: float

    def produce(self, topic: str, *args: Any, **kwargs: Any) -> None:
        if topic == self.data_topic:
            value = args[0] if args else kwargs["value"]
            self.log.add("produce", json.loads(value))
        super().produce(topic, *args, **kwargs)

    def commit_transaction(self, *args: Any) -> None:
        self.commits += 1
        first = self.commits == 1
        self.log.add("commit-start")
        if first:
            self.log.poll_started.clear()
            self.log.add("poll-during-commit", int(self.log.poll_started.wait(self.overlap_wait_s)))
            if self.fence_conf is not None:
                fencer = Producer(self.fence_conf)
                fencer.init_transactions(30)
        try:
            super().commit_transaction(*args)
        finally:
            self.log.add("commit-end")


class _Batches(SourceTask):
    """Polls batches of BATCH records with consecutive seqnos, ``batches`` of them, then nothing. With
    ``block_poll`` (a batch number), that poll waits until ``stop`` or ``release`` before it returns; with
    ``fail_poll`` that poll raises."""

    def __init__(self, log: _Log, topic: str, batches: int, *, block_poll: int = 0, fail_poll: int = 0) -> None:
        self.log = log
        self.topic = topic
        self.batches = batches
        self.block_poll = block_poll
        self.fail_poll = fail_poll
        self.polls = 0
        self.release = threading.Event()
        self.threads: set[str] = set()

    def version(self) -> str:
        return "0"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        self.threads.add(threading.current_thread().name)
        self.log.poll_started.set()
        if self.polls >= self.batches:
            time.sleep(0.02)
            return None
        self.polls += 1
        n = self.polls
        self.log.add("poll", n)
        if n == self.fail_poll:
            raise RuntimeError(f"poll {n} broke")
        if n == self.block_poll:
            self.release.wait(30)
        first = (n - 1) * BATCH
        return [SourceRecord({"id": 0}, {"seqno": s}, self.topic, None, 0, s) for s in range(first, first + BATCH)]

    def stop(self) -> None:
        self.release.set()


class _OwnCommit(_Batches):
    """A plugin with its own ``commit()`` (acknowledging upstream what it polled, say)."""

    def commit(self) -> None:
        self.log.add("task-commit", self.polls)


class _Statuses:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def on_startup(self, task: ConnectorTaskId) -> None:
        self.events.append(("RUNNING", ""))

    def on_pause(self, task: ConnectorTaskId) -> None:
        self.events.append(("PAUSED", ""))

    def on_resume(self, task: ConnectorTaskId) -> None:
        self.events.append(("RUNNING", ""))

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self.events.append(("FAILED", trace))

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        self.events.append(("UNASSIGNED", ""))

    def active_topics(self, connector: str) -> None:
        return None

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        raise AssertionError("not called with topic tracking off")


def _converter() -> JsonConverter:
    conv = JsonConverter()
    conv.configure({"schemas.enable": "false"}, False)
    return conv


class _Rig:
    """One in-process exactly-once task on the real broker: its topics, producer, store and plugin."""

    def __init__(self, bootstrap: str, plugin_cls: type[_Batches] = _Batches, *, fence_first: bool = False,
                 boundary: TransactionBoundary = TransactionBoundary.POLL, overlap_wait_s: float = OVERLAP_WAIT_S,
                 **plugin_args: Any) -> None:
        self.bootstrap = bootstrap
        self.topic = new_topic(bootstrap)
        self.offsets_topic = new_topic(bootstrap, partitions=3, config={"cleanup.policy": "compact"})
        client: dict[str, Any] = {"bootstrap.servers": bootstrap}
        self.store = KafkaOffsetBackingStore(self.offsets_topic, client, AdminClient(client),
                                             Producer(producer_config(client)))
        self.store.start(read_to_end=False)
        offsets = ConnectorOffsetBackingStore(self.store)
        self.log = _Log()
        self.plugin = plugin_cls(self.log, self.topic, **plugin_args)
        self.statuses = _Statuses()
        conf = producer_config(eos_producer_config(client, f"overlap-{uuid.uuid4().hex[:8]}"))
        self.producer = _WatchedProducer(conf)
        self.producer.log = self.log
        self.producer.data_topic = self.topic
        self.producer.commits = 0
        self.producer.overlap_wait_s = overlap_wait_s
        self.producer.fence_conf = dict(conf) if fence_first else None
        setup = TaskSetup(ConnectorTaskId(CONNECTOR, 0), self.plugin, {}, _converter(), _converter(), (),
                          self.producer, ConnectorOffsetReader(CONNECTOR, offsets), offsets, self.statuses,
                          TargetState.STARTED)
        self.runner = ExactlyOnceWorkerSourceTask(setup, lambda: None, lambda: None, boundary, interval_ms=20)

    def committed_seqnos(self) -> list[int]:
        return [json.loads(v) for _, v in read_committed(self.bootstrap, self.topic) if v is not None]

    def stored_offsets(self) -> list[Any]:
        return [json.loads(v) for _, v in read_committed(self.bootstrap, self.offsets_topic) if v is not None]

    def close(self) -> None:
        self.runner.stop()
        self.runner.join(30)
        self.store.stop()


@pytest.fixture
def rigs() -> Iterator[list[_Rig]]:
    made: list[_Rig] = []
    yield made
    for rig in made:
        rig.close()


def _no_record_produced_during_a_commit(events: list[tuple[str, int]]) -> None:
    in_commit = False
    for what, n in events:
        if what == "commit-start":
            in_commit = True
        elif what == "commit-end":
            in_commit = False
        elif what == "produce":
            assert not in_commit, f"record {n} was handed to the producer while a commit ran: {events}"


@pytest.mark.parametrize("boundary", [TransactionBoundary.POLL, TransactionBoundary.INTERVAL])
def test_the_next_batch_is_polled_while_the_commit_runs_and_sent_only_after_it(
        kafka_bootstrap: str, rigs: list[_Rig], boundary: TransactionBoundary) -> None:
    rig = _Rig(kafka_bootstrap, batches=5, boundary=boundary)
    rigs.append(rig)
    rig.runner.start()
    wait_until(lambda: rig.committed_seqnos() == list(range(5 * BATCH)), 60,
               message="all five batches committed")
    events = rig.log.snapshot()
    assert ("poll-during-commit", 1) in events, f"the next poll did not start while the commit ran: {events}"
    _no_record_produced_during_a_commit(events)
    if boundary is TransactionBoundary.POLL:
        # Poll 2 started during commit 1, and its records were produced only after that commit ended.
        first_end = events.index(("commit-end", 0))
        assert events.index(("poll", 2)) < first_end < events.index(("produce", BATCH))
    assert rig.plugin.threads == {f"task-{CONNECTOR}-0"}, "the plugin is polled on the task's own thread only"
    rig.runner.stop()
    assert rig.runner.join(30)
    assert rig.statuses.events == [("RUNNING", ""), ("UNASSIGNED", "")]
    assert rig.committed_seqnos() == list(range(5 * BATCH))
    assert rig.stored_offsets()[-1] == {"seqno": 5 * BATCH - 1}


def test_a_failed_commit_drops_the_batch_polled_meanwhile_and_fails_the_task(kafka_bootstrap: str,
                                                                              rigs: list[_Rig]) -> None:
    rig = _Rig(kafka_bootstrap, batches=3, fence_first=True)
    rigs.append(rig)
    rig.runner.start()
    wait_until(lambda: any(state == "FAILED" for state, _ in rig.statuses.events), 60, message="the task FAILED")
    assert rig.runner.join(30)
    events = rig.log.snapshot()
    assert ("poll", 2) in events and ("poll-during-commit", 1) in events, (
        f"batch 2 was not polled while the failing commit ran: {events}")
    produced = [n for what, n in events if what == "produce"]
    assert produced == list(range(BATCH)), "the batch polled during the failed commit was never produced"
    assert ("poll", 3) not in events
    trace = next(trace for state, trace in rig.statuses.events if state == "FAILED")
    assert f"Failed to flush offsets and/or records for task {CONNECTOR}-0" in trace
    assert rig.committed_seqnos() == []
    assert rig.stored_offsets() == [], "no offset of either batch was written"


def test_a_poll_that_fails_while_the_commit_runs_fails_the_task_after_that_commit(
        kafka_bootstrap: str, rigs: list[_Rig]) -> None:
    rig = _Rig(kafka_bootstrap, batches=3, fail_poll=2)
    rigs.append(rig)
    rig.runner.start()
    wait_until(lambda: any(state == "FAILED" for state, _ in rig.statuses.events), 60, message="the task FAILED")
    events = rig.log.snapshot()
    assert ("poll-during-commit", 1) in events, events
    trace = next(trace for state, trace in rig.statuses.events if state == "FAILED")
    assert "poll 2 broke" in trace
    assert rig.committed_seqnos() == list(range(BATCH)), "the batch polled before the failure is committed"
    assert rig.stored_offsets() == [{"seqno": BATCH - 1}]


def test_a_stop_during_the_poll_ahead_delivers_the_batch_polled(kafka_bootstrap: str, rigs: list[_Rig]) -> None:
    rig = _Rig(kafka_bootstrap, batches=3, block_poll=2)
    rigs.append(rig)
    rig.runner.start()
    wait_until(lambda: ("poll", 2) in rig.log.snapshot(), 30, message="poll 2 started")
    wait_until(lambda: rig.committed_seqnos() == list(range(BATCH)), 30, message="batch 1 committed")
    rig.runner.stop()  # releases poll 2, which returns its batch
    assert rig.runner.join(30)
    events = rig.log.snapshot()
    assert ("poll-during-commit", 1) in events, events
    assert ("poll", 3) not in events, "a stopping task is not polled again"
    assert rig.statuses.events == [("RUNNING", ""), ("UNASSIGNED", "")]
    assert rig.committed_seqnos() == list(range(2 * BATCH)), "the batch polled when the stop came is delivered"
    assert rig.stored_offsets()[-1] == {"seqno": 2 * BATCH - 1}


def test_a_pause_during_the_poll_ahead_commits_the_batch_polled_then_pauses(kafka_bootstrap: str,
                                                                          rigs: list[_Rig]) -> None:
    rig = _Rig(kafka_bootstrap, batches=3, block_poll=2)
    rigs.append(rig)
    rig.runner.start()
    wait_until(lambda: ("poll", 2) in rig.log.snapshot(), 30, message="poll 2 started")
    rig.runner.transition_to(TargetState.PAUSED)
    rig.plugin.release.set()
    wait_until(lambda: ("PAUSED", "") in rig.statuses.events, 30, message="the task PAUSED")
    assert rig.committed_seqnos() == list(range(2 * BATCH))
    events = rig.log.snapshot()
    assert ("poll-during-commit", 1) in events, events
    assert ("poll", 3) not in events, "a paused task is not polled"
    rig.runner.transition_to(TargetState.STARTED)
    wait_until(lambda: rig.committed_seqnos() == list(range(3 * BATCH)), 30, message="batch 3 after resume")


def test_a_plugin_with_its_own_commit_is_not_polled_before_it_was_called(kafka_bootstrap: str,
                                                                         rigs: list[_Rig]) -> None:
    rig = _Rig(kafka_bootstrap, _OwnCommit, batches=3, overlap_wait_s=NO_OVERLAP_WAIT_S)
    rigs.append(rig)
    rig.runner.start()
    wait_until(lambda: rig.committed_seqnos() == list(range(3 * BATCH)), 60, message="three batches committed")
    events = [e for e in rig.log.snapshot() if e[0] in ("poll", "task-commit", "poll-during-commit")]
    assert ("poll-during-commit", 0) in events
    polls_and_commits = [e for e in events if e[0] != "poll-during-commit"]
    # Each commit() comes before the next poll, and tells about every batch polled so far.
    assert polls_and_commits[:6] == [("poll", 1), ("task-commit", 1), ("poll", 2), ("task-commit", 2),
                                     ("poll", 3), ("task-commit", 3)], events


def test_a_fenced_commit_fails_the_task_with_the_commit_failure(kafka_bootstrap: str, rigs: list[_Rig]) -> None:
    """Without a poll ahead too (the plugin has its own commit()): the fenced producer's cleanup must not
    replace the error that failed the task by one of its own."""
    rig = _Rig(kafka_bootstrap, _OwnCommit, batches=3, fence_first=True, overlap_wait_s=NO_OVERLAP_WAIT_S)
    rigs.append(rig)
    rig.runner.start()
    wait_until(lambda: any(state == "FAILED" for state, _ in rig.statuses.events), 60, message="the task FAILED")
    trace = next(trace for state, trace in rig.statuses.events if state == "FAILED")
    assert f"Failed to flush offsets and/or records for task {CONNECTOR}-0" in trace, trace
    assert "fenced" in trace
    assert ("poll", 2) not in rig.log.snapshot()
    assert rig.committed_seqnos() == []
