"""Heartbeat membership: liveness on the reader's clock, replayed heartbeats, clean leaves and
leaving workers."""

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


def test_tombstone_is_a_clean_leave() -> None:
    m = Membership(session_timeout_ms=1000)
    m.caught_up()
    m.on_record(heartbeat_key("a:1"), _beat("a:1"))
    m.on_record(heartbeat_key("b:1"), _beat("b:1"))
    m.on_record(heartbeat_key("a:1"), None)
    now = time.monotonic()
    assert set(m.live(now)) == {"b:1"}
    assert m.heartbeat("a:1") is None and m.leaving(now) == {}
    assert m.others_known("b:1")


def test_a_leaving_worker_is_not_live_but_what_it_still_runs_is_known() -> None:
    m = Membership(session_timeout_ms=1000)
    m.caught_up()
    t = ConnectorTaskId("c", 0)
    m.on_record(heartbeat_key("a:1"), Heartbeat("a:1", "http://a:1", "s", 3, frozenset({"c"}), frozenset({t}),
                                                 leaving=True).to_bytes())
    m.on_record(heartbeat_key("b:1"), _beat("b:1"))
    now = time.monotonic()
    assert set(m.live(now)) == {"b:1"}
    leaving = m.leaving(now)
    assert set(leaving) == {"a:1"} and leaving["a:1"].tasks == frozenset({t})
    assert m.leaving(now + 1.5) == {}  # a leaver that went silent is simply gone
    # The flag is written only when set: a worker that is not leaving writes what it always wrote.
    assert b"leaving" not in Heartbeat("b:1", "u", "s", 1).to_bytes()


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


def test_replayed_heartbeat_ages_from_its_timestamp() -> None:
    # A replayed heartbeat says when the worker was last seen: the record's timestamp.
    clocks = _Clocks()
    m = _membership(clocks, timeout_ms=10_000)
    m.on_record(heartbeat_key("old:1"), _beat("old:1"), int(clocks.wall_ms - 60_000))  # 60 s old
    m.on_record(heartbeat_key("recent:1"), _beat("recent:1"), int(clocks.wall_ms - 2_000))  # 2 s old
    m.caught_up()
    old, recent = m.heartbeat("old:1"), m.heartbeat("recent:1")
    assert old is not None and abs(old.received_at - (clocks.mono - 60.0)) < 0.01
    assert recent is not None and abs(recent.received_at - (clocks.mono - 2.0)) < 0.01
    assert m.live() == {}


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
    beat = m.heartbeat("a:1")
    assert beat is not None and abs(beat.received_at - (clocks.mono - 10.0)) < 0.01


def test_replayed_tombstone_is_a_clean_leave() -> None:
    clocks = _Clocks()
    m = _membership(clocks)
    m.on_record(heartbeat_key("a:1"), _beat("a:1"), int(clocks.wall_ms - 500))
    m.on_record(heartbeat_key("a:1"), None, int(clocks.wall_ms - 400))
    m.caught_up()
    assert m.heartbeat("a:1") is None


def test_others_known_counts_any_other_worker_ever_seen() -> None:
    m = Membership(10000)
    assert not m.others_known("me:8083")
    m.on_record(heartbeat_key("me:8083"), Heartbeat("me:8083", "http://me:8083", "s", 0).to_bytes())
    assert not m.others_known("me:8083")
    m.on_record(heartbeat_key("other:8083"), None)  # even one that left cleanly
    assert m.others_known("me:8083")


def test_right_after_catching_up_replayed_workers_may_be_alive() -> None:
    # A worker that just read the status topic knows some live workers only from replay: for a couple
    # of heartbeat intervals the leader treats them as alive when it plans (not when it elects).
    clocks = _Clocks()
    m = _membership(clocks, timeout_ms=10_000)
    m.on_record(heartbeat_key("c:1"), _beat("c:1"), int(clocks.wall_ms - 2_000))
    m.on_record(heartbeat_key("old:1"), _beat("old:1"), int(clocks.wall_ms - 60_000))
    assert m.settling(6.0)  # not caught up yet
    m.caught_up()
    assert m.settling(6.0) and m.live() == {}
    assert set(m.seen_recently()) == {"c:1"}
    clocks.advance(6.5)
    assert not m.settling(6.0)
