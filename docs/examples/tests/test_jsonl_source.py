"""Tests of JsonLinesSource: a unit test of the task, and two against a real broker and real workers.

``jsonl_source`` must be importable: installed (``pip install -e .``), or its directory on
``sys.path`` (pytest's ``pythonpath`` setting).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pytest
from jsonl_source import JsonLinesSourceConnector, JsonLinesSourceTask

from connect_runtime.api import ConnectException, OffsetStorageReader, SourceTaskContext, freeze_partition
from connect_runtime.testing import (
    ConnectClient,
    ConnectRestError,
    WorkerGroup,
    WorkerProcess,
    check_sequences,
    new_topic,
    plugin_path,
    read_source_offsets,
    read_transactions,
    wait_for_records,
)

#: The directory holding jsonl_source.py: the workers' plugin.path.
PLUGINS = Path(__file__).resolve().parent.parent / "plugins"
HERE = Path(__file__).resolve().parent


class Offsets(OffsetStorageReader):
    """Committed offsets for a unit test: {source partition (frozen): offset}."""

    def __init__(self, committed: Mapping[Any, dict[str, Any]]) -> None:
        self.committed = committed

    def offsets(self, partitions: Collection[Mapping[str, Any]]) -> dict[Any, dict[str, Any] | None]:
        return {freeze_partition(p): self.committed.get(freeze_partition(p)) for p in partitions}


class Context(SourceTaskContext):
    """A task context without a worker."""

    def __init__(self, configs: Mapping[str, str], reader: OffsetStorageReader) -> None:
        self._configs, self._reader = configs, reader

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        return self._reader


def write_lines(path: Path, numbers: range) -> None:
    with path.open("a") as f:
        f.writelines(json.dumps({"n": n}) + "\n" for n in numbers)


def by_line(record: tuple[bytes | None, bytes | None]) -> tuple[str, int]:
    """check_sequences' key: (stream, number) of a record, here from the value {"n": ...}."""
    assert record[1] is not None
    return "in.jsonl", json.loads(record[1])["n"]


def test_task_resumes_after_the_committed_offset(tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    write_lines(data, range(3))
    props = {"file": str(data), "topic": "lines"}

    first = JsonLinesSourceTask()
    first.initialize(Context(props, Offsets({})))
    first.start(props)
    records = first.poll() or []
    first.stop()
    assert [r.value for r in records] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert records[-1].source_offset == {"position": data.stat().st_size, "line": 3}

    # A new instance that finds line 2's offset committed starts with line 3.
    write_lines(data, range(3, 4))
    second = JsonLinesSourceTask()
    second.initialize(Context(props, Offsets({freeze_partition({"file": str(data)}): records[1].source_offset})))
    second.start(props)
    assert [r.value for r in second.poll() or []] == [{"n": 2}, {"n": 3}]
    second.stop()


def test_config_errors() -> None:
    results = JsonLinesSourceConnector().validate({"file": "in.jsonl", "topic": "t", "batch.size": "0"})
    errors = {value.name: value.errors for value in results if value.errors}
    assert errors == {
        "file": ["Invalid value in.jsonl for configuration file: Must be an absolute path"],
        "batch.size": ["Invalid value 0 for configuration batch.size: Value must be at least 1"],
    }


def test_alter_offsets_refuses_what_the_task_cannot_use() -> None:
    connector = JsonLinesSourceConnector()
    partition = freeze_partition({"file": "/data/in.jsonl"})
    assert connector.alter_offsets({}, {partition: {"position": 120, "line": 3}}) is True
    assert connector.alter_offsets({}, {partition: None}) is True  # a reset
    with pytest.raises(ConnectException, match="Unknown source partition"):
        connector.alter_offsets({}, {freeze_partition({"path": "/data/in.jsonl"}): None})
    with pytest.raises(ConnectException, match="needs integer 'position' and 'line'"):
        connector.alter_offsets({}, {partition: {"position": "120"}})


@pytest.mark.kafka
@pytest.mark.connect_worker(extra=plugin_path(PLUGINS))
def test_copies_the_file_in_transactions(connect_worker: WorkerProcess, connect_client: ConnectClient,
                                         kafka_bootstrap: str, tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    write_lines(data, range(260))  # not a multiple of 50: a tail of 10
    topic = new_topic(kafka_bootstrap, partitions=1)
    config = {"connector.class": "JsonLinesSource", "file": str(data), "topic": topic,
              "exactly.once.support": "required", "transaction.boundary": "connector",
              "lines.per.transaction": "50"}

    # Validation wants the whole create request's config, name included.
    assert connect_client.validation_errors(config) == {
        "name": ['Missing required configuration "name" which has no default value.']}
    # A bad value: validation names it, and creating the connector is refused with 400.
    bad = {**config, "name": "lines", "batch.size": "0"}
    assert connect_client.validation_errors(bad) == {
        "batch.size": ["Invalid value 0 for configuration batch.size: Value must be at least 1"]}
    with pytest.raises(ConnectRestError) as refused:
        connect_client.create_connector("lines", bad)
    assert refused.value.response.json() == json.loads((HERE / "create-invalid.json").read_text())

    connect_client.create_connector("lines", config)
    records = wait_for_records(kafka_bootstrap, topic, 260)
    report = check_sequences(records, key=by_line)
    assert report.exactly_once and report.counts == {"in.jsonl": 260}, report.summary()
    # The committed offset is where the file ends (in the offsets topic, and as the REST API shows it);
    # each transaction holds 50 lines, and the tail is committed once the task has read to the end.
    committed = [{"partition": {"file": str(data)}, "offset": {"position": data.stat().st_size, "line": 260}}]
    assert read_source_offsets(kafka_bootstrap, connect_worker.props["offset.storage.topic"], "lines") == committed
    assert connect_client.offsets("lines") == committed
    transactions = read_transactions(kafka_bootstrap, topic)
    assert [len(t) for t in transactions.committed_transactions] == [50] * 5 + [10], transactions.summary()


@pytest.mark.kafka
def test_exactly_once_through_a_worker_crash(connect_cluster: WorkerGroup, kafka_bootstrap: str,
                                             tmp_path: Path) -> None:
    lines = 20_000
    data = tmp_path / "in.jsonl"
    data.touch()
    topic = new_topic(kafka_bootstrap, partitions=1)
    worker = connect_cluster(extra=plugin_path(PLUGINS), ready=True)
    connect_cluster.client(worker).create_connector(
        "lines", {"connector.class": "JsonLinesSource", "file": str(data), "topic": topic, "batch.size": "100"})

    def append() -> None:  # the file keeps growing, about 10,000 lines a second
        for start in range(0, lines, 200):
            write_lines(data, range(start, start + 200))
            time.sleep(0.02)

    writer = threading.Thread(target=append)
    writer.start()
    try:
        before = wait_for_records(kafka_bootstrap, topic, 3000)
        worker.kill()  # SIGKILL mid-stream: no final commit, an open transaction left behind
        assert len(before) < lines
        worker.start()
        worker.wait_ready()
    finally:
        writer.join()
    report = check_sequences(wait_for_records(kafka_bootstrap, topic, lines), key=by_line)
    assert report.exactly_once and report.counts == {"in.jsonl": lines}, report.summary()
