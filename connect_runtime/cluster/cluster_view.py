"""What the REST API reads: connectors, their configs, task configs and statuses, answered from the
latest config snapshot and the status store on the caller's thread.

Reads do not queue behind the herder thread (a connector's ``start()``, an assignment or a leader write
can keep it busy for seconds). The config snapshot is immutable and the status store reads under its
lock, so this is safe from any thread; a read sees what the reader threads applied, which includes
every write this worker acknowledged (writes read the config topic back before they answer). Before
the worker's start-up read of its internal topics, reads wait for it, as Java's requests queue until
the worker has joined.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import TypeVar

from connect_runtime.api.connector import SourceConnector
from connect_runtime.cluster.herder_api import (
    ConnectorInfo,
    ConnectorStateInfo,
    ExpandedConnector,
    StateInfo,
    TaskInfo,
    TaskStateInfo,
)
from connect_runtime.errors import NotFoundHttpError
from connect_runtime.futures import deferred
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.storage.config_store import ClusterConfigState, KafkaConfigBackingStore
from connect_runtime.storage.status_store import ConnectorStatus, KafkaStatusBackingStore, State, TaskStatus
from connect_runtime.types import ConnectorTaskId

T = TypeVar("T")


class ClusterView:
    """The read half of the Herder protocol."""

    def __init__(self, config_store: KafkaConfigBackingStore, status_store: KafkaStatusBackingStore,
                 plugins: PluginRegistry, worker_id: str) -> None:
        self._config_store = config_store
        self._status_store = status_store
        self._plugins = plugins
        self._worker_id = worker_id
        self._lock = threading.Lock()
        self._open = False
        self._waiting: list[Callable[[], None]] = []
        #: ``connector.class`` -> "source" | "sink": resolved once, not on every status read.
        self._connector_types: dict[str, str] = {}

    def open(self) -> None:
        """Serve reads from now on, starting with those that waited for the start-up read."""
        with self._lock:
            self._open = True
            waiting, self._waiting = self._waiting, []
        for run in waiting:
            run()

    def read(self, fn: Callable[[], T]) -> Future[T]:
        """Run a read now, on the caller's thread (or once the start-up read is done)."""
        fut, run = deferred(fn)
        with self._lock:
            if not self._open:
                self._waiting.append(run)
                return fut
        run()
        return fut

    # -- helpers the herder shares ------------------------------------------------------------------
    def snapshot(self) -> ClusterConfigState:
        return self._config_store.snapshot()

    @staticmethod
    def require(state: ClusterConfigState, name: str, message: str | None = None) -> None:
        """404 unless connector ``name`` exists; ``message`` where Java words it otherwise."""
        if not state.contains(name):
            raise NotFoundHttpError(message or f"Connector {name} not found")

    def connector_type(self, cfg: Mapping[str, str]) -> str:
        class_name = cfg.get("connector.class", "")
        known = self._connector_types.get(class_name)
        if known is not None:
            return known
        try:
            cls = self._plugins.connector_class(class_name)
        except Exception:
            return "unknown"  # not cached: the plugin may become importable
        kind = "source" if issubclass(cls, SourceConnector) else "sink"
        self._connector_types[class_name] = kind
        return kind

    def is_source(self, cfg: Mapping[str, str]) -> bool:
        return self.connector_type(cfg) == "source"

    def info(self, state: ClusterConfigState, name: str) -> ConnectorInfo:
        self.require(state, name)
        cfg = dict(state.connector_configs[name])
        return ConnectorInfo(name, cfg, state.tasks(name), self.connector_type(cfg))

    def status_now(self, name: str) -> ConnectorStateInfo:
        state = self.snapshot()
        if not state.contains(name):
            raise NotFoundHttpError(f"No status found for connector {name}")
        by_id = {s.id: s for s in self._status_store.get_all_tasks(name)}
        return self._status_in(state, name, self._status_store.get_connector(name), by_id)

    def _status_in(self, state: ClusterConfigState, name: str, status: ConnectorStatus | None,
                   task_statuses: Mapping[ConnectorTaskId, TaskStatus]) -> ConnectorStateInfo:
        """A listed connector's status, from its status record and (at least) its tasks' records."""
        if status is None:
            conn = StateInfo(State.UNASSIGNED, self._worker_id, None)
        else:
            conn = StateInfo(status.state, status.worker_id, status.trace, version=status.version)
        tasks = []
        for task in state.tasks(name):
            s = task_statuses.get(task)
            tasks.append(TaskStateInfo(s.state, s.worker_id, s.trace, task.task, version=s.version) if s is not None
                         else TaskStateInfo(State.UNASSIGNED, self._worker_id, None, task.task))
        return ConnectorStateInfo(name, conn, tasks, self.connector_type(state.connector_configs[name]))

    def _task_status_now(self, task: ConnectorTaskId) -> TaskStateInfo:
        state = self.snapshot()
        if not state.contains(task.connector) or task not in state.tasks(task.connector):
            raise NotFoundHttpError(f"No status found for task {task}")
        status = self._status_store.get_task(task)
        if status is None:
            return TaskStateInfo(State.UNASSIGNED, self._worker_id, None, task.task)
        return TaskStateInfo(status.state, status.worker_id, status.trace, task.task, version=status.version)

    # -- the reads --------------------------------------------------------------------------------
    def connectors(self) -> Future[list[str]]:
        return self.read(lambda: self.snapshot().connectors())

    def connector_info(self, name: str) -> Future[ConnectorInfo]:
        return self.read(lambda: self.info(self.snapshot(), name))

    def connectors_expanded(self, status: bool, info: bool) -> Future[dict[str, ExpandedConnector]]:
        def run() -> dict[str, ExpandedConnector]:
            state = self.snapshot()
            # One copy of the statuses for all connectors, taken after the snapshot as a single
            # connector's read does.
            connector_statuses, task_statuses = self._status_store.statuses() if status else ({}, {})
            out = {}
            for name in state.connectors():
                entry = ExpandedConnector()
                if status:
                    entry.status = self._status_in(state, name, connector_statuses.get(name), task_statuses)
                if info:
                    entry.info = self.info(state, name)
                out[name] = entry
            return out

        return self.read(run)

    def connector_config(self, name: str) -> Future[dict[str, str]]:
        def run() -> dict[str, str]:
            state = self.snapshot()
            self.require(state, name)
            return dict(state.connector_configs[name])

        return self.read(run)

    def task_configs(self, name: str) -> Future[list[TaskInfo]]:
        def run() -> list[TaskInfo]:
            state = self.snapshot()
            self.require(state, name)
            return [TaskInfo(t, dict(state.task_config(t) or {})) for t in state.tasks(name)]

        return self.read(run)

    def connector_status(self, name: str) -> Future[ConnectorStateInfo]:
        return self.read(lambda: self.status_now(name))

    def task_status(self, task: ConnectorTaskId) -> Future[TaskStateInfo]:
        return self.read(lambda: self._task_status_now(task))
