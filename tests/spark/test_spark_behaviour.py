"""SparkSource behaviours on local Spark: transform.sql, malformed rows, continuous mode, validation."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from conftest import WorkerFactory
from spark_helpers import (
    app_tokens,
    assert_not_failed,
    create_topic,
    csv_inputs,
    file_offsets,
    pids_with_tokens,
    rows_by_id,
    wait_files_complete,
    write_csv,
)

from connect_runtime.testing.cluster import ConnectClient, read_committed, wait_until

CSV = {"connector.class": "SparkSource", "tasks.max": "1", "source.format": "csv", "source.options.header": "true",
       "spark.master": "local[2]", "value.converter": "org.apache.kafka.connect.json.JsonConverter",
       "value.converter.schemas.enable": "false"}


def _connector(client: ConnectClient, name: str, config: dict[str, str]) -> None:
    client.create_connector(name, {**CSV, **config})


def test_transform_sql_output_matches_sparks_own_result(workers: WorkerFactory, kafka_bootstrap: str,
                                                        tmp_path: Path) -> None:
    data = csv_inputs(tmp_path / "in", 3000, 3000)
    sql = ("SELECT id, upper(name) AS name, amount * 2 AS doubled, amount > 500 AS big "
           "FROM source WHERE id % 3 = 0 AND amount < 900")
    schema = "id BIGINT, name STRING, amount DOUBLE"
    client = ConnectClient(workers().start_ready().url)
    topic = create_topic(kafka_bootstrap, f"spark-sql-{uuid.uuid4().hex[:8]}")
    _connector(client, "sql", {"topic": topic, "source.path": str(data), "source.schema": schema,
                               "transform.sql": sql, "key.columns": "id,big"})
    wait_files_complete(client, "sql", 2)

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.master("local[1]").appName("expected").getOrCreate()
    try:
        spark.read.option("header", "true").schema(schema).csv(str(data)).createOrReplaceTempView("source")
        expected = sorted(json.dumps(json.loads(r)) for r in spark.sql(sql).toJSON().collect())
    finally:
        spark.stop()
    records = read_committed(kafka_bootstrap, topic)
    actual = sorted(json.dumps(json.loads(v or b"")) for _, v in records)
    assert actual == expected and len(actual) > 1000
    for key, value in records[:50]:
        row = json.loads(value or b"")
        assert json.loads(key or b"") == {"id": row["id"], "big": row["big"]}
    offsets = file_offsets(client, "sql")
    # Positions count the rows that left transform.sql (rows kept per file).
    assert sum(o["rows"] for o in offsets.values()) == len(expected)


def test_malformed_rows_fail_the_task_with_file_and_line(workers: WorkerFactory, kafka_bootstrap: str,
                                                         tmp_path: Path) -> None:
    data = tmp_path / "in"
    data.mkdir()
    bad = write_csv(data / "bad.csv", 0, 100)
    lines = bad.read_text().splitlines()
    lines[42] = "41,name-41,not-a-number"  # line 43 of the file (the header is line 1)
    bad.write_text("\n".join(lines) + "\n")
    client = ConnectClient(workers().start_ready().url)
    topic = create_topic(kafka_bootstrap, f"spark-bad-{uuid.uuid4().hex[:8]}")
    _connector(client, "strict", {"topic": topic, "source.path": str(data),
                                  "source.schema": "id BIGINT, name STRING, amount DOUBLE"})

    def failed() -> dict[str, Any] | None:
        task = client.status("strict")["tasks"]
        return task[0] if task and task[0]["state"] == "FAILED" else None

    task = wait_until(failed, timeout_s=180, interval_s=1.0)
    assert f"Malformed row 41 (line 43) in {bad.as_uri()}" in task["trace"], task["trace"][-3000:]
    assert "not-a-number" in task["trace"]
    assert read_committed(kafka_bootstrap, topic) == []


def test_malformed_rows_are_skipped_counted_and_logged_under_tolerance_all(
        workers: WorkerFactory, kafka_bootstrap: str, tmp_path: Path) -> None:
    data = tmp_path / "in"
    data.mkdir()
    bad = write_csv(data / "bad.csv", 0, 100)
    lines = bad.read_text().splitlines()
    lines[11] = "10,name-10,oops"
    lines[21] = "20,name-20,1.5,extra,fields"
    bad.write_text("\n".join(lines) + "\n")
    worker = workers().start_ready()
    client = ConnectClient(worker.url)
    topic = create_topic(kafka_bootstrap, f"spark-tolerant-{uuid.uuid4().hex[:8]}")
    _connector(client, "tolerant", {"topic": topic, "source.path": str(data), "errors.tolerance": "all",
                                    "errors.log.enable": "true",
                                    "source.schema": "id BIGINT, name STRING, amount DOUBLE"})
    offsets = wait_files_complete(client, "tolerant", 1)
    counts, _ = rows_by_id(kafka_bootstrap, topic)
    assert sorted(counts) == [i for i in range(100) if i not in (10, 20)]
    assert set(counts.values()) == {1}
    assert [o["rows"] for o in offsets.values()] == [98]
    log = worker.log_path.read_text(errors="replace")
    assert "skipped 2 malformed rows (errors.tolerance=all)" in log
    assert f"{bad.as_uri()} line 12" in log and "line 22" in log
    # errors.log.include.messages is false: where the rows are, never what they say.
    assert "oops" not in log and "extra,fields" not in log


def test_continuous_mode_picks_up_new_files_and_appended_rows_once(
        workers: WorkerFactory, kafka_bootstrap: str, tmp_path: Path) -> None:
    data = tmp_path / "in"
    data.mkdir()
    first = write_csv(data / "first.csv", 0, 1000)
    worker = workers().start_ready()
    client = ConnectClient(worker.url)
    topic = create_topic(kafka_bootstrap, f"spark-cont-{uuid.uuid4().hex[:8]}")
    _connector(client, "cont", {"topic": topic, "source.path": str(data), "mode": "continuous",
                                "poll.interval.ms": "1000", "source.schema": "id BIGINT, name STRING, amount DOUBLE"})
    wait_files_complete(client, "cont", 1, timeout_s=180, rows=1000)
    # Pausing stops the application, every process of it; resuming starts a new one.
    assert worker.proc is not None
    tokens = app_tokens(worker.proc.pid)
    assert tokens and pids_with_tokens(tokens)
    assert client.request("PUT", "/connectors/cont/pause").status_code == 202
    wait_until(lambda: not pids_with_tokens(tokens) and client.status("cont")["tasks"][0]["state"] == "PAUSED",
               timeout_s=60, message="application stopped on pause")
    assert client.request("PUT", "/connectors/cont/resume").status_code == 202
    pid = worker.proc.pid
    wait_until(lambda: app_tokens(pid) - tokens, timeout_s=60, message="a new application on resume")
    # A new file, written under a hidden name and renamed (as writers should), and rows appended.
    hidden = write_csv(data / ".second.csv.tmp", 1000, 500)
    os.rename(hidden, data / "second.csv")
    with first.open("a", encoding="utf-8") as f:
        f.writelines(f"{i},name-{i},{i % 1000}.5\n" for i in range(1500, 1700))
    offsets = wait_files_complete(client, "cont", 2, timeout_s=120, rows=1700)
    assert offsets[first.as_uri()]["rows"] == 1200 and offsets[(data / "second.csv").as_uri()]["rows"] == 500
    counts, _ = rows_by_id(kafka_bootstrap, topic)
    assert sorted(counts) == list(range(1700)) and set(counts.values()) == {1}
    # A truncated file is reported, never half re-read.
    first.write_text("id,name,amount\n1,name-1,1.5\n")

    def reported() -> bool:
        return "it was truncated or rewritten, so it is not read again" in worker.log_path.read_text(errors="replace")

    wait_until(reported, timeout_s=60, interval_s=1.0)
    assert_not_failed(client, "cont")
    counts, _ = rows_by_id(kafka_bootstrap, topic)
    assert len(counts) == 1700 and set(counts.values()) == {1}


def test_validation_names_the_problems(workers: WorkerFactory, tmp_path: Path) -> None:
    # A worker whose Python cannot import pyspark: the connector is refused with the fix in the message.
    blocker = tmp_path / "no-spark"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoSpark:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pyspark', 'pyarrow'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, _NoSpark())\n")
    pythonpath = os.pathsep.join([str(blocker), os.environ.get("PYTHONPATH", "")])
    client = ConnectClient(workers(env={"PYTHONPATH": pythonpath}).start_ready().url)
    config = {**CSV, "name": "v", "topic": "t", "source.path": str(tmp_path / "nothing-*.csv"),
              "transform.sql": "SELECT name, count(*) FROM source GROUP BY name"}
    body = client.request("PUT", "/connector-plugins/SparkSource/config/validate", json=config).json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    assert any("pip install 'connect-runtime[spark]'" in e for e in errors["spark.master"]), errors
    assert errors["source.path"] == [f"Path does not exist or matches no file: {tmp_path / 'nothing-*.csv'}"]
    assert "must work row by row" in errors["transform.sql"][0]
    response = client.request("POST", "/connectors", json={"name": "v", "config": config})
    assert response.status_code == 400 and "connect-runtime[spark]" in response.json()["message"]
