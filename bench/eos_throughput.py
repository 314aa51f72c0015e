#!/usr/bin/env python3
"""Exactly-once source throughput, all in one run: one task (simple and complete records), N tasks in one
worker, the same task at least once, and a plain transactional producer doing the same transactions.

Scenarios (``scenarios`` in the output; each with records/s and the CPU cores it used):

* ``one_task_simple`` / ``one_task_complete`` (``--record-data``, default both): a ``connect-distributed``
  worker child process with ``exactly.once.source.support=enabled`` runs ONE VerifiableSource task
  (``throughput=-1``, schemaless JsonConverter) writing to a 1-partition topic, with
  ``transaction.boundary=--boundary`` (``poll``: one transaction per poll of 1000 records; ``interval``:
  commit at the end of the first poll after ``--interval-ms``) and ``complete.record.data`` false
  (``simple``: the bare seqno) or true (``complete``: a Struct {name, task, topic, time_ms, seqno}). A window
  starts and ends at a commit seen on the data topic: its last stable offset (LSO) moves. Each transaction
  there is its records plus one commit marker, so between two LSOs records = delta seqno (of the last
  record before each LSO) and transactions = delta LSO - records. Interleaved with it, the *baseline*: in
  this process, a confluent-kafka transactional producer with the task producer's settings
  (``eos_producer_config``) runs, per transaction, what the worker does: ``begin_transaction``, N records
  (key ``b"0"``, the value bytes the JsonConverter writes for the task's value) to a fresh 1-partition
  topic, one offset record to a fresh 5-partition compacted topic, ``commit_transaction``. N = 1000 with
  the poll boundary; with the interval boundary, the runtime's mean records per transaction measured so
  far (a calibration window before the first baseline run). B (R B) x ``--rounds``, the worker's
  connector paused during the baseline runs between its windows; ratio = mean R / mean B.
* ``tasks_in_one_worker`` (``--tasks N``, default the number of CPUs; 0 or 1 skips it): one exactly-once
  worker running N one-task connectors, each to its own 1-partition topic (so each task's window is
  measured as above); records/s is the sum of the tasks' rates. ``summary.scaling`` = its rate / one task's
  (target 0.8 x N).
* ``metrics_overhead`` (``--no-metrics-overhead`` skips it): the cost of task metrics. Two exactly-once workers
  each run the one simple task; in one of them the task processes record into a null recorder (the bench-only
  switch ``CONNECT_RUNTIME_BENCH_TASK_METRICS=off`` in its environment; the timing of polls and producer calls
  runs in both: bench/README.md). After one discarded window
  each, their windows alternate (on, off, off, on, ...: ``--rounds`` each), the other worker's connector
  paused. ``summary.metrics_overhead`` = 1 - rate with metrics / rate without (target <= 0.02);
  ``summary.metrics_cpu_overhead`` = CPU time per record with metrics / without - 1.
* ``at_least_once_simple`` (``--no-at-least-once`` skips it): the one simple task in a worker with
  ``exactly.once.source.support=disabled``; records = growth of the topic's high watermark over
  ``--seconds``. ``summary.exactly_once_cost`` = 1 - exactly-once rate / at-least-once rate (target <= 0.05).

CPU cores = CPU seconds (user + system, from /proc) of the worker process and all its descendants over
the window / the window's wall time; for the baseline, this process's CPU time.

Runs are sequential (the target machine has 2 cores). Prints ONE JSON object on stdout; logs go to
stderr. The top-level ``runtime_records_per_s``, ``baseline_records_per_s`` and ``ratio`` are those of the
first one-task scenario, as in earlier versions. The broker is ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka started in a temp dir (and stopped at the end). A fresh
broker's JVM needs 40 s or more of load to get near its steady rate, so discarded baseline transactions
run first (``--broker-warmup``).

    python bench/eos_throughput.py [--seconds 15] [--warmup 3] [--broker-warmup 60] [--rounds 2]
                                   [--boundary poll|interval] [--interval-ms 1000]
                                   [--record-data simple|complete|both] [--tasks N] [--no-at-least-once]
                                   [--no-metrics-overhead]
                                   [--bootstrap HOST:PORT]
"""

