"""A task's metrics: measured in its process, reported to its worker once a second, served by the worker.

Java records a task's metrics in the worker's registry from the task's own thread. Here the task runs in a
process of its own, and the worker's :class:`~connect_runtime.metrics.connect_metrics.ConnectMetrics` is in
another. Sending every event over the pipe would put IPC on the hot path, so the task process keeps the
stats itself (:class:`TaskMetrics`, Java's stats from :mod:`connect_runtime.metrics`, recorded once per poll,
batch, commit or abort, never per record) and sends the worker what they read (a :data:`TaskMetricsReport`)
once a second and when the task ends. The worker's :class:`TaskMetricsMirror` opens the task's groups when
the task is built (every metric at its empty value, as Java's groups exist from the task's construction),
serves the last report, and closes them when the task leaves the worker. Windowed stats are therefore up to
a report interval old; cumulative ones only lag by as much. Once the process has ended (a FAILED task keeps
its groups), nothing measures its windows any more: the mirror serves them at their empty values once
``samples * window_ms`` has passed since the last report, as Java's windows of a task that stopped
recording read by then.

What the worker knows better than the process stays with the worker: the task's ``status`` and its
``running-ratio`` / ``pause-ratio`` follow the lifecycle notes the worker writes to the status topic, so
``status`` always agrees with ``GET /connectors/{c}/status``.

Deviations from Java, by design: ``source-record-write-*`` counts records when they are handed to the
producer (Java counts them when the last record of the batch is acknowledged). The totals agree: a failed
send fails the task, or, tolerated (at least once with ``errors.tolerance=all``), is taken off again when
the producer reports it; the rate then reads it in the window of the report, never below 0. Under
exactly-once an empty commit (nothing sent and no offsets) counts as a successful commit as in Java but
not as a committed transaction nor in the commit-latency histogram.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from connect_runtime.metrics.client_stats import ClientStatsCollector
from connect_runtime.metrics.connect_metrics import ConnectMetrics, MetricGroup, MetricValue
from connect_runtime.metrics.registry import (
    PRODUCER_GROUP,
    RUNTIME_SOURCE_TASK_GROUP,
    SOURCE_TASK_GROUP,
    TASK_ERROR_GROUP,
    TASK_GROUP,
    StatKind,
    metric,
)
from connect_runtime.metrics.stats import (
    Avg,
    Clock,
    CumulativeSum,
    Histogram,
    Max,
    MetricConfig,
    Min,
    Rate,
    TrackedState,
    Value,
    wall_clock_ms,
)
from connect_runtime.plugins.registry import java_class_name, listed_name, qualified_name
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.task_spec import TaskSpec

#: Upper bounds (seconds) of the commit-latency histogram: a local broker commits in a few ms, a remote or
#: loaded one in tens to hundreds; a commit that retries in 1 s slices can take up to the producer's 60 s
#: transaction timeout. Roughly x2.5 steps keep ``histogram_quantile`` within a factor of about 2 everywhere.
COMMIT_LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

#: What a task process sends its worker: ``(group, metric name, value)`` for each metric it measures.
TaskMetricsReport = tuple[tuple[str, str, MetricValue], ...]

#: How often a running task process reports.
REPORT_INTERVAL_S = 1.0

_TXN_CALLS = ("init", "begin", "send-offsets", "commit", "abort")


class ErrorCounts(Protocol):
    """The error handler's counters (``RetryWithToleranceOperator``: the reference's task-error-metrics)."""

    failures: int
    errors: int
    skipped: int
    retries: int
    logged: int
    last_error_ms: int


class _NoErrors:
    failures = errors = skipped = retries = logged = last_error_ms = 0


def task_tags(task: ConnectorTaskId) -> tuple[tuple[str, str], ...]:
    """The ``connector`` and ``task`` tags of a task's groups, in the table's order."""
    return (("connector", task.connector), ("task", str(task.task)))


class TaskMetrics:
    """The metrics a task loop records, in the task's process (pure logic: the clock is injected).

    The loop calls one method per poll, batch, commit or abort, with counts it kept in ints; nothing here
    is called per record. With a ``client_id``, the task producer's ``producer-metrics`` too: its
    connections and bytes from ``client_stats`` (its librdkafka statistics), and under ``exactly_once``
    (which also adds the transaction metrics) the time spent in its transactional calls.
    """

    def __init__(self, task: ConnectorTaskId, config: MetricConfig | None = None, *, exactly_once: bool = False,
                 client_id: str | None = None, errors: ErrorCounts | None = None,
                 client_stats: ClientStatsCollector | None = None, clock: Clock = wall_clock_ms) -> None:
        config = config or MetricConfig()
        self._clock = clock
        self._metrics = ConnectMetrics(config, clock)
        tags = task_tags(task)
        group = self._metrics.group(TASK_GROUP, tags)
        self._batch = group.sensor({"batch-size-max": Max(config), "batch-size-avg": Avg(config)})
        self._commit_time = group.sensor({"offset-commit-max-time-ms": Max(config),
                                          "offset-commit-avg-time-ms": Avg(config)})
        self._commits = group.outcomes("offset-commit-success-percentage", "offset-commit-failure-percentage")
        source = self._metrics.group(SOURCE_TASK_GROUP, tags)
        self._poll = source.sensor({"source-record-poll-rate": Rate(config),
                                    "source-record-poll-total": CumulativeSum()})
        self._write = source.sensor({"source-record-write-rate": _NotBelowZero(Rate(config)),
                                     "source-record-write-total": CumulativeSum()})
        self._poll_time = source.sensor({"poll-batch-max-time-ms": Max(config), "poll-batch-avg-time-ms": Avg(config)})
        self._active_records = source.sensor({"source-record-active-count": Value(),
                                              "source-record-active-count-max": Max(config),
                                              "source-record-active-count-avg": Avg(config)})
        self._active = 0
        self._errors: ErrorCounts = errors or _NoErrors()
        self._error_gauges(self._metrics.group(TASK_ERROR_GROUP, tags))
        self.exactly_once = exactly_once
        self.committed = 0
        self.aborted = 0
        self._txn_began_ms: int | None = None
        self._txn_ns = dict.fromkeys(_TXN_CALLS, 0)
        if exactly_once:
            self._txn_size = source.sensor({"transaction-size-min": Min(config), "transaction-size-max": Max(config),
                                            "transaction-size-avg": Avg(config)})
            runtime = self._metrics.group(RUNTIME_SOURCE_TASK_GROUP, tags)
            runtime.gauge("transactions-committed-total", lambda: float(self.committed))
            runtime.gauge("transactions-aborted-total", lambda: float(self.aborted))
            runtime.gauge("transaction-open-age-seconds", self._open_age_s)
            self._latency = runtime.sensor({"transaction-commit-latency-seconds":
                                            Histogram(COMMIT_LATENCY_BUCKETS_S)})
        if client_id is not None:
            self._producer_gauges(self._metrics.group(PRODUCER_GROUP, (("client-id", client_id),)), client_stats)

    def _error_gauges(self, group: MetricGroup) -> None:
        errors = self._errors
        group.gauge("total-record-failures", lambda: float(errors.failures))
        group.gauge("total-record-errors", lambda: float(errors.errors))
        group.gauge("total-records-skipped", lambda: float(errors.skipped))
        group.gauge("total-retries", lambda: float(errors.retries))
        group.gauge("total-errors-logged", lambda: float(errors.logged))
        # Source tasks have no dead letter queue (Java's is for sink tasks): always 0, as Java's read.
        group.gauge("deadletterqueue-produce-requests", lambda: 0.0)
        group.gauge("deadletterqueue-produce-failures", lambda: 0.0)
        group.gauge("last-error-timestamp", lambda: float(errors.last_error_ms))

    def _producer_gauges(self, group: MetricGroup, stats: ClientStatsCollector | None) -> None:
        """The task producer's Java client metrics: its connections and bytes from librdkafka's statistics
        (0 until the first), and under exactly-once the time spent in its transactional calls."""
        if stats is not None:
            group.gauge("connection-count", lambda: float(stats.connection_count()))
            group.gauge("outgoing-byte-total", lambda: float(stats.outgoing_bytes()))
        if self.exactly_once:
            for call in _TXN_CALLS:
                group.gauge(f"txn-{call}-time-ns-total", self._ns_reader(call))

    def _ns_reader(self, call: str) -> Callable[[], MetricValue]:
        return lambda: float(self._txn_ns[call])

    def _open_age_s(self) -> float:
        began = self._txn_began_ms
        return 0.0 if began is None else max(self._clock() - began, 0) / 1000.0

    # -- the task loop ------------------------------------------------------------------------------
    # Values are recorded as floats, as Java's doubles (a Max of ints would read an int), and times in whole
    # milliseconds, as Java records them.
    def polled(self, count: int, duration_ms: float) -> None:
        """``poll()`` returned a batch (possibly empty) of ``count`` records after ``duration_ms``."""
        now = self._clock()  # once for the batch's records
        self._poll.record(float(count), now)
        self._poll_time.record(float(int(duration_ms)), now)
        self._batch.record(float(count), now)
        self._active += count
        self._active_records.record(float(self._active), now)

    def batch_done(self, batch: int, written: int) -> None:
        """The batch of ``batch`` records is handed on: ``written`` went to the producer, the rest were
        dropped or skipped."""
        now = self._clock()
        self._write.record(float(written), now)
        self._active = max(0, self._active - batch)
        self._active_records.record(float(self._active), now)

    def writes_failed(self, count: int) -> None:
        """The producer failed to deliver ``count`` records handed to it, and the task goes on without them
        (``errors.tolerance=all``): they were not written (Java leaves them out of its write count)."""
        self._write.record(-float(count), self._clock())

    def commit_succeeded(self, duration_ms: float) -> None:
        """An offsets commit (a transaction commit under exactly-once, empty ones included) succeeded."""
        self._commit_succeeded(duration_ms, self._clock())

    def _commit_succeeded(self, duration_ms: float, now: int) -> None:
        self._commit_time.record(float(int(duration_ms)), now)
        self._commits.record(True, now)

    def commit_failed(self) -> None:
        """An offsets commit failed (as Java, a failure records no time)."""
        self._commits.record(False, self._clock())

    # -- exactly-once -------------------------------------------------------------------------------
    def transaction_began(self) -> None:
        self._txn_began_ms = self._clock()

    def transaction_committed(self, size: int, duration_ms: float) -> None:
        """A transaction of ``size`` records committed, its offsets written and committed in ``duration_ms``."""
        now = self._clock()  # once for the commit's sensors
        self._txn_began_ms = None
        self.committed += 1
        self._txn_size.record(float(size), now)
        self._latency.record(duration_ms / 1000.0, now)
        self._commit_succeeded(duration_ms, now)

    def transaction_aborted(self) -> None:
        self._txn_began_ms = None
        self.aborted += 1

    def transaction_ended(self) -> None:
        """The task is failing and drops its producer: an open transaction is aborted with it."""
        if self._txn_began_ms is not None:
            self.aborted += 1
        self._txn_began_ms = None

    def producer_call(self, call: str, duration_ns: int) -> None:
        """A transactional call of the producer (``init``, ``begin``, ``commit``, ``abort``) took ``duration_ns``."""
        self._txn_ns[call] += duration_ns

    def report(self) -> TaskMetricsReport:
        """What every metric reads now."""
        return tuple((r.spec.group, r.spec.name, r.value) for r in self._metrics.read())


def _ignore(*args: object, **kwargs: object) -> None:
    pass


class NullTaskMetrics(TaskMetrics):
    """Records nothing: for tests of the loops, and the benchmark's metrics-off runs (never a user setting)."""

    def __init__(self) -> None:
        self.exactly_once = False
        self.committed = self.aborted = 0

    polled = batch_done = writes_failed = commit_succeeded = commit_failed = staticmethod(_ignore)
    transaction_began = transaction_committed = transaction_aborted = transaction_ended = staticmethod(_ignore)
    producer_call = staticmethod(_ignore)

    def report(self) -> TaskMetricsReport:
        return ()


