"""Pure helpers of bench/eos_breakdown.py (no broker)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

_SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "eos_breakdown.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    # The script (and eos_throughput, which it imports) put bench/ and the repository on sys.path and
    # PYTHONPATH for the worker child: undo that.
    saved_path, saved_env = list(sys.path), os.environ.get("PYTHONPATH")
    saved_modules = set(sys.modules)
    try:
        spec = importlib.util.spec_from_file_location("bench_eos_breakdown", _SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved_env
        for name in set(sys.modules) - saved_modules:
            if name == "eos_throughput":
                del sys.modules[name]


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
