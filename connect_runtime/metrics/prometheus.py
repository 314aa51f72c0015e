"""A worker's metrics in the Prometheus text and OpenMetrics formats, named as Strimzi names Java's.

Operators of Java Connect scrape its JMX beans through Strimzi's jmx_exporter rules, and Strimzi's Grafana
dashboard and alert rules query the names those rules produce. Exporting the same names, types and labels
lets them work unchanged, so this module is those rules restated over the metric tables
(:mod:`connect_runtime.metrics.registry`), applied uniformly to every metric of the tables:

- family name: ``kafka_connect_<group without a leading connect- and without -metrics>_<metric>`` for
  Connect's groups (``connect-worker-metrics`` → ``kafka_connect_worker_…``), ``kafka_<group without
  -metrics>_<metric>`` for the Kafka clients' (``kafka_producer_…``), and ``connect_runtime_<X>_<metric>``
  for the runtime's own ``connect-runtime-X-metrics``; every character outside ``[a-zA-Z0-9:_]`` becomes
  ``_`` (runs collapsed) and the name is lower case, as jmx_exporter sanitises;
- labels: the tags, ``-`` → ``_``, except ``client-id``, which Strimzi's rules call ``clientid``;
- type: a name ending in ``-total`` is a counter (the ``task-error-metrics`` excepted: the rules give them
  all as gauges, their names start with ``total-``), a string metric is a series of value 1 with its text
  in a label named after it (``kafka_connect_connector_status{connector="c",status="running"}``),
  untyped for the rebalance group's ``connect-protocol`` and ``leader-name`` as Strimzi's rule says, a
  histogram is a histogram, every other number a gauge; NaN and +Inf are written as they are.

Where Strimzi's rules drop a metric (the task offset-commit percentages, ``transaction-size-min``, the
plugin-information strings of a task) or fold several into one series (``source-record-active-count``
with its ``-max`` and ``-avg``), the same convention exports each under its own name.

Families are built at each scrape by a collector reading :meth:`ConnectMetrics.read`, on a private
registry: no ``_created`` series (jmx_exporter writes none) and none of ``prometheus_client``'s process or
Python collectors (they describe the interpreter serving the request, not Connect, and names such as
``process_cpu_seconds_total`` would be read as the JVM's by a dashboard made for Java).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from prometheus_client.exposition import choose_encoder, generate_latest
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
    UnknownMetricFamily,
)
from prometheus_client.registry import Collector, CollectorRegistry
from prometheus_client.utils import floatToGoString

from connect_runtime.metrics.connect_metrics import ConnectMetrics, Reading
from connect_runtime.metrics.registry import (
    CLIENT_METRICS,
    RUNTIME_GROUP_PREFIX,
    TASK_ERROR_GROUP,
    WORKER_REBALANCE_GROUP,
    MetricSpec,
    StatKind,
)
from connect_runtime.metrics.stats import HistogramValue

logger = logging.getLogger(__name__)

COUNTER = "counter"
GAUGE = "gauge"
UNTYPED = "unknown"  # prometheus_client's name; text 0.0.4 writes it "untyped"
HISTOGRAM = "histogram"

_CLIENT_GROUPS = frozenset(spec.group for spec in CLIENT_METRICS)
# Strimzi's rule for these two strings is UNTYPED; every other string metric is a GAUGE of value 1.
_UNTYPED_STRINGS = frozenset({(WORKER_REBALANCE_GROUP, "connect-protocol"), (WORKER_REBALANCE_GROUP, "leader-name")})
# The client's own formatting of a bucket bound ("+Inf", "0.005"), so that ``le`` values read as its
# histograms' do; typed here as the library leaves it untyped.
_bound_text: Callable[[float], str] = floatToGoString
_UNSAFE = re.compile(r"[^a-zA-Z0-9:_]")
_UNDERSCORES = re.compile(r"__+")


@dataclass(frozen=True, slots=True)
class Family:
    """How one metric of the tables is exported: family name (with ``_total`` for counters), type, labels."""

    spec: MetricSpec
    name: str
    type: str
    labels: tuple[str, ...]
    #: The label carrying a string metric's text (the last of :attr:`labels`); None for numbers.
    value_label: str | None

    def new_metric(self) -> Metric:
        """An empty ``prometheus_client`` family of this name, type and labels."""
        help_text = self.spec.description
        labels = list(self.labels)
        if self.type == COUNTER:
            return CounterMetricFamily(self.name, help_text, labels=labels)
        if self.type == HISTOGRAM:
            return HistogramMetricFamily(self.name, help_text, labels=labels)
        if self.type == UNTYPED:
            return UnknownMetricFamily(self.name, help_text, labels=labels)
        return GaugeMetricFamily(self.name, help_text, labels=labels)


def _safe(name: str) -> str:
    """jmx_exporter's ``toSafeName`` followed by ``lowercaseOutputName``."""
    return _UNDERSCORES.sub("_", _UNSAFE.sub("_", name)).lower()


