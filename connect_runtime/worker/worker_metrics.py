"""What the worker records about the connectors and tasks it runs, as Java's worker records it.

Three of Java's metric groups, each with the lifecycle Java gives it:
- ``connect-worker-metrics`` without tags (Java's ``WorkerMetricsGroup``): how many connectors and tasks
  run here, and how their start-ups went. A start-up succeeds when a connector first starts (not when
  it resumes) or a task first reports RUNNING; it fails when the instance fails before that. Each
  instance counts once.
- ``connect-worker-metrics`` per ``connector`` (Java's ``ConnectorStatusMetricsGroup``): its tasks on
  this worker, by the state the status topic shows for them. Open from the moment the first task of the
  connector is created here until the last one is gone (stopped, or failed to be built), so a worker
  holding none of a connector's tasks shows no series for it.
- ``connector-metrics`` (Java's ``ConnectorMetricsGroup``): one per connector instance this worker runs,
  from its instantiation until it is shut down here; its status is the instance's own state.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from connect_runtime.api.connector import Connector, SourceConnector
from connect_runtime.metrics.connect_metrics import ConnectMetrics, MetricGroup
from connect_runtime.metrics.registry import CONNECTOR_GROUP, WORKER_GROUP
from connect_runtime.metrics.stats import CumulativeSum, Outcomes, Sensor
from connect_runtime.types import ConnectorTaskId
from connect_runtime.worker.task_status import TaskStatusListener

#: The per-connector task-count metrics and the status each counts (Java's ``connectorStatusMetrics``).
_TASK_STATE_METRICS = {
    "connector-running-task-count": "RUNNING",
    "connector-paused-task-count": "PAUSED",
    "connector-failed-task-count": "FAILED",
    "connector-unassigned-task-count": "UNASSIGNED",
    "connector-destroyed-task-count": "DESTROYED",
    "connector-restarting-task-count": "RESTARTING",
}


class _StartupMetrics:
    """Attempts, successes and failures of one kind of start-up: totals, and windowed shares."""

    def __init__(self, group: MetricGroup, clock: Callable[[], int], kind: str) -> None:
        self._clock = clock
        self._attempts: Sensor = group.sensor({f"{kind}-startup-attempts-total": CumulativeSum()})
        self._successes: Sensor = group.sensor({f"{kind}-startup-success-total": CumulativeSum()})
        self._failures: Sensor = group.sensor({f"{kind}-startup-failure-total": CumulativeSum()})
        self._results: Outcomes = group.outcomes(f"{kind}-startup-success-percentage",
                                                 f"{kind}-startup-failure-percentage")

    def record(self, success: bool) -> None:
        now_ms = self._clock()
        self._attempts.record(1.0, now_ms)
        (self._successes if success else self._failures).record(1.0, now_ms)
        self._results.record(success, now_ms)


class Startup:
    """One connector or task instance's start-up: counted once, as a success or as a failure that came
    before any success (Java wraps each instance's status listener the same way)."""

    def __init__(self, metrics: _StartupMetrics) -> None:
        self._metrics = metrics
        self._lock = threading.Lock()
        self._counted = False

    def succeeded(self) -> None:
        self._count(True)

    def failed(self) -> None:
        self._count(False)

    def _count(self, success: bool) -> None:
        with self._lock:
            if self._counted:
                return
            self._counted = True
        self._metrics.record(success)


class _StartupCountingListener(TaskStatusListener):
    """One task instance's status listener: counts that instance's start-up, then passes each event on
    (Java's ``WorkerMetricsGroup.wrapStatusListener``). Each instance has its own, so a late event of an
    instance that is gone (a cancelled process's last failure) is never charged to its successor."""

    def __init__(self, delegate: TaskStatusListener, startup: Startup) -> None:
        self._delegate = delegate
        self._startup = startup

    def on_startup(self, task: ConnectorTaskId) -> None:
        self._startup.succeeded()
        self._delegate.on_startup(task)

    def on_pause(self, task: ConnectorTaskId) -> None:
        self._delegate.on_pause(task)

    def on_resume(self, task: ConnectorTaskId) -> None:
        self._delegate.on_resume(task)

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self._startup.failed()  # counted only if it never reported RUNNING
        self._delegate.on_failure(task, trace, transient)

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        self._delegate.on_shutdown(task)

    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        return self._delegate.active_topics(connector)

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        self._delegate.on_topic_used(task, topic)


class ConnectorMetricsGroup:
    """``connector-metrics`` of one connector instance: status, type, class and version."""

    def __init__(self, metrics: ConnectMetrics, name: str, connector: Connector, class_name: str,
                 version: str | None) -> None:
        # Opening replaces the group of a previous instance still shutting down here, whose close()
        # then leaves this one alone.
        self._group = metrics.group(CONNECTOR_GROUP, (("connector", name),))
        self._status = "unassigned"
        kind = "source" if isinstance(connector, SourceConnector) else "unknown"
        self._group.gauge("connector-type", lambda: kind)
        self._group.gauge("connector-class", lambda: class_name)
        self._group.gauge("connector-version", lambda: version)
        self._group.gauge("status", lambda: self._status)

    def set_status(self, state: str) -> None:
        """The instance moved to ``state`` (a status-topic state name, e.g. ``RUNNING``)."""
        self._status = state.lower()

    def close(self) -> None:
        self._group.close()


class WorkerMetrics:
    """The worker's own groups: counts, start-up outcomes, and each connector's tasks here by state."""

    def __init__(self, metrics: ConnectMetrics, connector_count: Callable[[], int],
                 task_state: Callable[[ConnectorTaskId], str | None]) -> None:
        """``connector_count`` reads how many connector instances run here; ``task_state`` the status-topic
        state of a task (None when it has none)."""
        self._metrics = metrics
        self._task_state = task_state
        self._lock = threading.Lock()
        # Tasks created here and not yet gone: what Java's worker keeps in its task map.
        self._tasks: set[ConnectorTaskId] = set()
        self._connector_groups: dict[str, MetricGroup] = {}
        self._group = metrics.group(WORKER_GROUP)
        self._group.gauge("connector-count", lambda: float(connector_count()))
        self._group.gauge("task-count", lambda: float(len(self._task_ids())))
        self._connector_startups = _StartupMetrics(self._group, metrics.clock, "connector")
        self._task_startups = _StartupMetrics(self._group, metrics.clock, "task")

    def connector_startup(self) -> Startup:
        """The start-up of a new connector instance."""
        return Startup(self._connector_startups)

    def task_startup_listener(self, listener: TaskStatusListener) -> TaskStatusListener:
        """The status listener of a new task instance: ``listener``, counting this instance's start-up."""
        return _StartupCountingListener(listener, Startup(self._task_startups))

    def task_added(self, task: ConnectorTaskId) -> None:
        """A task is being created here (before it is built)."""
        with self._lock:
            self._tasks.add(task)
            if task.connector in self._connector_groups:
                return
            connector = task.connector
            group = self._metrics.group(WORKER_GROUP, (("connector", connector),))
            group.gauge("connector-total-task-count", lambda: float(len(self._task_ids(connector))))
            for name, state in _TASK_STATE_METRICS.items():
                group.gauge(name, self._state_counter(connector, state))
            self._connector_groups[connector] = group

    def task_removed(self, task: ConnectorTaskId) -> None:
        """A task is gone from here (stopped, or it could not be built); the last one of its connector
        closes the connector's group."""
        with self._lock:
            self._tasks.discard(task)
            if any(t.connector == task.connector for t in self._tasks):
                return
            group = self._connector_groups.pop(task.connector, None)
        if group is not None:
            group.close()

    def _task_ids(self, connector: str | None = None) -> list[ConnectorTaskId]:
        with self._lock:
            return [t for t in self._tasks if connector is None or t.connector == connector]

    def _state_counter(self, connector: str, state: str) -> Callable[[], float]:
        def count() -> float:
            return float(sum(1 for t in self._task_ids(connector) if (self._task_state(t) or "").upper() == state))
        return count

    def close(self) -> None:
        """The worker stopped: its groups go."""
        with self._lock:
            groups = list(self._connector_groups.values())
            self._connector_groups.clear()
        for group in groups:
            group.close()
        self._group.close()
