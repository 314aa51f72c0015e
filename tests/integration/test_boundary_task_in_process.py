"""The exactly-once task loop run in-process on a real broker, with a transformation: a record a
transform drops still carries its boundary request, its offset is never written, and its
``commit_record`` gets None metadata; the transformation is closed when the task stops."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from task_loop_setup import schemaless_json

from connect_runtime.api import RecordMetadata, SourceRecord, SourceTask, Transformation
from connect_runtime.clients import producer_config
from connect_runtime.config.connector_config import TransactionBoundary
from connect_runtime.storage.offset_backing_store import (
    ConnectorOffsetBackingStore,
    ConnectorOffsetReader,
    KafkaOffsetBackingStore,
)
from connect_runtime.testing.cluster import read_committed, wait_until
from connect_runtime.testing.fakes import FakeStatusListener
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.exactly_once_source_task import (
    ConnectorBoundaryWorkerSourceTask,
    ExactlyOnceWorkerSourceTask,
    eos_producer_config,
)
from connect_runtime.worker.source_task_base import TaskSetup

pytestmark = pytest.mark.kafka

CONNECTOR = "in-process"


class _DropOdd(Transformation):
    def __init__(self) -> None:
        self.closed = False

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return None if record.value % 2 else record

    def close(self) -> None:
        self.closed = True


class _TenThenIdle(SourceTask):
    """One poll of seqnos 0..9 asking to commit right after record 5 (which the transform drops)."""

    def __init__(self) -> None:
        self.reported: dict[int, RecordMetadata | None] = {}
        self.polled = threading.Event()

    def version(self) -> str:
        return "0"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        if self.polled.is_set():
            self.polled.wait(0.05)
            return None
        batch = [SourceRecord({"id": 0}, {"seqno": s}, self.topic, None, 0, s) for s in range(10)]
        ctx = self.context.transaction_context
        assert ctx is not None
        ctx.commit_transaction(batch[5])
        self.polled.set()
        return batch

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.reported[record.value] = metadata

    def stop(self) -> None:
        pass


def test_dropped_record_carries_its_boundary_and_never_its_offset(kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap)
    offsets_topic = new_topic(kafka_bootstrap, partitions=3, config={"cleanup.policy": "compact"})
    client: dict[str, Any] = {"bootstrap.servers": kafka_bootstrap}
    admin = AdminClient(client)
    store = KafkaOffsetBackingStore(offsets_topic, client, admin, Producer(producer_config(client)))
    store.start(read_to_end=False)
    offsets = ConnectorOffsetBackingStore(store)
    plugin = _TenThenIdle()
    plugin.topic = topic  # type: ignore[attr-defined]
    statuses = FakeStatusListener(track_topics=False)
    producer = Producer(producer_config(eos_producer_config(client, f"in-process-{uuid.uuid4().hex[:8]}")))
    drop_odd = _DropOdd()
    closed: list[object] = []
    setup = TaskSetup(ConnectorTaskId(CONNECTOR, 0), plugin, {}, schemaless_json(), schemaless_json(), (drop_odd,),
                      producer, ConnectorOffsetReader(CONNECTOR, offsets), offsets, statuses, TargetState.STARTED,
                      on_closed=closed.append)
    runner = ConnectorBoundaryWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    assert runner.transaction_context() is not None
    for boundary in (TransactionBoundary.POLL, TransactionBoundary.INTERVAL):
        other = ExactlyOnceWorkerSourceTask(setup, lambda: None, lambda: None, boundary)
        assert other.transaction_context() is None, "only connector-defined boundaries get a context"
    runner.start()
    try:
        wait_until(lambda: 5 in plugin.reported, 30, message="the commit requested on the dropped record")
    finally:
        runner.stop()
        assert runner.join(30)
        store.stop()
    assert statuses.events == ["RUNNING", "UNASSIGNED"], statuses.failures
    assert drop_odd.closed
    assert closed == [runner], "the worker's hook is called last on the task's thread (it forgets the secrets)"
    # Committed at record 5: 0, 2, 4 are visible; 6 and 8 were in the open transaction, aborted at stop
    # (connector-defined boundaries make no commit the connector did not ask for).
    assert [json.loads(v) for _, v in read_committed(kafka_bootstrap, topic)] == [0, 2, 4]
    assert {s: m is None for s, m in plugin.reported.items()} == {0: False, 1: True, 2: False, 3: True,
                                                                   4: False, 5: True}
    stored = [json.loads(v) for k, v in read_committed(kafka_bootstrap, offsets_topic) if v is not None]
    assert stored == [{"seqno": 4}], "a dropped record's offset is never written"
