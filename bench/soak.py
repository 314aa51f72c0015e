#!/usr/bin/env python3
"""Resource soak: one exactly-once worker, ``--connectors`` connectors (50) and seeded churn for
``--duration`` seconds; do the worker's and its task processes' RSS, open file descriptors and threads
stay flat, and does everything go away when the connectors do?

The fleet: mostly one-task exactly-once VerifiableSource connectors at a modest rate (one transaction a
second: ``transaction.boundary=interval``), every tenth a FileStreamSource on a file this script appends
to, every tenth (offset by five) a VerifiableSource with two tasks. The first fifth of the fleet is
*stable*: never churned, so its task processes live through the whole run and their RSS is the per-task
figure. The rest is churned, one action every ``--churn-interval`` seconds drawn from a
``random.Random(--seed)``: replace (delete a connector, create a new one), ``tasks.max`` up or down,
``throughput`` changed, pause, resume, restart with its tasks. The same seed draws the same actions.

Every ``--sample-interval`` seconds the script reads, from ``/proc`` (through psutil): the worker
process's RSS, open fds and threads and its librdkafka clients; the same summed over its helper
processes (the fork server and multiprocessing's resource tracker); and for every task process (found
by its title, ``connect-runtime task <connector>-<n>``) the same, per process.

A librdkafka client (producer, consumer or admin client) runs one thread named ``rdk:main`` whatever
else it runs, and that thread exits when the client is destroyed: counting those threads in
``/proc/<pid>/task/*/comm`` counts the clients a process holds, so a producer left open is seen.

After ``--warmup`` seconds, least-squares slopes (per hour) of: the worker's RSS (MiB), fds, threads and
clients; the helpers' RSS; the mean RSS of the stable connectors' task processes (``task_rss_mib``: the
per-task-process figure, on processes that live through the run; churned connectors' processes come and
go too fast for a slope of their own); and ``worker_rss_mib_per_task``, the worker's RSS slope divided by
the mean number of tasks. Churn moves the number of tasks, and the worker's RSS follows it (a fraction of
a MiB per task): ``worker_rss_mib_same_tasks`` is the slope on time of a least-squares fit of the
worker's RSS on time and the number of task processes together, i.e. with the fleet's size held constant,
and ``worker_rss_mib_per_task_same_tasks`` that per task. The goal (issue 27): RSS slope <
``--goal-mib-per-hour`` (1 MiB/h) per task after the warm-up, checked on ``task_rss_mib`` and
``worker_rss_mib_per_task_same_tasks`` when the fitted window is at least ``--min-fit`` seconds (600;
shorter windows are reported, not judged: ``slope_ok`` null).

The baseline of the leak checks: before the churn, the whole fleet is created once under other names and
deleted (the *priming round*), and the worker read ``--baseline-wait`` seconds later. Its bounded thread
pools (herder, fencing, REST calls: 34 threads at most) have then grown to what the fleet needs, and keep
those threads; they may grow further under churn, hence the default ``--thread-tolerance`` of 34. At the
end: paused connectors resumed, every connector checked RUNNING (those that are not are listed in
``not_running``), then every connector deleted; then no task process may be left, the worker's and the
helpers' clients and processes must be back to the baseline, and their fds and threads within
``--fd-tolerance`` / ``--thread-tolerance`` of it.

Prints ONE JSON object on stdout (logs on stderr); the exit code is 1 on a leak or a slope above the goal,
else 0.

    python bench/soak.py [--duration 1800] [--connectors 50] [--sample-interval 10] [--warmup 300]
                         [--churn-interval 5] [--seed 27] [--bootstrap HOST:PORT]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import re
import signal
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker child's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_bootstrap_argument, broker, configure_logging, process_tree, run_workdir
from eos_throughput import create_topic

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, wait_until
from connect_runtime.testing.topics import read_transactions

log = logging.getLogger("bench.soak")

MIB = 1024 * 1024
HOUR = 3600.0
#: How a task process names itself (``ps`` shows it), followed by its task's id.
TASK_TITLE = "connect-runtime task "
#: The thread every librdkafka client runs, one per client.
RDKAFKA_MAIN_THREAD = "rdk:main"
#: The threads of the worker's bounded pools, which grow on demand and keep their threads: herder-work 4,
#: fence 8, fencing-round 4, rest-herder-call 16, connector-offsets 2. Threads a churned fleet leaks (one
#: per task process, per connector, ...) outgrow them within minutes.
POOL_THREADS = 34
THROUGHPUTS = (1, 2, 5, 10)
MAX_TASKS = 3


# -- reading processes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """What one process holds, or several summed: RSS in bytes, open fds, threads, librdkafka clients."""

    rss: int = 0
    fds: int = 0
    threads: int = 0
    clients: int = 0
    processes: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.rss + other.rss, self.fds + other.fds, self.threads + other.threads,
                     self.clients + other.clients, self.processes + other.processes)

    def as_dict(self) -> dict[str, Any]:
        return {"rss_mib": round(self.rss / MIB, 2), "fds": self.fds, "threads": self.threads,
                "clients": self.clients, "processes": self.processes}


def rdkafka_clients(pid: int) -> int:
    """The librdkafka clients of process ``pid``: its threads named ``rdk:main`` (0 once it is gone)."""
    count = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                count += f.read().strip() == RDKAFKA_MAIN_THREAD
        except OSError:
            continue  # the thread ended while we read
    return count


def usage(proc: psutil.Process) -> Usage | None:
    """The :class:`Usage` of one process; None when it is gone (or a zombie)."""
    try:
        with proc.oneshot():
            return Usage(proc.memory_info().rss, proc.num_fds(), proc.num_threads(), rdkafka_clients(proc.pid), 1)
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None


def task_id(proc: psutil.Process) -> str | None:
    """The task id a task process names itself after; None for any other process (or a gone one)."""
    try:
        title = " ".join(proc.cmdline())
    except psutil.Error:
        return None
    return title[len(TASK_TITLE):].strip() if title.startswith(TASK_TITLE) else None


@dataclass(frozen=True)
class Sample:
    """One reading of a worker's process tree, ``t`` seconds into the churn."""

    t: float
    worker: Usage
    #: The worker's descendants that are not task processes (the fork server, the resource tracker).
    helpers: Usage
    #: Task id -> its process's usage.
    tasks: dict[str, Usage]