def _prefix(group: str) -> str:
    base = group.removesuffix("-metrics")
    if group.startswith(RUNTIME_GROUP_PREFIX):
        return base
    if group in _CLIENT_GROUPS:
        return f"kafka-{base}"
    return f"kafka-connect-{base.removeprefix('connect-')}"


def _label(tag: str) -> str:
    # Strimzi's client rules name the label clientId, lower-cased by lowercaseOutputLabelNames.
    return "clientid" if tag == "client-id" else _safe(tag)


def _type(spec: MetricSpec) -> str:
    if spec.kind is StatKind.HISTOGRAM:
        return HISTOGRAM
    if spec.kind is StatKind.STRING:
        return UNTYPED if (spec.group, spec.name) in _UNTYPED_STRINGS else GAUGE
    if spec.name.endswith("-total") and spec.group != TASK_ERROR_GROUP:
        return COUNTER
    return GAUGE


@functools.cache
def family_of(spec: MetricSpec) -> Family:
    """The family ``spec`` is exported in (the module docstring's rules)."""
    labels = tuple(_label(tag) for tag in spec.tags)
    value_label = _label(spec.name) if spec.kind is StatKind.STRING else None
    if value_label is not None:
        labels = (*labels, value_label)
    return Family(spec, _safe(f"{_prefix(spec.group)}_{spec.name}"), _type(spec), labels, value_label)


def _add(metric: Metric, family: Family, reading: Reading) -> None:
    labels = [value for _, value in reading.tags]
    value = reading.value
    if isinstance(metric, HistogramMetricFamily):
        if not isinstance(value, HistogramValue):
            raise TypeError(f"histogram {family.name} read {value!r}")
        buckets = [(_bound_text(bound), float(count)) for bound, count in value.buckets]
        metric.add_metric(labels, buckets, value.sum)
    elif isinstance(value, HistogramValue) or (isinstance(value, str) != (family.value_label is not None)):
        raise TypeError(f"{family.type} {family.name} read {value!r}")
    elif isinstance(metric, CounterMetricFamily | GaugeMetricFamily | UnknownMetricFamily):
        if isinstance(value, str):
            metric.add_metric([*labels, value], 1.0)
        else:
            metric.add_metric(labels, float(value))


_LEFT_OUT: set[str] = set()
_TEXT_0_0_4 = "text/plain; version=0.0.4; charset=utf-8"


class ConnectMetricsCollector(Collector):
    """Reads a worker's :class:`ConnectMetrics` into Prometheus families at each collection."""

    def __init__(self, metrics: ConnectMetrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterable[Metric]:
        families: dict[str, Metric] = {}
        for reading in self._metrics.read():
            family = family_of(reading.spec)
            metric = families.get(family.name)
            if metric is None:
                metric = families[family.name] = family.new_metric()
            try:
                _add(metric, family, reading)
            except TypeError:
                # One gauge reading the wrong kind of value must not take every other series down with it;
                # logged once, as every scrape would fail it again.
                if family.name not in _LEFT_OUT:
                    _LEFT_OUT.add(family.name)
                    logger.exception("Metric %s %s left out of the scrape", family.name, dict(reading.tags))
        return [metric for metric in families.values() if metric.samples]


def registry_of(metrics: ConnectMetrics) -> CollectorRegistry:
    """A private registry holding only ``metrics``' collector."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(ConnectMetricsCollector(metrics))
    return registry


def exposition(metrics: ConnectMetrics, accept: str | None) -> tuple[bytes, str]:
    """``metrics`` read now, in the format the ``Accept`` header asks for: OpenMetrics when it names
    ``application/openmetrics-text``, the Prometheus text format 0.0.4 otherwise; and its content type."""
    try:
        encoder, content_type = choose_encoder(accept or "")
    except (TypeError, ValueError):
        # A malformed version parameter (``version=x``) trips the library's parser: a scraper asking in a way
        # it cannot read gets the format every scraper reads.
        encoder, content_type = generate_latest, _TEXT_0_0_4
    return encoder(registry_of(metrics)), content_type
