"""Stand-ins for what a :class:`~connect_runtime.worker.worker.Worker` talks to, for tests that build
one without a broker and look at what it decided: the status store, the task process and a connector
plugin that does nothing unless a test overrides it; and the config store, as the herder's parts read it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connect_runtime.api import SourceConnector, SourceTask
from connect_runtime.storage.config_store import ClusterConfigState
from connect_runtime.worker.task_spec import TaskSpec

#: The settings every worker config needs, and no more.
MINIMAL_WORKER = {"bootstrap.servers": "localhost:9092", "group.id": "g", "config.storage.topic": "c",
                  "offset.storage.topic": "o", "status.storage.topic": "s"}


class RecordingStatuses:
    """A status store that keeps what it is given."""

    def __init__(self) -> None:
        self.connectors: list[Any] = []
        self.tasks: list[Any] = []

    def put_connector(self, status: Any, safe: bool = False) -> None:
        self.connectors.append(status)

    def put_task(self, status: Any, safe: bool = False) -> None:
        self.tasks.append(status)

    def active_topics(self, connector: str) -> dict[str, Any]:
        return {}


class FixedConfigStore:
    """A config store whose state is what a test sets in :attr:`state`."""

    def __init__(self, state: ClusterConfigState) -> None:
        self.state = state

    def snapshot(self) -> ClusterConfigState:
        return self.state

    def refresh(self, timeout_s: float = 30.0) -> ClusterConfigState:
        return self.state


class RecordingRunner:
    """Stands in for the task process: records what the worker decided for it in :attr:`specs` (a
    test empties it first)."""

    specs: list[TaskSpec] = []

    def __init__(self, spec: TaskSpec, status: Any, fencing: Any, verify_generation: Any, offsets: Any,
                 on_closed: Any = None, metrics: Any = None) -> None:
        RecordingRunner.specs.append(spec)
        self.id = spec.task_id
        #: The listener the worker gave this instance (a test reports its lifecycle through it).
        self.status = status
        self.version = None
        self.on_closed = on_closed

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def join(self, timeout_s: float) -> bool:
        return True


class StubSourceConnector(SourceConnector):
    """A source connector with no tasks: subclass it and override the one method a test is about."""

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def task_class(self) -> type[SourceTask]:
        return SourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        pass
