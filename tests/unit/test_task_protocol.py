"""The task protocol's one table: every message round-trips through its encoding, every message has a
row and a receiver, both ends go through it, and what it does not know is an error, not a silent drop."""

from __future__ import annotations

import dataclasses
import inspect
import logging
import multiprocessing
import pickle
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from connect_runtime.api.errors import RetriableException
from connect_runtime.testing import wait_until
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker import task_protocol as protocol
from connect_runtime.worker.task_channel import TaskChannel
from connect_runtime.worker.task_process import TaskProcess
from connect_runtime.worker.task_process_main import _Commands

TASK = ConnectorTaskId("c", 3)

#: One of each message, with values of every field's kind.
EXAMPLES: list[protocol.Message] = [
    *(protocol.StatusChanged(TASK, change) for change in protocol.Lifecycle),
    protocol.TaskFailed(TASK, "Traceback ...\nValueError: boom", True),
    protocol.TopicUsed(TASK, "orders"),
    protocol.TaskBuilt("1.2.3"),
    protocol.TaskBuilt(None),
    protocol.TaskBuildFailed("Traceback ...", False),
    protocol.TaskClosed(True),
    protocol.OffsetsMirrored({b'["c",{"p":1}]': b'{"n":2}', b'["c",{"p":2}]': None}),
    protocol.MetricsReported((("source-task-metrics", "source-record-write-total", 12.0),
                              ("connector-task-metrics", "batch-size-max", 5.0))),
    protocol.FenceZombies(),
    protocol.VerifyGeneration(),
    protocol.StartOffsets(),
    protocol.ReadOffsetsToEnd(),
    protocol.GetOffsets(({"file": "a.txt"}, {"file": "b.txt"})),
    protocol.WriteTombstonesFirst({b"k": None}, 30.0),
    protocol.SetOffsets({b"k": b"v"}, 12.5),
    protocol.StopTask(),
    protocol.ChangeTargetState(TargetState.PAUSED),
]


def _sender(message: protocol.Message) -> protocol.Side:
    return next(kind.sender for kind in protocol.MESSAGES if kind.message is type(message))


def _defined_messages() -> set[type]:
    return {cls for _, cls in inspect.getmembers(protocol, inspect.isclass)
            if dataclasses.is_dataclass(cls) and issubclass(cls, protocol.Note | protocol.Call)}


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_through_its_encoding(message: protocol.Message) -> None:
    sender = _sender(message)
    # What the pipe does to it: pickled and unpickled.
    wire = pickle.loads(pickle.dumps(protocol.encode(message, sender)))
    assert protocol.decode(wire, sender) == message


def test_the_table_covers_every_message_and_the_examples_cover_the_table() -> None:
    in_table = [kind.message for kind in protocol.MESSAGES]
    assert len(in_table) == len(set(in_table))
    assert len({kind.handler for kind in protocol.MESSAGES}) == len(protocol.MESSAGES)  # tags are unique
    assert set(in_table) == _defined_messages()
    assert {type(m) for m in EXAMPLES} == set(in_table)


@pytest.mark.parametrize(("sender", "receiver_protocol", "implementations"), [
    (protocol.Side.TASK, protocol.WorkerEnd, [TaskProcess]),
    (protocol.Side.WORKER, protocol.TaskEnd, [_Commands]),
], ids=["task to worker", "worker to task"])
def test_each_end_receives_exactly_what_the_other_sends(
        sender: protocol.Side, receiver_protocol: type, implementations: list[type]) -> None:
    handlers = {kind.handler for kind in protocol.MESSAGES if kind.sender is sender}
    declared = {name for name, _ in inspect.getmembers(receiver_protocol, inspect.isfunction)
                if not name.startswith("_")}
    assert declared == handlers
    for implementation in implementations:
        assert handlers <= {name for name, _ in inspect.getmembers(implementation, inspect.isfunction)}