def read_tree(pid: int, t: float) -> Sample | None:
    """A :class:`Sample` of worker ``pid``; None once the worker is gone. A descendant that exits while
    it is read is left out."""
    tree = process_tree(pid)
    if tree is None:
        return None
    root, below = tree
    own = usage(root)
    if own is None:
        return None
    helpers = Usage()
    tasks: dict[str, Usage] = {}
    for proc in below:
        got = usage(proc)
        if got is None:
            continue
        name = task_id(proc)
        if name is None:
            helpers += got
        else:
            tasks[name] = got
    return Sample(t, own, helpers, tasks)


# -- fitting -----------------------------------------------------------------------------------------


def slope_per_hour(points: Sequence[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``(seconds, value)`` points, per hour; None with fewer than three
    points or no spread in time."""
    if len(points) < 3:
        return None
    xs = [x for x, _ in points]
    if max(xs) == min(xs):
        return None
    return statistics.linear_regression(xs, [y for _, y in points]).slope * HOUR


def slope_holding_constant(points: Sequence[tuple[float, float, float]]) -> tuple[float, float] | None:
    """Least squares of ``y = a + b t + c n`` over ``(t seconds, n, y)`` points: ``(b per hour, c)``, the
    slope on time with ``n`` held constant and the change per unit of ``n``. When ``n`` never changes, ``b``
    is the plain slope and ``c`` 0. None with fewer than four points or no spread in time."""
    if len(points) < 4:
        return None
    mt, mn, my = (statistics.fmean(p[i] for p in points) for i in range(3))
    stt = sum((t - mt) ** 2 for t, _, _ in points)
    snn = sum((n - mn) ** 2 for _, n, _ in points)
    stn = sum((t - mt) * (n - mn) for t, n, _ in points)
    sty = sum((t - mt) * (y - my) for t, _, y in points)
    sny = sum((n - mn) * (y - my) for _, n, y in points)
    if stt == 0:
        return None
    det = stt * snn - stn * stn
    if snn == 0 or det <= 1e-9 * stt * snn:  # n constant, or moving in lockstep with t: no separating them
        return sty / stt * HOUR, 0.0
    return (sty * snn - sny * stn) / det * HOUR, (sny * stt - sty * stn) / det


def stable_mean(sample: Sample, stable: Iterable[str], attr: str) -> float | None:
    """The mean of ``attr`` (a :class:`Usage` field) over the task processes of the ``stable`` connectors
    in ``sample``; None when none is there."""
    prefixes = tuple(f"{name}-" for name in stable)
    values = [getattr(u, attr) for task, u in sample.tasks.items() if task.startswith(prefixes)]
    return statistics.fmean(values) if values else None


def stable_task_rss(sample: Sample, stable: Iterable[str]) -> float | None:
    """The mean RSS (MiB) of the ``stable`` connectors' task processes in ``sample``."""
    mean = stable_mean(sample, stable, "rss")
    return None if mean is None else mean / MIB


def series(samples: Iterable[Sample], value: Callable[[Sample], float | None]) -> list[tuple[float, float]]:
    """``(t, value(sample))`` for each sample where the value exists."""
    out = []
    for s in samples:
        v = value(s)
        if v is not None:
            out.append((s.t, v))
    return out


def rounded(x: float | None, digits: int = 3) -> float | None:
    return None if x is None else round(x, digits)


def slopes(samples: Sequence[Sample], warmup_s: float, stable: Sequence[str]) -> dict[str, Any]:
    """The slopes per hour of the samples taken after ``warmup_s``: RSS in MiB, the rest in counts."""
    fitted = [s for s in samples if s.t >= warmup_s]
    measures: dict[str, Callable[[Sample], float | None]] = {
        "worker_rss_mib": lambda s: s.worker.rss / MIB,
        "worker_fds": lambda s: s.worker.fds,
        "worker_threads": lambda s: s.worker.threads,
        "worker_clients": lambda s: s.worker.clients,
        "helpers_rss_mib": lambda s: s.helpers.rss / MIB,
        "helpers_fds": lambda s: s.helpers.fds,
        "task_rss_mib": lambda s: stable_task_rss(s, stable),
        "task_fds": lambda s: stable_mean(s, stable, "fds"),
        "task_threads": lambda s: stable_mean(s, stable, "threads"),
    }
    out: dict[str, Any] = {name: rounded(slope_per_hour(series(fitted, f))) for name, f in measures.items()}
    tasks = statistics.fmean(len(s.tasks) for s in fitted) if fitted else 0.0
    out["mean_tasks"] = round(tasks, 1)
    worker = out["worker_rss_mib"]
    out["worker_rss_mib_per_task"] = rounded(worker / tasks) if worker is not None and tasks > 0 else None
    # Churn moves the number of tasks (tasks.max up and down, replacements), and the worker's RSS follows
    # it by a fraction of a MiB per task: that is the fleet's size, not a leak. The slope on time with the
    # number of task processes held constant separates the two.
    held = slope_holding_constant([(s.t, float(len(s.tasks)), s.worker.rss / MIB) for s in fitted])
    out["worker_rss_mib_same_tasks"] = rounded(held[0]) if held else None
    out["worker_rss_mib_per_task_process"] = rounded(held[1]) if held else None
    out["worker_rss_mib_per_task_same_tasks"] = rounded(held[0] / tasks) if held and tasks > 0 else None
    out["samples"] = len(fitted)
    out["window_s"] = round(fitted[-1].t - fitted[0].t, 1) if fitted else 0.0
    return out


def slope_verdict(fit: Mapping[str, Any], goal_mib_per_hour: float, min_fit_s: float) -> bool | None:
    """Whether the RSS slopes per task meet the goal; None when the fitted window is too short to say."""
    if fit["window_s"] < min_fit_s:
        return None
    per_task = [fit["task_rss_mib"], fit["worker_rss_mib_per_task_same_tasks"]]
    return all(v is not None and v < goal_mib_per_hour for v in per_task)


# -- leak checks -------------------------------------------------------------------------------------


def leaks(baseline: Sample, final: Sample, fd_tolerance: int, thread_tolerance: int) -> list[str]:
    """What ``final`` (after every connector is deleted) holds beyond ``baseline`` (the worker after the
    priming round): task processes, clients, helper processes, and fds or threads past
    the tolerances. Empty when nothing leaked."""
    found = [f"task process {task} still runs" for task in sorted(final.tasks)]
    for who, base, end in (("worker", baseline.worker, final.worker), ("helpers", baseline.helpers, final.helpers)):
        if end.clients > base.clients:
            found.append(f"{who}: {end.clients} librdkafka clients, {base.clients} at the baseline")
        if end.processes > base.processes:
            found.append(f"{who}: {end.processes} processes, {base.processes} at the baseline")
        if end.fds > base.fds + fd_tolerance:
            found.append(f"{who}: {end.fds} open fds, {base.fds} at the baseline (tolerance {fd_tolerance})")
        if end.threads > base.threads + thread_tolerance:
            found.append(f"{who}: {end.threads} threads, {base.threads} at the baseline "
                         f"(tolerance {thread_tolerance})")
    return found


# -- the fleet and its churn -------------------------------------------------------------------------


@dataclass
class Connector:
    """What the soak asked of one connector."""

    kind: str  # "verifiable" or "file"
    tasks: int = 1
    throughput: int = 5
    paused: bool = False


@dataclass(frozen=True)
class Action:
    """One churn step: ``kind`` on connector ``name``; a replace creates ``new_name`` in its place."""

    kind: str
    name: str
    new_name: str | None = None
    tasks: int | None = None
    throughput: int | None = None


@dataclass
class Fleet:
    """The soak's model of the connectors, and the pure part of the churn: :meth:`draw` picks the next
    action from the RNG, :meth:`apply` records it."""

    #: Connector names are ``<prefix>-<n>``, n counting every connector created.
    prefix: str = "soak"
    connectors: dict[str, Connector] = field(default_factory=dict)
    stable: list[str] = field(default_factory=list)
    created: int = 0

    @classmethod
    def initial(cls, n: int, prefix: str = "soak") -> Fleet:
        """``n`` connectors ``soak-0`` .. ``soak-<n-1>``: every tenth (9, 19, ...) a file source, every tenth
        offset by five (4, 14, ...) a two-task VerifiableSource, the rest one-task VerifiableSources; the
        first fifth (at least one) stable."""
        fleet = cls(prefix)
        for _ in range(n):
            fleet.add()
        fleet.stable = [f"{prefix}-{i}" for i in range(max(1, n // 5))]
        return fleet

    def name(self, i: int) -> str:
        return f"{self.prefix}-{i}"

    def add(self) -> str:
        i = self.created
        self.created += 1
        kind = "file" if i % 10 == 9 else "verifiable"
        name = self.name(i)
        self.connectors[name] = Connector(kind, tasks=2 if i % 10 == 4 else 1)
        return name

    @property
    def tasks(self) -> int:
        return sum(c.tasks for c in self.connectors.values())

    def draw(self, rng: random.Random) -> Action | None:
        """The next action on a churned (not stable) connector; None when there is none to churn."""
        churned = sorted(n for n in self.connectors if n not in self.stable)
        if not churned:
            return None
        paused = [n for n in churned if self.connectors[n].paused]
        running = [n for n in churned if not self.connectors[n].paused]
        verifiable = [n for n in running if self.connectors[n].kind == "verifiable"]
        weights = {"replace": 3, "tasks": 2 if verifiable else 0, "throughput": 2 if verifiable else 0,
                   "pause": 1 if len(running) > 1 and len(paused) < 3 else 0, "resume": 3 if paused else 0,
                   "restart": 2 if running else 0}
        kinds = [k for k, w in weights.items() if w > 0]
        kind = rng.choices(kinds, [weights[k] for k in kinds])[0]
        if kind == "replace":
            return Action(kind, rng.choice(churned), new_name=self.name(self.created))
        if kind == "tasks":
            name = rng.choice(verifiable)
            now = self.connectors[name].tasks
            up = now == 1 or (now < MAX_TASKS and rng.random() < 0.5)
            return Action(kind, name, tasks=now + 1 if up else now - 1)
        if kind == "throughput":
            name = rng.choice(verifiable)
            return Action(kind, name, throughput=rng.choice([t for t in THROUGHPUTS
                                                             if t != self.connectors[name].throughput]))
        return Action(kind, rng.choice(paused if kind == "resume" else running))

    def apply(self, action: Action) -> None:
        c = self.connectors[action.name]
        if action.kind == "replace":
            del self.connectors[action.name]
            assert action.new_name == self.name(self.created)
            self.add()
        elif action.kind == "tasks":
            assert action.tasks is not None
            c.tasks = action.tasks
        elif action.kind == "throughput":
            assert action.throughput is not None
            c.throughput = action.throughput
        elif action.kind in ("pause", "resume"):
            c.paused = action.kind == "pause"


class Driver:
    """Performs the fleet's connectors and actions on a worker through its REST API."""

    def __init__(self, client: ConnectClient, topic: str, files: Path) -> None:
        self.client = client
        self.topic = topic
        self.files = files
        #: REST answers other than success, with the request, for the report (the first few).
        self.errors: list[str] = []
        self.error_count = 0
        #: Per connector, the answers to its DELETEs (status codes; 0: no answer), for a connector
        #: still listed after its delete.
        self.delete_answers: dict[str, list[int]] = {}

    def config(self, name: str, c: Connector) -> dict[str, str]:
        if c.kind == "file":
            return {"connector.class": "FileStreamSource", "tasks.max": "1", "topic": self.topic,
                    "file": str(self.file(name))}
        return {"connector.class": "VerifiableSource", "tasks.max": str(c.tasks), "topic": self.topic,
                "throughput": str(c.throughput), "transaction.boundary": "interval",
                "transaction.boundary.interval.ms": "1000"}

    def file(self, name: str) -> Path:
        return self.files / f"{name}.txt"

    def create(self, name: str, c: Connector) -> None:
        if c.kind == "file":
            self.file(name).touch()
        self.call("PUT", f"/connectors/{name}/config", json=self.config(name, c))

    def perform(self, action: Action, fleet: Fleet) -> None:
        """``action`` on the worker; the fleet is the model after :meth:`Fleet.apply`."""
        name = action.name
        if action.kind == "replace":
            self.call("DELETE", f"/connectors/{name}")
            assert action.new_name is not None
            self.create(action.new_name, fleet.connectors[action.new_name])
        elif action.kind in ("tasks", "throughput"):
            self.call("PUT", f"/connectors/{name}/config", json=self.config(name, fleet.connectors[name]))
        elif action.kind in ("pause", "resume"):
            self.call("PUT", f"/connectors/{name}/{action.kind}")
        elif action.kind == "restart":
            self.call("POST", f"/connectors/{name}/restart", params={"includeTasks": "true"})

    def call(self, method: str, path: str, **kwargs: Any) -> None:
        """One request, retried while the worker answers 409 (a rebalance) or 5xx, for up to 60 s."""
        deadline = time.monotonic() + 60
        while True:
            try:
                r = self.client.request(method, path, **kwargs)
                status, text = r.status_code, r.text
            except httpx.HTTPError as e:
                status, text = 0, repr(e)
            if method == "DELETE":
                self.delete_answers.setdefault(path.rsplit("/", 1)[-1], []).append(status)
            if status < 400:
                return
            retry = status == 0 or status == 409 or status >= 500
            if not retry or time.monotonic() > deadline:
                self.error_count += 1
                if len(self.errors) < 10:
                    self.errors.append(f"{method} {path}: {status} {text[:300]}")
                log.warning("%s %s: %s %s", method, path, status, text[:300])
                return
            time.sleep(1)

    def append_lines(self, fleet: Fleet, n: int) -> None:
        """``n`` more lines in every file source's file."""
        for name, c in fleet.connectors.items():
            if c.kind == "file":
                with self.file(name).open("a") as f:
                    f.writelines(f"{name} {time.time():.3f} {i}\n" for i in range(n))


def not_running(client: ConnectClient, fleet: Fleet) -> list[str]:
    """The connectors (and tasks) of ``fleet`` not RUNNING with their expected task count, for waiting and
    for the report."""
    found = []
    statuses = client.list_connectors(expand=["status"])
    for name, c in fleet.connectors.items():
        st = statuses.get(name, {}).get("status")
        if st is None:
            found.append(f"{name}: missing")
            continue
        states = [t["state"] for t in st["tasks"]]
        if st["connector"]["state"] != "RUNNING" or len(states) != c.tasks or any(s != "RUNNING" for s in states):
            found.append(f"{name}: connector {st['connector']['state']}, tasks {states} (want {c.tasks})")
    return found


# -- the run -----------------------------------------------------------------------------------------


def sample_dict(s: Sample) -> dict[str, Any]:
    """A compact sample for the report: the worker, the helpers and the task processes' totals."""
    tasks = Usage()
    for u in s.tasks.values():
        tasks += u
    return {"t": round(s.t, 1), "worker": s.worker.as_dict(), "helpers": s.helpers.as_dict(),
            "tasks": tasks.as_dict(),
            "task_rss_mib_max": round(max((u.rss for u in s.tasks.values()), default=0) / MIB, 2),
            "task_clients_max": max((u.clients for u in s.tasks.values()), default=0)}


def settle_after_delete(pid: int, baseline: Sample, args: argparse.Namespace) -> tuple[Sample, list[str]]:
    """Poll the worker's tree until nothing is left over ``baseline`` or ``--leak-timeout`` passes: the last
    sample and what it still holds."""
    last: list[Sample] = []

    def clean() -> bool:
        s = read_tree(pid, 0.0)
        if s is None:
            raise RuntimeError("the worker exited")
        last[:] = [s]
        return not leaks(baseline, s, args.fd_tolerance, args.thread_tolerance)

    with contextlib.suppress(AssertionError):  # what is left is reported below
        wait_until(clean, args.leak_timeout, message="the worker back to its baseline")
    return last[0], leaks(baseline, last[0], args.fd_tolerance, args.thread_tolerance)


def config_history(bootstrap: str, topic: str, names: Iterable[str]) -> dict[str, list[str]]:
    """Per connector of ``names``, its records in the config topic in order: key, offset, tombstone or
    not, and whether committed, aborted or open. Tells a delete whose tombstone never landed from a
    connector written again after it."""
    patterns = {name: re.compile(rf"(^|-){re.escape(name)}($|-)") for name in names}
    out: dict[str, list[str]] = {name: [] for name in patterns}
    for txn in read_transactions(bootstrap, topic, settle_s=0).transactions:
        for r in txn.records:
            key = (r.key or b"").decode(errors="replace")
            for name, pattern in patterns.items():
                if pattern.search(key):
                    out[name].append(f"{r.offset} {key} {'tombstone' if r.value is None else 'value'} {r.outcome}")
    return out


def start_fleet(client: ConnectClient, driver: Driver, fleet: Fleet) -> None:
    """Create every connector of ``fleet`` and wait until all run."""
    started = time.monotonic()
    for name, c in list(fleet.connectors.items()):
        driver.create(name, c)
    wait_until(lambda: not not_running(client, fleet), max(120.0, 3.0 * fleet.tasks),
               message=f"{len(fleet.connectors)} connectors RUNNING")
    log.info("%d connectors, %d tasks RUNNING after %.1f s", len(fleet.connectors), fleet.tasks,
             time.monotonic() - started)


def delete_fleet(client: ConnectClient, driver: Driver, fleet: Fleet, pid: int) -> list[str]:
    """Delete every connector of ``fleet`` and wait until the worker knows none (up to 6 s a connector, at
    least 120 s): the connectors it still lists then, for the report rather than an exception, so that a
    run's samples are never lost at its end. Task processes that outlive the wait are the leak checks'."""
    started = time.monotonic()
    for name in list(fleet.connectors):
        driver.call("DELETE", f"/connectors/{name}")
    listed: list[str] = []

    def deleted() -> bool:
        listed[:] = client.list_connectors()
        return not listed

    with contextlib.suppress(AssertionError):
        wait_until(deleted, max(120.0, 6.0 * len(fleet.connectors)), message="every connector deleted")
    log.info("delete-all of %d connectors: %.1f s, %d still listed", len(fleet.connectors),
             time.monotonic() - started, len(listed))
    with contextlib.suppress(AssertionError):
        wait_until(lambda: (s := read_tree(pid, 0.0)) is not None and not s.tasks, 60,
                   message="every task process gone")
    return sorted(listed)


def thread_dump(worker: WorkerProcess) -> str:
    """The stacks of the worker's threads (SIGUSR1 has it write them to its log): where leaked threads
    are stuck."""
    size = worker.log_path.stat().st_size
    worker.signal(signal.SIGUSR1)
    with contextlib.suppress(AssertionError):
        wait_until(lambda: worker.log_path.stat().st_size > size, 5, message="a thread dump")
    time.sleep(0.5)  # the dump is written in pieces
    with worker.log_path.open(errors="replace") as f:
        f.seek(size)
        return f.read()[-20000:]


def soak(bootstrap: str, workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    suffix = uuid.uuid4().hex[:8]
    worker = WorkerProcess(bootstrap, workdir / "worker", f"bench-soak-{suffix}", eos="enabled")
    files = workdir / "files"
    files.mkdir()
    worker.start()
    client: ConnectClient | None = None
    try:
        worker.wait_ready(120)
        assert worker.proc is not None
        pid = worker.proc.pid
        client = ConnectClient(worker.url, timeout_s=60)
        topic = create_topic(bootstrap, f"bench-soak-{suffix}", 4)
        driver = Driver(client, topic, files)
        # The baseline of the leak checks is the worker after one round of creating the whole fleet and
        # deleting it: its thread pools (herder, fencing, REST) have grown to what such a fleet needs and
        # keep those threads, which are not leaks.
        prime = Fleet.initial(args.connectors, prefix="prime")
        start_fleet(client, driver, prime)
        if undeleted := delete_fleet(client, driver, prime, pid):
            raise RuntimeError(f"the priming round's connectors not deleted: {undeleted}")
        time.sleep(args.baseline_wait)
        baseline = read_tree(pid, 0.0)
        assert baseline is not None
        log.info("baseline: worker %s, helpers %s", baseline.worker.as_dict(), baseline.helpers.as_dict())

        fleet = Fleet.initial(args.connectors)
        start_fleet(client, driver, fleet)

        rng = random.Random(args.seed)
        actions: list[dict[str, Any]] = []
        samples: list[Sample] = []
        t0 = time.monotonic()
        next_sample = next_churn = next_append = t0
        while (now := time.monotonic()) < t0 + args.duration:
            if now >= next_append:
                driver.append_lines(fleet, 5)
                next_append += 1.0
            if now >= next_churn:
                action = fleet.draw(rng)
                if action is not None:
                    fleet.apply(action)
                    driver.perform(action, fleet)
                    actions.append({"t": round(now - t0, 1), "kind": action.kind, "connector": action.name,
                                    **({"new": action.new_name} if action.new_name else {}),
                                    **({"tasks": action.tasks} if action.tasks else {}),
                                    **({"throughput": action.throughput} if action.throughput else {})})
                next_churn += args.churn_interval
            if now >= next_sample:
                s = read_tree(pid, now - t0)
                if s is None:
                    raise RuntimeError(f"worker exited; log:\n{worker.log_tail()}")
                samples.append(s)
                log.info("t=%.0fs worker %.1f MiB %d fds %d threads %d clients; %d task processes", s.t,
                         s.worker.rss / MIB, s.worker.fds, s.worker.threads, s.worker.clients, len(s.tasks))
                next_sample += args.sample_interval
            time.sleep(max(0.0, min(next_sample, next_churn, next_append, t0 + args.duration) - time.monotonic()))
        churn_s = time.monotonic() - t0

        for name, c in fleet.connectors.items():
            if c.paused:
                driver.call("PUT", f"/connectors/{name}/resume")
                c.paused = False
        try:
            wait_until(lambda: not not_running(client, fleet), max(120.0, 2.0 * fleet.tasks),
                       message="every connector RUNNING after the churn")
            stuck: list[str] = []
        except AssertionError:
            stuck = not_running(client, fleet)
        at_end = read_tree(pid, time.monotonic() - t0)
        assert at_end is not None

        undeleted = delete_fleet(client, driver, fleet, pid)
        final, leaked = settle_after_delete(pid, baseline, args)
        leaked = [f"connector {name} still listed after delete-all" for name in undeleted] + leaked
        history = config_history(bootstrap, worker.props["config.storage.topic"], undeleted) if undeleted else {}
        for line in leaked:
            log.warning("leak: %s", line)
        dump = thread_dump(worker) if leaked else None

        fit = slopes(samples, args.warmup, fleet.stable)
        verdict = slope_verdict(fit, args.goal_mib_per_hour, args.min_fit)
        task_clients = max((u.clients for s in samples for u in s.tasks.values()), default=0)
        return {
            "churn_s": round(churn_s, 1),
            "actions": len(actions),
            "actions_by_kind": {k: sum(a["kind"] == k for a in actions) for k in sorted({a["kind"] for a in actions})},
            "rest_errors": driver.error_count,
            "rest_error_examples": driver.errors,
            "stable_connectors": fleet.stable,
            "connectors_created": fleet.created,
            "not_running": stuck,
            "slopes_per_hour": fit,
            "goal_mib_per_hour_per_task": args.goal_mib_per_hour,
            "slope_ok": verdict,
            "task_process_clients_max": task_clients,
            "baseline": {"worker": baseline.worker.as_dict(), "helpers": baseline.helpers.as_dict()},
            "before_delete": sample_dict(at_end),
            "after_delete": {"worker": final.worker.as_dict(), "helpers": final.helpers.as_dict(),
                             "task_processes": sorted(final.tasks)},
            "leaks": leaked,
            **({"undeleted": {name: {"delete_answers": driver.delete_answers.get(name, []),
                                     "config_records": history[name]} for name in undeleted}}
               if undeleted else {}),
            **({"worker_thread_dump": dump} if dump else {}),
            "samples": [sample_dict(s) for s in samples],
            "action_log": actions[:args.action_log],
        }
    finally:
        if client is not None:
            client.close()
        log.info("worker stopped with exit code %s", worker.stop())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=1800.0, help="seconds of churn (1800)")
    parser.add_argument("--connectors", type=int, default=50, help="connectors in the fleet (50)")
    parser.add_argument("--sample-interval", type=float, default=10.0, help="seconds between samples (10)")
    parser.add_argument("--warmup", type=float, default=300.0,
                        help="seconds of churn before the samples the slopes are fitted on (300)")
    parser.add_argument("--churn-interval", type=float, default=5.0, help="seconds between churn actions (5)")
    parser.add_argument("--seed", type=int, default=27, help="seed of the churn (27)")
    parser.add_argument("--goal-mib-per-hour", type=float, default=1.0,
                        help="the goal: RSS slope per task below this, MiB per hour (1)")
    parser.add_argument("--min-fit", type=float, default=600.0,
                        help="judge the slopes only when the fitted window is at least this many seconds (600)")
    parser.add_argument("--fd-tolerance", type=int, default=4,
                        help="open fds above the baseline still not a leak after delete-all (4)")
    parser.add_argument("--thread-tolerance", type=int, default=POOL_THREADS,
                        help=f"threads above the baseline still not a leak after delete-all ({POOL_THREADS}: "
                             "what the worker's bounded thread pools may still grow by)")
    parser.add_argument("--leak-timeout", type=float, default=60.0,
                        help="seconds after delete-all for the worker to give everything back (60)")
    parser.add_argument("--baseline-wait", type=float, default=10.0,
                        help="seconds after the first delete-all before the baseline reading (10)")
    parser.add_argument("--action-log", type=int, default=1000, help="churn actions listed in the report (1000)")
    parser.add_argument("--workdir", default=None,
                        help="keep the worker's log (and a local broker's data) here (default: a temp dir, removed)")
    add_bootstrap_argument(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.duration <= 0 or args.connectors < 1 or args.sample_interval <= 0 or args.warmup < 0
            or args.churn_interval <= 0 or args.leak_timeout <= 0):
        parser.error("--duration, --sample-interval, --churn-interval and --leak-timeout must be > 0, "
                     "--connectors >= 1 and --warmup >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_logging()
    load_before = os.getloadavg()[0]
    with run_workdir(args.workdir, "bench-soak-") as tmp, broker(tmp, args.bootstrap) as kafka:
        result = soak(kafka.bootstrap, tmp, args)
    ok = not result["leaks"] and result["slope_ok"] is not False
    print(json.dumps({
        "benchmark": "soak",
        "kafka": kafka.version_label,
        "bootstrap": kafka.bootstrap_label,
        "ok": ok,
        "duration_s": args.duration,
        "connectors": args.connectors,
        "sample_interval_s": args.sample_interval,
        "warmup_s": args.warmup,
        "churn_interval_s": args.churn_interval,
        "seed": args.seed,
        **result,
        "loadavg_1m_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "python": sys.version.split()[0],
        "cpus": os.cpu_count() or 1,
    }))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