from __future__ import annotations

import argparse
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
from typing import Any, Protocol

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker children's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_bootstrap_argument, broker, configure_logging
from confluent_kafka import Consumer, IsolationLevel, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

from connect_runtime.api.java_json import json_dumps_compact
from connect_runtime.storage import formats
from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, wait_until
from connect_runtime.testing.local_kafka import session_kafka_version
from connect_runtime.worker.exactly_once_source_task import eos_producer_config
from connect_runtime.worker.task_process_main import BENCH_METRICS_SWITCH

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
    "on a shared machine: check loadavg. tasks_in_one_worker: N one-task connectors in one worker, each to "
    "its own topic, rates summed. metrics_overhead: the one simple task in a worker whose task processes "
    "record metrics and in one whose do not (CONNECT_RUNTIME_BENCH_TASK_METRICS=off), windows alternating "
    "ABBA. at_least_once_simple: records = high-watermark growth over the window. "
    "cpu_cores: CPU time of the worker process tree (baseline: this process) / wall time."
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


def parse_proc_stat(text: str) -> tuple[int, int, int, int, int]:
    """(ppid, utime, stime, cutime, cstime) in clock ticks from the text of ``/proc/<pid>/stat``.
    The command name (field 2) may contain spaces and parentheses: fields are counted after its last ``)``."""
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[1]), int(fields[11]), int(fields[12]), int(fields[13]), int(fields[14])


def descendants(parents: dict[int, int], root: int) -> list[int]:
    """The pids below ``root`` in a pid -> parent pid map (children, grandchildren, ...)."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    found: list[int] = []
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        if pid != root and pid not in found:
            found.append(pid)
            stack.extend(children.get(pid, []))
    return found


def process_tree_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by process ``pid`` and all its descendants (Linux /proc):
    its own time, the time of children it has reaped (cutime, cstime) and that of its live descendants
    (with theirs). None when ``pid`` is gone. A descendant that exits unreaped between two readings loses
    its time: the worker and its task processes reap theirs, so that does not happen in a run."""
    stats: dict[int, tuple[int, int, int, int, int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stats[int(entry.name)] = parse_proc_stat((entry / "stat").read_text())
        except (OSError, IndexError, ValueError):
            continue  # exited while we looked
    if pid not in stats:
        return None
    ticks = 0
    for p in [pid, *descendants({k: v[0] for k, v in stats.items()}, pid)]:
        _, utime, stime, cutime, cstime = stats[p]
        ticks += utime + stime + cutime + cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_cores(cpu0: float | None, cpu1: float | None, elapsed_s: float) -> float | None:
    """CPU cores used over a window: CPU seconds / wall seconds (None when a reading is missing)."""
    if cpu0 is None or cpu1 is None or elapsed_s <= 0:
        return None
    return round((cpu1 - cpu0) / elapsed_s, 2)


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
class Worker(Protocol):
    """What a benchmark needs of a Connect worker process: our WorkerProcess, or the Java worker of
    bench/java_connect_throughput.py."""

    url: str
    proc: subprocess.Popen[bytes] | None

    def start(self) -> Any: ...
    def wait_ready(self, timeout_s: float = 60.0) -> None: ...
    def stop(self, timeout_s: float = 60.0) -> int | None: ...
    def log_tail(self, lines: int = 40) -> str: ...


class TopicProbe:
    """Reads the progress of one VerifiableSource task on its own 1-partition topic."""

    def __init__(self, bootstrap: str, topic: str, max_wait_s: float, log_tail: Callable[[], str],
                 seqno_of: Callable[[bytes | None], int] = record_seqno) -> None:
        self.topic = topic
        self.seqno_of = seqno_of
        self.max_wait_s = max_wait_s
        self.log_tail = log_tail
        self._tp = TopicPartition(topic, 0)
        self._admin = AdminClient({"bootstrap.servers": bootstrap})
        # Reads one record at a time (the last one before an LSO): small fetches, nothing queued ahead.
        self._consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{topic}",
                                   "isolation.level": "read_committed", "enable.auto.commit": False,
                                   "max.partition.fetch.bytes": 65536,
                                   "queued.max.messages.kbytes": 1024})

    def end_offset(self, committed: bool = True) -> int:
        """The last stable offset (right after the last commit marker), or with ``committed=False`` the
        high watermark (at-least-once: no transactions, every offset is a record)."""
        level = IsolationLevel.READ_COMMITTED if committed else IsolationLevel.READ_UNCOMMITTED
        futures = self._admin.list_offsets({self._tp: OffsetSpec.latest()}, isolation_level=level,
                                           request_timeout=30)
        return int(next(iter(futures.values())).result().offset)

    def await_commit(self) -> tuple[float, int]:
        """Wait until a transaction commits on the topic: (monotonic time it was seen, new LSO)."""
        first = self.end_offset()
        deadline = time.monotonic() + self.max_wait_s
        while True:
            time.sleep(COMMIT_POLL_S)
            lso = self.end_offset()
            t = time.monotonic()
            if lso != first:
                return t, lso
            if t > deadline:
                raise RuntimeError(f"no commit on {self.topic} for {self.max_wait_s:.0f} s; worker log:\n"
                                   f"{self.log_tail()}")

    def seqno_before(self, lso: int) -> int:
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
                return self.seqno_of(msg.value())
            raise RuntimeError(f"no record at offset {lso - 2} of {self.topic} within 30 s")
        finally:
            consumer.unassign()

    def close(self) -> None:
        self._consumer.close()


