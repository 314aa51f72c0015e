"""Pure helpers of bench/eos_breakdown.py (no broker)."""

from __future__ import annotations

from types import ModuleType

import pytest
from bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench_script("eos_breakdown")


def test_percentile_is_the_nearest_rank(bench: ModuleType) -> None:
    values = [float(v) for v in range(1, 101)]
    assert bench.percentile(values, 50) == 50.0
    assert bench.percentile(values, 90) == 90.0
    assert bench.percentile(values, 99) == 99.0
    assert bench.percentile([7.0], 99) == 7.0
    assert bench.percentile([1.0, 2.0, 3.0], 50) == 2.0


def test_per_poll_splits_the_loop_time(bench: ModuleType) -> None:
    delta = {"polls": 100.0, "poll_s": 0.1, "send_s": 0.15, "batch_end_s": 0.5, "poll_ahead_s": 0.0,
             "commit_transaction_s": 0.45, "flush_s": 0.0, "loop_wall_s": 0.8, "records": 100000.0}
    out = bench.per_poll(delta)
    assert out["poll_ms"] == 1.0 and out["send_ms"] == 1.5 and out["commit_transaction_ms"] == 4.5
    assert out["blocked_in_batch_end_ms"] == 5.0
    assert out["other_ms"] == 0.5  # 8 ms per poll - 1 - 1.5 - 5
    assert out["loop_ms"] == 8.0
    # A poll made inside batch_end (while a commit ran elsewhere) is not time blocked in it.
    ahead = bench.per_poll({**delta, "poll_s": 0.2, "poll_ahead_s": 0.1})
    assert ahead["blocked_in_batch_end_ms"] == 4.0 and ahead["other_ms"] == 0.5
