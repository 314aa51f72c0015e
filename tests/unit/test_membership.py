"""Heartbeat membership: liveness on the reader's clock, replayed heartbeats, clean leaves, KIP-415
reservations."""

from __future__ import annotations

import time

from connect_runtime.cluster.membership import Heartbeat, Membership, heartbeat_key
from connect_runtime.types import ConnectorTaskId


def _beat(worker: str, tasks: frozenset[ConnectorTaskId] = frozenset()) -> bytes:
    return Heartbeat(worker, f"http://{worker}", "s1", 3, frozenset({"c"}), tasks).to_bytes()


def test_heartbeat_round_trip() -> None:
    tasks = frozenset({ConnectorTaskId("c-1", 0), ConnectorTaskId("c-1", 2)})
    beat = Heartbeat.parse("h:1", _beat("h:1", tasks), 5.0)
    assert beat.tasks == tasks and beat.connectors == {"c"} and beat.generation == 3 and beat.url == "http://h:1"


def test_live_within_session_timeout_on_the_readers_clock() -> None:
    m = Membership(session_timeout_ms=1000)
    m.caught_up()
    m.on_record(heartbeat_key("a:1"), _beat("a:1"))
    now = time.monotonic()
    assert set(m.live(now)) == {"a:1"}
    assert m.live(now + 1.5) == {}
    assert not m.is_live("a:1", now + 1.5)


def test_tombstone_is_a_clean_leave_and_not_reserved() -> None:
    m = Membership(session_timeout_ms=1000)
    m.caught_up()
    m.on_record(heartbeat_key("a:1"), _beat("a:1"))
    m.on_record(heartbeat_key("b:1"), _beat("b:1"))
    m.on_record(heartbeat_key("a:1"), None)
    now = time.monotonic()
    assert set(m.live(now)) == {"b:1"}
    # A clean leave is final: nothing waits for it; a silent loss is waited for within the delay.
    assert m.lost_within(["a:1", "b:1"], 60.0, now + 2.0) == ["b:1"]
    assert m.lost_within(["a:1", "b:1"], 0.5, now + 2.0) == []


def test_malformed_heartbeat_is_ignored() -> None:
    m = Membership(session_timeout_ms=1000)
    m.on_record(heartbeat_key("a:1"), b"not json")
    assert m.live() == {}


class _Clocks:
    """A monotonic clock and a wall clock (ms) that the test moves together."""

    def __init__(self) -> None:
        self.mono = 1000.0
        self.wall_ms = 1_700_000_000_000.0

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.wall_ms += seconds * 1000


def _membership(clocks: _Clocks, timeout_ms: int = 10_000) -> Membership:
    return Membership(timeout_ms, clock=lambda: clocks.mono, wall_clock_ms=lambda: clocks.wall_ms)


def test_replayed_heartbeat_of_a_dead_leader_is_never_live() -> None:
    # The leader was SIGKILLed 1 s before this worker (re)started and replayed the status topic: its
    # last heartbeat is 1 s old, well within the session timeout, and must still not count.
    clocks = _Clocks()
    m = _membership(clocks)
    m.on_record(heartbeat_key("leader:1"), _beat("leader:1"), int(clocks.wall_ms - 1000))
    m.caught_up()
    assert m.live() == {}
    assert not m.is_live("leader:1")
    clocks.advance(5)
    assert m.live() == {}
    beat = m.heartbeat("leader:1")
    assert beat is not None and beat.replayed  # still known (URL, what it ran), just not live


def test_live_again_once_a_heartbeat_arrives_after_catch_up() -> None:
    clocks = _Clocks()
    m = _membership(clocks)
    m.on_record(heartbeat_key("a:1"), _beat("a:1"), int(clocks.wall_ms - 200))
    m.caught_up()
    assert not m.is_live("a:1")
    clocks.advance(1)  # a live worker heartbeats again within heartbeat.interval.ms
    m.on_record(heartbeat_key("a:1"), _beat("a:1"), int(clocks.wall_ms))
    assert m.is_live("a:1")
    clocks.advance(9.9)
    assert m.is_live("a:1")
    clocks.advance(0.2)
    assert not m.is_live("a:1")


def test_after_catch_up_liveness_ignores_the_writers_clock() -> None:
    # Live heartbeats are judged on receipt: a writer whose clock is a minute behind (or ahead) is
    # still live, so a skewed clock can never make a live worker look dead.
    clocks = _Clocks()
    m = _membership(clocks)
    m.caught_up()
    m.on_record(heartbeat_key("slow:1"), _beat("slow:1"), int(clocks.wall_ms - 60_000))
    m.on_record(heartbeat_key("fast:1"), _beat("fast:1"), int(clocks.wall_ms + 60_000))
    assert set(m.live()) == {"slow:1", "fast:1"}


def test_replayed_heartbeat_ages_from_its_timestamp_for_delayed_reassignment() -> None:
    # KIP-415: a worker that stopped heartbeating keeps its work for the delay, counted from when it
    # was last seen: for a replayed heartbeat, the record's timestamp.
    clocks = _Clocks()
    m = _membership(clocks, timeout_ms=10_000)
    m.on_record(heartbeat_key("old:1"), _beat("old:1"), int(clocks.wall_ms - 60_000))  # 60 s old
    m.on_record(heartbeat_key("recent:1"), _beat("recent:1"), int(clocks.wall_ms - 2_000))  # 2 s old
    m.caught_up()
    # Seen 60 s ago: its session expired 50 s ago, so a 30 s delay is over; 2 s ago: not over.
    assert m.lost_within(["old:1", "recent:1"], 30.0) == ["recent:1"]
    assert sorted(m.lost_within(["old:1", "recent:1"], 60.0)) == ["old:1", "recent:1"]
    clocks.advance(40)  # recent:1 expired 32 s ago
    assert m.lost_within(["old:1", "recent:1"], 30.0) == []


def test_replayed_heartbeat_from_a_clock_ahead_is_capped_at_now() -> None:
    clocks = _Clocks()
    m = _membership(clocks)
    m.on_record(heartbeat_key("ahead:1"), _beat("ahead:1"), int(clocks.wall_ms + 3_600_000))
    m.caught_up()
    beat = m.heartbeat("ahead:1")
    assert beat is not None and beat.received_at == clocks.mono
    assert m.live() == {}


def test_replayed_heartbeat_without_timestamp_counts_as_expired() -> None:
    clocks = _Clocks()
    m = _membership(clocks, timeout_ms=10_000)
    m.on_record(heartbeat_key("a:1"), _beat("a:1"), None)
    m.caught_up()
    assert m.live() == {}
    assert m.lost_within(["a:1"], 5.0) == ["a:1"]
    clocks.advance(5.1)
    assert m.lost_within(["a:1"], 5.0) == []


def test_replayed_tombstone_is_a_clean_leave() -> None:
    clocks = _Clocks()
    m = _membership(clocks)
    m.on_record(heartbeat_key("a:1"), _beat("a:1"), int(clocks.wall_ms - 500))
    m.on_record(heartbeat_key("a:1"), None, int(clocks.wall_ms - 400))
    m.caught_up()
    assert m.heartbeat("a:1") is None
    assert m.lost_within(["a:1"], 60.0) == []


def test_others_known_counts_any_other_worker_ever_seen() -> None:
    m = Membership(10000)
    assert not m.others_known("me:8083")
    m.on_record(heartbeat_key("me:8083"), Heartbeat("me:8083", "http://me:8083", "s", 0).to_bytes())
    assert not m.others_known("me:8083")
    m.on_record(heartbeat_key("other:8083"), None)  # even one that left cleanly
    assert m.others_known("me:8083")
