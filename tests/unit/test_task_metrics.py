"""A task's metrics: what its loop records in the task process (injected clock, fake producer), the report
it sends, and the worker's mirror that serves it (opened when the task is built, closed when it leaves)."""

from __future__ import annotations

import json
import logging
import math
import threading
from typing import Any

import pytest
from confluent_kafka import KafkaError
from task_loop_setup import ScriptedTask, task_setup
from worker_stubs import MINIMAL_WORKER, RecordingRunner, RecordingStatuses

from connect_runtime.api import SourceRecord
from connect_runtime.api.errors import DataException
from connect_runtime.cluster.fencing import ZombieFencer
from connect_runtime.config.connector_config import ToleranceType, TransactionBoundary
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.metrics.client_stats import ClientStatsCollector
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.stats import HistogramValue, MetricConfig, TrackedState
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.testing import wait_until
from connect_runtime.testing.fakes import FakeProducer, FakeStatusListener
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker import exactly_once_source_task
from connect_runtime.worker import task_protocol as protocol
from connect_runtime.worker.at_least_once_source_task import AtLeastOnceWorkerSourceTask, DeliveryErrors
from connect_runtime.worker.exactly_once_source_task import (
    ConnectorBoundaryWorkerSourceTask,
    ExactlyOnceWorkerSourceTask,
)
from connect_runtime.worker.retry_with_tolerance import RetryWithToleranceOperator, Stage
from connect_runtime.worker.task_channel import ChannelClosed
from connect_runtime.worker.task_metrics import (
    COMMIT_LATENCY_BUCKETS_S,
    NullTaskMetrics,
    TaskMetrics,
    TaskMetricsMirror,
    TaskMetricsReport,
)
from connect_runtime.worker.task_process import TaskProcess
from connect_runtime.worker.task_process_main import MetricsReporter
from connect_runtime.worker.worker import TASK_CLASS_CONFIG, Worker

TASK = ConnectorTaskId("c", 0)
TAGS = (("connector", "c"), ("task", "0"))
CONFIG = MetricConfig(samples=2, window_ms=1000)


class Clock:
    def __init__(self, now_ms: int = 1_000_000) -> None:
        self.now_ms = now_ms
        self.reads = 0

    def __call__(self) -> int:
        self.reads += 1
        return self.now_ms


def values(report: TaskMetricsReport) -> dict[tuple[str, str], Any]:
    return {(group, name): value for group, name, value in report}


def pick(read: dict[tuple[str, str], Any], group: str, *names: str) -> dict[str, Any]:
    """The values of ``names`` in ``group``."""
    return {name: read[(group, name)] for name in names}


def _record(n: int) -> SourceRecord:
    return SourceRecord({"p": 0}, {"o": n}, "data", value=n)


def test_polls_batches_and_commits_are_measured_as_java_measures_them() -> None:
    clock = Clock()
    metrics = TaskMetrics(TASK, CONFIG, clock=clock)
    metrics.polled(10, 4.0)
    metrics.batch_done(10, 8)  # two dropped by a transform
    metrics.polled(0, 2.0)  # an empty batch counts as a batch of 0
    metrics.batch_done(0, 0)
    metrics.polled(6, 1.0)  # not yet handed on: active
    metrics.commit_succeeded(30.0)
    metrics.commit_succeeded(10.0)
    metrics.commit_failed()  # no time recorded, only the outcome
    read = values(metrics.report())
    assert pick(read, "source-task-metrics", "source-record-poll-total", "source-record-write-total",
                "source-record-active-count", "source-record-active-count-max", "poll-batch-max-time-ms") == {
        "source-record-poll-total": 16, "source-record-write-total": 8, "source-record-active-count": 6,
        "source-record-active-count-max": 10, "poll-batch-max-time-ms": 4}
    assert read[("source-task-metrics", "poll-batch-avg-time-ms")] == pytest.approx(7 / 3)
    assert read[("connector-task-metrics", "batch-size-max")] == 10
    assert read[("connector-task-metrics", "batch-size-avg")] == pytest.approx(16 / 3)
    assert read[("connector-task-metrics", "offset-commit-max-time-ms")] == 30
    assert read[("connector-task-metrics", "offset-commit-avg-time-ms")] == 20
    assert read[("connector-task-metrics", "offset-commit-success-percentage")] == pytest.approx(2 / 3)
    assert read[("connector-task-metrics", "offset-commit-failure-percentage")] == pytest.approx(1 / 3)
    # Rates over at least (samples - 1) windows: 16 records in the first second.
    assert read[("source-task-metrics", "source-record-poll-rate")] == pytest.approx(16.0)
    clock.now_ms += 2 * CONFIG.window_ms  # every sample expired: windows empty, totals kept
    read = values(metrics.report())
    assert math.isnan(read[("connector-task-metrics", "batch-size-avg")])
    assert read[("source-task-metrics", "source-record-poll-rate")] == 0
    assert read[("source-task-metrics", "source-record-poll-total")] == 16


