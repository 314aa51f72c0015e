"""A connector that is not a source connector, to check what the runtime does with one.

Loaded by worker subprocesses through ``plugin.path`` (this directory) as
``connector.class=plain_sink.PlainSinkConnector``. It subclasses :class:`connect_runtime.api.Connector`
directly, so the runtime reports its type as ``sink``; it asks for no tasks (the runtime only runs
source tasks), so it starts and just sits there.
"""

from __future__ import annotations

from collections.abc import Mapping

from connect_runtime.api import Connector, SourceTask
from connect_runtime.testing.sequence_source import IdleSourceTask

VERSION = "0.0.1"


class PlainSinkConnector(Connector):
    """A do-nothing non-source connector with no tasks."""

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        pass

    def task_class(self) -> type[SourceTask]:
        return IdleSourceTask  # required by the Connector API; never run: no task configs

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        pass
