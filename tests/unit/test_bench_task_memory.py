"""Pure helpers of bench/task_memory.py (no broker)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

_SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "task_memory.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    # The script (and eos_throughput, which it imports) edit sys.path and PYTHONPATH: undo that.
    saved_path, saved_env = list(sys.path), os.environ.get("PYTHONPATH")
    try:
        spec = importlib.util.spec_from_file_location("bench_task_memory", _SCRIPT)
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


def test_parse_vmrss_kib(bench: ModuleType) -> None:
    text = "Name:\tpython\nVmPeak:\t  300000 kB\nVmRSS:\t   72704 kB\nThreads:\t9\n"
    assert bench.parse_vmrss_kib(text) == 72704
    assert bench.parse_vmrss_kib("Name:\tkthreadd\nThreads:\t1\n") is None


def test_process_tree_rss_of_this_process(bench: ModuleType) -> None:
    got = bench.process_tree_rss(os.getpid())
    assert got is not None
    rss, count = got
    assert count >= 1 and rss > 1024 * 1024
    assert bench.process_tree_rss(2**22 + 12345) is None  # above pid_max: never a live pid


def test_settled(bench: ModuleType) -> None:
    assert bench.settled(100.0, 101.0, 0.02)
    assert not bench.settled(100.0, 103.0, 0.02)
    assert not bench.settled(103.0, 100.0, 0.02)
    assert not bench.settled(0.0, 0.0, 0.02)


def test_wait_settled_stops_at_first_close_pair(bench: ModuleType) -> None:
    values = iter([100.0, 150.0, 180.0, 181.0, 500.0])
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    last, ok, readings = bench.wait_settled(lambda: next(values), 5, 0.02, 60, sleep=sleep, clock=lambda: now[0])
    assert (last, ok, readings) == (181.0, True, [100.0, 150.0, 180.0, 181.0])


def test_wait_settled_gives_up_at_deadline(bench: ModuleType) -> None:
    counter = iter(range(1, 1000))
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    last, ok, readings = bench.wait_settled(lambda: 100.0 * 2 ** next(counter), 5, 0.02, 12,
                                            sleep=sleep, clock=lambda: now[0])
    assert not ok and len(readings) == 4 and last == readings[-1]


def test_summarize(bench: ModuleType) -> None:
    scenarios = {"idle_worker": {"rss_mib": 70.0}, "one_eos_task": {"rss_mib": 80.0},
                 "idle_tasks": {"rss_mib": 320.0}}
    out = bench.summarize(scenarios, 50, 400.0)
    assert out["one_task_increment_mib"] == 10.0
    assert out["per_task_mib"] == 5.0
    assert out["within_budget"] is True
    assert bench.summarize(scenarios, 50, 300.0)["within_budget"] is False


def test_parse_args_defaults_and_refusals(bench: ModuleType) -> None:
    args = bench.parse_args([])
    assert args.idle_tasks == 50 and args.settle_tolerance == 0.02
    for bad in (["--idle-tasks", "0"], ["--settle-tolerance", "1.5"], ["--settle-interval", "0"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)
