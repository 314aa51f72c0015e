"""Connectors: the classes a plugin author subclasses to describe a data source."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from connect_runtime.api.config_def import ConfigDef, ConfigValue
from connect_runtime.api.exactly_once import ConnectorTransactionBoundaries, ExactlyOnceSupport
from connect_runtime.api.storage import OffsetStorageReader

if TYPE_CHECKING:
    from connect_runtime.api.task import SourceTask


class ConnectorContext(ABC):
    """Lets a running connector talk back to the runtime."""

    @abstractmethod
    def request_task_reconfiguration(self) -> None:
        """Ask the runtime to call :meth:`Connector.task_configs` again (e.g. the source grew)."""

    @abstractmethod
    def raise_error(self, error: Exception) -> None:
        """Fail the connector with ``error`` (typically from a background thread of the connector): it is
        FAILED with the error's trace until restarted, and its :meth:`Connector.stop` is not called."""


class SourceConnectorContext(ConnectorContext):
    """Context of a source connector: also reads the connector's committed offsets."""

    @property
    @abstractmethod
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Committed source offsets of this connector."""


class Connector(ABC):
    """Base of every connector.

    **Lifecycle.** The runtime creates one instance each time a worker takes the connector on (created,
    assigned, restarted) and calls :meth:`initialize` once, then :meth:`start`. While started it may
    call :meth:`task_configs` any number of times. :meth:`stop` is called once for every ``start`` that
    returned: when the connector is paused or stopped (a later resume calls ``start`` again on the same
    instance), deleted, revoked or restarted, or its worker shuts down. A ``start`` that raises fails the
    connector and gets no ``stop``: release what it took before raising. A ``stop`` that raises while
    pausing fails the connector (as in Kafka Connect); it is not called again.

    **Threading.** The worker calls ``initialize``, ``start``, ``task_configs`` and ``stop`` one at a
    time, in order, on a thread of the connector's own: a slow ``start`` delays only this connector
    (its task configs are asked for once it returned), nothing else of the worker. Do continuous work
    (watching the source for changes) on a thread of your own, which may call
    ``context.request_task_reconfiguration()`` and ``context.raise_error()``; ``raise_error`` fails the
    connector (FAILED with the error's trace), and its ``stop`` is then not called: release what it
    holds before calling it. :meth:`config_def`, :meth:`validate` and :meth:`version` may be called on
    other, fresh instances that are never started (for ``/connector-plugins`` and validation), from
    other threads.
    """

    context: ConnectorContext

    def initialize(self, context: ConnectorContext) -> None:
        """Called once before :meth:`start`; keeps the context on ``self.context``."""
        self.context = context

    @abstractmethod
    def version(self) -> str:
        """The plugin's version, shown by ``GET /connector-plugins``."""

    def config_def(self) -> ConfigDef:
        """The connector's own config keys (the runtime adds its common keys for validation)."""
        return ConfigDef()

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        """Validate a configuration; the default checks it against :meth:`config_def`."""
        return self.config_def().validate(connector_configs)

    @abstractmethod
    def start(self, props: Mapping[str, str]) -> None:
        """Start with the connector's configuration (string values). If it raises, the connector is
        FAILED and :meth:`stop` is not called."""

    @abstractmethod
    def task_class(self) -> type[SourceTask]:
        """The task class this connector's tasks run."""

    @abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Split the work into at most ``max_tasks`` task configurations."""

    @abstractmethod
    def stop(self) -> None:
        """Release resources taken in :meth:`start`; called once for each ``start`` that returned."""


class SourceConnector(Connector):
    """A connector that reads from an external system and writes into Kafka: it splits the work into
    task configs, and its :class:`~connect_runtime.api.SourceTask` instances do the reading. Its
    lifecycle and threading are :class:`Connector`'s; :meth:`alter_offsets`,
    :meth:`exactly_once_support` and :meth:`can_define_transaction_boundaries` are called on fresh
    instances that are not started."""

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether this connector can deliver exactly once with ``connector_config``.

        None (the default) means the connector does not say; a connector configured with
        ``exactly.once.support=required`` then fails validation.
        """
        return None

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        """Whether its tasks can define transaction boundaries (``transaction.boundary=connector``)."""
        return ConnectorTransactionBoundaries.UNSUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[tuple[tuple[str, Any], ...], dict[str, Any] | None],
    ) -> bool:
        """Called when an operator alters or resets this connector's offsets through the REST API
        (``PATCH`` / ``DELETE /connectors/{c}/offsets``), before the runtime writes them.

        A connector that keeps offsets in its external system propagates the change there; any
        connector may check that the partitions and offsets are ones it understands. The connector
        is stopped when this is called, and this may be called before :meth:`start` on a fresh
        instance. It must be idempotent: an operator may retry a request whose write failed.

        ``offsets`` maps each source partition, frozen with
        :func:`~connect_runtime.api.storage.freeze_partition` (``dict(key)`` gives the partition back),
        to its new offset; a reset maps every partition the runtime knows to None. The values went
        through the offsets topic's JSON form, so they are typed as the connector's tasks will read
        them. The mapping may be empty (nothing was ever committed, or it was reset already).

        Return True when this method has been overridden to handle the change; the default returns
        False and the operator is told that offsets managed outside the runtime may need changing by
        hand. Raise to refuse the request: a ``ConnectException`` reaches the operator with its own
        message, ``NotImplementedError`` means the offsets of this connector cannot be changed, and
        any other error is reported as a failure to modify the offsets (all with status 500, as in
        Kafka Connect).
        """
        return False
