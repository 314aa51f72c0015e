"""Records a source task hands to the runtime, and what the runtime reports back about them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from connect_runtime.api.data.schema import Schema

#: A source partition or source offset: string keys, primitive values (str, int, float, bool, None).
SourceMap = Mapping[str, Any]


class Header(NamedTuple):
    """A record header with the schema of its value (Java's ``Header``: key, schema, value).

    A plain ``(key, value)`` pair is a header without a schema; this 3-tuple adds one, which the
    header converter receives (None: schemaless, as a pair). Read any header as ``header[0]``
    (key), ``header[1]`` (value) and :func:`header_schema`.
    """

    key: str
    value: Any
    schema: Schema | None = None


#: Record headers: ``(key, value)`` pairs, or :class:`Header` 3-tuples ``(key, value, schema)``. A
#: value is data (str, bytes, bool, int, float, Decimal, dict, list, Struct, date/time or None) that
#: the connector's header converter turns into bytes.
Headers = Sequence[tuple[str, Any] | tuple[str, Any, Schema | None]]


def header_schema(header: tuple[str, Any] | tuple[str, Any, Schema | None]) -> Schema | None:
    """The schema of a header: its third element, None for a ``(key, value)`` pair."""
    return header[2] if len(header) > 2 else None


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
    A header is a ``(key, value)`` pair, or a :class:`Header` ``(key, value, schema)`` whose schema
    the header converter receives, as Java's ``headers().add(key, value, schema)``.

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
