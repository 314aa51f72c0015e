"""Cluster membership through heartbeats on the status topic.

Every worker writes ``status-worker-<worker-id>`` every ``heartbeat.interval.ms`` (and right after it
applied a new assignment): its URL, a per-process session id, the assignment generation it has
applied and what it runs. A worker is live while one of its heartbeats was *received* within
``session.timeout.ms``, measured on the reader's own monotonic clock (no cross-machine clock
comparison). A clean shutdown first writes heartbeats marked *leaving* (the worker is no longer live:
the leader moves its items as each stops), then a tombstone once everything has stopped.

Heartbeats *replayed* while the reader catches up with the topic at start-up (everything before
:meth:`Membership.caught_up`) are history, not news: they never make a worker live. Their receipt
time says nothing about when they were written, so a worker restarted right after the leader was
SIGKILLed would otherwise take the dead leader's last heartbeat as fresh, apply its assignment and
have its exactly-once tasks ask a dead URL for fencing. Every live worker heartbeats again within
``heartbeat.interval.ms``, so nothing is lost by waiting for that. A replayed heartbeat only tells
when the worker was last seen, from the record's timestamp (the writer's clock at ``produce()``); a
timestamp from a clock running ahead of ours is capped at "now", so it cannot make anyone live.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from connect_runtime.types import ConnectorTaskId

HEARTBEAT_PREFIX = "status-worker-"


def heartbeat_key(worker_id: str) -> str:
    return HEARTBEAT_PREFIX + worker_id


@dataclass(frozen=True)
class Heartbeat:
    """One worker's latest heartbeat."""

    worker_id: str
    url: str
    session: str
    generation: int
    connectors: frozenset[str] = frozenset()
    tasks: frozenset[ConnectorTaskId] = frozenset()
    received_at: float = field(default=0.0, compare=False)
    #: Read during start-up catch-up: says when the worker was last seen, never that it is live.
    replayed: bool = field(default=False, compare=False)
    #: The worker is shutting down: what it still runs is stopping, and it takes nothing new.
    leaving: bool = False
    #: Set by a leader that is leaving: the worker it hands leadership to (which claims at once), and
    #: that worker's session (a restarted process of the same worker is not the one it chose).
    successor: str | None = None
    successor_session: str | None = None

    def to_bytes(self) -> bytes:
        v: dict[str, object] = {"url": self.url, "session": self.session, "generation": self.generation,
                                "connectors": sorted(self.connectors),
                                "tasks": [[t.connector, t.task] for t in sorted(self.tasks)]}
        if self.leaving:
            v["leaving"] = True
        if self.successor is not None:
            v["successor"] = [self.successor, self.successor_session or ""]
        return json.dumps(v, separators=(",", ":")).encode()

    @staticmethod
    def parse(worker_id: str, data: bytes, received_at: float, replayed: bool = False) -> Heartbeat:
        v = json.loads(data)
        return Heartbeat(worker_id, str(v["url"]), str(v["session"]), int(v["generation"]),
                         frozenset(str(c) for c in v.get("connectors", [])),
                         frozenset(ConnectorTaskId(str(t[0]), int(t[1])) for t in v.get("tasks", [])),
                         received_at, replayed, bool(v.get("leaving", False)),
                         *_successor(v.get("successor")))


def _successor(value: object) -> tuple[str | None, str | None]:
    """A heartbeat's ``successor``: ``[id, session]``."""
    if isinstance(value, list) and len(value) == 2:
        return str(value[0]), str(value[1])
    return None, None


