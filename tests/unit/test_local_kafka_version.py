"""The local Kafka's release without a broker: ``--kafka-version`` and its refusals, the version a data dir
records for its restarts and ``status``, ``$CONNECT_RUNTIME_KAFKA_VERSION`` for the fixtures and benchmarks.
``mvn`` and ``java`` are small stand-in scripts here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from bench_scripts import load_bench_script

from connect_runtime.testing import pytest_plugin
from connect_runtime.testing.local_kafka import (
    KAFKA_VERSION,
    KAFKA_VERSION_ENV,
    LocalKafka,
    LocalKafkaError,
    check_kafka_version,
    cli,
    session_kafka_version,
)
from connect_runtime.testing.local_kafka_cluster import LocalKafkaCluster

# Answers `java -version` as Java 17; anything else (StorageTool format) fails.
FAKE_JAVA = """#!/bin/sh
if [ "$1" = "-version" ]; then echo 'openjdk version "17.0.15" 2025-04-15' >&2; exit 0; fi
echo "stand-in java: $*" >&2
exit 1
"""

# mvn's failure for an artifact Maven Central does not serve when the pom names a kafka_2.13 of
# $FAKE_MVN_MISSING, else one broker jar of the pom's version.
FAKE_MVN = f"""#!{sys.executable}
import os, re, sys
from pathlib import Path
pom = Path(sys.argv[sys.argv.index("-f") + 1]).read_text()
version = re.search(r"<artifactId>kafka_2.13</artifactId>\\s*<version>([^<]+)</version>", pom)[1]
if version == os.environ.get("FAKE_MVN_MISSING"):
    print(f"[ERROR] Failed to execute goal on project kafka-broker-classpath: Could not resolve dependencies "
          f"for project local.connect-runtime:kafka-broker-classpath:pom:{{version}}: "
          f"org.apache.kafka:kafka_2.13:jar:{{version}} was not found in the central repository")
    sys.exit(1)
