#!/usr/bin/env python3
"""Failover times of a 3-worker cluster with ``session.timeout.ms=10000`` and
``scheduled.rebalance.max.delay.ms=0`` (issue target: both within session timeout + 5 s).

(a) *worker*: SIGKILL a worker that is not the leader and runs tasks; seconds until every one of its
    tasks is RUNNING on another worker (polled through a survivor's REST API every 100 ms).
(b) *leader*: SIGKILL the leader; seconds until a survivor accepts a connector create (201), i.e. a
    new leader serves writes.
(c) *broker restart*: one exactly-once worker (VerifiableSource, 2 tasks at 250 records/s) on a broker
    of its own, which is stopped for ``--broker-outage`` seconds and started again on the same data
    dir and port; seconds from the broker being back until both tasks are RUNNING and new records
    are committed, with no REST call but reads. Always on a broker this script starts (an external
    one cannot be restarted); ``--broker-outage 0`` skips it.

Prints ONE JSON object on stdout; logs go to stderr. Broker: ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka in a temp dir.

    python bench/failover.py [--rounds 2] [--bootstrap HOST:PORT] [--broker-outage 30]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

_REPO = Path(__file__).resolve().parent.parent
if str(_REPO) not in sys.path:
    sys.path.insert(0, str(_REPO))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO), os.environ.get("PYTHONPATH", "")) if p)

import httpx  # noqa: E402

from connect_runtime.testing.cluster import (  # noqa: E402
    ConnectClient,
    WorkerProcess,
    current_leader,
    end_offsets,
    wait_until,
)
from connect_runtime.testing.local_kafka import LocalKafka, free_port  # noqa: E402
from connect_runtime.testing.pytest_plugin import new_topic  # noqa: E402

log = logging.getLogger("bench.failover")
SETTINGS = {"session.timeout.ms": "10000", "heartbeat.interval.ms": "3000",
            "scheduled.rebalance.max.delay.ms": "0"}


def _leader_url(bootstrap: str, config_topic: str) -> str | None:
    record = current_leader(bootstrap, config_topic)
    return None if record is None else str(record["url"])


def _cluster(bootstrap: str, workdir: Path) -> list[WorkerProcess]:
    group = f"bench-failover-{uuid.uuid4().hex[:6]}"
    workers = [WorkerProcess(bootstrap, workdir, group, extra=SETTINGS).start() for _ in range(3)]
    for w in workers:
        w.wait_ready(120)
    return workers


def _all_running_elsewhere(client: ConnectClient, name: str, tasks: int, dead: str) -> bool:
    st = client.status(name)
    return len(st["tasks"]) == tasks and all(t["state"] == "RUNNING" and t["worker_id"] != dead
                                             for t in st["tasks"])


def worker_failover(bootstrap: str, workdir: Path) -> float:
    workers = _cluster(bootstrap, workdir)
    try:
        topic = new_topic(bootstrap, partitions=3)
        client = ConnectClient(workers[0].url)
        client.create_connector("bench", {"connector.class": "VerifiableSource", "topic": topic,
                                          "tasks.max": "6", "throughput": "50"})
        st = client.wait_running("bench", 6, 120)
        leader = _leader_url(bootstrap, workers[0].props["config.storage.topic"])
        victim = next(w for w in workers if w.url != leader and any(
            t["worker_id"] == f"127.0.0.1:{w.port}" for t in st["tasks"]))
        dead = f"127.0.0.1:{victim.port}"
        watcher = ConnectClient(next(w for w in workers if w is not victim).url)
        started = time.monotonic()
        victim.kill()
        wait_until(lambda: _all_running_elsewhere(watcher, "bench", 6, dead), 120, interval_s=0.1,
                   message="tasks running elsewhere")
        return time.monotonic() - started
    finally:
        for w in workers:
            w.kill()


def leader_failover(bootstrap: str, workdir: Path) -> float:
    workers = _cluster(bootstrap, workdir)
    try:
        topic = new_topic(bootstrap)
        leader = _leader_url(bootstrap, workers[0].props["config.storage.topic"])
        victim = next(w for w in workers if w.url == leader)
        survivor = next(w for w in workers if w is not victim)
        body = {"name": "after", "config": {"connector.class": "VerifiableSource", "topic": topic,
                                            "tasks.max": "1", "throughput": "10"}}
        started = time.monotonic()
        victim.kill()
        wait_until(lambda: httpx.post(f"{survivor.url}/connectors", json=body, timeout=30).status_code == 201,
                   120, interval_s=0.1, message="a new leader serving writes")
        return time.monotonic() - started
    finally:
        for w in workers:
            w.kill()


def broker_restart(workdir: Path, outage_s: float) -> float:
    kafka = LocalKafka(workdir / "kafka")
    port = free_port()
    bootstrap = kafka.start(port=port)
    worker = None
    try:
        topic = new_topic(bootstrap)
        worker = WorkerProcess(bootstrap, workdir, f"bench-outage-{uuid.uuid4().hex[:6]}", extra=SETTINGS).start()
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"))
    parser.add_argument("--broker-outage", type=float, default=30.0,
                        help="seconds the broker is down in the broker-restart run (0: skip it)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp:
        kafka = None
        bootstrap = args.bootstrap
        if not bootstrap:
            kafka = LocalKafka(Path(tmp) / "kafka")
            bootstrap = kafka.start()
        try:
            worker_s = [worker_failover(bootstrap, Path(tmp) / f"w{i}") for i in range(args.rounds)]
            leader_s = [leader_failover(bootstrap, Path(tmp) / f"l{i}") for i in range(args.rounds)]
        finally:
            if kafka is not None:
                kafka.stop()
        outage_s = broker_restart(Path(tmp) / "outage", args.broker_outage) if args.broker_outage > 0 else None
    session_s = int(SETTINGS["session.timeout.ms"]) / 1000
    print(json.dumps({
        "benchmark": "failover", "settings": SETTINGS, "rounds": args.rounds,
        "worker_sigkill_to_tasks_running_s": [round(x, 2) for x in worker_s],
        "leader_sigkill_to_writes_served_s": [round(x, 2) for x in leader_s],
        "worker_max_s": round(max(worker_s), 2) if worker_s else None,
        "leader_max_s": round(max(leader_s), 2) if leader_s else None,
        "median_worker_s": round(statistics.median(worker_s), 2) if worker_s else None,
        "median_leader_s": round(statistics.median(leader_s), 2) if leader_s else None,
        "target_s": session_s + 5,
        "within_target": max(worker_s + leader_s) <= session_s + 5 if worker_s else None,
        "broker_outage_s": args.broker_outage or None,
        "broker_back_to_tasks_running_and_committing_s": None if outage_s is None else round(outage_s, 2),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