def test_a_new_task_reads_empty_windows_as_nan_and_totals_as_zero() -> None:
    read = values(TaskMetrics(TASK, CONFIG, clock=Clock()).report())
    assert math.isnan(read[("connector-task-metrics", "offset-commit-avg-time-ms")])
    assert read[("connector-task-metrics", "offset-commit-success-percentage")] == 0
    assert read[("task-error-metrics", "total-record-failures")] == 0
    assert read[("task-error-metrics", "last-error-timestamp")] == 0
    assert read[("task-error-metrics", "deadletterqueue-produce-requests")] == 0


def test_at_least_once_has_no_transaction_series() -> None:
    groups_names = values(TaskMetrics(TASK, CONFIG, clock=Clock(), client_id="p",
                                      client_stats=ClientStatsCollector()).report())
    assert not any(name.startswith(("transaction", "txn-")) for _, name in groups_names)
    assert {group for group, _ in groups_names} == {"connector-task-metrics", "source-task-metrics",
                                                     "task-error-metrics", "producer-metrics"}


def test_the_task_producers_connections_and_bytes_come_from_its_statistics() -> None:
    stats = ClientStatsCollector()
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="p", client_stats=stats, clock=Clock())
    read = values(metrics.report())
    assert (read[("producer-metrics", "connection-count")], read[("producer-metrics", "outgoing-byte-total")]) == (0, 0)
    stats(json.dumps({"name": "p#producer-1", "client_id": "p", "tx_bytes": 5000, "rx_bytes": 70,
                      "brokers": {"b1": {"state": "UP"}, "b2": {"state": "INIT"}}}))
    read = values(metrics.report())
    assert (read[("producer-metrics", "connection-count")], read[("producer-metrics", "outgoing-byte-total")]) == (
        1, 5000)


def test_transactions_sizes_counts_latency_age_and_producer_call_times() -> None:
    clock = Clock()
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="connector-producer-c-0", clock=clock)
    metrics.transaction_began()
    clock.now_ms += 1500
    assert values(metrics.report())[("connect-runtime-source-task-metrics", "transaction-open-age-seconds")] == 1.5
    metrics.transaction_committed(100, 12.0)
    metrics.transaction_began()
    metrics.transaction_aborted()
    metrics.transaction_began()
    metrics.transaction_committed(20, 300.0)
    metrics.producer_call("commit", 5_000)
    metrics.producer_call("commit", 7_000)
    metrics.producer_call("init", 1_000)
    read = values(metrics.report())
    assert read[("source-task-metrics", "transaction-size-min")] == 20
    assert read[("source-task-metrics", "transaction-size-max")] == 100
    assert read[("source-task-metrics", "transaction-size-avg")] == 60
    assert all(isinstance(value, float) for _, _, value in metrics.report() if not isinstance(value, HistogramValue))
    runtime = "connect-runtime-source-task-metrics"
    assert read[(runtime, "transactions-committed-total")] == 2
    assert read[(runtime, "transactions-aborted-total")] == 1
    assert read[(runtime, "transaction-open-age-seconds")] == 0  # none open
    latency = read[(runtime, "transaction-commit-latency-seconds")]
    assert isinstance(latency, HistogramValue)
    assert latency.count == 2 and latency.sum == pytest.approx(0.312)
    assert dict(latency.buckets)[0.025] == 1 and dict(latency.buckets)[0.5] == 2
    assert [bound for bound, _ in latency.buckets] == [*COMMIT_LATENCY_BUCKETS_S, math.inf]
    assert read[("producer-metrics", "txn-commit-time-ns-total")] == 12_000
    assert read[("producer-metrics", "txn-init-time-ns-total")] == 1_000
    assert read[("producer-metrics", "txn-abort-time-ns-total")] == 0
    # Commits feed Java's offset-commit metrics too.
    assert read[("connector-task-metrics", "offset-commit-max-time-ms")] == 300


