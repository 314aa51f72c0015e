"""Converters that write through a schema registry in Confluent's wire format: magic byte 0, the
schema's 4-byte big-endian id, then the payload (Avro binary, JSON, or Protobuf message indexes and
message), with schemas registered under ``<topic>-key`` / ``<topic>-value`` or the configured subject
name strategy.

One converter (``registry_converter``) does the registry's part for every format; each format
(``format.SchemaFormat``) maps Connect's data model to its schema language and encodes values.
"""
