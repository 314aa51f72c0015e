"""The processes a worker runs its tasks in, seen from outside.

A worker's task processes are forked from its fork server, a child of the worker started with its first
task; with it the worker may start other helpers (multiprocessing's resource tracker). So the worker's
children are its helpers and its task processes are the descendants below them.
"""

from __future__ import annotations

from collections.abc import Iterable

import psutil

from connect_runtime.testing.cluster import WorkerProcess, wait_until


def descendants(worker: WorkerProcess) -> set[psutil.Process]:
    """The live descendants of ``worker``'s process (empty once it is gone). ``psutil.Process`` compares
    by pid and start time, so a reused pid is never taken for a process seen earlier."""
    assert worker.proc is not None
    try:
        return set(psutil.Process(worker.proc.pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return set()


def task_processes(worker: WorkerProcess) -> set[psutil.Process]:
    """The descendants of ``worker`` that are not its children: its task processes."""
    assert worker.proc is not None
    out = set()
    for p in descendants(worker):
        try:
            if p.ppid() != worker.proc.pid:
                out.add(p)
        except psutil.NoSuchProcess:
            continue
    return out


def alive(processes: Iterable[psutil.Process]) -> list[psutil.Process]:
    """Those of ``processes`` still running (a zombie, dead but not reaped yet, does not count)."""
    out = []
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            continue
    return out


def stopped(processes: Iterable[psutil.Process]) -> list[psutil.Process]:
    """Those of ``processes`` stopped by a signal (SIGSTOP)."""
    out = []
    for p in processes:
        try:
            if p.status() == psutil.STATUS_STOPPED:
                out.append(p)
        except psutil.NoSuchProcess:
            continue
    return out


def describe(processes: Iterable[psutil.Process]) -> str:
    """``pid:name`` of each process, for assertion messages."""
    parts = []
    for p in processes:
        try:
            parts.append(f"{p.pid}:{p.name()}")
        except psutil.NoSuchProcess:
            parts.append(f"{p.pid}:gone")
    return ", ".join(parts) or "none"


def wait_gone(processes: Iterable[psutil.Process], timeout_s: float, what: str) -> None:
    """Wait until none of ``processes`` is alive; at the deadline, fail naming those that are."""
    procs = list(processes)
    try:
        wait_until(lambda: not alive(procs), timeout_s, message=what)
    except AssertionError as e:
        raise AssertionError(f"{e}; still alive: {describe(alive(procs))}") from None
