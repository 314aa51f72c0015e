"""Pure helpers of bench/soak.py (no broker): reading a process tree, counting librdkafka clients, the
slopes, the leak checks and the seeded churn."""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
from types import ModuleType

import pytest
from bench_scripts import load_bench_script
from confluent_kafka import Producer

from connect_runtime.testing.cluster import wait_until

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    return load_bench_script("soak")


def test_a_producer_left_open_is_counted_and_a_closed_one_is_not(soak: ModuleType) -> None:
    before = soak.rdkafka_clients(os.getpid())
    # Nothing listens on port 1: the producer exists without a broker.
    producer = Producer({"bootstrap.servers": "127.0.0.1:1", "log_level": 0})
    assert soak.rdkafka_clients(os.getpid()) == before + 1
    del producer
    gc.collect()
    wait_until(lambda: soak.rdkafka_clients(os.getpid()) == before, 10, message="the producer's threads gone")
    assert soak.rdkafka_clients(2**22 + 12345) == 0  # above pid_max: never a live pid


def test_read_tree_tells_task_processes_from_helpers(soak: ModuleType) -> None:
    code = ("import setproctitle, time; setproctitle.setproctitle('connect-runtime task soak-3-1'); "
            "print('ready', flush=True); time.sleep(30)")
    task = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    helper = subprocess.Popen(["sleep", "30"])
    try:
        assert task.stdout is not None and task.stdout.readline() == b"ready\n"
        sample = soak.read_tree(os.getpid(), 1.5)
        assert sample is not None and sample.t == 1.5
        assert set(sample.tasks) == {"soak-3-1"}
        one = sample.tasks["soak-3-1"]
        assert one.processes == 1 and one.rss > MIB and one.threads >= 1 and one.fds >= 3 and one.clients == 0
        assert sample.helpers.processes >= 1  # sleep (and whatever else this test process runs)
        assert sample.worker.processes == 1 and sample.worker.rss > MIB
    finally:
        for p in (task, helper):
            p.kill()
            p.wait()
    assert soak.read_tree(2**22 + 12345, 0.0) is None


def test_slope_per_hour_is_the_least_squares_slope(soak: ModuleType) -> None:
    line = [(t, 100 + 2 * t / 3600) for t in range(0, 3600, 60)]  # 2 units per hour
    assert soak.slope_per_hour(line) == pytest.approx(2.0)
    # Noise of +-0.5 units, 25 times the line's rise from one point to the next, hardly moves the fit.
    noisy = [(t, y + (0.5 if i % 2 else -0.5)) for i, (t, y) in enumerate(line)]
    assert soak.slope_per_hour(noisy) == pytest.approx(2.0, abs=0.1)
    assert soak.slope_per_hour([(0, 1.0), (10, 2.0)]) is None  # too few points to fit
    assert soak.slope_per_hour([(5, 1.0), (5, 2.0), (5, 3.0)]) is None  # no spread in time


def usage(soak: ModuleType, rss_mib: float, fds: int = 10, threads: int = 5, clients: int = 0) -> object:
    return soak.Usage(int(rss_mib * MIB), fds, threads, clients, 1)


def sample(soak: ModuleType, t: float, worker_mib: float, stable_mib: float, churned_mib: float) -> object:
    """A worker with two stable tasks (``soak-0``: two processes) and one churned task ``soak-10-0``."""
    tasks = {"soak-0-0": usage(soak, stable_mib), "soak-0-1": usage(soak, stable_mib + 2),
             "soak-10-0": usage(soak, churned_mib)}
    return soak.Sample(t, usage(soak, worker_mib), usage(soak, 20), tasks)


