"""A fenced exactly-once task fails with the error of its commit, on a real broker, in-process: the
producer is fenced during the task's first commit (another producer initialises transactions with the
same transactional id, as a newer task generation does). The cleanup of the fenced producer (abort,
purge, flush) must not replace that error with one of its own, and nothing of the transaction is
visible."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from task_loop_setup import schemaless_json

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.clients import producer_config
from connect_runtime.storage.offset_backing_store import (
    ConnectorOffsetBackingStore,
    ConnectorOffsetReader,
    KafkaOffsetBackingStore,
)
from connect_runtime.testing.cluster import read_committed, wait_until
from connect_runtime.testing.fakes import FakeStatusListener
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask, eos_producer_config
from connect_runtime.worker.source_task_base import TaskSetup

pytestmark = pytest.mark.kafka

CONNECTOR = "fenced"


class _FencedAtFirstCommit(Producer):
    """A real transactional producer that is fenced right before its first commit."""

    fence_conf: dict[str, Any]
    commits: int

    def commit_transaction(self, *args: Any) -> None:
        self.commits += 1
        if self.commits == 1:
            Producer(self.fence_conf).init_transactions(30)
        super().commit_transaction(*args)


class _Batches(SourceTask):
    """Batches of 10 records with consecutive seqnos."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.polls = 0

    def version(self) -> str:
        return "0"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        if self.polls >= 3:
            time.sleep(0.02)
            return None
        first = self.polls * 10
        self.polls += 1
        return [SourceRecord({"id": 0}, {"seqno": s}, self.topic, None, 0, s) for s in range(first, first + 10)]

    def stop(self) -> None:
        pass


@pytest.fixture
def store(kafka_bootstrap: str) -> Iterator[KafkaOffsetBackingStore]:
    offsets_topic = new_topic(kafka_bootstrap, partitions=3, config={"cleanup.policy": "compact"})
    client: dict[str, Any] = {"bootstrap.servers": kafka_bootstrap}
    s = KafkaOffsetBackingStore(offsets_topic, client, AdminClient(client), Producer(producer_config(client)))
    s.start(read_to_end=False)
    yield s
    s.stop()


def test_a_fenced_commit_fails_the_task_with_the_commit_failure(kafka_bootstrap: str,
                                                                store: KafkaOffsetBackingStore) -> None:
    topic = new_topic(kafka_bootstrap)
    conf = producer_config(eos_producer_config({"bootstrap.servers": kafka_bootstrap},
                                               f"fenced-{uuid.uuid4().hex[:8]}"))
    producer = _FencedAtFirstCommit(conf)
    producer.fence_conf = dict(conf)
    producer.commits = 0
    offsets = ConnectorOffsetBackingStore(store)
    plugin, statuses = _Batches(topic), FakeStatusListener(track_topics=False)
    setup = TaskSetup(ConnectorTaskId(CONNECTOR, 0), plugin, {}, schemaless_json(), schemaless_json(), (), producer,
                      ConnectorOffsetReader(CONNECTOR, offsets), offsets, statuses, TargetState.STARTED)
    runner = ExactlyOnceWorkerSourceTask(setup, lambda: None, lambda: None)
    runner.start()
    try:
        wait_until(lambda: statuses.failures, 60, message="the task FAILED")
    finally:
        runner.stop()
        assert runner.join(30)
    trace, _ = statuses.failures[0]
    assert f"Failed to flush offsets and/or records for task {CONNECTOR}-0" in trace, trace
    assert "fenced" in trace
    assert "transaction.timeout.ms" not in trace, "a newer instance fenced it: no timeout to speak of"
    assert plugin.polls == 1, "the task stopped at its first (failed) commit"
    assert [v for _, v in read_committed(kafka_bootstrap, topic)] == []
    assert [json.loads(v) for _, v in read_committed(kafka_bootstrap, store.topic) if v is not None] == []
