#!/usr/bin/env python3
"""A randomized, replayable fault run against exactly-once source connectors on three brokers.

Three workers run three exactly-once connectors on a three-broker cluster (replication factor 3,
``min.insync.replicas=2``):

- ``verifiable``: VerifiableSource, ``transaction.boundary=interval`` (one transaction a second per task),
  ``tasks.max=3``;
- ``boundary``: a sequence source that defines its own transactions (``transaction.boundary=connector``,
  the test plugin ``boundary_source``), one transaction a poll;
- ``file``: FileStreamSource on a file this script keeps appending numbered lines to.

While they run, faults drawn from ``random.Random(seed)`` hit the workers, the brokers and the
connectors, one at a time: each is injected, held, healed, and the run waits until every task is
RUNNING and committing again (its recovery) before the next. Then production stops and every
sequence is read back under ``read_committed``: no duplicate, no gap, and the stored source offsets
equal to the last record delivered. The same seed draws the same schedule; targets that depend on
the live cluster ("the leader", "the leader of the data partition", "the coordinator of task 2") are
drawn as roles and resolved when the fault is injected.

Fault kinds live in :data:`KINDS` (one :class:`FaultKind` each: how long it is held, what it costs,
what target it draws, how it is injected and healed), so a new kind is one more entry. The network
kinds (a partition of a worker or of the leader from the brokers) use the network faults toolkit
(:mod:`connect_runtime.testing.network_faults`: root, ``iptables``, cgroup v2); when a run draws them,
every worker is started inside a cage of its own from the beginning, since a socket stays in the
cgroup it was opened in.

Prints ONE JSON report on stdout (and to ``--report FILE``); logs go to stderr. Exit status 1 when a
check fails (a duplicate, a gap, an offset that is not the last record, a FAILED task, a fault the
cluster did not recover from).

    python bench/nemesis.py --duration 120 --seed 7
    python bench/nemesis.py --duration 1800 --seed 42 --report nemesis.json
    python bench/nemesis.py --seed 7 --schedule-only          # print the schedule the seed draws
    python bench/nemesis.py --cluster-dir .local-kafka3 ...    # a local three-node cluster (started if needed)
    python bench/nemesis.py --bootstrap-cluster H:P,H:P,H:P    # an external one: no broker faults
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import itertools
import json
import logging
import os
import random
import shutil
import signal
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker children's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx
from _common import REPO, configure_logging, run_workdir
from confluent_kafka import Consumer, TopicPartition

from connect_runtime.testing.cluster import (
    FAST_FAILOVER,
    THREE_BROKERS,
    ConnectClient,
    ConnectRestError,
    WorkerGroup,
    WorkerProcess,
    check_sequences,
    current_leader,
    plugin_path,
    read_committed,
    read_source_offset,
    stored_offsets,
    verifiable_key,
    wait_until,
)
from connect_runtime.testing.launcher import free_port
from connect_runtime.testing.local_kafka import KAFKA_VERSION
from connect_runtime.testing.local_kafka_cluster import KafkaCluster, LocalKafkaCluster
from connect_runtime.testing.network_faults import Cage, NetworkFaults, cgroup2_mount, missing_requirements
from connect_runtime.testing.topics import client_settings, new_topic

log = logging.getLogger("bench.nemesis")

WORKERS = 3
#: The worker's session timeout (FAST_FAILOVER): a zombie is held past it.
SESSION_TIMEOUT_S = int(FAST_FAILOVER["session.timeout.ms"]) / 1000
VERIFIABLE, BOUNDARY, FILE = "verifiable", "boundary", "file"
CONNECTORS = (VERIFIABLE, BOUNDARY, FILE)
VERIFIABLE_TASKS = 3
#: How a network partition treats the caged worker's connections (the toolkit's methods).
PARTITION_MODES = ("cut", "blackhole")
#: tasks.max values a reconfiguration draws (the base, 3, is what it returns to).
RECONFIGURED_TASKS = (1, 2, 4, 5)
#: When the run starts drawing faults, after the connectors run.
FIRST_FAULT_S = (3.0, 10.0)
#: Quiet time between a recovery and the next fault's planned start.
GAP_S = (2.0, 12.0)


# --------------------------------------------------------------------------------------------------
# the schedule: drawn up front from the seed, pure


@dataclass(frozen=True)
class Fault:
    """One scheduled fault: its ``kind``, when it is planned (``at_s`` after the run's start), how long
    it is held before healing, and its ``target`` as drawn (a worker slot, a role, a node, a connector)."""

    index: int
    kind: str
    at_s: float
    hold_s: float
    target: dict[str, Any]


@dataclass(frozen=True)
class FaultKind:
    """A kind of fault: ``hold_s`` the range its hold time is drawn from; ``budget_s`` what injection and
    recovery take beyond the hold (the schedule only plans faults that fit the run); ``draw`` draws its
    target; ``inject(run, target)`` injects it and returns the heal; ``needs`` what the run must have
    (``brokers``: a cluster it may kill nodes of; ``network``: the network faults toolkit)."""

    name: str
    hold_s: tuple[float, float]
    budget_s: float
    draw: Callable[[random.Random], dict[str, Any]]
    inject: Callable[[Run, dict[str, Any]], Callable[[], None]]
    needs: str = ""
    doc: str = ""


def draw_schedule(seed: int, duration_s: float, kinds: list[str]) -> list[Fault]:
    """The faults ``seed`` draws over ``duration_s`` from ``kinds``: each planned after the previous one's
    hold and budget plus a gap, and only while its own hold and budget end within the run."""
    rng = random.Random(seed)
    table = [KINDS[k] for k in kinds]
    faults: list[Fault] = []
    at = rng.uniform(*FIRST_FAULT_S)
    while True:
        fitting = [k for k in table if at + k.hold_s[0] + k.budget_s <= duration_s]
        if not fitting:
            return faults
        kind = rng.choice(fitting)
        hold = round(rng.uniform(kind.hold_s[0], min(kind.hold_s[1], duration_s - at - kind.budget_s)), 2)
        faults.append(Fault(len(faults), kind.name, round(at, 2), hold, kind.draw(rng)))
        at += hold + kind.budget_s + rng.uniform(*GAP_S)


def _worker_slot(rng: random.Random) -> dict[str, Any]:
    return {"worker": rng.randrange(WORKERS)}


def _leader(rng: random.Random) -> dict[str, Any]:
    return {"role": "leader"}


def _zombie(scope: str) -> Callable[[random.Random], dict[str, Any]]:
    return lambda rng: {"worker": rng.randrange(WORKERS), "scope": scope}


def _broker_target(rng: random.Random) -> dict[str, Any]:
    role = rng.choice(("node", "data_leader", "coordinator"))
    if role == "node":
        return {"role": role, "node": rng.randrange(3) + 1}
    connector = rng.choice(CONNECTORS)
    # The task is drawn over the base tasks and taken modulo the connector's tasks when resolved.
    return {"role": role, "connector": connector, "task": rng.randrange(VERIFIABLE_TASKS)}


def _partition(role: str) -> Callable[[random.Random], dict[str, Any]]:
    """A partition's target: a worker slot or the leader, cut (connections reset, new ones refused) or
    black-holed (accepted, never answered), from the brokers alone or from its peers' REST too."""
    def draw(rng: random.Random) -> dict[str, Any]:
        target = _leader(rng) if role == "leader" else _worker_slot(rng)
        return {**target, "mode": rng.choice(PARTITION_MODES), "peers": rng.random() < 0.5}
    return draw


def _connector_target(rng: random.Random) -> dict[str, Any]:
    return {"connector": rng.choice(CONNECTORS)}


def _reconfigure_target(rng: random.Random) -> dict[str, Any]:
    return {"connector": VERIFIABLE, "tasks_max": rng.choice(RECONFIGURED_TASKS)}


def _nothing(rng: random.Random) -> dict[str, Any]:
    return {}


# --------------------------------------------------------------------------------------------------
# the run: the cluster, the connectors, progress


class OffsetsTail(threading.Thread):
    """Tails the workers' offsets topic (``read_committed``) from where it ends at start: when each
    source partition of each connector last had an offset committed, so recovery can wait for "every
    task committing again" without re-reading the topic."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(name="offsets-tail", daemon=True)
        self._consumer = Consumer(client_settings(bootstrap, **{
            "group.id": f"nemesis-tail-{uuid.uuid4().hex[:8]}", "isolation.level": "read_committed",
            "enable.auto.commit": False, "auto.offset.reset": "latest"}))
        self._topic = topic
        self._done = threading.Event()
        self._lock = threading.Lock()
        # When each (connector, source partition) had an offset committed, ascending.
        self._commits: dict[tuple[str, str], list[float]] = {}

    def run(self) -> None:
        metadata = self._consumer.list_topics(self._topic, timeout=30)
        partitions = list(metadata.topics[self._topic].partitions)
        self._consumer.assign([TopicPartition(self._topic, p) for p in partitions])
        while not self._done.is_set():
            for m in self._consumer.consume(1000, 0.2):
                if m.error() is not None or m.key() is None:
                    continue
                try:
                    name, partition = json.loads(m.key())
                except (ValueError, TypeError):
                    continue
                if isinstance(partition, dict):
                    self.note(str(name), partition, time.monotonic())
        self._consumer.close()

    def note(self, connector: str, partition: dict[str, Any], when: float) -> None:
        """An offset of ``connector``'s source ``partition`` was committed at ``when`` (monotonic)."""
        with self._lock:
            self._commits.setdefault((connector, json.dumps(partition, sort_keys=True)), []).append(when)

    def committed_since(self, connector: str, partition: dict[str, Any], since: float) -> bool:
        """Whether ``connector`` committed an offset of source ``partition`` after ``since`` (monotonic)."""
        return self.first_commit_after(connector, partition, since) is not None

    def first_commit_after(self, connector: str, partition: dict[str, Any], since: float) -> float | None:
        """When ``connector`` first committed an offset of source ``partition`` after ``since``, if it did."""
        with self._lock:
            times = self._commits.get((connector, json.dumps(partition, sort_keys=True)), [])
            i = bisect.bisect_right(times, since)
            return times[i] if i < len(times) else None

    def close(self) -> None:
        self._done.set()
        if self.ident is None:
            self._consumer.close()
        else:
            self.join(30)


class FileWriter(threading.Thread):
    """Appends ``line-<n>`` lines to the file source's input at ``rate`` lines/s until :meth:`finish`."""

    def __init__(self, path: Path, rate: float) -> None:
        super().__init__(name="file-writer", daemon=True)
        self.path = path
        self.rate = rate
        self.written = 0
        self._done = threading.Event()

    def run(self) -> None:
        started = time.monotonic()
        with self.path.open("a", encoding="utf-8") as f:
            while not self._done.wait(0.05):
                due = int((time.monotonic() - started) * self.rate)
                if due > self.written:
                    f.write("".join(f"line-{i}\n" for i in range(self.written, due)))
                    f.flush()
                    self.written = due

    def finish(self) -> int:
        """Stop writing; the number of lines written (all of them whole)."""
        self._done.set()
        if self.ident is not None:
            self.join(30)
        return self.written


class Run:
    """What a fault acts on and what recovery looks at: the brokers, the workers, the connectors."""

    def __init__(self, kafka: KafkaCluster, group: WorkerGroup, workdir: Path, args: argparse.Namespace,
                 faults: NetworkFaults | None = None) -> None:
        self.kafka = kafka
        self.bootstrap = kafka.bootstrap
        self.group = group
        self.workdir = workdir
        self.args = args
        self.workers: list[WorkerProcess] = []
        self.configs: dict[str, dict[str, str]] = {}
        self.topics: dict[str, str] = {}
        self.input_file = workdir / "file-source-input.txt"
        self.writer = FileWriter(self.input_file, args.file_rate)
        self.tail: OffsetsTail | None = None
        #: Tasks seen FAILED, with their traces and the fault during whose recovery they were seen.
        self.failed_seen: list[dict[str, Any]] = []
        self._failed_keys: set[tuple[str, int, str]] = set()
        self.current_fault: int | None = None
        #: The network faults toolkit, when the run draws network kinds; :attr:`cages` by worker port.
        self.faults = faults
        self.cages: dict[int, Cage] = {}

    # -- set-up ------------------------------------------------------------------------------------
    def start(self) -> None:
        self.workers = self.start_workers()
        self.topics = {VERIFIABLE: new_topic(self.bootstrap, partitions=3),
                       BOUNDARY: new_topic(self.bootstrap), FILE: new_topic(self.bootstrap)}
        self.input_file.write_text("")  # a reused --workdir starts from an empty file too
        eos = {"exactly.once.support": "required"}
        self.configs = {
            VERIFIABLE: {"connector.class": "VerifiableSource", "topic": self.topics[VERIFIABLE],
                         "tasks.max": str(VERIFIABLE_TASKS), "throughput": str(self.args.verifiable_rate),
                         "transaction.boundary": "interval", "transaction.boundary.interval.ms": "1000", **eos},
            BOUNDARY: {"connector.class": "boundary_source.BoundarySourceConnector", "topic": self.topics[BOUNDARY],
                       "tasks.max": "1", "transaction.boundary": "connector",
                       "records.per.transaction": str(self.args.boundary_batch),
                       "poll.interval.ms": str(self.args.boundary_poll_ms), **eos},
            FILE: {"connector.class": "FileStreamSource", "file": str(self.input_file), "topic": self.topics[FILE],
                   "tasks.max": "1", **eos},
        }
        self.tail = OffsetsTail(self.bootstrap, self.offsets_topic)
        self.tail.start()
        self.writer.start()
        for name, config in self.configs.items():
            self.rest(lambda c, n=name, cfg=config: c.create_connector(n, cfg), f"create {name}")

    def start_workers(self) -> list[WorkerProcess]:
        """The three workers, each started inside a cage of its own when the run has the network faults
        toolkit (its peers' REST ports routed through the cage too, so a partition may include them)."""
        if self.faults is None:
            return self.group.start(WORKERS, timeout_s=120)
        ports = [free_port() for _ in range(WORKERS)]
        for port in ports:
            self.cages[port] = self.faults.cage(self.bootstrap, peers=[p for p in ports if p != port])
        workers = [self.group(port=port, cgroup=self.cages[port].cgroup) for port in ports]
        for worker in workers:
            worker.wait_ready(120)
        return workers

    def heal_network(self) -> None:
        """Every cage's traffic flowing again (a no-op for cages not faulted)."""
        if self.faults is not None:
            for cage in self.cages.values():
                self.faults.heal(cage)

    @property
    def offsets_topic(self) -> str:
        return self.group.workers[0].props["offset.storage.topic"]

    @property
    def config_topic(self) -> str:
        return self.group.workers[0].props["config.storage.topic"]

    # -- addressing ----------------------------------------------------------------------------------
    def worker(self, slot: int) -> WorkerProcess:
        return self.workers[slot % len(self.workers)]

    def leader(self) -> WorkerProcess:
        """The worker whose URL the latest leader record names."""
        def found() -> WorkerProcess | None:
            record = current_leader(self.bootstrap, self.config_topic)
            return next((w for w in self.workers if record and w.url == record["url"] and w.alive), None)

        leader: WorkerProcess = wait_until(found, 60, interval_s=0.5, message="a leader among the workers")
        return leader

    def transactional_id(self, connector: str, task: int) -> str:
        return f"{self.group.group_id}-{connector}-{task}"

    def expected_tasks(self, connector: str) -> int:
        return int(self.configs[connector]["tasks.max"]) if connector == VERIFIABLE else 1

    def source_partitions(self, connector: str) -> list[dict[str, Any]]:
        if connector == FILE:
            return [{"filename": str(self.input_file)}]
        return [{"id": task} for task in range(self.expected_tasks(connector))]

    def rest(self, call: Callable[[ConnectClient], Any], what: str, timeout_s: float = 60.0) -> Any:
        """``call`` on the first worker that answers without error, retried until ``timeout_s``: a fault
        or a rebalance makes any one worker refuse for a while (409, forwarding to a dead leader)."""
        last: list[str] = []

        def attempt() -> tuple[Any] | None:
            for worker in self.workers:
                if not worker.alive:
                    continue
                try:
                    with worker.client(timeout_s=10) as client:
                        return (call(client),)
                except (httpx.HTTPError, ConnectRestError) as e:
                    last[:] = [f"{worker.url}: {e}"]
            return None

        try:
            result: tuple[Any] = wait_until(attempt, timeout_s, interval_s=0.5, message=what)
        except AssertionError as e:
            raise AssertionError(f"{e}; last error: {last}") from None
        return result[0]

    # -- recovery ------------------------------------------------------------------------------------
    def statuses(self) -> dict[str, dict[str, Any]]:
        return self.rest(lambda c: {n: c.status(n) for n in CONNECTORS}, "connector statuses")

    def _note_failed(self, statuses: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        failed = []
        for name, st in statuses.items():
            for t in st["tasks"]:
                if t["state"] == "FAILED":
                    entry = {"connector": name, "task": t["id"], "worker_id": t.get("worker_id"),
                             "trace": t.get("trace", ""), "fault": self.current_fault}
                    failed.append(entry)
                    key = (name, int(t["id"]), str(t.get("trace", ""))[:200])
                    if key not in self._failed_keys:
                        self._failed_keys.add(key)
                        self.failed_seen.append(entry)
                        log.error("task %s-%s FAILED: %s", name, t["id"], str(t.get("trace", ""))[:500])
        return failed

    def recovered(self, since: float) -> bool:
        """Every connector and task RUNNING (as many tasks as configured) and every source partition
        committed after ``since``. A FAILED task is recorded and restarted, so the run goes on."""
        statuses = self.statuses()
        for entry in self._note_failed(statuses):
            self.rest(lambda c, e=entry: c.restart_task(e["connector"], e["task"]), "restart a FAILED task")
        for name, st in statuses.items():
            if st["connector"]["state"] != "RUNNING" or len(st["tasks"]) != self.expected_tasks(name):
                return False
            if any(t["state"] != "RUNNING" for t in st["tasks"]):
                return False
        assert self.tail is not None
        return all(self.tail.committed_since(name, p, since)
                   for name in CONNECTORS for p in self.source_partitions(name))

    def wait_recovered(self, since: float) -> float:
        """Wait until :meth:`recovered`; when, as ``time.monotonic()``."""
        wait_until(lambda: self.recovered(since), self.args.recovery_timeout, interval_s=0.5,
                   message="every task RUNNING and committing again")
        return time.monotonic()


# --------------------------------------------------------------------------------------------------
# the fault kinds


def _signal_group(worker: WorkerProcess, sig: signal.Signals) -> None:
    """``sig`` to the worker and every process it started (they share its process group)."""
    if worker.proc is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(worker.proc.pid, sig)


def _resolve_worker(run: Run, target: dict[str, Any]) -> WorkerProcess:
    worker = run.leader() if target.get("role") == "leader" else run.worker(target["worker"])
    target["resolved"] = worker.url
    return worker


def _in_its_cage(worker: WorkerProcess) -> bool:
    """Whether ``worker`` runs inside the cgroup it was started in (always, for a worker not caged)."""
    if worker.cgroup is None:
        return True
    try:
        members = (worker.cgroup / "cgroup.procs").read_text().split()
    except FileNotFoundError:
        return False
    return worker.proc is not None and str(worker.proc.pid) in members


def _restarting(worker: WorkerProcess) -> Callable[[], None]:
    def heal() -> None:
        worker.start()
        # A restarted worker outside its cage would escape every later partition unnoticed.
        if not _in_its_cage(worker):
            raise RuntimeError(f"worker {worker.url} restarted outside its cage {worker.cgroup}")
        worker.wait_ready(120)
    return heal


def inject_sigkill(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    worker = _resolve_worker(run, target)
    worker.kill()
    return _restarting(worker)


def inject_sigterm(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    worker = _resolve_worker(run, target)
    target["exit_code"] = worker.stop(90)
    return _restarting(worker)


def inject_zombie(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    """SIGSTOP past the session timeout, SIGCONT at the heal: the worker alone (its task processes run
    on, zombies to be fenced) or its whole process group (worker and task processes frozen together)."""
    worker = _resolve_worker(run, target)
    whole = target["scope"] == "group"
    if whole:
        _signal_group(worker, signal.SIGSTOP)
    else:
        worker.signal(signal.SIGSTOP)

    def heal() -> None:
        if whole:
            _signal_group(worker, signal.SIGCONT)
        else:
            worker.signal(signal.SIGCONT)
    return heal


def network_partition(run: Run, worker: WorkerProcess, mode: str = "cut", peers: bool = False) -> Callable[[], None]:
    """Partition ``worker`` and its task processes from the brokers (``peers``: from its peers' REST ports
    too) by ``mode`` (``cut`` or ``blackhole``), its process and its own REST port left up; returns the
    heal. The worker must run inside its cage: one restarted by an earlier fault must have re-entered it,
    or the partition would not reach it."""
    if run.faults is None:
        raise RuntimeError("network faults need the workers started in cages (a run that draws network kinds)")
    cage = run.cages[worker.port]
    if worker.cgroup != cage.cgroup or not _in_its_cage(worker):
        raise RuntimeError(f"worker {worker.url} (pid {worker.proc and worker.proc.pid}) is not in its cage "
                           f"{cage.path}: {cage.pids()}")
    faults = run.faults
    try:
        getattr(faults, mode)(cage, brokers=True, peers=peers)
    except BaseException:
        faults.heal(cage)  # half a fault is still a fault: heal whatever part got in
        raise
    return lambda: faults.heal(cage)


def inject_partition(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    return network_partition(run, _resolve_worker(run, target), target["mode"], target["peers"])


def _local(run: Run) -> LocalKafkaCluster:
    if run.kafka.local is None:
        raise RuntimeError("broker faults need a cluster this run may kill nodes of")
    return run.kafka.local


def _resolve_node(run: Run, target: dict[str, Any]) -> int:
    role = target["role"]
    if role == "node":
        node = int(target["node"])
    elif role == "data_leader":
        connector = target["connector"]
        partitions = 3 if connector == VERIFIABLE else 1
        node = run.kafka.partition_leader(run.topics[connector], target["task"] % partitions)
    else:
        connector = target["connector"]
        task = target["task"] % run.expected_tasks(connector)
        node = run.kafka.transaction_coordinator(run.transactional_id(connector, task))
    if node not in run.kafka.node_ids:
        raise RuntimeError(f"{role} of {target} has no live node ({node})")
    target["resolved_node"] = node
    return node


def inject_broker_kill(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    local = _local(run)
    node = _resolve_node(run, target)
    local.kill(node)
    return lambda: local.restart(node, timeout=180)


def inject_rolling_restart(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    """Every node in turn: a clean stop, a start, back in sync, before the next (all held as one fault)."""
    local = _local(run)
    for node in local.node_ids:
        local.stop_node(node, timeout=120)
        local.restart(node, timeout=180)
    return lambda: None


def inject_reconfigure(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    name = target["connector"]
    base = dict(run.configs[name])
    changed = {**base, "tasks.max": str(target["tasks_max"])}
    run.rest(lambda c: c.put_connector_config(name, changed), f"reconfigure {name}")
    run.configs[name] = changed

    def heal() -> None:
        run.rest(lambda c: c.put_connector_config(name, base), f"reconfigure {name} back")
        run.configs[name] = base
    return heal


def inject_pause(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    name = target["connector"]
    run.rest(lambda c: c.pause_connector(name), f"pause {name}")
    return lambda: run.rest(lambda c: c.resume_connector(name), f"resume {name}")


def inject_stop(run: Run, target: dict[str, Any]) -> Callable[[], None]:
    name = target["connector"]
    run.rest(lambda c: c.stop_connector(name), f"stop {name}")
    return lambda: run.rest(lambda c: c.resume_connector(name), f"resume {name}")


_ZOMBIE_HOLD = (SESSION_TIMEOUT_S + 2, SESSION_TIMEOUT_S + 10)

KINDS: dict[str, FaultKind] = {k.name: k for k in (
    FaultKind("worker_sigkill", (1, 10), 25, _worker_slot, inject_sigkill, doc="SIGKILL a worker, restart it"),
    FaultKind("leader_sigkill", (1, 10), 25, _leader, inject_sigkill, doc="SIGKILL the leader, restart it"),
    FaultKind("worker_sigterm", (1, 8), 25, _worker_slot, inject_sigterm, doc="SIGTERM a worker, restart it"),
    FaultKind("worker_zombie", _ZOMBIE_HOLD, 30, _zombie("worker"), inject_zombie,
              doc="SIGSTOP a worker (not its task processes) past the session timeout, then SIGCONT"),
    FaultKind("worker_group_zombie", _ZOMBIE_HOLD, 30, _zombie("group"), inject_zombie,
              doc="SIGSTOP a worker and its task processes past the session timeout, then SIGCONT"),
    FaultKind("worker_partition", (SESSION_TIMEOUT_S + 2, 20), 30, _partition("worker"), inject_partition,
              needs="network", doc="cut or black-hole a worker from the brokers (and maybe its peers) past the "
                                   "session timeout, then heal"),
    FaultKind("leader_partition", (SESSION_TIMEOUT_S + 2, 20), 30, _partition("leader"), inject_partition,
              needs="network", doc="cut or black-hole the leader from the brokers (and maybe its peers) past the "
                                   "session timeout, then heal"),
    FaultKind("broker_sigkill", (2, 15), 45, _broker_target, inject_broker_kill, needs="brokers",
              doc="SIGKILL a broker (a node, the data partition's leader, or a task's transaction "
                  "coordinator), restart it"),
    FaultKind("broker_rolling_restart", (0, 0), 110, _nothing, inject_rolling_restart, needs="brokers",
              doc="stop and restart every broker in turn"),
    FaultKind("reconfigure", (3, 15), 25, _reconfigure_target, inject_reconfigure,
              doc="tasks.max of the VerifiableSource up or down, then back"),
    FaultKind("pause_resume", (1, 10), 20, _connector_target, inject_pause, doc="pause a connector, resume it"),
    FaultKind("stop_resume", (1, 10), 20, _connector_target, inject_stop, doc="stop a connector, resume it"),
)}

DEFAULT_KINDS = list(KINDS)
"""The kinds a run draws from by default: all of them (less those the cluster or the machine cannot do)."""


# --------------------------------------------------------------------------------------------------
# running the schedule


@dataclass
class Outcome:
    """What happened to one scheduled fault: its ``target`` as drawn plus what it resolved to
    (``resolved``: a worker's URL, ``resolved_node``: a broker), and ``times`` in seconds from the
    run's start (``injected_at_s``; ``healed_at_s`` when the heal started; ``heal_s`` how long the heal
    took: a worker serving REST again, a broker back with its partitions in sync; ``recovered_at_s``
    when every task was RUNNING and every source partition had committed since the heal started;
    ``recovery_s`` and ``recovery_from_injection_s``; ``committing_again_s`` when, from the injection,
    every source partition had committed again: before ``healed_at_s``, the work went on through the
    fault). ``error`` says why
    it was not injected, healed or recovered from (the run stops there)."""

    fault: Fault
    target: dict[str, Any]
    times: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    @property
    def kind(self) -> str:
        return self.fault.kind

    def report(self) -> dict[str, Any]:
        """The fault's entry in the report's ``faults``."""
        return {"index": self.fault.index, "kind": self.kind, "target": self.target,
                "planned_at_s": self.fault.at_s, "hold_s": self.fault.hold_s, **self.times, "error": self.error}


def committing_again_s(run: Run, injected: float) -> float | None:
    """Seconds from the injection until every source partition had committed again (through the fault,
    with no REST call, when that comes before the heal), or None if one has not."""
    assert run.tail is not None
    tail = run.tail
    firsts = [tail.first_commit_after(name, p, injected) for name in CONNECTORS for p in run.source_partitions(name)]
    return None if None in firsts else round(max(t for t in firsts if t is not None) - injected, 2)


def run_schedule(run: Run, schedule: list[Fault], duration_s: float, t0: float) -> list[Outcome]:
    """Inject, hold, heal and wait for recovery, fault after fault; the heal of a fault in progress runs
    whatever happens. Stops at the first fault the cluster does not recover from."""
    outcomes: list[Outcome] = []
    for fault in schedule:
        target = json.loads(json.dumps(fault.target))
        out = Outcome(fault, target)
        outcomes.append(out)
        wait_s = t0 + fault.at_s - time.monotonic()
        if wait_s > 0:
            time.sleep(wait_s)
        run.current_fault = fault.index
        log.info("fault %d: %s %s, held %.1f s", fault.index, fault.kind, fault.target, fault.hold_s)
        heal: Callable[[], None] | None = None
        injected = time.monotonic()
        try:
            out.times["injected_at_s"] = round(injected - t0, 2)
            heal = KINDS[fault.kind].inject(run, target)
            time.sleep(fault.hold_s)
        except Exception as e:
            out.error = f"inject: {type(e).__name__}: {e}"
            log.exception("fault %d could not be injected", fault.index)
        finally:
            healed = time.monotonic()
            if heal is not None:
                try:
                    heal()
                except Exception as e:
                    out.error = f"heal: {type(e).__name__}: {e}"
                    log.exception("fault %d could not be healed", fault.index)
            out.times["healed_at_s"] = round(healed - t0, 2)
            out.times["heal_s"] = round(time.monotonic() - healed, 2)
        if out.error is not None:
            break
        try:
            done = run.wait_recovered(healed)
        except AssertionError as e:
            out.error = f"no recovery: {e}"
            log.error("fault %d: %s", fault.index, out.error)
            break
        out.times.update(recovered_at_s=round(done - t0, 2), recovery_s=round(done - healed, 2),
                         recovery_from_injection_s=round(done - injected, 2))
        again = committing_again_s(run, injected)
        if again is not None:
            out.times["committing_again_s"] = again
        log.info("fault %d recovered %.1f s after the heal", fault.index, done - healed)
    run.current_fault = None
    rest = t0 + duration_s - time.monotonic()
    if rest > 0 and all(o.error is None for o in outcomes):
        time.sleep(rest)
    return outcomes


def _percentiles(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.5) - 1))]

    return {"count": len(ordered), "p50_s": round(rank(0.5), 2), "p99_s": round(rank(0.99), 2),
            "max_s": round(ordered[-1], 2), "mean_s": round(statistics.fmean(ordered), 2)}


# --------------------------------------------------------------------------------------------------
# the final check


def offset_mismatches(last: dict[int, int], stored: dict[int, int]) -> dict[int, dict[str, int | None]]:
    """Tasks whose stored seqno is not the last one delivered (``last``: per task, from the topic)."""
    return {task: {"stored": stored.get(task), "last": top} for task, top in last.items() if stored.get(task) != top}


def check_sequence_connector(run: Run, name: str) -> dict[str, Any]:
    """A sequence connector (key the task, value the seqno): per task no duplicate and no gap under
    ``read_committed``, and its stored offset the last seqno delivered."""
    report = check_sequences(read_committed(run.bootstrap, run.topics[name], 300), key=verifiable_key)
    mismatched = offset_mismatches(report.max_seqno, stored_offsets(run.bootstrap, run.offsets_topic, name))
    return {"records": sum(report.counts.values()), "tasks": sorted(report.counts),
            "duplicates": sum(len(v) for v in report.duplicates.values()),
            "gaps": sum(len(v) for v in report.gaps.values()),
            "duplicated_sample": {t: v[:10] for t, v in report.duplicates.items() if v},
            "missing_sample": {t: v[:10] for t, v in report.gaps.items() if v},
            "offsets_match": not mismatched and bool(report.counts), "offset_mismatches": mismatched}


def file_lines_report(lines: list[str], written: int) -> dict[str, Any]:
    """Lines delivered against the ``written`` lines ``line-0`` ... : duplicates, gaps (lines never
    delivered), whether they came in order, and lines that were never written."""
    numbers = [int(line.split("-", 1)[1]) for line in lines]
    seen: dict[int, int] = {}
    for n in numbers:
        seen[n] = seen.get(n, 0) + 1
    duplicates = sorted(n for n, c in seen.items() if c > 1)
    gaps = [n for n in range(written) if n not in seen]
    return {"records": len(lines), "lines_written": written, "duplicates": len(duplicates), "gaps": len(gaps),
            "duplicated_sample": duplicates[:10], "missing_sample": gaps[:10],
            "in_order": all(a < b for a, b in itertools.pairwise(numbers)),
            "extra_lines": sorted(n for n in seen if n >= written)[:10]}


def check_file_connector(run: Run, written: int) -> dict[str, Any]:
    """The file source: every line written delivered exactly once, in order, and the stored position
    the end of the file (just after the last line delivered)."""
    # Values are JsonConverter strings (schemaless): "line-<n>" with its quotes.
    lines = [json.loads(v) if v is not None else "" for _, v in read_committed(run.bootstrap, run.topics[FILE], 300)]
    stored = read_source_offset(run.bootstrap, run.offsets_topic, FILE, {"filename": str(run.input_file)})
    size = run.input_file.stat().st_size
    return {**file_lines_report(lines, written),
            "offsets_match": stored is not None and stored.get("position") == size,
            "stored_position": None if stored is None else stored.get("position"), "file_size": size}


def final_check(run: Run) -> dict[str, Any]:
    """Everything healed: wait for every task RUNNING and committing, then stop production and check."""
    out: dict[str, Any] = {}
    try:
        run.wait_recovered(time.monotonic())
        out["all_running_at_end"] = True
    except AssertionError as e:
        out["all_running_at_end"] = False
        out["not_running"] = str(e)
    statuses = run.statuses()
    out["failed_tasks_left"] = [{"connector": n, "task": t["id"], "trace": t.get("trace", "")}
                                for n, st in statuses.items() for t in st["tasks"] if t["state"] == "FAILED"]
    written = run.writer.finish()
    size = run.input_file.stat().st_size
    # The file source delivers what is left of the file; then every connector stops (a final commit).
    with contextlib.suppress(AssertionError):
        wait_until(lambda: (read_source_offset(run.bootstrap, run.offsets_topic, FILE,
                                               {"filename": str(run.input_file)}) or {}).get("position") == size,
                   120, interval_s=1, message="the file source to deliver the whole file")
    for name in CONNECTORS:
        run.rest(lambda c, n=name: c.stop_connector(n), f"stop {name}")
    for name in CONNECTORS:
        wait_until(lambda n=name: run.rest(lambda c: c.in_state(n, "STOPPED"), f"{n} status"), 120,  # type: ignore[misc]
                   interval_s=0.5, message=f"{name} STOPPED")
    out[VERIFIABLE] = check_sequence_connector(run, VERIFIABLE)
    out[BOUNDARY] = check_sequence_connector(run, BOUNDARY)
    out[FILE] = check_file_connector(run, written)
    return out


# --------------------------------------------------------------------------------------------------
# the command line


@contextlib.contextmanager
def kafka_cluster(args: argparse.Namespace, workdir: Path) -> Iterator[KafkaCluster]:
    """The three brokers: ``--bootstrap-cluster`` (external, not ours to kill), else the local cluster of
    ``--cluster-dir`` (started, and stopped after the run, unless it already ran), else a local cluster
    in the run's temporary directory."""
    if args.bootstrap_cluster:
        yield KafkaCluster(args.bootstrap_cluster)
        return
    local = LocalKafkaCluster(Path(args.cluster_dir) if args.cluster_dir else workdir / "kafka")
    running = local.bootstrap is not None and all(s.running for s in local.status().values())
    if running:
        bootstrap = local.bootstrap
        assert bootstrap is not None
    else:
        log.info("starting a local three-node Kafka %s in %s", KAFKA_VERSION, local.data_dir)
        bootstrap = local.start()
    try:
        yield KafkaCluster(bootstrap, local)
    finally:
        if not running:
            local.stop()


def _kinds(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    kinds = [k.strip() for k in args.faults.split(",") if k.strip()] if args.faults else list(DEFAULT_KINDS)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        parser.error(f"--faults: unknown {unknown or 'none given'}; known: {', '.join(KINDS)}")
    if args.bootstrap_cluster:
        if args.faults and any(KINDS[k].needs == "brokers" for k in kinds):
            parser.error("broker faults need a local cluster (--cluster-dir), not --bootstrap-cluster")
        kinds = [k for k in kinds if KINDS[k].needs != "brokers"]
    if any(KINDS[k].needs == "network" for k in kinds) and not network_partition_available(bool(args.faults)):
        kinds = [k for k in kinds if KINDS[k].needs != "network"]
    return kinds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=120.0, help="seconds of faults (default 120)")
    parser.add_argument("--seed", type=int, default=None, help="the schedule's seed (default: a random one)")
    faults = parser.add_argument_group("the faults")
    faults.add_argument("--faults", default="",
                        help=f"comma-separated kinds to draw from (default: {','.join(DEFAULT_KINDS)})")
    faults.add_argument("--recovery-timeout", type=float, default=180.0,
                        help="seconds a fault's recovery may take before the run fails")
    brokers = parser.add_argument_group("the brokers (default: a local three-node cluster in the workdir)")
    brokers.add_argument("--bootstrap-cluster", default=None,
                         help="an existing three-broker cluster (no broker faults on it)")
    brokers.add_argument("--cluster-dir", default=None,
                         help="a local three-node cluster's data dir (started if not running)")
    output = parser.add_argument_group("output")
    output.add_argument("--report", default=None, help="also write the JSON report to this file")
    output.add_argument("--workdir", default=None,
                        help="keep the workers' logs (and a local cluster's data) here (default: a temp dir, removed)")
    output.add_argument("--schedule-only", action="store_true", help="print the schedule the seed draws and exit")
    load = parser.add_argument_group("the connectors' load (defaults: up to 800 records/s in all)")
    load.add_argument("--verifiable-rate", type=int, default=150, help="records/s per VerifiableSource task")
    load.add_argument("--file-rate", type=float, default=100.0, help="lines/s appended to the file source's input")
    boundary = parser.add_argument_group("the boundary source's load: one transaction a poll")
    boundary.add_argument("--boundary-batch", type=int, default=50, help="records a poll")
    boundary.add_argument("--boundary-poll-ms", type=int, default=200,
                          help="the pause before each poll (with 50 records: up to 250 records/s)")
    args = parser.parse_args(argv)
    kinds = _kinds(args, parser)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    schedule = draw_schedule(seed, args.duration, kinds)
    report: dict[str, Any] = {"benchmark": "nemesis", "seed": seed, "duration_s": args.duration, "kinds": kinds,
                              "schedule": [asdict(f) for f in schedule]}
    if args.schedule_only:
        print(json.dumps(report))
        return 0
    configure_logging()
    # A SIGTERM (a timeout, an operator) unwinds like an error: faults healed, workers and brokers stopped.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    # librdkafka reports every broker a fault takes away: its warnings and errors are enough.
    logging.getLogger("connect_runtime.testing.kafka").setLevel(logging.WARNING)
    load_before = os.getloadavg()[0]
    outcomes: list[Outcome] = []
    with run_workdir(args.workdir, "bench-nemesis-") as tmp, kafka_cluster(args, tmp) as kafka, \
            _network_faults(any(KINDS[k].needs == "network" for k in kinds)) as faults:
        group = WorkerGroup(kafka.bootstrap, tmp / "workers", f"nemesis-{uuid.uuid4().hex[:6]}",
                            defaults={**FAST_FAILOVER, **THREE_BROKERS, **plugin_path(REPO / "tests" / "plugins")})
        run = Run(kafka, group, tmp, args, faults)
        try:
            run.start()
            setup = time.monotonic()
            run.wait_recovered(setup)
            t0 = time.monotonic()
            log.info("connectors running after %.1f s; %d faults over %.0f s", t0 - setup, len(schedule), args.duration)
            try:
                outcomes = run_schedule(run, schedule, args.duration, t0)
            finally:
                report["run_s"] = round(time.monotonic() - t0, 1)
                _heal_everything(run)
            report["final"] = final_check(run)
        except Exception as e:
            log.exception("the run failed")
            report["error"] = f"{type(e).__name__}: {e}"
        finally:
            # Nothing the run started outlives it, whatever fails on the way out.
            with contextlib.ExitStack() as cleanup:
                cleanup.callback(group.close)
                cleanup.callback(run.writer.finish)
                if run.tail is not None:
                    cleanup.callback(run.tail.close)
        if "error" in report or not _passed(report, outcomes, schedule):
            report["worker_logs"] = [str(w.log_path) for w in group.workers]
    report.update(_summary(report, outcomes, schedule, run))
    report["loadavg_1m_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    report["kafka"] = "external" if args.bootstrap_cluster else KAFKA_VERSION
    text = json.dumps(report)
    if args.report:
        Path(args.report).write_text(text + "\n")
    print(text)
    return 0 if report["ok"] else 1


def network_partition_available(required: bool) -> bool:
    """Whether this machine can inject network faults (root, ``iptables``, cgroup v2). When it cannot, a
    run that asked for network kinds (``required``) fails before anything starts; the default kinds go
    without them, with a warning."""
    mounts = Path("/proc/mounts").read_text() if Path("/proc/mounts").exists() else ""
    missing = missing_requirements(os.geteuid(), shutil.which("iptables"), cgroup2_mount(mounts))
    if not missing:
        return True
    why = "network faults need " + "; ".join(missing)
    if required:
        raise SystemExit(f"{why}: drop worker_partition and leader_partition from --faults")
    log.warning("%s: no network partitions in this run", why)
    return False


@contextlib.contextmanager
def _network_faults(wanted: bool) -> Iterator[NetworkFaults | None]:
    """The toolkit for a run that draws network kinds, closed at its end (every rule, chain and cage
    removed, whatever is left in a cage killed); None for the others."""
    if not wanted:
        yield None
        return
    with NetworkFaults() as faults:
        yield faults


def _heal_everything(run: Run) -> None:
    """Whatever a failed fault left: every worker continued and running, every broker running, every
    connector resumed with its base config."""
    with contextlib.suppress(Exception):
        run.heal_network()
    for worker in run.workers:
        _signal_group(worker, signal.SIGCONT)
        if not worker.alive:
            with contextlib.suppress(Exception):
                worker.start().wait_ready(120)
    local = run.kafka.local
    if local is not None:
        for node, state in local.status().items():
            if not state.running:
                with contextlib.suppress(Exception):
                    local.restart(node, timeout=180)
    if run.configs:
        run.configs[VERIFIABLE]["tasks.max"] = str(VERIFIABLE_TASKS)
        with contextlib.suppress(Exception):
            run.rest(lambda c: c.put_connector_config(VERIFIABLE, run.configs[VERIFIABLE]), "base config")
        for name in CONNECTORS:
            with contextlib.suppress(Exception):
                run.rest(lambda c, n=name: c.resume_connector(n), f"resume {name}")


def _passed(report: dict[str, Any], outcomes: list[Outcome], schedule: list[Fault]) -> bool:
    final = report.get("final")
    if "error" in report or not final or len(outcomes) != len(schedule):
        return False
    checks = [final[n] for n in CONNECTORS]
    return (all(o.error is None for o in outcomes) and final["all_running_at_end"]
            and not final["failed_tasks_left"]
            and all(c["duplicates"] == 0 and c["gaps"] == 0 and c["offsets_match"] for c in checks)
            and final[FILE]["in_order"] and not final[FILE]["extra_lines"])


def _summary(report: dict[str, Any], outcomes: list[Outcome], schedule: list[Fault], run: Run) -> dict[str, Any]:
    final = report.get("final") or {}
    checks = [final[n] for n in CONNECTORS if n in final]
    def times(name: str, kind: str | None = None) -> list[float]:
        return [o.times[name] for o in outcomes if name in o.times and kind in (None, o.kind)]

    return {
        "faults": [o.report() for o in outcomes],
        "faults_scheduled": len(schedule),
        "faults_injected": len(times("injected_at_s")),
        "faults_recovered": len(times("recovery_s")),
        "recovery_s": _percentiles(times("recovery_s")),
        "recovery_from_injection_s": _percentiles(times("recovery_from_injection_s")),
        "recovery_by_kind": {kind: _percentiles(times("recovery_s", kind))
                             for kind in sorted({o.kind for o in outcomes})},
        "records": sum(c["records"] for c in checks),
        "duplicates": sum(c["duplicates"] for c in checks),
        "gaps": sum(c["gaps"] for c in checks),
        "offsets_match": bool(checks) and all(c["offsets_match"] for c in checks),
        "failed_tasks_seen": run.failed_seen,
        "failed_tasks_left": len(final.get("failed_tasks_left", [])),
        "ok": _passed(report, outcomes, schedule) and not run.failed_seen,
    }


if __name__ == "__main__":
    sys.exit(main())
