"""AvroFormat against a real schema registry: the text it registers is accepted and kept as sent, and
confluent-kafka's ``AvroDeserializer`` (an independent reader) decodes what it writes after the
5-byte header."""

from __future__ import annotations

import datetime
import decimal
import uuid

from confluent_kafka.schema_registry import Schema as RegistrySchema
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

from connect_runtime.api.data import Date, Decimal, Schema, SchemaBuilder, Struct, Timestamp
from connect_runtime.converters.schema_registry.avro_format import AvroFormat

ADDR = (SchemaBuilder.struct().name("com.example.Address").optional()
        .field("street", Schema.STRING_SCHEMA).field("zip", Schema.OPTIONAL_INT32_SCHEMA).build())
ORDER = (
    SchemaBuilder.struct().name("com.example.Order").version(1)
    .field("id", Schema.INT64_SCHEMA).field("qty", Schema.INT8_SCHEMA)
    .field("amount", Decimal.schema(2)).field("day", Date.SCHEMA)
    .field("at", Timestamp.builder().optional().build())
    .field("tags", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
    .field("note", SchemaBuilder.string().optional().default_value("none").build())
    .field("addr", ADDR)
    .build()
)


def test_registered_text_and_values_read_by_confluent_kafka(schema_registry_url: str) -> None:
    client = SchemaRegistryClient({"url": schema_registry_url})
    subject = f"avro-format-{uuid.uuid4().hex}-value"
    fs = AvroFormat().from_connect(ORDER)

    schema_id = client.register_schema(subject, RegistrySchema(fs.text, "AVRO"))

    # the same text registers as the same schema, and the registry returns it unchanged, so what a
    # Java worker registers for this Connect schema is this very version
    assert client.register_schema(subject, RegistrySchema(fs.text, "AVRO")) == schema_id
    registered = SchemaRegistryClient({"url": schema_registry_url}).get_schema(schema_id)
    assert registered.schema_str == fs.text

    value = (Struct(ORDER).put("id", 42).put("qty", -3).put("amount", decimal.Decimal("12.34"))
             .put("day", datetime.date(2024, 2, 29)).put("at", None).put("tags", {1: "one"})
             .put("addr", Struct(ADDR).put("street", "Main").put("zip", 12345)))
    payload = b"\x00" + schema_id.to_bytes(4, "big") + fs.encode(value)

    decoded = AvroDeserializer(client)(payload, SerializationContext("t", MessageField.VALUE))
    assert decoded == {
        "id": 42, "qty": -3, "amount": decimal.Decimal("12.34"), "day": datetime.date(2024, 2, 29),
        "at": None, "tags": [{"key": 1, "value": "one"}], "note": "none",
        "addr": {"street": "Main", "zip": 12345},
    }
    # and the registry's text maps back to the Connect schema it came from
    assert AvroFormat().from_registry(registered.schema_str, 1).decode(payload[5:]) == value.put("note", "none")
