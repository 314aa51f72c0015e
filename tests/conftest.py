"""Shared fixtures: a fresh worker group per test on the session's real Kafka broker."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import WorkerProcess


@pytest.fixture
def group_id() -> str:
    return f"connect-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def worker_factory(kafka_bootstrap: str, group_id: str, tmp_path: Path) -> Iterator[object]:
    """Start ``WorkerProcess`` children that are always stopped at the end of the test."""
    started: list[WorkerProcess] = []

    def make(eos: str = "enabled", extra: dict[str, str] | None = None, port: int | None = None) -> WorkerProcess:
        w = WorkerProcess(kafka_bootstrap, tmp_path, group_id, eos=eos, extra=extra, port=port)
        started.append(w)
        return w.start()

    yield make
    for w in started:
        if w.proc is not None and w.proc.poll() is None:
            w.kill()
