"""The worker and the validator with config providers and an override policy (no broker).

The producer and the task loop are replaced by recorders, as in ``test_worker_connector_config``, so
these tests see exactly which settings a task would be built with.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from worker_stubs import MINIMAL_WORKER, RecordingRunner, RecordingStatuses, StubSourceConnector

from connect_runtime.api import (
    ConnectorClientConfigOverridePolicy,
    ConnectorClientConfigRequest,
)
from connect_runtime.api.config_def import ConfigValue
from connect_runtime.api.errors import ConnectException
from connect_runtime.cluster.herder_api import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from connect_runtime.cluster.validation import ConnectorValidator, _with_raw_values
from connect_runtime.composition import ComposedWorker, compose_worker
from connect_runtime.config.config_providers import ConfigTransformer, EnvVarConfigProvider
from connect_runtime.config.override_policies import validate_client_overrides
from connect_runtime.config.worker_config import WorkerConfigError
from connect_runtime.errors import BadRequestHttpError
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.redaction import redactor
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.offsets_admin import SourceConnectorOffsets
from connect_runtime.worker.worker import TASK_CLASS_CONFIG, Worker
from rest.models import ConfigInfosModel

TASK = ConnectorTaskId("c", 0)
BASE = {
    **MINIMAL_WORKER, "exactly.once.source.support": "disabled",
    "plugin.allowed.packages": __name__,  # the plugins this module defines
}
SECRET_TOPIC = "topic-from-the-secret-file"
SECRET_SERVERS = "secret-broker:9093"
SECRET_TASKS = "not-a-number-1234"


class OnlyLingerPolicy(ConnectorClientConfigOverridePolicy):
    """A plugin author's policy, named by dotted path in the worker file."""

    policy_name = "OnlyLinger"

    def is_allowed(self, name: str, value: str, request: ConnectorClientConfigRequest) -> bool:
        return name == "linger.ms"


class NotAPolicy:
    pass


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    path = tmp_path / "secrets.properties"
    path.write_text(f"topic={SECRET_TOPIC}\nservers={SECRET_SERVERS}\ntasks={SECRET_TASKS}\n")
    return path


_started: list[tuple[Worker, ComposedWorker]] = []


@pytest.fixture(autouse=True)
def _stop_workers() -> Iterator[None]:
    """Stopped workers forget the values they resolved (the process-wide log redaction included)."""
    yield
    while _started:
        worker, composed = _started.pop()
        worker.stop()
        composed.close()


def _worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, runner: type[RecordingRunner] | None = None,
            **extra: str) -> Worker:
    RecordingRunner.specs = []
    composed = compose_worker({
        **BASE, "config.providers": "file", "config.providers.file.class": "FileConfigProvider",
        "config.providers.file.param.allowed.paths": str(tmp_path), **extra})
    config = composed.config
    worker = Worker(config, "w1:8083", PluginRegistry(config.plugin_allowlist), None, RecordingStatuses(),  # type: ignore[arg-type]
                    lambda name: None, task_runner=runner or RecordingRunner,  # type: ignore[arg-type]
                    worker_plugins=composed.plugins)
    _started.append((worker, composed))
    return worker


def _connector(secrets: Path, **extra: str) -> dict[str, str]:
    return {"name": "c", "connector.class": "VerifiableSource", "tasks.max": "1",
            "topic": f"${{file:{secrets}:topic}}", **extra}


def _start_task(worker: Worker, connector: dict[str, str], task: dict[str, str]) -> bool:
    return worker.start_task(TASK, connector, task, TargetState.STARTED, verify_generation=lambda: None)


def test_placeholders_resolve_at_start_and_task_configs_keep_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path
) -> None:
    worker = _worker(monkeypatch, tmp_path)
    connector = _connector(secrets, **{"producer.override.bootstrap.servers": f"${{file:{secrets}:servers}}"})
    assert worker.start_connector("c", connector, TargetState.STARTED).result(5)
    assert worker.connector_config("c").originals["topic"] == SECRET_TOPIC  # the connector sees the value
    (task_config,) = worker.connector_task_configs("c", 1).result(5)
    assert task_config["topic"] == connector["topic"]  # ... but its task configs keep the placeholder

    assert _start_task(worker, connector, task_config)
    (setup,) = RecordingRunner.specs
    assert setup.task_config["topic"] == SECRET_TOPIC  # the task starts with the value
    assert RecordingRunner.specs[0].producer_config["bootstrap.servers"] == SECRET_SERVERS


