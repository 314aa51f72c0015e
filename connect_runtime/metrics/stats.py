"""Kafka's metric stats (``org.apache.kafka.common.metrics.stats``), measured as Java measures them.

Dashboards and alert rules written against Java Connect assume Java's arithmetic: windowed stats keep
``samples`` samples of ``window_ms`` each (plus one overlapping sample), a sample expires once it saw no
event for ``samples * window_ms``, an empty Avg/Max/Min reads NaN while an empty Rate reads 0, and a Rate
divides by at least ``samples - 1`` whole windows so that a burst just after start does not read as a
spike. The stats take the time as an argument (whole milliseconds, as Java records them) rather than
reading a clock, so callers can record an event at the time it happened in a task process and tests need
no sleeping; :class:`Sensor` binds a set of stats to an injected clock.
"""

from __future__ import annotations

import bisect
import enum
import math
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

Clock = Callable[[], int]
"""Milliseconds since the epoch, as Java's ``Time.milliseconds()``."""


def wall_clock_ms() -> int:
    """The default clock: wall time, comparable across the worker's and its task processes' events."""
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class MetricConfig:
    """``metrics.num.samples`` and ``metrics.sample.window.ms``, with the worker defaults of Java."""

    samples: int = 2
    window_ms: int = 30_000

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise ValueError(f"samples must be at least 1, got {self.samples}")
        if self.window_ms < 0:
            raise ValueError(f"window_ms must be at least 0, got {self.window_ms}")


class _Sample:
    __slots__ = ("event_count", "initial", "last_event_ms", "start_ms", "value")

    def __init__(self, initial: float, now_ms: int) -> None:
        self.initial = initial
        self.reset(now_ms)

    def reset(self, now_ms: int) -> None:
        self.value = self.initial
        self.event_count = 0
        self.start_ms = now_ms
        self.last_event_ms = now_ms


class SampledStat:
    """A stat over a ring of time samples: Java's ``SampledStat`` roll and purge rules."""

    def __init__(self, config: MetricConfig, initial: float) -> None:
        self._config = config
        self._initial = initial
        self._samples: list[_Sample] = []
        self._current = 0

    def record(self, value: float, now_ms: int) -> None:
        sample = self._current_sample(now_ms)
        if now_ms - sample.start_ms >= self._config.window_ms:
            sample = self._advance(now_ms)
        self._update(sample, value)
        sample.event_count += 1
        sample.last_event_ms = now_ms

    def measure(self, now_ms: int) -> float:
        self.purge_obsolete(now_ms)
        return self._combine(now_ms)

    def _update(self, sample: _Sample, value: float) -> None:
        raise NotImplementedError

    def _combine(self, now_ms: int) -> float:
        raise NotImplementedError

    def _current_sample(self, now_ms: int) -> _Sample:
        if not self._samples:
            self._samples.append(_Sample(self._initial, now_ms))
        return self._samples[self._current]

    def _advance(self, now_ms: int) -> _Sample:
        # one slot more than ``samples``: the oldest may overlap the start of the monitored window
        self._current = (self._current + 1) % (self._config.samples + 1)
        if self._current >= len(self._samples):
            self._samples.append(_Sample(self._initial, now_ms))
            return self._samples[-1]
        sample = self._samples[self._current]
        sample.reset(now_ms)
        return sample

    def oldest_start_ms(self, now_ms: int) -> int:
        """When the oldest retained sample began (Rate's window starts there)."""
        if not self._samples:
            self._samples.append(_Sample(self._initial, now_ms))
        return min(s.start_ms for s in self._samples)

    def purge_obsolete(self, now_ms: int) -> None:
        """Reset every sample that saw no event for ``samples * window_ms``."""
        expire_age = self._config.samples * self._config.window_ms
        for sample in self._samples:
            if now_ms - sample.last_event_ms >= expire_age:
                sample.reset(now_ms)

    def event_count(self) -> int:
        """Events in the retained samples, as of the last purge."""
        return sum(s.event_count for s in self._samples)


class _WindowedSum(SampledStat):
    def __init__(self, config: MetricConfig) -> None:
        super().__init__(config, 0.0)

    def _update(self, sample: _Sample, value: float) -> None:
        sample.value += value

    def _combine(self, now_ms: int) -> float:
        return sum(s.value for s in self._samples)


