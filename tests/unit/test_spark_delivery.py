"""SlotDeliverer's row accounting without Kafka or Spark: a fake producer and Arrow batches."""

from __future__ import annotations

import json
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")

from connect_runtime.api import DataException, DelegatedDelivery  # noqa: E402
from connect_runtime.testing.fakes import FakeProducer  # noqa: E402
from connectors.spark.delivery import KEY, PATH, VALUE, DeliveryPlan, SlotDeliverer, SlotPlan  # noqa: E402

URI = "file:///data/a.csv"
DELIVERY = DelegatedDelivery("c", "g-c", {}, "offsets", {})


def _positions(producer: FakeProducer) -> list[dict[str, Any]]:
    return [json.loads(v) for _, v in producer.sent_to("offsets")]


def _batch(first: int, rows: int) -> Any:
    return pa.RecordBatch.from_pydict({
        KEY: pa.array([None] * rows, pa.binary()),
        VALUE: pa.array([str(i).encode() for i in range(first, first + rows)], pa.binary()),
        PATH: pa.array([URI] * rows, pa.string()),
    })


def _deliverer(committed: int) -> SlotDeliverer:
    slot = SlotPlan(3, {URI: (100, 1)}, {URI: committed})
    return SlotDeliverer(DeliveryPlan(DELIVERY, "out", 8, 1000, 1 << 20, {}, [slot]), slot)


def test_rows_below_the_committed_position_are_skipped_and_counted_once() -> None:
    producer = FakeProducer()
    # The committed position (4) lies beyond the first batch (rows 0-2) and inside the second (3-5).
    summary = _deliverer(4)._deliver(producer, {URI: 4}, iter([_batch(0, 3), _batch(3, 3)]))  # type: ignore[arg-type]
    assert [v for _, v in producer.sent_to("out")] == [b"4", b"5"]
    assert summary == {"slot": 3, "files": 1, "rows": 2, "skipped": 4, "transactions": 1, "seen": json.dumps({URI: 6})}


def test_an_executor_never_marks_a_file_complete() -> None:
    """Its input may have been cut off between two batches: only the driver's close() writes eof."""
    producer = FakeProducer()
    _deliverer(0)._deliver(producer, {}, iter([_batch(0, 3)]))  # type: ignore[arg-type]
    assert [(p["rows"], p["eof"]) for p in _positions(producer)] == [(3, False)]


def test_close_marks_every_file_complete_at_the_rows_seen() -> None:
    producer = FakeProducer()
    _deliverer(6)._close(producer, {URI: 6}, {URI: 6})  # type: ignore[arg-type]
    assert [(p["rows"], p["eof"]) for p in _positions(producer)] == [(6, True)]
    assert producer.events.count("commit") == 1


@pytest.mark.parametrize(("seen", "committed", "problem"), [(6, 4, "only 4 are committed"),
                                                            (3, 6, "rewritten or truncated")])
def test_close_refuses_counts_that_disagree_with_the_committed_position(seen: int, committed: int,
                                                                        problem: str) -> None:
    producer = FakeProducer()
    with pytest.raises(DataException, match=problem):
        _deliverer(committed)._close(producer, {URI: committed}, {URI: seen})  # type: ignore[arg-type]
    assert _positions(producer) == []
