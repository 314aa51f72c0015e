"""Connector-defined transaction boundaries: how requests are matched and when they conflict."""

from __future__ import annotations

import pytest

from connect_runtime.api import SourceRecord
from connect_runtime.worker.transaction_context import IllegalTransactionRequest, WorkerTransactionContext


def _rec(seqno: int, partition: int | None = None) -> SourceRecord:
    return SourceRecord({"id": 0}, {"seqno": seqno}, "t", partition, 0, seqno)


def test_record_requests_match_by_identity_and_are_consumed() -> None:
    ctx = WorkerTransactionContext()
    a, twin = _rec(1), _rec(1)
    assert a == twin and a is not twin
    ctx.commit_transaction(a)
    assert ctx.has_record_requests
    assert not ctx.should_commit_on(twin), "an equal record is another record"
    assert not ctx.should_abort_on(a)
    assert ctx.should_commit_on(a)
    assert not ctx.should_commit_on(a), "a request is acted on once"
    assert not ctx.has_record_requests


def test_batch_requests_are_consumed() -> None:
    ctx = WorkerTransactionContext()
    assert not ctx.should_commit_batch() and not ctx.should_abort_batch()
    ctx.abort_transaction()
    assert not ctx.should_commit_batch()
    assert ctx.should_abort_batch()
    assert not ctx.should_abort_batch()
    ctx.commit_transaction()
    assert ctx.should_commit_batch()


def test_commit_and_abort_of_one_record_fail_with_the_reference_message() -> None:
    ctx = WorkerTransactionContext()
    r = _rec(5)
    ctx.commit_transaction(r)
    ctx.abort_transaction(r)
    with pytest.raises(IllegalTransactionRequest) as failed:
        ctx.should_abort_on(r)
    assert str(failed.value) == ("Connector requested both commit and abort of same record against "
                                 "topic/partition t/null")
    p = _rec(6, partition=3)
    ctx2 = WorkerTransactionContext()
    ctx2.abort_transaction(p)
    ctx2.commit_transaction(p)
    with pytest.raises(IllegalTransactionRequest) as failed:
        ctx2.should_commit_on(p)
    assert str(failed.value).endswith("topic/partition t/3")


def test_commit_and_abort_of_one_batch_fail() -> None:
    ctx = WorkerTransactionContext()
    ctx.commit_transaction()
    ctx.abort_transaction()
    with pytest.raises(IllegalTransactionRequest) as failed:
        ctx.should_abort_batch()
    assert str(failed.value) == "Connector requested both commit and abort of next transaction"
