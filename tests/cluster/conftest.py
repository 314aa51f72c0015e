"""Multi-process cluster fixtures: several workers of one group on the session's real broker."""

from __future__ import annotations

import signal
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import WorkerProcess

#: Faster failure detection than the defaults, so fault-injection tests stay short.
FAST = {
    "session.timeout.ms": "4000",
    "heartbeat.interval.ms": "1000",
    "scheduled.rebalance.max.delay.ms": "0",
    "task.shutdown.graceful.timeout.ms": "5000",
}

WorkerFactory = Callable[..., WorkerProcess]


@pytest.fixture
def cluster(kafka_bootstrap: str, tmp_path: Path) -> Iterator[WorkerFactory]:
    """``cluster(eos=..., extra=..., env=...)`` starts one more worker of one group; all are killed at the end."""
    group = f"cluster-{uuid.uuid4().hex[:8]}"
    started: list[WorkerProcess] = []

    def start(eos: str = "enabled", extra: dict[str, str] | None = None,
              env: dict[str, str] | None = None) -> WorkerProcess:
        w = WorkerProcess(kafka_bootstrap, tmp_path, group, eos=eos, extra={**FAST, **(extra or {})}, env=env)
        started.append(w)
        return w.start()

    yield start
    alive = [w for w in started if w.proc is not None and w.proc.poll() is None]
    for w in alive:
        w.signal(signal.SIGCONT)  # in case a test left it stopped
        w.signal(signal.SIGUSR1)  # thread dump into its log, for post-mortems
    for w in alive:
        w.kill()
