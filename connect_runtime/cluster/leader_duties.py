"""What the leader does each tick, besides answering requests: rotate the session key that signs
internal requests, and place connectors and tasks on the live workers (``assignment.plan``), writing
an ``assignment`` record when the placement changes (Java's ``DistributedHerder`` leader duties and
its ``IncrementalCooperativeAssignor``, through the config topic instead of a group protocol).

Runs on the herder thread; every write goes through the leader's fenced producer (``leadership.py``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from connect_runtime.cluster.assignment import Assignment, plan, what_runs
from connect_runtime.cluster.leadership import Leadership
from connect_runtime.cluster.membership import Heartbeat, Membership
from connect_runtime.cluster.request_signature import generate_key
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import ASSIGNMENT_KEY, ClusterConfigState, KafkaConfigBackingStore
from connect_runtime.storage.config_writer import ConfigWriteError
from connect_runtime.types import ConnectorTaskId

logger = logging.getLogger(__name__)

RunningItems = Callable[[], tuple[frozenset[str], frozenset[ConnectorTaskId]]]


class LeaderDuties:
    """The leader's periodic work: session keys and placement."""

    def __init__(
        self,
        config: WorkerConfig,
        worker_id: str,
        worker_url: str,
        session: str,
        config_store: KafkaConfigBackingStore,
        membership: Membership,
        leadership: Leadership,
        parsed_assignment: Callable[[ClusterConfigState], Assignment | None],
        running_items: RunningItems,
    ) -> None:
        self._config = config
        self._worker_id = worker_id
        self._worker_url = worker_url
        self._session = session
        self._config_store = config_store
        self._membership = membership
        self._leadership = leadership
        self._parsed_assignment = parsed_assignment
        self._running_items = running_items
        self._heartbeat_s = config.heartbeat_interval_ms / 1000.0

    def run(self, state: ClusterConfigState) -> None:
        """One tick's duties; a failed write is left to the next tick (or the next leader)."""
        try:
            self._rotate_session_key(state)
            self._rebalance(state)
        except ConfigWriteError as e:
            logger.warning("Leader write failed: %s", e)

    def _rotate_session_key(self, state: ClusterConfigState) -> None:
        key = state.session_key
        ttl_ms = self._config.inter_worker_key_ttl_ms
        now_ms = int(time.time() * 1000)
        if key is not None and now_ms - key.creation_timestamp < ttl_ms:
            return
        algorithm = self._config.inter_worker_key_generation_algorithm
        secret = generate_key(algorithm, self._config.inter_worker_key_size)
        self._leadership.write([formats.session_key_record(secret, algorithm, now_ms)])
        logger.info("Leader distributed a new session key")

    def _rebalance(self, state: ClusterConfigState) -> None:
        now = time.monotonic()
        me = self._worker_id
        live = self._membership.live(now)
        live.setdefault(me, Heartbeat(me, self._worker_url, self._session, 0))
        previous = self._parsed_assignment(state)
        if self._membership.settling(2 * self._heartbeat_s, now):
            # Just caught up (a successor that started a moment ago): a worker seen only in replay may be
            # alive and running its share; leave it that until its first heartbeat says otherwise.
            for w, b in self._membership.seen_recently(now).items():
                live.setdefault(w, b)
        tasks = [t for c in state.connectors() for t in state.tasks(c)]
        # Leaving workers are not live, but what they still run must stop before it runs elsewhere.
        beats = {**self._membership.leaving(now), **live}
        running = what_runs({w: (b.generation, b.connectors, b.tasks) for w, b in beats.items() if w != me},
                            previous)
        running[me] = self._running_items()
        nxt = plan(previous, list(live), state.connectors(), tasks, running, me, self._worker_url,
                   now_ms=int(time.time() * 1000), memory_ms=self._config.scheduled_rebalance_max_delay_ms)
        if nxt is previous:
            return
        self._leadership.write([(ASSIGNMENT_KEY, nxt.to_bytes())])
        logger.info("Leader wrote assignment generation %d: %s", nxt.generation,
                    {w: (sorted(a.connectors), [str(t) for t in sorted(a.tasks)]) for w, a in nxt.workers.items()})
        self._config_store.refresh()
