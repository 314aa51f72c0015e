"""FileStreamSource's pure logic: line splitting, byte positions, batching, resuming, offsets checks,
exactly-once support and the names it answers to."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from connect_runtime.api import (
    ConnectException,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    freeze_partition,
)
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.testing import FakeTaskContext
from connectors.file import FileStreamSourceConnector, FileStreamSourceTask


def _task(path: Path, stored: dict[str, Any] | None = None, batch: int = 2000) -> FileStreamSourceTask:
    task = FileStreamSourceTask()
    task.initialize(FakeTaskContext(offsets=[({"filename": str(path)}, stored)] if stored else []))
    task.start({"file": str(path), "topic": "t", "batch.size": str(batch)})
    return task


def _drain(task: FileStreamSourceTask) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    while True:
        records = task.poll()
        if not records:
            return out
        for r in records:
            assert r.source_partition == {"filename": task._filename}
            assert r.key is None and r.topic == "t"
            assert r.source_offset is not None
            out.append((r.value, r.source_offset["position"]))


def test_lines_and_byte_positions(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes("a\nbb\r\nccc\rdé\npartial".encode())
    task = _task(path)
    # Each offset is the byte position just after the line's ending (é is two bytes).
    assert _drain(task) == [("a", 2), ("bb", 6), ("ccc", 10), ("dé", 14)]
    with path.open("ab") as f:
        f.write(b" line\n")
    assert _drain(task) == [("partial line", 27)]
    task.stop()


def test_lone_cr_at_end_waits_for_a_possible_lf(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"x\r")
    task = _task(path)
    assert _drain(task) == []
    with path.open("ab") as f:
        f.write(b"\ny\n")
    assert _drain(task) == [("x", 3), ("y", 5)]
    task.stop()


def test_resumes_at_committed_position(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"one\ntwo\nthree\n")
    task = _task(path, stored={"position": 4})
    assert _drain(task) == [("two", 8), ("three", 14)]
    task.stop()
    bad = _task(path, stored={"position": "4"})
    with pytest.raises(ConnectException, match="Offset position is the incorrect type"):
        bad.poll()


def test_batch_size_bounds_each_poll(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"".join(b"%d\n" % i for i in range(25)))
    task = _task(path, batch=10)
    sizes = []
    while records := task.poll():
        sizes.append(len(records))
    assert sizes == [10, 10, 5]
    task.stop()


def test_missing_file_is_waited_for_and_stop_is_prompt(tmp_path: Path) -> None:
    path = tmp_path / "later.txt"
    task = _task(path)
    assert task.poll() is None
    path.write_bytes(b"hello\n")
    assert _drain(task) == [("hello", 6)]
    # An idle poll waits for data, but stop() ends the wait at once.
    result: list[Any] = []
    poller = threading.Thread(target=lambda: result.append(task.poll()))
    poller.start()
    time.sleep(0.05)
    started = time.monotonic()
    task.stop()
    poller.join(5)
    assert not poller.is_alive() and time.monotonic() - started < 0.3
    assert result == [None]
    assert task.poll() is None


def test_exactly_once_support_and_one_task() -> None:
    c = FileStreamSourceConnector()
    assert c.exactly_once_support({"file": "/x", "topic": "t"}) is ExactlyOnceSupport.SUPPORTED
    assert c.exactly_once_support({"topic": "t"}) is ExactlyOnceSupport.UNSUPPORTED
    assert c.exactly_once_support({"file": "", "topic": "t"}) is ExactlyOnceSupport.UNSUPPORTED
    # Java's default: tasks cannot define transaction boundaries.
    assert c.can_define_transaction_boundaries({"file": "/x", "topic": "t"}) is \
        ConnectorTransactionBoundaries.UNSUPPORTED
    c.start({"file": "/x", "topic": "t"})
    assert c.task_configs(5) == [{"file": "/x", "topic": "t"}]


def test_validation_matches_java() -> None:
    errors = {v.name: v.errors for v in FileStreamSourceConnector().validate({"topic": ""})}
    assert errors["topic"] == ["Invalid value  for configuration topic: String must be non-empty"]
    assert errors["file"] == [] and errors["batch.size"] == []
    errors = {v.name: v.errors for v in FileStreamSourceConnector().validate({"batch.size": "x"})}
    assert errors["topic"] and errors["batch.size"]


@pytest.mark.parametrize("size", ["0", "-1"])
def test_a_batch_size_below_one_is_refused(size: str) -> None:
    """A batch of 0 lines never advances while the task reports RUNNING: refused at validation."""
    errors = {v.name: v.errors for v in FileStreamSourceConnector().validate({"topic": "t", "batch.size": size})}
    assert errors["batch.size"] == [f"Invalid value {size} for configuration batch.size: Value must be at least 1"]


def test_alter_offsets_checks_as_java() -> None:
    c = FileStreamSourceConnector()
    conf = {"file": "/x", "topic": "t"}
    part = freeze_partition({"filename": "/x"})
    assert c.alter_offsets(conf, {part: {"position": 10}, freeze_partition({"filename": "/old"}): None})
    with pytest.raises(ConnectException, match="stdin is used"):
        c.alter_offsets({"topic": "t"}, {part: {"position": 1}})
    with pytest.raises(ConnectException, match="contain the key 'position'"):
        c.alter_offsets(conf, {part: {"pos": 1}})
    with pytest.raises(ConnectException, match="expected to be a Long"):
        c.alter_offsets(conf, {part: {"position": "1"}})
    with pytest.raises(ConnectException, match="expected to be a Long"):
        c.alter_offsets(conf, {part: {"position": True}})
    with pytest.raises(ConnectException, match="non-negative"):
        c.alter_offsets(conf, {part: {"position": -1}})
    with pytest.raises(ConnectException, match="contain the key 'filename'"):
        c.alter_offsets(conf, {freeze_partition({"file": "/x"}): {"position": 1}})


@pytest.mark.parametrize("name", ["FileStreamSource", "FileStreamSourceConnector",
                                  "org.apache.kafka.connect.file.FileStreamSourceConnector",
                                  "connectors.file.FileStreamSourceConnector"])
def test_resolves_by_java_and_short_names(name: str) -> None:
    assert PluginRegistry().connector_class(name) is FileStreamSourceConnector


def test_task_class_resolves_by_java_name() -> None:
    assert PluginRegistry().task_class("org.apache.kafka.connect.file.FileStreamSourceTask") is FileStreamSourceTask


def test_standard_input_without_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from connectors.file import source

    read_end, write_end = os.pipe()
    monkeypatch.setattr(source, "_STDIN_FD", read_end)
    try:
        task = FileStreamSourceTask()
        task.initialize(FakeTaskContext())
        task.start({"topic": "t"})
        os.write(write_end, b"one\ntw")
        records = task.poll()
        assert records is not None
        # No offsets are tracked for standard input: Java's {"filename": null} / {"position": null}.
        assert [(r.value, r.source_partition, r.source_offset) for r in records] == [
            ("one", {"filename": None}, {"position": None})]
        os.write(write_end, b"o\n")
        assert [r.value for r in task.poll() or []] == ["two"]
        task.stop()
        os.fstat(read_end)  # standard input is not closed by stop()
    finally:
        os.close(read_end)
        os.close(write_end)
