"""Helpers of the Spark connector tests: CSV inputs and what landed in Kafka."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from connect_runtime.api.processes import descendants, env_value, proc_pids
from connect_runtime.testing.cluster import ConnectClient, read_committed, wait_until
from connectors.spark.application import TOKEN_ENV


def write_csv(path: Path, first_id: int, rows: int, header: bool = True) -> Path:
    """Rows ``id,name,amount`` with ids ``first_id .. first_id + rows - 1``."""
    with path.open("w", encoding="utf-8") as f:
        if header:
            f.write("id,name,amount\n")
        f.writelines(f"{i},name-{i},{i % 1000}.5\n" for i in range(first_id, first_id + rows))
    return path


def csv_inputs(directory: Path, *rows: int) -> Path:
    """``directory``, made, with CSV files ``a.csv``, ``b.csv``, ... of ``rows[i]`` rows each (see
    :func:`write_csv`), the ids running on from one file to the next."""
    directory.mkdir()
    first_id = 0
    for name, count in zip(string.ascii_lowercase, rows, strict=False):
        write_csv(directory / f"{name}.csv", first_id, count)
        first_id += count
    return directory


def rows_by_id(bootstrap: str, topic: str) -> tuple[dict[int, int], list[tuple[bytes | None, bytes | None]]]:
    """id -> how many times it is in ``topic`` (read_committed), and the records."""
    records = read_committed(bootstrap, topic)
    counts: dict[int, int] = {}
    for _, value in records:
        assert value is not None
        row = json.loads(value)
        counts[int(row["id"])] = counts.get(int(row["id"]), 0) + 1
    return counts, records


def assert_not_failed(client: ConnectClient, name: str) -> dict[str, Any]:
    """The connector's status; an AssertionError with the trace if it or a task FAILED."""
    status = client.status(name)
    for part in [status["connector"], *status["tasks"]]:
        assert part["state"] != "FAILED", part.get("trace", part)
    return status


def file_offsets(client: ConnectClient, name: str) -> dict[str, dict[str, Any]]:
    body = client.request("GET", f"/connectors/{name}/offsets").json()
    return {o["partition"]["file"]: o["offset"] for o in body.get("offsets", [])}


def wait_files_complete(client: ConnectClient, name: str, files: int, timeout_s: float = 300.0,
                        rows: int | None = None) -> dict[str, dict[str, Any]]:
    """Wait until ``files`` files have an end-of-file offset (failing at once if a task FAILED)."""
    def complete() -> dict[str, dict[str, Any]] | None:
        assert_not_failed(client, name)
        offsets = file_offsets(client, name)
        done = {f: o for f, o in offsets.items() if o.get("eof")}
        if rows is not None and sum(o["rows"] for o in done.values()) < rows:
            return None
        return done if len(done) >= files else None

    return wait_until(complete, timeout_s=timeout_s, interval_s=1.0, message=f"{files} files of {name} complete")


def create_topic(bootstrap: str, topic: str, partitions: int = 3) -> str:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        future.result(30)
    return topic


def app_tokens(worker_pid: int) -> set[str]:
    """The tokens of the Spark applications a worker process runs now (spark-submit children of its task
    processes)."""
    tokens = {env_value(pid, TOKEN_ENV) for pid in descendants(worker_pid)}
    return {t for t in tokens if t is not None}


def pids_with_tokens(tokens: set[str]) -> list[int]:
    """Every live process of those applications (driver, local executors, PySpark daemon and workers)."""
    return [pid for pid in proc_pids() if env_value(pid, TOKEN_ENV) in tokens]
