"""One connector instance and the thread that makes every call into it (Java's ``WorkerConnector``).

A connector's ``start``, ``task_configs``, pause, resume and ``stop`` run on that thread, one at a
time and in the order they were asked for, so a connector that is slow to start delays only itself:
the herder asks, and hears back through a future. A connector that fails (its ``start`` raises, or
it calls ``context.raise_error``) stays FAILED until it is restarted: later transitions are ignored
and its ``stop()`` is never called, as in Java.

Once asked to stop, an instance writes no status: a ``start()`` that returns after a delete, revoke or
restart would otherwise bring back a deleted record, name this worker for a connector another runs, or
overwrite its successor's state. :meth:`WorkerConnector.report` is the only way a status is written.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import TypeVar

from connect_runtime.api.connector import Connector
from connect_runtime.api.errors import ConnectException
from connect_runtime.config.config_providers import ResolvedConfig
from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.futures import deferred, failed
from connect_runtime.storage.offset_backing_store import ConnectorOffsetBackingStore
from connect_runtime.types import TargetState
from connect_runtime.worker.worker_metrics import ConnectorMetricsGroup, Startup

logger = logging.getLogger(__name__)

T = TypeVar("T")


class WorkerConnector:
    """A connector of this worker: its plugin instance, its state, and its own thread.

    The thread is a daemon thread of our own rather than a one-thread executor: an executor's threads
    are joined at interpreter exit, so a plugin stuck in ``start()`` would keep the worker process from
    exiting.
    """

    def __init__(self, name: str, state: TargetState, generation: int = 0) -> None:
        self.name = name
        #: The state the herder asked for last.
        self.state = state
        #: The worker's generation when this instance was made: its status records carry it, so a late
        #: record of this instance never looks newer than its successor's on another worker.
        self.generation = generation
        #: What the config providers resolved for this instance (forgotten when it ends, unless a newer
        #: instance of the connector registered its own since).
        self.resolved: ResolvedConfig | None = None
        self.connector: Connector | None = None
        self.config: SourceConnectorConfig | None = None
        self.offsets: ConnectorOffsetBackingStore | None = None
        self.raw: Mapping[str, str] | None = None
        """The config as stored: placeholders unresolved (task configs get them back)."""
        #: ``start()`` returned and ``stop()`` has not been called since.
        self.started = False
        #: This instance's start-up, counted once in the worker's metrics.
        self.startup: Startup | None = None
        #: Its ``connector-metrics``: open from instantiation until it is shut down here.
        self.metrics: ConnectorMetricsGroup | None = None
        self._failed = threading.Event()
        self._calls: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name=f"connector-{name}", daemon=True)
        self._thread.start()

    @property
    def failed(self) -> bool:
        """FAILED (``start`` raised, ``context.raise_error``, a failed pause): no further transition."""
        return self._failed.is_set()

    def fail(self) -> bool:
        """Mark the connector FAILED (from any thread): it is not started again nor stopped. Whether it
        was not FAILED before (only the first error is reported)."""
        with self._lock:
            first = not self._failed.is_set()
            self._failed.set()
            self.started = False
        return first

    @property
    def stopping(self) -> bool:
        """Asked to stop (deleted, revoked or restarted): it reports nothing more."""
        return self._stopping

    def mark_stopping(self) -> None:
        """From now on :meth:`report` writes nothing; waits for a write under way to finish."""
        with self._lock:
            self._stopping = True

    def report(self, write: Callable[[], None]) -> bool:
        """Run ``write`` (a status write) unless the instance is stopping; whether it ran. A stop cannot
        come between the check and the write."""
        with self._lock:
            if self._stopping:
                return False
            write()
            return True

    @property
    def running(self) -> bool:
        return self.started and not self.failed

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Run ``fn`` on the connector's thread after everything asked before it."""
        fut, run = deferred(fn)
        with self._lock:
            accepted = not self._closed
            if accepted:
                self._calls.put(run)
        return fut if accepted else failed(ConnectException(f"Connector {self.name} has been shut down"))

    def close(self) -> None:
        """End the thread once the calls already asked for have run; later calls fail at once."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._calls.put(None)

    def join(self, timeout_s: float | None) -> bool:
        """Wait until the thread has ended; whether it has."""
        self._thread.join(timeout_s)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while (call := self._calls.get()) is not None:
            call()

    def __repr__(self) -> str:
        return f"WorkerConnector({self.name})"
