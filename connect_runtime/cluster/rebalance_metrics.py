"""Java's rebalance and group-member metrics, for our protocol's rebalances.

Java's worker rebalances when the group protocol hands it a new assignment: its ``rebalancing`` is 1 and
its rebalance time runs from ``onAssigned`` to ``startWork``, and nothing else counts, neither the
time spent rejoining a group nor a worker out of its group. Ours learns its share from the
``assignment`` record the current leader writes, so a **rebalance** here is a new assignment
generation of the current leader, from the tick that sees it to the tick that has applied it
(revocations begun, starts under way, as Java's ``startWork`` leaves them): usually one tick. Waiting
for a leader (one died or left), for a first assignment, or for contact with the cluster again is
what Java's join is, and is no rebalance either. A worker that starts finds the assignment the
cluster decided without it: applying it is its join (a rebalance) only if it gives it something to
run; otherwise its join is the leader's next generation.

``connect-worker-rebalance-metrics`` says whether it is rebalancing, how long rebalances took and how
many completed; ``connect-coordinator-metrics`` (tag ``client-id``) what the applied assignment gives
this worker. The herder calls :meth:`RebalanceMetrics.started` and :meth:`RebalanceMetrics.completed`
on its thread; exporters read from theirs.
"""

from __future__ import annotations

import math
import threading

from connect_runtime.cluster.assignment import WorkerAssignment
from connect_runtime.metrics.connect_metrics import ConnectMetrics
from connect_runtime.metrics.registry import COORDINATOR_GROUP, WORKER_REBALANCE_GROUP
from connect_runtime.metrics.stats import Avg, CumulativeSum, Max

#: Java's ``ConnectProtocolCompatibility`` name of the protocol with signed internal requests (KIP-507),
#: the only one this runtime speaks. Upper case, as Java's enum name is.
CONNECT_PROTOCOL = "SESSIONED"


def coordinator_client_id(client_id: str | None, worker_id: str) -> str:
    """The group member's ``client-id`` tag, as Java names it: the worker's ``client.id`` if set, else
    ``connect-<worker id>`` (``connect-<advertised host>:<port>``)."""
    given = (client_id or "").strip()
    return given or f"connect-{worker_id}"


def java_leader_url(url: str) -> str:
    """A leader URL as Java shows it (a ``URI`` with the root path: ``http://host:8083/``)."""
    return url if url.endswith("/") else url + "/"


class RebalanceMetrics:
    """The rebalances of one worker, and the share of the assignment it applied."""

    def __init__(self, metrics: ConnectMetrics, client_id: str) -> None:
        self._clock = metrics.clock
        self._lock = threading.Lock()
        self._started_at_ms: int | None = None
        self._rebalancing_to: int | None = None
        self._completed_at_ms: int | None = None
        self._generation = 0
        self._leader_url: str | None = None
        self._share = WorkerAssignment()
        group = metrics.group(WORKER_REBALANCE_GROUP)
        group.gauge("connect-protocol", lambda: CONNECT_PROTOCOL)
        group.gauge("leader-name", lambda: self._leader_url)  # left out until an assignment names one
        group.gauge("epoch", lambda: float(self._generation))
        self._completions = group.sensor({"completed-rebalances-total": CumulativeSum()})
        group.gauge("rebalancing", lambda: 1.0 if self._started_at_ms is not None else 0.0)
        self._durations = group.sensor({"rebalance-max-time-ms": Max(metrics.config),
                                        "rebalance-avg-time-ms": Avg(metrics.config)})
        group.gauge("time-since-last-rebalance-ms", self._time_since_last)
        coordinator = metrics.group(COORDINATOR_GROUP, (("client-id", client_id),))
        coordinator.gauge("assigned-connectors", lambda: float(len(self._share.connectors)))
        coordinator.gauge("assigned-tasks", lambda: float(len(self._share.tasks)))
        self._groups = (group, coordinator)

    def started(self, generation: int) -> None:
        """The current leader's assignment ``generation`` is new here: a rebalance to it starts (Java's
        ``onAssigned``). One to the same generation under way goes on (applying it is being retried)."""
        with self._lock:
            if self._started_at_ms is None or self._rebalancing_to != generation:
                self._started_at_ms = self._clock()
                self._rebalancing_to = generation

    def completed(self, generation: int, leader_url: str, share: WorkerAssignment) -> None:
        """This worker applied ``share`` of the current leader's assignment ``generation``: a rebalance
        under way completes."""
        with self._lock:
            self._generation = generation
            self._leader_url = java_leader_url(leader_url) if leader_url else None
            self._share = share
            started, self._started_at_ms, self._rebalancing_to = self._started_at_ms, None, None
            if started is None:
                return
            now_ms = self._clock()
            self._completed_at_ms = now_ms
        self._completions.record(1.0, now_ms)
        self._durations.record(float(max(0, now_ms - started)), now_ms)

    def _time_since_last(self) -> float:
        completed = self._completed_at_ms
        return math.inf if completed is None else float(self._clock() - completed)

    def close(self) -> None:
        for group in self._groups:
            group.close()
