"""SparkSource under faults: every row lands exactly once although deliverers die or get twins.

* an executor SIGKILLed mid-job on the standalone cluster (Spark retries its task);
* a speculative copy of a slow partition (two deliverers of one slot at once);
* the Connect worker running the task SIGKILLed (the task moves, its application must not linger);
* tasks.max raised mid-job (the running application stops, three new ones share the slots).

The rows are paced (a JVM sleep per row in transform.sql) so that every file takes seconds and many
transactions: each fault lands while a file is partly committed. Each test checks every id exactly once
under read_committed, every file complete at its row count, and that a later deliverer skipped what the
interrupted one had committed ("already in Kafka skipped" > 0 in the task's log): without fencing and
re-reading positions those rows would be in the topic twice.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
from conftest import WorkerFactory
from spark_helpers import assert_not_failed, create_topic, file_offsets, rows_by_id, write_csv

from connect_runtime.api.processes import descendants, env_value, proc_pids
from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, wait_until
from connect_runtime.testing.spark_cluster import LocalSparkCluster
from connectors.spark.application import TOKEN_ENV
from connectors.spark.positions import canonical_uri, slot_of

JSON = "org.apache.kafka.connect.json.JsonConverter"
SLOTS = 8
_RUNS = re.compile(r"Task (\S+) runs Spark application (\S+) \(.*\); Spark UI: (\S+)")
_DELIVERED = re.compile(r"Task (\S+): (\d+) rows delivered \((\d+) already in Kafka skipped\)")


# -- inputs and connector settings ------------------------------------------------------------------
def _files_in_slots(data: Path, rows_by_slot: dict[int, int], prefix: str = "part", first_id: int = 0) -> list[Path]:
    """One CSV file per delivery slot (the name searched so that the file lands in it) with consecutive
    ids from ``first_id``: each file is delivered by a deliverer (a Spark partition) of its own."""
    data.mkdir(exist_ok=True)
    files, n = [], 0
    for slot, rows in rows_by_slot.items():
        while slot_of(canonical_uri(str(data / f"{prefix}-{n}.csv")), SLOTS) != slot:
            n += 1
        files.append(write_csv(data / f"{prefix}-{n}.csv", first_id, rows))
        first_id += rows
        n += 1
    return files


def _paced(files_like: str = "%") -> dict[str, str]:
    """Deliver the rows of the files whose URI is LIKE ``files_like`` at about 700 a second per slot
    (a Thread.sleep of 1 ms per row in the JVM, in every attempt), in Arrow batches and transactions
    of 200 rows: a file is delivered over seconds, in many commits, so faults land mid-file."""
    pause = "coalesce(substr(reflect('java.lang.Thread', 'sleep', CAST(1 AS BIGINT)), 1, 0), '')"
    return {
        "transform.sql": f"SELECT id, CASE WHEN input_file_name() LIKE '{files_like}' THEN concat(name, {pause}) "
                         "ELSE name END AS name, amount FROM source",
        "spark.delivery.transaction.rows": "200",
        "spark.conf.spark.sql.execution.arrow.maxRecordsPerBatch": "200",
    }


def _config(topic: str, data: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "SparkSource", "tasks.max": "1", "topic": topic,
        "source.path": str(data), "source.format": "csv", "source.options.header": "true",
        "source.schema": "id BIGINT, name STRING, amount DOUBLE", "key.columns": "id",
        "spark.delivery.slots": str(SLOTS),
        "key.converter": JSON, "key.converter.schemas.enable": "false",
        "value.converter": JSON, "value.converter.schemas.enable": "false",
        **extra,
    }


def _on_cluster(cluster: LocalSparkCluster, events: Path) -> dict[str, str]:
    """Run on the session cluster (executors of 512m fit its 1g workers) with an event log to check
    what Spark did once the application is over."""
    events.mkdir(exist_ok=True)
    return {
        "spark.master": cluster.master_url,
        "spark.conf.spark.driver.host": "127.0.0.1",
        "spark.conf.spark.executor.memory": "512m",
        "spark.conf.spark.executor.cores": "1",
        "spark.conf.spark.eventLog.enabled": "true",
        "spark.conf.spark.eventLog.dir": events.as_uri(),
        "spark.conf.spark.eventLog.compress": "false",
        "spark.conf.spark.eventLog.rolling.enabled": "false",
    }


# -- progress and evidence --------------------------------------------------------------------------
def _wait_mid_job(client: ConnectClient, name: str, timeout_s: float = 180.0) -> None:
    """Wait until some rows are committed while no file is complete yet."""
    def mid_job() -> bool:
        assert_not_failed(client, name)
        offsets = file_offsets(client, name)
        assert not any(o.get("eof") for o in offsets.values()), f"a file completed before the fault: {offsets}"
        return any(o["rows"] > 0 for o in offsets.values())

    wait_until(mid_job, timeout_s, 0.1, message=f"committed rows of {name}")


def _assert_exactly_once(bootstrap: str, topic: str, total: int) -> None:
    counts, _ = rows_by_id(bootstrap, topic)
    duplicated = sorted(i for i, n in counts.items() if n > 1)
    missing = total - len(counts)
    assert not duplicated and not missing, \
        f"{len(duplicated)} ids duplicated (e.g. {duplicated[:5]}), {missing} missing"
    assert min(counts) == 0 and max(counts) == total - 1


def _complete(client: ConnectClient, name: str, files: list[Path], rows: list[int], timeout_s: float = 300.0) -> None:
    """Wait until every file's offset says complete; fail at once if one is complete short of its rows."""
    expected = {f.as_uri(): n for f, n in zip(files, rows, strict=True)}

    def complete() -> bool:
        assert_not_failed(client, name)
        offsets = file_offsets(client, name)
        done = {f: o["rows"] for f, o in offsets.items() if o.get("eof")}
        assert all(expected.get(f) == n for f, n in done.items()), f"files complete short of their rows: {offsets}"
        return done == expected

    wait_until(complete, timeout_s, 0.5, message=f"the {len(files)} files of {name} complete")


