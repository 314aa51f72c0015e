#!/usr/bin/env python3
"""CPU cost of the per-record path, without a broker: microseconds per record of

* ``convert``: ``JsonConverter.from_connect_data`` (schemas.enable=false) of a VerifiableSource value
  (``simple``: the seqno; ``complete``: the 5-field map) and of its key (the task id);
* ``send_batch``: an exactly-once task's ``_send_batch`` of 1000 such records, with real
  JsonConverters and a real confluent-kafka producer whose bootstrap is unreachable, so ``produce``
  only enqueues (the queue is purged now and then).

Run it on two checkouts alternately to compare them (the figures are only comparable on the same
machine in the same minute): ``python bench/send_loop.py`` from each tree's root. Prints one JSON
object; each figure is the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import timeit
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parent.parent
if str(_REPO) not in sys.path:  # measure this tree's code
    sys.path.insert(0, str(_REPO))

from confluent_kafka import Producer  # noqa: E402

from connect_runtime.api import SourceRecord, SourceTask  # noqa: E402
from connect_runtime.converters.json_converter import JsonConverter  # noqa: E402
from connect_runtime.types import ConnectorTaskId, TargetState  # noqa: E402
from connect_runtime.worker.exactly_once_source_task import ExactlyOnceWorkerSourceTask  # noqa: E402
from connect_runtime.worker.source_task_base import TaskSetup  # noqa: E402

BATCH = 1000
TOPIC = "bench-topic"


class _OffsetStore:
    topic = "offsets"
    has_connector_store = False

    def write_tombstones_first(self, entries: Mapping[bytes, Any]) -> None: ...

    def mirror(self, entries: Mapping[bytes, Any]) -> None: ...

    def stop(self) -> None: ...


class _Statuses:
    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        return {TOPIC: None}

    def on_topic_used(self, *args: Any) -> None: ...


class _Task(SourceTask):
    def start(self, props: Mapping[str, str]) -> None: ...

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None: ...

    def version(self) -> str:
        return "bench"


def _converter() -> JsonConverter:
    conv = JsonConverter()
    conv.configure({"schemas.enable": "false"})
    return conv


def _value(complete: bool, seqno: int) -> Any:
    if complete:
        return {"name": "bench-eos", "task": 0, "topic": TOPIC, "time_ms": 1764000000000, "seqno": seqno}
    return seqno


def _records(complete: bool, start: int) -> list[SourceRecord]:
    partition = {"id": 0}  # one object per task, as VerifiableSource does
    return [SourceRecord(partition, {"seqno": s}, TOPIC, None, 0, _value(complete, s))
            for s in range(start, start + BATCH)]


def _best(conv: JsonConverter, value: Any, number: int) -> float:
    """Seconds for ``number`` conversions of ``value`` (best of 5)."""
    return min(timeit.repeat(lambda: conv.from_connect_data(TOPIC, value), number=number, repeat=5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30, help="runs per figure; the best counts (30)")
    args = parser.parse_args()
    producer = Producer({"bootstrap.servers": "127.0.0.1:1", "queue.buffering.max.messages": 10_000_000,
                         "queue.buffering.max.kbytes": 2_000_000, "linger.ms": 100_000, "log_level": 0})
    setup = TaskSetup(task_id=ConnectorTaskId("bench", 0), task=_Task(), task_config={},
                      key_converter=_converter(), value_converter=_converter(), transformations=[],
                      producer=producer, offset_reader=None, offset_store=_OffsetStore(),  # type: ignore[arg-type]
                      status=_Statuses(), initial_state=TargetState.STARTED)  # type: ignore[arg-type]
    task = ExactlyOnceWorkerSourceTask(setup, fence=lambda: None, verify_generation=lambda: None)
    task._txn_open = True  # no transaction on an unreachable broker: produce only enqueues
    conv = _converter()
    result: dict[str, Any] = {"benchmark": "send_loop", "unit": "us/record", "batch": BATCH}
    for shape in ("simple", "complete"):
        complete = shape == "complete"
        value = _value(complete, 123456)
        number = 20_000
        convert = _best(conv, value, number)
        key = _best(conv, 0, number)
        times = []
        for run in range(args.repeat):
            records = _records(complete, run * BATCH)
            started = time.perf_counter()
            task._send_batch(records)
            times.append(time.perf_counter() - started)
            if run % 10 == 9:
                producer.purge(in_queue=True)
        result[shape] = {
            "convert_value": round(convert / number * 1e6, 3),
            "convert_key": round(key / number * 1e6, 3),
            "send_batch": round(min(times) / BATCH * 1e6, 3),
        }
    producer.purge(in_queue=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
