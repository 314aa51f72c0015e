"""How much memory a worker process holds, for the tests that check hostile requests cost it none."""

from __future__ import annotations

from pathlib import Path

from connect_runtime.testing import WorkerProcess


def rss_kb(worker: WorkerProcess) -> int:
    """The worker process's resident set size (``VmRSS`` of /proc/<pid>/status), in kB."""
    assert worker.proc is not None
    for line in Path(f"/proc/{worker.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS line")
