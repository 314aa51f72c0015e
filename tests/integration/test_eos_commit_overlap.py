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
