"""A distributed worker in the test's own process, for tests that read what only the process can see
(its ``ConnectMetrics``). Built as ``connect-distributed`` builds it, through the composition root; its
tasks still run in processes of their own."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

from connect_runtime.composition import ComposedWorker, compose_worker, distributed_worker
from connect_runtime.distributed import DistributedWorker
from connect_runtime.metrics.connect_metrics import MetricValue
from connect_runtime.testing.cluster import ConnectClient, worker_properties
from connect_runtime.testing.launcher import free_port

PLUGINS_DIR = Path(__file__).resolve().parent / "plugins"

#: ``(group, name, tags)`` of one metric.
MetricKey = tuple[str, str, tuple[tuple[str, str], ...]]


class InProcessWorker:
    """One worker of ``group_id`` on ``bootstrap`` with the test workers' settings and ``extra``."""

    def __init__(self, bootstrap: str, group_id: str, extra: Mapping[str, str] | None = None) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        self.props = {**worker_properties(bootstrap, group_id, self.url), "plugin.path": str(PLUGINS_DIR),
                      **(extra or {})}
        self._composed: ComposedWorker | None = None
        self.worker: DistributedWorker | None = None

    def start(self, timeout_s: float = 60.0) -> InProcessWorker:
        """Start it and wait until it is ready (it has joined and knows a leader)."""
        self._composed = compose_worker(self.props)
        self.worker = distributed_worker(self._composed)
        self.worker.start()
        if not self.worker.wait_ready(timeout_s):
            raise AssertionError(f"worker {self.url} did not get ready within {timeout_s} s")
        return self

    @property
    def worker_id(self) -> str:
        return self.url.removeprefix("http://")

    def metrics(self) -> dict[MetricKey, MetricValue]:
        """Every metric of the worker, measured now."""
        assert self.worker is not None and self.worker.herder is not None
        return {(r.spec.group, r.spec.name, r.tags): r.value for r in self.worker.herder.metrics().read()}

    def client(self) -> ConnectClient:
        return ConnectClient(self.url)

    def stop(self) -> None:
        """Stop gracefully (idempotent)."""
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
        if self._composed is not None:
            self._composed.close()
            self._composed = None

    def __enter__(self) -> InProcessWorker:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
