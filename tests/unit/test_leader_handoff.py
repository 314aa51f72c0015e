"""A leader that shuts down names its successor, which claims at once (pure logic: the config store and
the leader's producer are fakes; membership is the real one)."""

from __future__ import annotations

import time
from typing import Any, cast

import pytest
from worker_stubs import FixedConfigStore

from connect_runtime.cluster.leadership import Leadership
from connect_runtime.cluster.membership import Heartbeat, Membership, heartbeat_key
from connect_runtime.storage.config_store import ClusterConfigState, KafkaConfigBackingStore, LeaderRecord
from connect_runtime.storage.config_writer import ConfigTopicWriter


class _Writer:
    def __init__(self, store: FixedConfigStore) -> None:
        self.store = store
        self.initialized = False
        self.claims: list[LeaderRecord] = []

    def initialize(self, timeout_s: float) -> None:
        self.initialized = True

    def write(self, records: list[tuple[str, bytes | None]]) -> None:
        for key, value in records:
            assert key == "leader" and value is not None
            record = LeaderRecord.parse(value)
            self.claims.append(record)
            self.store.state = ClusterConfigState(leader=record)

    def close(self) -> None:
        self.initialized = False


def _beat(worker: str, **kw: Any) -> bytes:
    return Heartbeat(worker, f"http://{worker}", "s", 1, **kw).to_bytes()


def _leadership(me: str, membership: Membership) -> tuple[Leadership, _Writer, FixedConfigStore]:
    store = FixedConfigStore(ClusterConfigState(leader=LeaderRecord("a:1", "http://a:1", 4, "s")))
    writer = _Writer(store)
    # Just started, in a cluster it knows others of: the usual rule waits two heartbeat intervals before
    # ranking itself, then one session timeout per rank.
    leadership = Leadership(me, f"http://{me}", "mine", "g", cast(KafkaConfigBackingStore, store), membership,
                            cast(ConfigTopicWriter, writer), 3.0, 10.0, lambda: True)
    return leadership, writer, store


@pytest.mark.parametrize("named", ["this process", "nobody", "an earlier process of c:1"])
def test_a_leaving_leader_s_named_successor_claims_at_once(named: str) -> None:
    membership = Membership(10_000)
    membership.caught_up()
    for w in ("b:1", "c:1"):
        membership.on_record(heartbeat_key(w), _beat(w))
    # The leader leaves and names c:1 (by id and session), which the usual ranking would put second.
    successor = {"this process": ("c:1", "mine"), "nobody": (None, None),
                 "an earlier process of c:1": ("c:1", "before-its-restart")}[named]
    membership.on_record(heartbeat_key("a:1"), _beat("a:1", leaving=True, successor=successor[0],
                                                     successor_session=successor[1]))
    membership.on_record(heartbeat_key("a:1"), None)  # and its tombstone, before c:1's next tick
    leadership, writer, store = _leadership("c:1", membership)
    leadership.update(store.snapshot())
    if named == "this process":
        assert leadership.is_leader
        assert [(r.worker_id, r.epoch) for r in writer.claims] == [("c:1", 5)]
    else:
        assert not leadership.is_leader and writer.claims == []


def test_a_successor_is_forgotten_once_the_worker_is_back() -> None:
    membership = Membership(10_000)
    membership.caught_up()
    membership.on_record(heartbeat_key("a:1"), _beat("a:1", leaving=True, successor="c:1", successor_session="s2"))
    assert membership.successor_named_by("a:1") == ("c:1", "s2")
    membership.on_record(heartbeat_key("a:1"), None)
    assert membership.successor_named_by("a:1") == ("c:1", "s2")  # the tombstone may be read first
    membership.on_record(heartbeat_key("a:1"), _beat("a:1"))  # restarted: a plain heartbeat
    assert membership.successor_named_by("a:1") is None
    assert set(membership.live(time.monotonic())) == {"a:1"}


def test_a_replayed_successor_is_history() -> None:
    membership = Membership(10_000)
    membership.on_record(heartbeat_key("a:1"), _beat("a:1", leaving=True, successor="c:1", successor_session="s"))
    membership.caught_up()
    assert membership.successor_named_by("a:1") is None
