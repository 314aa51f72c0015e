"""What the benchmark scripts share: this tree on the import path, the ``--bootstrap`` flag, logging,
the broker (the given one, else a LocalKafka started for the run and stopped after it), and for the
REST benchmarks a minimal HTTP client with its latency summary.

A script puts ``bench/`` on ``sys.path`` and imports this module first: importing it makes this tree's
code the one that runs, in the script and in the worker child processes it starts (``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import psutil

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)

from connect_runtime.testing.local_kafka import LocalKafka, session_kafka_version  # noqa: E402

log = logging.getLogger("bench")


def add_bootstrap_argument(parser: argparse.ArgumentParser) -> None:
    """``--bootstrap``: the broker to use; without it ``$KAFKA_BOOTSTRAP_SERVERS``, else a local one."""
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"),
                        help="bootstrap.servers (default $KAFKA_BOOTSTRAP_SERVERS, else a local broker)")


def configure_logging() -> None:
    """Logs go to stderr (stdout carries the one JSON result)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # httpx logs one line per request, and the scripts poll the REST API every few milliseconds.
    logging.getLogger("httpx").setLevel(logging.WARNING)


@dataclass(frozen=True)
class Broker:
    """The broker of a run."""

    bootstrap: str
    #: True when the run started it (a LocalKafka), False for a given one.
    local: bool

    @property
    def version_label(self) -> str:
        """The ``kafka`` field of a result: the local broker's version, or ``external``."""
        return session_kafka_version() if self.local else "external"

    @property
    def bootstrap_label(self) -> str:
        """The ``bootstrap`` field of a result: ``local``, or the given bootstrap servers."""
        return "local" if self.local else self.bootstrap


@contextlib.contextmanager
def broker(workdir: Path, bootstrap: str | None) -> Iterator[Broker]:
    """``bootstrap`` when given, else a LocalKafka in ``workdir / "kafka"`` (the release of
    ``$CONNECT_RUNTIME_KAFKA_VERSION``, as the test fixtures' broker), stopped on the way out."""
    if bootstrap:
        yield Broker(bootstrap, local=False)
        return
    kafka = LocalKafka(workdir / "kafka", kafka_version=session_kafka_version())
    log.info("starting a local Kafka %s in %s", kafka.kafka_version, kafka.data_dir)
    started = kafka.start()
    try:
        yield Broker(started, local=True)
    finally:
        kafka.stop()


def process_tree(pid: int) -> tuple[psutil.Process, list[psutil.Process]] | None:
    """Process ``pid`` and its live descendants (the fork server and task processes of a worker); None when
    ``pid`` is gone."""
    try:
        root = psutil.Process(pid)
        return root, root.children(recursive=True)
    except psutil.NoSuchProcess:
        return None


def verifiable_config(topic: str, tasks: int = 1, throughput: int = 1) -> dict[str, str]:
    """The config of a VerifiableSource writing ``throughput`` records/s per task to ``topic``."""
    return {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": str(tasks),
            "throughput": str(throughput)}


Latencies = list[float]


def summary(latencies: Latencies, wall_s: float | None = None) -> dict[str, Any]:
    """count, p50/p99/max in ms (nearest rank), and requests/s over ``wall_s``."""
    ordered = sorted(latencies)
    if not ordered:
        return {"count": 0}

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.5) - 1))] * 1000

    out: dict[str, Any] = {"count": len(ordered), "p50_ms": round(rank(0.50), 2),
                           "p99_ms": round(rank(0.99), 2), "max_ms": round(ordered[-1] * 1000, 2)}
    if wall_s:
        out["requests_per_s"] = round(len(ordered) / wall_s, 1)
    return out


class GetConnection(Protocol):
    """A client connection that sends GETs: ``(status, body)``."""

    async def get(self, path: str) -> tuple[int, bytes]: ...

    async def close(self) -> None: ...


class Connection:
    """One keep-alive HTTP/1.1 connection sending GETs: just enough client to measure a server.

    With 50 concurrent requests httpx's async client tops out at a few hundred requests/s on a 2-core
    machine and would be what is measured.
    """

    def __init__(self, base_url: str) -> None:
        host, _, port = base_url.removeprefix("http://").partition(":")
        self._host, self._port = host, int(port or 80)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, bytes]:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
        assert self._reader is not None
        self._writer.write(f"GET {path} HTTP/1.1\r\nHost: {self._host}\r\nAccept: application/json\r\n\r\n"
                           .encode())
        head = await self._reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = next((int(line.split(b":", 1)[1]) for line in lines[1:]
                       if line.lower().startswith(b"content-length:")), None)
        if length is None:
            raise RuntimeError(f"no Content-Length in the answer to GET {path}: {head!r}")
        return status, await self._reader.readexactly(length)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


async def load(base_url: str, paths: Callable[[int], str], clients: int, requests: int,
               connection: Callable[[str], GetConnection] = Connection) -> dict[str, Any]:
    """``clients`` concurrent clients (one ``connection`` each) sending ``requests`` GETs in all; the i-th
    request goes to ``paths(i)``. A :func:`summary`, with ``clients`` and the first few non-200 answers."""
    latencies: Latencies = []
    counter = iter(range(requests))
    errors: list[str] = []
    connections = [connection(base_url) for _ in range(clients)]

    async def one_client(conn: GetConnection) -> None:
        for i in counter:
            started = time.perf_counter()
            status, body = await conn.get(paths(i))
            latencies.append(time.perf_counter() - started)
            if status != 200 and len(errors) < 5:
                errors.append(f"{status} {body[:200]!r}")

    try:
        # Connect and warm up first: connection set-up is not what is measured.
        await asyncio.gather(*(conn.get(paths(0)) for conn in connections))
        wall = time.perf_counter()
        await asyncio.gather(*(one_client(conn) for conn in connections))
        wall = time.perf_counter() - wall
    finally:
        await asyncio.gather(*(conn.close() for conn in connections))
    result = summary(latencies, wall)
    result["clients"] = clients
    if errors:
        result["errors"] = errors
    return result


@contextlib.contextmanager
def run_workdir(given: str | None, prefix: str) -> Iterator[Path]:
    """A run's files: in ``given`` (``--workdir``), kept after the run for its logs, or in a temporary
    directory removed at the end."""
    if given:
        Path(given).mkdir(parents=True, exist_ok=True)
        yield Path(given)
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)
