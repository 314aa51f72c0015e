#!/usr/bin/env python3
"""Memory of a worker and per task: the memory of a ``connect-distributed`` worker child process and all
its descendants (its task processes, and the fork server they come from), in three scenarios, each in a
fresh worker (so that memory freed by an earlier scenario but kept by the allocator does not count twice):

* ``idle_worker``: an exactly-once worker with no connectors;
* ``one_eos_task``: the same with ONE exactly-once VerifiableSource task (``--one-task-throughput``
  records/s, default 100: a low rate);
* ``idle_tasks``: the same with ``--idle-tasks`` (default 50) idle exactly-once tasks: ONE VerifiableSource
  connector with ``tasks.max=N`` at ``throughput=1`` record/s per task. One connector rather than N
  one-task connectors, so that the increment over the idle worker is the cost of tasks (their producer,
  thread or process, converters, offset bookkeeping), not of N connector instances and their configs;
  1 record/s keeps every task alive (polling, committing transactions) while doing almost no work.

Three measures of the process tree, each summed over its processes:

* ``rss``: resident set size (``VmRSS``). Pages shared between processes (the interpreter, libraries,
  and the copy-on-write pages a forked task process shares with the process it was forked from) count
  once PER PROCESS: an upper bound, the figure ``ps`` and ``top`` show.
* ``pss``: proportional set size (``/proc/<pid>/smaps_rollup``): a page shared by k processes counts 1/k
  in each. Summed over the tree it is what the tree costs the machine, shared pages counted fairly.
  The budget is stated on it.
* ``uss``: unique set size (the ``Private_*`` lines of ``smaps_rollup``): the pages only that process
  holds, what the machine gets back when it exits.

Each reading is taken once the PSS has settled: after ``--warmup`` seconds (15), readings
``--settle-interval`` seconds apart until two consecutive ones differ by less than
``--settle-tolerance`` (2%), or ``--settle-timeout`` passes (then the scenario says ``settled: false``
and a warning is printed). In ``summary``, for each measure: ``per_task_mib`` = (idle_tasks - idle_worker)
/ N and ``one_task_increment_mib`` = one_eos_task - idle_worker (the top-level figures are RSS, as in
earlier versions; ``pss`` and ``uss`` hold the same for those). ``budget_mib`` (``--budget-mib``) is the
budget stated in bench/README.md for a worker with 50 idle tasks; ``within_budget`` compares the
idle_tasks PSS total with it.

Prints ONE JSON object on stdout; logs go to stderr. The broker is ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka started in a temp dir (and stopped at the end).

    python bench/task_memory.py [--idle-tasks 50] [--one-task-throughput 100] [--warmup 15] [--settle-interval 5]
                                [--settle-tolerance 0.02] [--settle-timeout 180] [--budget-mib 900]
                                [--bootstrap HOST:PORT]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker children's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_bootstrap_argument, broker, configure_logging, process_tree
from eos_throughput import create_topic

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess

log = logging.getLogger("bench.task_memory")

MIB = 1024 * 1024
CONNECTOR = "bench-mem"


@dataclass(frozen=True)
class Memory:
    """Memory of one process or of several, in bytes, each measure summed over the processes."""

    rss: int
    pss: int
    uss: int
    processes: int

    def __add__(self, other: Memory) -> Memory:
        return Memory(self.rss + other.rss, self.pss + other.pss, self.uss + other.uss,
                      self.processes + other.processes)

    def __sub__(self, other: Memory) -> Memory:
        return Memory(self.rss - other.rss, self.pss - other.pss, self.uss - other.uss,
                      self.processes - other.processes)

    def mib(self) -> dict[str, float]:
        return {"rss_mib": mib(self.rss), "pss_mib": mib(self.pss), "uss_mib": mib(self.uss)}


def process_memory(proc: psutil.Process) -> Memory | None:
    """RSS, and PSS and USS from ``/proc/<pid>/smaps_rollup`` (psutil reads it), of one process; None
    when it is gone (or a zombie)."""
    try:
        m = proc.memory_full_info()
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None
    return Memory(m.rss, m.pss, m.uss, 1)


def process_tree_memory(pid: int) -> tuple[Memory, Memory] | None:
    """(``pid`` alone, ``pid`` and all its live descendants); None when ``pid`` is gone. A descendant that
    exits while we read is left out."""
    tree = process_tree(pid)
    if tree is None:
        return None
    root, children = tree
    own = process_memory(root)
    if own is None:
        return None
    total = own
    for child in children:
        got = process_memory(child)
        if got is not None:
            total += got
    return own, total


def settled(previous: float, current: float, tolerance: float) -> bool:
    """Two readings differ by less than ``tolerance`` (a fraction of the larger one)."""
    top = max(previous, current)
    return top > 0 and abs(current - previous) / top < tolerance


def wait_settled(read: Callable[[], float], interval_s: float, tolerance: float, timeout_s: float,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic) -> tuple[float, bool, list[float]]:
    """Read every ``interval_s`` until two consecutive readings are :func:`settled`, or ``timeout_s``
    passes. Returns (the last reading, whether it settled, all readings)."""
    deadline = clock() + timeout_s
    readings = [read()]
    while True:
        sleep(interval_s)
        readings.append(read())
        if settled(readings[-2], readings[-1], tolerance):
            return readings[-1], True, readings
        if clock() >= deadline:
            return readings[-1], False, readings


def mib(n_bytes: float) -> float:
    return round(n_bytes / MIB, 1)


MEASURES = ("rss", "pss", "uss")


def increments(scenarios: dict[str, dict[str, Any]], measure: str, idle_tasks: int) -> dict[str, Any]:
    """One measure's figures (MiB) from the scenarios' settled trees: the totals, the increment of one
    task and per idle task."""
    key = f"{measure}_mib"
    idle = scenarios["idle_worker"][key]
    one = scenarios["one_eos_task"][key]
    many = scenarios["idle_tasks"][key]
    return {
        "idle_worker_mib": idle,
        "one_eos_task_mib": one,
        "idle_tasks_mib": many,
        "one_task_increment_mib": round(one - idle, 1),
        "per_task_mib": round((many - idle) / idle_tasks, 2) if idle_tasks > 0 else None,
    }


def summarize(scenarios: dict[str, dict[str, Any]], idle_tasks: int, budget_mib: float) -> dict[str, Any]:
    """Headline figures: RSS at the top level (as earlier versions printed them), PSS and USS under
    ``pss`` and ``uss``; the budget is checked against the idle tasks' PSS."""
    out = increments(scenarios, "rss", idle_tasks)
    for measure in MEASURES[1:]:
        out[measure] = increments(scenarios, measure, idle_tasks)
    out["budget_mib"] = budget_mib
    out["budget_measure"] = "pss"
    out["within_budget"] = out["pss"]["idle_tasks_mib"] <= budget_mib
    return out


