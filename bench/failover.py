#!/usr/bin/env python3
"""Failover times of a 3-worker exactly-once cluster (VerifiableSource, 6 tasks with
``exactly.once.support=required``, 2 per worker), under each of two worker settings (``--settings``):

- *default*: no override at all (``session.timeout.ms`` 10 s, ``heartbeat.interval.ms`` 3 s,
  ``scheduled.rebalance.max.delay.ms`` 300 s): what an operator gets; the main figures.
- *tuned*: ``session.timeout.ms=4000``, ``heartbeat.interval.ms=1000``: a death is detected sooner
  (the delay only says how long a departed worker's work is remembered for its return: it does not
  change these figures).

(a) *worker SIGKILL*: SIGKILL a worker that is not the leader and runs tasks; seconds until every one
    of its tasks is RUNNING on another worker (polled through a survivor's REST API every 50 ms).
(b) *leader SIGKILL*: SIGKILL the leader; seconds until a survivor accepts a connector create (201),
    i.e. a new leader serves writes.
(c) *worker SIGTERM*: SIGTERM a worker that is not the leader and runs tasks (a planned restart);
    seconds until every one of its tasks is RUNNING on the survivors (polled every 20 ms), and any
    FAILED task state seen meanwhile. *leader SIGTERM*: the same with the leader.
(d) *broker restart*: one exactly-once worker (VerifiableSource, 2 tasks at 250 records/s, tuned
    settings) on a broker of its own, which is stopped for ``--broker-outage`` seconds and started
    again on the same data dir and port; seconds from the broker being back until both tasks are
    RUNNING and new records are committed, with no REST call but reads. Always on a broker this script
    starts (an external one cannot be restarted); ``--broker-outage 0`` skips it.
(f) *worker partition*: black-hole a worker that is not the leader and runs tasks from the brokers
    (:mod:`connect_runtime.testing.network_faults`: its process and REST port stay up, it hears nothing);
    seconds until every one of its tasks is RUNNING on another worker. Needs root, ``iptables`` and
    cgroup v2; without them the case reports why instead of figures.

(e) *broker kill*: three exactly-once workers (under each of ``--broker-kill-settings``, internal topics at
    replication factor 3)
    on a three-broker cluster this script starts, a VerifiableSource of 3 tasks at 50 records/s into a
    topic replicated three times; SIGKILL the node leading the data partition (``data_leader``), or the
    transaction coordinator of a task whose data partition another node leads (``coordinator``);
    seconds from the kill until every task has committed a record it produced after the kill (a
    read_committed consumer follows the topic; record timestamps tell records produced after the kill),
    with no REST call but reads, and how many workers stopped their tasks meanwhile for lost contact.
    The node is restarted (back in sync) before the next round. Target: 30 s. ``--broker-kill-rounds 0``
    skips it.

Targets: (a) and (b) within the session timeout + 2 s, (c) within 1 s, (e) within 30 s, (f) within the
session timeout + 5 s; ``within_target`` says per settings and case whether every round met its target.

Prints ONE JSON object on stdout; logs go to stderr. Broker: ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka in a temp dir.

    python bench/failover.py [--rounds 2] [--settings default,tuned] [--cases CASE,...] [--bootstrap HOST:PORT]
                             [--broker-outage 30] [--broker-kill-rounds 2] [--broker-kill-settings default,tuned]

``--settings ''`` skips (a) to (c) and (f).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker children's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx
from _common import add_bootstrap_argument, broker, configure_logging
from confluent_kafka import Consumer, TopicPartition

from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.testing.cluster import (
    THREE_BROKERS,
    ConnectClient,
    WorkerProcess,
    check_sequences,
    current_leader,
    end_offsets,
    read_committed,
    verifiable_key,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.local_kafka import LocalKafka, free_port, session_kafka_version
from connect_runtime.testing.local_kafka_cluster import LocalKafkaCluster, partition_leader, transaction_coordinator
from connect_runtime.testing.network_faults import Cage, NetworkFaults, NetworkFaultsUnavailable
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.testing.topics import client_settings

log = logging.getLogger("bench.failover")
TUNED = {"session.timeout.ms": "4000", "heartbeat.interval.ms": "1000"}
#: Worker settings overridden per run: ``default`` overrides nothing.
PROFILES: dict[str, dict[str, str]] = {"default": {}, "tuned": TUNED}
FAILOVER_KEYS = {"session.timeout.ms": "session_timeout_ms", "heartbeat.interval.ms": "heartbeat_interval_ms",
                 "scheduled.rebalance.max.delay.ms": "scheduled_rebalance_max_delay_ms"}
TASKS = 6
SIGTERM_TARGET_S = 1.0
BROKER_KILL_TASKS = 3
BROKER_KILL_TARGET_S = 30.0


def _effective(overrides: dict[str, str]) -> dict[str, int]:
    """The failover settings a worker runs with: ``overrides`` over the worker defaults."""
    return {key: int(overrides.get(key, WorkerConfig.model_fields[field].default))
            for key, field in FAILOVER_KEYS.items()}


def _leader_url(bootstrap: str, config_topic: str) -> str | None:
    record = current_leader(bootstrap, config_topic)
    return None if record is None else str(record["url"])


def _cluster(bootstrap: str, workdir: Path, overrides: dict[str, str],
             prepare: Callable[[WorkerProcess], object] | None = None) -> list[WorkerProcess]:
    """Three ready workers of a new group; ``prepare`` is called with each before it starts."""
    group = f"bench-failover-{uuid.uuid4().hex[:6]}"
    workers = [WorkerProcess(bootstrap, workdir, group, extra=overrides) for _ in range(3)]
    for w in workers:
        if prepare is not None:
            prepare(w)
        w.start()
    for w in workers:
        w.wait_ready(120)
    return workers


def _worker_id(worker: WorkerProcess) -> str:
    return f"127.0.0.1:{worker.port}"


def _running_eos_tasks(bootstrap: str, workers: list[WorkerProcess]) -> tuple[ConnectClient, str]:
    """Create the exactly-once connector and wait until its tasks run 2 per worker (a client, the leader url)."""
    topic = new_topic(bootstrap, partitions=3)
    client = ConnectClient(workers[0].url)
    client.create_connector("bench", {"connector.class": "VerifiableSource", "topic": topic,
                                      "tasks.max": str(TASKS), "throughput": "50",
                                      "exactly.once.support": "required"})

    def spread() -> bool:
        st = client.status("bench")
        per = {_worker_id(w): 0 for w in workers}
        for t in st["tasks"]:
            if t["state"] == "RUNNING" and t["worker_id"] in per:
                per[t["worker_id"]] += 1
        return len(st["tasks"]) == TASKS and set(per.values()) == {TASKS // len(workers)}

    wait_until(spread, 120, message=f"{TASKS} tasks RUNNING, spread over the workers")
    leader = wait_until(lambda: _leader_url(bootstrap, workers[0].props["config.storage.topic"]), 60,
                        message="a leader")
    return client, leader


def _all_running_elsewhere(client: ConnectClient, name: str, tasks: int, dead: str,
                           failed: list[dict[str, Any]] | None = None) -> bool:
    st = client.status(name)
    if failed is not None:
        failed += [t for t in st["tasks"] if t["state"] == "FAILED"]
    return len(st["tasks"]) == tasks and all(t["state"] == "RUNNING" and t["worker_id"] != dead
                                             for t in st["tasks"])


def _wait_s(overrides: dict[str, str]) -> float:
    """How long to wait for a failover before giving up: past the longest the settings allow."""
    eff = _effective(overrides)
    return (eff["session.timeout.ms"] + eff["scheduled.rebalance.max.delay.ms"]) / 1000 + 120


def _worker_leaves(bootstrap: str, workdir: Path, overrides: dict[str, str], sig: signal.Signals | None,
                   interval_s: float, the_leader: bool = False,
                   faults: NetworkFaults | None = None) -> tuple[float, int]:
    """Signal a worker running tasks (not the leader, or ``the_leader``), or black-hole it from the
    brokers through ``faults``; seconds until all its tasks RUN elsewhere, and the number of FAILED task
    states seen meanwhile."""
    cages: dict[int, Cage] = {}
    prepare = None if faults is None else lambda w: cages.setdefault(w.port, faults.cage(w))
    workers = _cluster(bootstrap, workdir, overrides, prepare)
    try:
        _client, leader = _running_eos_tasks(bootstrap, workers)
        victim = next(w for w in workers if (w.url == leader) == the_leader)
        dead = _worker_id(victim)
        watcher = ConnectClient(next(w for w in workers if w is not victim).url)
        failed: list[dict[str, Any]] = []
        started = time.monotonic()
        if faults is not None:
            faults.blackhole(cages[victim.port])
        if sig is not None:
            victim.signal(sig)
        wait_until(lambda: _all_running_elsewhere(watcher, "bench", TASKS, dead, failed), _wait_s(overrides),
                   interval_s=interval_s, message="tasks running elsewhere")
        return time.monotonic() - started, len(failed)
    finally:
        for w in workers:
            w.kill()


def worker_failover(bootstrap: str, workdir: Path, overrides: dict[str, str]) -> float:
    return _worker_leaves(bootstrap, workdir, overrides, signal.SIGKILL, 0.05)[0]


def worker_handoff(bootstrap: str, workdir: Path, overrides: dict[str, str]) -> tuple[float, int]:
    return _worker_leaves(bootstrap, workdir, overrides, signal.SIGTERM, 0.02)


def leader_handoff(bootstrap: str, workdir: Path, overrides: dict[str, str]) -> tuple[float, int]:
    return _worker_leaves(bootstrap, workdir, overrides, signal.SIGTERM, 0.02, the_leader=True)


def worker_partition(bootstrap: str, workdir: Path, overrides: dict[str, str]) -> float:
    with NetworkFaults() as faults:
        return _worker_leaves(bootstrap, workdir, overrides, None, 0.05, faults=faults)[0]


def leader_failover(bootstrap: str, workdir: Path, overrides: dict[str, str]) -> float:
    workers = _cluster(bootstrap, workdir, overrides)
    try:
        _client, leader = _running_eos_tasks(bootstrap, workers)
        topic = new_topic(bootstrap)
        victim = next(w for w in workers if w.url == leader)
        survivor = next(w for w in workers if w is not victim)
        body = {"name": "after", "config": {"connector.class": "VerifiableSource", "topic": topic,
                                            "tasks.max": "1", "throughput": "10"}}
        started = time.monotonic()
        victim.kill()
        wait_until(lambda: httpx.post(f"{survivor.url}/connectors", json=body, timeout=30).status_code == 201,
                   _wait_s(overrides), interval_s=0.05, message="a new leader serving writes")
        return time.monotonic() - started
    finally:
        for w in workers:
            w.kill()


def broker_restart(workdir: Path, outage_s: float) -> float:
    kafka = LocalKafka(workdir / "kafka", kafka_version=session_kafka_version())
    port = free_port()
    bootstrap = kafka.start(port=port)
    worker = None
    try:
        topic = new_topic(bootstrap)
        worker = WorkerProcess(bootstrap, workdir, f"bench-outage-{uuid.uuid4().hex[:6]}", extra=TUNED).start()
        worker.wait_ready(120)
        client = ConnectClient(worker.url)
        client.create_connector("outage", {"connector.class": "VerifiableSource", "topic": topic,
                                           "tasks.max": "2", "throughput": "250"})
        client.wait_running("outage", 2, 120)
        wait_until(lambda: sum(end_offsets(bootstrap, topic).values()) > 500, 60, message="records")
        kafka.stop()
        time.sleep(outage_s)
        kafka.start(port=port)
        back = time.monotonic()
        floor = sum(end_offsets(bootstrap, topic).values())

        def recovered() -> bool:
            st = client.status("outage")
            running = len(st["tasks"]) == 2 and all(t["state"] == "RUNNING" for t in st["tasks"])
            return running and sum(end_offsets(bootstrap, topic).values()) > floor + 100

        wait_until(recovered, 300, interval_s=0.2, message="tasks running and committing after the restart")
        return time.monotonic() - back
    finally:
        if worker is not None:
            worker.kill()
        kafka.stop()


class _CommitTail(threading.Thread):
    """Follows a VerifiableSource topic read_committed and notes, per task, when the first record it
    produced after a mark (its timestamp at or past the mark) became visible."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(name="commit-tail", daemon=True)
        self._consumer: Any = Consumer(client_settings(bootstrap, **{
            "group.id": f"bench-tail-{uuid.uuid4().hex[:6]}", "isolation.level": "read_committed",
            "enable.auto.commit": False, "fetch.wait.max.ms": 20}))
        self._consumer.assign([TopicPartition(topic, 0, 0)])
        self._lock = threading.Lock()
        self._mark_ms = float("inf")
        self._first_after: dict[int, float] = {}
        self._stopping = threading.Event()

    def mark(self) -> float:
        """From now on note each task's first record produced after now; returns now (time.time())."""
        with self._lock:
            now = time.time()
            self._mark_ms, self._first_after = now * 1000, {}
            return now

    def committed_since_mark(self) -> dict[int, float]:
        """Per task, the wall time its first record produced after the mark was read."""
        with self._lock:
            return dict(self._first_after)

    def run(self) -> None:
        try:
            while not self._stopping.is_set():
                msg = self._consumer.poll(0.05)
                if msg is None or msg.error() is not None:
                    continue
                task, _ = verifiable_key((msg.key(), msg.value()))
                with self._lock:
                    if msg.timestamp()[1] >= self._mark_ms and task not in self._first_after:
                        self._first_after[task] = time.time()
        finally:
            self._consumer.close()

    def stop(self) -> None:
        self._stopping.set()
        self.join(30)


