"""The metric table against Java's ``ConnectMetricsRegistry`` names, tags and stats.

JAVA_NAMES is copied from ``org/apache/kafka/connect/runtime/ConnectMetricsRegistry.java`` of the
``connect-runtime`` 4.1.1 sources jar (lines 149-204, 229-276, 348-391, 403-415, 422-437), written out
independently of connect_runtime/metrics/registry.py so that a name changed there shows up here.
"""

from __future__ import annotations

import pytest

from connect_runtime.metrics import registry
from connect_runtime.metrics.registry import METRICS, StatKind, group_metrics, metric

_TASK = ("connector", "task")

JAVA_NAMES: dict[tuple[str, tuple[str, ...]], set[str]] = {
    ("connector-metrics", ("connector",)): {"status", "connector-type", "connector-class", "connector-version"},
    ("connector-task-metrics", _TASK): {
        "status", "running-ratio", "pause-ratio", "offset-commit-max-time-ms", "offset-commit-avg-time-ms",
        "batch-size-max", "batch-size-avg", "offset-commit-failure-percentage", "offset-commit-success-percentage",
        "connector-class", "connector-version", "connector-type", "task-class", "task-version",
        "key-converter-class", "value-converter-class", "key-converter-version", "value-converter-version",
        "header-converter-class", "header-converter-version",
    },
    ("source-task-metrics", _TASK): {
        "source-record-poll-rate", "source-record-poll-total", "source-record-write-rate",
        "source-record-write-total", "poll-batch-max-time-ms", "poll-batch-avg-time-ms",
        "source-record-active-count", "source-record-active-count-max", "source-record-active-count-avg",
        "transaction-size-min", "transaction-size-max", "transaction-size-avg",
    },
    ("connect-worker-metrics", ()): {
        "connector-count", "task-count",
        "connector-startup-attempts-total", "connector-startup-success-total", "connector-startup-success-percentage",
        "connector-startup-failure-total", "connector-startup-failure-percentage",
        "task-startup-attempts-total", "task-startup-success-total", "task-startup-success-percentage",
        "task-startup-failure-total", "task-startup-failure-percentage",
    },
    ("connect-worker-metrics", ("connector",)): {
        "connector-total-task-count", "connector-running-task-count", "connector-paused-task-count",
        "connector-failed-task-count", "connector-unassigned-task-count", "connector-destroyed-task-count",
        "connector-restarting-task-count",
    },
    ("connect-worker-rebalance-metrics", ()): {
        "connect-protocol", "leader-name", "epoch", "completed-rebalances-total", "rebalancing",
        "rebalance-max-time-ms", "rebalance-avg-time-ms", "time-since-last-rebalance-ms",
    },
    ("task-error-metrics", _TASK): {
        "total-record-failures", "total-record-errors", "total-records-skipped", "total-retries",
        "total-errors-logged", "deadletterqueue-produce-requests", "deadletterqueue-produce-failures",
        "last-error-timestamp",
    },
    # WorkerCoordinator.java:390-395, registered with the member's client id as its tag
    ("connect-coordinator-metrics", ("client-id",)): {"assigned-connectors", "assigned-tasks"},
}


def test_the_table_holds_exactly_javas_names_tags_and_groups() -> None:
    ours: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    for spec in METRICS:
        ours.setdefault((spec.group, spec.tags), set()).add(spec.name)
    assert ours == JAVA_NAMES


def test_each_metric_appears_once() -> None:
    keys = [(m.group, m.name, m.tags) for m in METRICS]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize(
    ("suffix", "kind"),
    [("-rate", StatKind.RATE), ("-percentage", StatKind.FREQUENCY), ("-ratio", StatKind.RATIO),
     ("-min", StatKind.MIN), ("-max", StatKind.MAX), ("-avg", StatKind.AVG), ("-max-time-ms", StatKind.MAX),
     ("-avg-time-ms", StatKind.AVG)],
)
def test_stat_kinds_follow_javas_stat_for_the_name(suffix: str, kind: StatKind) -> None:
    named = [m for m in METRICS if m.name.endswith(suffix)]
    assert named
    assert {m.kind for m in named} == {kind}


def test_counters_are_cumulative_sums_and_strings_are_strings() -> None:
    totals = [m for m in METRICS if m.name.endswith("-total") or m.group == registry.TASK_ERROR_GROUP]
    assert {m.kind for m in totals if m.name != "last-error-timestamp"} == {StatKind.CUMULATIVE_SUM}
    strings = {(m.group, m.name) for m in METRICS if m.kind is StatKind.STRING}
    assert ("connector-metrics", "status") in strings
    assert ("connect-worker-rebalance-metrics", "leader-name") in strings
    assert metric(registry.SOURCE_TASK_GROUP, "source-record-active-count", _TASK).kind is StatKind.VALUE


def test_descriptions_are_javas_text() -> None:
    assert metric(registry.TASK_ERROR_GROUP, "total-record-failures", _TASK).description == (
        "The number of record processing failures in this task."
    )
    assert all(m.description for m in METRICS)


def test_lookup_keys_on_tags_because_the_worker_group_has_two_tag_sets() -> None:
    assert metric(registry.WORKER_GROUP, "connector-count").tags == ()
    assert metric(registry.WORKER_GROUP, "connector-running-task-count", ("connector",)).tags == ("connector",)
    with pytest.raises(KeyError):
        metric(registry.WORKER_GROUP, "connector-running-task-count")


def test_group_metrics_keep_javas_order() -> None:
    assert [m.name for m in group_metrics(registry.CONNECTOR_GROUP)] == [
        "status", "connector-type", "connector-class", "connector-version",
    ]


def test_the_runtimes_own_metrics_cannot_be_mistaken_for_kafkas() -> None:
    """Metrics Java lacks live in ``connect-runtime-*`` groups only, and no name repeats one of Java's."""
    assert registry.RUNTIME_METRICS
    assert all(m.group.startswith(registry.RUNTIME_GROUP_PREFIX) for m in registry.RUNTIME_METRICS)
    assert not any(m.group.startswith(registry.RUNTIME_GROUP_PREFIX) for m in METRICS)
