"""How a running task reports its state changes (the worker writes them to the status topic)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from connect_runtime.types import ConnectorTaskId


class TaskStatusListener(Protocol):
    """Receives a task's lifecycle events, on the task's own thread."""

    def on_startup(self, task: ConnectorTaskId) -> None: ...

    def on_pause(self, task: ConnectorTaskId) -> None: ...

    def on_resume(self, task: ConnectorTaskId) -> None: ...

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        """``transient``: it failed because Kafka was unavailable; the runtime may restart it."""

    def on_shutdown(self, task: ConnectorTaskId) -> None: ...

    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        """The connector's active topics (KIP-558) as a live mapping the task tests ``topic in`` per
        record; None when topic tracking is off."""

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        """``task`` produced to ``topic``, which was not among the connector's active topics."""
