#!/usr/bin/env python3
"""CSV files into Kafka with Spark: the exactly-once SparkSource connector vs. Spark's own Kafka sink.

One CSV data set (``--rows`` rows, columns ``id,name,amount,ts,category`` with a header line, ids
0..rows-1 spread over ``--files`` files) is written once into a temp dir, then loaded into a fresh
``--partitions``-partition topic per run by:

(a) *connector*: a ``connect-distributed`` worker child process (``exactly.once.source.support=enabled``)
    running ``SparkSource`` (``connectors.spark.SparkSourceConnector``, batch mode) with
    ``spark.master=local[*]``: its Spark executors write the rows exactly once;
(b) *spark sink*: a PySpark application in a child process doing
    ``spark.read.csv(dir).select(id as key, to_json(struct(*)) as value).write.format("kafka")``, at
    least once, with ``spark.master=local[*]`` and the ``spark-sql-kafka-0-10`` package (resolved once
    with Spark's Ivy from Maven Central into the cache dir, then used from there: offline afterwards);
(c) *cluster*: (a) with ``spark.master`` a local Spark standalone cluster of 1, then 2 workers (one
    core each).

Each run's time goes from the job's start (the connector create request, or the launch of the
PySpark application) until the topic's last stable offsets (read_committed end offsets, polled every
``POLL_S``) reach their final values; the topic is then read under read_committed and the ids counted:
(a) and (c) must hold every id exactly once, (b) reports duplicates. rows/s = rows / that time; the
ratios are a/b (target >= 0.5) and c2/c1. Both sides read the CSV without a schema (every column a
string) and key each record by its id.

Parts whose code is not there yet (the connector, the Spark cluster helper) are reported as skipped.

Prints ONE JSON object on stdout; logs go to stderr. The broker is ``--bootstrap``, else
``$KAFKA_BOOTSTRAP_SERVERS``, else a LocalKafka started in a temp dir (and stopped at the end).

    python bench/spark_ingest.py [--rows 2000000] [--files 4] [--partitions 4] [--only a,b,c]
                                 [--repeat 1] [--slots 4] [--bootstrap HOST:PORT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import random
import re
import statistics
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
from _common import add_bootstrap_argument, broker, configure_logging
from confluent_kafka import Consumer, IsolationLevel, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess
from connect_runtime.testing.local_kafka import default_cache_dir
from connect_runtime.testing.pytest_plugin import new_topic

log = logging.getLogger("bench.spark_ingest")

PARTS = ("a", "b", "c")
COLUMNS = ("id", "name", "amount", "ts", "category")
POLL_S = 0.05
"""How often the topic's last stable offsets are read while a job runs."""
SETTLE_S = 3.0
"""A connector run is checked (its records counted) once its LSOs have not moved for this long."""
TARGET_RATIO = 0.5
UNSTABLE_SPREAD = 1.3
"""Runs of one part whose max/min rate exceeds this make the result suspect (reported in ``warnings``)."""
KAFKA_PACKAGE = "org.apache.spark:spark-sql-kafka-0-10_{scala}"
PACKAGE_MARKER = "spark-sql-kafka.json"
"""In the Ivy dir: the package version resolved for a pyspark version (so later runs stay offline)."""

IVY_SETTINGS = """<ivysettings>
  <!-- Maven Central only: Spark's default chain also reads ~/.m2, where a POM without its jar
       (left by an earlier mvn run) makes the resolution fail. -->
  <settings defaultResolver="central"/>
  <resolvers>
    <ibiblio name="central" m2compatible="true"/>
  </resolvers>
</ivysettings>
"""

NOTES = (
    "Same CSV data for every run (header line, no schema: all columns strings), keyed by id, written to a "
    "fresh topic per run. Time: from the job's start (connector create request / PySpark app launch, so "
    "Spark's start-up is included on both sides) until the topic's read_committed end offsets reach their "
    "final values (polled every 50 ms); then the topic is read under read_committed and the ids counted. "
    "spark sink: Spark's Kafka sink with its default producer settings (kafka-clients defaults: acks=all, "
    "idempotence on, linger.ms 5), at least once. connector: SparkSource in a worker with exactly-once "
    "source support; its worker is started before the clock starts. Runs are sequential, on a shared "
    "machine: check loadavg."
)