def test_a_commit_or_a_poll_reads_the_clock_once() -> None:
    clock = Clock()
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="p", clock=clock)
    for record in (lambda: metrics.transaction_committed(10, 5.0), lambda: metrics.commit_succeeded(5.0),
                   metrics.commit_failed, lambda: metrics.polled(10, 1.0), lambda: metrics.batch_done(10, 10)):
        clock.reads = 0
        record()
        assert clock.reads == 1


def test_failed_writes_are_taken_off_the_write_total_and_never_make_the_rate_negative() -> None:
    clock = Clock()
    metrics = TaskMetrics(TASK, CONFIG, clock=clock)
    metrics.polled(10, 1.0)
    metrics.batch_done(10, 10)
    metrics.writes_failed(3)
    read = values(metrics.report())
    assert read[("source-task-metrics", "source-record-write-total")] == 7
    assert read[("source-task-metrics", "source-record-write-rate")] == pytest.approx(7.0)  # over the padded 1 s
    clock.now_ms += 2 * CONFIG.window_ms  # the writes' windows expired before the failure was reported
    metrics.writes_failed(2)
    read = values(metrics.report())
    assert read[("source-task-metrics", "source-record-write-total")] == 5
    assert read[("source-task-metrics", "source-record-write-rate")] == 0


def test_error_totals_come_from_the_error_handler() -> None:
    handler = RetryWithToleranceOperator(TASK, tolerance=ToleranceType.ALL, log_errors=True)
    metrics = TaskMetrics(TASK, CONFIG, errors=handler, clock=Clock())
    handler.failed(Stage.VALUE_CONVERTER, object(), lambda v: v, ("x",), _record(1), DataException("bad"))
    read = values(metrics.report())
    assert read[("task-error-metrics", "total-record-failures")] == 1
    assert read[("task-error-metrics", "total-record-errors")] == 1
    assert read[("task-error-metrics", "total-records-skipped")] == 1
    assert read[("task-error-metrics", "total-errors-logged")] == 1
    assert read[("task-error-metrics", "last-error-timestamp")] == handler.last_error_ms > 0


def test_the_null_recorder_reports_nothing() -> None:
    metrics = NullTaskMetrics()
    metrics.polled(5, 1.0)
    metrics.transaction_committed(5, 1.0)
    assert metrics.report() == ()


# -- the loops record into it ---------------------------------------------------------------------------
def test_an_exactly_once_loop_records_polls_writes_and_transactions() -> None:
    clock = Clock()
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="p", clock=clock)
    events: list[str] = []
    batches: list[list[SourceRecord] | Exception] = [[_record(1), _record(2), _record(3)], [], [_record(4)]]
    setup = task_setup(ScriptedTask(batches), statuses=FakeStatusListener(events), producer=FakeProducer(events),
                       metrics=metrics)
    task = ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    task.start()
    read: dict[tuple[str, str], Any] = {}

    def polled_all() -> bool:
        read.update(values(metrics.report()))
        return read[("source-task-metrics", "source-record-poll-total")] == 4

    wait_until(polled_all, 10, message="the loop polled every batch")
    task.stop()
    assert task.join(10)
    read = values(metrics.report())
    assert pick(read, "source-task-metrics", "source-record-write-total", "transaction-size-max",
                "transaction-size-min") == {"source-record-write-total": 4, "transaction-size-max": 3,
                                            "transaction-size-min": 1}
    assert read[("connect-runtime-source-task-metrics", "transactions-committed-total")] == 2
    # The empty batch and the idle polls after it commit nothing: successful empty commits (as Java counts).
    assert read[("connector-task-metrics", "offset-commit-success-percentage")] == 1
    assert read[("connector-task-metrics", "batch-size-max")] == 3


def test_a_connector_boundary_abort_is_counted_and_its_records_are_no_transaction() -> None:
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="p", clock=Clock())
    setup = task_setup(ScriptedTask(), producer=FakeProducer([]), metrics=metrics)
    task = ConnectorBoundaryWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    task._send_batch([_record(1), _record(2)])
    task.abort()
    task.commit()  # the offsets-only transaction
    read = values(metrics.report())
    runtime = "connect-runtime-source-task-metrics"
    assert read[(runtime, "transactions-aborted-total")] == 1
    assert read[(runtime, "transactions-committed-total")] == 1
    assert read[("source-task-metrics", "transaction-size-max")] == 0  # zeroed by the abort


