"""FileStreamSource on a real worker process and broker: lines appended while it runs land once each
(read_committed), and after SIGKILL the task resumes at the committed byte position with no duplicate
and no gap."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    read_committed,
    read_source_offset,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

CONNECTOR = "file-src"


def _lines(bootstrap: str, topic: str) -> list[str]:
    return [json.loads(v) for _, v in read_committed(bootstrap, topic) if v is not None]


def _stored_position(bootstrap: str, offsets_topic: str, path: Path) -> int | None:
    offset = read_source_offset(bootstrap, offsets_topic, CONNECTOR, {"filename": str(path)})
    return None if offset is None else int(offset["position"])


class _Appender(threading.Thread):
    """Appends numbered lines in small bursts until stopped (flushing each burst, as a logger does)."""

    def __init__(self, path: Path, start: int = 0) -> None:
        super().__init__(daemon=True)
        self.path, self.next = path, start
        self.halt = threading.Event()

    def run(self) -> None:
        with self.path.open("ab") as f:
            while not self.halt.wait(0.01):
                f.write(b"".join(b"line-%d\n" % i for i in range(self.next, self.next + 50)))
                f.flush()
                self.next += 50

    def finish(self) -> int:
        self.halt.set()
        self.join(10)
        return self.next


def test_lines_land_once_each_across_sigkill(kafka_bootstrap: str, tmp_path: Path,
                                             worker_factory: Callable[..., WorkerProcess]) -> None:
    topic = new_topic(kafka_bootstrap)
    path = tmp_path / "input.log"
    path.write_bytes(b"line-0\nline-1\n")
    worker = worker_factory(eos="enabled")
    worker.wait_ready()
    client = ConnectClient(worker.url)
    # The Java class name, so a config written for Apache Kafka Connect works unchanged.
    client.create_connector(CONNECTOR, {"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                                        "file": str(path), "topic": topic, "tasks.max": "3",
                                        "exactly.once.support": "required"})
    client.wait_running(CONNECTOR, 1)  # one task whatever tasks.max says
    wait_until(lambda: len(_lines(kafka_bootstrap, topic)) >= 2, 30, message="the file's first lines")

    appender = _Appender(path, start=2)
    appender.start()
    # Kill mid-stream, once appended lines are flowing through the running task.
    wait_until(lambda: len(_lines(kafka_bootstrap, topic)) > 500, 60, message="appended lines flowing")
    worker.kill()
    worker.start()
    worker.wait_ready()
    client.wait_running(CONNECTOR, 1)
    seen = len(_lines(kafka_bootstrap, topic))
    wait_until(lambda: len(_lines(kafka_bootstrap, topic)) > seen + 200, 60, message="lines after restart")
    total = appender.finish()

    expected = [f"line-{i}" for i in range(total)]
    wait_until(lambda: len(_lines(kafka_bootstrap, topic)) >= total, 60, message=f"all {total} lines")
    assert _lines(kafka_bootstrap, topic) == expected  # once each, in order: no duplicate, no gap
    # The committed offset is the byte position at the end of the file, in Java's shape.
    size = path.stat().st_size
    wait_until(lambda: _stored_position(kafka_bootstrap, worker.props["offset.storage.topic"], path) == size, 30,
               message="offset at the end of the file")
    assert worker.stop() == 0, worker.log_tail()
    client.close()
