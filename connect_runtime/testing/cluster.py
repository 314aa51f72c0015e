"""Run real worker processes against a real Kafka and check what they delivered.

Shipped with the package so plugin authors can test connectors the way this project tests itself:
``WorkerProcess`` starts ``connect-distributed`` as a child process (so tests can SIGKILL it),
``ConnectClient`` drives the REST API, and ``read_committed`` / ``check_sequences`` verify exactly-once
delivery of sequence-numbered records.
"""

from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from confluent_kafka import Consumer, IsolationLevel, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from connect_runtime.config.worker_config import parse_listener
from connect_runtime.testing.local_kafka import free_port

T = TypeVar("T")

_WORKER_CMD = "import sys; from connect_runtime.cli import distributed_main; sys.exit(distributed_main(sys.argv[1:]))"


def wait_until(condition: Callable[[], T | None], timeout_s: float = 60.0, interval_s: float = 0.2,
               message: str = "condition") -> T:
    """Poll ``condition`` until it returns something truthy; raise AssertionError at the deadline.

    Other exceptions from ``condition`` count as "not yet" (e.g. REST not up yet) and the last one is
    reported at the deadline; an AssertionError is a failed check, not a transient state, so it
    propagates at once instead of turning into a timeout that hides what was wrong.
    """
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while True:
        try:
            result = condition()
            if result:
                return result
        except AssertionError:
            raise
        except Exception as e:
            last_error = e
        if time.monotonic() >= deadline:
            raise AssertionError(f"Timed out after {timeout_s}s waiting for {message}"
                                 + (f" (last error: {last_error!r})" if last_error else ""))
        time.sleep(interval_s)


def assert_settles(read: Callable[[], T], settle_s: float = 15.0, window_s: float = 2.5,
                   message: str = "value") -> T:
    """Wait until ``read()`` stops changing (two readings half a second apart agree, within
    ``settle_s``: work in flight, such as a stopping task's final commit, may still land), then assert
    it stays the same for ``window_s``. Returns the settled value.

    For "nothing more is written": comparing against a reading taken once is racy, since a single
    commit that lands just after it (a transaction marker counts) never lets the two agree again.
    """
    def settled() -> tuple[T] | None:
        first = read()
        time.sleep(0.5)  # part of the polled condition: two readings half a second apart
        return (first,) if read() == first else None

    (value,) = wait_until(settled, settle_s, interval_s=0.1, message=f"{message} to stop changing")
    deadline = time.monotonic() + window_s
    while time.monotonic() < deadline:
        now = read()
        assert now == value, f"{message} changed after it had settled: {value!r} -> {now!r}"
        time.sleep(0.25)
    return value


def plugin_path(*dirs: str | Path) -> dict[str, str]:
    """``extra`` worker settings for a :class:`WorkerProcess` that discovers the plugins of Python plugin
    directories ``dirs`` (``plugin.path``), e.g.
    ``WorkerProcess(..., extra=plugin_path(Path(__file__).parent / "plugins"))``."""
    return {"plugin.path": ",".join(str(d) for d in dirs)}


