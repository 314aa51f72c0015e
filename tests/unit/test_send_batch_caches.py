"""The send loop's per-batch shortcuts change nothing a record ends up as (no broker: fakes only).

``_send_batch`` converts a key object once for a run of records sharing it when the key converter is
a JsonConverter (and the key immutable), checks a topic once per run of records to it, and keeps
the offsets key of the last source partition; these tests pin what must still happen per record.
"""

from __future__ import annotations

from typing import Any

import pytest
from task_loop_setup import ScriptedTask, schemaless_json, task_setup

from connect_runtime.api import SourceRecord
from connect_runtime.api.errors import ConnectException
from connect_runtime.storage import formats
from connect_runtime.testing.fakes import FakeProducer, FakeStatusListener
from connect_runtime.worker.exactly_once_source_task import (
    ConnectorBoundaryWorkerSourceTask,
    ExactlyOnceWorkerSourceTask,
)


class _CountingConverter:
    """Not a JsonConverter, and not a pure function: its output counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def from_connect_data(self, topic: str, value: Any) -> bytes | None:
        self.calls += 1
        return f"{value}#{self.calls}".encode()


def _eos(key_converter: Any) -> tuple[ExactlyOnceWorkerSourceTask, FakeProducer, FakeStatusListener]:
    statuses, producer = FakeStatusListener(), FakeProducer()
    setup = task_setup(ScriptedTask(), statuses=statuses, producer=producer, key_converter=key_converter,
                       value_converter=schemaless_json())
    return ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None), producer, statuses


def test_a_json_key_object_is_converted_once_per_run_and_mutable_keys_every_time() -> None:
    conv = schemaless_json()
    calls: list[str] = []
    convert = conv.from_connect_data

    def counting(topic: str, value: Any) -> bytes | None:
        calls.append(repr(value))
        return convert(topic, value)

    conv.from_connect_data = counting  # type: ignore[method-assign]
    task, producer, _ = _eos(conv)
    seven, mutable, other = 7, {"k": 1}, {"k": 3}
    records = [SourceRecord({"p": 0}, {"o": n}, "t", key=seven, value=n) for n in range(3)]
    records += [SourceRecord({"p": 0}, {"o": n}, "t", key=mutable, value=n) for n in (3, 4)]
    records.append(SourceRecord({"p": 0}, {"o": 5}, "t", key=other, value=5))
    task._send_batch(records)
    other["k"] = 2  # the same object, changed: its bytes must follow
    task._send_batch([SourceRecord({"p": 0}, {"o": 6}, "t", key=other, value=6),
                      SourceRecord({"p": 0}, {"o": 7}, "t", key=None, value=7)])
    assert [key for key, _ in producer.sent_to("t")] == [
        b"7", b"7", b"7", b'{"k":1}', b'{"k":1}', b'{"k":3}', b'{"k":2}', None]
    # once for the run of 7s; a dict (mutable) for every record, even the same object twice in a row
    assert calls == ["7", "{'k': 1}", "{'k': 1}", "{'k': 3}", "{'k': 2}", "None"]


def test_other_key_converters_are_called_for_every_record() -> None:
    conv = _CountingConverter()
    task, producer, _ = _eos(conv)
    task._send_batch([SourceRecord({"p": 0}, {"o": n}, "t", key=7, value=n) for n in range(3)])
    assert [key for key, _ in producer.sent_to("t")] == [b"7#1", b"7#2", b"7#3"]


def test_offsets_follow_each_record_across_partitions_and_batches() -> None:
    task, _, _ = _eos(schemaless_json())
    a, b = {"p": "a"}, {"p": "b"}
    task._send_batch([SourceRecord(a, {"o": 1}, "t", value=1), SourceRecord(b, {"o": 2}, "t", value=2),
                      SourceRecord(a, {"o": 3}, "t", value=3)])
    task._send_batch([SourceRecord({"p": "a"}, {"o": 4}, "t", value=4)])  # equal, not the same object
    assert task.pending_offsets == {formats.offset_key("c", a): {"o": 4}, formats.offset_key("c", b): {"o": 2}}


def test_the_offsets_topic_is_refused_after_other_topics_in_the_same_batch() -> None:
    task, producer, _ = _eos(schemaless_json())
    with pytest.raises(ConnectException, match="may not produce to their own offsets topics"):
        task._send_batch([SourceRecord(None, None, "t", value=1), SourceRecord(None, None, "offsets", value=2)])
    assert [topic for topic, _, _ in producer.produced] == ["t"]


def test_a_topic_written_again_after_a_mid_batch_abort_becomes_active() -> None:
    """The connector aborts at its first record; the batch's next record to the same topic is in the
    next transaction, whose commit makes the topic active (its check is made again after the abort)."""
    statuses, producer = FakeStatusListener(), FakeProducer()
    setup = task_setup(ScriptedTask(), statuses=statuses, producer=producer, value_converter=schemaless_json(),
                       key_converter=schemaless_json())
    task = ConnectorBoundaryWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    first = SourceRecord({"p": 0}, {"o": 1}, "t", value=1)
    task._context.abort_transaction(first)
    task._send_batch([first, SourceRecord({"p": 0}, {"o": 2}, "t", value=2)])
    assert statuses.used == []  # the aborted record alone made nothing active
    task._context.commit_transaction()
    task.batch_end(1)
    assert producer.events[-1] == "commit"
    assert statuses.used == ["t"]
