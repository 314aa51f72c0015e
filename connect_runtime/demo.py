"""``connect-runtime demo``: a local Kafka, one worker on ``worker.properties`` and an exactly-once
VerifiableSource connector, with a read_committed consumer showing what was delivered."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import httpx
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient

from connect_runtime.composition import LOG_FORMAT, ComposedWorker, distributed_worker, load_worker
from connect_runtime.storage import topics
from connect_runtime.testing.cluster import check_sequences, wait_until
from connect_runtime.testing.local_kafka import LocalKafka, port_in_use

CONNECTOR = "demo-verifiable"
TOPIC = "demo-verifiable"


def demo_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="connect-runtime demo")
    parser.add_argument("--config", default="worker.properties", help="worker properties (default: %(default)s)")
    parser.add_argument("--data-dir", default=".local-kafka", help="local Kafka data dir (default: %(default)s)")
    parser.add_argument("--port", type=int, default=9092, help="local Kafka port (default: %(default)s)")
    parser.add_argument("--duration", type=float, default=0, help="stop after N seconds (default: run until Ctrl-C)")
    parser.add_argument("--throughput", type=int, default=100, help="records/s per task (default: %(default)s)")
    args = parser.parse_args(argv)

    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    log_file = data_dir / "demo-worker.log"
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT, filename=str(log_file))

    kafka = LocalKafka(data_dir)
    print(f"Starting a local Apache Kafka (data in {data_dir}) ...", flush=True)
    status = kafka.status()
    if status.running and status.bootstrap:
        bootstrap = status.bootstrap
    else:
        # Reuse the data dir's port if it has one; else the requested port, or any free one.
        port = None if (data_dir / "ports.json").exists() or port_in_use(args.port) else args.port
        bootstrap = kafka.start(port)
    print(f"  bootstrap.servers={bootstrap}")
    composed = load_worker(args.config, [f"bootstrap.servers={bootstrap}"])
    try:
        return _run(args, composed, bootstrap, log_file)
    finally:
        composed.close()


def _run(args: argparse.Namespace, composed: ComposedWorker, bootstrap: str, log_file: Path) -> int:
    """Start the worker and the demo connector, and print what is committed until stopped."""
    config = composed.config
    ensure_topic(bootstrap)
    worker = distributed_worker(composed)
    print(f"Starting a worker from {args.config} (log: {log_file}) ...", flush=True)
    worker.start()
    if not worker.wait_ready(120):
        print("The worker did not become ready; see the log.", file=sys.stderr)
        worker.stop()
        return 1
    rest = config.advertised_url()
    r = httpx.put(f"{rest}/connectors/{CONNECTOR}/config", json=connector_config(args.throughput), timeout=60)
    if r.status_code >= 400:
        print(f"Creating the connector failed: {r.status_code} {r.text}", file=sys.stderr)
        worker.stop()
        return 1
    wait_until(lambda: _all_running(rest), 120, message="the demo connector to run")
    print(f"""
Exactly-once VerifiableSource '{CONNECTOR}' is running: 2 tasks, {args.throughput} records/s each.
  REST API:     curl {rest}/connectors/{CONNECTOR}/status
  Data topic:   {TOPIC} (read it with isolation.level=read_committed)
  Offsets:      {config.offset_storage_topic}, key ["{CONNECTOR}",{{"id":<task>}}]
Reading the topic read_committed (Ctrl-C to stop) ...""", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"demo-{uuid.uuid4()}",
                         "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
    consumer.subscribe([TOPIC])
    pairs: list[tuple[int, int]] = []
    started = time.monotonic()
    last_print = 0.0
    try:
        while not stop.is_set():
            for m in consumer.consume(1000, 0.5):
                key, value = m.key(), m.value()
                if m.error() is None and key is not None and value is not None:
                    pairs.append((int(json.loads(key)), int(json.loads(value))))
            now = time.monotonic()
            if now - last_print >= 2:
                last_print = now
                report = check_sequences(pairs)
                print(f"  {len(pairs)} committed records; per task max seqno {report.max_seqno}; "
                      f"duplicates={sum(len(v) for v in report.duplicates.values())} "
                      f"gaps={sum(len(v) for v in report.gaps.values())}", flush=True)
            if args.duration and now - started >= args.duration:
                break
    finally:
        consumer.close()
        print("Stopping the worker (the broker keeps running: connect-runtime local-kafka stop) ...")
        worker.stop()
    return 0


def _all_running(rest: str) -> bool:
    st = httpx.get(f"{rest}/connectors/{CONNECTOR}/status", timeout=5).json()
    return st["connector"]["state"] == "RUNNING" and len(st["tasks"]) == 2 and all(
        t["state"] == "RUNNING" for t in st["tasks"])


def connector_config(throughput: int) -> dict[str, str]:
    """The demo connector's config (the README's examples name it, and a test creates it so)."""
    return {"connector.class": "VerifiableSource", "topic": TOPIC, "tasks.max": "2",
            "throughput": str(throughput), "exactly.once.support": "required"}


def ensure_topic(bootstrap: str) -> None:
    """Create the demo connector's topic if it is missing (the local broker creates none by itself)."""
    topics.ensure_topic(AdminClient({"bootstrap.servers": bootstrap}), TOPIC, 1, 1, {})