def test_a_failing_tasks_open_transaction_counts_as_aborted() -> None:
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="p", clock=Clock())
    events: list[str] = []
    # A record to the task's own offsets topic fails the task mid-batch, its transaction open.
    setup = task_setup(ScriptedTask([[_record(1), SourceRecord({"p": 0}, {"o": 2}, "offsets", value=2)]]),
                       statuses=FakeStatusListener(events), producer=FakeProducer(events), metrics=metrics)
    ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)._run()
    assert "FAILED" in events
    read = values(metrics.report())
    runtime = "connect-runtime-source-task-metrics"
    assert (read[(runtime, "transactions-aborted-total")], read[(runtime, "transactions-committed-total")]) == (1, 0)
    assert read[(runtime, "transaction-open-age-seconds")] == 0


def test_an_at_least_once_flush_is_a_commit() -> None:
    metrics = TaskMetrics(TASK, CONFIG, clock=Clock())
    setup = task_setup(ScriptedTask(), producer=FakeProducer([]), metrics=metrics)
    task = AtLeastOnceWorkerSourceTask(setup, DeliveryErrors(), flush_interval_ms=60000, flush_timeout_ms=1000)
    task._send_batch([_record(1)])
    task.final_commit()
    read = values(metrics.report())
    assert read[("connector-task-metrics", "offset-commit-success-percentage")] == 1


def _failed_deliveries(log_errors: bool) -> tuple[dict[tuple[str, str], Any], RetryWithToleranceOperator]:
    """An at-least-once task with ``errors.tolerance=all`` sends 5 records, of which the producer fails 2."""
    handler = RetryWithToleranceOperator(TASK, tolerance=ToleranceType.ALL, log_errors=log_errors)
    metrics = TaskMetrics(TASK, CONFIG, errors=handler, clock=Clock())
    errors = DeliveryErrors()
    setup = task_setup(ScriptedTask(), producer=FakeProducer([]), metrics=metrics, error_handler=handler)
    task = AtLeastOnceWorkerSourceTask(setup, errors, flush_interval_ms=60000, flush_timeout_ms=1000)
    metrics.polled(5, 1.0)
    sent = task._send_batch([_record(n) for n in range(5)])
    metrics.batch_done(5, sent)
    for _ in range(2):
        errors(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), None)  # type: ignore[arg-type]
    task.batch_end(sent)
    return values(metrics.report()), handler


def test_tolerated_delivery_failures_count_as_failures_and_not_as_writes() -> None:
    read, handler = _failed_deliveries(log_errors=True)
    assert pick(read, "task-error-metrics", "total-record-failures", "total-errors-logged", "total-record-errors",
                "total-records-skipped") == {"total-record-failures": 2, "total-errors-logged": 2,
                                             "total-record-errors": 0, "total-records-skipped": 0}
    assert read[("task-error-metrics", "last-error-timestamp")] == handler.last_error_ms > 0
    assert read[("source-task-metrics", "source-record-write-total")] == 3
    read, _ = _failed_deliveries(log_errors=False)
    assert read[("task-error-metrics", "total-record-failures")] == 2
    assert read[("task-error-metrics", "total-errors-logged")] == 0


