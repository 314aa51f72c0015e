"""Loaded into a worker child process by ``bench/eos_breakdown.py``: times where a source task's thread
spends its time, and writes the running totals as JSON to ``$BENCH_TASK_TIMING_FILE`` every 0.2 s.

Only for benchmarks: it wraps methods of the task loop classes (one ``perf_counter`` pair per call, so per
poll, never per record). The totals, in seconds unless named otherwise:

* ``poll_s``: the plugin's ``poll`` (VerifiableSource), ``polls``: calls that returned records;
* ``send_s``: ``_send_batch`` (transforms, conversion and ``produce`` of a poll's records, and with
  exactly once the ``begin_transaction`` that opens the batch's transaction);
* ``batch_end_s``: ``batch_end`` (exactly once: the commit; at least once: the offsets flush when due);
* ``commit_transaction_s``: exactly once, the ``commit_transaction`` calls (the flush of the records
  and the EndTxn round trip), on the task's loop thread or on its commit thread;
* ``poll_ahead_s``: the part of ``batch_end_s`` spent in ``poll_ahead``, for a loop that polls its next
  batch while its commit runs on another thread (as commit a4e4868 did, reverted); 0 otherwise;
* ``flush_s``: at least once, ``producer.flush`` before offsets are written;
* ``records``: records handed to ``_send_batch``; ``loop_wall_s``: wall time since the first poll;
* ``commits``: ``commit_transaction`` calls; ``commit_durations_s``: the last 20,000 of their durations.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from connect_runtime.worker import at_least_once_source_task as alos
from connect_runtime.worker import exactly_once_source_task as eos
from connect_runtime.worker import source_task_base as base
from connectors.verifiable.connector import VerifiableSourceTask

F = TypeVar("F", bound=Callable[..., Any])

TOTALS: dict[str, float] = {"poll_s": 0.0, "polls": 0, "send_s": 0.0, "batch_end_s": 0.0,
                            "commit_transaction_s": 0.0, "poll_ahead_s": 0.0, "flush_s": 0.0,
                            "records": 0, "loop_wall_s": 0.0, "commits": 0}
_first_poll: list[float] = []
_lock = threading.Lock()


def _add(key: str, value: float) -> None:
    with _lock:
        TOTALS[key] += value


#: The last durations of commit_transaction calls (seconds), for percentiles.
COMMIT_DURATIONS: deque[float] = deque(maxlen=20000)


def _count_commit(took: float) -> None:
    with _lock:
        COMMIT_DURATIONS.append(took)
        TOTALS["commits"] += 1


def _timed(key: str, fn: F, then: Callable[[float], None] | None = None) -> F:
    """``fn`` adding its seconds per call to ``TOTALS[key]`` (and handing them to ``then``)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            took = time.perf_counter() - t0
            _add(key, took)
            if then is not None:
                then(took)

    return wrapper  # type: ignore[return-value]


def _install() -> None:
    poll = VerifiableSourceTask.poll

    def timed_poll(self: VerifiableSourceTask) -> Any:
        t0 = time.perf_counter()
        if not _first_poll:
            _first_poll.append(t0)
        records = poll(self)
        _add("poll_s", time.perf_counter() - t0)
        if records:
            _add("polls", 1)
            _add("records", len(records))
        return records

    VerifiableSourceTask.poll = timed_poll  # type: ignore[method-assign]
    base.WorkerSourceTask._send_batch = _timed("send_s", base.WorkerSourceTask._send_batch)  # type: ignore[method-assign]
    for cls in (eos.ExactlyOnceWorkerSourceTask, alos.AtLeastOnceWorkerSourceTask):
        cls.batch_end = _timed("batch_end_s", cls.batch_end)  # type: ignore[method-assign]
    eos.commit_transaction = _timed("commit_transaction_s", eos.commit_transaction, _count_commit)  # type: ignore[attr-defined]
    poll_ahead = getattr(base.WorkerSourceTask, "poll_ahead", None)
    if poll_ahead is not None:  # a loop that polls inside batch_end while its commit runs elsewhere
        base.WorkerSourceTask.poll_ahead = _timed("poll_ahead_s", poll_ahead)  # type: ignore[method-assign]
    flush_offsets = alos.AtLeastOnceWorkerSourceTask._flush_offsets

    def timed_flush_offsets(self: alos.AtLeastOnceWorkerSourceTask) -> None:
        flush = self.producer.flush

        def timed_flush(*args: Any) -> int:
            t0 = time.perf_counter()
            try:
                return flush(*args)
            finally:
                _add("flush_s", time.perf_counter() - t0)

        producer = self.producer
        self.producer = _FlushProxy(producer, timed_flush)  # type: ignore[assignment]
        try:
            flush_offsets(self)
        finally:
            self.producer = producer

    alos.AtLeastOnceWorkerSourceTask._flush_offsets = timed_flush_offsets  # type: ignore[method-assign]


class _FlushProxy:
    """The producer with a timed ``flush`` (confluent-kafka's Producer methods cannot be replaced)."""

    def __init__(self, producer: Any, flush: Callable[..., int]) -> None:
        self._producer = producer
        self.flush = flush

    def __getattr__(self, name: str) -> Any:
        return getattr(self._producer, name)


def _writer(path: Path) -> None:
    while True:
        time.sleep(0.2)
        with _lock:
            snapshot: dict[str, Any] = dict(TOTALS)
            snapshot["commit_durations_s"] = list(COMMIT_DURATIONS)
        if _first_poll:
            snapshot["loop_wall_s"] = time.perf_counter() - _first_poll[0]
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(snapshot))
        tmp.replace(path)


_install()
threading.Thread(target=_writer, args=(Path(os.environ["BENCH_TASK_TIMING_FILE"]),), name="task-timing",
                 daemon=True).start()
