"""The placement planner: balanced, sticky, revoke-then-assign, departed workers remembered."""

from __future__ import annotations

from connect_runtime.cluster.assignment import Assignment, Departed, WorkerAssignment, plan, what_runs
from connect_runtime.types import ConnectorTaskId

TASKS = [ConnectorTaskId("c", i) for i in range(6)]


def _running(a: Assignment) -> dict[str, tuple[frozenset[str], frozenset[ConnectorTaskId]]]:
    """Heartbeats of workers that applied ``a`` completely."""
    return {w: (wa.connectors, wa.tasks) for w, wa in a.workers.items()}


def _tasks_per_worker(a: Assignment) -> dict[str, int]:
    return {w: len(wa.tasks) for w, wa in a.workers.items()}


def test_balanced_over_three_workers() -> None:
    a = plan(None, ["w1", "w2", "w3"], ["c"], TASKS, {}, "w1", "u")
    assert a.generation == 1
    assert sorted(_tasks_per_worker(a).values()) == [2, 2, 2]
    assert sum(len(wa.connectors) for wa in a.workers.values()) == 1


def test_unchanged_keeps_generation() -> None:
    a = plan(None, ["w1", "w2", "w3"], ["c"], TASKS, {}, "w1", "u")
    b = plan(a, ["w1", "w2", "w3"], ["c"], TASKS, _running(a), "w1", "u")
    assert b is a


def test_joining_worker_moves_only_what_balance_needs_revoke_then_assign() -> None:
    a = plan(None, ["w1", "w2", "w3"], ["c"], TASKS, {}, "w1", "u")
    live = ["w1", "w2", "w3", "w4"]
    # Step 1: the surplus is revoked but not yet given away (still running on its old owner).
    b = plan(a, live, ["c"], TASKS, _running(a), "w1", "u")
    assert b.generation == a.generation + 1
    assert "w4" not in b.workers or not b.workers["w4"].tasks
    revoked = set(TASKS) - {t for wa in b.workers.values() for t in wa.tasks}
    assert len(revoked) == 1  # 6 tasks over 4 workers is 2,2,1,1: one move
    # Step 2: once heartbeats show the old owners applied the revocation, w4 gets them.
    c = plan(b, live, ["c"], TASKS, _running(b), "w1", "u")
    assert c.of("w4").tasks == revoked
    moved = sum(1 for t in TASKS if a.owner_of_task(t) != c.owner_of_task(t))
    assert moved == 1
    assert sorted(_tasks_per_worker(c).values()) == [1, 1, 2, 2]


MINUTE_MS = 60_000


def test_a_lost_worker_s_items_move_at_once_and_come_back_to_it() -> None:
    # The delay is a memory, not a wait: w3's tasks run elsewhere as soon as it is seen gone, and when
    # it returns within the window it gets exactly those back; w1's and w2's own tasks never move.
    t0 = 1_000_000
    a = plan(None, ["w1", "w2", "w3"], ["c"], TASKS, {}, "w1", "u")
    lost = "w3"
    held = a.of(lost).tasks
    live = ["w1", "w2"]
    running = {w: v for w, v in _running(a).items() if w != lost}
    b = plan(a, live, ["c"], TASKS, running, "w1", "u", now_ms=t0, memory_ms=5 * MINUTE_MS)
    assert lost not in b.workers
    assert sorted(_tasks_per_worker(b).values()) == [3, 3]
    assert all(a.owner_of_task(t) == b.owner_of_task(t) for t in TASKS if t not in held)  # only w3's moved
    assert b.departed[lost].items.tasks == held and b.departed[lost].since_ms == t0
    # w3 is back 2 minutes later: the tasks it had are revoked from their temporary owners first...
    back = ["w1", "w2", "w3"]
    c = plan(b, back, ["c"], TASKS, _running(b), "w1", "u", now_ms=t0 + 2 * MINUTE_MS, memory_ms=5 * MINUTE_MS)
    assert {t for wa in c.workers.values() for t in wa.tasks} == set(TASKS) - held
    assert lost in c.departed  # still remembered while its tasks are on their way back
    # ...and once their heartbeats show them stopped, they go to w3, which has exactly what it had.
    d = plan(c, back, ["c"], TASKS, _running(c), "w1", "u", now_ms=t0 + 2 * MINUTE_MS, memory_ms=5 * MINUTE_MS)
    assert d.of(lost).tasks == held
    assert all(d.owner_of_task(t) == a.owner_of_task(t) for t in TASKS)
    assert d.departed == {}


