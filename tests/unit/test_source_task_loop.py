"""When a source task reports a topic as active (KIP-558), and what it does when it fails (no broker).

The task loop's logic only: the producer, converters, offset store and status listener are fakes that
record what the loop did to them. The real broker path is in tests/integration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from confluent_kafka import KafkaError

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.api.errors import ConnectException
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.at_least_once_source_task import AtLeastOnceWorkerSourceTask, DeliveryErrors
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask
from connect_runtime.worker.source_task_base import TaskSetup

TASK = ConnectorTaskId("c", 0)


class _Statuses:
    """A status listener whose active-topics view is updated by ``on_topic_used``, as the store's is."""

    def __init__(self) -> None:
        self.view: dict[str, None] = {}
        self.used: list[str] = []
        self.events: list[str] = []

    def on_startup(self, task: ConnectorTaskId) -> None:
        self.events.append("RUNNING")

    def on_pause(self, task: ConnectorTaskId) -> None: ...

    def on_resume(self, task: ConnectorTaskId) -> None: ...

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self.events.append("FAILED")

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        self.events.append("UNASSIGNED")

    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        return self.view

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self.used.append(topic)
        self.view[topic] = None


class _Producer:
    def __init__(self, events: list[str]) -> None:
        self.events = events

    def produce(self, topic: str, *args: Any, **kwargs: Any) -> None:
        self.events.append(f"produce {topic}")

    def poll(self, timeout: float = 0) -> int:
        return 0

    def flush(self, timeout: float = 0) -> int:
        return 0

    def purge(self) -> None: ...

    def list_topics(self, timeout: float = -1) -> None: ...

    def init_transactions(self, timeout: float) -> None: ...

    def begin_transaction(self) -> None:
        self.events.append("begin")

    def commit_transaction(self, timeout: float) -> None:
        self.events.append("commit")

    def abort_transaction(self, timeout: float) -> None:
        self.events.append("abort")


class _Converter:
    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        return None if value is None else str(value).encode()


class _OffsetStore:
    topic = "offsets"
    has_connector_store = False

    def write_tombstones_first(self, entries: Mapping[bytes, Any]) -> None: ...

    def mirror(self, entries: Mapping[bytes, Any]) -> None: ...

    def stop(self) -> None: ...


class _Task(SourceTask):
    def __init__(self, batches: list[list[SourceRecord] | Exception]) -> None:
        self.batches = batches

    def start(self, props: Mapping[str, str]) -> None: ...

    def poll(self) -> list[SourceRecord] | None:
        batch = self.batches.pop(0)
        if isinstance(batch, Exception):
            raise batch
        return batch

    def stop(self) -> None: ...

    def version(self) -> str:
        return "1"


def _eos_task(statuses: _Statuses, events: list[str],
              batches: list[list[SourceRecord] | Exception] | None = None) -> ExactlyOnceWorkerSourceTask:
    setup = TaskSetup(task_id=TASK, task=_Task(batches or []), task_config={},
                      key_converter=_Converter(), value_converter=_Converter(),  # type: ignore[arg-type]
                      transformations=[], producer=_Producer(events),  # type: ignore[arg-type]
                      offset_reader=None, offset_store=_OffsetStore(),  # type: ignore[arg-type]
                      status=statuses, initial_state=TargetState.STARTED)  # type: ignore[arg-type]
    return ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)


def _record(topic: str, n: int) -> SourceRecord:
    return SourceRecord({"p": 0}, {"o": n}, topic, value=n)


def test_a_topic_is_active_only_once_a_commit_covering_its_records_succeeded() -> None:
    statuses, events = _Statuses(), []
    task = _eos_task(statuses, events)
    task._send_batch([_record("a", 1), _record("a", 2), _record("b", 3)])
    assert statuses.used == []  # sent, not yet committed
    task.batch_end(3)
    assert events[-1] == "commit"
    assert sorted(statuses.used) == ["a", "b"]
    task._send_batch([_record("a", 4)])
    task.batch_end(1)
    assert sorted(statuses.used) == ["a", "b"]  # once per topic


