"""Finding processes through Linux ``/proc``: what a launcher needs to stop everything it started.

Spark's processes do not all stay in the process group of whoever launched them (PySpark's daemon
calls ``setpgid``), so launchers mark their children with an environment variable, which every
descendant inherits, and find them again by it. Elsewhere than Linux these return nothing. Part of the
plugin API for plugins that launch processes of their own (the Spark connector runs ``spark-submit``).
"""

from __future__ import annotations

import os
from pathlib import Path


def proc_pids() -> list[int]:
    """Every pid visible in ``/proc``."""
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def pid_alive(pid: int) -> bool:
    """True when ``pid`` is a live (non-zombie) process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no procfs, or the process just went away: os.kill said it was there
    return state not in ("Z", "X")


def parent_pid(pid: int) -> int | None:
    """The parent of ``pid``; None when it is gone or there is no ``/proc``."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def descendants(root: int) -> set[int]:
    """Every live process below ``root`` (children, their children, ...), from one pass over ``/proc``."""
    children: dict[int, list[int]] = {}
    for pid in proc_pids():
        ppid = parent_pid(pid)
        if ppid is not None:
            children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def cmdline(pid: int) -> list[str]:
    """The command line of ``pid``; empty when it is gone or there is no ``/proc``."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [arg.decode(errors="replace") for arg in raw.split(b"\0") if arg]


def env_value(pid: int, name: str) -> str | None:
    """The value of environment variable ``name`` in process ``pid`` (None: unset, gone, or not ours)."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    prefix = f"{name}=".encode()
    for entry in env.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix):].decode(errors="replace")
    return None


def pids_with_env(name: str, value: str) -> list[int]:
    """Live processes whose environment sets ``name`` to ``value``."""
    return [pid for pid in proc_pids() if env_value(pid, name) == value]