def test_a_worker_back_after_the_window_is_a_new_worker() -> None:
    t0 = 1_000_000
    a = plan(None, ["w1", "w2", "w3"], ["c"], TASKS, {}, "w1", "u")
    running = {w: v for w, v in _running(a).items() if w != "w3"}
    b = plan(a, ["w1", "w2"], ["c"], TASKS, running, "w1", "u", now_ms=t0, memory_ms=MINUTE_MS)
    c = plan(b, ["w1", "w2", "w3"], ["c"], TASKS, _running(b), "w1", "u", now_ms=t0 + 2 * MINUTE_MS,
             memory_ms=MINUTE_MS)
    assert c.departed == {}
    # Balance still moves only the surplus (one task from each of w1 and w2), but any of theirs.
    d = plan(c, ["w1", "w2", "w3"], ["c"], TASKS, _running(c), "w1", "u", now_ms=t0 + 2 * MINUTE_MS,
             memory_ms=MINUTE_MS)
    assert sorted(_tasks_per_worker(d).values()) == [2, 2, 2]
    assert sum(1 for t in TASKS if b.owner_of_task(t) != d.owner_of_task(t)) == 2


def test_without_memory_nothing_is_remembered() -> None:
    a = plan(None, ["w1", "w2", "w3"], ["c"], TASKS, {}, "w1", "u")
    running = {w: v for w, v in _running(a).items() if w != "w3"}
    b = plan(a, ["w1", "w2"], ["c"], TASKS, running, "w1", "u", now_ms=1, memory_ms=0)
    assert b.departed == {} and sorted(_tasks_per_worker(b).values()) == [3, 3]


def test_a_leaving_worker_s_items_move_as_each_stops() -> None:
    # w3 announced it is leaving: it is not live, but a task it still runs goes elsewhere only once its
    # heartbeat no longer lists it (its final commit is made), never while it may still commit.
    a = plan(None, ["w1", "w2", "w3"], ["c"], TASKS, {}, "w1", "u")
    held = sorted(a.of("w3").tasks)
    assert len(held) == 2
    running = dict(_running(a))
    running["w3"] = (frozenset(), frozenset(held[1:]))  # the first has stopped, the second not yet
    b = plan(a, ["w1", "w2"], ["c"], TASKS, running, "w1", "u", now_ms=1, memory_ms=MINUTE_MS)
    assert b.owner_of_task(held[0]) in {"w1", "w2"}
    assert b.owner_of_task(held[1]) is None
    running = dict(_running(b))
    running["w3"] = (frozenset(), frozenset())
    c = plan(b, ["w1", "w2"], ["c"], TASKS, running, "w1", "u", now_ms=2, memory_ms=MINUTE_MS)
    assert c.owner_of_task(held[1]) in {"w1", "w2"}
    assert sorted(_tasks_per_worker(c).values()) == [3, 3]
    assert c.departed["w3"].items.tasks == frozenset(held)


def _w(*tasks: int) -> WorkerAssignment:
    return WorkerAssignment(frozenset(), frozenset(ConnectorTaskId("c", i) for i in tasks))


FOUR = [ConnectorTaskId("c", i) for i in range(4)]


def test_an_item_two_workers_run_waits_for_both() -> None:
    # x was wrongly declared dead (paused past the session timeout): a took c2 and c3 and runs them, and
    # x's first heartbeat back still lists them. Neither may get them until the other has let go.
    a1 = Assignment(6, "a", "u", {"a": _w(0, 1, 2, 3)}, {"x": Departed(1000, _w(2, 3))})
    running = {"a": (frozenset[str](), frozenset(FOUR)), "x": (frozenset[str](), frozenset(FOUR[2:]))}
    b = plan(a1, ["a", "x"], [], FOUR, running, "a", "u", now_ms=1500, memory_ms=MINUTE_MS)
    assert b.of("a").tasks == frozenset(FOUR[:2])
    assert b.owner_of_task(FOUR[2]) is None and b.owner_of_task(FOUR[3]) is None
    running = {"a": (frozenset[str](), frozenset(FOUR[:2])), "x": (frozenset[str](), frozenset[ConnectorTaskId]())}
    c = plan(b, ["a", "x"], [], FOUR, running, "a", "u", now_ms=1600, memory_ms=MINUTE_MS)
    assert c.of("x").tasks == frozenset(FOUR[2:])


