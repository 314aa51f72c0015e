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
    """Base of source tasks: reads records from the external system for the runtime to write to Kafka.

    **Lifecycle** (Kafka Connect's since Kafka 2.8, KAFKA-10792). The runtime creates one instance per
    task start and calls, in this order: :meth:`initialize`, :meth:`start`, then :meth:`poll` in a loop
    (with :meth:`commit`, :meth:`commit_record`, :meth:`on_pause` and :meth:`on_resume` between two
    polls), and finally :meth:`stop`, exactly once, after the last ``poll`` has returned. ``stop`` is
    called only if ``start`` returned: a ``start`` that raises must release what it took itself. A task
    whose ``poll`` raises is stopped the same way (once, after that ``poll``) and then reported FAILED.
    A restarted or moved task is a new instance; an instance is never started twice.

    **Threading.** Each task runs on a thread of its own, and every one of these methods is called on
    that thread, never concurrently with another: a task needs no locks for its own state, and may close
    its clients in ``stop`` without racing a ``poll``. Threads the task starts itself (a reader, a client
    library's callbacks) should hand their results to ``poll`` (through a queue, say) rather than use
    the context or its transaction context themselves.

    **Stopping.** A stop (connector deleted or stopped, task revoked or restarted, worker shutting down)
    only sets a flag the runtime checks between two polls; it never interrupts a running ``poll``. So
    ``poll`` must return regularly, within a second or so, with None or ``[]`` when there is nothing
    yet (wait with a timeout, never block without one). A ``poll`` that has not returned when
    ``task.shutdown.graceful.timeout.ms`` (5 s by default) is over gets its task cancelled: the runtime
    kills the task's process (each task runs in a process of its own), with no final commit and no
    ``stop``; a new instance may start meanwhile and fences what the killed one left open.

    Under exactly-once support the records returned by one ``poll`` and their source offsets are
    committed atomically (per ``transaction.boundary``).
    """

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        """Called once, on the task's thread, before :meth:`start`; keeps the context on ``self.context``."""
        self.context = context

    @abstractmethod
    def version(self) -> str:
        """The task's version."""

    @abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with the task's configuration; read committed offsets here to resume.

        Called once, on the task's thread. If it raises, the task is FAILED and :meth:`stop` is not
        called: release anything taken before raising. A stop requested meanwhile is seen only once it
        returns, so keep it short (connect, read offsets; no long waits).
        """

    @abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """Return the next batch of records, or None/[] when there is none right now.

        Called in a loop on the task's thread. Return regularly, within a second or so, even when there
        is no data: the runtime checks for pause and stop requests only between two polls (see the
        class docstring). Raise :class:`~connect_runtime.api.RetriableException` to be polled again;
        anything else fails the task (after :meth:`stop`).
        """

    def commit(self) -> None:
        """Called on the task's thread after the runtime has committed offsets (e.g. to acknowledge
        upstream)."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """Called on the task's thread for every record once its transaction or offset flush is done.

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
        """Release what :meth:`start` took (close clients, end child processes).

        Called exactly once per started instance, on the task's thread, after the last :meth:`poll`
        returned and the final offsets commit (if any) was made; never while ``poll`` runs, and not at
        all if ``start`` raised. Unlike Java's documentation of ``SourceTask.stop()`` (older than
        KAFKA-10792), it is not a signal from another thread: nothing can interrupt a ``poll`` except
        ``poll`` returning. Keep it short: the worker waits for it within
        ``task.shutdown.graceful.timeout.ms``.
        """
