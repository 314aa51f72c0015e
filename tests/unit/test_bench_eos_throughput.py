"""Pure helpers of bench/eos_throughput.py (no broker)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from connect_runtime.converters.json_converter import json_dumps_compact

_SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "eos_throughput.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    # The script puts the repository on sys.path and PYTHONPATH (for its worker child): undo that.
    saved_path, saved_env = list(sys.path), os.environ.get("PYTHONPATH")
    try:
        spec = importlib.util.spec_from_file_location("bench_eos_throughput", _SCRIPT)
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


@pytest.mark.parametrize("topic", ["bench-txn-0123abcd", "t%d-with\"quote", "tøpic"])
def test_complete_value_template_matches_the_json_converter(bench: ModuleType, topic: str) -> None:
    template = bench.complete_value_template("bench-eos", 0, topic)
    for time_ms, seqno in [(1795459946005, 0), (1, 123456789)]:
        value = {"name": "bench-eos", "task": 0, "topic": topic, "time_ms": time_ms, "seqno": seqno}
        assert template % (time_ms, seqno) == json_dumps_compact(value)


def test_record_seqno_reads_both_value_shapes(bench: ModuleType) -> None:
    assert bench.record_seqno(b"1487999") == 1487999
    assert bench.record_seqno(json_dumps_compact(
        {"name": "c", "task": 0, "topic": "t", "time_ms": 1, "seqno": 42})) == 42
    with pytest.raises(ValueError):
        bench.record_seqno(None)


def test_window_counts_separates_records_from_commit_markers(bench: ModuleType) -> None:
    # 3 transactions of 1000 records: 3003 offsets, seqno 999 -> 3999.
    assert bench.window_counts(1001, 999, 4004, 3999) == (3000, 3)
    # From the very start (no record before the first LSO) and unequal transactions (2 + 5 records).
    assert bench.window_counts(0, -1, 9, 6) == (7, 2)
    assert bench.window_counts(7, 5, 7, 5) == (0, 0)
    with pytest.raises(ValueError):
        bench.window_counts(1001, 999, 2000, 1998)  # 999 records in 999 offsets: no marker
    with pytest.raises(ValueError):
        bench.window_counts(4004, 3999, 1001, 999)


def test_records_per_transaction_is_total_over_total(bench: ModuleType) -> None:
    windows = [{"records": 3000, "transactions": 3}, {"records": 1000, "transactions": 2}]
    assert bench.records_per_transaction(windows) == 800.0
    assert bench.records_per_transaction([]) == 0.0
