"""The shell examples of README.md and docs/*.md work as written on a local broker (auto-creation off):
one worker started from ``worker.properties`` on the session's broker, every block not marked otherwise
run in document order (tests/doc_examples.py says how), each request answered without an error, and
each connector an example creates RUNNING with its tasks and delivering records, to the end."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from doc_examples import ROOT, WITH_DEMO, curl_request, shell_blocks
from doc_examples import commands as block_commands

from connect_runtime import demo
from connect_runtime.config.properties import load_properties
from connect_runtime.testing.cluster import WorkerProcess, wait_for_records, wait_until

pytestmark = pytest.mark.kafka

#: worker.properties' keys the test replaces: the session's broker, a port and internal topics of its own.
ISOLATED = ("bootstrap.servers", "listeners", "group.id", "config.storage.topic", "offset.storage.topic",
            "status.storage.topic")


@pytest.fixture(scope="module")
def worker(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    sample = {k: v for k, v in load_properties(ROOT / "worker.properties").items() if k not in ISOLATED}
    w = WorkerProcess(kafka_bootstrap, tmp_path_factory.mktemp("docs"), f"docs-{uuid.uuid4().hex[:8]}",
                      eos=sample.pop("exactly.once.source.support"), extra=sample).start_ready()
    try:
        yield w
    finally:
        w.kill()


def _running(http: httpx.Client, name: str) -> dict[str, Any] | None:
    status: dict[str, Any] = http.get(f"/connectors/{name}/status").json()
    tasks = status.get("tasks", [])
    if status.get("connector", {}).get("state") == "RUNNING" and tasks and all(
            t["state"] == "RUNNING" for t in tasks):
        return status
    failed = [t.get("trace", "") for t in tasks if t["state"] == "FAILED"]
    assert not failed, f"{name}: a task FAILED:\n{failed[0]}"
    return None


def _runs_and_delivers(http: httpx.Client, kafka_bootstrap: str, name: str, config: dict[str, str],
                       where: str) -> None:
    wait_until(lambda: _running(http, name), 60, message=f"{where}: connector {name} and its tasks RUNNING")
    wait_for_records(kafka_bootstrap, config["topic"], 1)
    assert _running(http, name), f"{where}: {name} stopped running once it delivered"


def test_every_shell_example_works_as_written(worker: WorkerProcess, kafka_bootstrap: str) -> None:
    created: set[str] = set()
    ran = 0
    with httpx.Client(base_url=worker.url, timeout=60) as http:
        for block in shell_blocks():
            if block.skip_reason is not None:
                continue
            if block.marker == WITH_DEMO:  # as ./dev demo creates it
                demo.ensure_topic(kafka_bootstrap)
                config = demo.connector_config(100)
                assert http.put(f"/connectors/{demo.CONNECTOR}/config", json=config).status_code < 400
                _runs_and_delivers(http, kafka_bootstrap, demo.CONNECTOR, config, block.where)
                created.add(demo.CONNECTOR)
            for command in block_commands(block.body):
                if command.stood_in_for:
                    continue
                ran += 1
                if command.words[0] != "curl":
                    done = subprocess.run(["bash", "-c", command.text], cwd=ROOT, capture_output=True, text=True,
                                          timeout=60)
                    assert done.returncode == 0, f"{block.where}: {command.text}\n{done.stderr}"
                    continue
                request = curl_request(command.words)
                answer = http.request(request.method, request.path, headers=request.headers, content=request.body)
                assert answer.status_code < 400, f"{block.where}: {command.text}\n-> {answer.status_code} {answer.text}"
                made = request.created_connector()
                if made is not None:
                    _runs_and_delivers(http, kafka_bootstrap, *made, block.where)
                    created.add(made[0])
        assert ran >= 8 and {"seq", "app-log", demo.CONNECTOR} <= created, (ran, created)
        # What the examples left running (the offsets example stops and resumes seq) still runs.
        for name in sorted(created):
            wait_until(lambda name=name: _running(http, name), 60, message=f"{name} RUNNING at the end")
