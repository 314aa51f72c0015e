"""The placement planner: balanced, sticky, revoke-then-assign, KIP-415 reservations."""

from __future__ import annotations

from connect_runtime.cluster.assignment import Assignment, WorkerAssignment, plan
from connect_runtime.types import ConnectorTaskId

TASKS = [ConnectorTaskId("c", i) for i in range(6)]


def _running(a: Assignment) -> dict[str, tuple[frozenset[str], frozenset[ConnectorTaskId]]]:
    """Heartbeats of workers that applied ``a`` completely."""
    return {w: (wa.connectors, wa.tasks) for w, wa in a.workers.items()}


def _tasks_per_worker(a: Assignment) -> dict[str, int]:
    return {w: len(wa.tasks) for w, wa in a.workers.items()}


def test_balanced_over_three_workers() -> None:
    a = plan(None, ["w1", "w2", "w3"], [], ["c"], TASKS, {}, "w1", "u")
    assert a.generation == 1
    assert sorted(_tasks_per_worker(a).values()) == [2, 2, 2]
    assert sum(len(wa.connectors) for wa in a.workers.values()) == 1


def test_unchanged_keeps_generation() -> None:
    a = plan(None, ["w1", "w2", "w3"], [], ["c"], TASKS, {}, "w1", "u")
    b = plan(a, ["w1", "w2", "w3"], [], ["c"], TASKS, _running(a), "w1", "u")
    assert b is a


def test_joining_worker_moves_only_what_balance_needs_revoke_then_assign() -> None:
    a = plan(None, ["w1", "w2", "w3"], [], ["c"], TASKS, {}, "w1", "u")
    live = ["w1", "w2", "w3", "w4"]
    # Step 1: the surplus is revoked but not yet given away (still running on its old owner).
    b = plan(a, live, [], ["c"], TASKS, _running(a), "w1", "u")
    assert b.generation == a.generation + 1
    assert "w4" not in b.workers or not b.workers["w4"].tasks
    revoked = set(TASKS) - {t for wa in b.workers.values() for t in wa.tasks}
    assert len(revoked) == 1  # 6 tasks over 4 workers is 2,2,1,1: one move
    # Step 2: once heartbeats show the old owners applied the revocation, w4 gets them.
    c = plan(b, live, [], ["c"], TASKS, _running(b), "w1", "u")
    assert c.of("w4").tasks == revoked
    moved = sum(1 for t in TASKS if a.owner_of_task(t) != c.owner_of_task(t))
    assert moved == 1
    assert sorted(_tasks_per_worker(c).values()) == [1, 1, 2, 2]


def test_lost_worker_reserved_then_reassigned() -> None:
    a = plan(None, ["w1", "w2", "w3"], [], ["c"], TASKS, {}, "w1", "u")
    lost = "w3"
    held = a.of(lost).tasks
    live = ["w1", "w2"]
    running = {w: v for w, v in _running(a).items() if w != lost}
    b = plan(a, live, [lost], ["c"], TASKS, running, "w1", "u")
    assert b.of(lost).tasks == held  # kept for the scheduled rebalance delay
    c = plan(b, live, [], ["c"], TASKS, running, "w1", "u")
    assert lost not in c.workers
    assert sorted(_tasks_per_worker(c).values()) == [3, 3]
    assert all(c.owner_of_task(t) in live for t in TASKS)


def test_deleted_and_new_items() -> None:
    a = plan(None, ["w1", "w2"], [], ["c"], TASKS, {}, "w1", "u")
    fewer = TASKS[:1]
    b = plan(a, ["w1", "w2"], [], ["c", "d"], fewer, _running(a), "w1", "u")
    assert {t for wa in b.workers.values() for t in wa.tasks} == set(fewer)
    assert {c for wa in b.workers.values() for c in wa.connectors} == {"c", "d"}


def test_json_round_trip() -> None:
    a = Assignment(7, "w1", "http://w1", {"w1": WorkerAssignment(frozenset({"c"}),
                                                                 frozenset({ConnectorTaskId("c-x", 3)}))})
    assert Assignment.parse(a.to_bytes()) == a