def _fake_abort_ns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each producer call appears to take 1 µs."""
    ticks = iter(range(0, 10**9, 1000))
    monkeypatch.setattr(exactly_once_source_task, "timed_ns", lambda: next(ticks))


def test_a_clean_stop_aborts_nothing_and_adds_no_abort_time(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_abort_ns(monkeypatch)
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="p", clock=Clock())
    setup = task_setup(ScriptedTask([[_record(1)]]), producer=FakeProducer([]), metrics=metrics)
    task = ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    task.start()
    wait_until(lambda: values(metrics.report())[("connect-runtime-source-task-metrics",
                                                  "transactions-committed-total")] == 1, 10, message="committed")
    task.stop()
    assert task.join(10)
    assert values(metrics.report())[("producer-metrics", "txn-abort-time-ns-total")] == 0


def test_the_abort_of_a_failing_tasks_open_transaction_is_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_abort_ns(monkeypatch)
    metrics = TaskMetrics(TASK, CONFIG, exactly_once=True, client_id="p", clock=Clock())
    setup = task_setup(ScriptedTask([[_record(1)], RuntimeError("poll broke")]), producer=FakeProducer([]),
                       metrics=metrics)
    ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None,
                                boundary=TransactionBoundary.INTERVAL, interval_ms=60000)._run()
    read = values(metrics.report())
    assert read[("connect-runtime-source-task-metrics", "transactions-aborted-total")] == 1
    assert read[("producer-metrics", "txn-abort-time-ns-total")] == 1000


class _Statuses(RecordingStatuses):
    """No task has a status yet (the worker's own per-connector task counts read it)."""

    def get_task(self, task: ConnectorTaskId) -> None:
        return None


# -- the worker's mirror --------------------------------------------------------------------------------
def _mirror(metrics: ConnectMetrics, exactly_once: bool = True,
            state: TargetState = TargetState.STARTED) -> TaskMetricsMirror:
    return TaskMetricsMirror(metrics, TASK, state, exactly_once=exactly_once, client_id="connector-producer-c-0",
                             info={"connector-class": "VerifiableSource", "connector-type": "source"})


def _read(metrics: ConnectMetrics) -> dict[tuple[str, str, tuple[tuple[str, str], ...]], Any]:
    return {(r.spec.group, r.spec.name, r.tags): r.value for r in metrics.read()}


def test_the_mirror_opens_every_group_at_once_with_empty_values() -> None:
    metrics = ConnectMetrics(CONFIG, Clock())
    _mirror(metrics)
    read = _read(metrics)
    assert read[("task-error-metrics", "total-record-failures", TAGS)] == 0
    assert read[("connector-task-metrics", "status", TAGS)] == "running"  # as Java, from construction
    assert read[("connector-task-metrics", "connector-class", TAGS)] == "VerifiableSource"
    assert math.isnan(read[("source-task-metrics", "transaction-size-avg", TAGS)])
    assert read[("producer-metrics", "txn-commit-time-ns-total", (("client-id", "connector-producer-c-0"),))] == 0
    assert ("connector-task-metrics", "task-version", TAGS) not in read  # not built yet
    at_least_once = ConnectMetrics(CONFIG, Clock())
    _mirror(at_least_once, exactly_once=False)
    read = _read(at_least_once)
    assert not any(name.startswith(("transaction", "txn-")) for _, name, _ in read)
    assert read[("producer-metrics", "connection-count", (("client-id", "connector-producer-c-0"),))] == 0


def test_the_mirror_serves_the_latest_report_and_the_lifecycle_state() -> None:
    clock = Clock()
    metrics = ConnectMetrics(CONFIG, clock)
    mirror = _mirror(metrics)
    mirror.built("1.0")
    mirror.reported((("source-task-metrics", "source-record-write-total", 42.0),
                     ("source-task-metrics", "not-a-metric-it-opened", 1.0)))
    clock.now_ms += 1000
    mirror.change_state(TrackedState.PAUSED)
    clock.now_ms += 3000
    read = _read(metrics)
    assert read[("source-task-metrics", "source-record-write-total", TAGS)] == 42
    assert read[("connector-task-metrics", "task-version", TAGS)] == "1.0"
    assert read[("connector-task-metrics", "status", TAGS)] == "paused"
    assert read[("connector-task-metrics", "pause-ratio", TAGS)] == pytest.approx(0.75)
    assert read[("connector-task-metrics", "running-ratio", TAGS)] == pytest.approx(0.25)
    mirror.change_state(TrackedState.FAILED)
    assert _read(metrics)[("connector-task-metrics", "status", TAGS)] == "failed"


_WINDOWED = {("source-task-metrics", "source-record-write-rate"): 0.0,
             ("connector-task-metrics", "offset-commit-success-percentage"): 0.0,
             ("connector-task-metrics", "batch-size-avg"): math.nan,
             ("connector-task-metrics", "batch-size-max"): math.nan,
             ("source-task-metrics", "transaction-size-min"): math.nan}
_KEPT = {("source-task-metrics", "source-record-write-total"): 42.0,
         ("source-task-metrics", "source-record-active-count"): 6.0,
         ("task-error-metrics", "total-record-failures"): 2.0,
         ("task-error-metrics", "last-error-timestamp"): 1_000_000.0,
         ("connect-runtime-source-task-metrics", "transactions-committed-total"): 4.0}


def _report_all() -> TaskMetricsReport:
    return tuple((group, name, 5.0) for group, name in _WINDOWED) + tuple(
        (group, name, value) for (group, name), value in _KEPT.items())


def _same(a: Any, b: Any) -> bool:
    return (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)) or a == b


