#!/usr/bin/env python3
"""The same exactly-once workload on Apache Kafka Connect itself, interleaved with ours: the ratio.

Two workers on one broker, each with its own group (internal topics) and one 1-task VerifiableSource
connector (``throughput=-1``, schemaless JsonConverter, exactly.once.source.support=enabled) writing to
its own 1-partition topic:

* *java*: Apache Kafka Connect :data:`CONNECT_REFERENCE_VERSION` (whatever the broker runs), ``java -cp ...
  org.apache.kafka.connect.cli.ConnectDistributed worker.properties``, running Kafka's own
  ``org.apache.kafka.connect.tools.VerifiableSourceConnector`` from ``org.apache.kafka:connect-test-plugins``.
  The jars are fetched once from Maven Central with ``mvn`` into the cache the broker's jars use (the
  broker's own classpath has no Connect jars). connect-test-plugins is not published for 4.1.x, so the
  newest published one, :data:`TEST_PLUGINS_VERSION`, is used (it needs only the public Connect API).
* *runtime*: our worker child process with our VerifiableSource.

Both are measured the same way as bench/eos_throughput.py (its ``RuntimeBench``): a window starts and
ends at a commit seen on the topic (its last stable offset moves); records = delta seqno of the last
committed record. Runs alternate, the other worker's connector paused: J R J R ... (``--rounds`` each).
CPU cores = CPU seconds of the worker process (and its children) / wall seconds.

Kafka's VerifiableSourceTask returns ONE record per ``poll()`` (and prints it to stdout, which goes to
/dev/null here); ours returns 1000. With ``transaction.boundary=poll`` Java therefore commits a
transaction per record: the default here is the interval boundary, where both commit about once per
``--interval-ms``.

Prints ONE JSON object on stdout; logs go to stderr.

    python bench/java_connect_throughput.py [--seconds 15] [--warmup 5] [--broker-warmup 60] [--jvm-warmup 30]
                                            [--rounds 2]
                                            [--boundary interval|poll] [--interval-ms 1000]
                                            [--record-data simple|complete|both] [--bootstrap HOST:PORT]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker children's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
import eos_throughput as eos
from _common import add_bootstrap_argument, broker, configure_logging

from connect_runtime.testing.java_connect import (
    CONNECT_REFERENCE_VERSION,
    TEST_PLUGINS_VERSION,
    JavaConnectWorker,
    ensure_connect_jars,
)
from connect_runtime.testing.local_kafka import session_kafka_version

log = logging.getLogger("bench.java_connect_throughput")

JAVA_CONNECTOR_CLASS = "org.apache.kafka.connect.tools.VerifiableSourceConnector"


def compare(java_windows: list[dict[str, Any]], runtime_windows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of the interleaved windows of both workers and runtime / java."""
    java = eos._mean([w["records_per_s"] for w in java_windows])
    ours = eos._mean([w["records_per_s"] for w in runtime_windows])
    return {
        "java_records_per_s": round(java, 1),
        "runtime_records_per_s": round(ours, 1),
        "ratio": round(ours / java, 3) if java > 0 else None,
        "java_cpu_cores": eos._mean_or_none([w["worker_cpu_cores"] for w in java_windows]),
        "runtime_cpu_cores": eos._mean_or_none([w["worker_cpu_cores"] for w in runtime_windows]),
        "java_records_per_transaction": round(eos.records_per_transaction(java_windows), 1),
        "runtime_records_per_transaction": round(eos.records_per_transaction(runtime_windows), 1),
        "java_windows": java_windows,
        "runtime_windows": runtime_windows,
    }