def test_dispatch_calls_the_method_the_table_names() -> None:
    seen: list[object] = []

    class Commands:
        def stop_task(self, message: protocol.StopTask) -> None:
            seen.append(message)

        def change_target_state(self, message: protocol.ChangeTargetState) -> None:
            seen.append(message.state)

    protocol.dispatch(Commands(), protocol.ChangeTargetState(TargetState.STARTED), protocol.Side.WORKER)
    protocol.dispatch(Commands(), protocol.StopTask(), protocol.Side.WORKER)
    assert seen == [TargetState.STARTED, protocol.StopTask()]


def test_unknown_or_misdirected_messages_are_errors() -> None:
    with pytest.raises(protocol.UnknownMessage, match="Unknown message 'cancel' from the worker"):
        protocol.decode(("cancel",), protocol.Side.WORKER)
    with pytest.raises(protocol.UnknownMessage, match="Unknown message"):
        protocol.decode((), protocol.Side.TASK)
    with pytest.raises(protocol.UnknownMessage, match="'stop_task' is sent by the worker, not by the task process"):
        protocol.decode(("stop_task",), protocol.Side.TASK)
    with pytest.raises(protocol.UnknownMessage, match="Malformed message 'topic_used'"):
        protocol.decode(("topic_used", TASK), protocol.Side.TASK)
    with pytest.raises(protocol.UnknownMessage, match="StopTask is sent by the worker, not by the task process"):
        protocol.encode(protocol.StopTask(), protocol.Side.TASK)
    with pytest.raises(protocol.UnknownMessage, match="is not a message of the task protocol"):
        protocol.encode(("stop",), protocol.Side.WORKER)  # type: ignore[arg-type]


class _Fencing:
    def fence_zombies(self, message: protocol.FenceZombies) -> None:
        raise RetriableException("not yet")


def test_both_ends_of_a_channel_refuse_what_the_table_does_not_allow(caplog: pytest.LogCaptureFixture) -> None:
    """A wrong message is refused where it is sent; one that arrives anyway (an older peer, a bug) is
    answered with an error if it is a call and logged as an error if it is a notification."""
    ours, raw = multiprocessing.Pipe(duplex=True)
    executor = ThreadPoolExecutor(max_workers=1)
    worker = TaskChannel.worker_end(ours, _Fencing(), executor)  # type: ignore[arg-type]
    threading.Thread(target=worker.serve, daemon=True).start()
    try:
        with pytest.raises(protocol.UnknownMessage):
            worker.notify(protocol.TopicUsed(TASK, "t"))  # the task's to send, not the worker's
        with pytest.raises(protocol.UnknownMessage):
            worker.call_async(protocol.FenceZombies())
        raw.send(("call", 7, ("cancel",)))
        assert raw.poll(5)
        tag, call_id, ok, error = raw.recv()
        assert (tag, call_id, ok) == ("reply", 7, False)
        assert isinstance(error, protocol.UnknownMessage)
        assert "Unknown message 'cancel' from the task process" in str(error)
        raw.send(("call", 8, ("stop_task",)))  # a notification of the worker's, sent back at it
        assert raw.poll(5)
        assert isinstance(raw.recv()[3], protocol.UnknownMessage)
        raw.send(("call", 9, ("task_closed", False)))  # a notification sent as a call
        assert raw.poll(5)
        assert "sent as a call" in str(raw.recv()[3])
        with caplog.at_level(logging.ERROR, logger="connect_runtime.worker.task_channel"):
            raw.send(("note", ("cancel",)))
            raw.send(("note", ("fence_zombies",)))  # a call sent as a notification
            wait_until(lambda: len(caplog.records) >= 2, 5, message="both refusals are logged")
        assert "Unknown message 'cancel'" in caplog.text and "sent as a notification" in caplog.text
    finally:
        worker.close()
        raw.close()
        executor.shutdown(wait=False)
