"""Source tasks: where records are actually read from the external system."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

from connect_runtime.api.delegated_delivery import DelegatedDelivery
from connect_runtime.api.record import RecordMetadata, SourceRecord
from connect_runtime.api.storage import OffsetStorageReader
from connect_runtime.api.transaction import TransactionContext


class SourceTaskContext(ABC):
    """What the runtime gives a source task."""

    @property
    @abstractmethod
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""

    @property
    @abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Committed source offsets: read them in :meth:`SourceTask.start` to resume."""

    @property
    def transaction_context(self) -> TransactionContext | None:
        """Set only for connectors run with ``transaction.boundary=connector``."""
        return None

    @property
    def delegated_delivery(self) -> DelegatedDelivery | None:
        """For tasks whose records are written by other processes (see :class:`DelegatedDelivery`);
        None when the runtime cannot describe one."""
        return None


class SourceTask(ABC):
    """Base of source tasks. Each task runs on its own thread; ``poll`` is called in a loop.

    Under exactly-once support the records returned by one ``poll`` and their source offsets are
    committed atomically (per ``transaction.boundary``). Keep ``poll`` short (return None or ``[]``
    when there is nothing yet) so the runtime can commit, pause and stop promptly.
    """

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        """Called once before :meth:`start`; keeps the context on ``self.context``."""
        self.context = context

    @abstractmethod
    def version(self) -> str:
        """The task's version."""

    @abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with the task's configuration; read committed offsets here to resume."""

    @abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """Return the next batch of records, or None/[] when there is none right now."""

    def commit(self) -> None:
        """Called after the runtime has committed offsets (e.g. to acknowledge upstream)."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """Called for every record once its transaction or offset flush is done.

        ``metadata`` is None for records a transformation dropped and for records of an aborted
        transaction. Overriding this costs a delivery callback per record: leave it alone unless
        you need it.
        """

    def on_pause(self) -> None:
        """Called on the task's thread when its connector is paused, before the runtime stops calling
        :meth:`poll`. A task that works outside ``poll`` (a child process, a remote job) stops that
        work here; the default does nothing."""

    def on_resume(self) -> None:
        """Called on the task's thread when its paused connector is resumed, before ``poll`` is called
        again; the default does nothing."""

    @abstractmethod
    def stop(self) -> None:
        """Signal the task to stop; may be called from another thread while ``poll`` runs."""
