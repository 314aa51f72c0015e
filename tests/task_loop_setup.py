"""What a task-loop test runs: a :class:`TaskSetup` of the toolkit's fakes (each overridable) and a
scripted task."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.testing.fakes import FakeOffsetStore, FakeProducer, FakeStatusListener
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.source_task_base import TaskSetup

TASK = ConnectorTaskId("c", 0)


class StrConverter:
    """Writes any value as its ``str``, encoded; None stays None."""

    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        return None if value is None else str(value).encode()


def task_setup(task: SourceTask, *, statuses: FakeStatusListener | None = None, producer: Any = None,
               offset_store: Any = None, key_converter: Any = None, value_converter: Any = None,
               **more: Any) -> TaskSetup:
    """A started task ``c-0`` with no transformations; what is not given is a fresh fake."""
    return TaskSetup(task_id=TASK, task=task, task_config={},
                     key_converter=key_converter or StrConverter(), value_converter=value_converter or StrConverter(),
                     transformations=[], producer=cast(Any, producer or FakeProducer()), offset_reader=cast(Any, None),
                     offset_store=offset_store or FakeOffsetStore(), status=statuses or FakeStatusListener(),
                     initial_state=TargetState.STARTED, **more)


class ScriptedTask(SourceTask):
    """Each poll returns the next of ``batches`` (an exception in the list is raised instead); None
    once they are used up."""

    def __init__(self, batches: list[list[SourceRecord] | Exception] | None = None) -> None:
        self.batches = batches or []

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None: ...

    def poll(self) -> list[SourceRecord] | None:
        if not self.batches:
            return None
        batch = self.batches.pop(0)
        if isinstance(batch, Exception):
            raise batch
        return batch

    def stop(self) -> None: ...


def schemaless_json() -> JsonConverter:
    """A value converter as workers configure it by default in the tests: JSON without schemas."""
    conv = JsonConverter()
    conv.configure({"schemas.enable": "false"}, False)
    return conv
