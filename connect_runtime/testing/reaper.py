"""A watchdog that ends what a process started once that process is gone, however it ended.

Every process a test session starts carries a token in its environment (the session sets it in its
own environment, so that children inherit it, and their children too, even those that leave the
process group, such as PySpark's daemons, or are re-parented when their parent dies). The watchdog,
a process of its own, waits for the session's process to exit (SIGKILL included) and then kills
every process carrying the token. Unlike ``PR_SET_PDEATHSIG``, which reaches only direct children
and fires when the *thread* that started them ends, it needs nothing from the processes it guards.
Finding processes by their environment needs Linux's ``/proc``; elsewhere it finds nothing.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time

from connect_runtime.api.processes import pid_alive, pids_with_env


def kill_marked(name: str, value: str, timeout_s: float = 30.0) -> list[int]:
    """SIGKILL every process whose environment sets ``name`` to ``value`` (except this one), again
    and again until none is left or ``timeout_s`` passed (a dying parent may still be starting
    children); returns the pids still alive at the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        marked = [pid for pid in pids_with_env(name, value) if pid != os.getpid() and pid_alive(pid)]
        if not marked or time.monotonic() >= deadline:
            return marked
        for pid in marked:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)


def _wait_for_exit(pid: int) -> None:
    """Block until ``pid`` (not our child) has exited."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux 5.3+: poll
        while pid_alive(pid):
            time.sleep(0.5)
        return
    try:
        select.select([fd], [], [])  # readable once the process exited
    finally:
        os.close(fd)


def start_reaper(name: str, value: str) -> subprocess.Popen[bytes]:
    """Start a watchdog that, once this process has ended (in any way, SIGKILL included), kills every
    process whose environment sets ``name`` to ``value``, then exits.

    Set ``os.environ[name] = value`` before starting children. The watchdog runs in a session of its
    own, so a signal to this process's group does not end it before its work.
    """
    env = {k: v for k, v in os.environ.items() if k != name}
    return subprocess.Popen([sys.executable, "-m", __name__, str(os.getpid()), name, value], env=env,
                            stdin=subprocess.DEVNULL, start_new_session=True)


if __name__ == "__main__":
    _watched, _name, _value = sys.argv[1:4]
    _wait_for_exit(int(_watched))
    sys.exit(1 if kill_marked(_name, _value) else 0)