def connector_names(tasks: int) -> list[str]:
    """One 1-task connector per task, each writing to its own topic: the bench-eos name for one task (its
    length sets the length of complete values, which the baseline copies), numbered ones for more."""
    return [CONNECTOR] if tasks == 1 else [f"{CONNECTOR}-{i}" for i in range(tasks)]


def summarize_window(parts: list[tuple[int, int | None, float]], cpu0: float | None, cpu1: float | None,
                     elapsed_s: float) -> dict[str, Any]:
    """One window over all tasks: ``parts`` holds per task (records, transactions or None when at least
    once, seconds of its own window). records/s is the sum of the tasks' rates; CPU cores are the worker's
    (process tree) CPU seconds over the whole window's wall time."""
    records = sum(r for r, _, _ in parts)
    txns = [t for _, t, _ in parts if t is not None]
    transactions = sum(txns) if len(txns) == len(parts) else None
    rate = sum(r / e for r, _, e in parts if e > 0)
    tx_rate = sum(t / e for _, t, e in parts if t is not None and e > 0) if transactions is not None else None
    return {
        "records_per_s": round(rate, 1),
        "transactions_per_s": round(tx_rate, 2) if tx_rate is not None else None,
        "records": records,
        "transactions": transactions,
        "records_per_transaction": round(records / transactions, 1) if transactions else None,
        "worker_cpu_cores": cpu_cores(cpu0, cpu1, elapsed_s),
        "elapsed_s": round(elapsed_s, 2),
    }