def _failed_states(client: ConnectClient, name: str) -> list[dict[str, Any]]:
    st = client.status(name)
    return [s for s in (st["connector"], *st["tasks"]) if s["state"] == "FAILED"]


def _lost_contact(worker: WorkerProcess, since: int) -> bool:
    """Whether ``worker`` logged, after byte ``since`` of its log, that it stopped its tasks for lack of
    its own heartbeats (a status-topic outage longer than the session timeout)."""
    with worker.log_path.open("rb") as f:
        f.seek(since)
        return b"lost contact with the cluster" in f.read()


def broker_kill(workdir: Path, rounds: int, settings: dict[str, str]) -> dict[str, Any]:
    """Case (e) under worker ``settings``: per victim (``data_leader``, ``coordinator``), seconds from each
    SIGKILL until every task committed again; FAILED states seen; whether the topic ends exactly once."""
    cluster = LocalKafkaCluster(workdir / "kafka3")
    bootstrap = cluster.start(timeout=300)
    workers: list[WorkerProcess] = []
    tail: _CommitTail | None = None
    try:
        topic = new_topic(bootstrap, replication_factor=3)
        group = f"bench-brokers-{uuid.uuid4().hex[:6]}"
        workers = [WorkerProcess(bootstrap, workdir, group, extra={**settings, **THREE_BROKERS}).start()
                   for _ in range(3)]
        for w in workers:
            w.wait_ready(120)
        client = ConnectClient(workers[0].url)
        client.create_connector("kill", {"connector.class": "VerifiableSource", "topic": topic,
                                         "tasks.max": str(BROKER_KILL_TASKS), "throughput": "50",
                                         "exactly.once.support": "required"})
        client.wait_running("kill", BROKER_KILL_TASKS, 120)
        tail = _CommitTail(bootstrap, topic)
        tail.start()
        failed: list[dict[str, Any]] = []

        def all_committed() -> bool:
            failed.extend(_failed_states(client, "kill"))
            return len(tail.committed_since_mark()) == BROKER_KILL_TASKS

        tail.mark()
        wait_until(all_committed, 120, interval_s=0.2, message="every task committing")

        def victim(case: str) -> tuple[int, str]:
            leader = partition_leader(bootstrap, topic)
            if case == "data_leader":
                return leader, f"leader of {topic}-0"
            coordinators = {task: transaction_coordinator(bootstrap, f"{group}-kill-{task}")
                            for task in range(BROKER_KILL_TASKS)}
            task = next((t for t, c in coordinators.items() if c != leader), 0)
            return coordinators[task], f"coordinator of task {task} (data leader {leader})"

        out: dict[str, Any] = {}
        for case in ("data_leader", "coordinator"):
            seconds, victims, lost_contact = [], [], []
            for i in range(rounds):
                node, what = victim(case)
                log.info("broker kill %s, round %d: node %d, the %s", case, i + 1, node, what)
                marks = {w.port: w.log_path.stat().st_size for w in workers}
                killed_at = tail.mark()
                cluster.kill(node)
                wait_until(all_committed, 300, interval_s=0.2, message=f"every task committing after node {node}")
                seconds.append(max(tail.committed_since_mark().values()) - killed_at)
                victims.append(what)
                lost_contact.append(sum(_lost_contact(w, marks[w.port]) for w in workers))
                cluster.restart(node, timeout=300)  # a loaded machine restarts a node slowly
                tail.mark()
                wait_until(all_committed, 300, interval_s=0.2, message=f"every task committing after node {node} "
                                                                       "restarted")
            out[case] = {**_figures(seconds), "victims": victims, "workers_that_lost_contact": lost_contact,
                         "target_s": BROKER_KILL_TARGET_S,
                         "within_target": bool(seconds) and max(seconds) <= BROKER_KILL_TARGET_S}
        client.stop_connector("kill")
        client.wait_state("kill", "STOPPED", timeout_s=120)
        report = check_sequences(verifiable_pairs(read_committed(bootstrap, topic)))
        return {**out, "failed_task_states_seen": len(failed), "exactly_once": report.exactly_once,
                "records": sum(report.counts.values()), "worker_settings": {**settings, **THREE_BROKERS}}
    finally:
        if tail is not None:
            tail.stop()
        for w in workers:
            w.kill()
        cluster.stop()


