"""Leader election through the config topic, and the leader's only way to write it.

The leader is the author of the last committed ``leader`` record while it is live. A leader that shuts
down names a successor in its leaving heartbeat, which claims at once. Otherwise, when there is no
leader record or its author is not live, the live workers rank themselves by id and the first claims:
it initialises the transactional producer ``connect-cluster-<group.id>`` (fencing the previous
leader's producer and aborting its open transaction) and commits ``leader`` with epoch + 1. A worker
judges the leader dead only while it hears its own heartbeats: cut off from the status topic, it sees
every heartbeat age alike, and a claim begun then would complete when the network heals and fence a
healthy leader; back in contact, it first reads the heartbeats that waited for it. Every
privileged config write goes through that producer, so a deposed leader can never write again; a
leader that sees a newer record, or whose write is fenced, steps down at once.

Everything here runs on the herder thread, except :attr:`is_leader` and :meth:`leader_url`, which any
thread may read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from confluent_kafka import KafkaException

from connect_runtime.cluster.membership import Membership
from connect_runtime.errors import NotLeaderHttpError
from connect_runtime.storage.config_store import ClusterConfigState, KafkaConfigBackingStore, LeaderRecord
from connect_runtime.storage.config_writer import ConfigTopicWriter, ConfigWriteError

logger = logging.getLogger(__name__)

_RETRY_BACKOFF_S = 0.25
#: ``init_transactions`` of the leader's producer, from the herder's tick: short, so that a broker
#: outage does not hold the herder thread for a minute; the next tick tries again.
_INIT_TIMEOUT_S = 10.0
NOT_LEADER_MESSAGE = "Cannot complete request because this worker is not the leader"


class Leadership:
    """This worker's part in leader election, and the leader's config-topic writes."""

    def __init__(
        self,
        worker_id: str,
        worker_url: str,
        session: str,
        group_id: str,
        config_store: KafkaConfigBackingStore,
        membership: Membership,
        writer: ConfigTopicWriter,
        heartbeat_s: float,
        session_timeout_s: float,
        in_contact: Callable[[], bool],
    ) -> None:
        self._worker_id = worker_id
        self._url = worker_url
        self._session = session
        self._group_id = group_id
        self._config_store = config_store
        self._membership = membership
        self.writer = writer
        self._heartbeat_s = heartbeat_s
        self._session_timeout_s = session_timeout_s
        self._in_contact = in_contact
        self._started_at = time.monotonic()
        #: Whether this worker leads (read from any thread; changed on the herder thread only).
        self.is_leader = False
        self._epoch = 0
        self._lost_at: float | None = None
        #: When this worker last did not hear its own heartbeats (None: not since it started).
        self._deaf_at: float | None = None
        self._writer_retry_at = 0.0

    def current_leader(self, state: ClusterConfigState) -> LeaderRecord | None:
        """The leader record if its author is live (or is us)."""
        rec = state.leader
        if rec is None:
            return None
        if rec.worker_id == self._worker_id and rec.session != self._session:
            return None  # claimed by a previous incarnation of this worker, which is gone
        if rec.worker_id == self._worker_id:
            # Ours: current while we lead; if we were deposed, the successor's record is on its way.
            return rec if self.is_leader else None
        return rec if self._membership.is_live(rec.worker_id) else None

    def leader_url(self) -> str | None:
        rec = self.current_leader(self._config_store.snapshot())
        return rec.url if rec is not None else None

    def update(self, state: ClusterConfigState) -> None:
        """One tick: step down if deposed, re-initialise a failed producer, or claim when it is our turn."""
        rec = state.leader
        mine = rec is not None and rec.worker_id == self._worker_id and rec.epoch == self._epoch
        if self.is_leader and not mine:
            logger.warning("Worker %s saw a newer leader record (%s); stepping down", self._worker_id, rec)
            self.step_down()
        if not self.is_leader and rec is not None and rec.worker_id == self._worker_id \
                and rec.session == self._session:
            # We were fenced before reading our successor's claim: learn it before deciding anything.
            state = self._config_store.refresh()
            rec = state.leader
        if self.is_leader:
            if not self.writer.initialized and time.monotonic() >= self._writer_retry_at:
                # Our record is the latest but our producer was fenced or failed: re-initialise it,
                # as the reference's leader does (a successor's init would fence us again).
                self._writer_retry_at = time.monotonic() + _RETRY_BACKOFF_S
                try:
                    self.writer.initialize(_INIT_TIMEOUT_S)
                except KafkaException as e:
                    logger.warning("Could not re-initialise the leader producer: %s", e)
            return
        if self.current_leader(state) is not None:
            self._lost_at = None
            return
        if rec is not None and self._membership.successor_named_by(rec.worker_id) == (self._worker_id, self._session) \
                and self._in_contact():
            # The leader left and named this very process: nothing to learn or wait for (a planned handoff;
            # until this worker has heard every live worker, its plans treat those it only saw in replay as
            # alive). A failed claim is tried again next tick.
            self._claim()
            return
        now = time.monotonic()
        if not self._hears_itself(now):
            self._deaf_at = now
            self._lost_at = None
            return
        if self._deaf_at is not None and now - self._deaf_at < self._heartbeat_s:
            # Back in contact: the others' heartbeats may be read after ours (another status partition),
            # and within an interval every live worker has written a new one.
            return
        if now - self._started_at < 2 * self._heartbeat_s and self._membership.others_known(self._worker_id):
            # Learn who else is alive (their heartbeats) before ranking ourselves. A status topic that
            # never named another worker is a new cluster: claim at once (two workers starting together
            # both claim; the transactional claim keeps one leader, the later epoch).
            return
        if self._lost_at is None:
            self._lost_at = now
        live = sorted(self._membership.live(now))
        me = self._worker_id
        if me not in live:
            if not self._in_contact():
                return
            live = sorted({*live, me})
        rank = live.index(me)
        if now - self._lost_at < rank * self._session_timeout_s:
            return
        self._claim()

    def hears_itself(self) -> bool:
        """Whether this worker reads its own heartbeats fresh enough to act on what it reads of the others
        (see :meth:`_hears_itself`): a leader that does not must not write, as it would judge a healthy
        cluster gone and block in a write to brokers it cannot reach."""
        return self._hears_itself(time.monotonic())

    def _hears_itself(self, now: float) -> bool:
        """Whether this worker reads the status topic as it is: its own latest heartbeat came back
        recently enough that a leader heartbeat past the session timeout means the leader, not this
        worker's network, went quiet. Cut off, ours is at least session timeout - interval old when the
        leader's passes the session timeout (it was at most an interval fresher); half an interval less
        leaves room for a slow read. Never less than 1.5 intervals: in contact, ours comes back a little
        more than an interval apart (the heartbeat thread waits an interval after each write), and a
        session this short must not make every interval look like a lost contact, which would hold the
        claim back for good. Before its first heartbeat comes back, the herder's start-up rule."""
        beat = self._membership.heartbeat(self._worker_id)
        if beat is None or beat.replayed or beat.session != self._session:
            return self._in_contact()
        fresh_s = max(1.5 * self._heartbeat_s, self._session_timeout_s - 1.5 * self._heartbeat_s)
        return now - beat.received_at <= fresh_s

    def _claim(self) -> None:
        try:
            self.writer.initialize(_INIT_TIMEOUT_S)
            state = self._config_store.refresh()
            epoch = (state.leader.epoch if state.leader else 0) + 1
            record = LeaderRecord(self._worker_id, self._url, epoch, self._session)
            self.writer.write([("leader", record.to_bytes())])
        except (KafkaException, ConfigWriteError) as e:
            logger.info("Leadership claim by %s failed (another worker claimed first?): %s", self._worker_id, e)
            self.writer.close()
            return
        self._epoch = epoch
        self.is_leader = True
        self._lost_at = None
        logger.info("Worker %s is the leader of group %s (epoch %d)", self._worker_id, self._group_id, epoch)
        self._config_store.refresh()

    def step_down(self) -> None:
        self.is_leader = False
        self.writer.close()

    def require_leader(self) -> None:
        """Raise :class:`NotLeaderHttpError` (with where to forward) unless this worker leads."""
        if not self.is_leader:
            raise NotLeaderHttpError(NOT_LEADER_MESSAGE, self.leader_url())

    def write(self, records: list[tuple[str, bytes | None]]) -> None:
        """Commit ``records`` to the config topic as leader; a fenced write makes this worker step down."""
        self.require_leader()
        try:
            if not self.writer.initialized:
                self.writer.initialize(_INIT_TIMEOUT_S)
            self.writer.write(records)
        except ConfigWriteError as e:
            if e.fenced:
                logger.error("The config topic producer was fenced: another worker took over leadership")
                self.step_down()
            raise
        except KafkaException as e:
            raise ConfigWriteError(e, fenced=False) from e
