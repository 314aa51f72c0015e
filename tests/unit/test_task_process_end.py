"""The worker's handle on a task process gives back everything it held once the process has ended."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker import task_process
from connect_runtime.worker.task_process import TaskProcess


class _Status:
    """A status listener that records failures (the only event a task that cannot be built sends)."""

    def __init__(self) -> None:
        self.failures: list[ConnectorTaskId] = []

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self.failures.append(task)


class _Offsets:
    def stop(self) -> None:
        pass


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The garbage collector off: what the handle leaves open must not be closed by a collection that a
    busy worker may not run for minutes."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.usefixtures("no_collector")
def test_an_ended_task_process_leaves_no_open_fd() -> None:
    task_process.warm_up()  # the fork server's own pipes stay for the worker's lifetime
    before = _open_fds()
    status = _Status()
    # A spec the task process cannot build from: it reports the build failure and exits.
    spec: Any = SimpleNamespace(task_id=ConnectorTaskId("broken", 0), initial_state=TargetState.STARTED)
    handles = []
    for _ in range(3):
        handle = TaskProcess(spec, status, fencing=None, verify_generation=lambda: None,  # type: ignore[arg-type]
                             offsets=_Offsets())  # type: ignore[arg-type]
        handle.start()
        assert handle.join(60), "the task process did not end"
        handles.append(handle)  # the worker may hold a handle after its end too (a status, a metric)
    assert status.failures == [ConnectorTaskId("broken", 0)] * 3
    assert not any(h.is_alive() for h in handles)
    assert _open_fds() <= before
