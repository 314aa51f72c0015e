"""Java's metric stats: windows rolling and expiring, NaN on empty windows, Rate's padded window.

Expected values follow ``org.apache.kafka.common.metrics.stats`` of kafka-clients 4.1.1 (``SampledStat``,
``Avg``, ``Max``, ``Min``, ``Rate``, ``Frequencies``) and Connect's ``StateTracker``.
"""

from __future__ import annotations

import math

import pytest

from connect_runtime.metrics.stats import (
    Avg,
    CumulativeCount,
    CumulativeSum,
    Max,
    MetricConfig,
    Min,
    Outcomes,
    Rate,
    Sensor,
    StateTracker,
    TrackedState,
    Value,
)

SMALL = MetricConfig(samples=2, window_ms=1000)


@pytest.mark.parametrize("stat_type", [Avg, Max, Min])
def test_windowed_stats_read_nan_before_any_event(stat_type: type[Avg | Max | Min]) -> None:
    assert math.isnan(stat_type(SMALL).measure(0))


@pytest.mark.parametrize("stat_type", [Avg, Max, Min])
def test_windowed_stats_read_nan_once_samples_times_window_passed_without_events(
    stat_type: type[Avg | Max | Min],
) -> None:
    stat = stat_type(SMALL)
    stat.record(5, 0)
    assert stat.measure(1999) == 5
    assert math.isnan(stat.measure(2000))


def test_avg_max_min_combine_every_retained_sample() -> None:
    avg, high, low = Avg(SMALL), Max(SMALL), Min(SMALL)
    for value, at in ((10, 0), (2, 500), (6, 1200)):
        for stat in (avg, high, low):
            stat.record(value, at)
    assert (avg.measure(1500), high.measure(1500), low.measure(1500)) == (6, 10, 2)


def test_an_expired_sample_drops_out_while_a_newer_one_stays() -> None:
    high = Max(SMALL)
    high.record(10, 0)
    high.record(1, 1500)  # rolls into a second sample
    assert high.measure(1999) == 10
    assert high.measure(2000) == 1  # the first sample saw nothing for samples x window
    assert math.isnan(high.measure(3500))


def test_samples_roll_through_the_ring_and_reuse_the_oldest_slot() -> None:
    avg = Avg(SMALL)
    for at in (0, 1000, 2000, 3000):  # the fourth event reuses the first of three slots
        avg.record(at, at)
    # retained: the events at 2000 and 3000 (1000's sample is 2000 ms without events at 3000)
    assert avg.measure(3000) == 2500


def test_values_of_one_window_share_a_sample_until_the_window_elapsed() -> None:
    high = Max(SMALL)
    high.record(7, 0)
    high.record(3, 999)  # same sample as the first
    assert high.measure(2000) == 7  # the sample's last event, at 999, keeps it alive
    assert math.isnan(high.measure(2999))


def test_rate_reads_zero_on_an_empty_window() -> None:
    assert Rate(SMALL).measure(0) == 0.0
    rate = Rate(SMALL)
    rate.record(4, 0)
    assert rate.measure(2000) == 0.0


def test_rate_pads_the_elapsed_time_to_samples_minus_one_full_windows() -> None:
    rate = Rate(MetricConfig())  # Java's worker defaults: 2 samples of 30 s
    rate.record(100, 0)
    # 10 s elapsed < one full window: Java divides by 10 s + 30 s
    assert rate.window_size_ms(10_000) == 40_000
    assert rate.measure(10_000) == pytest.approx(100 / 40)


def test_rate_divides_by_the_real_elapsed_time_once_enough_windows_passed() -> None:
    rate = Rate(SMALL)
    rate.record(4, 0)
    rate.record(2, 1200)
    assert rate.window_size_ms(1500) == 1500
    assert rate.measure(1500) == pytest.approx(6 / 1.5)


def test_rate_window_is_never_below_one_millisecond() -> None:
    rate = Rate(MetricConfig(samples=1, window_ms=1000))
    rate.record(3, 50)
    assert rate.window_size_ms(50) == 1
    assert rate.measure(50) == pytest.approx(3000)


def test_cumulative_stats_never_decay() -> None:
    total, count = CumulativeSum(), CumulativeCount()
    for value, at in ((3, 0), (4, 10_000_000)):
        total.record(value, at)
        count.record(value, at)
    assert (total.measure(10**12), count.measure(10**12)) == (7, 2)


def test_value_reads_the_last_record_and_zero_before_any() -> None:
    value = Value()
    assert value.measure(0) == 0.0
    value.record(9, 0)
    value.record(2, 5)
    assert value.measure(10**9) == 2


def test_outcomes_are_fractions_of_the_window_and_zero_when_empty() -> None:
    outcomes = Outcomes(SMALL)
    assert (outcomes.success_ratio(0), outcomes.failure_ratio(0)) == (0.0, 0.0)
    for success in (True, True, False):
        outcomes.record(success, 100)
    assert outcomes.success_ratio(200) == pytest.approx(2 / 3)
    assert outcomes.failure_ratio(200) == pytest.approx(1 / 3)
    assert (outcomes.success_ratio(2100), outcomes.failure_ratio(2100)) == (0.0, 0.0)


def test_state_tracker_ratio_is_zero_before_the_first_state() -> None:
    assert StateTracker().duration_ratio(TrackedState.RUNNING, 1000) == 0.0


def test_state_tracker_ratios_over_the_lifetime() -> None:
    tracker = StateTracker()
    tracker.change_state(TrackedState.RUNNING, 0)
    tracker.change_state(TrackedState.RUNNING, 50)  # same state: no change
    tracker.change_state(TrackedState.PAUSED, 100)
    assert tracker.state is TrackedState.PAUSED
    assert tracker.duration_ratio(TrackedState.RUNNING, 200) == 0.5
    assert tracker.duration_ratio(TrackedState.PAUSED, 200) == 0.5
    assert tracker.duration_ratio(TrackedState.FAILED, 200) == 0.0


def test_state_tracker_leaves_past_stopped_time_out_of_the_total() -> None:
    tracker = StateTracker()
    tracker.change_state(TrackedState.RUNNING, 0)
    tracker.change_state(TrackedState.STOPPED, 100)
    tracker.change_state(TrackedState.RUNNING, 200)
    assert tracker.duration_ratio(TrackedState.RUNNING, 300) == 1.0


def test_a_sensor_records_into_its_stats_at_the_clock_or_at_the_event_time() -> None:
    now = [0]
    sensor = Sensor([Avg(SMALL), Max(SMALL), CumulativeSum()], clock=lambda: now[0])
    sensor.record(4)
    sensor.record(8, at_ms=500)
    now[0] = 900
    assert sensor.measure() == (6, 8, 12)
    now[0] = 2500  # both events' sample saw nothing for samples x window
    avg, high, total = sensor.measure()
    assert math.isnan(avg) and math.isnan(high) and total == 12


@pytest.mark.parametrize(("samples", "window_ms"), [(0, 1000), (2, -1)])
def test_metric_config_refuses_what_java_refuses(samples: int, window_ms: int) -> None:
    with pytest.raises(ValueError):
        MetricConfig(samples=samples, window_ms=window_ms)
