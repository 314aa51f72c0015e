"""Spark connector fixtures: worker processes on the session's broker, CSV inputs, and readers."""

from __future__ import annotations

import signal
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import WorkerProcess

FAST = {
    "session.timeout.ms": "4000",
    "heartbeat.interval.ms": "1000",
    "scheduled.rebalance.max.delay.ms": "0",
    "task.shutdown.graceful.timeout.ms": "20000",
}

WorkerFactory = Callable[..., WorkerProcess]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/spark" in str(item.fspath):
            item.add_marker(pytest.mark.spark)


@pytest.fixture
def workers(kafka_bootstrap: str, tmp_path: Path) -> Iterator[WorkerFactory]:
    """``workers(extra=...)``: one more worker of one exactly-once group (``start_ready()`` it)."""
    group = f"spark-{uuid.uuid4().hex[:8]}"
    started: list[WorkerProcess] = []

    def start(extra: dict[str, str] | None = None, env: dict[str, str] | None = None) -> WorkerProcess:
        w = WorkerProcess(kafka_bootstrap, tmp_path, group, eos="enabled", extra={**FAST, **(extra or {})}, env=env)
        started.append(w)
        return w

    yield start
    for w in started:
        if w.proc is not None and w.proc.poll() is None:
            w.signal(signal.SIGTERM)
    for w in started:
        if w.proc is not None and w.proc.poll() is None:
            w.stop(30)