def test_a_failure_trace_shows_the_placeholder_not_the_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path
) -> None:
    worker = _worker(monkeypatch, tmp_path)
    connector = _connector(secrets, **{"tasks.max": f"${{file:{secrets}:tasks}}"})
    assert not worker.start_connector("c", connector, TargetState.STARTED).result(5)
    (status,) = worker.status_store.connectors  # type: ignore[attr-defined]
    assert "Invalid value" in status.trace and f"${{file:{secrets}:tasks}}" in status.trace
    assert SECRET_TASKS not in status.trace
    assert "line 1" in redactor.redact("line 1")  # short resolved values ("1") are left alone
    assert redactor.redact(SECRET_TASKS) != SECRET_TASKS
    worker.stop()
    assert redactor.redact(SECRET_TASKS) == SECRET_TASKS  # forgotten once the worker stopped the connector


def test_a_path_outside_allowed_paths_fails_the_task(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path
) -> None:
    (tmp_path / "only-here").mkdir()  # allowed.paths: the secrets file is outside
    worker = _worker(monkeypatch, tmp_path / "only-here")
    task = {**_connector(secrets), TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}
    assert not _start_task(worker, _connector(secrets), task)
    (status,) = worker.status_store.tasks  # type: ignore[attr-defined]
    assert f"The path {secrets} is not allowed to be accessed" in status.trace
    assert RecordingRunner.specs == []


@pytest.mark.parametrize(
    "policy", ["None", "org.apache.kafka.connect.connector.policy.NoneConnectorClientConfigOverridePolicy"])
def test_policy_none_fails_a_task_with_a_stored_override(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path, policy: str
) -> None:
    worker = _worker(monkeypatch, tmp_path, **{"connector.client.config.override.policy": policy})
    connector = {**_connector(secrets), "producer.override.bootstrap.servers": "elsewhere:9092"}
    task = {**connector, TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}
    assert not _start_task(worker, connector, task)
    assert RecordingRunner.specs == []
    (status,) = worker.status_store.tasks  # type: ignore[attr-defined]
    assert ("Client Config Overrides not allowed [producer.override.bootstrap.servers: The 'None' policy does "
            "not allow 'bootstrap.servers' to be overridden in the connector configuration.]") in status.trace
    assert not worker.start_connector("c", connector, TargetState.STARTED).result(5)


def test_policy_all_and_principal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path) -> None:
    worker = _worker(monkeypatch, tmp_path, **{"connector.client.config.override.policy": "Principal"})
    ok = {**_connector(secrets), "producer.override.sasl.mechanism": "PLAIN",
          "producer.override.security.protocol": "PLAINTEXT"}
    task = {**ok, TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}
    assert _start_task(worker, ok, task)
    # The override, translated for librdkafka.
    assert RecordingRunner.specs[0].producer_config["sasl.mechanisms"] == "PLAIN"
    policy = worker.worker_plugins.override_policy
    verdicts = validate_client_overrides(policy, "c", object, {**ok, "admin.override.retries": "1",
                                                                "consumer.override.sasl.jaas.config": "x"})
    assert {cv.name: cv.errors for cv in verdicts} == {
        "producer.override.sasl.mechanism": [],
        "producer.override.security.protocol": [],
        "consumer.override.sasl.jaas.config": [],
        "admin.override.retries": ["The 'Principal' policy does not allow 'retries' to be overridden in the "
                                   "connector configuration."],
    }


def test_a_policy_class_by_dotted_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    policy = f"{__name__}.OnlyLingerPolicy"
    worker = _worker(monkeypatch, tmp_path, **{"connector.client.config.override.policy": policy})
    verdicts = validate_client_overrides(worker.worker_plugins.override_policy, "c", object,
                                         {"producer.override.linger.ms": "5", "producer.override.acks": "1"})
    assert [cv.errors for cv in verdicts] == [
        [], ["The 'OnlyLinger' policy does not allow 'acks' to be overridden in the connector configuration."]]
    for bad in ("Everything", f"{__name__}.NotAPolicy"):
        with pytest.raises(WorkerConfigError) as info:
            compose_worker({**BASE, "connector.client.config.override.policy": bad})
        assert f'Invalid value "{bad}" for configuration connector.client.config.override.policy' in str(info.value)


def _by_name(infos: Any) -> dict[str, Any]:
    return {c.value.name: c.value for c in infos.configs}


def test_validation_checks_resolved_values_and_echoes_raw_ones(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path
) -> None:
    worker = _worker(monkeypatch, tmp_path, **{"connector.client.config.override.policy": "None"})
    validator = ConnectorValidator(worker.config, worker.plugins, worker.worker_plugins)
    props = _connector(secrets, **{"tasks.max": f"${{file:{secrets}:tasks}}",
                                   "producer.override.bootstrap.servers": "elsewhere:9092"})
    infos = validator.validate(props)
    values = _by_name(infos)
    assert values["topic"].value == props["topic"] and values["topic"].errors == []
    # The resolved value is what is checked; the response shows the placeholder, in value and message.
    assert values["tasks.max"].value == props["tasks.max"]
    assert values["tasks.max"].errors and all(SECRET_TASKS not in e for e in values["tasks.max"].errors)
    assert any(props["tasks.max"] in e for e in values["tasks.max"].errors)
    assert values["producer.override.bootstrap.servers"].errors == [
        "The 'None' policy does not allow 'bootstrap.servers' to be overridden in the connector configuration."]
    assert infos.error_count == len(values["tasks.max"].errors) + 1


