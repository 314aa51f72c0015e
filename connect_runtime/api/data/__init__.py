"""Kafka Connect's data model (Java's ``org.apache.kafka.connect.data``): schemas, structs, logical types."""

from connect_runtime.api.data.logical_types import Date, Decimal, Time, Timestamp
from connect_runtime.api.data.schema import Field, Schema, SchemaType
from connect_runtime.api.data.schema_and_value import SchemaAndValue
from connect_runtime.api.data.schema_builder import SchemaBuilder, SchemaBuilderException
from connect_runtime.api.data.struct import Struct, validate_value
from connect_runtime.api.data.values import Values

__all__ = [
    "Date",
    "Decimal",
    "Field",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SchemaBuilderException",
    "SchemaType",
    "Struct",
    "Time",
    "Timestamp",
    "Values",
    "validate_value",
]
