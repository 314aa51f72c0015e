"""Confluent's ``io.confluent.connect.protobuf.ProtobufConverter``: Connect data as Protobuf through a
schema registry."""

from __future__ import annotations

from connect_runtime.converters.schema_registry.protobuf_format import ProtobufFormat
from connect_runtime.converters.schema_registry.registry_converter import SchemaRegistryConverter

__all__ = ["ProtobufConverter"]


class ProtobufConverter(SchemaRegistryConverter):
    """Confluent's ``ProtobufConverter``: after the 5-byte header, Confluent's message indexes and the
    serialized message; schemas registered as the ``.proto`` text Confluent's ``ProtobufData`` gives for
    the Connect schema (a STRUCT as a proto3 message, any other primitive as its
    ``google.protobuf.*Value`` wrapper), so Java and Python workers share one schema history per subject.

    Settings: the registry's (see :class:`SchemaRegistryConverter`) and ``ProtobufDataConfig``'s
    (``optional.for.nullables``, ``wrapper.for.nullables``, ``int.for.enums``, ``scrub.invalid.names``,
    ``enhanced.protobuf.schema.support``, ``schemas.cache.config``, ...);
    ``generalized.sum.type.support=true`` is refused. ``to_connect_data`` reads what this converter and
    Java's write (any ``.proto`` text without imports beyond the well-known and Confluent types), every
    field of a message as optional, as Java reads it.
    """

    format_class = ProtobufFormat
