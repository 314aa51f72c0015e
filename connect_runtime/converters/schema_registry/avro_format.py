"""Avro for the registry converter: Confluent's ``AvroConverter`` mapping and payload.

The payload after the 5-byte header is the Avro binary of the value with the registered (writer)
schema, written and read by fastavro with a schema compiled once per :class:`AvroFormatSchema`. One
quirk of Confluent's serializer is kept: when the schema itself is ``bytes`` (e.g. a
``Schema.BYTES_SCHEMA`` key, or a Decimal), the payload is the raw bytes, without Avro's length
prefix, both ways.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import fastavro

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.data.schema import Schema, SchemaType
from connect_runtime.api.data.struct import Struct
from connect_runtime.api.errors import DataException
from connect_runtime.converters.schema_registry.avro_data import AvroData, AvroDataConfig, avro_data_config_def
from connect_runtime.converters.schema_registry.avro_schema import AvroSchema, codec_schema, parse
from connect_runtime.converters.schema_registry.format import FormatSchema, SchemaFormat

# Anything fastavro raises for a datum that does not fit its schema.
_WRITE_ERRORS = (ValueError, TypeError, KeyError, AttributeError, OverflowError, IndexError)
_READ_ERRORS = (ValueError, TypeError, KeyError, EOFError, OverflowError, IndexError, UnicodeDecodeError)


class AvroFormatSchema(FormatSchema):
    """One Avro schema: its registry text, its Connect schema and its compiled fastavro codec."""

    def __init__(self, avro: AvroSchema, connect_schema: Schema, data: AvroData, text: str | None = None,
                 match_fields_by_name: bool = False) -> None:
        self.text = avro.text() if text is None else text
        self.connect_schema = connect_schema
        self.record_name = avro.full_name if avro.type == "record" else None
        self._raw_bytes = avro.type == "bytes"
        self._match_fields_by_name = match_fields_by_name
        self._write: Callable[[Any], Any] = data.value_writer(connect_schema, avro)
        # compiled on first use: a schema made from Connect only encodes, and Java reads only with the
        # registered schema's own mapping (a Connect union's field names, say, need not be Java's)
        self._read: Callable[[Any], Any] | None = None
        self._data, self._avro = data, avro
        self._parsed = fastavro.parse_schema(codec_schema(avro))

    def encode(self, value: Any) -> bytes:
        """The Avro binary of a Connect ``value`` (raw bytes for a ``bytes`` schema)."""
        if self._match_fields_by_name and value.__class__ is Struct and value.schema is not self.connect_schema:
            value = _adapt(value, self.connect_schema)
        datum = self._write(value)
        if self._raw_bytes:
            return datum  # type: ignore[no-any-return]
        out = io.BytesIO()
        try:
            fastavro.schemaless_writer(out, self._parsed, datum)
        except _WRITE_ERRORS as e:
            raise DataException(f"Failed to write Avro data: {e}") from e
        return out.getvalue()

    def decode(self, payload: bytes | memoryview) -> Any:
        """The Connect value of an Avro binary payload written with this schema."""
        read = self._read or self._compile_reader()
        if self._raw_bytes:
            return read(bytes(payload))
        try:
            datum = fastavro.schemaless_reader(io.BytesIO(payload), self._parsed, None, return_record_name=True,
                                               return_record_name_override=True)
        except _READ_ERRORS as e:
            raise DataException(f"Failed to read Avro data: {e}") from e
        return read(datum)

    def _compile_reader(self) -> Callable[[Any], Any]:
        self._read = self._data.value_reader(self._avro, self.connect_schema)
        return self._read


class AvroFormat(SchemaFormat):
    """Confluent's Avro mapping (``AvroData``) with its data settings (``AvroDataConfig``)."""

    schema_type: ClassVar[str] = "AVRO"

    def __init__(self) -> None:
        self._data = AvroData()

    def config_def(self) -> ConfigDef:
        """``connect.meta.data``, ``enhanced.avro.schema.support``, ``schemas.cache.config`` and the
        other ``AvroDataConfig`` keys, with Confluent's defaults."""
        return avro_data_config_def()

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the data settings; ``generalized.sum.type.support`` or ``discard.type.doc.default``
        set to true raises ``ConfigException`` (not supported)."""
        self._data = AvroData(AvroDataConfig.from_configs(configs))

    def from_connect(self, schema: Schema) -> AvroFormatSchema:
        """The schema Confluent's ``AvroConverter`` registers for ``schema``."""
        return AvroFormatSchema(self._data.from_connect_schema(schema), schema, self._data)

    def from_registry(self, text: str, version: int | None) -> AvroFormatSchema:
        """A registered schema mapped to Connect as ``AvroData.toConnectSchema`` maps it; its
        ``encode`` also takes a Struct of another schema, matching fields by name (the subject's
        latest, under ``use.latest.version``)."""
        avro = parse(text)
        connect_schema = self._data.to_connect_schema(avro, version)
        return AvroFormatSchema(avro, connect_schema, self._data, text=text, match_fields_by_name=True)


def _adapt(value: Any, schema: Schema) -> Any:
    """``value`` as a value of ``schema``, struct fields matched by name (absent ones unset)."""
    if value is None:
        return None
    kind = schema.type
    if kind is SchemaType.STRUCT and isinstance(value, Struct) and value.schema is not schema:
        adapted = Struct(schema)
        source = value.schema
        for field in schema.fields:
            found = source.field(field.name)
            if found is not None:
                adapted._values[field.index] = _adapt(value.get(found), field.schema)
        return adapted
    if kind is SchemaType.ARRAY and isinstance(value, list | tuple):
        assert schema.value_schema is not None
        element = schema.value_schema
        return [_adapt(v, element) for v in value]
    if kind is SchemaType.MAP and isinstance(value, Mapping):
        assert schema.value_schema is not None
        values = schema.value_schema
        return {k: _adapt(v, values) for k, v in value.items()}
    return value
