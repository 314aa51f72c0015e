"""The worker reads connector settings through one parsed SourceConnectorConfig, built at start-up.

No broker: the producer and the task loop are replaced by recorders, so these tests see exactly what
the worker would hand them.
"""

from __future__ import annotations

import threading

import pytest
from worker_stubs import MINIMAL_WORKER, RecordingRunner, RecordingStatuses

from connect_runtime.api.errors import ConnectException
from connect_runtime.clients import producer_config
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.converters import JsonConverter, StringConverter
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker import task_process_main
from connect_runtime.worker import task_protocol as protocol
from connect_runtime.worker.task_process import TaskProcess
from connect_runtime.worker.worker import TASK_CLASS_CONFIG, Worker

TASK = ConnectorTaskId("c", 0)
CONNECTOR = {
    "name": "c",
    "connector.class": "VerifiableSource",
    "tasks.max": "3",
    "topic": "t",
}
TASK_PROPS = {**CONNECTOR, TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}


@pytest.fixture
def worker(monkeypatch: pytest.MonkeyPatch) -> Worker:
    return _worker(monkeypatch, {})


def _worker(monkeypatch: pytest.MonkeyPatch, extra: dict[str, str]) -> Worker:
    RecordingRunner.specs = []
    config = WorkerConfig.from_properties({
        **MINIMAL_WORKER, "exactly.once.source.support": "disabled", "producer.linger.ms": "7",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter", **extra,
    })
    return Worker(config, "w1:8083", PluginRegistry(), None, RecordingStatuses(), lambda name: None,  # type: ignore[arg-type]
                  task_runner=RecordingRunner)  # type: ignore[arg-type]


def _start_task(worker: Worker, connector_props: dict[str, str]) -> bool:
    return worker.start_task(TASK, connector_props, TASK_PROPS, TargetState.STARTED,
                             verify_generation=lambda: None)


def test_task_producer_gets_overrides_and_the_java_partitioner(worker: Worker) -> None:
    assert _start_task(worker, {**CONNECTOR, "producer.override.linger.ms": "20",
                                "producer.override.compression.type": "zstd",
                                "consumer.override.isolation.level": "read_uncommitted"})
    (conf,) = [producer_config(dict(spec.producer_config)) for spec in RecordingRunner.specs]  # as the process does
    assert conf["linger.ms"] == "20"  # the connector's override beats the worker's producer.linger.ms
    assert conf["compression.type"] == "zstd"
    assert "isolation.level" not in conf
    assert conf["client.id"] == f"connector-producer-c-{TASK.task}"  # Java's: one name per task
    assert conf["partitioner"] == "murmur2_random"


def test_an_explicit_partitioner_override_wins(worker: Worker) -> None:
    assert _start_task(worker, {**CONNECTOR, "producer.override.partitioner": "consistent_random"})
    assert producer_config(dict(RecordingRunner.specs[0].producer_config))["partitioner"] == "consistent_random"


def test_converters_come_from_the_connector_else_the_worker(worker: Worker) -> None:
    assert _start_task(worker, {**CONNECTOR, "key.converter": " StringConverter ",
                                "key.converter.converter.encoding": "UTF-16",
                                "value.converter.schemas.enable": "false"})
    (setup,) = RecordingRunner.specs
    key_converter = task_process_main._converter(setup, setup.key_converter, True)  # as the task process builds it
    value_converter = task_process_main._converter(setup, setup.value_converter, False)
    assert isinstance(key_converter, StringConverter)
    # No value.converter on the connector: the worker's StringConverter, not JSON, in spite of the
    # connector's value.converter.* key.
    assert isinstance(value_converter, StringConverter)
    assert not isinstance(value_converter, JsonConverter)


def test_invalid_stored_config_fails_the_task(worker: Worker) -> None:
    assert not _start_task(worker, {**CONNECTOR, "tasks.max": "many"})
    assert RecordingRunner.specs == []
    (status,) = worker.status_store.tasks  # type: ignore[attr-defined]
    assert status.state == "FAILED"
    assert "ConfigException: Invalid value many for configuration tasks.max: Not a number of type INT" in status.trace
    assert TASK in worker.task_ids()  # owned and FAILED until restarted or revoked


def test_connector_is_started_with_its_parsed_config(worker: Worker) -> None:
    assert worker.start_connector("c", CONNECTOR, TargetState.STARTED).result(5)
    config = worker.connector_config("c")
    assert config.tasks_max == 3
    assert config.originals == CONNECTOR
    assert len(worker.connector_task_configs("c", config.tasks_max).result(5)) == 3