class RuntimeBench:
    """A worker running ``tasks`` one-task VerifiableSource connectors (throughput=-1), each to its own
    1-partition topic; measured in windows, paused between. ``eos=False`` runs the worker with
    exactly.once.source.support=disabled (at least once). ``worker`` replaces our worker child process
    (e.g. by a Java Connect worker) given the worker's group id. ``extra_config`` is added to each
    connector's config (converters, say), and ``seqno_of`` reads a record's seqno from its value bytes."""

    def __init__(self, bootstrap: str, workdir: Path, boundary: str = "poll", interval_ms: int = 1000,
                 record_data: str = "simple", *, tasks: int = 1, eos: bool = True,
                 worker: Callable[[str], Worker] | None = None, topic_prefix: str = "bench-eos",
                 extra_config: dict[str, str] | None = None,
                 seqno_of: Callable[[bytes | None], int] = record_seqno) -> None:
        suffix = uuid.uuid4().hex[:8]
        self.bootstrap = bootstrap
        self.boundary = boundary
        self.interval_ms = interval_ms
        self.record_data = record_data
        self.eos = eos
        self.extra_config = dict(extra_config or {})
        self.connectors = connector_names(tasks)
        group = f"bench-{suffix}"
        self.worker: Worker = (worker(group) if worker is not None else
                               WorkerProcess(bootstrap, workdir / f"worker-{suffix}", group,
                                             eos="enabled" if eos else "disabled"))
        # Same-length topic names for each runtime and the baseline: complete values have the same length.
        self.topics = [create_topic(bootstrap, f"{topic_prefix}-{suffix}" + (f"-{i}" if tasks > 1 else ""), 1)
                       for i in range(tasks)]
        self.topic = self.topics[0]
        max_wait = 30 + (interval_ms / 1000 if boundary == "interval" else 0)
        self.probes = [TopicProbe(bootstrap, t, max_wait, self.worker.log_tail, seqno_of) for t in self.topics]
        self.client: ConnectClient | None = None
        self.paused = False
        self.started = False

    def connector_config(self, topic: str | None = None) -> dict[str, str]:
        config = {"connector.class": "VerifiableSource", "topic": topic or self.topic, "tasks.max": "1",
                  "throughput": "-1",
                  "complete.record.data": str(self.record_data == "complete").lower(), **self.extra_config}
        if self.eos:
            config["transaction.boundary"] = self.boundary
            if self.boundary == "interval":
                config["transaction.boundary.interval.ms"] = str(self.interval_ms)
        return config

    def start(self, connector_class: str = "VerifiableSource") -> None:
        self.started = True
        self.worker.start()
        self.worker.wait_ready(120)
        self.client = ConnectClient(self.worker.url)
        for name, topic in zip(self.connectors, self.topics, strict=True):
            config = self.connector_config(topic)
            config["connector.class"] = connector_class
            response = self.client.request("PUT", f"/connectors/{name}/config", json=config)
            if response.status_code >= 400:
                raise RuntimeError(f"creating {name}: {response.status_code} {response.text}")
        for name in self.connectors:
            self.client.wait_running(name, 1)

    def _cpu(self) -> float | None:
        proc = self.worker.proc
        return process_tree_cpu_s(proc.pid) if proc is not None else None

    def _check_running(self) -> None:
        assert self.client is not None
        for name in self.connectors:
            state = self.client.status(name)["tasks"][0]["state"]
            if state != "RUNNING":
                raise RuntimeError(f"task of {name} is {state} at the end of the window; worker log:\n"
                                   f"{self.worker.log_tail()}")

    def resume(self) -> None:
        assert self.client is not None
        if self.paused:
            for name in self.connectors:
                self.client.request("PUT", f"/connectors/{name}/resume").raise_for_status()
            for name in self.connectors:
                self.client.wait_running(name, 1)
            self.paused = False

    def measure(self, seconds: float, warmup_s: float) -> dict[str, Any]:
        """One window. Exactly once: per task from a commit to the first commit at least ``seconds``
        later (records and transactions from LSOs and seqnos). At least once: ``seconds`` of wall time,
        records = the growth of the topics' high watermarks."""
        self.resume()
        log.info("runtime: %d task(s) running; warming up %.1f s", len(self.probes), warmup_s)
        time.sleep(warmup_s)
        parts: list[tuple[int, int | None, float]]
        if not self.eos:
            t0, cpu0 = time.monotonic(), self._cpu()
            hw0 = [p.end_offset(committed=False) for p in self.probes]
            time.sleep(seconds)
            hw1 = [p.end_offset(committed=False) for p in self.probes]
            t1, cpu1 = time.monotonic(), self._cpu()
            self._check_running()
            parts = [(b - a, None, t1 - t0) for a, b in zip(hw0, hw1, strict=True)]
            result = summarize_window(parts, cpu0, cpu1, t1 - t0)
            result["high_watermarks"] = [hw0, hw1]
            log.info("runtime (at least once): %s", result)
            return result
        starts: list[tuple[float, int, int]] = []
        cpu0 = self._cpu()
        first = time.monotonic()
        for probe in self.probes:
            t0, lso0 = probe.await_commit()
            starts.append((t0, lso0, probe.seqno_before(lso0)))
        time.sleep(max(0.0, seconds - (time.monotonic() - starts[-1][0])))
        parts = []
        lsos, seqnos = [], []
        for probe, (t0, lso0, s0) in zip(self.probes, starts, strict=True):
            t1, lso1 = probe.await_commit()
            s1 = probe.seqno_before(lso1)
            records, transactions = window_counts(lso0, s0, lso1, s1)
            parts.append((records, transactions, t1 - t0))
            lsos.append([lso0, lso1])
            seqnos.append([s0, s1])
        cpu1 = self._cpu()
        last = time.monotonic()
        self._check_running()
        result = summarize_window(parts, cpu0, cpu1, last - first)
        result["seqno"] = seqnos[0] if len(seqnos) == 1 else seqnos
        result["lso"] = lsos[0] if len(lsos) == 1 else lsos
        log.info("runtime: %s", result)
        return result

    def pause(self) -> None:
        """Pause the connectors (the tasks commit and idle) so that another run has the machine."""
        assert self.client is not None
        client = self.client
        for name in self.connectors:
            client.request("PUT", f"/connectors/{name}/pause").raise_for_status()

        def paused() -> bool:
            for name in self.connectors:
                st = client.status(name)
                if st["connector"]["state"] != "PAUSED" or any(t["state"] != "PAUSED" for t in st["tasks"]):
                    return False
            return True

        wait_until(paused, 60, message=f"{', '.join(self.connectors)} PAUSED")
        self.paused = True

    def stop(self) -> None:
        for probe in self.probes:
            probe.close()
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