FIRST_NAMES = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Margaret", "Ken", "Radia", "Dennis",
               "Frances", "John", "Sophie", "Linus", "Hedy", "Tim", "Karen", "Niklaus", "Shafi", "Leslie")
LAST_NAMES = ("Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Thompson",
              "Perlman", "Ritchie", "Allen", "McCarthy", "Wilson", "Torvalds", "Lamarr", "Berners-Lee",
              "Jones", "Wirth", "Goldwasser", "Lamport")
CATEGORIES = ("books", "electronics", "grocery", "toys", "garden", "clothing", "sports", "health",
              "home", "music")
TS_BASE = 1_767_225_600  # 2026-01-01T00:00:00Z


# -- data ------------------------------------------------------------------------------------------
def write_csv(data_dir: Path, rows: int, files: int, seed: int = 42) -> dict[str, Any]:
    """``files`` CSV files with a header line; file k holds a contiguous range of ids. Deterministic."""
    data_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    names = [f"{f} {n}" for f in FIRST_NAMES for n in LAST_NAMES]
    started = time.monotonic()
    per_file = -(-rows // files)
    total_bytes = 0
    for k in range(files):
        lo, hi = k * per_file, min(rows, (k + 1) * per_file)
        path = data_dir / f"part-{k:05d}.csv"
        with path.open("w", newline="") as fh:
            fh.write(",".join(COLUMNS) + "\n")
            lines = []
            for i in range(lo, hi):
                sec = TS_BASE + i * 7 + rng.randrange(7)
                ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec))
                lines.append(f"{i},{rng.choice(names)},{rng.randrange(1, 1_000_000) / 100:.2f},"
                             f"{ts}.{rng.randrange(1000):03d}Z,{rng.choice(CATEGORIES)}\n")
                if len(lines) >= 100_000:
                    fh.write("".join(lines))
                    lines.clear()
            fh.write("".join(lines))
        total_bytes += path.stat().st_size
    return {"rows": rows, "files": files, "bytes": total_bytes,
            "seconds_to_write": round(time.monotonic() - started, 2)}


# -- the topic -------------------------------------------------------------------------------------
def committed_end_offsets(admin: AdminClient, topic: str, partitions: int) -> list[int]:
    """Last stable offsets (read_committed end offsets) per partition."""
    req = {TopicPartition(topic, p): OffsetSpec.latest() for p in range(partitions)}
    res = admin.list_offsets(req, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=30)
    out = [0] * partitions
    for tp, fut in res.items():
        out[tp.partition] = int(fut.result().offset)
    return out


