"""Records a source task hands to the runtime, and what the runtime reports back about them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connect_runtime.api.data.schema import Schema

#: A source partition or source offset: string keys, primitive values (str, int, float, bool, None).
SourceMap = Mapping[str, Any]


class Header(tuple[str, Any]):
    """A record header with the schema of its value (Java's ``Header``: key, schema, value).

    It is a ``(key, value)`` pair like any other header, so code that unpacks headers as pairs keeps
    working, and it carries :attr:`schema`, which the header converter receives. A plain pair is a
    header without a schema. Two headers are equal when key, value and schema are, so a header with a
    schema is not equal to the plain pair of its key and value. Immutable, like a tuple.
    """

    _schema: Schema | None

    def __new__(cls, key: str, value: Any, schema: Schema | None = None) -> Header:
        header = super().__new__(cls, (key, value))
        object.__setattr__(header, "_schema", schema)
        return header

    @property
    def schema(self) -> Schema | None:
        """The schema of :attr:`value` (None: schemaless)."""
        return self._schema

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Header is immutable: cannot set {name}")

    @property
    def key(self) -> str:
        """The header's key."""
        return self[0]

    @property
    def value(self) -> Any:
        """The header's value."""
        return self[1]

    def __getnewargs__(self) -> tuple[str, Any, Schema | None]:
        return self[0], self[1], self.schema

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Header):
            return tuple.__eq__(self, other) and self.schema == other.schema
        return self.schema is None and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return f"Header(key={self[0]!r}, value={self[1]!r}, schema={self.schema!r})"


#: Record headers: ``(key, value)`` pairs, some of them :class:`Header` pairs carrying a schema. A
#: value is data (str, bytes, bool, int, float, Decimal, dict, list, Struct, date/time or None) that
#: the connector's header converter turns into bytes.
Headers = Sequence[tuple[str, Any]]


def header_schema(header: tuple[str, Any]) -> Schema | None:
    """The schema of a header: a :class:`Header`'s, None for a plain ``(key, value)`` pair."""
    return header.schema if isinstance(header, Header) else None


@dataclass(slots=True)
class SourceRecord:
    """One record produced by a :class:`SourceTask`.

    ``source_partition`` names the stream the record came from (e.g. ``{"file": "a.txt"}``) and
    ``source_offset`` the position in that stream after this record (e.g. ``{"position": 42}``).
    The runtime stores the latest offset per partition and, under exactly-once support, commits it in
    the same Kafka transaction as the record itself: track progress through offsets and a restarted
    task resumes exactly where the committed data ends.

    ``key`` and ``value`` are converted by the connector's key/value converters (maps, lists, strings,
    numbers, booleans, bytes or None). ``kafka_partition`` None lets the producer choose; ``timestamp``
    is milliseconds since the epoch, None for the producer's time. ``headers`` values are converted by
    the header converter (``header.converter``, by default ``SimpleHeaderConverter``: strings as UTF-8,
    other values as Kafka's ``Values.convertToString`` prints them, bytes in base64; a connector that
    wants raw bytes sets ``header.converter=org.apache.kafka.connect.converters.ByteArrayConverter``).
    A header is a ``(key, value)`` pair; a :class:`Header` ``(key, value)`` pair also carries a schema,
    which the header converter receives, as Java's ``headers().add(key, value, schema)``.

    ``key_schema`` and ``value_schema`` (None: schemaless) describe ``key`` and ``value`` with Kafka
    Connect's data model; the converters receive them, so ``JsonConverter`` with ``schemas.enable=true``
    writes the schema into its envelope. They come last so that positional construction is unchanged.
    """

    source_partition: SourceMap | None
    source_offset: SourceMap | None
    topic: str
    kafka_partition: int | None = None
    key: Any = None
    value: Any = None
    headers: Headers | None = None
    timestamp: int | None = None
    key_schema: Schema | None = None
    value_schema: Schema | None = None


@dataclass(frozen=True, slots=True)
class RecordMetadata:
    """Where Kafka stored a record: passed to :meth:`SourceTask.commit_record`."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None
