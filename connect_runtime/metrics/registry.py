"""Every metric of Kafka Connect's ``ConnectMetricsRegistry`` this runtime measures, as data.

One table so the recording code, ``/metrics`` and the operator console read group names, metric names,
tags and descriptions from one place and cannot drift apart. The table is ``java_metrics.tsv``, beside
this module; its names, tags and descriptions are Java's (``org/apache/kafka/connect/runtime/
ConnectMetricsRegistry.java`` of ``connect-runtime`` 4.1.1, the ``source`` column gives the line; two
trailing spaces of Java's text trimmed), so dashboards built on Java's names read ours unchanged. The sink
task group, transforms and predicates are left out: this runtime runs source connectors only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from importlib import resources


class StatKind(enum.Enum):
    """How a metric is measured, after Java's stat classes (``org.apache.kafka.common.metrics.stats``)."""

    GAUGE = "gauge"  # a number read from live state when the metric is read
    STRING = "string"  # a text value read when the metric is read
    VALUE = "value"  # the last recorded number
    CUMULATIVE_SUM = "cumulative-sum"  # never decays
    AVG = "avg"  # windowed; NaN when the window is empty
    MAX = "max"  # windowed; NaN when the window is empty
    MIN = "min"  # windowed; NaN when the window is empty
    RATE = "rate"  # windowed sum per second; 0 when the window is empty
    FREQUENCY = "frequency"  # windowed share of successes or failures, a fraction 0..1
    RATIO = "ratio"  # share of the task's lifetime spent in one state (Java's StateTracker)
    HISTOGRAM = "histogram"  # cumulative buckets, sum and count (the runtime's own metrics only)


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric: its group (Java's MBean ``type``), its name, the tags that key it, its stat and Java's text."""

    group: str
    name: str
    tags: tuple[str, ...]
    kind: StatKind
    description: str


CONNECTOR_GROUP = "connector-metrics"
TASK_GROUP = "connector-task-metrics"
SOURCE_TASK_GROUP = "source-task-metrics"
WORKER_GROUP = "connect-worker-metrics"
WORKER_REBALANCE_GROUP = "connect-worker-rebalance-metrics"
TASK_ERROR_GROUP = "task-error-metrics"
# Not in ConnectMetricsRegistry: the group membership's own metrics (Java's WorkerCoordinator.java), keyed by
# the member's client id.
COORDINATOR_GROUP = "connect-coordinator-metrics"
# The runtime's own groups (runtime_metrics.tsv).
RUNTIME_SOURCE_TASK_GROUP = "connect-runtime-source-task-metrics"
RUNTIME_CONNECTOR_GROUP = "connect-runtime-connector-metrics"
# The Java Kafka clients' groups (client_metrics.tsv), keyed by ``client-id``.
PRODUCER_GROUP = "producer-metrics"
CONSUMER_GROUP = "consumer-metrics"
ADMIN_GROUP = "admin-client-metrics"


def _load(table: str) -> tuple[MetricSpec, ...]:
    """Parse the tab-separated table (group, name, comma-separated tags, stat kind, Java source, description)."""
    rows = table.splitlines()[1:]
    specs = []
    for row in rows:
        group, name, tags, kind, _source, description = row.split("\t")
        specs.append(MetricSpec(group, name, tuple(tags.split(",")) if tags else (), StatKind[kind.upper()],
                                description))
    return tuple(specs)


METRICS: tuple[MetricSpec, ...] = _load(resources.files(__package__).joinpath("java_metrics.tsv").read_text("utf-8"))
"""Every metric, in Java's registry order."""

RUNTIME_METRICS: tuple[MetricSpec, ...] = _load(
    resources.files(__package__).joinpath("runtime_metrics.tsv").read_text("utf-8"))
"""What Java lacks for exactly-once, in groups named ``connect-runtime-*`` so that their exported names
(``connect_runtime_*``) cannot be mistaken for Kafka's."""

RUNTIME_GROUP_PREFIX = "connect-runtime-"

CLIENT_METRICS: tuple[MetricSpec, ...] = _load(
    resources.files(__package__).joinpath("client_metrics.tsv").read_text("utf-8"))
"""The few Java Kafka client metrics dashboards of Connect read (``producer-metrics``, ``consumer-metrics``,
``admin-client-metrics``, keyed by ``client-id``), fed from librdkafka's statistics and the runtime's own
timing of transactional calls."""

_ALL = (*METRICS, *RUNTIME_METRICS, *CLIENT_METRICS)
_BY_KEY = {(m.group, m.name, m.tags): m for m in _ALL}


def metric(group: str, name: str, tags: tuple[str, ...] = ()) -> MetricSpec:
    """The spec of one metric; a name outside the table is a programming error (``KeyError``).

    ``connect-worker-metrics`` holds worker-level metrics (no tags) and per-connector ones (``connector``),
    so the tags are part of the key.
    """
    return _BY_KEY[(group, name, tags)]


def group_metrics(group: str) -> tuple[MetricSpec, ...]:
    """The metrics of one group, in the table's order."""
    return tuple(m for m in _ALL if m.group == group)