def _figures(values: list[float]) -> dict[str, Any]:
    return {"rounds_s": [round(x, 2) for x in values],
            "median_s": round(statistics.median(values), 2) if values else None,
            "max_s": round(max(values), 2) if values else None}


def _run(bootstrap: str, workdir: Path, name: str, rounds: int, only: set[str] | None = None) -> dict[str, Any]:
    """Every case under the settings ``name``, ``rounds`` times each: figures, targets, pass/fail."""
    overrides = PROFILES[name]
    effective = _effective(overrides)
    sigkill_target_s = effective["session.timeout.ms"] / 1000 + 2
    cases: dict[str, tuple[Callable[[str, Path, dict[str, str]], Any], float]] = {
        "worker_sigkill_to_tasks_running": (worker_failover, sigkill_target_s),
        "leader_sigkill_to_writes_served": (leader_failover, sigkill_target_s),
        "worker_sigterm_to_tasks_running": (worker_handoff, SIGTERM_TARGET_S),
        "leader_sigterm_to_tasks_running": (leader_handoff, SIGTERM_TARGET_S),
        "worker_partition_to_tasks_running": (worker_partition, effective["session.timeout.ms"] / 1000 + 5),
    }
    out: dict[str, Any] = {"overrides": overrides, "effective": effective}
    for case, (run, target_s) in cases.items():
        if only is not None and case not in only:
            continue
        results = []
        try:
            for i in range(rounds):
                log.info("%s settings: %s, round %d", name, case, i + 1)
                results.append(run(bootstrap, workdir / f"{name}-{case}-{i}", overrides))
        except NetworkFaultsUnavailable as exc:
            out[case] = {"unavailable": str(exc)}
            continue
        seconds = [r[0] if isinstance(r, tuple) else r for r in results]
        out[case] = {**_figures(seconds), "target_s": target_s,
                     "within_target": bool(seconds) and max(seconds) <= target_s}
        if case.endswith("_sigterm_to_tasks_running"):
            out[case]["failed_task_states_seen"] = [r[1] for r in results]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--settings", default="default,tuned",
                        help=f"comma-separated worker settings to measure, of {', '.join(PROFILES)}")
    parser.add_argument("--cases", default="",
                        help="comma-separated cases to run (e.g. worker_partition_to_tasks_running); default all")
    add_bootstrap_argument(parser)
    parser.add_argument("--broker-outage", type=float, default=30.0,
                        help="seconds the broker is down in the broker-restart run (0: skip it)")
    parser.add_argument("--broker-kill-rounds", type=int, default=2,
                        help="rounds of each broker-kill case on three brokers (0: skip them)")
    parser.add_argument("--broker-kill-settings", default="default,tuned",
                        help="comma-separated worker settings the broker-kill cases run under (default,tuned)")
    args = parser.parse_args()
    profiles = [p.strip() for p in args.settings.split(",") if p.strip()]
    kill_profiles = [p.strip() for p in args.broker_kill_settings.split(",") if p.strip()]
    for option, names in (("--settings", profiles), ("--broker-kill-settings", kill_profiles)):
        if unknown := [p for p in names if p not in PROFILES]:
            parser.error(f"{option}: unknown {unknown}; known: {', '.join(PROFILES)}")
    configure_logging()
    with tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp:
        results = {}
        if profiles:
            with broker(Path(tmp), args.bootstrap) as kafka:
                only = {c.strip() for c in args.cases.split(",") if c.strip()} or None
                results = {name: _run(kafka.bootstrap, Path(tmp), name, args.rounds, only) for name in profiles}
        outage_s = broker_restart(Path(tmp) / "outage", args.broker_outage) if args.broker_outage > 0 else None
        # Per profile, each on a cluster of its own.
        kills = {name: broker_kill(Path(tmp) / f"kill-{name}", args.broker_kill_rounds, PROFILES[name])
                 for name in kill_profiles} if args.broker_kill_rounds > 0 else None
    print(json.dumps({
        "benchmark": "failover", "rounds": args.rounds, "workers": 3, "tasks": TASKS,
        "exactly_once": True, "settings": results,
        "within_target": {name: all(v["within_target"] for v in r.values() if isinstance(v, dict)
                                    and "within_target" in v) for name, r in results.items()},
        "broker_outage_s": args.broker_outage or None,
        "broker_outage_settings": TUNED,
        "broker_back_to_tasks_running_and_committing_s": None if outage_s is None else round(outage_s, 2),
        "broker_kill_to_every_task_committing": kills,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
