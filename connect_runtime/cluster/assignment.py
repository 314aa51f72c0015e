"""Placement of connectors and tasks over live workers: balanced, sticky, revoke-then-assign.

Pure logic (no I/O): the leader calls :func:`plan` with what it knows and writes the result to the
config topic when it differs from the current assignment.

Rules:
- Connectors and tasks are balanced separately, each to within one item per worker.
- Sticky: an item stays where it is unless its worker is gone or holds more than its fair share.
- Revoke-then-assign: an item taken from a live worker is first left unassigned; it is given to its
  new owner only once no live worker reports it running any more (the old owner's heartbeat shows
  it stopped). So two live instances of a task never run at once by design.
- A worker that stopped heartbeating keeps its items reserved for ``scheduled.rebalance.max.delay.ms``
  (KIP-415), so a quick restart gets them back without churn; 0 reassigns them at once.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from connect_runtime.types import ConnectorTaskId


@dataclass(frozen=True)
class WorkerAssignment:
    """What one worker should run."""

    connectors: frozenset[str] = frozenset()
    tasks: frozenset[ConnectorTaskId] = frozenset()

    def to_json(self) -> dict[str, list[Any]]:
        return {"connectors": sorted(self.connectors),
                "tasks": [[t.connector, t.task] for t in sorted(self.tasks)]}

    @staticmethod
    def from_json(data: Mapping[str, object]) -> WorkerAssignment:
        connectors = data.get("connectors") or []
        tasks = data.get("tasks") or []
        assert isinstance(connectors, list) and isinstance(tasks, list)
        return WorkerAssignment(frozenset(str(c) for c in connectors),
                                frozenset(ConnectorTaskId(str(t[0]), int(t[1])) for t in tasks))


@dataclass(frozen=True)
class Assignment:
    """The cluster-wide placement at one generation, written by the leader."""

    generation: int
    leader: str
    leader_url: str
    workers: Mapping[str, WorkerAssignment] = field(default_factory=dict)

    def of(self, worker: str) -> WorkerAssignment:
        return self.workers.get(worker, WorkerAssignment())

    def owner_of_connector(self, connector: str) -> str | None:
        return next((w for w, a in self.workers.items() if connector in a.connectors), None)

    def owner_of_task(self, task: ConnectorTaskId) -> str | None:
        return next((w for w, a in self.workers.items() if task in a.tasks), None)

    def same_placement(self, other: Assignment | None) -> bool:
        if other is None:
            return False
        mine = {w: a for w, a in self.workers.items() if a.connectors or a.tasks}
        theirs = {w: a for w, a in other.workers.items() if a.connectors or a.tasks}
        return mine == theirs

    def to_bytes(self) -> bytes:
        return json.dumps({"generation": self.generation, "leader": self.leader, "leader_url": self.leader_url,
                           "workers": {w: a.to_json() for w, a in sorted(self.workers.items())}},
                          separators=(",", ":")).encode()

    @staticmethod
    def parse(data: bytes) -> Assignment:
        v = json.loads(data)
        return Assignment(int(v["generation"]), str(v["leader"]), str(v.get("leader_url", "")),
                          {str(w): WorkerAssignment.from_json(a) for w, a in v.get("workers", {}).items()})


def _balance(
    items: Iterable[str | ConnectorTaskId],
    current: Mapping[str, set[str | ConnectorTaskId]],
    live: list[str],
    reserved: Mapping[str, set[str | ConnectorTaskId]],
    running_elsewhere: Mapping[str | ConnectorTaskId, set[str]],
) -> dict[str, set[str | ConnectorTaskId]]:
    """Place ``items`` over ``live`` workers; returns worker -> items (reserved workers keep theirs)."""
    all_items = list(items)
    held_reserved = {i for s in reserved.values() for i in s}
    placeable = [i for i in all_items if i not in held_reserved]
    n = len(live)
    result: dict[str, set[str | ConnectorTaskId]] = {w: set() for w in live}
    for w, s in reserved.items():
        result[w] = set(s)
    if n == 0:
        return result
    base, extra = divmod(len(placeable), n)
    # Sticky start: what each live worker already has (of items that still exist).
    valid = set(placeable)
    for w in live:
        result[w] = {i for i in current.get(w, set()) if i in valid}
    # Who may keep base+1: the workers already holding the most, in a stable order.
    order = sorted(live, key=lambda w: (-len(result[w]), w))
    cap = {w: base + (1 if idx < extra else 0) for idx, w in enumerate(order)}
    for w in live:
        if len(result[w]) > cap[w]:
            keep = sorted(result[w], key=_sort_key)[: cap[w]]
            result[w] = set(keep)
    placed = {i for w in live for i in result[w]}
    for item in sorted((i for i in placeable if i not in placed), key=_sort_key):
        runners = running_elsewhere.get(item, set())
        # Revoke-then-assign: wait until no live worker runs it, unless it may go back to its runner.
        candidates = [w for w in live if len(result[w]) < cap[w]]
        if runners:
            back = [w for w in candidates if w in runners]
            if not back:
                continue
            target = back[0]
        else:
            if not candidates:
                continue
            target = min(candidates, key=lambda w: (len(result[w]), w))
        result[target].add(item)
    return result


def _sort_key(item: str | ConnectorTaskId) -> tuple[str, int]:
    if isinstance(item, ConnectorTaskId):
        return (item.connector, item.task)
    return (item, -1)


def plan(
    previous: Assignment | None,
    live_workers: Collection[str],
    lost_workers_reserved: Collection[str],
    connectors: Collection[str],
    tasks: Collection[ConnectorTaskId],
    running: Mapping[str, tuple[Collection[str], Collection[ConnectorTaskId]]],
    leader: str,
    leader_url: str,
) -> Assignment:
    """Compute the next assignment.

    ``running`` maps each *live* worker to the connectors and tasks its latest heartbeat says it runs.
    ``lost_workers_reserved`` are workers that stopped heartbeating less than the scheduled rebalance
    delay ago: their previous items stay with them, unassigned elsewhere. The result has the previous
    generation when the placement did not change, else generation + 1.
    """
    live = sorted(set(live_workers))
    prev_workers = previous.workers if previous is not None else {}
    connector_set, task_set = set(connectors), set(tasks)
    reserved_c = {w: {c for c in prev_workers[w].connectors if c in connector_set}
                  for w in lost_workers_reserved if w in prev_workers and w not in live}
    reserved_t = {w: {t for t in prev_workers[w].tasks if t in task_set}
                  for w in lost_workers_reserved if w in prev_workers and w not in live}
    current_c = {w: set(prev_workers[w].connectors) for w in live if w in prev_workers}
    current_t = {w: set(prev_workers[w].tasks) for w in live if w in prev_workers}
    run_c: dict[str | ConnectorTaskId, set[str]] = {}
    run_t: dict[str | ConnectorTaskId, set[str]] = {}
    for w, (cs, ts) in running.items():
        if w not in live:
            continue
        for c in cs:
            run_c.setdefault(c, set()).add(w)
        for t in ts:
            run_t.setdefault(t, set()).add(w)
    # An item counts as "running elsewhere" only on workers that are not assigned it now.
    placed_c = _balance(sorted(connector_set), current_c, live, reserved_c, run_c)  # type: ignore[arg-type]
    placed_t = _balance(sorted(task_set), current_t, live, reserved_t, run_t)  # type: ignore[arg-type]
    workers: dict[str, WorkerAssignment] = {}
    for w in sorted(set(placed_c) | set(placed_t)):
        cs = frozenset(str(c) for c in placed_c.get(w, set()))
        ts = frozenset(t for t in placed_t.get(w, set()) if isinstance(t, ConnectorTaskId))
        if cs or ts:
            workers[w] = WorkerAssignment(cs, ts)
    generation = previous.generation if previous is not None else 0
    candidate = Assignment(generation, leader, leader_url, workers)
    if previous is not None and candidate.same_placement(previous) and previous.leader == leader:
        return previous
    return Assignment(generation + 1, leader, leader_url, workers)
