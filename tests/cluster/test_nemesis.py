"""The 2-minute nemesis (bench/nemesis.py) with a fixed seed on the three-broker ``kafka_cluster``: faults of
every kind the seed draws (workers, the leader, brokers, network partitions, connectors), and exactly-once holds
through them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import terminate
from connect_runtime.testing.local_kafka_cluster import KafkaCluster

pytestmark = [pytest.mark.kafka, pytest.mark.cluster, pytest.mark.slow]

BENCH = Path(__file__).resolve().parents[2] / "bench"
SEED = 144  # a SIGKILL of the transaction coordinator of a task, then the leader cut from brokers and peers


def test_two_minutes_of_faults_lose_and_duplicate_nothing(kafka_cluster: KafkaCluster, tmp_path: Path) -> None:
    where = (["--cluster-dir", str(kafka_cluster.local.data_dir)] if kafka_cluster.local is not None
             else ["--bootstrap-cluster", kafka_cluster.bootstrap])
    report_file = tmp_path / "report.json"
    stderr = tmp_path / "nemesis.log"
    with stderr.open("w") as err:
        proc = subprocess.Popen([sys.executable, str(BENCH / "nemesis.py"), "--duration", "120", "--seed", str(SEED),
                                 *where, "--workdir", str(tmp_path / "run"), "--report", str(report_file)],
                                stdout=subprocess.DEVNULL, stderr=err)
        try:
            # Faults stretch the two minutes: every recovery is waited for, broker restarts are slow.
            proc.wait(1500)
        finally:
            # A SIGTERM makes the script heal and stop what it started.
            terminate(proc, 300)
    log = stderr.read_text(errors="replace")
    assert report_file.exists(), log[-5000:]
    report = json.loads(report_file.read_text())
    context = f"{json.dumps({k: v for k, v in report.items() if k != 'schedule'}, indent=1)}\n{log[-3000:]}"
    assert report["seed"] == SEED and report["schedule"], context
    assert report["faults_injected"] == report["faults_scheduled"] == len(report["schedule"]), context
    assert report["faults_recovered"] == report["faults_scheduled"], context
    assert report["records"] > 10_000, context
    assert report["duplicates"] == 0 and report["gaps"] == 0, context
    assert report["offsets_match"], context
    assert report["failed_tasks_left"] == 0 and not report["failed_tasks_seen"], context
    assert report["ok"] and proc.returncode == 0, context
