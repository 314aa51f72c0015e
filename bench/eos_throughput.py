#!/usr/bin/env python3
"""Exactly-once source throughput: one VerifiableSource task in a real worker vs. a plain
transactional producer doing the same transactions.

(a) *runtime*: a ``connect-distributed`` worker child process with ``exactly.once.source.support=enabled``
    runs ONE VerifiableSource task (``throughput=-1``, poll transaction boundary, schemaless
    JsonConverter) writing to a 1-partition topic. After a warm-up, the committed ``seqno`` of the
    task is read from the offsets topic (read_committed) at the start and at the end of the window:
    records/s = delta seqno / elapsed.
(b) *baseline*: in this process, a confluent-kafka transactional producer with the task producer's
    settings (``eos_producer_config``: idempotence, acks=all, linger.ms=5) runs, per transaction,
    exactly what the worker does per poll: ``begin_transaction``, 1000 records (key ``b"0"``,
    value ``str(seqno).encode()``) to a fresh 1-partition topic, one offset record
    (``["<connector>",{"id":0}]`` -> ``{"seqno":N}``) to a fresh 5-partition compacted topic,
    ``commit_transaction``.

Runs are sequential (the target machine has 2 cores) and interleaved to even out drift:
B (R B) x ``--rounds``, the worker's connector paused during the baseline runs between its windows;
the means of the R windows and of the B runs give the ratio R/B (target >= 0.5).

Prints ONE JSON object on stdout; logs go to stderr. The broker is ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka started in a temp dir (and stopped at the end).
A fresh broker's JVM needs 40 s or more of load to get near its steady rate (the baseline more than
doubles meanwhile), so discarded baseline transactions run first (``--broker-warmup``).

    python bench/eos_throughput.py [--seconds 15] [--warmup 3] [--broker-warmup 60] [--rounds 2]
                                   [--bootstrap HOST:PORT]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parent.parent
if str(_REPO) not in sys.path:  # run this tree's code, also in the worker child process
    sys.path.insert(0, str(_REPO))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO), os.environ.get("PYTHONPATH", "")) if p)

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from connect_runtime.storage import formats  # noqa: E402
from connect_runtime.testing.cluster import (  # noqa: E402
    ConnectClient,
    WorkerProcess,
    end_offsets,
    stored_offsets,
    wait_until,
)
from connect_runtime.testing.local_kafka import KAFKA_VERSION, LocalKafka  # noqa: E402
from connect_runtime.worker.exactly_once_source_task import eos_producer_config  # noqa: E402

log = logging.getLogger("bench.eos_throughput")

BATCH_SIZE = 1000
"""Records per VerifiableSource poll, hence per transaction with the poll boundary."""

CONNECTOR = "bench-eos"
TASK_ID = 0
TXN_TIMEOUT_S = 60.0
UNSTABLE_SPREAD = 1.3
"""Baseline runs whose max/min exceeds this make the result suspect (reported in ``warnings``)."""

NOTES = (
    "runtime: 1 EOS VerifiableSource task (throughput=-1, poll boundary, schemaless JsonConverter, "
    "1-partition topic) in a worker child process; records/s from the committed seqno in the offsets "
    "topic (read_committed) at the start and end of the window. baseline: in-process confluent-kafka "
    "transactional producer with the task producer's settings doing the same transactions (1000 records "
    "+ 1 offset record); mean of the runs before, between (worker paused) and after the runtime windows. "
    "Runs are sequential, on a shared machine: check loadavg."
)


def create_topic(bootstrap: str, name: str, partitions: int, config: dict[str, str] | None = None) -> str:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1,
                                            config=config or {})], operation_timeout=30, request_timeout=30)
    futures[name].result(timeout=30)
    deadline = time.monotonic() + 30
    while True:
        md = admin.list_topics(topic=name, timeout=5).topics.get(name)
        if (md is not None and md.error is None and len(md.partitions) == partitions
                and all(p.leader >= 0 and p.error is None for p in md.partitions.values())):
            return name
        if time.monotonic() > deadline:
            raise RuntimeError(f"topic {name} has no leader after 30 s")
        time.sleep(0.1)


def _proc_cpu_s(pid: int) -> float | None:
    """utime + stime of a process in seconds (Linux), None when unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