def test_validation_reports_a_refused_path_on_its_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path
) -> None:
    (tmp_path / "only-here").mkdir()
    allowed = tmp_path / "only-here" / "tasks.properties"
    allowed.write_text("tasks=2\n")
    worker = _worker(monkeypatch, tmp_path / "only-here")
    infos = ConnectorValidator(worker.config, worker.plugins, worker.worker_plugins).validate(
        _connector(secrets, **{"tasks.max": f"${{file:{allowed}:tasks}}"}))
    topic = _by_name(infos)["topic"]
    assert topic.value == f"${{file:{secrets}:topic}}"
    assert topic.errors == [f"The path {secrets} is not allowed to be accessed"]
    # The other placeholder still resolves (and is shown raw): the refusal is on its own key only.
    assert _by_name(infos)["tasks.max"].errors == []
    assert _by_name(infos)["tasks.max"].value == f"${{file:{allowed}:tasks}}"
    assert infos.error_count == 1


SECRET_ALIAS = "hunter2secret"


def _password_ref(tmp_path: Path) -> str:
    """A placeholder for ``SECRET_ALIAS``, read from a file under ``tmp_path``."""
    secret_file = tmp_path / "db.properties"
    secret_file.write_text(f"password={SECRET_ALIAS}\n")
    return f"${{file:{secret_file}:password}}"


class ValidateExplodes(StubSourceConnector):
    """A plugin whose validate() fails with the resolved password in its message."""

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        raise ValueError(f"cannot log in with {props['password']}")


def test_validation_refuses_placeholders_in_keys_that_shape_the_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secret_file = tmp_path / "aliases.properties"
    secret_file.write_text(f"alias={SECRET_ALIAS}\ncls={SECRET_ALIAS}\n")
    ref = f"${{file:{secret_file}:alias}}"
    cls_ref = f"${{file:{secret_file}:cls}}"
    worker = _worker(monkeypatch, tmp_path, **{"topic.creation.enable": "true"})
    props = {"name": "c", "connector.class": "VerifiableSource", "tasks.max": "1", "topic": ref,
             "transforms": ref, "predicates": ref, "topic.creation.groups": ref,
             "transforms.a.type": cls_ref, "predicates.p.type": cls_ref}
    infos = ConnectorValidator(worker.config, worker.plugins, worker.worker_plugins).validate(props)
    # Nowhere in the REST answer: not in key names, groups, documentation, values or errors.
    body = json.dumps(ConfigInfosModel.from_entity(infos).to_json())
    assert SECRET_ALIAS not in body
    values = _by_name(infos)
    for key in ("transforms", "predicates", "topic.creation.groups", "transforms.a.type", "predicates.p.type"):
        assert values[key].value == props[key]
        assert any("must not contain a config provider placeholder" in e for e in values[key].errors), key
    # Other keys still resolve (and show the placeholder).
    assert values["topic"].value == ref and values["topic"].errors == []