def run_scenario(bootstrap: str, workdir: Path, name: str, tasks: int, throughput: int,
                 args: argparse.Namespace) -> dict[str, Any]:
    """A fresh exactly-once worker; ``tasks`` > 0 adds one VerifiableSource connector with that many tasks.
    Returns the settled memory of the worker's process tree, of the worker process and of its descendants."""
    suffix = uuid.uuid4().hex[:8]
    group = f"bench-mem-{suffix}"
    worker = WorkerProcess(bootstrap, workdir / f"worker-{suffix}", group, eos="enabled")
    client: ConnectClient | None = None
    worker.start()
    try:
        worker.wait_ready(120)
        client = ConnectClient(worker.url)
        proc = worker.proc
        assert proc is not None
        started = time.monotonic()
        if tasks > 0:
            topic = create_topic(bootstrap, f"bench-mem-{suffix}", 1)
            config = {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": str(tasks),
                      "throughput": str(throughput)}
            response = client.request("PUT", f"/connectors/{CONNECTOR}/config", json=config)
            if response.status_code >= 400:
                raise RuntimeError(f"creating {CONNECTOR}: {response.status_code} {response.text}")
            client.wait_running(CONNECTOR, tasks, timeout_s=max(90.0, 6.0 * tasks))
        log.info("[%s] %d task(s) running after %.1f s; %.0f s warm-up, then waiting for the PSS to settle",
                 name, tasks, time.monotonic() - started, args.warmup)
        time.sleep(args.warmup)  # let producers connect and the first transactions commit before reading

        def read() -> float:
            got = process_tree_memory(proc.pid)
            if got is None:
                raise RuntimeError(f"worker exited; log:\n{worker.log_tail()}")
            return float(got[1].pss)

        _, ok, readings = wait_settled(read, args.settle_interval, args.settle_tolerance, args.settle_timeout)
        got = process_tree_memory(proc.pid)
        if got is None:
            raise RuntimeError(f"worker exited; log:\n{worker.log_tail()}")
        own, tree = got
        if tasks > 0:
            states = [t["state"] for t in client.status(CONNECTOR)["tasks"]]
            if len(states) != tasks or any(s != "RUNNING" for s in states):
                raise RuntimeError(f"[{name}] tasks not all RUNNING at the end: {states}; log:\n"
                                   f"{worker.log_tail()}")
        log.info("[%s] %d process(es): RSS %.1f MiB, PSS %.1f MiB, USS %.1f MiB (PSS %s)", name, tree.processes,
                 tree.rss / MIB, tree.pss / MIB, tree.uss / MIB, "settled" if ok else "NOT settled")
        rest = tree - own
        return {
            "tasks": tasks,
            "throughput_per_task": throughput if tasks > 0 else None,
            **tree.mib(),
            "processes": tree.processes,
            "worker_process": own.mib(),
            "descendants": {"processes": rest.processes, **rest.mib()},
            "settled": ok,
            "readings_pss_mib": [mib(r) for r in readings],
        }
    finally:
        if client is not None:
            client.close()
        log.info("[%s] worker stopped with exit code %s", name, worker.stop())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--idle-tasks", type=int, default=50, help="idle tasks of the third scenario (50)")
    parser.add_argument("--one-task-throughput", type=int, default=100,
                        help="records/s of the one exactly-once task (100)")
    parser.add_argument("--warmup", type=float, default=15.0,
                        help="seconds after the tasks run before the first PSS reading (15)")
    parser.add_argument("--settle-interval", type=float, default=5.0, help="seconds between PSS readings (5)")
    parser.add_argument("--settle-tolerance", type=float, default=0.02,
                        help="settled when two consecutive readings differ by less than this fraction (0.02)")
    parser.add_argument("--settle-timeout", type=float, default=180.0,
                        help="give up waiting for the PSS to settle after this many seconds (180)")
    parser.add_argument("--budget-mib", type=float, default=900.0,
                        help="the stated budget for the PSS of a worker with the idle tasks, in MiB (900)")
    add_bootstrap_argument(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.idle_tasks < 1 or args.one_task_throughput < 1 or args.settle_interval <= 0 or args.warmup < 0
            or not 0 < args.settle_tolerance < 1 or args.settle_timeout <= 0 or args.budget_mib <= 0):
        parser.error("--idle-tasks and --one-task-throughput must be >= 1, --settle-interval, --settle-timeout "
                     "and --budget-mib > 0, and 0 < --settle-tolerance < 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_logging()
    scenarios: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-mem-") as tmp:
        workdir = Path(tmp)
        with broker(workdir, args.bootstrap) as kafka:
            bootstrap = kafka.bootstrap
            scenarios["idle_worker"] = run_scenario(bootstrap, workdir, "idle_worker", 0, 0, args)
            scenarios["one_eos_task"] = run_scenario(bootstrap, workdir, "one_eos_task", 1,
                                                     args.one_task_throughput, args)
            scenarios["idle_tasks"] = run_scenario(bootstrap, workdir, "idle_tasks", args.idle_tasks, 1, args)
    warnings = [f"{name}: PSS did not settle within {args.settle_timeout:.0f} s"
                for name, s in scenarios.items() if not s["settled"]]
    out = summarize(scenarios, args.idle_tasks, args.budget_mib)
    if not out["within_budget"]:
        warnings.append(f"{args.idle_tasks} idle tasks: {out['pss']['idle_tasks_mib']} MiB PSS exceeds the budget "
                        f"of {args.budget_mib:.0f} MiB")
    for w in warnings:
        log.warning("%s", w)
    print(json.dumps({
        "benchmark": "task_memory",
        "kafka": kafka.version_label,
        "bootstrap": kafka.bootstrap_label,
        "idle_tasks": args.idle_tasks,
        "warmup_s": args.warmup,
        "settle_interval_s": args.settle_interval,
        "settle_tolerance": args.settle_tolerance,
        "summary": out,
        "scenarios": scenarios,
        "warnings": warnings,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count() or 1,
        "notes": "rss/pss/uss = sums over the worker process and its descendants: RSS counts shared pages once "
                 "per process, PSS splits each shared page between the processes sharing it, USS counts "
                 "private pages only (smaps_rollup); the budget is on PSS; each scenario in a fresh "
                 "exactly-once worker; idle tasks = one VerifiableSource connector with tasks.max=N at "
                 "1 record/s per task.",
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