# -- (b) baseline ------------------------------------------------------------------------------------
def run_baseline(bootstrap: str, seconds: float, warmup_s: float) -> dict[str, Any]:
    suffix = uuid.uuid4().hex[:8]
    topic = create_topic(bootstrap, f"bench-baseline-{suffix}", 1)
    offsets_topic = create_topic(bootstrap, f"bench-baseline-offsets-{suffix}", 5,
                                 {"cleanup.policy": "compact"})
    conf = eos_producer_config({"bootstrap.servers": bootstrap, "client.id": f"bench-baseline-{suffix}"},
                               f"bench-baseline-{suffix}")
    producer = Producer(conf)
    producer.init_transactions(TXN_TIMEOUT_S)
    produce = producer.produce
    key = str(TASK_ID).encode()  # JsonConverter(schemas.enable=false) of the int task id
    offset_key = formats.offset_key(CONNECTOR, {"id": TASK_ID})
    seq = 0

    def transaction() -> None:
        nonlocal seq
        producer.begin_transaction()
        start = seq
        end = start + BATCH_SIZE
        for n in range(start, end):
            produce(topic, str(n).encode(), key)
        produce(offsets_topic, b'{"seqno":%d}' % (end - 1), offset_key)
        producer.commit_transaction(TXN_TIMEOUT_S)
        seq = end

    warm_end = time.monotonic() + warmup_s
    while time.monotonic() < warm_end:
        transaction()
    s0, c0, t0 = seq, time.process_time(), time.monotonic()
    while time.monotonic() - t0 < seconds:
        transaction()
    t1, c1 = time.monotonic(), time.process_time()
    producer.flush(0)
    records = seq - s0
    result = {
        "records_per_s": round(records / (t1 - t0), 1),
        "transactions_per_s": round(records / BATCH_SIZE / (t1 - t0), 2),
        "cpu_cores": round((c1 - c0) / (t1 - t0), 2),
        "elapsed_s": round(t1 - t0, 2),
    }
    log.info("baseline: %s", result)
    return result


