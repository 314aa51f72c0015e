"""Pure helpers of bench/java_connect_throughput.py (no broker, no JVM)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def java_bench() -> ModuleType:
    return load_bench_script("java_connect_throughput")


def test_worker_properties_match_ours(java_bench: ModuleType, tmp_path: Path) -> None:
    from connect_runtime.testing.cluster import WorkerProcess

    worker = java_bench.JavaWorker(tmp_path / "libs", "127.0.0.1:9092", tmp_path / "w", "g")
    assert worker.props == WorkerProcess("127.0.0.1:9092", tmp_path, "g", port=worker.port).props
    assert worker.props["exactly.once.source.support"] == "enabled"


def test_java_worker_command_and_files(java_bench: ModuleType, tmp_path: Path) -> None:
    worker = java_bench.JavaWorker(tmp_path / "libs", "127.0.0.1:9092", tmp_path / "w", "g")
    cmd = worker.command()
    assert cmd[-3:] == [f"{tmp_path / 'libs'}/*", "org.apache.kafka.connect.cli.ConnectDistributed",
                        str(tmp_path / "w" / "worker.properties")]
    assert cmd[-4] == "-cp"
    assert f"-Dlog4j2.configurationFile={tmp_path / 'w' / 'log4j2.properties'}" in cmd
    assert worker.url == f"http://127.0.0.1:{worker.port}"
    assert worker.props["listeners"] == worker.url


def test_dependencies_are_the_brokers_version_but_test_plugins(java_bench: ModuleType) -> None:
    from connect_runtime.testing.local_kafka import KAFKA_VERSION, default_cache_dir

    versions = {artifact: version for _, artifact, version in java_bench.CONNECT_DEPENDENCIES}
    assert versions["connect-runtime"] == versions["connect-json"] == KAFKA_VERSION
    assert versions["connect-test-plugins"] == java_bench.TEST_PLUGINS_VERSION
    assert java_bench.connect_cache_dir().parent == default_cache_dir().parent
    assert java_bench.connect_cache_dir() != default_cache_dir()


def test_compare_and_output_shape(java_bench: ModuleType) -> None:
    java = [{"records_per_s": 200000.0, "worker_cpu_cores": 1.5, "records": 2000, "transactions": 2},
            {"records_per_s": 300000.0, "worker_cpu_cores": 2.5, "records": 3000, "transactions": 2}]
    ours = [{"records_per_s": 125000.0, "worker_cpu_cores": 1.0, "records": 1000, "transactions": 1},
            {"records_per_s": 125000.0, "worker_cpu_cores": None, "records": 1000, "transactions": 1}]
    result = java_bench.compare(java, ours)
    assert (result["java_records_per_s"], result["runtime_records_per_s"], result["ratio"]) == (250000.0, 125000.0,
                                                                                                0.5)
    assert (result["java_cpu_cores"], result["runtime_cpu_cores"]) == (2.0, 1.0)
    assert result["java_records_per_transaction"] == 1250.0
    assert java_bench.compare([], ours)["ratio"] is None
    args = java_bench.parse_args(["--record-data", "simple", "--rounds", "1"])
    out = java_bench.build_output(args, {"simple": {"record_data": "simple", **result}}, [0.5, 1.0], True)
    assert out["ratios"] == {"simple": 0.5} and out["boundary"] == "interval"
    json.dumps(out)


def test_parse_args(java_bench: ModuleType) -> None:
    args = java_bench.parse_args([])
    assert (args.boundary, args.record_data, args.rounds, args.jvm_warmup) == ("interval", "both", 2, 30.0)
    with pytest.raises(SystemExit):
        java_bench.parse_args(["--rounds", "0"])
    with pytest.raises(SystemExit):
        java_bench.parse_args(["--jvm-warmup", "-1"])