def _deliveries(worker: WorkerProcess) -> dict[str, tuple[int, int]]:
    """Per task, from the worker's log: rows its applications delivered, and rows they found already
    committed (by an older deliverer of the slot) and skipped."""
    found: dict[str, tuple[int, int]] = {}
    for task, rows, skipped in _DELIVERED.findall(worker.log_path.read_text(errors="replace")):
        before = found.get(task, (0, 0))
        found[task] = (before[0] + int(rows), before[1] + int(skipped))
    return found


def _spark_events(events: Path) -> list[dict[str, Any]]:
    """Every event of the applications that logged into ``events`` (one JSON object a line)."""
    out = []
    for path in sorted(events.iterdir()):
        out += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return out


def _task_attempts(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every finished task attempt: stage, index, attempt, speculative, executor, reason."""
    return [{"stage": e["Stage ID"], "index": e["Task Info"]["Index"], "attempt": e["Task Info"]["Attempt"],
             "speculative": e["Task Info"]["Speculative"], "executor": e["Task Info"]["Executor ID"],
             "host": e["Task Info"]["Host"], "reason": e["Task End Reason"]["Reason"]}
            for e in events if e["Event"] == "SparkListenerTaskEnd"]


def _rest(ui: str, path: str) -> Any:
    r = httpx.get(f"{ui}/api/v1{path}", timeout=5, trust_env=False)
    r.raise_for_status()
    return r.json()


def _application(worker: WorkerProcess, task: str) -> tuple[str, str]:
    """The id and the web UI of the Spark application ``task`` runs (as the task logs them)."""
    def logged() -> tuple[str, str] | None:
        apps = [(app, ui) for name, app, ui in _RUNS.findall(worker.log_path.read_text(errors="replace"))
                if name == task]
        return apps[-1] if apps else None

    return wait_until(logged, 120, 0.2, message=f"the Spark application of {task}")


def _executor_with_committed_rows(cluster: LocalSparkCluster, worker: WorkerProcess, client: ConnectClient,
                                  name: str, files: list[Path], timeout_s: float = 180.0) -> int:
    """The pid of an executor running a delivery task whose file has committed rows but is not complete.

    ``files`` hold one file per slot, in slot order: the job's partition ``i`` delivers ``files[i]``."""
    app, ui = _application(worker, f"{name}-task-0")

    def delivering() -> int | None:
        assert_not_failed(client, name)
        offsets = file_offsets(client, name)
        executors = set()
        for stage in _rest(ui, f"/applications/{app}/stages?status=active&details=true"):
            for task in stage.get("tasks", {}).values():
                position = offsets.get(files[task["index"]].as_uri(), {})
                if task["status"] == "RUNNING" and position.get("rows", 0) > 0 and not position.get("eof"):
                    executors.add(task["executorId"])
        for pid in cluster.executor_pids(app):
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if args[args.index(b"--executor-id") + 1].decode() in executors:
                return pid
        return None

    return wait_until(delivering, timeout_s, 0.1, message="an executor delivering a file with committed rows")


def _app_tokens(pids: Iterable[int]) -> set[str]:
    """The SparkSource application tokens in the environments of ``pids``."""
    return {t for t in (env_value(pid, TOKEN_ENV) for pid in pids) if t is not None}


def _pids_with_tokens(tokens: set[str]) -> list[int]:
    """Live (non-zombie) processes carrying one of ``tokens``."""
    def alive(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except (OSError, IndexError):
            return False

    return [pid for pid in proc_pids() if alive(pid) and _app_tokens([pid]) & tokens]


def _gone(tokens: set[str]) -> bool:
    """True when no process carries one of ``tokens``; else an error naming them (for wait_until)."""
    left = {pid: Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:200].decode(errors="replace")
            for pid in _pids_with_tokens(tokens)}
    if left:
        raise RuntimeError(f"still running: {left}")
    return True


# -- the tests --------------------------------------------------------------------------------------
def test_executor_killed_mid_job_on_the_cluster(workers: WorkerFactory, kafka_bootstrap: str, tmp_path: Path,
                                                spark_cluster: LocalSparkCluster) -> None:
    rows = [3000] * 3
    files = _files_in_slots(tmp_path / "in", {1: rows[0], 4: rows[1], 6: rows[2]})
    worker = workers().start_ready()
    client = ConnectClient(worker.url)
    topic = create_topic(kafka_bootstrap, f"spark-exec-kill-{uuid.uuid4().hex[:8]}")
    client.create_connector("exec-kill", _config(
        topic, tmp_path / "in", **_paced(), **_on_cluster(spark_cluster, tmp_path / "events")))

    victim = _executor_with_committed_rows(spark_cluster, worker, client, "exec-kill", files)
    spark_cluster.kill_executor(victim)

    _complete(client, "exec-kill", files, rows)
    _assert_exactly_once(kafka_bootstrap, topic, sum(rows))
    delivered, skipped = _deliveries(worker)["exec-kill-task-0"]
    assert skipped > 0 and delivered + skipped == sum(rows), (delivered, skipped)
    attempts = _task_attempts(_spark_events(tmp_path / "events"))
    lost = [a for a in attempts if a["reason"] == "ExecutorLostFailure"]
    assert lost, attempts
    assert all(any(b["index"] == a["index"] and b["stage"] == a["stage"] and b["reason"] == "Success"
                   for b in attempts) for a in lost), attempts  # Spark ran the lost slot again


def test_speculative_twin_of_a_slow_slot(workers: WorkerFactory, kafka_bootstrap: str, tmp_path: Path,
                                         spark_cluster: LocalSparkCluster) -> None:
    data = tmp_path / "in"
    rows = [2000, 2000, 2000, 4000]
    files = [*_files_in_slots(data, {0: rows[0], 2: rows[1], 5: rows[2]}),
             *_files_in_slots(data, {3: rows[3]}, prefix="slow", first_id=sum(rows[:3]))]
    worker = workers().start_ready()
    client = ConnectClient(worker.url)
    topic = create_topic(kafka_bootstrap, f"spark-speculation-{uuid.uuid4().hex[:8]}")
    # Only the slow file is paced: its deliverer commits a few rows at a time while its twin starts.
    client.create_connector("speculation", _config(
        topic, data, **_paced("%/slow-%"), **{
            "spark.conf.spark.speculation": "true",
            "spark.conf.spark.speculation.interval": "100ms",
            "spark.conf.spark.speculation.quantile": "0.5",
            # Any task running over 1 s once half of them are done: the first two take longer (a new
            # executor starts its Python workers), the third fast one less once they are warm.
            "spark.conf.spark.speculation.multiplier": "0.1",
            "spark.conf.spark.speculation.minTaskRuntime": "1s",
        }, **_on_cluster(spark_cluster, tmp_path / "events")))

    _complete(client, "speculation", files, rows)
    _assert_exactly_once(kafka_bootstrap, topic, sum(rows))
    attempts = _task_attempts(_spark_events(tmp_path / "events"))
    slow_partition = sorted([0, 2, 3, 5]).index(3)  # partitions go by slot; the slow file is in slot 3
    twins = [a for a in attempts if a["speculative"] and a["index"] == slow_partition]
    assert twins, attempts
    delivered, skipped = _deliveries(worker)["speculation-task-0"]
    assert skipped > 0 and delivered + skipped == sum(rows), (delivered, skipped)


def test_worker_killed_mid_job_task_moves_and_its_application_ends(
        workers: WorkerFactory, kafka_bootstrap: str, tmp_path: Path) -> None:
    rows = [3000] * 3
    files = _files_in_slots(tmp_path / "in", {0: rows[0], 3: rows[1], 7: rows[2]})
    pair = [workers().start_ready(), workers().start_ready()]
    client = ConnectClient(pair[0].url)
    topic = create_topic(kafka_bootstrap, f"spark-worker-kill-{uuid.uuid4().hex[:8]}")
    client.create_connector("worker-kill", _config(
        topic, tmp_path / "in", **_paced(), **{"spark.master": "local[2]"}))

    _wait_mid_job(client, "worker-kill")
    owner = client.status("worker-kill")["tasks"][0]["worker_id"]
    victim = next(w for w in pair if owner == f"127.0.0.1:{w.port}")
    survivor = next(w for w in pair if w is not victim)
    assert victim.proc is not None
    dead_tokens = _app_tokens(descendants(victim.proc.pid))  # spark-submit, the driver, PySpark's daemon...
    assert dead_tokens, "the task's Spark application runs under its worker"
    victim.kill()
    # Nothing of the dead worker's application is left: not the JVM, not the Python driver, not
    # PySpark's daemon or its workers (which leave the process group).
    wait_until(lambda: _gone(dead_tokens), 5, 0.1, message="the killed worker's Spark application to end")

    client = ConnectClient(survivor.url)
    _complete(client, "worker-kill", files, rows)
    assert client.status("worker-kill")["tasks"][0]["worker_id"] == f"127.0.0.1:{survivor.port}"
    _assert_exactly_once(kafka_bootstrap, topic, sum(rows))
    delivered, skipped = _deliveries(survivor)["worker-kill-task-0"]
    assert skipped > 0 and delivered + skipped == sum(rows), (delivered, skipped)
    assert not _pids_with_tokens(dead_tokens)


def test_tasks_max_raised_mid_job(workers: WorkerFactory, kafka_bootstrap: str, tmp_path: Path) -> None:
    rows = [2000] * 6
    # Slot s goes to task s mod 3 once there are three tasks: two files for each.
    files = _files_in_slots(tmp_path / "in", dict(zip(range(6), rows, strict=True)))
    worker = workers().start_ready()
    client = ConnectClient(worker.url)
    topic = create_topic(kafka_bootstrap, f"spark-scale-out-{uuid.uuid4().hex[:8]}")
    config = _config(topic, tmp_path / "in", **_paced(), **{"spark.master": "local[2]"})
    client.create_connector("scale-out", config)

    _wait_mid_job(client, "scale-out")
    r = client.request("PUT", "/connectors/scale-out/config", json={**config, "tasks.max": "3"})
    assert r.status_code == 200, r.text

    _complete(client, "scale-out", files, rows)
    assert len(client.status("scale-out")["tasks"]) == 3
    _assert_exactly_once(kafka_bootstrap, topic, sum(rows))
    deliveries = _deliveries(worker)
    # The three new tasks' applications each delivered rows of their slots, and between them went over
    # every file (the first application, stopped before it reached the end, marked none complete and
    # never reports), skipping what it had committed.
    assert sorted(deliveries) == [f"scale-out-task-{t}" for t in range(3)], deliveries
    assert all(delivered > 0 for delivered, _ in deliveries.values()), deliveries
    assert sum(skipped for _, skipped in deliveries.values()) > 0, deliveries
    assert sum(delivered + skipped for delivered, skipped in deliveries.values()) == sum(rows), deliveries
