"""Heartbeat membership: liveness on the reader's clock, clean leaves, KIP-415 reservations."""

from __future__ import annotations

import time

from connect_runtime.cluster.herder_api import ConnectorTaskId
from connect_runtime.cluster.membership import Heartbeat, Membership, heartbeat_key


def _beat(worker: str, tasks: frozenset[ConnectorTaskId] = frozenset()) -> bytes:
    return Heartbeat(worker, f"http://{worker}", "s1", 3, frozenset({"c"}), tasks).to_bytes()


def test_heartbeat_round_trip() -> None:
    tasks = frozenset({ConnectorTaskId("c-1", 0), ConnectorTaskId("c-1", 2)})
    beat = Heartbeat.parse("h:1", _beat("h:1", tasks), 5.0)
    assert beat.tasks == tasks and beat.connectors == {"c"} and beat.generation == 3 and beat.url == "http://h:1"


def test_live_within_session_timeout_on_the_readers_clock() -> None:
    m = Membership(session_timeout_ms=1000)
    m.on_record(heartbeat_key("a:1"), _beat("a:1"))
    now = time.monotonic()
    assert set(m.live(now)) == {"a:1"}
    assert m.live(now + 1.5) == {}
    assert not m.is_live("a:1", now + 1.5)


def test_tombstone_is_a_clean_leave_and_not_reserved() -> None:
    m = Membership(session_timeout_ms=1000)
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
