"""Connector-defined transaction boundaries (``transaction.boundary=connector``)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from connect_runtime.api.record import SourceRecord


class TransactionContext(ABC):
    """Lets a task commit or abort the current transaction.

    Only given to tasks of connectors configured with ``transaction.boundary=connector`` (otherwise
    ``SourceTaskContext.transaction_context`` is None). Requests apply after the current batch, or
    right after a given record has been sent. Asking to commit and abort at the same point fails the
    task. An aborted transaction's records are discarded, but their offsets are still committed.
    """

    @abstractmethod
    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        """Commit after the current batch, or right after ``record`` when given."""

    @abstractmethod
    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        """Abort after the current batch, or right after ``record`` when given."""
