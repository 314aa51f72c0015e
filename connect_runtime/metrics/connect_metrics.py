"""The live metrics of one worker: groups of named metrics, each keyed by its tags, read on demand.

Java's ``ConnectMetrics`` in one object per worker. Code that owns something measurable (the worker, the
herder, a task's mirror of its process's report) opens a :class:`MetricGroup` with the group's tags, adds
its metrics to it (a sensor's stats, or a gauge read from live state), and closes the group when the thing
goes away, so a connector or task moved elsewhere leaves no stale series behind. Exporters (``/metrics``,
the console) read every metric through :meth:`ConnectMetrics.read`: one :class:`Reading` per metric and tag
set, measured at the same instant.

Every name is checked against the table of :mod:`connect_runtime.metrics.registry` when it is added, so a
metric outside it is a programming error found by the first test that opens the group.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from connect_runtime.metrics.registry import MetricSpec, metric
from connect_runtime.metrics.stats import (
    Clock,
    HistogramValue,
    MetricConfig,
    Outcomes,
    Sensor,
    Stat,
    StateTracker,
    TrackedState,
    wall_clock_ms,
)

logger = logging.getLogger(__name__)

# The metrics whose reader raised once: logged the first time only.
_FAILED_READERS: set[tuple[str, str, tuple[tuple[str, str], ...]]] = set()

MetricValue = float | str | HistogramValue
"""A number, a string metric's text, or a histogram's buckets."""

Reader = Callable[[int], "MetricValue | None"]
"""Reads one metric at a time in ms; None leaves the metric out of this reading (a string not known yet)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """One metric of one group instance, measured: its spec, its tags (in the spec's order) and its value."""

    spec: MetricSpec
    tags: tuple[tuple[str, str], ...]
    value: MetricValue


class MetricGroup:
    """The metrics of one group and one set of tag values (Java's ``MetricGroup``).

    Thread-safe: metrics may be added, recorded and read from different threads. After :meth:`close` the
    group reads nothing and adding to it is an error.
    """

    def __init__(self, owner: ConnectMetrics, group: str, tags: tuple[tuple[str, str], ...]) -> None:
        self._owner = owner
        self.group = group
        self.tags = tags
        self._tag_names = tuple(name for name, _ in tags)
        self._readers: dict[str, tuple[MetricSpec, Reader]] = {}
        self._lock = threading.Lock()
        self._closed = False

    @property
    def config(self) -> MetricConfig:
        """The windows of this worker's stats."""
        return self._owner.config

    def _spec(self, name: str) -> MetricSpec:
        return metric(self.group, name, self._tag_names)

    def _add(self, name: str, reader: Reader) -> None:
        spec = self._spec(name)
        with self._lock:
            if self._closed:
                raise RuntimeError(f"metric group {self.group} {dict(self.tags)} is closed")
            if name in self._readers:
                raise ValueError(f"metric {name} of group {self.group} {dict(self.tags)} is already added")
            self._readers[name] = (spec, reader)

    def gauge(self, name: str, read: Callable[[], MetricValue | None]) -> None:
        """A metric read from live state each time it is read (Java's ``Gauge``)."""
        self._add(name, lambda now_ms: read())

    def sensor(self, stats: Mapping[str, Stat]) -> Sensor:
        """Stats fed by the same events, each under its metric name; record into the returned sensor."""
        sensor = Sensor(tuple(stats.values()), self._owner.clock)
        for name, stat in stats.items():
            self._add(name, sensor.reader(stat))
        return sensor

    def outcomes(self, success_name: str, failure_name: str) -> Outcomes:
        """A success/failure share pair (Java's ``Frequencies.forBooleanValues``), e.g. commit outcomes."""
        outcomes = Outcomes(self.config)
        lock = threading.Lock()

        def success(now_ms: int) -> float:
            with lock:
                return outcomes.success_ratio(now_ms)

        def failure(now_ms: int) -> float:
            with lock:
                return outcomes.failure_ratio(now_ms)

        self._add(success_name, success)
        self._add(failure_name, failure)
        return _LockedOutcomes(outcomes, lock)

    def state_ratios(self, ratios: Mapping[str, TrackedState]) -> StateTracker:
        """Ratios of time spent in states (``running-ratio``…); change the returned tracker's state."""
        tracker = _LockedStateTracker()

        def ratio_of(state: TrackedState) -> Reader:
            return lambda now_ms: tracker.duration_ratio(state, now_ms)

        for name, state in ratios.items():
            self._add(name, ratio_of(state))
        return tracker

    def readings(self, now_ms: int) -> Iterator[Reading]:
        """This group's metrics measured at ``now_ms``, in the order they were added."""
        with self._lock:
            readers = list(self._readers.values())
        for spec, reader in readers:
            try:
                value = reader(now_ms)
            except Exception:
                # One broken reader must not take every other series (and the scrape) down with it; logged
                # once per metric, as every read would fail it again.
                key = (self.group, spec.name, self.tags)
                if key not in _FAILED_READERS:
                    _FAILED_READERS.add(key)
                    logger.exception("Metric %s of group %s %s left out: reading it failed", spec.name,
                                     self.group, dict(self.tags))
                continue
            if value is not None:
                yield Reading(spec, self.tags, value)

    def close(self) -> None:
        """Remove the group: its metrics are no longer read (Java's ``MetricGroup.close``)."""
        with self._lock:
            self._closed = True
            self._readers.clear()
        self._owner._forget(self)