class WorkerProcess:
    """A ``connect-distributed`` child process with its own properties file and log.

    It listens on ``<scheme>://127.0.0.1:<port>`` unless ``extra`` sets ``listeners``; :attr:`url` is
    its first listener. For an https worker, put the keystore settings in ``extra``
    (``listeners.https.ssl.keystore.*``) and pass ``verify`` (an :class:`ssl.SSLContext` trusting the
    test CA) for the readiness check and for :class:`ConnectClient` (``verify=worker.verify``).
    """

    def __init__(self, bootstrap: str, workdir: Path, group_id: str, *, port: int | None = None,
                 eos: str = "enabled", extra: Mapping[str, str] | None = None,
                 env: Mapping[str, str] | None = None, scheme: str = "http",
                 verify: ssl.SSLContext | bool = True) -> None:
        self.port = port or free_port()
        #: How clients of this worker verify its https listeners.
        self.verify = verify
        #: Variables merged over this process's environment for the child (plugins are found through
        #: ``plugin.path``: see :func:`plugin_path`).
        self.env: dict[str, str] = dict(env or {})
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.props: dict[str, str] = {
            "bootstrap.servers": bootstrap,
            "group.id": group_id,
            "config.storage.topic": f"{group_id}-configs",
            "offset.storage.topic": f"{group_id}-offsets",
            "status.storage.topic": f"{group_id}-status",
            "config.storage.replication.factor": "1",
            "offset.storage.replication.factor": "1",
            "status.storage.replication.factor": "1",
            "offset.storage.partitions": "5",
            "status.storage.partitions": "2",
            "exactly.once.source.support": eos,
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter.schemas.enable": "false",
            "listeners": f"{scheme}://127.0.0.1:{self.port}",
            "offset.flush.interval.ms": "1000",
        }
        self.props.update(extra or {})
        first_scheme, host, first_port = parse_listener(self.props["listeners"].split(",")[0])
        self.port = first_port
        #: The first listener's URL (``127.0.0.1`` when it binds all interfaces).
        self.url = f"{first_scheme}://{host or '127.0.0.1'}:{first_port}"
        self.config_path = workdir / f"worker-{self.port}.properties"
        self.log_path = workdir / f"worker-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in self.props.items()))
        log = self.log_path.open("ab")
        env = {**os.environ, **self.env}
        env.setdefault("PYTHONUNBUFFERED", "1")
        self.proc = subprocess.Popen([sys.executable, "-c", _WORKER_CMD, str(self.config_path)],
                                     stdout=log, stderr=subprocess.STDOUT, env=env)
        log.close()
        return self

    def start_ready(self, timeout_s: float = 60.0) -> WorkerProcess:
        """:meth:`start`, then :meth:`wait_ready`; a worker that does not get ready is killed."""
        self.start()
        try:
            self.wait_ready(timeout_s)
        except BaseException:
            self.kill()
            raise
        return self

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        def ready() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"worker exited with {self.proc.returncode}; log: {self.log_tail()}")
            return httpx.get(f"{self.url}/health", timeout=2, verify=self.verify).status_code == 200

        wait_until(ready, timeout_s, message=f"worker {self.url} to be ready")

    def signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL: no final commit, no clean leave."""
        self.signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(30)

    def stop(self, timeout_s: float = 60.0) -> int | None:
        """SIGTERM and wait: the graceful path. Returns the exit code."""
        if self.proc is None:
            return None
        self.signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            raise

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class ConnectClient:
    """A tiny client of the Kafka Connect REST API."""

    def __init__(self, url: str, timeout_s: float = 30.0, verify: ssl.SSLContext | bool = True) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=timeout_s, verify=verify)

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return self._http.request(method, path, **kwargs)

    def create_connector(self, name: str, config: Mapping[str, str]) -> dict[str, Any]:
        r = self._http.post("/connectors", json={"name": name, "config": dict(config)})
        if r.status_code != 201:
            raise AssertionError(f"create {name} failed: {r.status_code} {r.text}")
        result: dict[str, Any] = r.json()
        return result

    def status(self, name: str) -> dict[str, Any]:
        r = self._http.get(f"/connectors/{name}/status")
        r.raise_for_status()
        result: dict[str, Any] = r.json()
        return result

    def wait_running(self, name: str, tasks: int, timeout_s: float = 90.0) -> dict[str, Any]:
        def running() -> dict[str, Any] | None:
            st = self.status(name)
            ok = (st["connector"]["state"] == "RUNNING" and len(st["tasks"]) == tasks
                  and all(t["state"] == "RUNNING" for t in st["tasks"]))
            return st if ok else None

        return wait_until(running, timeout_s, message=f"{name} and {tasks} tasks RUNNING")

    def close(self) -> None:
        self._http.close()


def end_offsets(bootstrap: str, topic: str) -> dict[int, int]:
    """Log-end offsets of every partition (including open transactions)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    md = admin.list_topics(topic, timeout=30).topics[topic]
    req = {TopicPartition(topic, p): OffsetSpec.latest() for p in md.partitions}
    res = admin.list_offsets(req, isolation_level=IsolationLevel.READ_UNCOMMITTED)
    return {tp.partition: f.result().offset for tp, f in res.items()}


