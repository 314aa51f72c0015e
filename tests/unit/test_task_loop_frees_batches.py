"""The source task loop lets go of a batch once it is sent, before it polls the next one: the next batch
then reuses the memory while it is still in the CPU caches (bench/README.md has the figures: the
plugin's poll took ~40% less time). Pure loop logic: the producer, converters and stores are fakes."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from task_loop_setup import task_setup

from connect_runtime.api import SourceRecord, SourceTask
from connect_runtime.testing.fakes import FakeStatusListener
from connect_runtime.worker.at_least_once_source_task import AtLeastOnceWorkerSourceTask, DeliveryErrors
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask
from connect_runtime.worker.source_task_base import WorkerSourceTask


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


def _run(make: Any) -> tuple[_Plugin, FakeStatusListener, WorkerSourceTask]:
    plugin, statuses = _Plugin(), FakeStatusListener(active=["t"])
    loop: WorkerSourceTask = make(task_setup(plugin, statuses=statuses))
    plugin.loop = loop
    loop._run()  # on this thread, until the plugin stops it at its third poll
    return plugin, statuses, loop


def test_at_least_once_loop_frees_each_batch_before_the_next_poll() -> None:
    plugin, statuses, _ = _run(lambda s: AtLeastOnceWorkerSourceTask(s, DeliveryErrors(), 60000, 1000))
    assert statuses.events == ["RUNNING", "UNASSIGNED"], statuses.failures
    assert plugin.previous_alive_at_poll == [False, False]


def test_exactly_once_loop_frees_each_batch_before_the_next_poll() -> None:
    plugin, statuses, _ = _run(lambda s: ExactlyOnceWorkerSourceTask(s, lambda: None, lambda: None))
    assert statuses.events == ["RUNNING", "UNASSIGNED"], statuses.failures
    assert plugin.previous_alive_at_poll == [False, False]
