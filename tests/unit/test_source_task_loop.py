"""When a source task reports a topic as active (KIP-558), and what it does when it fails (no broker).

The task loop's logic only: the producer, converters, offset store and status listener are fakes that
record what the loop did to them. The real broker path is in tests/integration.
"""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException
from task_loop_setup import ScriptedTask, task_setup

from connect_runtime.api import SourceRecord
from connect_runtime.api.errors import ConnectException, RetriableException
from connect_runtime.testing import wait_until
from connect_runtime.testing.fakes import FakeProducer, FakeStatusListener
from connect_runtime.types import TargetState
from connect_runtime.worker.at_least_once_source_task import AtLeastOnceWorkerSourceTask, DeliveryErrors
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask


def _eos_task(statuses: FakeStatusListener, events: list[str],
              batches: list[list[SourceRecord] | Exception] | None = None) -> ExactlyOnceWorkerSourceTask:
    setup = task_setup(ScriptedTask(batches or []), statuses=statuses, producer=FakeProducer(events))
    return ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)


def _record(topic: str, n: int) -> SourceRecord:
    return SourceRecord({"p": 0}, {"o": n}, topic, value=n)


def test_a_topic_is_active_only_once_a_commit_covering_its_records_succeeded() -> None:
    statuses, events = FakeStatusListener(), []
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
    statuses, events = FakeStatusListener(), []
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


def test_a_failing_task_aborts_its_open_transaction_before_it_is_reported_failed() -> None:
    """A record to the offsets topic fails the task mid-batch (as "Tolerance exceeded" does): the
    transaction holding the batch's earlier records is aborted before FAILED is published."""
    events: list[str] = []
    statuses = FakeStatusListener(events)
    task = _eos_task(statuses, events, batches=[[_record("data", 1), _record("offsets", 2)]])
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
    statuses, events = FakeStatusListener(), []
    task = _eos_task(statuses, events)
    task._transformations = (_FailingTransformation(),)  # type: ignore[assignment]
    task._applies = tuple(t.apply for t in task._transformations)
    with pytest.raises(ConnectException, match="Tolerance exceeded in error handler"):
        task._transform(_record("t", 1))


def _at_least_once_task(statuses: FakeStatusListener, errors: DeliveryErrors) -> AtLeastOnceWorkerSourceTask:
    setup = task_setup(ScriptedTask([]), statuses=statuses)
    return AtLeastOnceWorkerSourceTask(setup, errors, flush_interval_ms=60000, flush_timeout_ms=1000)


def test_at_least_once_a_topic_is_active_once_a_flush_delivered_its_records() -> None:
    statuses, errors = FakeStatusListener(), DeliveryErrors()
    task = _at_least_once_task(statuses, errors)
    task._send_batch([_record("a", 1)])
    assert statuses.used == []
    task.final_commit()  # flush: every record acknowledged, offsets written
    assert statuses.used == ["a"]


def test_at_least_once_a_failed_delivery_records_no_topic() -> None:
    statuses, errors = FakeStatusListener(), DeliveryErrors()
    task = _at_least_once_task(statuses, errors)
    task._send_batch([_record("refused", 1)])
    errors(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), None)  # type: ignore[arg-type]
    with pytest.raises(ConnectException, match="Failed to send a record"):
        task.final_commit()
    assert statuses.used == []


def _fenced() -> KafkaException:
    return KafkaException(KafkaError(KafkaError._FENCED, "fenced by newer producer instance", fatal=True))


def test_a_fence_long_after_the_last_transaction_is_not_called_a_timeout() -> None:
    # The broker aborts only a transaction that is open: a fenced error with none open is a zombie's.
    task = ExactlyOnceWorkerSourceTask(task_setup(ScriptedTask()), fence=lambda: None,
                                       verify_generation=lambda: None, producer_transaction_timeout_ms=0)
    task.begin_batch()
    task.commit()
    error = str(task.send_failed(_fenced()))
    assert "timed out" not in error and "fenced by newer producer instance" in error, error


def test_a_fence_of_a_transaction_open_past_its_timeout_is_called_a_timeout() -> None:
    task = ExactlyOnceWorkerSourceTask(task_setup(ScriptedTask()), fence=lambda: None,
                                       verify_generation=lambda: None, producer_transaction_timeout_ms=0)
    task.begin_batch()
    error = str(task.send_failed(_fenced()))
    assert "transaction.timeout.ms (0 ms), so the broker aborted it" in error, error


def test_a_task_that_starts_paused_reports_paused_and_is_fenced_only_once_resumed() -> None:
    """As the reference's WorkerTask: a task paused before it started (its connector paused while the task
    was being restarted, or created paused) is PAUSED, not UNASSIGNED, while it waits."""
    events: list[str] = []
    statuses = FakeStatusListener(events)
    setup = task_setup(ScriptedTask(), statuses=statuses, producer=FakeProducer(events))
    task = ExactlyOnceWorkerSourceTask(setup, fence=lambda: events.append("fenced"), verify_generation=lambda: None)
    task.transition_to(TargetState.PAUSED)
    task.start()
    wait_until(lambda: "PAUSED" in events, 10, message="PAUSED reported")
    assert "fenced" not in events
    task.transition_to(TargetState.STARTED)
    wait_until(lambda: "RUNNING" in events, 10, message="RUNNING once resumed")
    task.stop()
    assert task.join(10)
    assert events.index("PAUSED") < events.index("fenced") < events.index("RUNNING")


class _RegistryDown:
    """A value converter whose registry never answers: every call is retriable."""

    def from_connect_data(self, topic: str, value: object) -> bytes:
        raise RetriableException("The schema registry at http://registry:8081 could not be reached")

    def to_connect_data(self, topic: str, data: bytes | None) -> object:
        return data


def test_a_failure_whose_retries_ran_out_is_final_and_not_restarted_as_transient() -> None:
    """A retriable converter error fails the task once ``errors.retry.timeout`` is spent ("Tolerance
    exceeded"); the worker must not restart it as it restarts a task Kafka's unavailability failed."""
    events: list[str] = []
    statuses = FakeStatusListener(events)
    setup = task_setup(ScriptedTask([[_record("data", 1)]]), statuses=statuses, producer=FakeProducer(events),
                       value_converter=_RegistryDown())
    ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)._run()
    assert "FAILED" in events
    [(trace, transient)] = statuses.failures
    assert "Tolerance exceeded in error handler" in trace and "could not be reached" in trace
    assert transient is False