def test_invalid_stored_config_fails_the_connector(worker: Worker) -> None:
    props = {**CONNECTOR, "topic.creation.groups": "big"}  # topic creation is on: default group required
    assert not worker.start_connector("c", props, TargetState.STARTED).result(5)
    (status,) = worker.status_store.connectors  # type: ignore[attr-defined]
    assert status.state == "FAILED"
    assert 'Missing required configuration "topic.creation.default.replication.factor"' in status.trace
    assert worker.connector_names() == ["c"]
    assert not worker.is_running("c")


def test_topic_creation_settings_on_a_worker_without_topic_creation_fail_the_connector_and_its_tasks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stored config (validated on another worker, or before the setting changed) is refused at start
    with the validation's message, not started with its topic.creation.* settings ignored."""
    worker = _worker(monkeypatch, {"topic.creation.enable": "false"})
    props = {**CONNECTOR, "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}
    message = ("Topic creation is disabled on this worker (topic.creation.enable=false), so the topic.creation.* "
               "settings would have no effect")
    assert not worker.start_connector("c", props, TargetState.STARTED).result(5)
    (status,) = worker.status_store.connectors  # type: ignore[attr-defined]
    assert status.state == "FAILED" and message in status.trace
    assert not _start_task(worker, props)
    assert RecordingRunner.specs == []
    (task_status,) = worker.status_store.tasks  # type: ignore[attr-defined]
    assert task_status.state == "FAILED" and message in task_status.trace
    # Without topic.creation.* settings the same worker starts the connector.
    assert worker.start_connector("d", {**CONNECTOR, "name": "d"}, TargetState.STARTED).result(5)


@pytest.mark.parametrize(("enforce", "started"), [("true", False), ("false", True)])
def test_more_stored_task_configs_than_tasks_max_fail_the_task(worker: Worker, enforce: str, started: bool) -> None:
    """Java 4.x ``Worker.startTask``: a connector with more task configs than ``tasks.max`` (e.g. lowered
    since they were written) fails its tasks unless ``tasks.max.enforce`` is false."""
    ok = worker.start_task(TASK, {**CONNECTOR, "tasks.max.enforce": enforce}, TASK_PROPS, TargetState.STARTED,
                           verify_generation=lambda: None, task_count=4)
    assert ok is started
    if not started:
        (status,) = worker.status_store.tasks  # type: ignore[attr-defined]
        assert status.state == "FAILED"
        assert "TooManyTasksException: The connector c has generated 4 tasks, which is greater than 3" in status.trace


class _Fencing:
    """The worker's one ZombieFencing: records which connectors its tasks asked to fence."""

    def __init__(self) -> None:
        self.connectors: list[str] = []

    def fence_zombies(self, connector: str, stopped: threading.Event | None = None) -> None:
        self.connectors.append(connector)


class _UnstartedProcess(TaskProcess):
    """The real task-process handle, without its process: its calls are made directly."""

    made: list[TaskProcess] = []

    def start(self) -> None:
        _UnstartedProcess.made.append(self)


def test_a_task_fences_through_the_one_fencing_its_worker_was_made_with(monkeypatch: pytest.MonkeyPatch) -> None:
    """The task process's FenceZombies call reaches the worker's ZombieFencing with the task's connector."""
    fencing = _Fencing()
    _UnstartedProcess.made = []
    config = WorkerConfig.from_properties({**MINIMAL_WORKER, "exactly.once.source.support": "disabled"})
    worker = Worker(config, "w1:8083", PluginRegistry(), None, RecordingStatuses(), lambda name: None,  # type: ignore[arg-type]
                    task_runner=_UnstartedProcess, fencing=fencing)
    assert _start_task(worker, CONNECTOR)
    (process,) = _UnstartedProcess.made
    process.fence_zombies(protocol.FenceZombies())
    assert fencing.connectors == ["c"]


def test_a_worker_made_without_fencing_fails_a_fencing_call(worker: Worker) -> None:
    """No herder to fence through: the task's start-up fails rather than run without fencing."""
    _UnstartedProcess.made = []
    worker._task_runner = _UnstartedProcess  # type: ignore[assignment]
    assert _start_task(worker, CONNECTOR)
    (process,) = _UnstartedProcess.made
    with pytest.raises(ConnectException, match="cannot fence zombies of connector c"):
        process.fence_zombies(protocol.FenceZombies())
