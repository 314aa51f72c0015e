"""Pure helpers of bench/task_memory.py (no broker)."""

from __future__ import annotations

import os
import subprocess
from types import ModuleType

import pytest
from bench_scripts import load_bench_script

from connect_runtime.testing.cluster import wait_until


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench_script("task_memory")


def test_process_tree_memory_of_this_process(bench: ModuleType) -> None:
    got = bench.process_tree_memory(os.getpid())
    assert got is not None
    own, tree = got
    assert own.processes == 1 and tree.processes >= 1
    # A single process's shared pages count fully in its RSS, in part in its PSS, not in its USS.
    assert own.rss >= own.pss >= own.uss > 1024 * 1024
    assert tree.rss >= own.rss and tree.pss >= own.pss
    assert bench.process_tree_memory(2**22 + 12345) is None  # above pid_max: never a live pid


def test_process_tree_memory_counts_descendants_and_shares_fairly(bench: ModuleType) -> None:
    # A child and a grandchild (the shell forks sleep), as a worker's fork server and task process.
    child = subprocess.Popen(["/bin/sh", "-c", "sleep 30 & wait"])
    try:
        def grown() -> tuple[object, object] | None:
            got = bench.process_tree_memory(os.getpid())
            return got if got is not None and got[1].processes >= 3 else None

        own, tree = wait_until(grown, 10, message="a child and a grandchild")
        rest = tree - own
        assert rest.processes >= 2 and rest.rss > 0
        # sh and sleep share their libraries' pages: counted once per process in RSS, split in PSS.
        assert rest.pss < rest.rss and rest.uss <= rest.pss
    finally:
        child.kill()
        child.wait()


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
    scenarios = {"idle_worker": {"rss_mib": 70.0, "pss_mib": 60.0, "uss_mib": 50.0},
                 "one_eos_task": {"rss_mib": 100.0, "pss_mib": 75.0, "uss_mib": 60.0},
                 "idle_tasks": {"rss_mib": 1570.0, "pss_mib": 560.0, "uss_mib": 300.0}}
    out = bench.summarize(scenarios, 50, 600.0)
    assert out["one_task_increment_mib"] == 30.0 and out["per_task_mib"] == 30.0  # RSS at the top level
    assert out["pss"]["one_task_increment_mib"] == 15.0 and out["pss"]["per_task_mib"] == 10.0
    assert out["uss"]["per_task_mib"] == 5.0 and out["uss"]["idle_tasks_mib"] == 300.0
    # The budget is on PSS: 1570 MiB of RSS over it does not matter, 560 MiB of PSS does.
    assert out["budget_measure"] == "pss" and out["within_budget"] is True
    assert bench.summarize(scenarios, 50, 500.0)["within_budget"] is False


def test_parse_args_defaults_and_refusals(bench: ModuleType) -> None:
    args = bench.parse_args([])
    assert args.idle_tasks == 50 and args.settle_tolerance == 0.02
    for bad in (["--idle-tasks", "0"], ["--settle-tolerance", "1.5"], ["--settle-interval", "0"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)
