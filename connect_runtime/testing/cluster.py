"""Run real worker processes against a real Kafka and check what they delivered.

Shipped with the package so plugin authors can test connectors the way this project tests itself:
:class:`WorkerProcess` starts ``connect-distributed`` as a child process (so tests can SIGKILL it),
:class:`WorkerGroup` starts several workers of one Connect group and cleans them all up,
:class:`~connect_runtime.testing.connect_client.ConnectClient` drives the REST API, and the readers of
:mod:`~connect_runtime.testing.topics`, :mod:`~connect_runtime.testing.source_offsets` and
:mod:`~connect_runtime.testing.sequences` (all importable from here too) check what was delivered.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import ssl
import subprocess
import sys
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from connect_runtime.config.worker_config import parse_listener
from connect_runtime.testing.connect_client import ConnectClient, ConnectRestError
from connect_runtime.testing.launcher import free_port
from connect_runtime.testing.sequences import (
    SequenceReport,
    check_sequences,
    verifiable_key,
    verifiable_pairs,
)
from connect_runtime.testing.source_offsets import read_source_offset, read_source_offsets
from connect_runtime.testing.topics import (
    Transaction,
    TransactionReport,
    end_offsets,
    open_transactions,
    read_committed,
    read_records,
    read_transactions,
    stable_offsets,
    wait_for_records,
)
from connect_runtime.testing.waiting import assert_settles, wait_until

__all__ = [
    "FAST_FAILOVER",
    "THREE_BROKERS",
    "ConnectClient",
    "ConnectRestError",
    "SequenceReport",
    "Transaction",
    "TransactionReport",
    "WorkerGroup",
    "WorkerProcess",
    "assert_settles",
    "check_sequences",
    "config_records",
    "current_leader",
    "end_offsets",
    "open_transactions",
    "plugin_path",
    "read_committed",
    "read_records",
    "read_source_offset",
    "read_source_offsets",
    "read_transactions",
    "stable_offsets",
    "stored_offsets",
    "terminate",
    "verifiable_key",
    "verifiable_pairs",
    "wait_for_records",
    "wait_until",
    "worker_properties",
]

_WORKER_CMD = "import sys; from connect_runtime.cli import distributed_main; sys.exit(distributed_main(sys.argv[1:]))"

FAST_FAILOVER: dict[str, str] = {
    "session.timeout.ms": "4000",
    "heartbeat.interval.ms": "1000",
    "scheduled.rebalance.max.delay.ms": "0",
    "task.shutdown.graceful.timeout.ms": "5000",
}
"""Worker settings that detect a dead worker in 3 to 4 s (the defaults take 7 to 10 s) and forget a departed
worker at once: for tests that kill workers. :class:`WorkerGroup` ``defaults`` of the ``connect_cluster``
fixture."""

THREE_BROKERS: dict[str, str] = {
    "config.storage.replication.factor": "3",
    "offset.storage.replication.factor": "3",
    "status.storage.replication.factor": "3",
}
"""Worker settings for a cluster of three brokers (the ``kafka_cluster`` fixture): the internal topics
replicated three times, as in production, where :func:`worker_properties` makes them for one broker."""


def plugin_path(*dirs: str | Path) -> dict[str, str]:
    """``extra`` worker settings for a :class:`WorkerProcess` that discovers the plugins of Python plugin
    directories ``dirs`` (``plugin.path``), e.g.
    ``WorkerProcess(..., extra=plugin_path(Path(__file__).parent / "plugins"))``."""
    return {"plugin.path": ",".join(str(d) for d in dirs)}


def worker_properties(bootstrap: str, group_id: str, listeners: str, eos: str = "enabled") -> dict[str, str]:
    """The settings a test worker runs with: internal topics ``<group_id>-configs``, ``-offsets`` and
    ``-status`` with replication factor 1, JsonConverter without schemas, one-second offset flushes and
    ``exactly.once.source.support`` ``eos``. The same for a Java ``connect-distributed`` worker, so that
    the two can be compared or run side by side."""
    return {
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
        "listeners": listeners,
        "offset.flush.interval.ms": "1000",
    }


def terminate(proc: subprocess.Popen[bytes], timeout_s: float = 60.0) -> int:
    """SIGTERM ``proc`` if it runs and wait for it: its exit code. A process still there after
    ``timeout_s`` is SIGKILLed and :class:`subprocess.TimeoutExpired` raised, so that a child that hangs
    on the way out fails the test instead of outliving it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
        raise


