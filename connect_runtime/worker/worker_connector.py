"""One connector instance and the thread that makes every call into it (Java's ``WorkerConnector``).

A connector's ``start``, ``task_configs``, pause, resume and ``stop`` run on that thread, one at a
time and in the order they were asked for, so a connector that is slow to start delays only itself:
the herder asks, and hears back through a future. A connector that fails (its ``start`` raises, or
it calls ``context.raise_error``) stays FAILED until it is restarted: later transitions are ignored
and its ``stop()`` is never called, as in Java.
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
from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.futures import deferred, failed
from connect_runtime.storage.offset_backing_store import ConnectorOffsetBackingStore
from connect_runtime.types import TargetState

logger = logging.getLogger(__name__)

T = TypeVar("T")


class WorkerConnector:
    """A connector of this worker: its plugin instance, its state, and its own thread.

    The thread is a daemon thread of our own rather than a one-thread executor: an executor's threads
    are joined at interpreter exit, so a plugin stuck in ``start()`` would keep the worker process from
    exiting.
    """

    def __init__(self, name: str, state: TargetState) -> None:
        self.name = name
        #: The state the herder asked for last.
        self.state = state
        self.connector: Connector | None = None
        self.config: SourceConnectorConfig | None = None
        self.offsets: ConnectorOffsetBackingStore | None = None
        self.raw: Mapping[str, str] | None = None
        """The config as stored: placeholders unresolved (task configs get them back)."""
        #: ``start()`` returned and ``stop()`` has not been called since.
        self.started = False
        self._failed = threading.Event()
        self._calls: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"connector-{name}", daemon=True)
        self._thread.start()

    @property
    def failed(self) -> bool:
        """FAILED (``start`` raised, ``context.raise_error``, a failed pause): no further transition."""
        return self._failed.is_set()

    def fail(self) -> None:
        """Mark the connector FAILED (from any thread): it is not started again nor stopped."""
        self._failed.set()
        self.started = False

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
