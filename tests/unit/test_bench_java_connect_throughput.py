"""Pure helpers of bench/java_connect_throughput.py (no broker, no JVM)."""

from __future__ import annotations

import json
from types import ModuleType

import pytest
from bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def java_bench() -> ModuleType:
    return load_bench_script("java_connect_throughput")


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
