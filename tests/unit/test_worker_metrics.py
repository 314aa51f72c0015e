"""What the worker records about its connectors and tasks (no broker): counts, start-up outcomes, the
per-connector task counts and ``connector-metrics``, each opened and closed when Java's are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from worker_stubs import MINIMAL_WORKER, RecordingRunner, RecordingStatuses, StubSourceConnector

from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.storage.status_store import TaskStatus
from connect_runtime.testing import wait_until
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.worker import TASK_CLASS_CONFIG, Worker

CONNECTOR = {"name": "c", "connector.class": "VerifiableSource", "tasks.max": "2", "topic": "t"}
TASK_PROPS = {**CONNECTOR, TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}
T0, T1 = ConnectorTaskId("c", 0), ConnectorTaskId("c", 1)
C_TAGS = (("connector", "c"),)


class FailingStartConnector(StubSourceConnector):
    def start(self, props: Mapping[str, str]) -> None:
        raise RuntimeError("cannot start")


class Statuses(RecordingStatuses):
    """Keeps the latest status of each task, as the status store's view does."""

    def __init__(self) -> None:
        super().__init__()
        self.latest: dict[ConnectorTaskId, TaskStatus] = {}

    def put_task(self, status: Any, safe: bool = False) -> None:
        super().put_task(status, safe)
        self.latest[status.id] = status

    def get_task(self, task: ConnectorTaskId) -> TaskStatus | None:
        return self.latest.get(task)


@pytest.fixture
def worker() -> Any:
    config = WorkerConfig.from_properties({**MINIMAL_WORKER, "exactly.once.source.support": "disabled",
                                           "plugin.allowed.packages": __name__})
    w = Worker(config, "w1:8083", PluginRegistry(config.plugin_allowlist), None, Statuses(),  # type: ignore[arg-type]
               lambda name: None, task_runner=RecordingRunner)  # type: ignore[arg-type]
    yield w
    w.stop()


def _values(worker: Worker) -> dict[tuple[str, str, tuple[tuple[str, str], ...]], object]:
    return {(r.spec.group, r.spec.name, r.tags): r.value for r in worker.metrics.read()}


def _worker_metric(worker: Worker, name: str, tags: tuple[tuple[str, str], ...] = ()) -> object:
    return _values(worker).get(("connect-worker-metrics", name, tags))


def _connector_metrics(worker: Worker, name: str = "c") -> dict[str, object]:
    return {n: v for (g, n, tags), v in _values(worker).items()
            if g == "connector-metrics" and tags == (("connector", name),)}


def _start_task(worker: Worker, task: ConnectorTaskId, props: Mapping[str, str] = CONNECTOR) -> bool:
    return worker.start_task(task, props, TASK_PROPS, TargetState.STARTED, verify_generation=lambda: None)


def _status(worker: Worker, task: ConnectorTaskId) -> Any:
    """The status listener of ``task``'s current instance: what its process reports through."""
    runner = worker.task(task)
    assert runner is not None
    return runner.status  # type: ignore[attr-defined]


def test_a_started_connector_counts_and_shows_its_own_metrics_until_it_stops(worker: Worker) -> None:
    assert _worker_metric(worker, "connector-count") == 0.0
    assert worker.start_connector("c", CONNECTOR, TargetState.STARTED).result(5)
    assert _worker_metric(worker, "connector-count") == 1.0
    assert _worker_metric(worker, "connector-startup-attempts-total") == 1.0
    assert _worker_metric(worker, "connector-startup-success-total") == 1.0
    assert _worker_metric(worker, "connector-startup-success-percentage") == 1.0  # a fraction, as Java's
    assert _worker_metric(worker, "connector-startup-failure-percentage") == 0.0
    assert _connector_metrics(worker) == {
        "connector-type": "source", "connector-version": "0.1.0", "status": "running",
        # The Kafka name it stands in for, as task configs name it.
        "connector-class": "org.apache.kafka.connect.tools.VerifiableSourceConnector"}
    worker.set_connector_state("c", TargetState.PAUSED).result(5)
    assert _connector_metrics(worker)["status"] == "paused"
    worker.set_connector_state("c", TargetState.STOPPED).result(5)
    assert _connector_metrics(worker)["status"] == "stopped"
    worker.set_connector_state("c", TargetState.STARTED).result(5)
    assert _connector_metrics(worker)["status"] == "running"
    assert _worker_metric(worker, "connector-startup-attempts-total") == 1.0  # resuming is no start-up

    worker.stop_connector("c").result(5)
    wait_until(lambda: _worker_metric(worker, "connector-count") == 0.0, 5, message="the connector gone")
    assert _connector_metrics(worker) == {}


def test_a_connector_created_paused_has_made_no_start_up_attempt(worker: Worker) -> None:
    assert worker.start_connector("c", CONNECTOR, TargetState.PAUSED).result(5)
    assert _connector_metrics(worker)["status"] == "paused"
    worker.set_connector_state("c", TargetState.STARTED).result(5)
    assert _connector_metrics(worker)["status"] == "running"
    assert _worker_metric(worker, "connector-startup-attempts-total") == 0.0  # Java's onResume, not onStartup


