"""The processes a worker runs its tasks in, seen from outside.

A worker's task processes are forked from its fork server (a child of the worker; with it the worker may
start other helpers, such as multiprocessing's resource tracker), so they are descendants of the worker,
not its children. Each is named after its task: ``ps`` shows ``connect-runtime task <connector>-<n>``.
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


#: How a task process names itself (its command line, as ``ps`` shows it), followed by its task's id.
TASK_TITLE = "connect-runtime task "


def task_processes(worker: WorkerProcess) -> dict[psutil.Process, str]:
    """The task processes below ``worker``, each with the id of its task (``<connector>-<n>``)."""
    out = {}
    for p in descendants(worker):
        try:
            title = " ".join(p.cmdline())
        except psutil.Error:
            continue
        if title.startswith(TASK_TITLE):
            out[p] = title[len(TASK_TITLE):].strip()
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
