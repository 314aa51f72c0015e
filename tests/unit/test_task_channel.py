"""The pipe between a worker and a task process: calls both ways, errors carried back, notifications in
order, and the end of the pipe failing what still waits."""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from connect_runtime.api.errors import ConnectException, RetriableException
from connect_runtime.worker.task_channel import ChannelClosed, TaskChannel
from connect_runtime.worker.task_process_handle import describe_exit


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # pickling calls __init__ with one argument: fails
        super().__init__(f"{a}/{b}")


#: Set once a "block" call runs: the worker side's reader is then back, blocked, in recv.
_BLOCKING = threading.Event()
#: Ends a "block" call early: set when its test is over, so no executor thread outlives it (the
#: interpreter joins executor threads at exit, which would wait out the block).
_RELEASE = threading.Event()


def _worker_side(op: str, args: tuple[Any, ...]) -> Any:
    if op == "add":
        return args[0] + args[1]
    if op == "retriable":
        raise RetriableException("fencing failed")
    if op == "odd":
        raise _Unpicklable(1, 2)
    if op == "block":
        _BLOCKING.set()
        _RELEASE.wait(args[0])
        return "late"
    raise ValueError(op)


@pytest.fixture
def pair() -> Iterator[tuple[TaskChannel, TaskChannel, list[tuple[Any, ...]]]]:
    a, b = multiprocessing.Pipe(duplex=True)
    notes: list[tuple[Any, ...]] = []
    executor = ThreadPoolExecutor(max_workers=1)
    worker = TaskChannel(a, _worker_side, notes.append, executor)
    task = TaskChannel(b, _worker_side, notes.append)
    threads = [threading.Thread(target=c.serve, daemon=True) for c in (worker, task)]
    for t in threads:
        t.start()
    _RELEASE.clear()
    yield worker, task, notes
    _RELEASE.set()
    worker.close()
    task.close()
    executor.shutdown(wait=False)


def test_a_call_returns_the_other_side_s_result(pair: tuple[TaskChannel, TaskChannel, list[Any]]) -> None:
    _, task, _ = pair
    assert task.call("add", 2, 3) == 5


def test_an_error_is_raised_at_the_caller_with_its_type(pair: tuple[TaskChannel, TaskChannel, list[Any]]) -> None:
    _, task, _ = pair
    with pytest.raises(RetriableException, match="fencing failed"):
        task.call("retriable")
    # An error that cannot cross a pipe arrives as a ConnectException with its type and text.
    with pytest.raises(ConnectException, match="_Unpicklable: 1/2"):
        task.call("odd")


def test_notifications_arrive_in_order_while_a_long_call_runs(
        pair: tuple[TaskChannel, TaskChannel, list[Any]]) -> None:
    _, task, notes = pair
    slow = task.call_async("block", 0.5)
    for i in range(50):
        task.notify("status", i)
    # The worker side runs calls on its executor: the notifications behind the call are not held back.
    deadline = threading.Event()
    for _ in range(100):
        if len(notes) == 50:
            break
        deadline.wait(0.01)
    assert not slow.done()
    assert [n[1] for n in notes] == list(range(50))
    assert slow.result(5) == "late"


def test_the_end_of_the_pipe_fails_waiting_calls_and_later_sends(
        pair: tuple[TaskChannel, TaskChannel, list[Any]]) -> None:
    worker, task, _ = pair
    _BLOCKING.clear()
    waiting = task.call_async("block", 20.0)
    # Close while the worker side's reader waits in recv: closing the fd alone would leave the socket
    # open under that read, and the task side would never see the end of the pipe.
    assert _BLOCKING.wait(5)
    worker.close()
    with pytest.raises(ChannelClosed):
        waiting.result(5)
    with pytest.raises(ChannelClosed):
        task.call("add", 1, 1)


def test_exit_statuses_are_described_as_an_operator_reads_them() -> None:
    assert describe_exit(1) == "exit code 1"
    assert describe_exit(-signal.SIGSEGV) == "killed by signal SIGSEGV"
    assert describe_exit(-signal.SIGKILL) == "killed by signal SIGKILL"
    assert describe_exit(None) == "no exit status"


class _Notes:
    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def notify(self, *message: Any) -> None:
        self.sent.append(message)


def test_a_task_process_reports_a_new_topic_once() -> None:
    """The send loop tests the listener's view per record and reports a topic it does not hold after each
    commit: the task process's view must learn the topics it reported, or every commit reports them again
    (and a stopped worker's full pipe would stall the task)."""
    from connect_runtime.types import ConnectorTaskId
    from connect_runtime.worker.task_process import _RemoteStatus

    notes = _Notes()
    status = _RemoteStatus(notes, {"old": None})  # type: ignore[arg-type]
    task = ConnectorTaskId("c", 0)
    view = status.active_topics("c")
    assert view is not None and "new" not in view
    status.on_topic_used(task, "new")
    assert "new" in view
    assert notes.sent == [("status", "on_topic_used", task, "new")]
    assert _RemoteStatus(notes, None).active_topics("c") is None  # tracking off: the loop keeps its own
