#!/usr/bin/env python3
"""REST latency of one worker with many connectors, against the floor of a trivial FastAPI app.

One ``connect-distributed`` worker child process (exactly-once enabled) with ``--connectors`` connectors:
``--running`` VerifiableSource connectors with one task at 1 record/s, the rest created PAUSED (no
tasks), so the worker's own work stays small and the figures are about REST. Then:

* ``floor``: the same client against a trivial FastAPI app (one route answering a fixed status-like
  body), served by uvicorn in a child process on this machine: what HTTP, uvicorn and the client cost.
* ``status``, ``list_expand_status``, ``config``: ``--clients`` concurrent clients (one keep-alive
  connection each) sending ``GET /connectors/{c}/status`` (over all connectors),
  ``GET /connectors?expand=status`` and ``GET /connectors/{c}/config`` back to back.
  ``status_sequential``: one client, one request at a time.
* ``create`` / ``delete``: ``--cycles`` times, ``POST /connectors`` (a running VerifiableSource, 1 task),
  wait until its task runs, ``DELETE``; meanwhile ``--cycle-readers`` clients read statuses
  (``status_during_cycles``).
* ``fencing``: a ``--fencing-tasks``-task exactly-once VerifiableSource is reconfigured, so the leader
  fences that many task producers before the new generation starts, while ``--cycle-readers`` clients
  read its status (``status_during_fencing``). ``fenced_after_s``: from the reconfiguration until the
  new generation's ``tasks-fencing`` record is in the config topic (the round is done); ``window_s``:
  until every task runs again. ``--fencing-tasks 0`` skips it.

Prints ONE JSON object on stdout; logs go to stderr. Broker: ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka in a temp dir. Latencies are measured by the client
(a Python process on the same machine), so they include its own CPU time: compare with ``floor``.
The concurrent reads use a minimal HTTP/1.1 client on asyncio streams rather than httpx: with 50
concurrent requests httpx's async client itself tops out at a few hundred requests/s on a 2-core
machine and would be what is measured (``--httpx`` uses it anyway, for comparison).

    python bench/rest_latency.py [--connectors 100] [--clients 50] [--requests 3000] [--cycles 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker children's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx
from _common import (
    Connection,
    GetConnection,
    Latencies,
    add_bootstrap_argument,
    broker,
    configure_logging,
    load,
    summary,
    verifiable_config,
)

from connect_runtime.testing.cluster import WorkerProcess, config_records, wait_until
from connect_runtime.testing.local_kafka import free_port
from connect_runtime.testing.pytest_plugin import new_topic

log = logging.getLogger("bench.rest_latency")

#: A status body of the size the worker answers for a connector with one task.
_FLOOR_APP = """
import sys
import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse

app = FastAPI()
BODY = {"name": "c", "connector": {"state": "RUNNING", "worker_id": "127.0.0.1:8083"},
        "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "127.0.0.1:8083"}], "type": "source"}

@app.get("/connectors/{connector}/status")
async def status(connector: str) -> JSONResponse:
    return JSONResponse(BODY)

@app.get("/")
async def root() -> JSONResponse:
    return JSONResponse({"version": "floor"})

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""


class HttpxConnection:
    """The same interface on httpx, one client per connection (``--httpx``)."""

    def __init__(self, base_url: str) -> None:
        self._http = httpx.AsyncClient(base_url=base_url, timeout=120)

    async def get(self, path: str) -> tuple[int, bytes]:
        resp = await self._http.get(path)
        return resp.status_code, resp.content

    async def close(self) -> None:
        await self._http.aclose()


_CONNECTION: Callable[[str], GetConnection] = Connection


class Readers:
    """Background status readers (asyncio tasks) while something else happens; ``stop()`` summarises."""

    def __init__(self, base_url: str, paths: Callable[[int], str], clients: int) -> None:
        self._paths, self._clients = paths, clients
        self._connections = [_CONNECTION(base_url) for _ in range(clients)]
        self._latencies: Latencies = []
        self._errors: list[str] = []
        self._stopping = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._run(i, conn)) for i, conn in enumerate(self._connections)]

    async def _run(self, offset: int, conn: GetConnection) -> None:
        i = offset
        while not self._stopping.is_set():
            started = time.perf_counter()
            status, body = await conn.get(self._paths(i))
            self._latencies.append(time.perf_counter() - started)
            if status != 200 and len(self._errors) < 5:
                self._errors.append(f"{status} {body[:200]!r}")
            i += self._clients

    async def stop(self) -> dict[str, Any]:
        self._stopping.set()
        await asyncio.gather(*self._tasks)
        await asyncio.gather(*(conn.close() for conn in self._connections))
        result = summary(self._latencies)
        result["clients"] = self._clients
        if self._errors:
            result["errors"] = self._errors
        return result


