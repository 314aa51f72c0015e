"""The source task lifecycle, Java's since KAFKA-10792: the plugin's ``stop()`` runs once, on the task's
own thread, after ``poll()`` returned, and only for a task whose ``start()`` returned; a stop request
never calls into the plugin from the caller's thread. Likewise a connector's ``stop()`` runs once and
only after its ``start()`` returned.

The task loop's and the worker's logic only: the producer, offset store and status listener are fakes.
The same lifecycle through a worker on a real broker is in tests/integration/test_task_lifecycle.py.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pytest
from task_loop_setup import task_setup

from connect_runtime.api import SourceConnector, SourceRecord, SourceTask
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.testing.cluster import wait_until
from connect_runtime.testing.fakes import FakeStatusListener
from connect_runtime.types import TargetState
from connect_runtime.worker.at_least_once_source_task import AtLeastOnceWorkerSourceTask, DeliveryErrors
from connect_runtime.worker.worker import Worker


class RecordingTask(SourceTask):
    """Records the thread of every call, and whether ``poll`` was running when ``stop`` came."""

    def __init__(self, events: list[str], fail_start: bool = False, fail_poll: bool = False,
                 poll_gate: threading.Event | None = None) -> None:
        self.events = events
        self.fail_start = fail_start
        self.fail_poll = fail_poll
        self.poll_gate = poll_gate  # set: poll blocks until it is set (a poll that does not return)
        self.polling = False
        self.poll_threads: set[int] = set()
        self.polls = 0
        #: (thread ident, whether poll was running) of every stop() call
        self.stops: list[tuple[int, bool]] = []

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        self.events.append("start")
        if self.fail_start:
            raise RuntimeError("start boom")

    def poll(self) -> list[SourceRecord] | None:
        self.polling = True
        try:
            self.poll_threads.add(threading.get_ident())
            self.polls += 1
            if self.fail_poll:
                raise RuntimeError("poll boom")
            if self.poll_gate is not None:
                self.poll_gate.wait()
            else:
                threading.Event().wait(0.02)  # a poll that takes a while, as real ones do
            return None
        finally:
            self.polling = False

    def stop(self) -> None:
        self.events.append("stop")
        self.stops.append((threading.get_ident(), self.polling))


def _runner(task: RecordingTask, events: list[str]) -> AtLeastOnceWorkerSourceTask:
    setup = task_setup(task, statuses=FakeStatusListener(events, track_topics=False))
    return AtLeastOnceWorkerSourceTask(setup, DeliveryErrors(), flush_interval_ms=60000, flush_timeout_ms=1000)


def test_stop_runs_once_on_the_task_thread_after_poll_returned() -> None:
    events: list[str] = []
    task = RecordingTask(events)
    runner = _runner(task, events)
    runner.start()
    wait_until(lambda: task.polls >= 3, 10, message="the task polls")
    runner.stop()
    assert task.stops == []  # the request only asks: nothing of the plugin ran on this thread
    assert runner.join(10)
    runner.stop()  # the worker may ask again (a revocation after a stop): nothing more happens
    assert len(task.stops) == 1, task.stops
    (thread, polling), = task.stops
    assert task.poll_threads == {thread}  # the thread that polled
    assert thread != threading.get_ident()
    assert not polling
    assert events == ["start", "RUNNING", "stop", "UNASSIGNED"]


def test_a_task_that_failed_in_start_gets_no_stop() -> None:
    events: list[str] = []
    task = RecordingTask(events, fail_start=True)
    runner = _runner(task, events)
    runner.start()
    assert runner.join(10)
    runner.stop()  # as the worker does when the FAILED task is later revoked, deleted or restarted
    assert runner.join(10)
    assert task.stops == []
    assert events == ["start", "FAILED"]


def test_a_task_that_failed_in_poll_is_stopped_once_on_its_thread_before_it_is_reported_failed() -> None:
    events: list[str] = []
    task = RecordingTask(events, fail_poll=True)
    runner = _runner(task, events)
    runner.start()
    assert runner.join(10)
    runner.stop()
    assert len(task.stops) == 1
    (thread, polling), = task.stops
    assert task.poll_threads == {thread} and not polling
    assert events == ["start", "RUNNING", "stop", "FAILED"]


def test_a_poll_that_does_not_return_holds_back_the_stop_until_it_returns() -> None:
    """A stop request calls nothing of the plugin from the worker's thread: the plugin is stopped on its
    own thread once its blocked poll returns (a poll that never does ends with its process)."""
    events: list[str] = []
    gate = threading.Event()
    task = RecordingTask(events, poll_gate=gate)
    runner = _runner(task, events)
    runner.start()
    wait_until(lambda: task.polling, 10, message="the task is in poll")
    runner.stop()
    assert not runner.join(0.2)
    assert task.stops == [] and task.polling
    gate.set()
    assert runner.join(10)
    assert len(task.stops) == 1
    assert task.stops[0] == (next(iter(task.poll_threads)), False)


# -- connectors ---------------------------------------------------------------------------------------


class RecordingConnector(SourceConnector):
    """Counts start and stop calls; fails where told."""

    fail_start = False
    fail_stop = False
    starts = 0
    stops = 0

    def version(self) -> str:
        return "1"

    def start(self, props: Mapping[str, str]) -> None:
        type(self).starts += 1
        if self.fail_start:
            raise RuntimeError("connector start boom")

    def task_class(self) -> type[SourceTask]:
        return RecordingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{}]

    def stop(self) -> None:
        type(self).stops += 1
        if self.fail_stop:
            raise RuntimeError("connector stop boom")


class _ConnectorStatuses:
    def __init__(self) -> None:
        self.connectors: list[Any] = []

    def put_connector(self, status: Any, safe: bool = False) -> None:
        self.connectors.append(status)


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> Worker:
    monkeypatch.setattr(RecordingConnector, "starts", 0)
    monkeypatch.setattr(RecordingConnector, "stops", 0)
    monkeypatch.setattr(RecordingConnector, "fail_start", False)
    monkeypatch.setattr(RecordingConnector, "fail_stop", False)
    plugins = PluginRegistry()
    plugins.register(RecordingConnector)
    config = WorkerConfig.from_properties({
        "bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s", "exactly.once.source.support": "disabled",
    })
    return Worker(config, "w1:8083", plugins, None, _ConnectorStatuses(), lambda name: None)  # type: ignore[arg-type]


CONNECTOR = {"name": "c", "connector.class": f"{__name__}.RecordingConnector", "tasks.max": "1"}


def _states(worker: Worker) -> list[str]:
    return [s.state for s in worker.status_store.connectors]  # type: ignore[attr-defined]


def test_a_connector_that_failed_in_start_gets_no_stop(worker: Worker) -> None:
    RecordingConnector.fail_start = True
    assert not worker.start_connector("c", CONNECTOR, TargetState.STARTED).result(5)
    worker.stop_connector("c").result(5)
    assert (RecordingConnector.starts, RecordingConnector.stops) == (1, 0)
    assert _states(worker) == ["FAILED"]


def test_a_connector_is_stopped_once_per_start(worker: Worker) -> None:
    assert worker.start_connector("c", CONNECTOR, TargetState.STARTED).result(5)
    worker.set_connector_state("c", TargetState.PAUSED).result(5)
    worker.set_connector_state("c", TargetState.STOPPED).result(5)  # already stopped: not again
    worker.stop_connector("c").result(5)
    assert (RecordingConnector.starts, RecordingConnector.stops) == (1, 1)
    worker.start_connector("c", CONNECTOR, TargetState.PAUSED).result(5)  # created paused: never started
    worker.stop_connector("c").result(5)
    assert (RecordingConnector.starts, RecordingConnector.stops) == (1, 1)


def test_a_connector_whose_stop_fails_while_pausing_is_failed_and_not_stopped_again(worker: Worker) -> None:
    RecordingConnector.fail_stop = True
    assert worker.start_connector("c", CONNECTOR, TargetState.STARTED).result(5)
    worker.set_connector_state("c", TargetState.PAUSED).result(5)  # stop() raises: FAILED, as in Java
    worker.stop_connector("c").result(5)
    assert (RecordingConnector.starts, RecordingConnector.stops) == (1, 1)
    assert _states(worker) == ["RUNNING", "FAILED"]


class BlockingConnector(RecordingConnector):
    """``start()`` blocks until the test releases it; records the threads its calls run on."""

    release = threading.Event()
    threads: list[str] = []

    def start(self, props: Mapping[str, str]) -> None:
        type(self).threads.append(threading.current_thread().name)
        type(self).release.wait(10)
        super().start(props)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        type(self).threads.append(threading.current_thread().name)
        return [{}]

    def stop(self) -> None:
        type(self).threads.append(threading.current_thread().name)
        super().stop()


class RaisesLater(RecordingConnector):
    """Keeps its instances, for the test to report an error through their context, as a connector's own
    background thread would."""

    instances: list[RaisesLater] = []

    def start(self, props: Mapping[str, str]) -> None:
        super().start(props)
        type(self).instances.append(self)


@pytest.fixture
def blocking(worker: Worker, monkeypatch: pytest.MonkeyPatch) -> type[BlockingConnector]:
    for name, value in (("release", threading.Event()), ("threads", []), ("starts", 0), ("stops", 0)):
        monkeypatch.setattr(BlockingConnector, name, value)
    worker.plugins.register(BlockingConnector)
    return BlockingConnector


def test_a_connector_runs_on_its_own_thread_and_a_slow_start_blocks_no_caller(
        worker: Worker, blocking: type[BlockingConnector]) -> None:
    props = {**CONNECTOR, "connector.class": f"{__name__}.BlockingConnector"}
    started = worker.start_connector("c", props, TargetState.STARTED)  # returns while start() blocks
    wait_until(lambda: BlockingConnector.threads, 5, message="start() called")
    assert worker.connector_names() == ["c"] and not worker.is_running("c") and not started.done()
    configs = worker.connector_task_configs("c")  # asked while starting: answered after start() returned
    stopped = worker.stop_connector("c")  # likewise: stop() only after start() and task_configs()
    assert worker.connector_names() == ["c"]  # still stopping: still this worker's
    BlockingConnector.release.set()
    assert started.result(5) and len(configs.result(5)) == 1
    stopped.result(5)
    wait_until(lambda: worker.connector_names() == [], 5, message="the stopped connector gone")
    assert BlockingConnector.threads == ["connector-c"] * 3
    assert (BlockingConnector.starts, BlockingConnector.stops) == (1, 1)


def test_a_new_instance_starts_after_the_previous_one_stopped(
        worker: Worker, blocking: type[BlockingConnector]) -> None:
    props = {**CONNECTOR, "connector.class": f"{__name__}.BlockingConnector"}
    first = worker.start_connector("c", props, TargetState.STARTED)
    worker.stop_connector("c")
    second = worker.start_connector("c", props, TargetState.STARTED)  # a restart while the first is starting
    BlockingConnector.release.set()
    assert first.result(5) and second.result(5)
    # start, stop of the first instance, then the second's start: never two instances at once.
    assert (BlockingConnector.starts, BlockingConnector.stops) == (2, 1)
    assert worker.is_running("c")


def test_a_connector_that_raises_an_error_is_failed_with_the_trace_and_not_stopped(
        worker: Worker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RaisesLater, "starts", 0)
    monkeypatch.setattr(RaisesLater, "stops", 0)
    monkeypatch.setattr(RaisesLater, "instances", [])
    worker.plugins.register(RaisesLater)
    assert worker.start_connector("c", {**CONNECTOR, "connector.class": f"{__name__}.RaisesLater"},
                                  TargetState.STARTED).result(5)
    (connector,) = RaisesLater.instances
    connector.context.raise_error(RuntimeError("the source went away"))  # from a thread not the connector's
    wait_until(lambda: _states(worker) == ["RUNNING", "FAILED"], 5, message="the connector FAILED")
    trace = worker.status_store.connectors[-1].trace  # type: ignore[attr-defined]
    assert "RuntimeError: the source went away" in trace
    assert not worker.is_running("c")
    with pytest.raises(Exception, match="Connector c is not running"):
        worker.connector_task_configs("c").result(5)
    worker.set_connector_state("c", TargetState.PAUSED).result(5)  # no transition out of FAILED
    worker.stop_connector("c").result(5)
    assert (RaisesLater.starts, RaisesLater.stops) == (1, 0)
    assert _states(worker) == ["RUNNING", "FAILED"]