def test_an_ended_tasks_windows_read_empty_once_they_expired_and_its_totals_stay() -> None:
    clock = Clock()
    metrics = ConnectMetrics(CONFIG, clock)
    mirror = _mirror(metrics)
    mirror.reported(_report_all())
    clock.now_ms += 500
    mirror.ended()
    expiry = CONFIG.samples * CONFIG.window_ms
    clock.now_ms += expiry - 501  # just short of samples x window since the last report
    read = _read(metrics)
    assert all(read[(group, name, TAGS)] == 5.0 for group, name in _WINDOWED)
    clock.now_ms += 1
    read = _read(metrics)
    assert all(_same(read[(group, name, TAGS)], empty) for (group, name), empty in _WINDOWED.items())
    assert all(read[(group, name, TAGS)] == value for (group, name), value in _KEPT.items())


def test_a_running_tasks_windows_are_its_reports_however_old() -> None:
    clock = Clock()
    metrics = ConnectMetrics(CONFIG, clock)
    mirror = _mirror(metrics)
    mirror.reported(_report_all())
    clock.now_ms += 10 * CONFIG.samples * CONFIG.window_ms  # the process measures its own windows
    assert _read(metrics)[("source-task-metrics", "source-record-write-rate", TAGS)] == 5.0


def test_a_closed_mirror_leaves_no_series_and_ignores_late_reports() -> None:
    metrics = ConnectMetrics(CONFIG, Clock())
    mirror = _mirror(metrics)
    mirror.close()
    mirror.reported((("source-task-metrics", "source-record-write-total", 42.0),))
    assert metrics.read() == []


def test_the_mirror_starts_paused_for_a_task_built_paused() -> None:
    metrics = ConnectMetrics(CONFIG, Clock())
    _mirror(metrics, state=TargetState.PAUSED)
    assert _read(metrics)[("connector-task-metrics", "status", TAGS)] == "paused"


def test_the_worker_opens_a_tasks_groups_when_it_builds_it_and_closes_them_when_it_leaves() -> None:
    RecordingRunner.specs = []
    config = WorkerConfig.from_properties({**MINIMAL_WORKER, "exactly.once.source.support": "disabled",
                                           "metrics.sample.window.ms": "5000"})
    worker = Worker(config, "w1:8083", PluginRegistry(), None, _Statuses(), lambda name: None,  # type: ignore[arg-type]
                    task_runner=RecordingRunner)  # type: ignore[arg-type]
    connector = {"name": "c", "connector.class": "VerifiableSource", "tasks.max": "1", "topic": "t"}
    task_props = {**connector, TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}
    assert worker.start_task(TASK, connector, task_props, TargetState.STARTED, verify_generation=lambda: None)
    (spec,) = RecordingRunner.specs
    assert spec.metric_config == MetricConfig(samples=2, window_ms=5000)  # the task's windows are the worker's
    read = _read(worker.metrics)
    assert read[("task-error-metrics", "total-record-failures", TAGS)] == 0
    # Named as a Java worker names them: Kafka's names of our counterparts of Kafka's plugins.
    assert read[("connector-task-metrics", "task-class", TAGS)] == "org.apache.kafka.connect.tools.VerifiableSourceTask"
    assert read[("connector-task-metrics", "connector-class", TAGS)] == (
        "org.apache.kafka.connect.tools.VerifiableSourceConnector")
    assert read[("connector-task-metrics", "value-converter-class", TAGS)] == (
        "org.apache.kafka.connect.json.JsonConverter")
    worker.stop_tasks([TASK])
    assert not any(tags == TAGS for _, _, tags in _read(worker.metrics))


class _UnstartedProcess(TaskProcess):
    """The real task-process handle, without its process: the task's messages are handed to it directly."""

    made: list[TaskProcess] = []

    def start(self) -> None:
        _UnstartedProcess.made.append(self)


