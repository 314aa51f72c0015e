"""The pipe between a worker and a task process: calls both ways, errors carried back, notifications in
order, and the end of the pipe failing what still waits."""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from connect_runtime.api.errors import ConnectException, RetriableException
from connect_runtime.testing import wait_until
from connect_runtime.types import ConnectorTaskId
from connect_runtime.worker import task_protocol as protocol
from connect_runtime.worker.task_channel import ChannelClosed, TaskChannel
from connect_runtime.worker.task_process import describe_exit

TASK = ConnectorTaskId("c", 0)


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # pickling calls __init__ with one argument: fails
        super().__init__(f"{a}/{b}")


#: Set once a blocking call runs: the worker side's reader is then back, blocked, in recv.
_BLOCKING = threading.Event()
#: Ends a blocking call early: set when its test is over, so no executor thread outlives it (the
#: interpreter joins executor threads at exit, which would wait out the block).
_RELEASE = threading.Event()


class _Worker:
    """A worker end that records notifications and answers a few calls; any other message is not its."""

    def __init__(self) -> None:
        self.topics: list[str] = []

    def topic_used(self, message: protocol.TopicUsed) -> None:
        self.topics.append(message.topic)

    def get_offsets(self, message: protocol.GetOffsets) -> Mapping[Any, dict[str, Any] | None]:
        return {p["p"]: {"n": p["p"] * 2} for p in message.partitions}

    def fence_zombies(self, message: protocol.FenceZombies) -> None:
        raise RetriableException("fencing failed")

    def set_offsets(self, message: protocol.SetOffsets) -> None:
        raise _Unpicklable(1, 2)

    def start_offsets(self, message: protocol.StartOffsets) -> Any:
        return lambda: None  # an answer no pipe can carry

    def read_offsets_to_end(self, message: protocol.ReadOffsetsToEnd) -> None:
        _BLOCKING.set()
        _RELEASE.wait(20.0)


class _Task:
    def __init__(self) -> None:
        self.commands: list[object] = []

    def stop_task(self, message: protocol.StopTask) -> None:
        self.commands.append(message)

    def change_target_state(self, message: protocol.ChangeTargetState) -> None:
        self.commands.append(message)


Pair = tuple[TaskChannel, TaskChannel, _Worker, _Task]


@pytest.fixture
def pair() -> Iterator[Pair]:
    a, b = multiprocessing.Pipe(duplex=True)
    executor = ThreadPoolExecutor(max_workers=1)
    worker_end, task_end = _Worker(), _Task()
    # Only the methods a test sends to: a partial handler, as the table must reject what it lacks.
    worker = TaskChannel.worker_end(a, worker_end, executor)  # type: ignore[arg-type]
    task = TaskChannel.task_end(b, task_end)
    threads = [threading.Thread(target=c.serve, daemon=True) for c in (worker, task)]
    for t in threads:
        t.start()
    _RELEASE.clear()
    yield worker, task, worker_end, task_end
    _RELEASE.set()
    worker.close()
    task.close()
    executor.shutdown(wait=False)


def test_a_call_returns_the_other_side_s_result(pair: Pair) -> None:
    _, task, _, _ = pair
    assert task.call(protocol.GetOffsets(({"p": 2}, {"p": 3}))) == {2: {"n": 4}, 3: {"n": 6}}


def test_an_error_is_raised_at_the_caller_with_its_type(pair: Pair) -> None:
    _, task, _, _ = pair
    with pytest.raises(RetriableException, match="fencing failed"):
        task.call(protocol.FenceZombies())
    # An error that cannot cross a pipe arrives as a ConnectException with its type and text.
    with pytest.raises(ConnectException, match="_Unpicklable: 1/2"):
        task.call(protocol.SetOffsets({}, 1.0))


def test_an_answer_that_cannot_be_sent_fails_the_call_instead_of_leaving_it_waiting(pair: Pair) -> None:
    _, task, _, _ = pair
    with pytest.raises(AttributeError, match=r"(?i)pickle"):
        task.call_async(protocol.StartOffsets()).result(5)


def test_commands_reach_the_task_end(pair: Pair) -> None:
    from connect_runtime.types import TargetState

    worker, _, _, task_end = pair
    worker.notify(protocol.ChangeTargetState(TargetState.PAUSED))
    worker.notify(protocol.StopTask())
    wait_until(lambda: len(task_end.commands) == 2, 5, message="both commands arrived")
    assert task_end.commands == [protocol.ChangeTargetState(TargetState.PAUSED), protocol.StopTask()]


def test_notifications_arrive_in_order_while_a_long_call_runs(pair: Pair) -> None:
    _, task, worker_end, _ = pair
    slow = task.call_async(protocol.ReadOffsetsToEnd())
    for i in range(50):
        task.notify(protocol.TopicUsed(TASK, f"t{i}"))
    # The worker side runs calls on its executor: the notifications behind the call are not held back.
    wait_until(lambda: len(worker_end.topics) == 50, 5, message="every notification arrived")
    assert not slow.done()
    assert worker_end.topics == [f"t{i}" for i in range(50)]
    _RELEASE.set()
    assert slow.result(5) is None


def test_the_end_of_the_pipe_fails_waiting_calls_and_later_sends(pair: Pair) -> None:
    worker, task, _, _ = pair
    _BLOCKING.clear()
    waiting = task.call_async(protocol.ReadOffsetsToEnd())
    # Close while the worker side's reader waits in recv: closing the fd alone would leave the socket
    # open under that read, and the task side would never see the end of the pipe.
    assert _BLOCKING.wait(5)
    worker.close()
    with pytest.raises(ChannelClosed):
        waiting.result(5)
    with pytest.raises(ChannelClosed):
        task.call(protocol.GetOffsets(()))


def test_exit_statuses_are_described_as_an_operator_reads_them() -> None:
    assert describe_exit(1) == "exit code 1"
    assert describe_exit(-signal.SIGSEGV) == "killed by signal SIGSEGV"
    assert describe_exit(-signal.SIGKILL) == "killed by signal SIGKILL"
    assert describe_exit(None) == "no exit status"


class _Notes:
    def __init__(self) -> None:
        self.sent: list[object] = []

    def notify(self, message: object) -> None:
        self.sent.append(message)


def test_a_task_process_reports_a_new_topic_once() -> None:
    """The send loop tests the listener's view per record and reports a topic it does not hold after each
    commit: the task process's view must learn the topics it reported, or every commit reports them again
    (and a stopped worker's full pipe would stall the task)."""
    from connect_runtime.worker.task_process_main import _RemoteStatus

    notes = _Notes()
    status = _RemoteStatus(notes, {"old": None})  # type: ignore[arg-type]
    view = status.active_topics("c")
    assert view is not None and "new" not in view
    status.on_topic_used(TASK, "new")
    assert "new" in view
    assert notes.sent == [protocol.TopicUsed(TASK, "new")]
    assert _RemoteStatus(notes, None).active_topics("c") is None  # tracking off: the loop keeps its own