def read_committed(bootstrap: str, topic: str, timeout_s: float = 120.0) -> list[tuple[bytes | None, bytes | None]]:
    """Every committed record of ``topic`` as (key, value), read to the current end."""
    ends = end_offsets(bootstrap, topic)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"verify-{uuid.uuid4()}",
                         "isolation.level": "read_committed", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, p, 0) for p in ends])
    out: list[tuple[bytes | None, bytes | None]] = []
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            for m in consumer.consume(10000, 0.5):
                if m.error() is None:
                    out.append((m.key(), m.value()))
            positions = consumer.position([TopicPartition(topic, p) for p in ends])
            if all(tp.offset >= ends[tp.partition] or ends[tp.partition] == 0 for tp in positions):
                return out
            if time.monotonic() > deadline:
                raise AssertionError(f"read_committed of {topic} did not reach {ends} in {timeout_s}s")
    finally:
        consumer.close()


def config_records(bootstrap: str, topic: str) -> list[tuple[str, bytes | None]]:
    """Every committed record of a config topic, in order, as (key text, raw value); tombstones kept."""
    return [(k.decode("utf-8", "replace"), v) for k, v in read_committed(bootstrap, topic) if k is not None]


def current_leader(bootstrap: str, config_topic: str) -> dict[str, Any] | None:
    """The latest committed ``leader`` record (``{"worker_id", "url", "epoch", "session"}``), or None."""
    latest: dict[str, Any] | None = None
    for key, value in config_records(bootstrap, config_topic):
        if key == "leader" and value is not None:
            latest = json.loads(value)
    return latest


@dataclass
class SequenceReport:
    """Per task: how many records, the highest seqno, duplicated and missing seqnos."""

    counts: dict[int, int] = field(default_factory=dict)
    max_seqno: dict[int, int] = field(default_factory=dict)
    duplicates: dict[int, list[int]] = field(default_factory=dict)
    gaps: dict[int, list[int]] = field(default_factory=dict)

    @property
    def exactly_once(self) -> bool:
        return bool(self.counts) and not any(self.duplicates.values()) and not any(self.gaps.values())

    def summary(self) -> str:
        dup = {t: len(v) for t, v in self.duplicates.items() if v}
        gap = {t: len(v) for t, v in self.gaps.items() if v}
        return f"counts={self.counts} max={self.max_seqno} duplicated={dup} missing={gap}"


def check_sequences(records: Iterable[tuple[int, int]]) -> SequenceReport:
    """Given (task, seqno) pairs, report duplicates and gaps in 0..max per task."""
    seen: dict[int, dict[int, int]] = {}
    for task, seq in records:
        per = seen.setdefault(task, {})
        per[seq] = per.get(seq, 0) + 1
    report = SequenceReport()
    for task, per in sorted(seen.items()):
        top = max(per)
        report.counts[task] = sum(per.values())
        report.max_seqno[task] = top
        report.duplicates[task] = sorted(s for s, n in per.items() if n > 1)
        report.gaps[task] = [s for s in range(top + 1) if s not in per]
    return report


def verifiable_pairs(records: Iterable[tuple[bytes | None, bytes | None]]) -> list[tuple[int, int]]:
    """(task, seqno) of VerifiableSource records written with the schemaless JsonConverter."""
    out = []
    for key, value in records:
        assert key is not None and value is not None
        v = json.loads(value)
        seq = v["seqno"] if isinstance(v, dict) else v
        out.append((int(json.loads(key)), int(seq)))
    return out


def stored_offsets(bootstrap: str, offsets_topic: str, connector: str) -> dict[int, int]:
    """Last committed ``seqno`` per VerifiableSource task id from the offsets topic."""
    result: dict[int, int] = {}
    for key, value in read_committed(bootstrap, offsets_topic):
        if key is None:
            continue
        k = json.loads(key)
        if k[0] != connector:
            continue
        task = int(k[1]["id"])
        if value is None:
            result.pop(task, None)
        else:
            result[task] = int(json.loads(value)["seqno"])
    return result