def test_a_heartbeat_older_than_the_assignment_counts_what_it_was_given() -> None:
    # a was given c2 and c3 (generation 6) but its heartbeat is still generation 5's: a plan that takes
    # them from it must wait for a to say they stopped, not hand them on as if nobody ran them.
    a1 = Assignment(6, "a", "u", {"a": _w(0, 1, 2, 3)}, {"x": Departed(1000, _w(2, 3))})
    nothing: frozenset[str] = frozenset()
    reported = {"a": (5, nothing, frozenset(FOUR[:2])), "x": (0, nothing, frozenset[ConnectorTaskId]())}
    running = what_runs(reported, a1)
    assert running["a"][1] == frozenset(FOUR)
    b = plan(a1, ["a", "x"], [], FOUR, running, "a", "u", now_ms=1500, memory_ms=MINUTE_MS)
    assert b.owner_of_task(FOUR[2]) is None and b.owner_of_task(FOUR[3]) is None
    # Up to date, it reports only what it runs.
    assert what_runs({"a": (6, frozenset[str](), frozenset(FOUR[:2]))}, a1)["a"][1] == frozenset(FOUR[:2])


def test_the_busiest_worker_by_its_own_items_keeps_the_extra_one() -> None:
    # a={c0}, b={c1,c2}, w={c3}; w dies and a takes c3. When w is back, c3 goes home and b keeps its two
    # (by totals alone a and b tie, and a, first by name, would keep c3 and b lose its own c2).
    a0 = Assignment(3, "a", "u", {"a": _w(0), "b": _w(1, 2), "w": _w(3)})
    running = {w: (frozenset[str](), a0.of(w).tasks) for w in ("a", "b")}
    a1 = plan(a0, ["a", "b"], [], FOUR, running, "a", "u", now_ms=1000, memory_ms=MINUTE_MS)
    assert a1.of("a").tasks == frozenset({FOUR[0], FOUR[3]})
    back = ["a", "b", "w"]
    a2 = plan(a1, back, [], FOUR, _running(a1), "a", "u", now_ms=2000, memory_ms=MINUTE_MS)
    a3 = plan(a2, back, [], FOUR, _running(a2), "a", "u", now_ms=2000, memory_ms=MINUTE_MS)
    assert {w: a3.of(w).tasks for w in back} == {w: a0.of(w).tasks for w in back}


def test_a_worker_gone_again_is_remembered_from_its_latest_departure() -> None:
    a0 = Assignment(3, "a", "u", {"a": _w(0, 1)}, {"w": Departed(1000, _w(2, 3))})
    # w came back and got c0 only (say), then left again at 50_000: both c0 and c2, c3 are its, from then.
    a1 = Assignment(4, "a", "u", {"a": _w(1, 2, 3), "w": _w(0)}, a0.departed)
    running = {"a": (frozenset[str](), a1.of("a").tasks)}
    b = plan(a1, ["a"], [], FOUR, running, "a", "u", now_ms=50_000, memory_ms=MINUTE_MS)
    assert b.departed["w"] == Departed(50_000, _w(0, 2, 3))


def test_deleted_and_new_items() -> None:
    a = plan(None, ["w1", "w2"], ["c"], TASKS, {}, "w1", "u")
    fewer = TASKS[:1]
    b = plan(a, ["w1", "w2"], ["c", "d"], fewer, _running(a), "w1", "u")
    assert {t for wa in b.workers.values() for t in wa.tasks} == set(fewer)
    assert {c for wa in b.workers.values() for c in wa.connectors} == {"c", "d"}


def test_json_round_trip() -> None:
    a = Assignment(7, "w1", "http://w1", {"w1": WorkerAssignment(frozenset({"c"}),
                                                                 frozenset({ConnectorTaskId("c-x", 3)}))})
    assert Assignment.parse(a.to_bytes()) == a
    assert b"departed" not in a.to_bytes()
    gone = Departed(123, WorkerAssignment(frozenset({"d"}), frozenset({ConnectorTaskId("d", 0)})))
    b = Assignment(8, "w1", "http://w1", a.workers, {"w2": gone})
    assert Assignment.parse(b.to_bytes()) == b
