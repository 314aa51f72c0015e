"""The source task lifecycle, Java's since KAFKA-10792: the plugin's ``stop()`` runs once, on the task's
own thread, after ``poll()`` returned, and only for a task whose ``start()`` returned; a stop request
never calls into the plugin from the caller's thread. Likewise a connector's ``stop()`` runs once and
only after its ``start()`` returned.

The task loop's and the worker's logic only: the producer, offset store and status listener are fakes.
The same lifecycle through a worker on a real broker is in tests/integration/test_task_lifecycle.py.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from task_loop_setup import task_setup

from connect_runtime.api import SourceConnector, SourceRecord, SourceTask
from connect_runtime.api.config_def import ConfigDef, ConfigType
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.redaction import redactor
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
        self.safe: list[bool] = []

    def put_connector(self, status: Any, safe: bool = False) -> None:
        self.connectors.append(status)
        self.safe.append(safe)


def _make_worker(**settings: str) -> Worker:
    plugins = PluginRegistry()
    plugins.register(RecordingConnector)
    config = WorkerConfig.from_properties({
        "bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s", "exactly.once.source.support": "disabled",
        **settings,
    })
    return Worker(config, "w1:8083", plugins, None, _ConnectorStatuses(), lambda name: None)  # type: ignore[arg-type]


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> Worker:
    monkeypatch.setattr(RecordingConnector, "starts", 0)
    monkeypatch.setattr(RecordingConnector, "stops", 0)
    monkeypatch.setattr(RecordingConnector, "fail_start", False)
    monkeypatch.setattr(RecordingConnector, "fail_stop", False)
    return _make_worker()


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


@pytest.fixture
def raises_later(worker: Worker, monkeypatch: pytest.MonkeyPatch) -> type[RaisesLater]:
    for name, value in (("instances", []), ("starts", 0), ("stops", 0)):
        monkeypatch.setattr(RaisesLater, name, value)
    worker.plugins.register(RaisesLater)
    return RaisesLater


def test_a_connector_that_raises_an_error_is_failed_with_the_trace_and_not_stopped(
        worker: Worker, raises_later: type[RaisesLater]) -> None:
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


# -- an instance asked to stop, and one that does not stop ------------------------------------------


class GatedConnector(RecordingConnector):
    """The n-th ``start()`` blocks until ``gates[n]`` is set (starts beyond the gates return at once);
    has a PASSWORD key, ``secret``."""

    gates: list[threading.Event] = []

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("secret", ConfigType.PASSWORD, "")

    def start(self, props: Mapping[str, str]) -> None:
        n = type(self).starts
        super().start(props)
        if n < len(type(self).gates):
            type(self).gates[n].wait(10)


GATED = {**CONNECTOR, "connector.class": f"{__name__}.GatedConnector", "secret": "hunter2-secret"}


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[threading.Event]]:
    """Gates for the first two starts of :class:`GatedConnector`; opened when the test ends."""
    gates = [threading.Event(), threading.Event()]
    for name, value in (("gates", gates), ("starts", 0), ("stops", 0)):
        monkeypatch.setattr(GatedConnector, name, value)
    yield gates
    for gate in gates:
        gate.set()


def _gated_worker(graceful_ms: int) -> Worker:
    worker = _make_worker(**{"task.shutdown.graceful.timeout.ms": str(graceful_ms)})
    worker.plugins.register(GatedConnector)
    return worker


def _starting(worker: Worker, starts: int = 1) -> None:
    wait_until(lambda: GatedConnector.starts >= starts, 5, message="start() called")


def test_an_instance_stopped_while_starting_writes_no_status(gated: list[threading.Event]) -> None:
    """A delete, revoke or restart while start() runs: the late RUNNING would bring back a deleted
    record, or name this worker for a connector another now runs."""
    worker = _gated_worker(10000)
    started = worker.start_connector("c", GATED, TargetState.STARTED)
    _starting(worker)
    stopped = worker.stop_connector("c")
    gated[0].set()
    assert started.result(5)
    stopped.result(5)
    assert _states(worker) == []


def test_the_status_carries_the_generation_the_connector_started_in_and_is_written_safely(
        gated: list[threading.Event]) -> None:
    worker = _gated_worker(10000)
    worker.generation = 3
    started = worker.start_connector("c", GATED, TargetState.STARTED)
    _starting(worker)
    worker.generation = 4  # a rebalance while start() runs
    gated[0].set()
    assert started.result(5)
    (status,) = worker.status_store.connectors  # type: ignore[attr-defined]
    assert (status.state, status.generation) == ("RUNNING", 3)
    assert worker.status_store.safe == [True]  # type: ignore[attr-defined]


def test_an_old_instance_that_ends_late_leaves_the_new_ones_secrets_hidden(gated: list[threading.Event]) -> None:
    worker = _gated_worker(100)
    gated[1].set()  # the new instance starts at once
    props = {**GATED, "secret": "not-in-another-test"}  # the redactor is the process's
    worker.start_connector("c", props, TargetState.STARTED)
    _starting(worker)
    old_stopped = worker.stop_connector("c")
    # The new instance gives up waiting for the old one after the graceful timeout and starts anyway.
    assert worker.start_connector("c", props, TargetState.STARTED).result(5)
    gated[0].set()
    old_stopped.result(5)
    assert "not-in-another-test" not in redactor.redact("logged: not-in-another-test")
    worker.stop_connector("c").result(5)
    assert "not-in-another-test" in redactor.redact("logged: not-in-another-test")  # forgotten once the new one ended


def test_a_connector_whose_start_never_returns_is_given_up_on_after_the_graceful_timeout(
        gated: list[threading.Event]) -> None:
    worker = _gated_worker(100)
    worker.start_connector("c", GATED, TargetState.STARTED)
    _starting(worker)
    worker.stop_connector("c")
    # No longer this worker's: the leader can hand it over.
    wait_until(lambda: worker.connector_names() == [], 5, message="the stuck connector given up on")
    assert not worker.is_connector_stopping("c")
    gated[0].set()
    wait_until(lambda: GatedConnector.stops == 1, 5, message="the late start() followed by stop()")
    assert _states(worker) == []  # silenced: its late RUNNING would name this worker


def test_every_instance_still_stopping_is_tracked_after_quick_restarts(
        gated: list[threading.Event], caplog: pytest.LogCaptureFixture) -> None:
    # A graceful timeout long enough that worker.stop() below begins well within it on a loaded machine.
    worker = _gated_worker(3000)
    worker.start_connector("c", GATED, TargetState.STARTED)
    _starting(worker)
    worker.start_connector("c", GATED, TargetState.STARTED)  # a restart: the first is still in start()
    worker.stop_connector("c")  # and a delete, while the second waits for the first
    assert worker.connector_names() == ["c"]
    with caplog.at_level(logging.ERROR, logger="connect_runtime.worker.worker"):
        worker.stop()  # waits for both, and says so for each
    left = [r for r in caplog.records if "did not stop in time" in r.getMessage()]
    assert len(left) == 2, [r.getMessage() for r in caplog.records]


def test_only_the_first_error_is_reported(worker: Worker, raises_later: type[RaisesLater]) -> None:
    assert worker.start_connector("c", {**CONNECTOR, "connector.class": f"{__name__}.RaisesLater"},
                                  TargetState.STARTED).result(5)
    (connector,) = RaisesLater.instances
    connector.context.raise_error(RuntimeError("first"))
    connector.context.raise_error(RuntimeError("second"))
    assert _states(worker) == ["RUNNING", "FAILED"]
    assert "RuntimeError: first" in worker.status_store.connectors[-1].trace  # type: ignore[attr-defined]


def test_an_error_raised_after_the_stop_is_not_reported(worker: Worker, raises_later: type[RaisesLater]) -> None:
    assert worker.start_connector("c", {**CONNECTOR, "connector.class": f"{__name__}.RaisesLater"},
                                  TargetState.STARTED).result(5)
    (connector,) = RaisesLater.instances
    worker.stop_connector("c").result(5)
    connector.context.raise_error(RuntimeError("from its own thread, after the stop"))
    assert _states(worker) == ["RUNNING"]


def _started_paused(task: RecordingTask, events: list[str]) -> AtLeastOnceWorkerSourceTask:
    """The runner of ``task`` started with its connector paused, once it reported PAUSED."""
    runner = AtLeastOnceWorkerSourceTask(
        dataclasses.replace(task_setup(task, statuses=FakeStatusListener(events, track_topics=False)),
                            initial_state=TargetState.PAUSED),
        DeliveryErrors(), flush_interval_ms=60000, flush_timeout_ms=1000)
    runner.start()
    wait_until(lambda: events == ["PAUSED"], 10, message="the task reports PAUSED")
    return runner


def test_a_task_started_paused_reports_paused_and_starts_the_plugin_only_once_resumed() -> None:
    # A paused connector's tasks restarted (POST /restart?includeTasks=true) start paused: as on Java
    # they show PAUSED, not UNASSIGNED, and start nothing until resumed.
    events: list[str] = []
    task = RecordingTask(events)
    runner = _started_paused(task, events)
    assert task.polls == 0
    runner.transition_to(TargetState.STARTED)
    wait_until(lambda: task.polls >= 1, 10, message="the task polls once resumed")
    runner.stop()
    assert runner.join(10)
    assert events == ["PAUSED", "start", "RUNNING", "stop", "UNASSIGNED"]


def test_a_task_stopped_while_it_waits_paused_never_starts_the_plugin() -> None:
    events: list[str] = []
    task = RecordingTask(events)
    runner = _started_paused(task, events)
    runner.stop()
    assert runner.join(10)
    assert events == ["PAUSED", "UNASSIGNED"] and task.stops == []
