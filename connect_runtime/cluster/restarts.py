"""Restarts (KIP-745): which instances a restart request restarts, and the statuses its answer shows,
as Java's ``RestartRequest`` and ``RestartPlan``. Pure: the herder stops what the plan names on its
thread, and its next apply of the assignment starts them again."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from connect_runtime.cluster.assignment import Assignment
from connect_runtime.cluster.herder_api import ConnectorStateInfo, StateInfo, TaskStateInfo
from connect_runtime.cluster.membership import Membership
from connect_runtime.storage.status_store import ConnectorStatus, State, TaskStatus
from connect_runtime.types import ConnectorTaskId


@dataclass(frozen=True, slots=True)
class RestartPlan:
    """What one restart request restarts on this worker."""

    connector: bool
    tasks: list[ConnectorTaskId]


def plan_restart(name: str, include_tasks: bool, only_failed: bool, owned_connectors: Iterable[str],
                 owned_tasks: Iterable[ConnectorTaskId], connector_status: ConnectorStatus | None,
                 task_status: Callable[[ConnectorTaskId], TaskStatus | None]) -> RestartPlan:
    """``name``'s instances among those this worker owns that the request restarts (``only_failed``: the
    FAILED ones)."""
    connector_failed = connector_status is not None and connector_status.state == State.FAILED
    connector = name in owned_connectors and (not only_failed or connector_failed)
    tasks: list[ConnectorTaskId] = []
    if include_tasks:
        for t in owned_tasks:
            if t.connector != name:
                continue
            status = task_status(t)
            if not only_failed or (status is not None and status.state == State.FAILED):
                tasks.append(t)
    return RestartPlan(connector, tasks)


def restarting(info: ConnectorStateInfo, include_tasks: bool, only_failed: bool) -> ConnectorStateInfo:
    """The answer to a restart request: ``info`` with what it restarts shown RESTARTING, each keeping
    its trace and version (Java's ``buildRestartPlan`` copies them from the status)."""
    if not only_failed or info.connector.state == State.FAILED:
        info.connector = StateInfo(State.RESTARTING, info.connector.worker_id, info.connector.trace,
                                   version=info.connector.version)
    if include_tasks:
        info.tasks = [TaskStateInfo(State.RESTARTING, t.worker_id, t.trace, t.id, version=t.version)
                      if not only_failed or t.state == State.FAILED else t for t in info.tasks]
    return info


def owner_url(assignment: Assignment | None, membership: Membership, item: str | ConnectorTaskId) -> str | None:
    """The URL of the worker ``assignment`` gives ``item`` to, for a 409 that names it."""
    if assignment is None:
        return None
    owner = (assignment.owner_of_task(item) if isinstance(item, ConnectorTaskId)
             else assignment.owner_of_connector(item))
    if owner is None:
        return None
    beat = membership.heartbeat(owner)
    return beat.url if beat is not None else None
