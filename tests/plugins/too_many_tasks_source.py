"""A source connector that breaks the ``tasks.max`` contract: it always generates one task config more
than it is allowed (``connector.class=too_many_tasks_source.TooManyTasksSourceConnector``), to check
that the worker fails it as Java 4.x does (KIP-1004, ``tasks.max.enforce``)."""

from __future__ import annotations

from collections.abc import Mapping

from connect_runtime.api import SourceConnector, SourceTask
from connect_runtime.testing.sequence_source import IdleSourceTask


class TooManyTasksSourceConnector(SourceConnector):
    """Returns ``max_tasks + 1`` task configs."""

    def version(self) -> str:
        return "0.0.1"

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def task_class(self) -> type[SourceTask]:
        return IdleSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"task.id": str(i)} for i in range(max_tasks + 1)]

    def stop(self) -> None:
        pass
