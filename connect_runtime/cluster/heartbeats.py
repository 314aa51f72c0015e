"""This worker's heartbeats on the status topic (how the others know it is alive and what it runs).

They are written from a thread of their own: a herder busy with a slow request must not look dead.
A failed write never ends the loop; the next heartbeat is the retry.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from connect_runtime.cluster.membership import Heartbeat, heartbeat_key
from connect_runtime.logging_util import RateLimitedLogger
from connect_runtime.storage.status_store import KafkaStatusBackingStore
from connect_runtime.types import ConnectorTaskId

logger = logging.getLogger(__name__)
_rate_limited = RateLimitedLogger(logger)

#: What the worker runs now: its connectors and tasks (including ones still stopping).
RunningItems = Callable[[], tuple[frozenset[str], frozenset[ConnectorTaskId]]]


class HeartbeatWriter:
    """Writes ``status-worker-<id>`` every ``interval_s``, and at once when asked (:meth:`beat_now`)."""

    def __init__(self, worker_id: str, url: str, session: str, status_store: KafkaStatusBackingStore,
                 running: RunningItems, generation: Callable[[], int], interval_s: float) -> None:
        self._worker_id = worker_id
        self._url = url
        self._session = session
        self._status_store = status_store
        self._running = running
        self._generation = generation
        self._interval_s = interval_s
        self._now = threading.Event()
        self._stopping = threading.Event()
        self._leaving = False
        self._successor: Heartbeat | None = None
        self._thread = threading.Thread(target=self._loop, name="heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def beat_now(self) -> None:
        """A heartbeat as soon as possible (after a change the leader should see)."""
        self._now.set()

    def announce_leaving(self, successor: Heartbeat | None = None) -> None:
        """Shutdown begins: from now on every heartbeat says the worker is leaving (written at once), so
        the leader hands each of its items to another worker as soon as it has stopped here. A leader
        names its ``successor``, which claims leadership at once rather than after the usual checks."""
        self._successor = successor
        self._leaving = True
        self._now.set()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stopping.set()
        self._now.set()
        if self._thread.is_alive():
            self._thread.join(timeout_s)

    def leave(self) -> None:
        """Clean shutdown: a tombstone tells the others at once that this worker is gone."""
        self._status_store.put_raw(heartbeat_key(self._worker_id), None)

    def _loop(self) -> None:
        while not self._stopping.is_set():
            self._now.clear()
            try:
                connectors, tasks = self._running()
                beat = Heartbeat(self._worker_id, self._url, self._session, self._generation(), connectors, tasks,
                                 leaving=self._leaving,
                                 successor=self._successor.worker_id if self._successor else None,
                                 successor_session=self._successor.session if self._successor else None)
                self._status_store.put_raw(heartbeat_key(self._worker_id), beat.to_bytes())
            except Exception as e:
                # Rate-limited: an outage repeats it every interval.
                _rate_limited.warning("Failed to write a heartbeat: %r", e)
            self._now.wait(self._interval_s)
