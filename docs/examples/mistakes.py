"""Common mistakes in source tasks, each next to its fix (run as a script: every assert holds)."""

from __future__ import annotations

import datetime
import json
import queue
import time

from connect_runtime.api import SourceRecord

PARTITION = {"file": "in.txt"}


# 1. One offset dict shared by every record: the runtime keeps each record's offset until it is
#    committed, so mutating it rewrites the offsets of records already returned.
def records_sharing_one_offset(lines: list[str]) -> list[SourceRecord]:  # wrong
    offset = {"line": 0}
    records = []
    for number, line in enumerate(lines, 1):
        offset["line"] = number
        records.append(SourceRecord(PARTITION, offset, "topic", value=line))
    return records


def records_with_their_own_offsets(lines: list[str]) -> list[SourceRecord]:  # right
    return [SourceRecord(PARTITION, {"line": number}, "topic", value=line)
            for number, line in enumerate(lines, 1)]


def offset_lines(records: list[SourceRecord]) -> list[int]:
    return [r.source_offset["line"] for r in records if r.source_offset is not None]


assert offset_lines(records_sharing_one_offset(["a", "b", "c"])) == [3, 3, 3]
assert offset_lines(records_with_their_own_offsets(["a", "b", "c"])) == [1, 2, 3]


# 2. Offsets that are not plain JSON: offsets are stored as JSON, so a datetime cannot be stored,
#    and a tuple comes back as a list. Store strings, numbers, booleans and None only.
def stored(offset: dict[str, object]) -> object:
    return json.loads(json.dumps(offset))


try:
    stored({"line": 3, "read_at": datetime.datetime.now(datetime.UTC)})  # wrong
    raise AssertionError("a datetime is not JSON")
except TypeError:
    pass
assert stored({"range": (3, 7)}) == {"range": [3, 7]}  # a tuple comes back as a list
assert stored({"line": 3, "read_at_ms": 1_700_000_000_000}) == {"line": 3, "read_at_ms": 1_700_000_000_000}


# 3. A poll() that blocks: the runtime checks for pause and stop only between two polls, so a poll
#    waiting for data without a timeout makes the task unstoppable. Wait briefly, then return None.
incoming: queue.Queue[str] = queue.Queue()


def poll_blocking() -> list[SourceRecord]:  # wrong: never returns while the source is quiet
    return [SourceRecord(PARTITION, {"line": 1}, "topic", value=incoming.get())]


def poll_returning_regularly() -> list[SourceRecord] | None:  # right
    try:
        line = incoming.get(timeout=0.5)
    except queue.Empty:
        return None
    return [SourceRecord(PARTITION, {"line": 1}, "topic", value=line)]


started = time.monotonic()
assert poll_returning_regularly() is None and time.monotonic() - started < 1.0