def _mean_or_none(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(_mean(present), 2) if present else None


def records_per_transaction(windows: list[dict[str, Any]]) -> float:
    """Mean records per transaction over runtime windows (total records / total transactions)."""
    transactions = sum(w["transactions"] for w in windows)
    return sum(w["records"] for w in windows) / transactions if transactions else 0.0


def run_one_task_eos(bootstrap: str, workdir: Path, args: argparse.Namespace, record_data: str) -> dict[str, Any]:
    """(a) + (d): one exactly-once task interleaved with the bare-producer baseline, B (R B) x rounds
    (interval: a calibration window first, for the first baseline's transaction size)."""
    interval = args.boundary == "interval"
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
        log.info("[%s] baseline %d/%d (%d records per transaction)", record_data, n, args.rounds + 1, size)
        baselines.append(run_baseline(bootstrap, args.seconds, args.warmup, size, record_data))

    runtime = RuntimeBench(bootstrap, workdir, args.boundary, args.interval_ms, record_data)
    try:
        if interval:
            runtime.start()
            log.info("[%s] runtime calibration window (transaction size for the first baseline run)", record_data)
            calibration = runtime.measure(max(3.0, 3 * args.interval_ms / 1000), args.warmup)
            runtime.pause()
        baseline_run(1)
        if not runtime.started:
            runtime.start()
        for r in range(args.rounds):
            log.info("[%s] runtime window %d/%d", record_data, r + 1, args.rounds)
            windows.append(runtime.measure(args.seconds, args.warmup))
            if r + 1 < args.rounds:
                runtime.pause()
                baseline_run(r + 2)
    finally:
        runtime.stop()
    baseline_run(args.rounds + 1)

    runtime_rate = _mean([w["records_per_s"] for w in windows])
    runtime_txn = records_per_transaction(windows)
    baseline = _mean([b["records_per_s"] for b in baselines])
    baseline_txn = _mean([b["records_per_transaction"] for b in baselines])
    warnings: list[str] = []
    spread = max(b["records_per_s"] for b in baselines) / max(1.0, min(b["records_per_s"] for b in baselines))
    if spread > UNSTABLE_SPREAD:
        warnings.append(f"{record_data}: baseline runs differ by x{spread:.2f}: the machine or the broker was "
                        "not steady")
    if min([b["records_per_s"] for b in baselines] + [w["records_per_s"] for w in windows]) <= 0:
        warnings.append(f"{record_data}: a run made no progress")
    if runtime_txn > 0 and abs(baseline_txn / runtime_txn - 1) > 0.1:
        warnings.append(f"{record_data}: baseline transactions ({baseline_txn:.0f} records) differ from the "
                        f"runtime's ({runtime_txn:.0f}) by more than 10%")
    return {
        "record_data": record_data,
        "runtime_records_per_s": round(runtime_rate, 1),
        "runtime_cpu_cores": _mean_or_none([w["worker_cpu_cores"] for w in windows]),
        "baseline_records_per_s": round(baseline, 1),
        "baseline_cpu_cores": _mean_or_none([b["cpu_cores"] for b in baselines]),
        "ratio": round(runtime_rate / baseline, 3) if baseline > 0 else 0.0,
        "runtime_records_per_transaction": round(runtime_txn, 1),
        "baseline_records_per_transaction": round(baseline_txn, 1),
        "runtime_transactions_per_s": round(_mean([w["transactions_per_s"] for w in windows]), 2),
        "runtime_windows": windows,
        "calibration_window": calibration,
        "baseline_runs": baselines,
        "baseline_spread": round(spread, 2),
        "warnings": warnings,
    }


def run_runtime_only(bootstrap: str, workdir: Path, args: argparse.Namespace, tasks: int,
                     eos: bool) -> dict[str, Any]:
    """(b) or (c): ``tasks`` tasks (simple records) in one worker, exactly once or at least once,
    ``--rounds`` consecutive windows."""
    runtime = RuntimeBench(bootstrap, workdir, args.boundary, args.interval_ms, "simple", tasks=tasks, eos=eos)
    windows: list[dict[str, Any]] = []
    try:
        runtime.start()
        for r in range(args.rounds):
            log.info("%d task(s) %s: window %d/%d", tasks, "exactly once" if eos else "at least once",
                     r + 1, args.rounds)
            windows.append(runtime.measure(args.seconds, args.warmup))
    finally:
        runtime.stop()
    return {
        "tasks": tasks,
        "exactly_once": eos,
        "record_data": "simple",
        "records_per_s": round(_mean([w["records_per_s"] for w in windows]), 1),
        "cpu_cores": _mean_or_none([w["worker_cpu_cores"] for w in windows]),
        "records_per_transaction": round(records_per_transaction(windows), 1) if eos else None,
        "windows": windows,
    }


def cpu_us_per_record(windows: list[dict[str, Any]]) -> float | None:
    """The worker's CPU time per record over ``windows`` (µs): steadier than records/s on a busy machine,
    where another process's load changes a window's rate more than a few µs of work per batch do."""
    records = sum(w["records"] for w in windows)
    if not records or any(w["worker_cpu_cores"] is None for w in windows):
        return None
    return round(sum(w["worker_cpu_cores"] * w["elapsed_s"] for w in windows) / records * 1e6, 3)


def run_metrics_overhead(bootstrap: str, workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """(e): one simple exactly-once task with task metrics and one without, in two workers, windows
    alternating ABBA so that a drift of the machine or the broker weighs on both alike."""
    def without_metrics(group: str) -> Worker:
        return WorkerProcess(bootstrap, workdir / f"worker-{group}", group, eos="enabled",
                             env={BENCH_METRICS_SWITCH: "off"})

    # Topic names of the same length: the same record bytes either way.
    on = RuntimeBench(bootstrap, workdir, args.boundary, args.interval_ms, "simple", topic_prefix="bench-mon")
    off = RuntimeBench(bootstrap, workdir, args.boundary, args.interval_ms, "simple", worker=without_metrics,
                       topic_prefix="bench-mof")
    windows: dict[str, list[dict[str, Any]]] = {"on": [], "off": []}
    try:
        on.start()
        on.pause()
        off.start()
        off.pause()
        order = [("on", on), ("off", off)]
        # One discarded window each first: a worker's first window runs slower (its task process, the new
        # topic's partition and the broker's code paths warm up) and would weigh on whichever goes first.
        for label, runtime in order:
            log.info("metrics %s: warm-up window (discarded)", label)
            runtime.measure(args.seconds, args.warmup)
            runtime.pause()
        for r in range(args.rounds):
            for label, runtime in (order if r % 2 == 0 else order[::-1]):
                log.info("metrics %s: window %d/%d", label, r + 1, args.rounds)
                windows[label].append(runtime.measure(args.seconds, args.warmup))
                runtime.pause()
    finally:
        on.stop()
        off.stop()
    rate_on = _mean([w["records_per_s"] for w in windows["on"]])
    rate_off = _mean([w["records_per_s"] for w in windows["off"]])
    cpu_on, cpu_off = cpu_us_per_record(windows["on"]), cpu_us_per_record(windows["off"])
    return {
        "record_data": "simple",
        "with_metrics_records_per_s": round(rate_on, 1),
        "without_metrics_records_per_s": round(rate_off, 1),
        "with_metrics_cpu_cores": _mean_or_none([w["worker_cpu_cores"] for w in windows["on"]]),
        "without_metrics_cpu_cores": _mean_or_none([w["worker_cpu_cores"] for w in windows["off"]]),
        "overhead": round(1 - rate_on / rate_off, 4) if rate_off > 0 else None,
        "with_metrics_cpu_us_per_record": cpu_on,
        "without_metrics_cpu_us_per_record": cpu_off,
        "cpu_overhead": round(cpu_on / cpu_off - 1, 4) if cpu_on is not None and cpu_off else None,
        "windows_with_metrics": windows["on"],
        "windows_without_metrics": windows["off"],
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0, help="measurement window of each run (15)")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up before each window (3)")
    parser.add_argument("--broker-warmup", type=float, default=60.0,
                        help="seconds of discarded baseline transactions first, to warm up the broker's JIT "
                             "(60; a fresh broker needs 40 s or more to get near its steady rate)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="windows per scenario; one-task exactly-once windows are interleaved with "
                             "baseline runs: B (R B) x rounds, the worker paused during the baseline runs (2)")
    parser.add_argument("--boundary", choices=BOUNDARIES, default="poll",
                        help="the connector's transaction.boundary: poll (one transaction per poll of 1000 "
                             "records) or interval (commit after the first poll once --interval-ms passed) "
                             "(poll)")
    parser.add_argument("--interval-ms", type=int, default=1000,
                        help="transaction.boundary.interval.ms with --boundary interval (1000)")
    parser.add_argument("--record-data", choices=(*RECORD_DATA, "both"), default="both",
                        help="VerifiableSource values of the one-task exactly-once runs: simple (the bare "
                             "seqno), complete (complete.record.data=true: a Struct {name, task, topic, time_ms, "
                             "seqno}) or both (both)")
    parser.add_argument("--tasks", type=int, default=os.cpu_count() or 1,
                        help="tasks in one worker for the scaling run (simple records, exactly once); 0 or 1 "
                             "skips it (the number of CPUs)")
    parser.add_argument("--at-least-once", action=argparse.BooleanOptionalAction, default=True,
                        help="also run the one simple task with exactly.once.source.support=disabled (yes)")
    parser.add_argument("--metrics-overhead", action=argparse.BooleanOptionalAction, default=True,
                        help="also compare the one simple exactly-once task with and without task metrics (yes)")
    add_bootstrap_argument(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0 or args.interval_ms <= 0 or args.tasks < 0:
        parser.error("--rounds must be >= 1, --seconds > 0, --interval-ms > 0 and --tasks >= 0")
    return args


def summary(results: dict[str, Any], tasks: int) -> dict[str, Any]:
    """The headline figures and the issue's targets from the scenario results (missing ones are None)."""
    one = results.get("one_task_simple") or results.get("one_task_complete")
    simple = results.get("one_task_simple")
    many = results.get("tasks_in_one_worker")
    alos = results.get("at_least_once_simple")
    out: dict[str, Any] = {
        "one_task_simple_records_per_s": simple["runtime_records_per_s"] if simple else None,
        "one_task_complete_records_per_s": (results["one_task_complete"]["runtime_records_per_s"]
                                            if "one_task_complete" in results else None),
        "ratio_to_baseline": one["ratio"] if one else None,
        "scaling": None, "scaling_target": None, "exactly_once_cost": None, "exactly_once_cost_target": 0.05,
        "metrics_overhead": results["metrics_overhead"]["overhead"] if "metrics_overhead" in results else None,
        "metrics_cpu_overhead": (results["metrics_overhead"]["cpu_overhead"] if "metrics_overhead" in results
                                 else None),
        "metrics_overhead_target": 0.02,
    }
    if many and simple and simple["runtime_records_per_s"] > 0:
        out["scaling"] = round(many["records_per_s"] / simple["runtime_records_per_s"], 2)
        out["scaling_target"] = round(0.8 * tasks, 2)
    if alos and simple and alos["records_per_s"] > 0:
        out["exactly_once_cost"] = round(1 - simple["runtime_records_per_s"] / alos["records_per_s"], 3)
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_logging()
    record_data = list(RECORD_DATA) if args.record_data == "both" else [args.record_data]

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-eos-") as tmp:
        workdir = Path(tmp)
        with broker(workdir, args.bootstrap) as kafka:
            bootstrap = kafka.bootstrap
            load_before = os.getloadavg()
            if args.broker_warmup > 0:
                log.info("bootstrap %s; warming up the broker for %.0f s", bootstrap, args.broker_warmup)
                run_baseline(bootstrap, args.broker_warmup, 0.0, BATCH_SIZE, record_data[0])
            for rd in record_data:
                results[f"one_task_{rd}"] = run_one_task_eos(bootstrap, workdir, args, rd)
            if args.tasks > 1:
                results["tasks_in_one_worker"] = run_runtime_only(bootstrap, workdir, args, args.tasks, True)
            if args.metrics_overhead:
                results["metrics_overhead"] = run_metrics_overhead(bootstrap, workdir, args)
            if args.at_least_once:
                results["at_least_once_simple"] = run_runtime_only(bootstrap, workdir, args, 1, False)
        load_after = os.getloadavg()

    warnings = [w for r in results.values() for w in r.get("warnings", [])]
    cpus = os.cpu_count() or 1
    peak_load = max(load_before[0], load_after[0])
    if peak_load > 2 * cpus + 1:
        warnings.append(f"1-minute load average reached {peak_load:.1f} on {cpus} CPUs (the benchmark itself "
                        "accounts for ~3-4 on 2 CPUs): other processes probably competed for the CPU")
    for w in warnings:
        log.warning("%s", w)
    print(json.dumps(build_output(args, results, warnings, kafka.local, bootstrap,
                                  [load_before[0], load_after[0]])))
    return 0


def build_output(args: argparse.Namespace, results: dict[str, Any], warnings: list[str], local: bool,
                 bootstrap: str, loadavg: list[float]) -> dict[str, Any]:
    """The one JSON object the script prints. The top-level runtime/baseline keys of earlier versions are
    kept and describe the first one-task exactly-once scenario (simple records unless only complete ran)."""
    first = results.get("one_task_simple") or results.get("one_task_complete") or {}
    return {
        "benchmark": "eos_throughput",
        "kafka": session_kafka_version() if local else "external",
        "bootstrap": "local" if local else bootstrap,
        "seconds": args.seconds,
        "warmup_seconds": args.warmup,
        "broker_warmup_seconds": args.broker_warmup,
        "boundary": args.boundary,
        "interval_ms": args.interval_ms if args.boundary == "interval" else None,
        "record_data": args.record_data,
        "batch_size": BATCH_SIZE,
        "rounds": args.rounds,
        "tasks": args.tasks,
        "runtime_records_per_s": first.get("runtime_records_per_s"),
        "baseline_records_per_s": first.get("baseline_records_per_s"),
        "ratio": first.get("ratio"),
        "target_ratio": 0.5,
        "summary": summary(results, args.tasks),
        "scenarios": results,
        "warnings": warnings,
        "loadavg_1m_before_after": [round(x, 2) for x in loadavg],
        "python": sys.version.split()[0],
        "cpus": os.cpu_count() or 1,
        "notes": NOTES,
    }


if __name__ == "__main__":
    sys.exit(main())
