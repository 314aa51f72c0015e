"""The processes a worker runs its tasks in, seen from outside: its descendants (a task process is
forked from the worker's fork server, so it is a descendant of the worker, not necessarily a child)."""

from __future__ import annotations

from collections.abc import Iterable

import psutil

from connect_runtime.testing.cluster import WorkerProcess


def descendants(worker: WorkerProcess) -> set[psutil.Process]:
    """The live descendants of ``worker``'s process (empty once it is gone). ``psutil.Process`` compares
    by pid and start time, so a reused pid is never taken for a process seen earlier."""
    assert worker.proc is not None
    try:
        return set(psutil.Process(worker.proc.pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return set()


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
