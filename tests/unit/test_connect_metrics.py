"""The live metric groups: names checked against the table, tags, lifecycles, readings, thread safety."""

from __future__ import annotations

import math
import threading

import pytest

from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.stats import Avg, CumulativeSum, Histogram, HistogramValue, Max, MetricConfig, TrackedState

_TASK_TAGS = (("connector", "c"), ("task", "0"))


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def _values(metrics: ConnectMetrics) -> dict[tuple[str, str, tuple[tuple[str, str], ...]], object]:
    return {(r.spec.group, r.spec.name, r.tags): r.value for r in metrics.read()}


def test_a_sensor_records_into_its_stats_and_reads_them_under_their_names() -> None:
    clock = _Clock()
    metrics = ConnectMetrics(MetricConfig(samples=2, window_ms=1000), clock)
    group = metrics.group("connector-task-metrics", _TASK_TAGS)
    sensor = group.sensor({"batch-size-max": Max(group.config), "batch-size-avg": Avg(group.config)})
    values = _values(metrics)
    assert math.isnan(values[("connector-task-metrics", "batch-size-max", _TASK_TAGS)])  # type: ignore[arg-type]
    sensor.record(3)
    sensor.record(5)
    values = _values(metrics)
    assert values[("connector-task-metrics", "batch-size-max", _TASK_TAGS)] == 5
    assert values[("connector-task-metrics", "batch-size-avg", _TASK_TAGS)] == 4
    clock.now += 2000  # both samples expire: an empty window reads NaN again, as in Java
    assert math.isnan(_values(metrics)[("connector-task-metrics", "batch-size-avg", _TASK_TAGS)])  # type: ignore[arg-type]


def test_names_and_tags_outside_the_table_are_refused() -> None:
    metrics = ConnectMetrics()
    with pytest.raises(KeyError):
        metrics.group("connector-task-metrics", _TASK_TAGS).gauge("no-such-metric", lambda: 1.0)
    with pytest.raises(KeyError):  # status of a task needs both tags
        metrics.group("connector-task-metrics", (("connector", "c"),)).gauge("status", lambda: "running")


def test_gauges_are_read_live_and_none_leaves_the_metric_out() -> None:
    metrics = ConnectMetrics()
    state = {"status": None}
    metrics.group("connector-metrics", (("connector", "c"),)).gauge("status", lambda: state["status"])
    assert metrics.read() == []
    state["status"] = "running"
    [reading] = metrics.read()
    assert (reading.spec.name, reading.tags, reading.value) == ("status", (("connector", "c"),), "running")


def test_closing_a_group_removes_its_series_and_reopening_replaces_it() -> None:
    metrics = ConnectMetrics()
    first = metrics.group("connector-metrics", (("connector", "c"),))
    first.gauge("status", lambda: "running")
    second = metrics.group("connector-metrics", (("connector", "c"),))  # the connector started again here
    second.gauge("status", lambda: "paused")
    assert [r.value for r in metrics.read()] == ["paused"]
    with pytest.raises(RuntimeError):
        first.gauge("connector-type", lambda: "source")
    first.close()  # closing the replaced group leaves the new one alone
    assert [r.value for r in metrics.read()] == ["paused"]
    second.close()
    assert metrics.read() == []


def test_outcomes_and_state_ratios_are_read_as_their_two_metrics() -> None:
    clock = _Clock()
    metrics = ConnectMetrics(MetricConfig(), clock)
    group = metrics.group("connector-task-metrics", _TASK_TAGS)
    outcomes = group.outcomes("offset-commit-success-percentage", "offset-commit-failure-percentage")
    tracker = group.state_ratios({"running-ratio": TrackedState.RUNNING, "pause-ratio": TrackedState.PAUSED})
    outcomes.record(True, clock.now)
    outcomes.record(True, clock.now)
    outcomes.record(False, clock.now)
    tracker.change_state(TrackedState.RUNNING, clock.now)
    clock.now += 300
    tracker.change_state(TrackedState.PAUSED, clock.now)
    clock.now += 100
    values = {name: value for (_, name, _), value in _values(metrics).items()}
    assert values["offset-commit-success-percentage"] == pytest.approx(2 / 3)
    assert values["offset-commit-failure-percentage"] == pytest.approx(1 / 3)
    assert values["running-ratio"] == pytest.approx(0.75)
    assert values["pause-ratio"] == pytest.approx(0.25)


def test_a_histogram_reads_cumulative_buckets_sum_and_count() -> None:
    metrics = ConnectMetrics()
    group = metrics.group("connect-runtime-source-task-metrics", _TASK_TAGS)
    sensor = group.sensor({"transaction-commit-latency-seconds": Histogram((0.01, 0.1, 1.0))})
    for seconds in (0.005, 0.01, 0.05, 2.0):
        sensor.record(seconds)
    [reading] = metrics.read()
    assert reading.value == HistogramValue(((0.01, 2), (0.1, 3), (1.0, 3), (math.inf, 4)), 2.065, 4)
    with pytest.raises(ValueError):
        Histogram((1.0, 0.5))


def test_recording_while_reading_from_another_thread_loses_nothing() -> None:
    metrics = ConnectMetrics()
    group = metrics.group("source-task-metrics", _TASK_TAGS)
    sensor = group.sensor({"source-record-write-total": CumulativeSum()})
    stop = threading.Event()

    def read_continuously() -> None:
        while not stop.is_set():
            metrics.read()

    reader = threading.Thread(target=read_continuously)
    reader.start()
    try:
        for _ in range(20_000):
            sensor.record(1)
    finally:
        stop.set()
        reader.join()
    [reading] = metrics.read()
    assert reading.value == 20_000
