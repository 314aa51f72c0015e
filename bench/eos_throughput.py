#!/usr/bin/env python3
"""Exactly-once source throughput: one VerifiableSource task in a real worker vs. a plain
transactional producer doing the same transactions.

(a) *runtime*: a ``connect-distributed`` worker child process with ``exactly.once.source.support=enabled``
    runs ONE VerifiableSource task (``throughput=-1``, schemaless JsonConverter) writing to a
    1-partition topic, with ``transaction.boundary=--boundary`` (``poll``: one transaction per poll of
    1000 records; ``interval``: commit at the end of the first poll after ``--interval-ms``) and
    ``complete.record.data`` per ``--record-data`` (``simple``: the bare seqno; ``complete``: a map
    {name, task, topic, time_ms, seqno}). A window starts and ends at a commit seen on the data topic:
    its last stable offset (LSO) moves. Each transaction there is its records plus one commit marker,
    so between two LSOs records = delta seqno (of the last record before each LSO) and transactions =
    delta LSO - records. records/s = records / elapsed; records/transaction = records / transactions.
(b) *baseline*: in this process, a confluent-kafka transactional producer with the task producer's
    settings (``eos_producer_config``: idempotence, acks=all, linger.ms=5) runs, per transaction,
    what the worker does: ``begin_transaction``, N records (key ``b"0"``, the value bytes the
    JsonConverter writes for the task's value) to a fresh 1-partition topic, one offset record
    (``["<connector>",{"id":0}]`` -> ``{"seqno":N}``) to a fresh 5-partition compacted topic,
    ``commit_transaction``. N = 1000 with the poll boundary; with the interval boundary, the runtime's
    mean records per transaction measured so far (a calibration window before the first baseline run).

Runs are sequential (the target machine has 2 cores) and interleaved to even out drift:
B (R B) x ``--rounds`` (interval: calibration R first), the worker's connector paused during the
baseline runs between its windows; the means of the R windows and of the B runs give the ratio R/B
(target >= 0.5).

Prints ONE JSON object on stdout; logs go to stderr. The broker is ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka started in a temp dir (and stopped at the end).
A fresh broker's JVM needs 40 s or more of load to get near its steady rate (the baseline more than
doubles meanwhile), so discarded baseline transactions run first (``--broker-warmup``).

    python bench/eos_throughput.py [--seconds 15] [--warmup 3] [--broker-warmup 60] [--rounds 2]
                                   [--boundary poll|interval] [--interval-ms 1000]
                                   [--record-data simple|complete] [--bootstrap HOST:PORT]
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

from confluent_kafka import Consumer, IsolationLevel, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec  # noqa: E402

from connect_runtime.converters.json_converter import json_dumps_compact  # noqa: E402
from connect_runtime.storage import formats  # noqa: E402
from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, wait_until  # noqa: E402
from connect_runtime.testing.local_kafka import KAFKA_VERSION, LocalKafka  # noqa: E402
from connect_runtime.worker.exactly_once_source_task import eos_producer_config  # noqa: E402

log = logging.getLogger("bench.eos_throughput")

BATCH_SIZE = 1000
"""Records per VerifiableSource poll, hence per transaction with the poll boundary."""

BOUNDARIES = ("poll", "interval")
RECORD_DATA = ("simple", "complete")
COMMIT_POLL_S = 0.02
"""How often the data topic's last stable offset is read while waiting for a commit."""

CONNECTOR = "bench-eos"
TASK_ID = 0
TXN_TIMEOUT_S = 60.0
UNSTABLE_SPREAD = 1.3
"""Baseline runs whose max/min exceeds this make the result suspect (reported in ``warnings``)."""

NOTES = (
    "runtime: 1 EOS VerifiableSource task (throughput=-1, schemaless JsonConverter, 1-partition topic) in a "
    "worker child process; each window starts and ends at a commit seen on the data topic (its last stable "
    "offset moves): records = delta seqno of the last committed record, transactions = delta LSO - records "
    "(one commit marker per transaction). baseline: in-process confluent-kafka transactional producer with "
    "the task producer's settings doing transactions of the same size (1000 records with the poll boundary, "
    "the runtime's measured mean with the interval boundary) with the same value bytes + 1 offset record; "
    "mean of the runs before, between (worker paused) and after the runtime windows. Runs are sequential, "
    "on a shared machine: check loadavg."
)


def complete_value_template(name: str, task: int, topic: str) -> bytes:
    """``bytes %% (time_ms, seqno)`` template of the JsonConverter's bytes (schemas.enable=false) for
    VerifiableSource's complete record value {name, task, topic, time_ms, seqno}."""
    return (b'{"name":' + json_dumps_compact(name).replace(b"%", b"%%")
            + b',"task":' + json_dumps_compact(task)
            + b',"topic":' + json_dumps_compact(topic).replace(b"%", b"%%")
            + b',"time_ms":%d,"seqno":%d}')