def _worker_with_unstarted_task() -> tuple[Worker, TaskProcess]:
    """A worker that built task ``c-0``, whose process handle was not started."""
    _UnstartedProcess.made = []
    config = WorkerConfig.from_properties({**MINIMAL_WORKER, "exactly.once.source.support": "disabled"})
    worker = Worker(config, "w1:8083", PluginRegistry(), None, _Statuses(), lambda name: None,  # type: ignore[arg-type]
                    task_runner=_UnstartedProcess)
    connector = {"name": "c", "connector.class": "VerifiableSource", "tasks.max": "1", "topic": "t"}
    task_props = {**connector, TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}
    assert worker.start_task(TASK, connector, task_props, TargetState.STARTED, verify_generation=lambda: None)
    (process,) = _UnstartedProcess.made
    return worker, process


def test_the_task_process_handle_feeds_the_reports_and_the_lifecycle_to_the_mirror() -> None:
    worker, process = _worker_with_unstarted_task()
    process.task_built(protocol.TaskBuilt("7.0"))
    process.status_changed(protocol.StatusChanged(TASK, protocol.Lifecycle.PAUSED))
    process.metrics_reported(protocol.MetricsReported((("task-error-metrics", "total-record-failures", 3.0),)))
    read = _read(worker.metrics)
    assert read[("connector-task-metrics", "status", TAGS)] == "paused"
    assert read[("connector-task-metrics", "task-version", TAGS)] == "7.0"
    assert read[("task-error-metrics", "total-record-failures", TAGS)] == 3
    process.metrics_reported(protocol.MetricsReported((("source-task-metrics", "source-record-write-rate", 9.0),)))
    process.task_failed(protocol.TaskFailed(TASK, "trace", False))
    process.task_closed(protocol.TaskClosed(True))
    assert _read(worker.metrics)[("connector-task-metrics", "status", TAGS)] == "failed"  # kept while FAILED here
    assert _read(worker.metrics)[("source-task-metrics", "source-record-write-rate", TAGS)] == 9
    later = worker.metrics.clock() + 60_000  # the worker's default windows: 2 x 30 s after the last report
    worker.metrics.clock = lambda: later
    assert _read(worker.metrics)[("source-task-metrics", "source-record-write-rate", TAGS)] == 0
    worker.stop_tasks([TASK])  # restarted, moved or deleted: gone
    assert not any(tags == TAGS for _, _, tags in _read(worker.metrics))


class _ServedChannel:
    """A pipe whose other end is gone."""

    def serve(self) -> None: ...

    def close(self) -> None: ...


class _DeadProcess:
    exitcode = -9

    def join(self, timeout: float | None = None) -> None: ...


def test_a_task_process_that_died_ends_its_metrics_windows() -> None:
    worker, process = _worker_with_unstarted_task()
    process.metrics_reported(protocol.MetricsReported((("connector-task-metrics", "batch-size-max", 9.0),)))
    process._channel = _ServedChannel()  # type: ignore[assignment]
    process._process = _DeadProcess()
    process._watch()  # killed: no goodbye, no last report
    read = _read(worker.metrics)
    assert read[("connector-task-metrics", "status", TAGS)] == "failed"
    assert read[("connector-task-metrics", "batch-size-max", TAGS)] == 9
    later = worker.metrics.clock() + 60_000
    worker.metrics.clock = lambda: later
    assert math.isnan(_read(worker.metrics)[("connector-task-metrics", "batch-size-max", TAGS)])


# -- the task process's reporter ------------------------------------------------------------------------
class _Channel:
    def __init__(self) -> None:
        self.reports: list[TaskMetricsReport] = []
        self.closed = False

    def notify(self, message: protocol.MetricsReported) -> None:
        if self.closed:
            raise ChannelClosed
        self.reports.append(message.report)


class _SlowFirstReport(NullTaskMetrics):
    """The reporter thread's first report is taken before the task ends and sent after it ended."""

    def __init__(self) -> None:
        super().__init__()
        self.reports = 0
        self.taking = threading.Event()
        self.release = threading.Event()

    def report(self) -> TaskMetricsReport:
        self.reports += 1
        number = self.reports
        if number == 1:
            self.taking.set()
            self.release.wait(10)
        return (("source-task-metrics", "source-record-write-total", float(number)),)


