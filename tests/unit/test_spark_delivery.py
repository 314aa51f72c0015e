"""SlotDeliverer's row accounting without Kafka or Spark: a fake producer and Arrow batches."""

from __future__ import annotations

from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")

from connect_runtime.api import DelegatedDelivery  # noqa: E402
from connectors.spark.delivery import KEY, PATH, VALUE, DeliveryPlan, SlotDeliverer, SlotPlan  # noqa: E402

URI = "file:///data/a.csv"


class FakeProducer:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.commits = 0

    def produce(self, topic: str, value: Any, key: Any = None) -> None:
        self.sent.append((topic, value))

    def poll(self, timeout: float = 0) -> int:
        return 0

    def begin_transaction(self) -> None:
        pass

    def commit_transaction(self, timeout: float = 0) -> None:
        self.commits += 1


def _batch(first: int, rows: int) -> Any:
    return pa.RecordBatch.from_pydict({
        KEY: pa.array([None] * rows, pa.binary()),
        VALUE: pa.array([str(i).encode() for i in range(first, first + rows)], pa.binary()),
        PATH: pa.array([URI] * rows, pa.string()),
    })


def test_rows_below_the_committed_position_are_skipped_and_counted_once() -> None:
    delivery = DelegatedDelivery("c", "g-c", {}, "offsets", {})
    slot = SlotPlan(3, {URI: (100, 1)}, {URI: 4})
    plan = DeliveryPlan(delivery, "out", 8, 1000, 1 << 20, {}, [slot])
    producer = FakeProducer()
    # The committed position (4) lies beyond the first batch (rows 0-2) and inside the second (3-5).
    summary = SlotDeliverer(plan, slot)._deliver(producer, {URI: 4}, iter([_batch(0, 3), _batch(3, 3)]))  # type: ignore[arg-type]
    assert [v for t, v in producer.sent if t == "out"] == [b"4", b"5"]
    assert summary == {"slot": 3, "files": 1, "rows": 2, "skipped": 4, "transactions": 1}
