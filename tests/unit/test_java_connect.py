"""The Java Connect worker launcher's pure parts (no broker, no JVM)."""

from __future__ import annotations

import os
from pathlib import Path

from connect_runtime.testing.java_connect import (
    BASIC_AUTH_DEPENDENCIES,
    CONNECT_DEPENDENCIES,
    CONNECT_REFERENCE_VERSION,
    TEST_PLUGINS_VERSION,
    JavaConnectWorker,
    connect_cache_dir,
)


def test_worker_properties_match_ours(tmp_path: Path) -> None:
    from connect_runtime.testing.cluster import WorkerProcess

    worker = JavaConnectWorker(tmp_path / "libs", "127.0.0.1:9092", tmp_path / "w", "g")
    assert worker.props == WorkerProcess("127.0.0.1:9092", tmp_path, "g", port=worker.port).props
    assert worker.props["exactly.once.source.support"] == "enabled"


def test_java_worker_command_and_files(tmp_path: Path) -> None:
    worker = JavaConnectWorker(tmp_path / "libs", "127.0.0.1:9092", tmp_path / "w", "g")
    cmd = worker.command()
    assert cmd[-3:] == [f"{tmp_path / 'libs'}/*", "org.apache.kafka.connect.cli.ConnectDistributed",
                        str(tmp_path / "w" / "worker.properties")]
    assert cmd[-4] == "-cp"
    assert f"-Dlog4j2.configurationFile={tmp_path / 'w' / 'log4j2.properties'}" in cmd
    assert worker.url == f"http://127.0.0.1:{worker.port}"
    assert worker.props["listeners"] == worker.url


def test_extra_jars_follow_the_connect_classpath_and_jvm_options_come_first(tmp_path: Path) -> None:
    jar = tmp_path / "ext" / "extension.jar"
    worker = JavaConnectWorker(tmp_path / "libs", "127.0.0.1:9092", tmp_path / "w", "g", extra_classpath=[jar],
                               jvm_opts=["-Djava.security.auth.login.config=/j.conf"])
    cmd = worker.command()
    assert cmd[cmd.index("-cp") + 1] == f"{tmp_path / 'libs'}/*{os.pathsep}{jar}"
    assert cmd.index("-Djava.security.auth.login.config=/j.conf") < cmd.index("-cp")


def test_dependencies_are_the_reference_version_but_test_plugins_whatever_the_broker_runs() -> None:
    from connect_runtime.testing.local_kafka import default_cache_dir

    assert CONNECT_REFERENCE_VERSION == "4.1.1"  # the Connect behaviour followed; the broker's release may differ
    versions = {artifact: version for _, artifact, version in CONNECT_DEPENDENCIES + BASIC_AUTH_DEPENDENCIES}
    assert (versions["connect-runtime"] == versions["connect-json"] == versions["connect-file"]
            == versions["connect-basic-auth-extension"] == CONNECT_REFERENCE_VERSION)
    assert versions["connect-test-plugins"] == TEST_PLUGINS_VERSION
    assert connect_cache_dir().parent == default_cache_dir().parent
    assert connect_cache_dir() != default_cache_dir()