class Membership:
    """The set of workers seen heartbeating, fed by the status-topic reader."""

    def __init__(self, session_timeout_ms: int, *, clock: Callable[[], float] = time.monotonic,
                 wall_clock_ms: Callable[[], float] = lambda: time.time() * 1000.0) -> None:
        self._timeout_s = session_timeout_ms / 1000.0
        self._clock = clock
        self._wall_clock_ms = wall_clock_ms
        self._lock = threading.Lock()
        self._beats: dict[str, Heartbeat] = {}
        self._left: dict[str, float] = {}
        #: Leaving leaders' named successors, (id, session) (kept past the tombstone, until the worker
        #: heartbeats again).
        self._successors: dict[str, tuple[str, str]] = {}
        self._caught_up = False
        self._caught_up_at: float | None = None

    def caught_up(self) -> None:
        """The status topic has been read to its end once: heartbeats read from now on are news."""
        with self._lock:
            self._caught_up = True
            self._caught_up_at = self._clock()

    def on_record(self, key: str, value: bytes | None, timestamp_ms: int | None = None) -> None:
        """Status-topic listener (reader thread) for ``status-worker-*`` keys; ``timestamp_ms`` is the
        record's Kafka timestamp, if it has one."""
        worker = key[len(HEARTBEAT_PREFIX):]
        now = self._clock()
        with self._lock:
            replayed = not self._caught_up
            seen_at = now
            if replayed and timestamp_ms is not None:
                # The record's age on the writer's clock, carried over to our monotonic clock.
                seen_at = now - max(0.0, self._wall_clock_ms() - timestamp_ms) / 1000.0
            elif replayed:
                seen_at = now - self._timeout_s  # no timestamp: as old as can still matter
            if value is None:
                self._beats.pop(worker, None)
                self._left[worker] = seen_at
            else:
                try:
                    beat = Heartbeat.parse(worker, value, seen_at, replayed)
                except (ValueError, KeyError, TypeError, IndexError):
                    return
                self._beats[worker] = beat
                self._left.pop(worker, None)
                if beat.successor is not None and not replayed:
                    self._successors[worker] = (beat.successor, beat.successor_session or "")
                elif not beat.leaving:
                    self._successors.pop(worker, None)

    def live(self, now: float | None = None) -> dict[str, Heartbeat]:
        """Workers with a heartbeat received (not replayed) within the session timeout, not leaving."""
        now = self._clock() if now is None else now
        with self._lock:
            return {w: b for w, b in self._beats.items()
                    if not b.replayed and not b.leaving and now - b.received_at <= self._timeout_s}

    def leaving(self, now: float | None = None) -> dict[str, Heartbeat]:
        """Workers shutting down, whose latest heartbeat (received within the session timeout) lists
        what they still run: it must stop before it runs elsewhere."""
        now = self._clock() if now is None else now
        with self._lock:
            return {w: b for w, b in self._beats.items()
                    if not b.replayed and b.leaving and now - b.received_at <= self._timeout_s}

    def successor_named_by(self, worker: str) -> tuple[str, str] | None:
        """The worker (id, session) that ``worker``, a leader on its way out, handed leadership to."""
        with self._lock:
            return self._successors.get(worker)

    def settling(self, window_s: float, now: float | None = None) -> bool:
        """Whether the status topic was read to its end less than ``window_s`` ago (or not yet): a live
        worker may not have heartbeated since, and be known only from its replayed heartbeat."""
        now = self._clock() if now is None else now
        with self._lock:
            return self._caught_up_at is None or now - self._caught_up_at < window_s

    def seen_recently(self, now: float | None = None) -> dict[str, Heartbeat]:
        """Workers not leaving whose heartbeat, replayed or not, is within the session timeout: those
        that may be alive while this worker has only just caught up."""
        now = self._clock() if now is None else now
        with self._lock:
            return {w: b for w, b in self._beats.items()
                    if not b.leaving and now - b.received_at <= self._timeout_s}

    def is_live(self, worker: str, now: float | None = None) -> bool:
        return worker in self.live(now)

    def others_known(self, me: str) -> bool:
        """Whether the status topic ever showed a worker other than ``me`` (alive, dead or gone)."""
        with self._lock:
            return any(w != me for w in (*self._beats, *self._left))

    def heartbeat(self, worker: str) -> Heartbeat | None:
        with self._lock:
            return self._beats.get(worker)