class _NotBelowZero:
    """A rate that reads 0 rather than a negative number: failed writes are taken off in the window they are
    reported in, which may no longer hold the window their records were counted in."""

    def __init__(self, rate: Rate) -> None:
        self._rate = rate

    def record(self, value: float, now_ms: int) -> None:
        self._rate.record(value, now_ms)

    def measure(self, now_ms: int) -> float:
        return max(self._rate.measure(now_ms), 0.0)


def timed_ns() -> int:
    """The clock producer calls are timed with."""
    return time.perf_counter_ns()


#: What a windowed stat reads once every sample expired (Java's: 0 for rates and shares, NaN otherwise).
_EMPTY_WINDOW = {StatKind.RATE: 0.0, StatKind.FREQUENCY: 0.0, StatKind.AVG: math.nan, StatKind.MAX: math.nan,
                 StatKind.MIN: math.nan}

_STATES = {TargetState.STARTED: TrackedState.RUNNING, TargetState.PAUSED: TrackedState.PAUSED,
           TargetState.STOPPED: TrackedState.STOPPED}


class TaskMetricsMirror:
    """The worker's side: a task's groups in the worker's :class:`ConnectMetrics`, fed by its reports.

    Opened when the task is built, with every metric the process will report at its empty value (NaN
    averages, zero totals), so that dashboards joining on ``total-record-failures`` see the task at once.
    ``status`` and the ratios follow the lifecycle the worker records; ``info`` adds the plugin strings
    (``connector-class``, ``task-class``, converter classes). Closed when the task leaves the worker; a
    FAILED task keeps its groups (status ``failed``) until then, and once its process has ended
    (:meth:`ended`) its windowed metrics read empty after ``samples * window_ms`` without a report.
    """

    def __init__(self, metrics: ConnectMetrics, task: ConnectorTaskId, initial_state: TargetState, *,
                 exactly_once: bool, client_id: str | None, info: Mapping[str, str]) -> None:
        self._metrics = metrics
        self.task = task
        blank = TaskMetrics(task, metrics.config, exactly_once=exactly_once, client_id=client_id,
                            client_stats=ClientStatsCollector(), clock=metrics.clock)
        self._values: dict[tuple[str, str], MetricValue] = {(g, n): v for g, n, v in blank.report()}
        self._lock = threading.Lock()
        self._closed = False
        self._version: str | None = None
        self._expiry_ms = metrics.config.samples * metrics.config.window_ms
        self._reported_ms: int | None = None
        self._ended_ms: int | None = None
        tags = task_tags(task)
        self._groups: dict[str, MetricGroup] = {}
        task_group = self._group(TASK_GROUP, tags)
        task_group.gauge("status", self._status)
        self._tracker = task_group.state_ratios({"running-ratio": TrackedState.RUNNING,
                                                 "pause-ratio": TrackedState.PAUSED})
        self._tracker.change_state(_STATES[initial_state], metrics.clock())
        for name, value in info.items():
            task_group.gauge(name, _constant(value))
        task_group.gauge("task-version", lambda: self._version)
        for group, name in self._values:
            group_tags = (("client-id", client_id),) if group == PRODUCER_GROUP and client_id is not None else tags
            kind = metric(group, name, tuple(tag for tag, _ in group_tags)).kind
            self._group(group, group_tags).gauge(name, self._reader(group, name, _EMPTY_WINDOW.get(kind)))

    @classmethod
    def of(cls, metrics: ConnectMetrics, spec: TaskSpec) -> TaskMetricsMirror:
        """The mirror of the task ``spec`` describes."""
        client_id = spec.producer_config.get("client.id")
        return cls(metrics, spec.task_id, spec.initial_state, exactly_once=spec.exactly_once,
                   client_id=None if client_id is None else str(client_id), info=plugin_info(spec))

    def _group(self, name: str, tags: tuple[tuple[str, str], ...]) -> MetricGroup:
        group = self._groups.get(name)
        if group is None:
            group = self._groups[name] = self._metrics.group(name, tags)
        return group

    def _reader(self, group: str, name: str, empty: float | None) -> Callable[[], MetricValue | None]:
        """Reads the last report's value; a windowed one (``empty`` is its empty value) reads ``empty`` once
        the task's windows have expired."""
        key = (group, name)
        if empty is None:
            return lambda: self._values.get(key)
        return lambda: empty if self._windows_expired() else self._values.get(key)

    def _windows_expired(self) -> bool:
        ended = self._ended_ms
        if ended is None:
            return False  # a live process keeps its windows current
        last = self._reported_ms if self._reported_ms is not None else ended
        return self._metrics.clock() - last >= self._expiry_ms

    def _status(self) -> str | None:
        state = self._tracker.state
        return None if state is None else state.value

    def reported(self, report: TaskMetricsReport) -> None:
        """The task process's latest report (one from an instance whose groups are closed is dropped)."""
        with self._lock:
            if self._closed:
                return
            values = dict(self._values)
            for group, name, value in report:
                if (group, name) in values:  # only what the groups were opened with
                    values[(group, name)] = value
            self._values = values
            self._reported_ms = self._metrics.clock()

    def ended(self) -> None:
        """The task's process has ended (or said its last word): no report will refresh its windows."""
        with self._lock:
            if self._ended_ms is None:
                self._ended_ms = self._metrics.clock()

    def change_state(self, state: TrackedState) -> None:
        """The task's lifecycle moved (the status the worker wrote)."""
        self._tracker.change_state(state, self._metrics.clock())

    def built(self, version: str | None) -> None:
        """The process built the task; ``version`` is what its ``version()`` returned."""
        self._version = version

    def close(self) -> None:
        """The task left this worker: its series disappear."""
        with self._lock:
            self._closed = True
        for group in self._groups.values():
            group.close()


def plugin_info(spec: TaskSpec) -> dict[str, str]:
    """The plugin strings of ``connector-task-metrics``, named as a Java worker names them: Kafka's class
    names for our counterparts of Kafka's plugins (the versions are left out, but the task's own)."""
    plugins = spec.plugins
    return {
        "connector-class": _class_name(plugins.connector_class(spec.connector_config["connector.class"])),
        "connector-type": "source",
        "task-class": _class_name(spec.task_class),
        "key-converter-class": listed_name(plugins.converter(spec.key_converter[0])),
        "value-converter-class": listed_name(plugins.converter(spec.value_converter[0])),
        "header-converter-class": listed_name(plugins.header_converter(spec.header_converter[0])),
    }


def _class_name(cls: type) -> str:
    return java_class_name(cls) or qualified_name(cls)


def _constant(value: str) -> Callable[[], MetricValue | None]:
    return lambda: value