def test_no_periodic_report_follows_the_last_one() -> None:
    channel = _Channel()
    metrics = _SlowFirstReport()
    reporter = MetricsReporter(channel, metrics, interval_s=0.01)  # type: ignore[arg-type]
    reporter.start()
    wait_until(metrics.taking.is_set, 10, message="a periodic report is being taken")
    closing = threading.Thread(target=reporter.close)
    closing.start()
    closing.join(0.5)  # a close that does not wait for the periodic report has sent the last one by now
    metrics.release.set()
    closing.join(10)
    assert not closing.is_alive()
    reporter._thread.join(10)
    assert channel.reports[-1] == (("source-task-metrics", "source-record-write-total", 2.0),)


class _BrokenReport(NullTaskMetrics):
    """Fails five times, then reads (into a channel that is closed: the reporter ends)."""

    def __init__(self) -> None:
        super().__init__()
        self.attempts = 0

    def report(self) -> TaskMetricsReport:
        self.attempts += 1
        if self.attempts <= 5:
            raise ValueError("cannot read")
        return ()


def test_a_report_that_keeps_failing_is_logged_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    channel = _Channel()
    channel.closed = True
    metrics = _BrokenReport()
    reporter = MetricsReporter(channel, metrics, interval_s=0.001)  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="connect_runtime.worker.task_process_main"):
        reporter.start()
        reporter._thread.join(10)
    assert not reporter._thread.is_alive() and metrics.attempts == 6
    assert [r.getMessage() for r in caplog.records if r.name == "connect_runtime.worker.task_process_main"] == [
        "Failed to report the metrics of the task"]


# -- fencing rounds, on the worker that fences -----------------------------------------------------------
class _State:
    connector_configs = {"c": {"connector.class": "VerifiableSource"}}
    pending_fencing = {"c"}
    task_count_records = {"c": 3}
    task_counts = {"c": 2}

    def contains(self, connector: str) -> bool:
        return connector == "c"

    def task_config_generation(self, connector: str) -> int:
        return 1


class _Store:
    def refresh(self) -> _State:
        return _State()


class _Leadership:
    def require_leader(self) -> None: ...

    def write(self, records: Any) -> None: ...


def test_a_fencing_round_is_counted_with_its_duration_on_the_fencing_worker() -> None:
    metrics = ConnectMetrics(CONFIG, Clock())
    config = WorkerConfig.from_properties({**MINIMAL_WORKER, "exactly.once.source.support": "enabled"})
    fencer = ZombieFencer(config, _Store(), _Leadership(), lambda props: True, lambda props: {},  # type: ignore[arg-type]
                          lambda run: run(), metrics)
    fenced: list[ConnectorTaskId] = []
    fencer.fence_producer = lambda task, base: fenced.append(task)  # type: ignore[method-assign]
    try:
        fencer.fence("c")
        fencer.fence("c")
        assert len(fenced) == 6  # the previous generation's three producers, twice
        read = _read(metrics)
        tags = (("connector", "c"),)
        assert read[("connect-runtime-connector-metrics", "fencing-rounds-total", tags)] == 2
        duration = read[("connect-runtime-connector-metrics", "fencing-duration-seconds", tags)]
        assert isinstance(duration, HistogramValue) and duration.count == 2
    finally:
        fencer.close()


def _fencer(metrics: ConnectMetrics) -> ZombieFencer:
    config = WorkerConfig.from_properties({**MINIMAL_WORKER, "exactly.once.source.support": "enabled"})
    fencer = ZombieFencer(config, _Store(), _Leadership(), lambda props: True, lambda props: {},  # type: ignore[arg-type]
                          lambda run: run(), metrics)
    fencer.fence_producer = lambda task, base: None  # type: ignore[method-assign]
    return fencer


def test_a_deleted_connectors_fencing_series_are_closed() -> None:
    metrics = ConnectMetrics(CONFIG, Clock())
    fencer = _fencer(metrics)
    try:
        fencer.fence("c")
        fencer.close_deleted(lambda name: name == "c")  # still there
        assert _read(metrics)[("connect-runtime-connector-metrics", "fencing-rounds-total", (("connector", "c"),))] == 1
        fencer.close_deleted(lambda name: False)
        assert metrics.read() == []
    finally:
        fencer.close()


def test_a_stopped_fencers_series_are_closed_and_a_late_round_opens_none() -> None:
    metrics = ConnectMetrics(CONFIG, Clock())
    fencer = _fencer(metrics)
    fencer.fence("c")
    fencer.close()
    assert metrics.read() == []
    fencer._record_round("c", 0.1)  # a round that was under way when the worker stopped
    assert metrics.read() == []