class _LockedOutcomes(Outcomes):
    """Outcomes recorded from one thread while an exporter reads them from another."""

    def __init__(self, inner: Outcomes, lock: threading.Lock) -> None:
        self._inner = inner
        self._lock = lock

    def record(self, success: bool, now_ms: int) -> None:
        with self._lock:
            self._inner.record(success, now_ms)

    def success_ratio(self, now_ms: int) -> float:
        with self._lock:
            return self._inner.success_ratio(now_ms)

    def failure_ratio(self, now_ms: int) -> float:
        with self._lock:
            return self._inner.failure_ratio(now_ms)


class _LockedStateTracker(StateTracker):
    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def change_state(self, state: TrackedState, now_ms: int) -> None:
        with self._lock:
            super().change_state(state, now_ms)

    def duration_ratio(self, state: TrackedState, now_ms: int) -> float:
        with self._lock:
            return super().duration_ratio(state, now_ms)


class ConnectMetrics:
    """Every metric group of one worker (Java's ``ConnectMetrics``)."""

    def __init__(self, config: MetricConfig | None = None, clock: Clock = wall_clock_ms) -> None:
        self.config = config or MetricConfig()
        self.clock = clock
        self._groups: dict[tuple[str, tuple[tuple[str, str], ...]], MetricGroup] = {}
        self._lock = threading.Lock()

    def group(self, group: str, tags: Sequence[tuple[str, str]] = ()) -> MetricGroup:
        """Open the group ``group`` with these tag values (names in the table's order).

        Opening a group that is open replaces it (its old metrics are dropped), as Java's
        ``ConnectMetrics.group`` does when a connector or task starts again on this worker.
        """
        key = (group, tuple(tags))
        fresh = MetricGroup(self, group, key[1])
        with self._lock:
            previous = self._groups.get(key)
            self._groups[key] = fresh
        if previous is not None:
            previous.close()
        return fresh

    def _forget(self, group: MetricGroup) -> None:
        key = (group.group, group.tags)
        with self._lock:
            if self._groups.get(key) is group:
                del self._groups[key]

    def read(self) -> list[Reading]:
        """Every metric of every open group, measured now."""
        now_ms = self.clock()
        with self._lock:
            groups = list(self._groups.values())
        return [reading for group in groups for reading in group.readings(now_ms)]