def test_the_slope_on_time_with_the_task_count_held_constant(soak: ModuleType) -> None:
    # RSS = 100 MiB + 0.4 MiB per task + 0.5 MiB/h, while churn moves the task count between 50 and 70.
    points = [(t, float(50 + (t // 60) % 21), 100 + 0.4 * (50 + (t // 60) % 21) + 0.5 * t / 3600)
              for t in range(0, 1800, 10)]
    per_hour, per_task = soak.slope_holding_constant(points)
    assert per_hour == pytest.approx(0.5, abs=1e-6) and per_task == pytest.approx(0.4, abs=1e-9)
    # The plain slope mixes in the fleet's growth.
    assert soak.slope_per_hour([(t, y) for t, _, y in points]) != pytest.approx(0.5, abs=0.5)
    flat = [(t, 55.0, 100 + 2 * t / 3600) for t in range(0, 600, 10)]
    assert soak.slope_holding_constant(flat) == pytest.approx((2.0, 0.0))
    assert soak.slope_holding_constant(flat[:3]) is None


def test_slopes_fit_after_the_warm_up_and_per_task(soak: ModuleType) -> None:
    # The worker grows 6 MiB/h after a 20 MiB jump in the warm-up; the stable tasks 0.5 MiB/h; the churned
    # task's RSS jumps around (processes coming and going) and must not count.
    samples = [sample(soak, t, (80 if t < 300 else 100) + 6 * t / 3600, 40 + 0.5 * t / 3600, 30 + (t % 7) * 10)
               for t in range(0, 1800, 10)]
    fit = soak.slopes(samples, 300, ["soak-0"])
    assert fit["worker_rss_mib"] == pytest.approx(6.0, abs=0.01)
    assert fit["task_rss_mib"] == pytest.approx(0.5, abs=0.01)
    assert fit["mean_tasks"] == 3
    assert fit["worker_rss_mib_per_task"] == pytest.approx(2.0, abs=0.01)
    assert fit["worker_rss_mib_same_tasks"] == pytest.approx(6.0, abs=0.01)  # the task count never moves
    assert fit["worker_rss_mib_per_task_same_tasks"] == pytest.approx(2.0, abs=0.01)
    assert fit["worker_fds"] == 0 and fit["helpers_rss_mib"] == 0
    assert fit["samples"] == 150 and fit["window_s"] == 1490
    # 2 MiB/h of worker RSS per task is above a 1 MiB/h goal; below a 3 MiB/h one.
    assert soak.slope_verdict(fit, 1.0, 600) is False
    assert soak.slope_verdict(fit, 3.0, 600) is True
    assert soak.slope_verdict(fit, 3.0, 1500) is None  # too short a window to judge


def test_slope_verdict_fails_without_a_stable_task(soak: ModuleType) -> None:
    samples = [soak.Sample(t, usage(soak, 100), usage(soak, 20), {}) for t in range(0, 1200, 10)]
    fit = soak.slopes(samples, 0, ["soak-0"])
    assert fit["task_rss_mib"] is None and fit["worker_rss_mib_per_task"] is None
    assert soak.slope_verdict(fit, 1.0, 600) is False


def test_leaks_name_what_delete_all_left_behind(soak: ModuleType) -> None:
    baseline = soak.Sample(0, usage(soak, 100, fds=80, threads=60, clients=6), usage(soak, 20), {})
    clean = soak.Sample(0, usage(soak, 130, fds=84, threads=62, clients=6), usage(soak, 25), {})
    assert soak.leaks(baseline, clean, 4, 2) == []
    leaked = soak.Sample(0, usage(soak, 130, fds=85, threads=63, clients=7),
                         soak.Usage(20 * MIB, 10, 5, 0, 2), {"soak-7-0": usage(soak, 40)})
    found = soak.leaks(baseline, leaked, 4, 2)
    assert found == ["task process soak-7-0 still runs",
                     "worker: 7 librdkafka clients, 6 at the baseline",
                     "worker: 85 open fds, 80 at the baseline (tolerance 4)",
                     "worker: 63 threads, 60 at the baseline (tolerance 2)",
                     "helpers: 2 processes, 1 at the baseline"]


def test_the_initial_fleet(soak: ModuleType) -> None:
    fleet = soak.Fleet.initial(50)
    kinds = [(c.kind, c.tasks) for c in fleet.connectors.values()]
    assert kinds.count(("file", 1)) == 5 and kinds.count(("verifiable", 2)) == 5
    assert kinds.count(("verifiable", 1)) == 40 and fleet.tasks == 55
    assert fleet.stable == [f"soak-{i}" for i in range(10)]
    assert soak.Fleet.initial(3).stable == ["soak-0"]


def test_churn_is_seeded_spares_the_stable_connectors_and_stays_in_bounds(soak: ModuleType) -> None:
    def run(seed: int) -> tuple[list[object], object]:
        fleet = soak.Fleet.initial(50)
        rng = random.Random(seed)
        actions = []
        for _ in range(500):
            action = fleet.draw(rng)
            fleet.apply(action)
            actions.append(action)
            paused = [n for n, c in fleet.connectors.items() if c.paused]
            assert len(paused) <= 3
            assert all(1 <= c.tasks <= soak.MAX_TASKS for c in fleet.connectors.values())
        return actions, fleet

    actions, fleet = run(27)
    assert run(27)[0] == actions
    assert run(28)[0] != actions
    assert not {a.name for a in actions} & set(fleet.stable)
    assert all(name in fleet.connectors for name in fleet.stable)
    assert {a.kind for a in actions} == {"replace", "tasks", "throughput", "pause", "resume", "restart"}
    assert len(fleet.connectors) == 50
    replaced = [a for a in actions if a.kind == "replace"]
    assert fleet.created == 50 + len(replaced)
    assert all(a.new_name in fleet.connectors or a.new_name in {b.name for b in replaced} for a in replaced)
    # Reconfigurations reach only running VerifiableSources; restarts and pauses any running connector.
    assert all(a.throughput in soak.THROUGHPUTS for a in actions if a.kind == "throughput")


def test_a_fleet_of_only_stable_connectors_has_no_churn(soak: ModuleType) -> None:
    assert soak.Fleet.initial(1).draw(random.Random(1)) is None
