"""Confluent's ``io.confluent.connect.avro.AvroConverter``: Connect data as Avro through a schema registry."""

from __future__ import annotations

import avro.schema
from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType

from connect_runtime.converters.schema_registry.avro_format import AvroFormat
from connect_runtime.converters.schema_registry.format import FormatSchema
from connect_runtime.converters.schema_registry.registry_converter import SchemaRegistryConverter

__all__ = ["AvroConverter"]


class AvroConverter(SchemaRegistryConverter):
    """Confluent's ``AvroConverter``: values as Avro binary after the 5-byte header, schemas registered as
    Confluent's ``AvroData`` maps Connect schemas (byte-identical text, so Java and Python workers share
    one schema history per subject).

    Settings: the registry's (see :class:`SchemaRegistryConverter`) and ``AvroDataConfig``'s
    (``connect.meta.data``, ``enhanced.avro.schema.support``, ``schemas.cache.config``, ...).
    ``to_connect_data`` reads what this converter and Java's write, returning a ``SchemaAndValue``.
    """

    format_class = AvroFormat

    def latest_reads(self, latest: FormatSchema, written: FormatSchema) -> bool | None:
        """Avro's schema resolution rules, as Java's ``AvroSchema.isBackwardCompatible`` applies them."""
        checker = ReaderWriterCompatibilityChecker()  # type: ignore[no-untyped-call]
        result = checker.get_compatibility(
            avro.schema.parse(latest.text), avro.schema.parse(written.text))
        return result.compatibility is SchemaCompatibilityType.compatible