def _all_running(http: httpx.Client, name: str, tasks: int) -> bool:
    resp = http.get(f"/connectors/{name}/status")
    if resp.status_code != 200:
        return False
    st = resp.json()
    return (st["connector"]["state"] == "RUNNING" and len(st["tasks"]) == tasks
            and all(t["state"] == "RUNNING" for t in st["tasks"]))


def start_floor(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    script = workdir / "floor_app.py"
    script.write_text(_FLOOR_APP)
    proc = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL,
                            stderr=(workdir / "floor.log").open("ab"))
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: httpx.get(url + "/", timeout=2).status_code == 200, 60, message="the floor app")
    return proc, url


async def measure_cycles(url: str, topic: str, cycles: int, readers: int, paths: Callable[[int], str]
                         ) -> dict[str, Any]:
    create: Latencies = []
    delete: Latencies = []
    background = Readers(url, paths, readers)
    await background.start()

    def run_cycles() -> None:
        with httpx.Client(base_url=url, timeout=120) as http:
            for i in range(cycles):
                name = f"cycle-{i}-{uuid.uuid4().hex[:4]}"
                started = time.perf_counter()
                resp = http.post("/connectors", json={"name": name, "config": verifiable_config(topic)})
                create.append(time.perf_counter() - started)
                if resp.status_code != 201:
                    raise RuntimeError(f"create {name}: {resp.status_code} {resp.text}")
                wait_until(lambda n=name: _all_running(http, n, 1), 60, interval_s=0.05,  # type: ignore[misc]
                           message=f"{name} running")
                started = time.perf_counter()
                resp = http.delete(f"/connectors/{name}")
                delete.append(time.perf_counter() - started)
                if resp.status_code != 204:
                    raise RuntimeError(f"delete {name}: {resp.status_code} {resp.text}")

    try:
        await asyncio.to_thread(run_cycles)
    finally:
        during = await background.stop()
    return {"create": _ms(create), "delete": _ms(delete), "status_during_cycles": during}


def _ms(values: Latencies) -> dict[str, Any]:
    s = summary(values)
    s["median_ms"] = s.pop("p50_ms", None)
    return s


def _fencing_records(bootstrap: str, config_topic: str, connector: str) -> int:
    """How many ``tasks-fencing-<connector>`` records the config topic holds (one per fenced generation)."""
    key = f"tasks-fencing-{connector}"
    return sum(1 for k, v in config_records(bootstrap, config_topic) if k == key and v is not None)


async def measure_fencing(url: str, bootstrap: str, config_topic: str, tasks: int, readers: int) -> dict[str, Any]:
    topic = new_topic(bootstrap, partitions=1)
    name = f"fenced-{uuid.uuid4().hex[:4]}"
    with httpx.Client(base_url=url, timeout=120) as http:
        resp = http.post("/connectors", json={"name": name, "config": verifiable_config(topic, tasks, 1)})
        if resp.status_code != 201:
            raise RuntimeError(f"create {name}: {resp.status_code} {resp.text}")
        wait_until(lambda: _all_running(http, name, tasks), 300, interval_s=0.5, message=f"{tasks} tasks running")
        time.sleep(2.0)  # let every task commit once: the next generation has something to fence
        background = Readers(url, lambda i: f"/connectors/{name}/status", readers)
        await background.start()
        started = time.perf_counter()
        try:
            # A new config means new task configs: the leader fences all `tasks` producers of the
            # previous generation before any task of the new one may start.
            resp = await asyncio.to_thread(http.put, f"/connectors/{name}/config",
                                           json={**verifiable_config(topic, tasks, 2), "name": name})
            if resp.status_code != 200:
                raise RuntimeError(f"reconfigure {name}: {resp.status_code} {resp.text}")
            # The new generation's task-count record is written once its fencing round is done.
            await asyncio.to_thread(wait_until, lambda: _fencing_records(bootstrap, config_topic, name) >= 2,
                                    300, 0.2, "the second generation's tasks-fencing record")
            fenced = time.perf_counter() - started
            await asyncio.to_thread(wait_until, lambda: _all_running(http, name, tasks), 300, 0.2,
                                    f"{tasks} tasks running again")
            window = time.perf_counter() - started
        finally:
            during = await background.stop()
        http.delete(f"/connectors/{name}")
    return {"tasks": tasks, "fenced_after_s": round(fenced, 2), "window_s": round(window, 2),
            "status_during_fencing": during}