def test_validation_refuses_a_placeholder_connector_class_and_never_echoes_resolved_values(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ref = _password_ref(tmp_path)
    worker = _worker(monkeypatch, tmp_path)
    validator = ConnectorValidator(worker.config, worker.plugins, worker.worker_plugins)
    with pytest.raises(BadRequestHttpError) as info:
        validator.validate({"name": "x", "password": ref})
    assert "contains no connector type" in str(info.value)
    assert SECRET_ALIAS not in str(info.value) and ref in str(info.value)
    with pytest.raises(BadRequestHttpError) as info:
        validator.validate({"name": "x", "connector.class": ref})
    assert "connector.class must not contain a config provider placeholder" in str(info.value)
    assert SECRET_ALIAS not in str(info.value)


def test_logs_written_while_validating_are_redacted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ref = _password_ref(tmp_path)
    worker = _worker(monkeypatch, tmp_path)
    validator = ConnectorValidator(worker.config, worker.plugins, worker.worker_plugins)
    with caplog.at_level(logging.ERROR):
        infos = validator.validate({"name": "x", "connector.class": f"{__name__}.ValidateExplodes",
                                    "tasks.max": "1", "password": ref})
    assert "failed to validate" in caplog.text
    assert SECRET_ALIAS not in caplog.text and ref in caplog.text
    assert SECRET_ALIAS not in json.dumps(ConfigInfosModel.from_entity(infos).to_json())
    # Only while validating: afterwards the value is no longer held by the redactor.
    assert redactor.redact(SECRET_ALIAS) == SECRET_ALIAS


class LogsOnStop(ValidateExplodes):
    """A plugin whose stop() logs (and so is still running) with what it resolved."""

    def start(self, props: Mapping[str, str]) -> None:
        self.password = props["password"]

    def stop(self) -> None:
        logging.getLogger(__name__).warning("closing the session of %s", self.password)


def test_a_connector_s_secrets_stay_redacted_until_its_stop_returned(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ref = _password_ref(tmp_path)
    worker = _worker(monkeypatch, tmp_path)
    assert worker.start_connector("c", {"name": "c", "connector.class": f"{__name__}.LogsOnStop",
                                        "tasks.max": "1", "password": ref}, TargetState.STARTED).result(5)
    with caplog.at_level(logging.WARNING):
        worker.stop_connector("c").result(5)
    assert "closing the session of" in caplog.text
    assert SECRET_ALIAS not in caplog.text and ref in caplog.text
    assert redactor.redact(SECRET_ALIAS) == SECRET_ALIAS  # forgotten once stop() returned


class _StuckRunner(RecordingRunner):
    """A task that does not end when cancelled (its process not yet reaped)."""

    cancelled = False
    instances: list[_StuckRunner] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _StuckRunner.instances.append(self)

    def cancel(self) -> None:
        _StuckRunner.cancelled = True

    def join(self, timeout_s: float) -> bool:
        return False


def test_a_cancelled_task_s_secrets_stay_redacted_until_its_thread_ends(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path
) -> None:
    worker = _worker(monkeypatch, tmp_path, runner=_StuckRunner)
    task = {**_connector(secrets), TASK_CLASS_CONFIG: "connectors.verifiable.connector.VerifiableSourceTask"}
    assert _start_task(worker, _connector(secrets), task)
    worker.stop_and_await_tasks([TASK], timeout_s=0.0)
    assert _StuckRunner.cancelled
    # Its code may still run (and log): the values stay redacted.
    assert redactor.redact(SECRET_TOPIC) != SECRET_TOPIC
    (runner,) = _StuckRunner.instances[-1:]
    runner.on_closed(None)  # what the task process's handle calls once the process has ended
    assert redactor.redact(SECRET_TOPIC) == SECRET_TOPIC


class _NoStores:
    """The config fails to parse before any offsets store is needed."""

    def for_connector(self, config: Any) -> Any:
        raise AssertionError("not reached")


def test_an_offsets_request_never_shows_a_resolved_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, secrets: Path, caplog: pytest.LogCaptureFixture
) -> None:
    worker = _worker(monkeypatch, tmp_path)
    offsets = SourceConnectorOffsets(worker.config, worker.plugins, _NoStores(), worker.worker_plugins)  # type: ignore[arg-type]
    props = _connector(secrets, **{"tasks.max": f"${{file:{secrets}:tasks}}"})
    try:
        with caplog.at_level(logging.ERROR), pytest.raises(ConnectException) as info:
            offsets.read("c", props).result(10)
    finally:
        offsets.close()
    assert SECRET_TASKS not in str(info.value)
    # The logged trace names the key and its placeholder, not the value.
    assert "Failed to retrieve offsets" in caplog.text and props["tasks.max"] in caplog.text
    assert SECRET_TASKS not in caplog.text


def test_every_string_of_a_validation_result_is_redacted() -> None:
    provider = EnvVarConfigProvider({"SECRETPW": SECRET_ALIAS})
    provider.configure({})
    resolved = ConfigTransformer({"env": provider}).transform({"x": "${env:SECRETPW}"})
    key = ConfigKeyInfo(name=f"k.{SECRET_ALIAS}", type="STRING", required=False, default_value=SECRET_ALIAS,
                        importance="LOW", documentation=f"about {SECRET_ALIAS}", group=f"G: {SECRET_ALIAS}",
                        order=0, width="NONE", display_name=SECRET_ALIAS, dependents=[SECRET_ALIAS])
    value = ConfigValueInfo(f"k.{SECRET_ALIAS}", SECRET_ALIAS, [SECRET_ALIAS], [f"bad {SECRET_ALIAS}"], True)
    infos = ConfigInfos(SECRET_ALIAS, 1, [f"G: {SECRET_ALIAS}"], [ConfigInfo(key, value)])
    shown = _with_raw_values(infos, {"x": "${env:SECRETPW}"}, resolved)
    body = json.dumps(ConfigInfosModel.from_entity(shown).to_json())
    assert SECRET_ALIAS not in body and "${env:SECRETPW}" in body
