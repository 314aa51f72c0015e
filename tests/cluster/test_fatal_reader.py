"""A worker whose internal topic is deleted for good exits non-zero with one line naming the topic,
instead of running blind."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from connect_runtime.testing.cluster import WorkerProcess

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]


def test_worker_exits_when_its_status_topic_is_deleted(kafka_bootstrap: str, tmp_path: Path) -> None:
    worker = WorkerProcess(kafka_bootstrap, tmp_path, f"fatal-{time.monotonic_ns()}",
                           extra={"session.timeout.ms": "4000", "heartbeat.interval.ms": "1000"})
    worker.start()
    try:
        worker.wait_ready()
        topic = worker.props["status.storage.topic"]
        admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
        admin.delete_topics([topic], operation_timeout=30)[topic].result(30)
        assert worker.proc is not None
        # The reader gives a restarting broker 30 s before it believes the topic is gone.
        code = worker.proc.wait(120)
        assert code == 1, worker.log_tail()
    finally:
        worker.kill()
    lines = [line for line in worker.log_path.read_text(errors="replace").splitlines()
             if "the worker cannot continue" in line]
    assert len(lines) == 1, worker.log_tail(80)
    assert f"Reader of topic {topic} failed" in lines[0] and " ERROR " in lines[0], lines[0]