class Avg(_WindowedSum):
    """Mean of the values recorded in the window; NaN when it is empty."""

    def _combine(self, now_ms: int) -> float:
        count = self.event_count()
        return super()._combine(now_ms) / count if count else math.nan


class _Extreme(SampledStat):
    def __init__(self, config: MetricConfig, initial: float, pick: Callable[[float, float], float]) -> None:
        super().__init__(config, initial)
        self._pick = pick

    def _update(self, sample: _Sample, value: float) -> None:
        sample.value = self._pick(sample.value, value)

    def _combine(self, now_ms: int) -> float:
        if not self.event_count():
            return math.nan
        values = iter(s.value for s in self._samples)
        result = next(values)
        for value in values:
            result = self._pick(result, value)
        return result


class Max(_Extreme):
    """Largest value recorded in the window; NaN when it is empty."""

    def __init__(self, config: MetricConfig) -> None:
        super().__init__(config, -math.inf, max)


class Min(_Extreme):
    """Smallest value recorded in the window; NaN when it is empty."""

    def __init__(self, config: MetricConfig) -> None:
        # Java's Double.MAX_VALUE, not infinity: an emptied sample must not win over real values either way
        super().__init__(config, sys.float_info.max, min)


class Rate:
    """Per-second rate of the values recorded in the window (Java's ``Rate()``: a windowed sum in seconds).

    The elapsed time is padded to at least ``samples - 1`` whole windows, so that the first events after a
    start do not read as a burst; it is never below 1 ms. An empty window reads 0.
    """

    def __init__(self, config: MetricConfig) -> None:
        self._config = config
        self._sum = _WindowedSum(config)

    def record(self, value: float, now_ms: int) -> None:
        self._sum.record(value, now_ms)

    def measure(self, now_ms: int) -> float:
        total = self._sum.measure(now_ms)
        return total / (self.window_size_ms(now_ms) / 1000.0)

    def window_size_ms(self, now_ms: int) -> int:
        """The elapsed time the rate divides by (Java's ``Rate.windowSize``)."""
        self._sum.purge_obsolete(now_ms)
        elapsed = now_ms - self._sum.oldest_start_ms(now_ms)
        window = self._config.window_ms
        full_windows = elapsed // window if window else 0
        min_full_windows = self._config.samples - 1
        if full_windows < min_full_windows:
            elapsed += (min_full_windows - full_windows) * window
        return max(elapsed, 1)


class CumulativeSum:
    """Sum of every value ever recorded; never decays."""

    def __init__(self) -> None:
        self._total = 0.0

    def record(self, value: float, now_ms: int) -> None:
        self._total += value

    def measure(self, now_ms: int) -> float:
        return self._total


class CumulativeCount(CumulativeSum):
    """Number of events ever recorded, whatever their values."""

    def record(self, value: float, now_ms: int) -> None:
        super().record(1.0, now_ms)


class Value:
    """The last value recorded; 0 before the first."""

    def __init__(self) -> None:
        self._value = 0.0

    def record(self, value: float, now_ms: int) -> None:
        self._value = value

    def measure(self, now_ms: int) -> float:
        return self._value


class _BooleanCounts(SampledStat):
    """Per-sample counts of outcomes: the value is the number of successes, the event count all outcomes."""

    def __init__(self, config: MetricConfig) -> None:
        super().__init__(config, 0.0)

    def _update(self, sample: _Sample, value: float) -> None:
        sample.value += 1.0 if value else 0.0

    def _combine(self, now_ms: int) -> float:
        return sum(s.value for s in self._samples)


class Outcomes:
    """Shares of successes and failures in the window, fractions 0..1 and 0 when empty.

    Java's ``Frequencies.forBooleanValues``, which feeds the ``*-success-percentage`` and
    ``*-failure-percentage`` metrics: despite their names they are fractions, as in Java.
    """

    def __init__(self, config: MetricConfig) -> None:
        self._counts = _BooleanCounts(config)

    def record(self, success: bool, now_ms: int) -> None:
        self._counts.record(1.0 if success else 0.0, now_ms)

    def success_ratio(self, now_ms: int) -> float:
        successes = self._counts.measure(now_ms)
        total = self._counts.event_count()
        return successes / total if total else 0.0

    def failure_ratio(self, now_ms: int) -> float:
        successes = self._counts.measure(now_ms)
        total = self._counts.event_count()
        return (total - successes) / total if total else 0.0