async def run(args: argparse.Namespace, bootstrap: str, workdir: Path) -> dict[str, Any]:
    result: dict[str, Any] = {}
    floor_proc, floor_url = start_floor(workdir)
    try:
        log.info("floor: trivial FastAPI app at %s", floor_url)
        result["floor"] = await load(floor_url, lambda i: f"/connectors/c{i % 100}/status", args.clients,
                                     args.requests, _CONNECTION)
        result["floor_sequential"] = await load(floor_url, lambda i: "/connectors/c/status", 1,
                                                args.requests // 3, _CONNECTION)
    finally:
        floor_proc.terminate()
        floor_proc.wait(30)

    worker = WorkerProcess(bootstrap, workdir, f"bench-rest-{uuid.uuid4().hex[:6]}")
    worker.start()
    try:
        worker.wait_ready(120)
        topic = new_topic(bootstrap, partitions=1)
        names = [f"conn-{i:03d}" for i in range(args.connectors)]
        with httpx.Client(base_url=worker.url, timeout=120) as http:
            for i, name in enumerate(names):
                body: dict[str, Any] = {"name": name, "config": verifiable_config(topic)}
                if i >= args.running:
                    body["initial_state"] = "PAUSED"
                resp = http.post("/connectors", json=body)
                if resp.status_code != 201:
                    raise RuntimeError(f"create {name}: {resp.status_code} {resp.text}")
            for name in names[:args.running]:
                wait_until(lambda n=name: _all_running(http, n, 1), 120, interval_s=0.2,  # type: ignore[misc]
                           message=f"{name} running")
        log.info("worker %s has %d connectors (%d running)", worker.url, args.connectors, args.running)

        def status_path(i: int) -> str:
            return f"/connectors/{names[i % len(names)]}/status"

        result["status"] = await load(worker.url, status_path, args.clients, args.requests, _CONNECTION)
        result["status_sequential"] = await load(worker.url, status_path, 1, args.requests // 3, _CONNECTION)
        result["list_expand_status"] = await load(worker.url, lambda i: "/connectors?expand=status",
                                                  args.clients, max(args.clients * 4, args.requests // 10),
                                                  _CONNECTION)
        result["config"] = await load(worker.url, lambda i: f"/connectors/{names[i % len(names)]}/config",
                                      args.clients, args.requests, _CONNECTION)
        log.info("create/delete cycles")
        result.update(await measure_cycles(worker.url, topic, args.cycles, args.cycle_readers, status_path))
        if args.fencing_tasks > 0:
            log.info("fencing round of a %d-task connector", args.fencing_tasks)
            result["fencing"] = await measure_fencing(worker.url, bootstrap, worker.props["config.storage.topic"],
                                                      args.fencing_tasks, args.cycle_readers)
    except BaseException:
        log.error("worker log tail:\n%s", worker.log_tail(60))
        raise
    finally:
        worker.kill()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connectors", type=int, default=100)
    parser.add_argument("--running", type=int, default=5, help="of the connectors, how many run (1 task each)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=3000, help="requests per concurrent read measurement")
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--cycle-readers", type=int, default=10,
                        help="status readers during the create/delete cycles and the fencing round")
    parser.add_argument("--fencing-tasks", type=int, default=50)
    parser.add_argument("--httpx", action="store_true", help="read with httpx instead of the minimal client")
    add_bootstrap_argument(parser)
    args = parser.parse_args()
    configure_logging()
    global _CONNECTION
    if args.httpx:
        _CONNECTION = HttpxConnection
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-rest-") as tmp, broker(Path(tmp), args.bootstrap) as kafka:
        result = asyncio.run(run(args, kafka.bootstrap, Path(tmp)))
    load_after = os.getloadavg()
    status_p99 = result["status"].get("p99_ms")
    print(json.dumps({
        "benchmark": "rest_latency",
        "connectors": args.connectors, "running": args.running, "clients": args.clients,
        "requests": args.requests, "cycles": args.cycles, "client": "httpx" if args.httpx else "minimal",
        **result,
        "target_status_p99_ms": 20,
        "within_target": status_p99 is not None and status_p99 < 20,
        "loadavg_1m_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
        "cpus": os.cpu_count(),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