out = Path(next(a.split("=", 1)[1] for a in sys.argv if a.startswith("-DoutputDirectory=")))
out.mkdir(parents=True, exist_ok=True)
(out / f"kafka_2.13-{{version}}.jar").write_bytes(b"jar")
"""


@pytest.fixture
def stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``java`` and ``mvn`` on PATH are the stand-ins, the jar cache is the test's own; returns the cache."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("java", FAKE_JAVA), ("mvn", FAKE_MVN)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("CONNECT_RUNTIME_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The command's one error line (progress lines come before it; no traceback)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("error: ") and sum(line.startswith("error: ") for line in lines) == 1
    return lines[-1]


def test_a_release_must_be_4_0_or_newer() -> None:
    assert check_kafka_version("4.0.0") == "4.0.0"
    assert check_kafka_version("4.4.0") == "4.4.0"
    assert check_kafka_version("10.0.1") == "10.0.1"
    with pytest.raises(LocalKafkaError, match=r"Kafka 3\.9\.1 is too old: .* KRaft-only .* 4\.0\.0 or newer"):
        check_kafka_version("3.9.1")
    for bad in ("latest", "4.1", "4.1.1-rc0", ""):
        with pytest.raises(LocalKafkaError, match="is not an Apache Kafka release version"):
            check_kafka_version(bad)


def test_the_command_line_refuses_an_old_release_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for brokers in ("1", "3"):
        data_dir = tmp_path / f"kafka-{brokers}"
        assert cli(["start", "--brokers", brokers, "--kafka-version", "3.9.1", "--data-dir", str(data_dir)]) == 1
        assert _error_line(capsys).startswith("error: Kafka 3.9.1 is too old")
        assert not data_dir.exists()


def test_a_release_maven_central_does_not_serve_is_one_line_and_leaves_the_dir_free(
    tmp_path: Path, stand_ins: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_MVN_MISSING", "4.99.0")
    data_dir = tmp_path / "kafka"
    for brokers in ("1", "3"):
        assert cli(["start", "--brokers", brokers, "--kafka-version", "4.99.0", "--data-dir", str(data_dir)]) == 1
        mvn_log = stand_ins / "kafka-4.99.0" / "mvn.log"
        assert _error_line(capsys) == ("error: Maven Central does not serve Apache Kafka 4.99.0 "
                                       f"(org.apache.kafka:kafka_2.13:4.99.0); see {mvn_log}")
        # nothing recorded: the same data dir can start another release
        assert LocalKafka(data_dir, kafka_version="4.4.0").kafka_version == "4.4.0"
        assert LocalKafkaCluster(data_dir, kafka_version="4.4.0").kafka_version == "4.4.0"


def test_the_data_dir_records_the_release_its_restarts_and_status_use(
    tmp_path: Path, stand_ins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = tmp_path / "kafka"
    # The stand-in java cannot format the storage: start fails after the jars and the ports are recorded.
    assert cli(["start", "--kafka-version", "4.2.0", "--data-dir", str(data_dir)]) == 1
    assert _error_line(capsys).startswith(f"error: formatting the Kafka storage in {data_dir.resolve()}")
    assert json.loads((data_dir / "ports.json").read_text())["kafka_version"] == "4.2.0"
    assert "<version>4.2.0</version>" in (stand_ins / "kafka-4.2.0" / "pom.xml").read_text()
    assert (stand_ins / "kafka-4.2.0" / "libs" / "kafka_2.13-4.2.0.jar").is_file()

    assert LocalKafka(data_dir).kafka_version == "4.2.0"  # no version asked for: the recorded one
    assert cli(["status", "--data-dir", str(data_dir)]) == 1
    assert capsys.readouterr().out == f"not running (data dir {data_dir.resolve()}); Kafka 4.2.0\n"
    assert cli(["start", "--data-dir", str(data_dir)]) == 1  # fails the same way, on 4.2.0 again
    assert _error_line(capsys).startswith("error: formatting the Kafka storage")
    assert not (stand_ins / f"kafka-{KAFKA_VERSION}").exists()  # the default was never fetched

    assert cli(["start", "--kafka-version", "4.3.0", "--data-dir", str(data_dir)]) == 1
    assert _error_line(capsys) == (f"error: {data_dir.resolve()} holds Kafka 4.2.0, not 4.3.0; "
                                   "use that version or another data dir")
    assert LocalKafka(tmp_path / "fresh").kafka_version == KAFKA_VERSION


def test_a_clusters_nodes_run_the_release_it_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "kafka3"
    data_dir.mkdir()
    (data_dir / "cluster.json").write_text(json.dumps({"brokers": 3, "kafka_version": "4.2.0"}))
    cluster = LocalKafkaCluster(data_dir)
    assert cluster.kafka_version == "4.2.0"
    assert {cluster.node(n).kafka_version for n in cluster.node_ids} == {"4.2.0"}
    assert cli(["status", "--data-dir", str(data_dir)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("cluster of 3 nodes (Kafka 4.2.0) ")
    assert all(line.endswith("; Kafka 4.2.0") for line in out[1:])
    assert cli(["start", "--brokers", "3", "--kafka-version", "4.3.0", "--data-dir", str(data_dir)]) == 1
    assert _error_line(capsys).endswith("holds Kafka 4.2.0, not 4.3.0; use that version or another data dir")
    assert LocalKafkaCluster(tmp_path / "fresh").kafka_version == KAFKA_VERSION


def test_the_fixtures_and_benchmarks_take_the_release_from_the_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    common = load_bench_script("_common")
    monkeypatch.delenv(KAFKA_VERSION_ENV, raising=False)
    assert session_kafka_version() == KAFKA_VERSION
    assert pytest_plugin._local_kafka(tmp_path_factory).kafka_version == KAFKA_VERSION
    assert common.Broker("127.0.0.1:1", local=True).version_label == KAFKA_VERSION

    monkeypatch.setenv(KAFKA_VERSION_ENV, " 4.2.0 ")
    assert session_kafka_version() == "4.2.0"
    assert pytest_plugin._local_kafka(tmp_path_factory).kafka_version == "4.2.0"
    assert pytest_plugin._local_kafka_cluster(tmp_path_factory).kafka_version == "4.2.0"
    assert common.Broker("127.0.0.1:1", local=True).version_label == "4.2.0"
    assert common.Broker("127.0.0.1:1", local=False).version_label == "external"

    monkeypatch.setenv(KAFKA_VERSION_ENV, "3.9.1")
    with pytest.raises(pytest.fail.Exception, match=r"\$CONNECT_RUNTIME_KAFKA_VERSION: Kafka 3\.9\.1 is too old"):
        pytest_plugin._local_kafka(tmp_path_factory)
