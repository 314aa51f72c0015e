"""Placement of connectors and tasks over live workers: balanced, sticky, revoke-then-assign.

Pure logic (no I/O): the leader calls :func:`plan` with what it knows and writes the result to the
config topic when it differs from the current assignment.

Rules:
- Connectors and tasks are balanced separately, each to within one item per worker.
- Sticky: an item stays where it is unless its worker is gone or holds more than its fair share.
- Revoke-then-assign: an item taken from a live worker is first left unassigned; it is given to its
  new owner only once no live worker reports it running any more (the old owner's heartbeat shows
  it stopped). So two live instances of a task never run at once by design.
- A worker that stopped heartbeating, or announced that it is leaving, loses its items at once: the
  live workers take them over (a leaving worker's as soon as its heartbeat shows each one stopped).
- The leader remembers what a departed worker had for ``scheduled.rebalance.max.delay.ms``
  (:class:`Departed`, kept in the assignment record so a new leader knows it too). When a worker comes
  back within that window, the items that move to restore balance are the ones it had: the others'
  own items stay where they are, and nothing moves that balance does not need. After the
  window it is a new worker, and balance takes the surplus of the busiest workers. This is where we
  differ from KIP-415, which keeps a departed worker's items *unassigned* for the whole window.
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
class Departed:
    """What a worker ran when the leader saw it go, and when (the leader's wall clock, ms)."""

    since_ms: int
    items: WorkerAssignment

    def to_json(self) -> dict[str, Any]:
        return {"since": self.since_ms, **self.items.to_json()}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Departed:
        return Departed(int(data["since"]), WorkerAssignment.from_json(data))


@dataclass(frozen=True)
class Assignment:
    """The cluster-wide placement at one generation, written by the leader."""

    generation: int
    leader: str
    leader_url: str
    workers: Mapping[str, WorkerAssignment] = field(default_factory=dict)
    #: Workers that left within ``scheduled.rebalance.max.delay.ms``: what they had, for their return.
    departed: Mapping[str, Departed] = field(default_factory=dict)

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
        v: dict[str, Any] = {"generation": self.generation, "leader": self.leader, "leader_url": self.leader_url,
                             "workers": {w: a.to_json() for w, a in sorted(self.workers.items())}}
        if self.departed:
            v["departed"] = {w: d.to_json() for w, d in sorted(self.departed.items())}
        return json.dumps(v, separators=(",", ":")).encode()

    @staticmethod
    def parse(data: bytes) -> Assignment:
        v = json.loads(data)
        return Assignment(int(v["generation"]), str(v["leader"]), str(v.get("leader_url", "")),
                          {str(w): WorkerAssignment.from_json(a) for w, a in v.get("workers", {}).items()},
                          {str(w): Departed.from_json(d) for w, d in v.get("departed", {}).items()})


def _balance(
    items: Iterable[str | ConnectorTaskId],
    current: Mapping[str, set[str | ConnectorTaskId]],
    live: list[str],
    running_elsewhere: Mapping[str | ConnectorTaskId, set[str]],
    homes: Mapping[str | ConnectorTaskId, str],
) -> dict[str, set[str | ConnectorTaskId]]:
    """Place ``items`` over ``live`` workers; returns worker -> items. ``homes`` maps an item to the
    returning worker that had it when it departed."""
    placeable = list(items)
    n = len(live)
    result: dict[str, set[str | ConnectorTaskId]] = {w: set() for w in live}
    if n == 0:
        return result
    base, extra = divmod(len(placeable), n)
    # Sticky start: what each live worker already has (of items that still exist).
    valid = set(placeable)
    for w in live:
        result[w] = {i for i in current.get(w, set()) if i in valid}
    # Who may keep base+1: the workers already holding the most of their own (items no returning worker
    # had), then the most in all, in a stable order: a returning worker's items are the ones that move.
    own = {w: sum(1 for i in result[w] if homes.get(i, w) == w) for w in live}
    order = sorted(live, key=lambda w: (-own[w], -len(result[w]), w))
    cap = {w: base + (1 if idx < extra else 0) for idx, w in enumerate(order)}
    for w in live:
        if len(result[w]) > cap[w]:
            # A worker over its share keeps its own items: those a returning worker had are the ones to go.
            mine = [i for i in result[w] if homes.get(i, w) == w]
            others = [i for i in result[w] if homes.get(i, w) != w]
            keep = (sorted(mine, key=_sort_key) + sorted(others, key=_sort_key))[: cap[w]]
            result[w] = set(keep)
    placed = {i for w in live for i in result[w]}
    # Items going home first, so that their home still has room for them.
    for item in sorted((i for i in placeable if i not in placed), key=lambda i: (i not in homes, _sort_key(i))):
        runners = running_elsewhere.get(item, set())
        # Revoke-then-assign: wait until no worker runs it, unless its one runner may take it back (two
        # runners, e.g. a worker wrongly declared dead and its successor, must both let it go first).
        candidates = [w for w in live if len(result[w]) < cap[w]]
        if runners:
            if len(runners) != 1 or next(iter(runners)) not in candidates:
                continue
            target = next(iter(runners))
        else:
            if not candidates:
                continue
            home = homes.get(item)
            target = home if home in candidates else min(candidates, key=lambda w: (len(result[w]), w))
        result[target].add(item)
    return result


def _sort_key(item: str | ConnectorTaskId) -> tuple[str, int]:
    if isinstance(item, ConnectorTaskId):
        return (item.connector, item.task)
    return (item, -1)


def what_runs(
    reported: Mapping[str, tuple[int, Collection[str], Collection[ConnectorTaskId]]],
    previous: Assignment | None,
) -> dict[str, tuple[frozenset[str], frozenset[ConnectorTaskId]]]:
    """What each worker runs or may be starting, for :func:`plan`'s ``running``: from its latest
    heartbeat (the assignment generation it applied, its connectors, its tasks), plus what ``previous``
    gave it when that heartbeat predates ``previous`` (it may be starting those already)."""
    out: dict[str, tuple[frozenset[str], frozenset[ConnectorTaskId]]] = {}
    for w, (generation, cs, ts) in reported.items():
        connectors, tasks = frozenset(cs), frozenset(ts)
        if previous is not None and generation < previous.generation:
            given = previous.of(w)
            connectors, tasks = connectors | given.connectors, tasks | given.tasks
        out[w] = (connectors, tasks)
    return out


def plan(
    previous: Assignment | None,
    live_workers: Collection[str],
    connectors: Collection[str],
    tasks: Collection[ConnectorTaskId],
    running: Mapping[str, tuple[Collection[str], Collection[ConnectorTaskId]]],
    leader: str,
    leader_url: str,
    *,
    now_ms: int = 0,
    memory_ms: int = 0,
) -> Assignment:
    """Compute the next assignment.

    ``running`` maps workers to the connectors and tasks their latest heartbeat says they run: the live
    ones, and those leaving (not live, but their items must stop before they move). ``memory_ms`` is
    ``scheduled.rebalance.max.delay.ms``: how long a departed worker's items are remembered for its
    return (``now_ms`` is the leader's wall clock). The result has the previous generation when the
    placement did not change, else generation + 1.
    """
    live = sorted(set(live_workers))
    prev_workers = previous.workers if previous is not None else {}
    connector_set, task_set = set(connectors), set(tasks)
    departed = {w: d for w, d in (previous.departed if previous is not None else {}).items()
                if memory_ms > 0 and now_ms - d.since_ms <= memory_ms}
    if memory_ms > 0:
        for w, had in prev_workers.items():
            if w not in live and (had.connectors or had.tasks):
                # Gone again before it had all of its items back: remember both, from now.
                before = departed.get(w, Departed(now_ms, WorkerAssignment()))
                departed[w] = Departed(now_ms, WorkerAssignment(had.connectors | before.items.connectors,
                                                                had.tasks | before.items.tasks))
    homes_c: dict[str | ConnectorTaskId, str] = {}
    homes_t: dict[str | ConnectorTaskId, str] = {}
    # The latest departure wins an item two returning workers both had.
    for w, d in sorted(departed.items(), key=lambda kv: kv[1].since_ms):
        if w in live:
            homes_c.update((c, w) for c in d.items.connectors if c in connector_set)
            homes_t.update((t, w) for t in d.items.tasks if t in task_set)
    current_c = {w: set(prev_workers[w].connectors) for w in live if w in prev_workers}
    current_t = {w: set(prev_workers[w].tasks) for w in live if w in prev_workers}
    run_c: dict[str | ConnectorTaskId, set[str]] = {}
    run_t: dict[str | ConnectorTaskId, set[str]] = {}
    for w, (cs, ts) in running.items():
        for c in cs:
            run_c.setdefault(c, set()).add(w)
        for t in ts:
            run_t.setdefault(t, set()).add(w)
    placed_c = _balance(sorted(connector_set), current_c, live, run_c, homes_c)  # type: ignore[arg-type]
    placed_t = _balance(sorted(task_set), current_t, live, run_t, homes_t)  # type: ignore[arg-type]
    workers: dict[str, WorkerAssignment] = {}
    for w in sorted(set(placed_c) | set(placed_t)):
        cs = frozenset(str(c) for c in placed_c.get(w, set()))
        ts = frozenset(t for t in placed_t.get(w, set()) if isinstance(t, ConnectorTaskId))
        if cs or ts:
            workers[w] = WorkerAssignment(cs, ts)
    # A returning worker's memory ends once it has its items back, or once nothing waits to be placed.
    settled = ({c for a in workers.values() for c in a.connectors} == connector_set
               and {t for a in workers.values() for t in a.tasks} == task_set)
    for w in [w for w in departed if w in live]:
        mine = workers.get(w, WorkerAssignment())
        home = departed[w].items
        if settled or ({c for c in home.connectors if c in connector_set} <= mine.connectors
                       and {t for t in home.tasks if t in task_set} <= mine.tasks):
            del departed[w]
    generation = previous.generation if previous is not None else 0
    candidate = Assignment(generation, leader, leader_url, workers, departed)
    if previous is not None and candidate.same_placement(previous) and previous.leader == leader:
        return previous
    return Assignment(generation + 1, leader, leader_url, workers, departed)