def test_a_connector_failing_to_start_is_a_failed_start_up_and_still_counts(worker: Worker) -> None:
    props = {**CONNECTOR, "connector.class": f"{__name__}.FailingStartConnector"}
    assert not worker.start_connector("c", props, TargetState.STARTED).result(5)
    assert _worker_metric(worker, "connector-startup-failure-total") == 1.0
    assert _worker_metric(worker, "connector-startup-failure-percentage") == 1.0
    assert _worker_metric(worker, "connector-startup-success-total") == 0.0
    assert _worker_metric(worker, "connector-count") == 1.0  # it was instantiated: it runs here, FAILED
    assert _connector_metrics(worker)["status"] == "failed"
    assert _connector_metrics(worker)["connector-class"] == f"{__name__}.FailingStartConnector"


def test_a_connector_that_cannot_be_instantiated_fails_its_start_up_without_metrics_of_its_own(
        worker: Worker) -> None:
    assert not worker.start_connector("c", {**CONNECTOR, "tasks.max": "many"}, TargetState.STARTED).result(5)
    assert _worker_metric(worker, "connector-startup-failure-total") == 1.0
    assert _worker_metric(worker, "connector-count") == 0.0
    assert _connector_metrics(worker) == {}


def test_a_later_failure_of_a_started_connector_is_no_start_up_failure(worker: Worker) -> None:
    assert worker.start_connector("c", CONNECTOR, TargetState.STARTED).result(5)
    wc = worker.connector_instance("c")
    assert wc is not None
    worker._connector_failed(wc, RuntimeError("later"))  # what context.raise_error does
    assert _connector_metrics(worker)["status"] == "failed"
    assert _worker_metric(worker, "connector-startup-failure-total") == 0.0
    assert _worker_metric(worker, "connector-startup-success-total") == 1.0


def test_tasks_count_by_their_status_while_the_connector_has_any_here(worker: Worker) -> None:
    assert _worker_metric(worker, "connector-total-task-count", C_TAGS) is None
    assert _start_task(worker, T0) and _start_task(worker, T1)
    assert _worker_metric(worker, "task-count") == 2.0
    assert _worker_metric(worker, "connector-total-task-count", C_TAGS) == 2.0
    assert _worker_metric(worker, "task-startup-attempts-total") == 0.0  # not yet RUNNING
    _status(worker, T0).on_startup(T0)
    _status(worker, T1).on_startup(T1)
    _status(worker, T1).on_pause(T1)
    assert _worker_metric(worker, "task-startup-success-total") == 2.0
    assert _worker_metric(worker, "connector-running-task-count", C_TAGS) == 1.0
    assert _worker_metric(worker, "connector-paused-task-count", C_TAGS) == 1.0
    _status(worker, T0).on_failure(T0, "trace")  # after it ran: no start-up failure, but a FAILED task here
    assert _worker_metric(worker, "task-startup-failure-total") == 0.0
    assert _worker_metric(worker, "connector-failed-task-count", C_TAGS) == 1.0
    assert _worker_metric(worker, "task-count") == 2.0  # a FAILED task is still this worker's

    worker.stop_tasks([T0])
    wait_until(lambda: _worker_metric(worker, "connector-total-task-count", C_TAGS) == 1.0, 5,
               message="the stopped task gone")
    worker.stop_tasks([T1])
    wait_until(lambda: _worker_metric(worker, "connector-total-task-count", C_TAGS) is None, 5,
               message="the connector's group closed with its last task")
    assert _worker_metric(worker, "task-count") == 0.0


def test_a_task_that_cannot_be_built_fails_its_start_up_and_leaves_no_group(worker: Worker) -> None:
    assert not _start_task(worker, T0, {**CONNECTOR, "tasks.max": "many"})
    assert _worker_metric(worker, "task-startup-failure-total") == 1.0
    assert _worker_metric(worker, "task-startup-failure-percentage") == 1.0
    assert _worker_metric(worker, "task-count") == 0.0  # never among its tasks, as in Java
    assert _worker_metric(worker, "connector-total-task-count", C_TAGS) is None
    # Its restart is a new instance with a start-up of its own.
    worker.stop_tasks([T0])
    assert _start_task(worker, T0)
    _status(worker, T0).on_startup(T0)
    assert _worker_metric(worker, "task-startup-success-total") == 1.0
    assert _worker_metric(worker, "task-startup-attempts-total") == 2.0
    assert _worker_metric(worker, "task-startup-success-percentage") == 0.5


def test_a_late_failure_of_a_stopped_instance_is_not_charged_to_its_successor(worker: Worker) -> None:
    assert _start_task(worker, T0)
    first = _status(worker, T0)
    first.on_startup(T0)
    worker.stop_tasks([T0])
    wait_until(lambda: T0 not in worker.task_ids(), 5, message="the first instance gone")
    assert _start_task(worker, T0)
    first.on_failure(T0, "cancelled")  # the first instance's last word, arriving after its successor started
    assert _worker_metric(worker, "task-startup-failure-total") == 0.0
    _status(worker, T0).on_startup(T0)
    assert _worker_metric(worker, "task-startup-success-total") == 2.0
    assert _worker_metric(worker, "task-startup-attempts-total") == 2.0


def test_a_stopped_worker_leaves_no_series(worker: Worker) -> None:
    assert worker.start_connector("c", CONNECTOR, TargetState.STARTED).result(5)
    assert _start_task(worker, T0)
    worker.stop()
    assert worker.metrics.read() == []