class OffsetWatch:
    """Polls a topic's last stable offsets; remembers when each new total was first seen."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.admin = AdminClient({"bootstrap.servers": bootstrap})
        self.topic = topic
        self.partitions = partitions
        self.total = 0
        self.first_seen: dict[int, float] = {0: time.monotonic()}
        self.first_nonzero: float | None = None
        self.changed_at = time.monotonic()

    def poll(self, retry_s: float = 0.0) -> int:
        """The current total; a failed read (e.g. a new topic's leaders not known everywhere yet) keeps
        the last total, unless it still fails after ``retry_s`` seconds of retries."""
        deadline = time.monotonic() + retry_s
        while True:
            try:
                total = sum(committed_end_offsets(self.admin, self.topic, self.partitions))
                break
            except KafkaException as e:
                if time.monotonic() >= deadline:
                    if retry_s:
                        raise
                    log.debug("reading the offsets of %s failed: %s", self.topic, e)
                    return self.total
                time.sleep(POLL_S)
        now = time.monotonic()
        if total != self.total:
            self.total = total
            self.changed_at = now
            self.first_seen.setdefault(total, now)
            if self.first_nonzero is None and total > 0:
                self.first_nonzero = now
        return total

    def reached(self, total: int) -> float:
        """Monotonic time ``total`` was first seen."""
        return self.first_seen[total]


def _record_id(key: bytes | None, value: bytes | None) -> int | None:
    """The row id of a record: its key as a bare number (Spark's sink), a JSON string or number, or a
    map with ``id`` (converters), else the value's ``id``; None when there is none."""
    if key is not None:
        try:
            return int(key)
        except ValueError:
            pass
        try:
            decoded = json.loads(key)
            if isinstance(decoded, dict):
                decoded = decoded.get("id")
            if decoded is not None:
                return int(decoded)
        except (ValueError, TypeError):
            pass
    if value is not None:
        try:
            decoded = json.loads(value)
            if isinstance(decoded, dict) and isinstance(decoded.get("payload"), dict):
                decoded = decoded["payload"]  # JsonConverter with schemas.enable=true
            if isinstance(decoded, dict) and decoded.get("id") is not None:
                return int(decoded["id"])
        except (ValueError, TypeError):
            pass
    return None


def count_ids(bootstrap: str, topic: str, partitions: int, rows: int, timeout_s: float = 600.0) -> dict[str, Any]:
    """Read every committed record of ``topic`` (to its current LSOs) and count ids 0..rows-1."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    ends = committed_end_offsets(admin, topic, partitions)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-spark-count-{uuid.uuid4().hex[:8]}",
                         "isolation.level": "read_committed", "enable.auto.commit": False,
                         "fetch.max.bytes": 64 * 1024 * 1024, "max.partition.fetch.bytes": 16 * 1024 * 1024})
    pending = {p for p in range(partitions) if ends[p] > 0}
    consumer.assign([TopicPartition(topic, p, 0) for p in pending])
    seen = bytearray(rows)
    records = duplicates = foreign = 0
    first_value: str | None = None
    started = time.monotonic()
    try:
        while pending:
            for m in consumer.consume(100_000, 0.5):
                if m.error() is not None:
                    continue
                p, off = m.partition(), m.offset()
                if p not in pending or off >= ends[p]:
                    continue
                records += 1
                if first_value is None:
                    raw = m.value()
                    first_value = raw.decode("utf-8", "replace") if raw is not None else None
                rid = _record_id(m.key(), m.value())
                if rid is None or not 0 <= rid < rows:
                    foreign += 1
                elif seen[rid]:
                    duplicates += 1
                else:
                    seen[rid] = 1
            for tp in consumer.position([TopicPartition(topic, p) for p in list(pending)]):
                if tp.offset >= ends[tp.partition]:
                    pending.discard(tp.partition)
            if time.monotonic() - started > timeout_s:
                raise RuntimeError(f"reading {topic} did not reach {ends} in {timeout_s:.0f} s")
    finally:
        consumer.close()
    distinct = rows - seen.count(0)
    return {"records": records, "distinct_ids": distinct, "duplicates": duplicates, "missing": rows - distinct,
            "foreign": foreign, "exactly_once": records == distinct == rows and foreign == 0,
            "committed_offsets": sum(ends), "seconds_to_count": round(time.monotonic() - started, 2),
            "sample_value": first_value}


def _delete_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until the future is done
    try:
        admin.delete_topics([topic], operation_timeout=30)[topic].result(30)
    except Exception as e:  # a leftover topic is no reason to lose the result
        log.warning("could not delete topic %s: %s", topic, e)


# -- (b) Spark's Kafka sink ------------------------------------------------------------------------
def ivy_dir() -> Path:
    """Spark's Ivy home for the Kafka package, beside the broker jars' cache."""
    return default_cache_dir().parent / "spark-ivy"


def _spark_version() -> str:
    import pyspark

    return str(pyspark.__version__)


def _scala_version() -> str:
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    found = sorted(jars.glob("spark-core_*.jar"))
    m = re.match(r"spark-core_(\d+\.\d+)-", found[0].name) if found else None
    return m.group(1) if m else "2.13"


def _spark_env() -> dict[str, str]:
    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": os.environ.get("SPARK_LOCAL_IP", "127.0.0.1")}


def _ivy_conf(ivy: Path) -> dict[str, str]:
    ivy.mkdir(parents=True, exist_ok=True)
    settings = ivy / "ivysettings.xml"
    if not settings.exists() or settings.read_text() != IVY_SETTINGS:
        settings.write_text(IVY_SETTINGS)
    return {"spark.jars.ivy": str(ivy), "spark.jars.ivySettings": str(settings)}


_RESOLVE_APP = """
import json, sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.master("local[1]").config(map=json.loads(sys.argv[1])).getOrCreate()
spark.stop()
"""


def _try_resolve(coordinate: str, ivy: Path) -> str | None:
    """Resolve ``coordinate`` with Spark's Ivy (a throwaway local session); the version found, or None."""
    conf = {**_ivy_conf(ivy), "spark.jars.packages": coordinate, "spark.ui.enabled": "false"}
    proc = subprocess.run([sys.executable, "-c", _RESOLVE_APP, json.dumps(conf)], env=_spark_env(),
                          capture_output=True, text=True, timeout=600, check=False)
    artifact = coordinate.rsplit(":", 1)[0].replace(":", "#")
    m = re.search(rf"found {re.escape(artifact)};(\S+)", proc.stderr)
    if proc.returncode != 0 or m is None:
        log.info("%s did not resolve (exit code %d)", coordinate, proc.returncode)
        return None
    return m.group(1)


def kafka_package(ivy: Path) -> dict[str, Any]:
    """The spark-sql-kafka package for the installed pyspark: the same version when it resolves, else
    the newest release of the same major version at or below it (per minor, newest first). Tried once
    per pyspark version; the choice is kept in the Ivy dir, so later runs resolve from the cache only."""
    spark_version = _spark_version()
    base = KAFKA_PACKAGE.format(scala=_scala_version())
    marker = ivy / PACKAGE_MARKER
    try:
        known = json.loads(marker.read_text())
    except (OSError, ValueError):
        known = {}
    if known.get("pyspark") == spark_version and known.get("package") == base and known.get("version"):
        version = str(known["version"])
    else:
        log.info("resolving %s for pyspark %s into %s (once)", base, spark_version, ivy)
        version = _try_resolve(f"{base}:{spark_version}", ivy)
        if version is None:
            major, minor = (int(x) for x in spark_version.split(".")[:2])
            for m in range(minor, -1, -1):
                found = _try_resolve(f"{base}:{major}.{m}.+", ivy)
                # Ivy ranks 4.2.0-preview5 below 4.2.0, but a minor with previews only would yield one.
                if found is not None and re.fullmatch(r"\d+\.\d+\.\d+", found):
                    version = found
                    break
        if version is None:
            raise RuntimeError(f"no {base} package of Spark {spark_version.split('.')[0]}.x resolves; "
                               f"see the Ivy output of a run of pyspark with spark.jars.packages={base}:"
                               f"{spark_version}")
        marker.write_text(json.dumps({"pyspark": spark_version, "package": base, "version": version}) + "\n")
    result: dict[str, Any] = {"coordinate": f"{base}:{version}", "version": version, "pyspark": spark_version,
                              "same_as_pyspark": version == spark_version}
    if version != spark_version:
        result["note"] = (f"{base}:{spark_version} is not on Maven Central; used {version}, the newest "
                          f"{spark_version.split('.')[0]}.x release at or below it that resolves")
    return result


def sink_app(argv: list[str]) -> int:
    """The PySpark application of (b); runs in a child process, prints its timestamps as JSON."""
    launched = time.time()
    cfg = json.loads(argv[0])
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import col, struct, to_json

    spark = (SparkSession.builder.master(cfg["master"]).appName("bench-spark-kafka-sink")
             .config(map=cfg["spark_conf"]).getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    ready = time.time()
    df = spark.read.option("header", "true").csv(cfg["path"])
    writer = (df.select(col("id").cast("string").alias("key"),
                        to_json(struct(*[col(c) for c in df.columns])).alias("value"))
              .write.format("kafka")
              .option("kafka.bootstrap.servers", cfg["bootstrap"]).option("topic", cfg["topic"]))
    for k, v in cfg.get("sink_options", {}).items():
        writer = writer.option(k, v)
    writer.save()
    written = time.time()
    partitions = df.rdd.getNumPartitions()
    spark.stop()
    print(json.dumps({"launched": launched, "session_ready": ready, "written": written,
                      "spark_partitions": partitions}), flush=True)
    return 0


def run_spark_sink(bootstrap: str, workdir: Path, data_dir: Path, rows: int, partitions: int,
                   package: dict[str, Any], sink_options: dict[str, str], keep_topic: bool) -> dict[str, Any]:
    topic = new_topic(bootstrap, f"bench-spark-sink-{uuid.uuid4().hex[:8]}", partitions)
    cfg = {"master": "local[*]", "path": str(data_dir), "bootstrap": bootstrap, "topic": topic,
           "sink_options": sink_options,
           "spark_conf": {**_ivy_conf(ivy_dir()), "spark.jars.packages": package["coordinate"],
                          "spark.ui.enabled": "false"}}
    log_path = workdir / f"spark-sink-{topic}.log"
    watch = OffsetWatch(bootstrap, topic, partitions)
    proc: subprocess.Popen[bytes] | None = None
    try:
        with log_path.open("wb") as err:
            t0_wall, t0 = time.time(), time.monotonic()
            proc = subprocess.Popen([sys.executable, __file__, "--sink-app", json.dumps(cfg)], env=_spark_env(),
                                    stdout=subprocess.PIPE, stderr=err)
            while proc.poll() is None:
                watch.poll()
                time.sleep(POLL_S)
            out = proc.stdout.read().decode() if proc.stdout is not None else ""
        if proc.returncode != 0:
            tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-40:])
            raise RuntimeError(f"the Spark Kafka sink app exited with {proc.returncode}:\n{tail}")
        final = watch.poll(retry_s=30)
        elapsed = watch.reached(final) - t0
        app = json.loads(out.strip().splitlines()[-1])
        counts = count_ids(bootstrap, topic, partitions, rows)
        if counts["missing"]:
            raise RuntimeError(f"the Spark Kafka sink lost {counts['missing']} rows: {counts}")
        result = {
            "rows_per_s": round(rows / elapsed, 1),
            "elapsed_s": round(elapsed, 2),
            "first_record_s": None if watch.first_nonzero is None else round(watch.first_nonzero - t0, 2),
            "session_start_s": round(app["session_ready"] - t0_wall, 2),
            "write_s": round(app["written"] - app["session_ready"], 2),
            "rows_per_s_write_only": round(rows / max(1e-9, app["written"] - app["session_ready"]), 1),
            "spark_partitions": app["spark_partitions"],
            **counts,
        }
        log.info("spark sink: %s", result)
        return result
    finally:
        if proc is not None and proc.poll() is None:  # this run failed: its app must not write on
            proc.kill()  # the app's JVM exits when its Python driver's pipe closes
            proc.wait(30)
        if not keep_topic:
            _delete_topic(bootstrap, topic)


# -- (a) and (c) the connector ---------------------------------------------------------------------
def connector_config(data_dir: Path, topic: str, master: str, slots: int) -> dict[str, str]:
    """The SparkSource connector's config for one run (the one place that knows its options)."""
    return {
        "connector.class": "SparkSource",
        "source.path": str(data_dir),
        "source.format": "csv",
        "source.options.header": "true",
        "topic": topic,
        "key.columns": "id",
        "tasks.max": "1",
        "spark.master": master,
        "mode": "batch",
        "spark.delivery.slots": str(slots),
    }


def connector_available() -> str | None:
    """None when the SparkSource connector can be imported, else why not."""
    if importlib.util.find_spec("connectors.spark") is None:
        return "connectors.spark (the SparkSource connector) is not in this tree yet"
    return None


def cluster_available() -> str | None:
    """None when the local Spark standalone cluster helper can be imported, else why not."""
    if importlib.util.find_spec("connect_runtime.testing.spark_cluster") is None:
        return "connect_runtime.testing.spark_cluster (LocalSparkCluster) is not in this tree yet"
    return None


def run_connector(bootstrap: str, workdir: Path, data_dir: Path, rows: int, partitions: int, master: str,
                  slots: int, keep_topic: bool, timeout_s: float) -> dict[str, Any]:
    """One worker child process, one SparkSource connector run until every row is committed."""
    suffix = uuid.uuid4().hex[:8]
    topic = new_topic(bootstrap, f"bench-spark-eos-{suffix}", partitions)
    worker = WorkerProcess(bootstrap, workdir / f"worker-{suffix}", f"bench-spark-{suffix}", eos="enabled")
    name = f"bench-spark-{suffix}"
    try:
        worker.start_ready(120)
        client = ConnectClient(worker.url)
        watch = OffsetWatch(bootstrap, topic, partitions)
        t0 = time.monotonic()
        client.create_connector(name, connector_config(data_dir, topic, master, slots))
        next_status = t0 + 2.0
        counted_at = -1  # the LSO total last counted: count again only after it moves
        while True:
            total = watch.poll()
            now = time.monotonic()
            if now >= next_status:
                _check_not_failed(client, name, worker)
                next_status = now + 2.0
            # The LSOs count commit markers too: >= rows is necessary, the ids tell.
            if total >= rows and total != counted_at and now - watch.changed_at >= SETTLE_S:
                counts = count_ids(bootstrap, topic, partitions, rows)
                counted_at = counts["committed_offsets"]
                if counts["distinct_ids"] >= rows or counts["duplicates"] or counts["foreign"]:
                    break
                log.info("%d of %d rows committed; waiting", counts["distinct_ids"], rows)
            if now - t0 > timeout_s:
                raise RuntimeError(f"not all {rows} rows committed after {timeout_s:.0f} s "
                                   f"(LSOs {total}); worker log:\n{worker.log_tail()}")
            time.sleep(POLL_S)
        final = counts["committed_offsets"]
        elapsed = watch.reached(final) - t0 if final in watch.first_seen else watch.changed_at - t0
        result = {
            "rows_per_s": round(rows / elapsed, 1),
            "elapsed_s": round(elapsed, 2),
            "first_record_s": None if watch.first_nonzero is None else round(watch.first_nonzero - t0, 2),
            "control_records": counts["committed_offsets"] - counts["records"],
            **counts,
        }
        if not counts["exactly_once"]:
            result["error"] = "not exactly once"
        log.info("connector (%s): %s", master, result)
        try:
            client.request("DELETE", f"/connectors/{name}")
        except Exception as e:
            log.warning("could not delete connector %s: %s", name, e)
        return result
    finally:
        worker.stop()
        if not keep_topic:
            _delete_topic(bootstrap, topic)


def _check_not_failed(client: ConnectClient, name: str, worker: WorkerProcess) -> None:
    try:
        st = client.status(name)
    except Exception:
        return  # not there yet, or a slow answer: the offsets tell progress
    failed = [s for s in [st["connector"], *st["tasks"]] if s.get("state") == "FAILED"]
    if failed:
        raise RuntimeError(f"{name} failed: {failed[0].get('trace', '')[-2000:]}\nworker log:\n{worker.log_tail()}")


def run_on_cluster(bootstrap: str, workdir: Path, data_dir: Path, rows: int, partitions: int, workers: int,
                   slots: int, keep_topic: bool, timeout_s: float) -> dict[str, Any]:
    """(c): the connector with ``spark.master`` a local standalone cluster of ``workers`` one-core workers."""
    from connect_runtime.testing.spark_cluster import LocalSparkCluster  # type: ignore[import-not-found]

    cluster = LocalSparkCluster(workdir / f"spark-cluster-{workers}-{uuid.uuid4().hex[:6]}", workers=workers,
                                cores_per_worker=1)
    cluster.start()
    try:
        result = run_connector(bootstrap, workdir, data_dir, rows, partitions, cluster.master_url, slots,
                               keep_topic, timeout_s)
        return {"workers": workers, "cores_per_worker": 1, **result}
    finally:
        cluster.stop()


# -- main ------------------------------------------------------------------------------------------
def _median_rate(runs: list[dict[str, Any]]) -> float | None:
    rates = [r["rows_per_s"] for r in runs if "rows_per_s" in r and "error" not in r]
    return round(statistics.median(rates), 1) if rates else None


def _ratio(num: float | None, den: float | None) -> float | None:
    return round(num / den, 3) if num and den else None


def _repeat(n: int, label: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    for i in range(n):
        log.info("%s: run %d/%d", label, i + 1, n)
        try:
            runs.append(run())
        except Exception as e:
            log.exception("%s failed", label)
            runs.append({"error": f"{type(e).__name__}: {e}"[:4000]})
    return {"rows_per_s": _median_rate(runs), "runs": runs}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--sink-app"]:
        return sink_app(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000, help="CSV rows (2000000)")
    parser.add_argument("--files", type=int, default=4, help="CSV files the rows are spread over (4)")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of each run's topic (4)")
    parser.add_argument("--only", default="a,b,c",
                        help="comma-separated parts to run: a (connector, local[*]), b (Spark's Kafka sink), "
                             "c (connector on a 1- and a 2-worker standalone cluster) (a,b,c)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each part; the median is reported (1)")
    parser.add_argument("--slots", type=int, default=4, help="the connector's spark.delivery.slots (4)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds a connector run may take (1800)")
    parser.add_argument("--sink-option", action="append", default=[], metavar="KEY=VALUE",
                        help="an extra option of Spark's Kafka sink, e.g. kafka.linger.ms=20 (repeatable)")
    parser.add_argument("--keep-topics", action="store_true", help="do not delete the topics after counting")
    add_bootstrap_argument(parser)
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    if not parts or any(p not in PARTS for p in parts):
        parser.error(f"--only takes a comma-separated subset of {','.join(PARTS)}")
    if args.rows < 1 or args.files < 1 or args.partitions < 1 or args.repeat < 1 or args.slots < 1:
        parser.error("--rows, --files, --partitions, --repeat and --slots must be >= 1")
    sink_options = {}
    for item in args.sink_option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            parser.error(f"--sink-option takes KEY=VALUE, not {item!r}")
        sink_options[key] = value
    configure_logging()

    results: dict[str, Any] = {}
    package: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
        workdir = Path(tmp)
        with broker(workdir, args.bootstrap) as kafka:
            bootstrap = kafka.bootstrap
            load_before = os.getloadavg()
            data_dir = workdir / "data"
            log.info("writing %d rows into %d CSV files", args.rows, args.files)
            data = write_csv(data_dir, args.rows, args.files)
            log.info("data: %s", data)
            common = (bootstrap, workdir, data_dir, args.rows, args.partitions)
            if "b" in parts:
                package = kafka_package(ivy_dir())
                log.info("Spark Kafka sink package: %s", package)
                results["b"] = _repeat(args.repeat, "spark sink", lambda: run_spark_sink(
                    *common, package, sink_options, args.keep_topics))
            if "a" in parts:
                why = connector_available()
                results["a"] = {"skipped": why} if why else _repeat(args.repeat, "connector local[*]", lambda: (
                    run_connector(*common, "local[*]", args.slots, args.keep_topics, args.timeout)))
            if "c" in parts:
                why = connector_available() or cluster_available()
                for n in (1, 2):
                    results[f"c{n}"] = {"skipped": why} if why else _repeat(
                        args.repeat, f"connector on {n} Spark workers", lambda n=n: run_on_cluster(
                            *common, n, args.slots, args.keep_topics, args.timeout))
        load_after = os.getloadavg()

    rate = {k: v.get("rows_per_s") for k, v in results.items()}
    warnings: list[str] = []
    cpus = os.cpu_count() or 1
    peak_load = max(load_before[0], load_after[0])
    if peak_load > 2 * cpus + 1:
        warnings.append(f"1-minute load average reached {peak_load:.1f} on {cpus} CPUs (the benchmark itself "
                        "accounts for ~3 on 2 CPUs): other processes probably competed for the CPU")
    for part, res in results.items():
        runs = [r["rows_per_s"] for r in res.get("runs", []) if "rows_per_s" in r]
        if len(runs) > 1 and max(runs) / min(runs) > UNSTABLE_SPREAD:
            warnings.append(f"runs of {part} differ by x{max(runs) / min(runs):.2f}: the machine was not steady")
        if any("error" in r for r in res.get("runs", [])):
            warnings.append(f"a run of {part} failed (see its error)")
    for w in warnings:
        log.warning("%s", w)
    out = {
        "benchmark": "spark_ingest",
        "kafka": kafka.version_label,
        "bootstrap": kafka.bootstrap_label,
        "data": data,
        "columns": list(COLUMNS),
        "partitions": args.partitions,
        "parts": parts,
        "repeat": args.repeat,
        "spark": _spark_version(),
        "spark_kafka_package": package,
        "sink_options": sink_options,
        "connector_slots": args.slots,
        "connector_rows_per_s": rate.get("a"),
        "spark_sink_rows_per_s": rate.get("b"),
        "cluster_1_worker_rows_per_s": rate.get("c1"),
        "cluster_2_workers_rows_per_s": rate.get("c2"),
        "ratio_a_b": _ratio(rate.get("a"), rate.get("b")),
        "target_ratio_a_b": TARGET_RATIO,
        "ratio_c2_c1": _ratio(rate.get("c2"), rate.get("c1")),
        "results": results,
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