def record_seqno(value: bytes | None) -> int:
    """The seqno in a VerifiableSource record value as the JsonConverter wrote it (either shape)."""
    if value is None:
        raise ValueError("a VerifiableSource record has a value")
    decoded = json.loads(value)
    return int(decoded["seqno"] if isinstance(decoded, dict) else decoded)


def window_counts(lso0: int, seqno0: int, lso1: int, seqno1: int) -> tuple[int, int]:
    """(records, transactions) between two last stable offsets of a 1-partition topic written only by
    one transactional producer that never aborts. Each LSO lies right after a commit marker, every
    transaction in between is its records + one marker, and ``seqno`` is that of the last record
    before each LSO (-1 before the first); records are consecutive seqnos."""
    records = seqno1 - seqno0
    transactions = (lso1 - lso0) - records
    if records < 0 or transactions < 0 or (records > 0 and transactions == 0):
        raise ValueError(f"inconsistent window: LSO {lso0}->{lso1}, seqno {seqno0}->{seqno1}")
    return records, transactions


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
def run_baseline(bootstrap: str, seconds: float, warmup_s: float, txn_records: int = BATCH_SIZE,
                 record_data: str = "simple") -> dict[str, Any]:
    """Transactions of ``txn_records`` records + 1 offset record; values as the task's would be."""
    suffix = uuid.uuid4().hex[:8]
    # "bench-txn-" is as long as the runtime's "bench-eos-": complete values have the same length.
    topic = create_topic(bootstrap, f"bench-txn-{suffix}", 1)
    offsets_topic = create_topic(bootstrap, f"bench-txn-offsets-{suffix}", 5, {"cleanup.policy": "compact"})
    conf = eos_producer_config({"bootstrap.servers": bootstrap, "client.id": f"bench-txn-{suffix}"},
                               f"bench-txn-{suffix}")
    producer = Producer(conf)
    producer.init_transactions(TXN_TIMEOUT_S)
    produce = producer.produce
    key = str(TASK_ID).encode()  # JsonConverter(schemas.enable=false) of the int task id
    offset_key = formats.offset_key(CONNECTOR, {"id": TASK_ID})
    complete = record_data == "complete"
    template = complete_value_template(CONNECTOR, TASK_ID, topic)
    sample = {"name": CONNECTOR, "task": TASK_ID, "topic": topic, "time_ms": int(time.time() * 1000), "seqno": 7}
    if template % (sample["time_ms"], 7) != json_dumps_compact(sample):  # the bytes the worker writes
        raise RuntimeError("complete_value_template differs from json_dumps_compact")
    seq = 0

    def send_blocking(value: bytes) -> None:
        """Local queue full (large transactions): serve delivery reports and retry, as the worker does."""
        while True:
            producer.poll(0.05)
            try:
                produce(topic, value, key)
                return
            except BufferError:
                pass

    def transaction() -> None:
        nonlocal seq
        producer.begin_transaction()
        start = seq
        end = start + txn_records
        for chunk in range(start, end, BATCH_SIZE):  # the task's polls: time_ms once per poll
            stop = min(chunk + BATCH_SIZE, end)
            if complete:
                now_ms = int(time.time() * 1000)
                for n in range(chunk, stop):
                    value = template % (now_ms, n)
                    try:
                        produce(topic, value, key)
                    except BufferError:
                        send_blocking(value)
            else:
                for n in range(chunk, stop):
                    value = str(n).encode()
                    try:
                        produce(topic, value, key)
                    except BufferError:
                        send_blocking(value)
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
        "transactions_per_s": round(records / txn_records / (t1 - t0), 2),
        "records_per_transaction": txn_records,
        "cpu_cores": round((c1 - c0) / (t1 - t0), 2),
        "elapsed_s": round(t1 - t0, 2),
    }
    log.info("baseline: %s", result)
    return result


