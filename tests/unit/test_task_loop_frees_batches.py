"""The source task loop lets go of a batch once it is sent, before it polls the next one: the next batch
then reuses the memory while it is still in the CPU caches (bench/README.md has the figures: the
plugin's poll took ~40% less time). Pure loop logic: the producer, converters and stores are fakes."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.at_least_once_source_task import AtLeastOnceWorkerSourceTask, DeliveryErrors
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask
from connect_runtime.worker.source_task_base import TaskSetup, WorkerSourceTask

TASK = ConnectorTaskId("c", 0)


class _Batch(list[SourceRecord]):
    """A batch that can be weakly referenced (a plain list cannot)."""


class _Plugin(SourceTask):
    """Three batches; at each poll, records whether the previous batch still exists; stops the loop at
    the third."""

    def __init__(self) -> None:
        self.previous: weakref.ref[_Batch] | None = None
        self.previous_alive_at_poll: list[bool] = []
        self.polls = 0
        self.loop: WorkerSourceTask | None = None

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None: ...

    def poll(self) -> list[SourceRecord] | None:
        if self.previous is not None:
            self.previous_alive_at_poll.append(self.previous() is not None)
        self.polls += 1
        if self.polls == 3:
            assert self.loop is not None
            self.loop.stop()
        batch = _Batch(SourceRecord({"p": 0}, {"o": self.polls * 10 + i}, "t", value=i) for i in range(10))
        self.previous = weakref.ref(batch)
        return batch

    def stop(self) -> None: ...


class _Producer:
    def produce(self, *args: Any, **kwargs: Any) -> None: ...

    def poll(self, timeout: float = 0) -> int:
        return 0

    def flush(self, timeout: float = 0) -> int:
        return 0

    def purge(self) -> None: ...

    def list_topics(self, timeout: float = -1) -> None: ...

    def init_transactions(self, timeout: float) -> None: ...

    def begin_transaction(self) -> None: ...

    def commit_transaction(self, timeout: float) -> None: ...

    def abort_transaction(self, timeout: float) -> None: ...


class _Converter:
    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        return None if value is None else str(value).encode()


class _OffsetStore:
    topic = "offsets"
    has_connector_store = False

    def start(self) -> None: ...

    def read_to_end(self) -> Future[None]:
        done: Future[None] = Future()
        done.set_result(None)
        return done

    def write_tombstones_first(self, entries: Mapping[bytes, Any]) -> None: ...

    def mirror(self, entries: Mapping[bytes, Any]) -> None: ...

    def set(self, entries: Mapping[bytes, Any], producer: Any = None) -> None: ...

    def stop(self) -> None: ...


class _Statuses:
    def __init__(self) -> None:
        self.events: list[str] = []

    def on_startup(self, task: ConnectorTaskId) -> None:
        self.events.append("RUNNING")

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self.events.append(f"FAILED {trace}")

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        self.events.append("UNASSIGNED")

    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        return {"t": None}

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None: ...


def _setup(plugin: _Plugin, statuses: _Statuses) -> TaskSetup:
    return TaskSetup(task_id=TASK, task=plugin, task_config={}, key_converter=_Converter(),  # type: ignore[arg-type]
                     value_converter=_Converter(), transformations=[], producer=_Producer(),  # type: ignore[arg-type]
                     offset_reader=None, offset_store=_OffsetStore(),  # type: ignore[arg-type]
                     status=statuses, initial_state=TargetState.STARTED)  # type: ignore[arg-type]


def _run(make: Any) -> tuple[_Plugin, _Statuses, WorkerSourceTask]:
    plugin, statuses = _Plugin(), _Statuses()
    loop: WorkerSourceTask = make(_setup(plugin, statuses))
    plugin.loop = loop
    loop._run()  # on this thread, until the plugin stops it at its third poll
    return plugin, statuses, loop


def test_at_least_once_loop_frees_each_batch_before_the_next_poll() -> None:
    plugin, statuses, _ = _run(lambda s: AtLeastOnceWorkerSourceTask(s, DeliveryErrors(), 60000, 1000))
    assert statuses.events == ["RUNNING", "UNASSIGNED"], statuses.events
    assert plugin.previous_alive_at_poll == [False, False]


def test_exactly_once_loop_frees_each_batch_before_the_next_poll() -> None:
    plugin, statuses, _ = _run(lambda s: ExactlyOnceWorkerSourceTask(s, lambda: None, lambda: None))
    assert statuses.events == ["RUNNING", "UNASSIGNED"], statuses.events
    assert plugin.previous_alive_at_poll == [False, False]
