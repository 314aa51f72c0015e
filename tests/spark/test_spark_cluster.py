"""A real Spark standalone cluster: PySpark jobs run on its executors, survive a SIGKILLed executor
(task retry), and nothing of the cluster outlives stop, even with a job running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import wait_until
from connect_runtime.testing.spark_cluster import TOKEN_ENV, LocalSparkCluster, LocalSparkError, cli

pytestmark = pytest.mark.spark

# Job 1 counts a range in 4 partitions and reports which Python ran the tasks. Job 2 has one task
# (partition 0, first attempt) that announces itself in FLAGS and then blocks until its executor
# is killed; every attempt of every task leaves a flag, so the test sees the retry.
APP = """
import os, sys, time
from pathlib import Path
from pyspark import TaskContext
from pyspark.sql import SparkSession

flags = Path(sys.argv[1])
block = sys.argv[2] == "block"
spark = SparkSession.builder.appName("spark-cluster-test").getOrCreate()  # APP_NAME
sc = spark.sparkContext
print("COUNT", sc.range(0, 1000, numSlices=4).count(), flush=True)
print("PYTHON", sc.parallelize(range(4), 4).map(lambda _: sys.executable).distinct().collect(), flush=True)

def work(index, rows):
    attempt = TaskContext.get().attemptNumber()
    (flags / f"task-{index}-attempt-{attempt}").write_text(str(os.getpid()))
    if block and index == 0 and attempt == 0:
        time.sleep(600)
    return [sum(rows)]

print("SUM", sum(sc.parallelize(range(100), 4).mapPartitionsWithIndex(work).collect()), flush=True)
spark.stop()
"""
APP_NAME = "spark-cluster-test"


def _submit(cluster: LocalSparkCluster, tmp_path: Path, mode: str) -> tuple[subprocess.Popen[str], Path]:
    app = tmp_path / "app.py"
    app.write_text(textwrap.dedent(APP))
    flags = tmp_path / "flags"
    flags.mkdir()
    driver = subprocess.Popen(cluster.submit_command(app, str(flags), mode), env=cluster.submit_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return driver, flags


def _executor_of(cluster: LocalSparkCluster, python_pid: int) -> int:
    """The executor JVM above a Python worker (python worker -> pyspark daemon -> executor)."""
    executors = set(cluster.executor_pids())
    pid = python_pid
    while pid > 1:
        if pid in executors:
            return pid
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    raise AssertionError(f"python worker {python_pid} runs under none of the executors {sorted(executors)}")


def test_job_survives_a_killed_executor(spark_cluster: LocalSparkCluster, tmp_path: Path) -> None:
    driver, flags = _submit(spark_cluster, tmp_path, "block")
    try:
        blocked = flags / "task-0-attempt-0"
        wait_until(lambda: blocked.exists() and blocked.read_text(), 180, message="the blocking task to start")
        app_id = next(a.id for a in spark_cluster.applications() if a.name == APP_NAME and a.state == "RUNNING")
        executor = _executor_of(spark_cluster, int(blocked.read_text()))
        assert executor in spark_cluster.executor_pids(app_id)
        spark_cluster.kill_executor(executor)
        out, err = driver.communicate(timeout=180)
    finally:
        driver.kill()
    assert driver.returncode == 0, err[-4000:]
    assert "COUNT 1000" in out, out
    assert f"PYTHON [{sys.executable!r}]" in out, out  # the executors run the caller's interpreter
    assert "SUM 4950" in out, out
    assert (flags / "task-0-attempt-1").exists(), sorted(p.name for p in flags.iterdir())  # the retry
    assert executor not in spark_cluster.executor_pids()
    assert wait_until(lambda: [a for a in spark_cluster.applications() if a.id == app_id and a.state == "FINISHED"],
                      30, message=f"{app_id} FINISHED")


def test_cli_stop_kills_a_running_job(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "local-spark"
    cluster = LocalSparkCluster(data_dir)
    try:
        assert cli(["start", "--workers", "1", "--data-dir", str(data_dir)]) == 0
        assert capsys.readouterr().out == f"spark.master={cluster.master_url}\n"
        assert cli(["status", "--data-dir", str(data_dir)]) == 0
        assert f"spark.master={cluster.master_url}" in capsys.readouterr().out

        driver, flags = _submit(cluster, tmp_path, "block")
        try:
            wait_until(lambda: (flags / "task-0-attempt-0").exists(), 180, message="the blocking task to start")
            assert cluster.executor_pids()
            assert cli(["stop", "--data-dir", str(data_dir)]) == 0
            assert cluster.alive_pids() == []  # daemons, the executor, its Python daemon and worker
        finally:
            driver.kill()
            driver.communicate()
        assert cli(["status", "--data-dir", str(data_dir)]) == 1
        assert cli(["stop", "--data-dir", str(data_dir)]) == 0
        assert "no Spark running" in capsys.readouterr().out
    finally:
        cluster.stop()


def test_stop_kills_whatever_carries_the_token(tmp_path: Path) -> None:
    """No Spark needed: a "worker" (pid file) and an orphan in a process group of its own (as PySpark's
    daemon puts itself) both carry the cluster's token; stop finds and ends both, SIGTERM ignored."""
    (tmp_path / "cluster.json").write_text(json.dumps({"token": "t0ken"}))
    env = {**os.environ, TOKEN_ENV: "t0ken"}
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); " \
               "time.sleep(600)"
    worker, orphan = (subprocess.Popen([sys.executable, "-c", stubborn], env=env, start_new_session=True,
                                       stdout=subprocess.PIPE, text=True) for _ in range(2))
    try:
        assert worker.stdout is not None and orphan.stdout is not None
        assert worker.stdout.readline() == orphan.stdout.readline() == "ready\n"  # SIGTERM is ignored now
        (tmp_path / "worker-1.pid").write_text(f"{worker.pid}\n")
        cluster = LocalSparkCluster(tmp_path)
        assert cluster.alive_pids() == sorted([worker.pid, orphan.pid])
        with pytest.raises(LocalSparkError, match="not a live executor"):
            cluster.kill_executor(orphan.pid)
        assert cluster.stop(timeout_s=1) is True
        assert worker.wait(5) == orphan.wait(5) == -9
        assert cluster.alive_pids() == []
        assert cluster.stop() is False
    finally:
        for proc in (worker, orphan):
            proc.kill()
            proc.communicate()