def _join_cgroup(cgroup: Path | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` moving the child into ``cgroup`` before it runs anything (sockets keep the cgroup
    they were created in, so joining later would leave early connections outside it)."""
    if cgroup is None:
        return None
    procs = str(cgroup / "cgroup.procs")

    def join() -> None:
        with open(procs, "w") as f:  # "0": the writing process itself
            f.write("0")

    return join


class WorkerProcess:
    """A ``connect-distributed`` child process with its own properties file and log.

    ``bootstrap`` is the Kafka cluster; ``group_id`` the worker's ``group.id``, and its internal
    topics are ``<group_id>-configs``, ``-offsets`` and ``-status``; ``eos`` is
    ``exactly.once.source.support``; ``extra`` settings override the defaults in :attr:`props`
    (those of :func:`worker_properties`); ``env`` is
    merged over this process's environment for the child. Files go to ``workdir``
    (``worker-<port>.properties`` and ``worker-<port>.log``).

    It listens on ``<scheme>://127.0.0.1:<port>`` unless ``extra`` sets ``listeners``; :attr:`url` is
    its first listener. For an https worker, put the keystore settings in ``extra``
    (``listeners.https.ssl.keystore.*``) and pass ``verify`` (an :class:`ssl.SSLContext` trusting the
    test CA) for the readiness check and for :class:`ConnectClient` (``verify=worker.verify``).

    ``cgroup`` (a cgroup v2 directory) starts the worker inside that cgroup, so that it, its task
    processes and every socket they open belong to it from the first instruction: what
    :mod:`~connect_runtime.testing.network_faults` matches its rules on.
    """

    def __init__(self, bootstrap: str, workdir: Path, group_id: str, *, port: int | None = None,
                 eos: str = "enabled", extra: Mapping[str, str] | None = None,
                 env: Mapping[str, str] | None = None, scheme: str = "http",
                 verify: ssl.SSLContext | bool = True, cgroup: Path | None = None) -> None:
        self.port = port or free_port()
        #: The cgroup v2 directory the worker is started in (None: this process's own).
        self.cgroup = cgroup
        #: How clients of this worker verify its https listeners.
        self.verify = verify
        #: Variables merged over this process's environment for the child (plugins are found through
        #: ``plugin.path``: see :func:`plugin_path`).
        self.env: dict[str, str] = dict(env or {})
        #: Where the properties file and the log go.
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        #: The worker's settings (written to :attr:`config_path` by :meth:`start`; change them between
        #: a :meth:`kill` and the next :meth:`start` to restart the worker with other settings).
        self.props: dict[str, str] = worker_properties(bootstrap, group_id, f"{scheme}://127.0.0.1:{self.port}",
                                                       eos)
        self.props.update(extra or {})
        first_scheme, host, first_port = parse_listener(self.props["listeners"].split(",")[0])
        #: The first listener's port.
        self.port = first_port
        #: The first listener's URL (``127.0.0.1`` when it binds all interfaces).
        self.url = f"{first_scheme}://{host or '127.0.0.1'}:{first_port}"
        #: The worker's properties file.
        self.config_path = workdir / f"worker-{self.port}.properties"
        #: The worker's stdout and stderr (appended to across restarts).
        self.log_path = workdir / f"worker-{self.port}.log"
        #: The child process, once started.
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        """Write :attr:`props` to :attr:`config_path` and start the worker (without waiting for it);
        its stdout and stderr go to :attr:`log_path`.

        The worker leads a process group of its own, so that :meth:`kill_all` can reach every
        process it started.
        """
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in self.props.items()))
        log = self.log_path.open("ab")
        env = {**os.environ, **self.env}
        env.setdefault("PYTHONUNBUFFERED", "1")
        self.proc = subprocess.Popen([sys.executable, "-c", _WORKER_CMD, str(self.config_path)],
                                     stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                     preexec_fn=_join_cgroup(self.cgroup))
        log.close()
        return self

    @property
    def alive(self) -> bool:
        """Started and not exited."""
        return self.proc is not None and self.proc.poll() is None

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
        """Wait until ``GET /health`` answers 200; fail at once, with the log's tail, if the worker exits."""
        def ready() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"worker exited with {self.proc.returncode}; log: {self.log_tail()}")
            return httpx.get(f"{self.url}/health", timeout=2, verify=self.verify).status_code == 200

        wait_until(ready, timeout_s, message=f"worker {self.url} to be ready")

    def wait_exit(self, timeout_s: float = 60.0) -> int:
        """Wait until the started worker exits by itself (say, one whose settings must refuse start-up):
        its exit code. One still running after ``timeout_s`` fails the test, with the tail of its log."""
        if self.proc is None:
            raise RuntimeError(f"worker {self.url} was never started")
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"worker {self.url} still runs after {timeout_s}s; log:\n{self.log_tail()}") from None

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the worker (not to its children) if it runs, e.g. ``SIGSTOP`` to freeze it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL: no final commit, no clean leave."""
        self.signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(30)

    def __enter__(self) -> WorkerProcess:
        """``with WorkerProcess(...).start_ready() as worker:``: the worker is killed at the end."""
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.kill()

    def stop(self, timeout_s: float = 60.0) -> int | None:
        """SIGTERM and wait: the graceful path. Returns the exit code."""
        return None if self.proc is None else terminate(self.proc, timeout_s)

    def kill_all(self) -> None:
        """SIGKILL the worker and whatever it started and left behind (its process group): the
        clean-up of a test, after which nothing of this worker runs."""
        if self.proc is None:
            return
        self.kill()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def client(self, timeout_s: float = 30.0) -> ConnectClient:
        """A new :class:`ConnectClient` of this worker (close it when done)."""
        return ConnectClient(self.url, timeout_s, verify=self.verify)

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the worker's log (``""`` when there is none yet)."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""



def kill_mid_stream(worker: WorkerProcess, client: ConnectClient, connector: str, tasks: int,
                    written: Callable[[], int], *, kills: int, every: int, timeout_s: float = 90.0) -> None:
    """SIGKILL ``worker`` ``kills`` times, each once ``written()`` (records in the connector's topic) has
    grown by ``every`` since the restart before, so that each kill lands mid-stream; restart it and wait
    until ``connector`` runs its ``tasks`` again."""
    for _ in range(kills):
        target = written() + every
        wait_until(lambda: written() > target, timeout_s, message="records flowing")  # noqa: B023 (called here)
        worker.kill()
        worker.start_ready()
        client.wait_running(connector, tasks)


class WorkerGroup:
    """Workers of one Connect group (one ``group.id``, the same internal topics) that are all killed,
    with whatever they started, when the group is closed: the clean-up of the ``worker_factory`` and
    ``connect_cluster`` fixtures, usable directly in fixtures of other scopes::

        with WorkerGroup(kafka_bootstrap, tmp_path) as group:
            workers = group.start(3)             # three ready workers
            client = group.client(workers[0])    # closed with the group

    ``defaults`` are worker settings every worker of the group gets (under each call's ``extra``);
    ``group_id`` defaults to a fresh ``connect-<random>``.
    """

    def __init__(self, bootstrap: str, workdir: Path, group_id: str | None = None, *,
                 defaults: Mapping[str, str] | None = None) -> None:
        self.bootstrap = bootstrap
        self.workdir = workdir
        #: The workers' ``group.id``.
        self.group_id = group_id or f"connect-{uuid.uuid4().hex[:8]}"
        self.defaults: dict[str, str] = dict(defaults or {})
        #: Every worker started, in order (also those that exited).
        self.workers: list[WorkerProcess] = []
        self._clients: list[ConnectClient] = []

    def __call__(self, eos: str = "enabled", extra: Mapping[str, str] | None = None,
                 env: Mapping[str, str] | None = None, port: int | None = None, *,
                 ready: bool = False, timeout_s: float = 60.0, cgroup: Path | None = None) -> WorkerProcess:
        """Start one more worker of the group (inside ``cgroup`` when given: see :class:`WorkerProcess`);
        wait until it serves REST when ``ready``.

        Not waiting is for tests of a worker that must refuse to start; otherwise call
        ``wait_ready()`` or pass ``ready=True``.
        """
        worker = WorkerProcess(self.bootstrap, self.workdir, self.group_id, port=port, eos=eos,
                               extra={**self.defaults, **(extra or {})}, env=env, cgroup=cgroup)
        self.workers.append(worker)
        worker.start()
        if ready:
            worker.wait_ready(timeout_s)
        return worker

    def start(self, n: int, eos: str = "enabled", extra: Mapping[str, str] | None = None,
              env: Mapping[str, str] | None = None, timeout_s: float = 60.0) -> list[WorkerProcess]:
        """Start ``n`` more workers at once and wait until all serve REST; the new workers."""
        started = [self(eos, extra, env) for _ in range(n)]
        for worker in started:
            worker.wait_ready(timeout_s)
        return started

    def client(self, worker: WorkerProcess | None = None, timeout_s: float = 30.0) -> ConnectClient:
        """A :class:`ConnectClient` of ``worker`` (the first one by default), closed with the group."""
        target = worker or self.workers[0]
        client = target.client(timeout_s)
        self._clients.append(client)
        return client

    @property
    def alive(self) -> list[WorkerProcess]:
        """The workers still running."""
        return [w for w in self.workers if w.alive]

    def dump_threads(self, timeout_s: float = 2.0) -> None:
        """Have every running worker write a dump of its threads into its log (SIGUSR1), for a
        post-mortem; waits (up to ``timeout_s``) until the dumps are in the logs."""
        alive = self.alive
        sizes = {}
        for worker in alive:
            sizes[worker.port] = worker.log_path.stat().st_size if worker.log_path.exists() else 0
            worker.signal(signal.SIGCONT)  # a test may have left it stopped
            worker.signal(signal.SIGUSR1)

        def written() -> bool:
            return all(not w.alive or (w.log_path.exists() and w.log_path.stat().st_size > sizes[w.port])
                       for w in alive)

        with contextlib.suppress(AssertionError):  # a worker too wedged to answer: its log as it is
            wait_until(written, timeout_s, interval_s=0.05, message="thread dumps")

    def log_reports(self, lines: int = 80) -> list[tuple[str, str]]:
        """``(title, text)`` per worker: its log file's path and last ``lines`` lines."""
        return [(f"worker {w.url} (pid {w.proc.pid if w.proc else '-'}, "
                 f"{'running' if w.alive else 'exited'}) log", f"{w.log_path}\n{w.log_tail(lines)}")
                for w in self.workers]

    def failure_reports(self, lines: int = 80) -> list[tuple[str, str]]:
        """What a failed test reports: :meth:`log_reports` as the logs were when it failed, after which
        each running worker appends a dump of its threads to its log file (:meth:`dump_threads`)."""
        reports = self.log_reports(lines)
        if self.alive:
            self.dump_threads()
            reports = [(title, f"{text}\n(thread dumps of the running workers follow in their log files)")
                       for title, text in reports]
        return reports

    def close(self) -> None:
        """Close the clients and kill every worker and what it started (SIGKILL: nothing to wait for)."""
        for client in self._clients:
            client.close()
        self._clients.clear()
        for worker in self.workers:
            worker.kill_all()

    def __enter__(self) -> WorkerGroup:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


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



def stored_offsets(bootstrap: str, offsets_topic: str, connector: str) -> dict[int, int]:
    """Last committed ``seqno`` per VerifiableSource task id (its source partition ``{"id": task}``);
    for any other connector use :func:`read_source_offsets`."""
    return {int(e["partition"]["id"]): int(e["offset"]["seqno"])
            for e in read_source_offsets(bootstrap, offsets_topic, connector)}
