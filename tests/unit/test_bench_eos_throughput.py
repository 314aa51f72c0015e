"""Pure helpers of bench/eos_throughput.py (no broker)."""

from __future__ import annotations

import json
import os
import sys
from types import ModuleType

import pytest
from bench_scripts import load_bench_script

from connect_runtime.api.java_json import json_dumps_compact


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench_script("eos_throughput")


@pytest.mark.parametrize("topic", ["bench-txn-0123abcd", "t%d-with\"quote", "tøpic"])
def test_complete_value_template_matches_the_json_converter(bench: ModuleType, topic: str) -> None:
    template = bench.complete_value_template("bench-eos", 0, topic)
    for time_ms, seqno in [(1795459946005, 0), (1, 123456789)]:
        value = {"name": "bench-eos", "task": 0, "topic": topic, "time_ms": time_ms, "seqno": seqno}
        assert template % (time_ms, seqno) == json_dumps_compact(value)


def test_record_seqno_reads_both_value_shapes(bench: ModuleType) -> None:
    assert bench.record_seqno(b"1487999") == 1487999
    assert bench.record_seqno(json_dumps_compact(
        {"name": "c", "task": 0, "topic": "t", "time_ms": 1, "seqno": 42})) == 42
    with pytest.raises(ValueError):
        bench.record_seqno(None)


def test_window_counts_separates_records_from_commit_markers(bench: ModuleType) -> None:
    # 3 transactions of 1000 records: 3003 offsets, seqno 999 -> 3999.
    assert bench.window_counts(1001, 999, 4004, 3999) == (3000, 3)
    # From the very start (no record before the first LSO) and unequal transactions (2 + 5 records).
    assert bench.window_counts(0, -1, 9, 6) == (7, 2)
    assert bench.window_counts(7, 5, 7, 5) == (0, 0)
    with pytest.raises(ValueError):
        bench.window_counts(1001, 999, 2000, 1998)  # 999 records in 999 offsets: no marker
    with pytest.raises(ValueError):
        bench.window_counts(4004, 3999, 1001, 999)


def test_records_per_transaction_is_total_over_total(bench: ModuleType) -> None:
    windows = [{"records": 3000, "transactions": 3}, {"records": 1000, "transactions": 2}]
    assert bench.records_per_transaction(windows) == 800.0
    assert bench.records_per_transaction([]) == 0.0


def test_parse_proc_stat_counts_fields_after_the_command_name(bench: ModuleType) -> None:
    # A command name with spaces and a ")" must not shift the fields.
    text = "4242 (python (x) y) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 30 7 3 20 0 5 0 1000 0 0"
    assert bench.parse_proc_stat(text) == (17, 250, 30, 7, 3)


def test_descendants_finds_grandchildren_but_not_siblings(bench: ModuleType) -> None:
    parents = {1: 0, 10: 1, 11: 10, 12: 10, 13: 12, 20: 1, 21: 20}
    assert sorted(bench.descendants(parents, 10)) == [11, 12, 13]
    assert bench.descendants(parents, 13) == []