def test_a_topic_whose_only_records_were_aborted_is_not_active() -> None:
    statuses, events = _Statuses(), []
    task = _eos_task(statuses, events)
    task._send_batch([_record("aborted-only", 1)])
    task.txn_size = 1  # as a connector-boundary task counts its sent records
    task.abort()  # the connector aborts the transaction (or it fails)
    assert events[-1] == "abort"
    task.commit()  # the offsets-only transaction that follows
    assert statuses.used == []
    task._send_batch([_record("aborted-only", 2)])  # written again, this time committed
    task.batch_end(1)
    assert statuses.used == ["aborted-only"]


class _StartedOffsetStore(_OffsetStore):
    def start(self) -> None: ...

    def read_to_end(self) -> Any:
        from concurrent.futures import Future
        done: Future[None] = Future()
        done.set_result(None)
        return done


def test_a_failing_task_aborts_its_open_transaction_before_it_is_reported_failed() -> None:
    """A record to the offsets topic fails the task mid-batch (as "Tolerance exceeded" does): the
    transaction holding the batch's earlier records is aborted before FAILED is published."""
    events: list[str] = []
    statuses = _Statuses()
    statuses.events = events
    task = _eos_task(statuses, events, batches=[[_record("data", 1), _record("offsets", 2)]])
    task._offset_store = _StartedOffsetStore()  # type: ignore[assignment]
    task._run()
    assert events[:3] == ["RUNNING", "begin", "produce data"]
    assert "abort" in events and "FAILED" in events
    assert events.index("abort") < events.index("FAILED")
    assert "commit" not in events


class _FailingTransformation:
    """A transformation whose ``apply`` is a plain function attribute (no ``__self__``), which fails."""

    def __init__(self) -> None:
        def apply(record: SourceRecord) -> SourceRecord:
            raise ValueError("no")
        self.apply = apply

    def close(self) -> None: ...


def test_a_failing_transformation_goes_to_the_error_handler_whatever_its_apply_is() -> None:
    statuses, events = _Statuses(), []
    task = _eos_task(statuses, events)
    task._transformations = (_FailingTransformation(),)  # type: ignore[assignment]
    task._applies = tuple(t.apply for t in task._transformations)
    with pytest.raises(ConnectException, match="Tolerance exceeded in error handler"):
        task._transform(_record("t", 1))


class _FlushedOffsetStore(_OffsetStore):
    def set(self, entries: Mapping[bytes, Any], producer: Any = None) -> None: ...


def _at_least_once_task(statuses: _Statuses, errors: DeliveryErrors) -> AtLeastOnceWorkerSourceTask:
    setup = TaskSetup(task_id=TASK, task=_Task([]), task_config={},
                      key_converter=_Converter(), value_converter=_Converter(),  # type: ignore[arg-type]
                      transformations=[], producer=_Producer([]),  # type: ignore[arg-type]
                      offset_reader=None, offset_store=_FlushedOffsetStore(),  # type: ignore[arg-type]
                      status=statuses, initial_state=TargetState.STARTED)  # type: ignore[arg-type]
    return AtLeastOnceWorkerSourceTask(setup, errors, flush_interval_ms=60000, flush_timeout_ms=1000)


def test_at_least_once_a_topic_is_active_once_a_flush_delivered_its_records() -> None:
    statuses, errors = _Statuses(), DeliveryErrors()
    task = _at_least_once_task(statuses, errors)
    task._send_batch([_record("a", 1)])
    assert statuses.used == []
    task.final_commit()  # flush: every record acknowledged, offsets written
    assert statuses.used == ["a"]


def test_at_least_once_a_failed_delivery_records_no_topic() -> None:
    statuses, errors = _Statuses(), DeliveryErrors()
    task = _at_least_once_task(statuses, errors)
    task._send_batch([_record("refused", 1)])
    errors(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), None)  # type: ignore[arg-type]
    with pytest.raises(ConnectException, match="Failed to send a record"):
        task.final_commit()
    assert statuses.used == []
