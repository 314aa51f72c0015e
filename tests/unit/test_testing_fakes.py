"""The toolkit's fakes and its sequence source connector, driven by hand as a plugin's unit test would."""

from __future__ import annotations

import pytest

from connect_runtime.api import ExactlyOnceSupport, SourceRecord
from connect_runtime.testing import (
    FakeOffsetStorageReader,
    FakeTaskContext,
    FakeTransactionContext,
    SequenceSourceConnector,
    SequenceSourceTask,
    check_sequences,
)
from connect_runtime.testing.fakes import FakeOffsetStore, FakeProducer, FakeStatusListener
from connect_runtime.types import ConnectorTaskId


def _started(offsets: list[tuple[dict[str, int], dict[str, int]]] | None = None,
             task_id: int = 0) -> SequenceSourceTask:
    task = SequenceSourceTask()
    task.initialize(FakeTaskContext(offsets=offsets or []))
    task.start({"topic": "t", "task.id": str(task_id)})
    return task


def test_a_sequence_task_writes_verifiable_records_and_resumes_after_its_offset() -> None:
    first = _started(task_id=1)
    records = first.poll()
    assert records is not None and len(records) == SequenceSourceTask.BATCH
    assert records[0].source_partition == {"id": 1} and records[0].source_offset == {"seqno": 0}
    assert (records[0].topic, records[0].key, records[0].value) == ("t", 1, 0)
    assert check_sequences((r.key, r.value) for r in records).exactly_once

    resumed = _started([({"id": 1}, {"seqno": 41})], task_id=1)
    again = resumed.poll()
    assert again is not None and again[0].value == 42
    resumed.stop()
    assert resumed.poll() is None, "a stopped task's poll returns at once, with nothing"


def test_a_sequence_connector_hands_each_task_its_id_and_declares_exactly_once() -> None:
    connector = SequenceSourceConnector()
    connector.start({"topic": "t", "name": "c"})
    assert connector.task_configs(2) == [{"topic": "t", "name": "c", "task.id": "0"},
                                         {"topic": "t", "name": "c", "task.id": "1"}]
    assert connector.task_class() is SequenceSourceTask
    assert connector.exactly_once_support({}) is ExactlyOnceSupport.SUPPORTED
    assert any(v.errors for v in connector.validate({"connector.class": "x"})), "topic is required"


def test_the_transaction_context_records_requests_in_order_by_identity() -> None:
    ctx = FakeTransactionContext()
    record = SourceRecord({"id": 0}, {"seqno": 0}, "t", value=0)
    ctx.commit_transaction(record)
    ctx.abort_transaction()
    ctx.commit_transaction()
    assert ctx.requests == [("commit", record), ("abort", None), ("commit", None)]
    assert ctx.commits[0] is record and ctx.commits[1:] == [None] and ctx.aborts == [None]
    assert FakeTaskContext(transaction_context=ctx).transaction_context is ctx
    assert FakeTaskContext().transaction_context is None


def test_the_offset_reader_answers_by_partition_value() -> None:
    reader = FakeOffsetStorageReader([({"file": "a"}, {"position": 3})])
    assert reader.offset({"file": "a"}) == {"position": 3} and reader.offset({"file": "b"}) is None
    reader.commit({"file": "b"}, {"position": 1})
    assert reader.offset({"file": "b"}) == {"position": 1}
    context = FakeTaskContext({"topic": "t"}, reader)
    assert context.offset_storage_reader is reader and context.configs == {"topic": "t"}


def test_the_runtime_fakes_share_one_event_list() -> None:
    events: list[str] = []
    task = ConnectorTaskId("c", 0)
    producer, statuses = FakeProducer(events), FakeStatusListener(events, active=["seen"])
    statuses.on_startup(task)
    producer.begin_transaction()
    producer.produce("t", b"v", b"k")
    producer.abort_transaction(1)
    statuses.on_failure(task, "trace", transient=True)
    assert events == ["RUNNING", "begin", "produce t", "abort", "FAILED"]
    assert producer.sent_to("t") == [(b"k", b"v")] and statuses.failures == [("trace", True)]
    statuses.on_topic_used(task, "new")
    assert statuses.used == ["new"] and statuses.active_topics("c") == {"seen": None, "new": None}
    with pytest.raises(AssertionError, match="topic tracking off"):
        FakeStatusListener(track_topics=False).on_topic_used(task, "t")
    store = FakeOffsetStore()
    assert store.read_to_end().result(0) is None
    store.set({b"k": None})
    assert store.written == [{b"k": None}]