def run_pair(bootstrap: str, workdir: Path, libs: Path, args: argparse.Namespace, record_data: str) -> dict[str, Any]:
    """Both workers up; windows alternate J R J R ..., the idle worker's connector paused."""
    java = eos.RuntimeBench(bootstrap, workdir, args.boundary, args.interval_ms, record_data,
                            worker=lambda group: JavaConnectWorker(libs, bootstrap, workdir / f"java-{group}", group),
                            topic_prefix="bench-jvm")
    ours = eos.RuntimeBench(bootstrap, workdir, args.boundary, args.interval_ms, record_data)
    java_windows: list[dict[str, Any]] = []
    runtime_windows: list[dict[str, Any]] = []
    try:
        java.start(JAVA_CONNECTOR_CLASS)
        if args.jvm_warmup > 0:
            # A fresh JVM compiles its hot paths during the first tens of seconds of load; without this the
            # first Java window measures the JIT (our worker has no such phase).
            log.info("[%s] Java connector running %.0f s to warm up the JVM", record_data, args.jvm_warmup)
            time.sleep(args.jvm_warmup)
        java.pause()
        ours.start()
        ours.pause()
        for r in range(args.rounds):
            log.info("[%s] Java window %d/%d", record_data, r + 1, args.rounds)
            java_windows.append(java.measure(args.seconds, args.warmup))
            java.pause()
            log.info("[%s] runtime window %d/%d", record_data, r + 1, args.rounds)
            runtime_windows.append(ours.measure(args.seconds, args.warmup))
            ours.pause()
    finally:
        ours.stop()
        java.stop()
    return {"record_data": record_data, **compare(java_windows, runtime_windows)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0, help="measurement window of each run (15)")
    parser.add_argument("--warmup", type=float, default=5.0,
                        help="warm-up after each resume, before the window (5; the JVM's JIT needs it)")
    parser.add_argument("--broker-warmup", type=float, default=60.0,
                        help="seconds of discarded transactions first, to warm up the broker's JIT (60)")
    parser.add_argument("--jvm-warmup", type=float, default=30.0,
                        help="seconds the Java connector runs after the Java worker starts, before the first "
                             "window, so that the JVM's JIT has compiled the hot paths (30)")
    parser.add_argument("--rounds", type=int, default=2, help="windows of each worker, alternating (2)")
    parser.add_argument("--boundary", choices=eos.BOUNDARIES, default="interval",
                        help="transaction.boundary of both connectors (interval: Kafka's VerifiableSource "
                             "returns one record per poll, so poll means one record per transaction for Java)")
    parser.add_argument("--interval-ms", type=int, default=1000,
                        help="transaction.boundary.interval.ms with --boundary interval (1000)")
    parser.add_argument("--record-data", choices=(*eos.RECORD_DATA, "both"), default="both",
                        help="complete.record.data=false (simple), true (complete), or both in turn (both)")
    add_bootstrap_argument(parser)
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0 or args.interval_ms <= 0 or args.jvm_warmup < 0:
        parser.error("--rounds must be >= 1, --seconds > 0, --interval-ms > 0 and --jvm-warmup >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_logging()
    record_data = list(eos.RECORD_DATA) if args.record_data == "both" else [args.record_data]
    if args.boundary == "poll":
        log.warning("--boundary poll: Kafka's VerifiableSource commits one record per transaction, ours 1000")
    libs = ensure_connect_jars()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-java-connect-") as tmp:
        workdir = Path(tmp)
        with broker(workdir, args.bootstrap) as kafka:
            load_before = os.getloadavg()
            if args.broker_warmup > 0:
                log.info("warming up the broker for %.0f s", args.broker_warmup)
                eos.run_baseline(kafka.bootstrap, args.broker_warmup, 0.0, eos.BATCH_SIZE, record_data[0])
            for rd in record_data:
                results[rd] = run_pair(kafka.bootstrap, workdir, libs, args, rd)
        load_after = os.getloadavg()
    print(json.dumps(build_output(args, results, [load_before[0], load_after[0]], kafka.local)))
    return 0


def build_output(args: argparse.Namespace, results: dict[str, Any], loadavg: list[float],
                 local: bool) -> dict[str, Any]:
    """The one JSON object: per record data both figures and the ratio runtime / java."""
    return {
        "benchmark": "java_connect_throughput",
        "kafka": session_kafka_version() if local else "external",
        "connect_runtime_jars": CONNECT_REFERENCE_VERSION,
        "connect_test_plugins": TEST_PLUGINS_VERSION,
        "seconds": args.seconds,
        "warmup_seconds": args.warmup,
        "jvm_warmup_seconds": args.jvm_warmup,
        "rounds": args.rounds,
        "boundary": args.boundary,
        "interval_ms": args.interval_ms if args.boundary == "interval" else None,
        "ratios": {rd: r["ratio"] for rd, r in results.items()},
        "results": results,
        "loadavg_1m_before_after": [round(x, 2) for x in loadavg],
        "cpus": os.cpu_count() or 1,
        "python": sys.version.split()[0],
    }


if __name__ == "__main__":
    sys.exit(main())
