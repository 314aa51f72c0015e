"""Check that numbered records arrived exactly once: no duplicate, no gap.

A source that numbers its records per stream (a task, a file, a source partition) lets a test prove
exactly-once delivery from the topic alone: :func:`check_sequences` groups the records by stream
with a key function and reports, per stream, duplicated and missing numbers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

R = TypeVar("R")

Record = tuple[bytes | None, bytes | None]


@dataclass
class SequenceReport:
    """Per stream: how many records, the highest number, and the duplicated and missing numbers."""

    #: Records seen per stream.
    counts: dict[Any, int] = field(default_factory=dict)
    #: Highest number seen per stream.
    max_seqno: dict[Any, int] = field(default_factory=dict)
    #: Numbers seen more than once per stream, ascending.
    duplicates: dict[Any, list[int]] = field(default_factory=dict)
    #: Numbers from the first expected one (see ``first`` of :func:`check_sequences`) up to the highest
    #: that never arrived, per stream.
    gaps: dict[Any, list[int]] = field(default_factory=dict)

    @property
    def exactly_once(self) -> bool:
        """At least one record, and no stream has a duplicate or a gap."""
        return bool(self.counts) and not any(self.duplicates.values()) and not any(self.gaps.values())

    def summary(self) -> str:
        """One line for an assertion message (duplicates and gaps as counts per stream)."""
        dup = {t: len(v) for t, v in self.duplicates.items() if v}
        gap = {t: len(v) for t, v in self.gaps.items() if v}
        return f"counts={self.counts} max={self.max_seqno} duplicated={dup} missing={gap}"


def check_sequences(records: Iterable[R], key: Callable[[R], tuple[Hashable, int]] | None = None,
                    first: int | None = 0) -> SequenceReport:
    """Report duplicates and gaps in ``first..max`` of every stream.

    ``key`` maps a record to ``(stream, number)``; without it the records are such pairs already, e.g.
    ``check_sequences(read_committed(bootstrap, topic), key=verifiable_key)`` or
    ``check_sequences(lines, key=lambda line: ("file", int(line.split("-")[1])))``.

    ``first`` is the number every stream starts at (0 by default, as VerifiableSource's do): numbers
    below it that never arrived count as gaps. ``first=None`` takes each stream's lowest number seen
    as its start, for sources that number from elsewhere (a file's line numbers, an upstream id); it
    then cannot notice records lost before the first one that arrived.
    """
    seen: dict[Hashable, dict[int, int]] = {}
    for record in records:
        stream, seq = key(record) if key is not None else record  # type: ignore[misc]
        per = seen.setdefault(stream, {})
        per[seq] = per.get(seq, 0) + 1
    report = SequenceReport()
    try:
        streams = sorted(seen.items())
    except TypeError:  # streams of mixed types: any stable order will do
        streams = sorted(seen.items(), key=lambda item: repr(item[0]))
    for stream, per in streams:
        top = max(per)
        report.counts[stream] = sum(per.values())
        report.max_seqno[stream] = top
        report.duplicates[stream] = sorted(s for s, n in per.items() if n > 1)
        start = min(per) if first is None else first
        report.gaps[stream] = [s for s in range(start, top + 1) if s not in per]
    return report


def verifiable_key(record: Record) -> tuple[int, int]:
    """``(task, seqno)`` of one VerifiableSource record written with the schemaless JsonConverter:
    the key function for :func:`check_sequences` on VerifiableSource output."""
    key, value = record
    assert key is not None and value is not None, f"a VerifiableSource record has a key and a value: {record!r}"
    v = json.loads(value)
    seq = v["seqno"] if isinstance(v, dict) else v
    return int(json.loads(key)), int(seq)


def verifiable_pairs(records: Iterable[Record]) -> list[tuple[int, int]]:
    """``(task, seqno)`` of every VerifiableSource record (see :func:`verifiable_key`)."""
    return [verifiable_key(r) for r in records]
