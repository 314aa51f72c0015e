"""A worker judges the leader dead only while it hears its own heartbeats: cut off from the status
topic, every other worker's heartbeat looks as stale as its own, and a claim made then (its producer's
``init_transactions`` waiting for the network) would fence a healthy leader once the network heals."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import cast

import pytest
from worker_stubs import FixedConfigStore

from connect_runtime.cluster import leadership as leadership_module
from connect_runtime.cluster.leadership import Leadership
from connect_runtime.cluster.membership import Heartbeat, Membership, heartbeat_key
from connect_runtime.storage.config_store import ClusterConfigState, KafkaConfigBackingStore, LeaderRecord
from connect_runtime.storage.config_writer import ConfigTopicWriter

SESSION_S, HEARTBEAT_S = 4.0, 1.0


class _Writer:
    """The leader's producer: records each claim."""

    def __init__(self, store: FixedConfigStore) -> None:
        self.store = store
        self.initialized = False
        self.claims: list[str] = []

    def initialize(self, timeout_s: float) -> None:
        self.initialized = True

    def write(self, records: list[tuple[str, bytes | None]]) -> None:
        for _key, value in records:
            assert value is not None
            record = LeaderRecord.parse(value)
            self.claims.append(record.worker_id)
            self.store.state = ClusterConfigState(leader=record)

    def close(self) -> None:
        self.initialized = False


class _Cluster:
    """Worker a:1 (first by id, so first to claim) with b:1 leading and c:1, each last heard
    ``ages[worker]`` seconds ago."""

    def __init__(self) -> None:
        self.age = 0.0
        self.membership = Membership(int(SESSION_S * 1000), clock=lambda: time.monotonic() - self.age)
        self.membership.caught_up()
        self.store = FixedConfigStore(ClusterConfigState(leader=LeaderRecord("b:1", "http://b:1", 4, "s")))
        self.writer = _Writer(self.store)
        self.leadership = Leadership("a:1", "http://a:1", "mine", "g", cast(KafkaConfigBackingStore, self.store),
                                     self.membership, cast(ConfigTopicWriter, self.writer), HEARTBEAT_S, SESSION_S,
                                     self.in_contact)
        self.leadership._started_at -= 60  # long past its start-up wait

    def in_contact(self) -> bool:
        return self.membership.is_live("a:1")

    def heard(self, **ages: float) -> None:
        for name, age in ages.items():
            worker = f"{name}:1"
            self.age = age
            beat = Heartbeat(worker, f"http://{worker}", "mine" if name == "a" else "s", 1)
            self.membership.on_record(heartbeat_key(worker), beat.to_bytes())
        self.age = 0.0

    def tick(self) -> list[str]:
        self.leadership.update(self.store.snapshot())
        return self.writer.claims


def test_a_worker_that_hears_itself_claims_for_a_dead_leader() -> None:
    cluster = _Cluster()
    cluster.heard(a=0.3, b=SESSION_S + 0.5, c=0.3)
    assert cluster.tick() == ["a:1"]


def test_a_partitioned_worker_does_not_claim_while_its_own_heartbeat_is_still_within_the_session() -> None:
    # Cut off: its last heartbeat read back 3.5 s ago, the leader's 4.5 s ago. Both are past what a
    # worker reading the topic would see, but only the leader's past the session timeout.
    cluster = _Cluster()
    cluster.heard(a=SESSION_S - 0.5, b=SESSION_S + 0.5, c=SESSION_S - 0.5)
    assert cluster.tick() == []


def test_a_worker_back_in_contact_hears_the_others_before_it_claims() -> None:
    cluster = _Cluster()
    cluster.heard(a=SESSION_S + 1, b=SESSION_S + 1, c=SESSION_S + 1)
    assert cluster.tick() == []  # hears nobody, itself included
    # The network heals: its own heartbeat is read back before the leader's, which waited in another
    # partition of the status topic.
    cluster.heard(a=0.0)
    assert cluster.tick() == []
    cluster.heard(b=0.0, c=0.0)
    assert cluster.tick() == []


class _Clock:
    """A monotonic clock the test moves: the membership's and the leadership's."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_worker_whose_heartbeats_come_back_an_interval_apart_claims_with_a_session_of_two_intervals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The heartbeat thread waits an interval after each write, so a worker reads its own heartbeats a
    # little more than an interval apart: with a session of 2.5 intervals that must not read as losing
    # contact every interval, which restarts its wait for its turn and holds its claim back for good.
    session_s, heartbeat_s = 5.0, 2.0
    clock = _Clock()
    monkeypatch.setattr(leadership_module, "time", SimpleNamespace(monotonic=clock))
    membership = Membership(int(session_s * 1000), clock=clock)
    membership.caught_up()
    store = FixedConfigStore(ClusterConfigState(leader=LeaderRecord("b:1", "http://b:1", 4, "s")))
    writer = _Writer(store)
    leadership = Leadership("a:1", "http://a:1", "mine", "g", cast(KafkaConfigBackingStore, store), membership,
                            cast(ConfigTopicWriter, writer), heartbeat_s, session_s, lambda: membership.is_live("a:1"))
    clock.now += 60  # long past its start-up wait; the leader b:1 was last heard before that
    next_beat = clock.now
    for _ in range(600):  # 60 s, a tick every 100 ms
        if clock.now >= next_beat:
            # 0:1 ranks first, and is as slow to claim: a:1 claims once 0:1 had a session timeout's turn.
            for worker, session in (("0:1", "s0"), ("a:1", "mine")):
                beat = Heartbeat(worker, f"http://{worker}", session, 1)
                membership.on_record(heartbeat_key(worker), beat.to_bytes())
            next_beat = clock.now + heartbeat_s + 0.25
        leadership.update(store.snapshot())
        if writer.claims:
            break
        clock.now += 0.1
    assert writer.claims == ["a:1"]