def test_process_tree_cpu_s_includes_a_busy_child(bench: ModuleType) -> None:
    import subprocess
    import time

    before = bench.process_tree_cpu_s(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "import time\nt=time.process_time()\n"
                              "while time.process_time()-t<0.3: pass\nimport sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while bench.process_tree_cpu_s(child.pid) < 0.3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bench.process_tree_cpu_s(os.getpid()) - before >= 0.3  # the live child's time counts
    finally:
        child.communicate(b"")
    assert bench.process_tree_cpu_s(2**22 + 7) is None


def test_cpu_cores(bench: ModuleType) -> None:
    assert bench.cpu_cores(1.0, 4.0, 2.0) == 1.5
    assert bench.cpu_cores(None, 4.0, 2.0) is None
    assert bench.cpu_cores(1.0, 4.0, 0.0) is None


def test_summarize_window_sums_task_rates(bench: ModuleType) -> None:
    w = bench.summarize_window([(2000, 2, 1.0), (3000, 3, 2.0)], 10.0, 13.0, 2.0)
    assert w["records_per_s"] == 3500.0 and w["transactions_per_s"] == 3.5
    assert w["records"] == 5000 and w["transactions"] == 5 and w["records_per_transaction"] == 1000.0
    assert w["worker_cpu_cores"] == 1.5
    alos = bench.summarize_window([(5000, None, 2.0)], None, None, 2.0)
    assert alos["transactions"] is None and alos["transactions_per_s"] is None
    assert alos["records_per_s"] == 2500.0 and alos["worker_cpu_cores"] is None


def test_connector_names(bench: ModuleType) -> None:
    assert bench.connector_names(1) == ["bench-eos"]
    assert bench.connector_names(3) == ["bench-eos-0", "bench-eos-1", "bench-eos-2"]


def test_parse_args_defaults_and_old_options(bench: ModuleType) -> None:
    args = bench.parse_args([])
    assert args.record_data == "both" and args.tasks == (os.cpu_count() or 1) and args.at_least_once
    old = bench.parse_args(["--seconds", "5", "--boundary", "interval", "--interval-ms", "500",
                            "--record-data", "complete", "--rounds", "1", "--broker-warmup", "0"])
    assert (old.seconds, old.boundary, old.interval_ms, old.record_data, old.rounds) == (5, "interval", 500,
                                                                                         "complete", 1)
    assert not bench.parse_args(["--no-at-least-once", "--tasks", "0"]).at_least_once
    with pytest.raises(SystemExit):
        bench.parse_args(["--tasks", "-1"])


def test_output_shape(bench: ModuleType) -> None:
    simple = {"runtime_records_per_s": 100000.0, "baseline_records_per_s": 125000.0, "ratio": 0.8,
              "warnings": []}
    results = {"one_task_simple": simple,
               "one_task_complete": {"runtime_records_per_s": 60000.0, "ratio": 0.6},
               "tasks_in_one_worker": {"records_per_s": 150000.0},
               "at_least_once_simple": {"records_per_s": 125000.0},
               "metrics_overhead": {"overhead": 0.01, "cpu_overhead": 0.005}}
    args = bench.parse_args(["--tasks", "2"])
    out = bench.build_output(args, results, [], True, "127.0.0.1:1", [1.0, 2.0])
    assert (out["runtime_records_per_s"], out["baseline_records_per_s"], out["ratio"]) == (100000.0, 125000.0, 0.8)
    assert out["summary"] == {"one_task_simple_records_per_s": 100000.0, "one_task_complete_records_per_s": 60000.0,
                              "ratio_to_baseline": 0.8, "scaling": 1.5, "scaling_target": 1.6,
                              "exactly_once_cost": 0.2, "exactly_once_cost_target": 0.05,
                              "metrics_overhead": 0.01, "metrics_cpu_overhead": 0.005, "metrics_overhead_target": 0.02}
    assert out["scenarios"] is results
    json.dumps(out)
    partial = bench.summary({"one_task_complete": {"runtime_records_per_s": 1.0, "ratio": 0.5}}, 2)
    assert partial["ratio_to_baseline"] == 0.5 and partial["scaling"] is None and partial["metrics_overhead"] is None


def test_cpu_per_record_weighs_each_window_by_its_length(bench: ModuleType) -> None:
    windows = [{"records": 1_000_000, "worker_cpu_cores": 0.5, "elapsed_s": 10.0},
               {"records": 3_000_000, "worker_cpu_cores": 1.0, "elapsed_s": 10.0}]
    assert bench.cpu_us_per_record(windows) == 3.75  # 15 CPU seconds over 4 M records
    assert bench.cpu_us_per_record([{"records": 5, "worker_cpu_cores": None, "elapsed_s": 1.0}]) is None


def test_connector_config_sets_the_boundary_only_when_exactly_once(bench: ModuleType) -> None:
    rb = object.__new__(bench.RuntimeBench)  # no broker: only the attributes connector_config reads
    rb.topic, rb.boundary, rb.interval_ms, rb.record_data, rb.eos = "t", "interval", 500, "complete", True
    rb.extra_config = {}
    assert rb.connector_config("t2") == {
        "connector.class": "VerifiableSource", "topic": "t2", "tasks.max": "1", "throughput": "-1",
        "complete.record.data": "true", "transaction.boundary": "interval",
        "transaction.boundary.interval.ms": "500"}
    rb.eos, rb.record_data = False, "simple"
    config = rb.connector_config()
    assert config["topic"] == "t" and config["complete.record.data"] == "false"
    assert "transaction.boundary" not in config and "transaction.boundary.interval.ms" not in config
    rb.extra_config = {"value.converter": "io.confluent.connect.avro.AvroConverter"}
    assert rb.connector_config()["value.converter"] == "io.confluent.connect.avro.AvroConverter"
