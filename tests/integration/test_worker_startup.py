"""A worker with a bad config refuses to start with one line naming the key and no traceback: a plugin class
that is missing or of the wrong kind, an internal-topic setting the reference would ignore, an existing
internal topic that is not compacted (or a config topic with several partitions, with the reference's
messages), and a Kafka cluster that does not answer within ``default.api.timeout.ms``."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import cast

import pytest

from connect_runtime.api.errors import ConfigException
from connect_runtime.config.connector_config import SourceConnectorConfig
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.storage.offset_backing_store import KafkaOffsetBackingStore
from connect_runtime.testing.cluster import WorkerProcess
from connect_runtime.testing.local_kafka import free_port
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.worker.offset_store_factory import OffsetStoreFactory

_CMD = "import sys; from connect_runtime.cli import distributed_main; sys.exit(distributed_main(sys.argv[1:]))"


def _run(path: Path, *overrides: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-c", _CMD, str(path)]
    for o in overrides:
        args += ["--override", o]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("connect-distributed:")]


BASE = ("bootstrap.servers=127.0.0.1:1\ngroup.id=g\nconfig.storage.topic=c\noffset.storage.topic=o\n"
        "status.storage.topic=s\n")


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("exactly.once.source.support=maybe\n", 'Invalid value "maybe" for configuration exactly.once.source.support'),
        ("offset.flush.interval.ms=soon\n", "offset.flush.interval.ms"),
        ("config.storage.replication.factor=0\n", "config.storage.replication.factor"),
        ("config.providers=vault\nconfig.providers.vault.class=no.such.VaultProvider\n",
         "Invalid value no.such.VaultProvider for configuration config.providers.vault.class"),
        ("config.providers=env\nconfig.providers.env.class=EnvVarConfigProvider\n"
         "config.providers.env.param.allowlist.pattern=(\n",
         "Config provider env (config.providers.env.class=EnvVarConfigProvider) failed to configure"),
        # A typo in a provider's param must not leave the provider unrestricted.
        ("config.providers=file\nconfig.providers.file.class=FileConfigProvider\n"
         "config.providers.file.param.allowed.path=/x\n",
         "Unknown configuration config.providers.file.param.allowed.path for config provider file"),
        ("connector.client.config.override.policy=Some\n",
         'Invalid value "Some" for configuration connector.client.config.override.policy'),
        # Plugin classes must exist and be of the key's kind (checked before Kafka is contacted).
        ("key.converter=com.example.NoSuchConverter\n",
         "Invalid value com.example.NoSuchConverter for configuration key.converter: "
         "Class com.example.NoSuchConverter could not be found."),
        ("value.converter=FileStreamSource\n",
         "Invalid value FileStreamSource for configuration value.converter: "
         "Class class FileStreamSource does not implement the Converter interface"),
        ("header.converter=no.such.module.HeaderConverter\n",
         "Class no.such.module.HeaderConverter could not be found."),
        # The reference ignores these with a warning: we refuse them.
        ("config.storage.partitions=3\n", 'Invalid value "3" for configuration config.storage.partitions'),
        ("status.storage.cleanup.policy=delete\n",
         'Invalid value "delete" for configuration status.storage.cleanup.policy'),
        ("internal.value.converter=org.apache.kafka.connect.json.JsonConverter\n",
         "for configuration internal.value.converter: the internal converter settings were removed"),
        ("metric.reporters=com.example.Reporter\n", 'Invalid value "com.example.Reporter" for configuration '
         "metric.reporters: Java metrics reporter classes cannot run in this runtime; remove it"),
    ],
)
def test_invalid_value_names_the_key(tmp_path: Path, extra: str, needle: str) -> None:
    path = tmp_path / "w.properties"
    path.write_text(BASE + extra)
    result = _run(path)
    assert result.returncode == 1
    errors = _errors(result.stderr)
    assert len(errors) == 1 and needle in errors[0], result.stderr
    assert "Traceback" not in result.stderr, result.stderr


def test_a_start_up_error_never_shows_a_resolved_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRETPW", "hunter2secret")
    path = tmp_path / "w.properties"
    path.write_text(BASE + "config.providers=env\nconfig.providers.env.class=EnvVarConfigProvider\n"
                    "offset.flush.interval.ms=${env:SECRETPW}\n")
    result = _run(path)
    assert result.returncode == 1
    assert _errors(result.stderr) == [
        'connect-distributed: Invalid value "${env:SECRETPW}" for configuration offset.flush.interval.ms: '
        "must be a number of type LONG"], result.stderr
    assert "hunter2secret" not in result.stderr + result.stdout


def test_missing_required_key(tmp_path: Path) -> None:
    path = tmp_path / "w.properties"
    path.write_text(BASE.replace("group.id=g\n", ""))
    result = _run(path)
    assert result.returncode == 1
    assert _errors(result.stderr) == [
        'connect-distributed: Missing required configuration "group.id" which has no default value.']


def test_missing_file_and_bad_override(tmp_path: Path) -> None:
    result = _run(tmp_path / "nope.properties")
    assert result.returncode == 1 and "nope.properties" in _errors(result.stderr)[0]
    path = tmp_path / "w.properties"
    path.write_text(BASE)
    result = _run(path, "no-equals-sign")
    assert result.returncode == 1 and "no-equals-sign" in _errors(result.stderr)[0]


def test_unreachable_kafka_ends_in_one_line_within_default_api_timeout(tmp_path: Path) -> None:
    path = tmp_path / "w.properties"
    path.write_text(BASE.replace("127.0.0.1:1", f"127.0.0.1:{free_port()}"))
    began = time.monotonic()
    result = _run(path, "default.api.timeout.ms=2000")
    took = time.monotonic() - began
    assert result.returncode == 1, result.stderr
    errors = _errors(result.stderr)
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("connect-distributed: failed to start: Failed to connect to and describe Kafka "
                                "cluster. Check worker's broker connection and security properties."), errors
    assert "default.api.timeout.ms=2000" in errors[0] and "Connection refused" in errors[0], errors
    assert "Traceback" not in result.stderr, result.stderr
    # The bound, plus the interpreter's start and the worker's set-up (well under the old fixed 30 s).
    assert 2.0 <= took < 15.0, took


def _refusal(worker: WorkerProcess) -> str:
    """The one ``connect-distributed:`` line of a worker that must refuse to start (exit code 1, no traceback)."""
    assert worker.start().wait_exit() == 1, worker.log_tail()
    log = worker.log_path.read_text(errors="replace")
    assert "Traceback" not in log, log
    errors = _errors(log)
    assert len(errors) == 1, log
    return errors[0]


@pytest.mark.kafka
def test_config_topic_with_several_partitions_is_refused(kafka_bootstrap: str, tmp_path: Path) -> None:
    worker = WorkerProcess(kafka_bootstrap, tmp_path, f"multi-part-config-{uuid.uuid4().hex[:8]}")
    topic = worker.props["config.storage.topic"]
    new_topic(kafka_bootstrap, topic, 2, config={"cleanup.policy": "compact"})
    assert _refusal(worker) == (
        f"connect-distributed: Topic '{topic}' supplied via the 'config.storage.topic' property is required to "
        "have a single partition in order to guarantee consistency of connector configurations, but found 2 "
        "partitions.")


@pytest.mark.kafka
@pytest.mark.parametrize(("key", "purpose"), [
    ("config.storage.topic", "connector configurations"),
    ("offset.storage.topic", "source connector offsets"),
    ("status.storage.topic", "connector and task statuses"),
])
def test_internal_topic_that_is_not_compacted_is_refused(kafka_bootstrap: str, tmp_path: Path, key: str,
                                                         purpose: str) -> None:
    worker = WorkerProcess(kafka_bootstrap, tmp_path, f"delete-policy-{uuid.uuid4().hex[:8]}")
    topic = worker.props[key]
    new_topic(kafka_bootstrap, topic, 1, config={"cleanup.policy": "delete"})
    assert _refusal(worker) == (
        f"connect-distributed: Topic '{topic}' supplied via the '{key}' property is required to have "
        f"'cleanup.policy=compact' to guarantee consistency and durability of {purpose}, but found the topic "
        f"currently has 'cleanup.policy=delete'. Continuing would likely result in eventually losing {purpose} "
        f"and problems restarting this Connect cluster in the future. Change the '{key}' property in the Connect "
        "worker configurations to use a topic with 'cleanup.policy=compact'.")


@pytest.mark.kafka
def test_connector_offsets_topic_must_be_compacted(kafka_bootstrap: str) -> None:
    """A connector's own offsets topic is checked like the worker's (a task using it fails with this)."""
    config = WorkerConfig.from_properties({
        "bootstrap.servers": kafka_bootstrap, "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s", "offset.storage.replication.factor": "1",
        "offset.storage.partitions": "1"})
    factory = OffsetStoreFactory(config, cast(KafkaOffsetBackingStore, object()))  # not reached
    connector = {"name": "c", "connector.class": "VerifiableSource", "topic": "t"}
    compact = new_topic(kafka_bootstrap, config={"cleanup.policy": "compact"})
    factory.for_connector(SourceConnectorConfig.parse({**connector, "offsets.storage.topic": compact})).stop()
    delete = new_topic(kafka_bootstrap, config={"cleanup.policy": "compact,delete"})
    with pytest.raises(ConfigException) as raised:
        factory.for_connector(SourceConnectorConfig.parse({**connector, "offsets.storage.topic": delete}))
    assert str(raised.value).startswith(
        f"Topic '{delete}' supplied via the 'offsets.storage.topic' property is required to have "
        "'cleanup.policy=compact' to guarantee consistency and durability of source connector offsets, but found "
        "the topic currently has 'cleanup.policy=compact,delete'."), raised.value


@pytest.mark.kafka
def test_rest_port_in_use_ends_in_one_line(kafka_bootstrap: str, tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        worker = WorkerProcess(kafka_bootstrap, tmp_path, f"port-taken-{uuid.uuid4().hex[:8]}", port=port)
        line = _refusal(worker)
    assert line.startswith("connect-distributed: failed to start: ") and str(port) in line, line


def test_a_bad_plugin_path_refuses_start_up_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "w.properties"
    path.write_text(BASE + f"plugin.path={tmp_path / 'missing'}\n")
    result = _run(path)
    assert result.returncode == 1
    assert _errors(result.stderr) == [
        f'connect-distributed: Invalid value "{tmp_path / "missing"}" for configuration plugin.path: not a directory'
    ], result.stderr
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "broken_plugin.py").write_text("raise RuntimeError('no licence key')\n")
    path.write_text(BASE + f"plugin.path={plugins}\n")
    result = _run(path)
    assert result.returncode == 1
    (error,) = _errors(result.stderr)
    assert "for configuration plugin.path: module broken_plugin failed to import: RuntimeError('no licence key')" \
        in error, result.stderr


def test_response_headers_reach_every_answer_of_a_running_worker(kafka_bootstrap: str, tmp_path: Path) -> None:
    """``response.http.headers.config``: on answers and error bodies alike."""
    import httpx

    worker = WorkerProcess(kafka_bootstrap, tmp_path, f"headers-{uuid.uuid4().hex[:8]}", extra={
        "response.http.headers.config": 'set X-Frame-Options: DENY, "add Cache-Control: no-cache, no-store"'})
    worker.start_ready()
    try:
        for path, status in (("/", 200), ("/connectors/missing", 404)):
            answer = httpx.get(worker.url + path, timeout=10)
            assert answer.status_code == status
            assert answer.headers["x-frame-options"] == "DENY"
            assert answer.headers["cache-control"] == "no-cache, no-store"
    finally:
        worker.stop()
