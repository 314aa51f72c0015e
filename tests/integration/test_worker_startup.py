"""A worker with a bad config refuses to start with one line naming the key; a config topic with more
than one partition is refused too."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from connect_runtime.testing.cluster import WorkerProcess

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
    ],
)
def test_invalid_value_names_the_key(tmp_path: Path, extra: str, needle: str) -> None:
    path = tmp_path / "w.properties"
    path.write_text(BASE + extra)
    result = _run(path)
    assert result.returncode == 1
    errors = _errors(result.stderr)
    assert len(errors) == 1 and needle in errors[0], result.stderr


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


@pytest.mark.kafka
def test_config_topic_with_several_partitions_is_refused(kafka_bootstrap: str, tmp_path: Path) -> None:
    worker = WorkerProcess(kafka_bootstrap, tmp_path, f"multi-part-config-{uuid.uuid4().hex[:8]}")
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})  # must outlive the future
    topic = worker.props["config.storage.topic"]
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result()
    worker.start()
    assert worker.proc is not None
    assert worker.proc.wait(60) == 1
    assert "required to have a single partition" in worker.log_tail(), worker.log_tail()


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
