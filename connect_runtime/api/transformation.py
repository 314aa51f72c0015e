"""Single message transforms (SMTs) and their predicates, applied per record, in order, before the
record is converted and sent.

A connector config names them as Kafka Connect does::

    transforms=route,drop
    transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter
    transforms.route.regex=(.*)-raw
    transforms.route.replacement=$1
    transforms.drop.type=Filter
    transforms.drop.predicate=isTombstone
    predicates=isTombstone
    predicates.isTombstone.type=RecordIsTombstone

Write your own by subclassing :class:`Transformation` or :class:`Predicate`; the runtime finds them by
entry point (group ``connect_runtime.plugins``), in a ``plugin.path`` directory, or by their dotted
Python path under a package the worker's ``plugin.allowed.packages`` lists. Each task gets its own
instances: ``configure`` is called once before the first record, ``close`` when the task stops.
``apply``/``test`` run on the task's thread for every record, so keep them cheap.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.record import SourceRecord

__all__ = ["Predicate", "Transformation"]


class Transformation(ABC):
    """Changes a record, or drops it by returning None (Kafka's ``Transformation``).

    Return a new :class:`SourceRecord` rather than changing the one given: the runtime keeps the
    original for ``SourceTask.commit_record`` and its source offset. Keep ``source_partition`` and
    ``source_offset`` as they are. Raise :class:`~connect_runtime.api.DataException` for a record you
    cannot handle (it fails the task unless the connector tolerates errors), or
    :class:`~connect_runtime.api.RetriableException` for a transient failure.
    """

    def version(self) -> str:
        """The plugin's version, shown by ``GET /connector-plugins?connectorsOnly=false``."""
        return "undefined"

    def config_def(self) -> ConfigDef:
        """The transform's own config keys (without the ``transforms.<alias>.`` prefix).

        The runtime validates them when a connector is validated, created or updated, and lists them
        at ``GET /connector-plugins/{plugin}/config``. ``predicate`` and ``negate`` are the runtime's:
        keys of those names defined here are ignored.
        """
        return ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the transform's settings: the connector's ``transforms.<alias>.*`` keys with that
        prefix stripped (raw strings; ``type`` included, ``predicate`` and ``negate`` removed). Parse
        them with ``self.config_def().parse(configs)``; raise
        :class:`~connect_runtime.api.ConfigException` for an invalid setting."""

    @abstractmethod
    def apply(self, record: SourceRecord) -> SourceRecord | None:
        """Return the transformed record, the record itself if unchanged, or None to drop it.

        A dropped record is not sent and its source offset is not committed.
        """

    def close(self) -> None:
        """Release resources; called once when the task stops."""


class Predicate(ABC):
    """Decides whether a transform applies to a record (Kafka's ``Predicate``).

    A transform with ``transforms.<alias>.predicate=<predicate alias>`` applies only to records for
    which :meth:`test` is true (false with ``transforms.<alias>.negate=true``).
    """

    def version(self) -> str:
        """The plugin's version, shown by ``GET /connector-plugins?connectorsOnly=false``."""
        return "undefined"

    def config_def(self) -> ConfigDef:
        """The predicate's own config keys (without the ``predicates.<alias>.`` prefix)."""
        return ConfigDef()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the predicate's settings: the connector's ``predicates.<alias>.*`` keys with that
        prefix stripped (raw strings, ``type`` included)."""

    @abstractmethod
    def test(self, record: SourceRecord) -> bool:
        """True if the transform should apply to ``record``."""

    def close(self) -> None:
        """Release resources; called once when the task stops."""
