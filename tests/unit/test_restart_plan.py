"""Which instances a restart request restarts, and what its answer shows (``cluster/restarts.py``)."""

from __future__ import annotations

from connect_runtime.cluster.herder_api import ConnectorStateInfo, StateInfo, TaskStateInfo
from connect_runtime.cluster.restarts import RestartPlan, plan_restart, restarting
from connect_runtime.storage.status_store import ConnectorStatus, State, TaskStatus
from connect_runtime.types import ConnectorTaskId

T0, T1, OTHER = ConnectorTaskId("c", 0), ConnectorTaskId("c", 1), ConnectorTaskId("d", 0)
TASK_STATES = {T0: State.FAILED, T1: State.RUNNING, OTHER: State.FAILED}


def _task_status(task: ConnectorTaskId) -> TaskStatus:
    return TaskStatus(task, TASK_STATES[task], None, "w", 1)


def _plan(include_tasks: bool, only_failed: bool, connector_state: str = State.RUNNING) -> RestartPlan:
    return plan_restart("c", include_tasks, only_failed, ["c", "d"], [T0, T1, OTHER],
                        ConnectorStatus("c", connector_state, None, "w", 1), _task_status)


def test_only_failed_restarts_the_failed_instances_of_the_connector_only() -> None:
    assert _plan(include_tasks=True, only_failed=True) == RestartPlan(False, [T0])
    assert _plan(include_tasks=True, only_failed=True, connector_state=State.FAILED) == RestartPlan(True, [T0])


def test_without_only_failed_every_owned_instance_restarts() -> None:
    assert _plan(include_tasks=True, only_failed=False) == RestartPlan(True, [T0, T1])
    assert _plan(include_tasks=False, only_failed=False) == RestartPlan(True, [])


def test_a_connector_owned_elsewhere_is_not_restarted_here() -> None:
    restart = plan_restart("c", True, False, ["d"], [T0], None, _task_status)
    assert restart == RestartPlan(False, [T0])


def test_the_answer_shows_what_restarts_as_restarting() -> None:
    tasks = [TaskStateInfo(State.FAILED, "w", "trace", id=0), TaskStateInfo(State.RUNNING, "w", id=1)]
    info = ConnectorStateInfo("c", StateInfo(State.RUNNING, "w"), tasks, "source")
    shown = restarting(info, include_tasks=True, only_failed=True)
    assert shown.connector.state == State.RUNNING
    # A restarting task keeps the trace of its failure, as Java's answer does.
    assert [(t.id, t.state, t.trace) for t in shown.tasks] == [(0, State.RESTARTING, "trace"), (1, State.RUNNING, None)]
    failed = ConnectorStateInfo("c", StateInfo(State.FAILED, "w", "boom", version="1"), [], "source")
    assert restarting(failed, include_tasks=False, only_failed=True).connector == StateInfo(
        State.RESTARTING, "w", "boom", version="1")