# -- (a) runtime -------------------------------------------------------------------------------------
class RuntimeBench:
    """A worker child process running the one-task connector; measured in windows, paused between."""

    def __init__(self, bootstrap: str, workdir: Path, boundary: str = "poll", interval_ms: int = 1000,
                 record_data: str = "simple") -> None:
        suffix = uuid.uuid4().hex[:8]
        self.bootstrap = bootstrap
        self.topic = create_topic(bootstrap, f"bench-eos-{suffix}", 1)
        self.boundary = boundary
        self.interval_ms = interval_ms
        self.record_data = record_data
        self.worker = WorkerProcess(bootstrap, workdir / "worker", f"bench-{suffix}", eos="enabled")
        self.client: ConnectClient | None = None
        self.paused = False
        self.started = False
        self._admin = AdminClient({"bootstrap.servers": bootstrap})
        # Reads one record at a time (the last one before an LSO): small fetches, nothing queued ahead.
        self._consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-eos-reader-{suffix}",
                                   "isolation.level": "read_committed", "enable.auto.commit": False,
                                   "max.partition.fetch.bytes": 65536,
                                   "queued.max.messages.kbytes": 1024})

    def connector_config(self) -> dict[str, str]:
        config = {"connector.class": "VerifiableSource", "topic": self.topic, "tasks.max": "1",
                  "throughput": "-1", "transaction.boundary": self.boundary,
                  "complete.record.data": str(self.record_data == "complete").lower()}
        if self.boundary == "interval":
            config["transaction.boundary.interval.ms"] = str(self.interval_ms)
        return config

    def start(self) -> None:
        self.started = True
        self.worker.start()
        self.worker.wait_ready(90)
        self.client = ConnectClient(self.worker.url)
        self.client.create_connector(CONNECTOR, self.connector_config())
        self.client.wait_running(CONNECTOR, 1)

    def _lso(self) -> int:
        """The data topic's last stable offset: right after the last commit marker."""
        tp = TopicPartition(self.topic, 0)
        futures = self._admin.list_offsets({tp: OffsetSpec.latest()},
                                           isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=30)
        return int(next(iter(futures.values())).result().offset)

    def _await_commit(self) -> tuple[float, int]:
        """Wait until a transaction commits on the data topic: (monotonic time it was seen, new LSO)."""
        first = self._lso()
        deadline = time.monotonic() + 30 + (self.interval_ms / 1000 if self.boundary == "interval" else 0)
        while True:
            time.sleep(COMMIT_POLL_S)
            lso = self._lso()
            t = time.monotonic()
            if lso != first:
                return t, lso
            if t > deadline:
                raise RuntimeError(f"no commit on {self.topic} for 30 s; worker log:\n{self.worker.log_tail()}")

    def _seqno_before(self, lso: int) -> int:
        """seqno of the last record before ``lso`` (at lso - 2: lso - 1 is its commit marker); -1 if none."""
        if lso < 2:
            return -1
        consumer = self._consumer
        consumer.assign([TopicPartition(self.topic, 0, lso - 2)])
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is None:
                    continue
                if msg.error() is not None:
                    raise RuntimeError(f"reading {self.topic}: {msg.error()}")
                if msg.offset() != lso - 2:
                    raise RuntimeError(f"expected the record at offset {lso - 2} of {self.topic}, got "
                                       f"{msg.offset()} (an aborted transaction?)")
                return record_seqno(msg.value())
            raise RuntimeError(f"no record at offset {lso - 2} of {self.topic} within 30 s")
        finally:
            consumer.unassign()

    def _cpu(self) -> float | None:
        proc = self.worker.proc
        return _proc_cpu_s(proc.pid) if proc is not None else None

    def measure(self, seconds: float, warmup_s: float) -> dict[str, Any]:
        """One window from a commit to the first commit at least ``seconds`` later."""
        assert self.client is not None
        if self.paused:
            self.client.request("PUT", f"/connectors/{CONNECTOR}/resume").raise_for_status()
            self.client.wait_running(CONNECTOR, 1)
            self.paused = False
        log.info("runtime: task running; warming up %.1f s", warmup_s)
        time.sleep(warmup_s)
        t0, lso0 = self._await_commit()
        cpu0 = self._cpu()
        s0 = self._seqno_before(lso0)
        time.sleep(max(0.0, seconds - (time.monotonic() - t0)))
        t1, lso1 = self._await_commit()
        cpu1 = self._cpu()
        s1 = self._seqno_before(lso1)
        state = self.client.status(CONNECTOR)["tasks"][0]["state"]
        if state != "RUNNING":
            raise RuntimeError(f"task is {state} at the end of the window; worker log:\n"
                               f"{self.worker.log_tail()}")
        records, transactions = window_counts(lso0, s0, lso1, s1)
        elapsed = t1 - t0
        result: dict[str, Any] = {
            "records_per_s": round(records / elapsed, 1),
            "transactions_per_s": round(transactions / elapsed, 2),
            "records": records,
            "transactions": transactions,
            "records_per_transaction": round(records / transactions, 1) if transactions else None,
            "worker_cpu_cores": (round((cpu1 - cpu0) / elapsed, 2)
                                 if cpu0 is not None and cpu1 is not None else None),
            "elapsed_s": round(elapsed, 2),
            "seqno": [s0, s1],
            "lso": [lso0, lso1],
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
        self._consumer.close()
        if self.client is not None:
            self.client.close()
        if not self.started:
            return
        try:
            log.info("worker stopped with exit code %s", self.worker.stop())
        except Exception:
            log.exception("worker did not stop cleanly")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def records_per_transaction(windows: list[dict[str, Any]]) -> float:
    """Mean records per transaction over runtime windows (total records / total transactions)."""
    transactions = sum(w["transactions"] for w in windows)
    return sum(w["records"] for w in windows) / transactions if transactions else 0.0


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
    parser.add_argument("--boundary", choices=BOUNDARIES, default="poll",
                        help="the connector's transaction.boundary: poll (one transaction per poll of 1000 "
                             "records) or interval (commit after the first poll once --interval-ms passed) "
                             "(poll)")
    parser.add_argument("--interval-ms", type=int, default=1000,
                        help="transaction.boundary.interval.ms with --boundary interval (1000)")
    parser.add_argument("--record-data", choices=RECORD_DATA, default="simple",
                        help="VerifiableSource values: simple (the bare seqno) or complete "
                             "(complete.record.data=true: a map {name, task, topic, time_ms, seqno}) (simple)")
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"),
                        help="bootstrap.servers (default $KAFKA_BOOTSTRAP_SERVERS, else a local broker)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0 or args.interval_ms <= 0:
        parser.error("--rounds must be >= 1, --seconds > 0 and --interval-ms > 0")
    interval = args.boundary == "interval"
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
        calibration: dict[str, Any] | None = None

        def txn_records() -> int:
            """Records per baseline transaction: the task's poll size, or the runtime's measured mean."""
            if not interval:
                return BATCH_SIZE
            measured = windows or ([calibration] if calibration is not None else [])
            return max(1, round(records_per_transaction(measured)))

        def baseline_run(n: int) -> None:
            size = txn_records()
            log.info("baseline %d/%d (%d records per transaction)", n, args.rounds + 1, size)
            baselines.append(run_baseline(bootstrap, args.seconds, args.warmup, size, args.record_data))

        try:
            if args.broker_warmup > 0:
                log.info("bootstrap %s; warming up the broker for %.0f s", bootstrap, args.broker_warmup)
                run_baseline(bootstrap, args.broker_warmup, 0.0, BATCH_SIZE, args.record_data)
            runtime = RuntimeBench(bootstrap, workdir, args.boundary, args.interval_ms, args.record_data)
            try:
                if interval:
                    # The first baseline run needs the runtime's transaction size: measure it first.
                    runtime.start()
                    log.info("runtime calibration window (transaction size for the first baseline run)")
                    calibration = runtime.measure(max(3.0, 3 * args.interval_ms / 1000), args.warmup)
                    runtime.pause()
                baseline_run(1)
                if not runtime.started:
                    runtime.start()
                for r in range(args.rounds):
                    log.info("runtime window %d/%d", r + 1, args.rounds)
                    windows.append(runtime.measure(args.seconds, args.warmup))
                    if r + 1 < args.rounds:
                        runtime.pause()
                        baseline_run(r + 2)
            finally:
                runtime.stop()
            baseline_run(args.rounds + 1)
        finally:
            if kafka is not None:
                kafka.stop()
        load_after = os.getloadavg()

    runtime_rate = _mean([w["records_per_s"] for w in windows])
    runtime_txn = records_per_transaction(windows)
    baseline = _mean([b["records_per_s"] for b in baselines])
    baseline_txn = _mean([b["records_per_transaction"] for b in baselines])
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
    if runtime_txn > 0 and abs(baseline_txn / runtime_txn - 1) > 0.1:
        warnings.append(f"baseline transactions ({baseline_txn:.0f} records) differ from the runtime's "
                        f"({runtime_txn:.0f}) by more than 10%")
    for w in warnings:
        log.warning("%s", w)
    out = {
        "benchmark": "eos_throughput",
        "kafka": KAFKA_VERSION if kafka is not None else "external",
        "bootstrap": "local" if kafka is not None else bootstrap,
        "seconds": args.seconds,
        "warmup_seconds": args.warmup,
        "broker_warmup_seconds": args.broker_warmup,
        "boundary": args.boundary,
        "interval_ms": args.interval_ms if interval else None,
        "record_data": args.record_data,
        "batch_size": BATCH_SIZE,
        "rounds": args.rounds,
        "runtime_records_per_s": round(runtime_rate, 1),
        "baseline_records_per_s": round(baseline, 1),
        "ratio": round(ratio, 3),
        "target_ratio": 0.5,
        "runtime_records_per_transaction": round(runtime_txn, 1),
        "baseline_records_per_transaction": round(baseline_txn, 1),
        "runtime_transactions_per_s": round(_mean([w["transactions_per_s"] for w in windows]), 2),
        "runtime_windows": windows,
        "calibration_window": calibration,
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