# -- (a) runtime -------------------------------------------------------------------------------------
class RuntimeBench:
    """A worker child process running the one-task connector; measured in windows, paused between."""

    def __init__(self, bootstrap: str, workdir: Path) -> None:
        suffix = uuid.uuid4().hex[:8]
        self.bootstrap = bootstrap
        self.topic = create_topic(bootstrap, f"bench-eos-{suffix}", 1)
        self.worker = WorkerProcess(bootstrap, workdir / "worker", f"bench-{suffix}", eos="enabled")
        self.offsets_topic = self.worker.props["offset.storage.topic"]
        self.client: ConnectClient | None = None
        self.paused = False

    def start(self) -> None:
        self.worker.start()
        self.worker.wait_ready(90)
        self.client = ConnectClient(self.worker.url)
        self.client.create_connector(CONNECTOR, {"connector.class": "VerifiableSource", "topic": self.topic,
                                                 "tasks.max": "1", "throughput": "-1"})
        self.client.wait_running(CONNECTOR, 1)

    def _sample(self) -> tuple[float, int, int, float | None]:
        t = time.monotonic()
        proc = self.worker.proc
        cpu = _proc_cpu_s(proc.pid) if proc is not None else None
        end = sum(end_offsets(self.bootstrap, self.topic).values())
        seqno = stored_offsets(self.bootstrap, self.offsets_topic, CONNECTOR).get(TASK_ID, -1)
        return t, seqno, end, cpu

    def measure(self, seconds: float, warmup_s: float) -> dict[str, Any]:
        assert self.client is not None
        if self.paused:
            self.client.request("PUT", f"/connectors/{CONNECTOR}/resume").raise_for_status()
            self.client.wait_running(CONNECTOR, 1)
            self.paused = False
        log.info("runtime: task running; warming up %.1f s", warmup_s)
        time.sleep(warmup_s)
        t0, s0, e0, cpu0 = self._sample()
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
        t1, s1, e1, cpu1 = self._sample()
        state = self.client.status(CONNECTOR)["tasks"][0]["state"]
        if state != "RUNNING":
            raise RuntimeError(f"task is {state} at the end of the window; worker log:\n"
                               f"{self.worker.log_tail()}")
        elapsed = t1 - t0
        result: dict[str, Any] = {
            "records_per_s": round((s1 - s0) / elapsed, 1),
            "transactions_per_s": round((s1 - s0) / BATCH_SIZE / elapsed, 2),
            # Cross-check from the data topic: each transaction takes one more offset (its commit marker).
            "topic_records_per_s": round((e1 - e0) * BATCH_SIZE / (BATCH_SIZE + 1) / elapsed, 1),
            "worker_cpu_cores": (round((cpu1 - cpu0) / elapsed, 2)
                                 if cpu0 is not None and cpu1 is not None else None),
            "elapsed_s": round(elapsed, 2),
            "committed_seqno": [s0, s1],
        }
        log.info("runtime: %s", result)
        return result

    def pause(self) -> None:
        """Pause the connector (the task commits and idles) so that a baseline run has the machine."""
        assert self.client is not None
        self.client.request("PUT", f"/connectors/{CONNECTOR}/pause").raise_for_status()
        client = self.client

        def paused() -> bool:
            st = client.status(CONNECTOR)
            return st["connector"]["state"] == "PAUSED" and all(t["state"] == "PAUSED" for t in st["tasks"])

        wait_until(paused, 60, message=f"{CONNECTOR} PAUSED")
        self.paused = True

    def stop(self) -> None:
        if self.client is not None:
            self.client.close()
        try:
            log.info("worker stopped with exit code %s", self.worker.stop())
        except Exception:
            log.exception("worker did not stop cleanly")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0, help="measurement window of each run (15)")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up before each window (3)")
    parser.add_argument("--broker-warmup", type=float, default=60.0,
                        help="seconds of discarded baseline transactions first, to warm up the broker's JIT "
                             "(60; a fresh broker needs 40 s or more to get near its steady rate)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="runtime windows, interleaved with baseline runs: B (R B) x rounds; the worker "
                             "is paused during the baseline runs between windows (2)")
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"),
                        help="bootstrap.servers (default $KAFKA_BOOTSTRAP_SERVERS, else a local broker)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be >= 1 and --seconds > 0")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)

    with tempfile.TemporaryDirectory(prefix="bench-eos-") as tmp:
        workdir = Path(tmp)
        kafka: LocalKafka | None = None
        bootstrap: str = args.bootstrap or ""
        if not bootstrap:
            kafka = LocalKafka(workdir / "kafka")
            log.info("starting a local Kafka %s in %s", KAFKA_VERSION, kafka.data_dir)
            bootstrap = kafka.start()
        load_before = os.getloadavg()
        baselines: list[dict[str, Any]] = []
        windows: list[dict[str, Any]] = []
        try:
            if args.broker_warmup > 0:
                log.info("bootstrap %s; warming up the broker for %.0f s", bootstrap, args.broker_warmup)
                run_baseline(bootstrap, args.broker_warmup, 0.0)
            log.info("baseline 1/%d", args.rounds + 1)
            baselines.append(run_baseline(bootstrap, args.seconds, args.warmup))
            runtime = RuntimeBench(bootstrap, workdir)
            try:
                runtime.start()
                for r in range(args.rounds):
                    log.info("runtime window %d/%d", r + 1, args.rounds)
                    windows.append(runtime.measure(args.seconds, args.warmup))
                    if r + 1 < args.rounds:
                        runtime.pause()
                        log.info("baseline %d/%d (worker paused)", r + 2, args.rounds + 1)
                        baselines.append(run_baseline(bootstrap, args.seconds, args.warmup))
            finally:
                runtime.stop()
            log.info("baseline %d/%d", args.rounds + 1, args.rounds + 1)
            baselines.append(run_baseline(bootstrap, args.seconds, args.warmup))
        finally:
            if kafka is not None:
                kafka.stop()
        load_after = os.getloadavg()

    runtime_rate = _mean([w["records_per_s"] for w in windows])
    baseline = _mean([b["records_per_s"] for b in baselines])
    ratio = runtime_rate / baseline if baseline > 0 else 0.0
    rates = [b["records_per_s"] for b in baselines] + [w["records_per_s"] for w in windows]
    warnings: list[str] = []
    spread = max(b["records_per_s"] for b in baselines) / max(1.0, min(b["records_per_s"] for b in baselines))
    if spread > UNSTABLE_SPREAD:
        warnings.append(f"baseline runs differ by x{spread:.2f}: the machine or the broker was not steady")
    cpus = os.cpu_count() or 1
    peak_load = max(load_before[0], load_after[0])
    if peak_load > 2 * cpus + 1:
        warnings.append(f"1-minute load average reached {peak_load:.1f} on {cpus} CPUs (the benchmark itself "
                        "accounts for ~3-4 on 2 CPUs): other processes probably competed for the CPU")
    if min(rates) <= 0:
        warnings.append("a run made no progress")
    for w in warnings:
        log.warning("%s", w)
    out = {
        "benchmark": "eos_throughput",
        "kafka": KAFKA_VERSION if kafka is not None else "external",
        "bootstrap": "local" if kafka is not None else bootstrap,
        "seconds": args.seconds,
        "warmup_seconds": args.warmup,
        "broker_warmup_seconds": args.broker_warmup,
        "batch_size": BATCH_SIZE,
        "rounds": args.rounds,
        "runtime_records_per_s": round(runtime_rate, 1),
        "baseline_records_per_s": round(baseline, 1),
        "ratio": round(ratio, 3),
        "target_ratio": 0.5,
        "runtime_windows": windows,
        "baseline_runs": baselines,
        "baseline_spread": round(spread, 2),
        "warnings": warnings,
        "loadavg_1m_before_after": [round(load_before[0], 2), round(load_after[0], 2)],
        "python": sys.version.split()[0],
        "cpus": cpus,
        "notes": NOTES,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