class TrackedState(enum.Enum):
    """The states Java's ``StateTracker`` accumulates time for (``AbstractStatus.State``)."""

    UNASSIGNED = "unassigned"
    RUNNING = "running"
    PAUSED = "paused"
    STOPPED = "stopped"
    FAILED = "failed"
    DESTROYED = "destroyed"
    RESTARTING = "restarting"


class StateTracker:
    """Time spent in each state since creation, for ``running-ratio`` and ``pause-ratio`` (no window).

    Time in STOPPED is left out of the denominator of past states, as Java does.
    """

    def __init__(self) -> None:
        self._state: TrackedState | None = None
        self._since_ms = 0
        self._accumulated_ms = dict.fromkeys(TrackedState, 0)

    @property
    def state(self) -> TrackedState | None:
        """The current state; None before the first change."""
        return self._state

    def change_state(self, state: TrackedState, now_ms: int) -> None:
        if state is self._state:
            return
        if self._state is not None:
            self._accumulated_ms[self._state] += now_ms - self._since_ms
        self._state = state
        self._since_ms = now_ms

    def duration_ratio(self, state: TrackedState, now_ms: int) -> float:
        if self._state is None:
            return 0.0
        current_ms = now_ms - self._since_ms
        in_state = self._accumulated_ms[state] + (current_ms if state is self._state else 0)
        past = sum(ms for s, ms in self._accumulated_ms.items() if s is not TrackedState.STOPPED)
        total = current_ms + past
        return in_state / total if total else 0.0


@dataclass(frozen=True, slots=True)
class HistogramValue:
    """A histogram's state: cumulative counts per upper bound (the last bound is +Inf), sum and count."""

    buckets: tuple[tuple[float, int], ...]
    sum: float
    count: int


class Histogram:
    """Cumulative bucket counts of every value recorded (never decays), for Prometheus histograms.

    Not a Java stat: the runtime's own latency metrics use it, so that percentiles can be computed across
    workers with ``histogram_quantile``.
    """

    def __init__(self, bounds: Sequence[float]) -> None:
        if list(bounds) != sorted(set(bounds)) or not bounds:
            raise ValueError(f"bounds must be increasing and not empty, got {list(bounds)}")
        self._bounds = tuple(bounds)
        self._counts = [0] * (len(self._bounds) + 1)
        self._sum = 0.0

    def record(self, value: float, now_ms: int) -> None:
        self._counts[bisect.bisect_left(self._bounds, value)] += 1
        self._sum += value

    def measure(self, now_ms: int) -> float:
        """The number of values recorded (the histogram's count)."""
        return float(sum(self._counts))

    def snapshot(self) -> HistogramValue:
        """The cumulative buckets, sum and count."""
        cumulative = []
        running = 0
        for bound, count in zip((*self._bounds, math.inf), self._counts, strict=True):
            running += count
            cumulative.append((bound, running))
        return HistogramValue(tuple(cumulative), self._sum, running)


class Stat(Protocol):
    """What a :class:`Sensor` records into: every stat above but :class:`Outcomes` and :class:`StateTracker`."""

    def record(self, value: float, now_ms: int) -> None: ...

    def measure(self, now_ms: int) -> float: ...


class Sensor:
    """Stats fed by the same events, read and recorded at the time of an injected clock (Java's ``Sensor``).

    Thread-safe: one thread records while an exporter reads.
    """

    def __init__(self, stats: Sequence[Stat], clock: Clock = wall_clock_ms) -> None:
        self._stats = tuple(stats)
        self._clock = clock
        self._lock = threading.Lock()

    def record(self, value: float, at_ms: int | None = None) -> None:
        """Record one event; ``at_ms`` is when it happened if that was not now (an event reported later)."""
        now_ms = self._clock() if at_ms is None else at_ms
        with self._lock:
            for stat in self._stats:
                stat.record(value, now_ms)

    def measure(self) -> tuple[float, ...]:
        """Each stat's value now, in the order given."""
        now_ms = self._clock()
        with self._lock:
            return tuple(stat.measure(now_ms) for stat in self._stats)

    def reader(self, stat: Stat) -> Callable[[int], float | HistogramValue]:
        """A function reading one of this sensor's stats at a time, under the sensor's lock."""
        if isinstance(stat, Histogram):
            def read_histogram(now_ms: int) -> float | HistogramValue:
                with self._lock:
                    return stat.snapshot()
            return read_histogram

        def read(now_ms: int) -> float | HistogramValue:
            with self._lock:
                return stat.measure(now_ms)
        return read
