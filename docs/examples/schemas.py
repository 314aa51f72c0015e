"""A record with a schema, and the bytes JsonConverter writes for it (run as a script: every assert holds)."""

from __future__ import annotations

import decimal

from connect_runtime.api import Decimal, Schema, SchemaBuilder, SourceRecord, Struct
from connect_runtime.converters.json_converter import JsonConverter

# Build a schema once (at module level or in start()), not per record: converters cache by schema.
ORDER = (SchemaBuilder.struct().name("shop.Order").version(1)
         .field("id", Schema.INT64_SCHEMA)
         .field("note", Schema.OPTIONAL_STRING_SCHEMA)
         .field("amount", Decimal.schema(2))
         .build())


def order_record(order_id: int, amount: str) -> SourceRecord:
    value = Struct(ORDER).put("id", order_id).put("amount", decimal.Decimal(amount))
    value.validate()  # a missing required field fails here, with Kafka Connect's message
    return SourceRecord({"shop": "main"}, {"order": order_id}, "orders", key=order_id, value=value,
                        key_schema=Schema.INT64_SCHEMA, value_schema=ORDER)


# What the task loop does with the record: value.converter=...JsonConverter, schemas.enable=true.
record = order_record(42, "9.99")
converter = JsonConverter()
converter.configure({"schemas.enable": "true", "decimal.format": "NUMERIC"}, False)
assert converter.from_connect_data(record.topic, record.value, schema=record.value_schema) == (
    b'{"schema":{"type":"struct","fields":['
    b'{"type":"int64","optional":false,"field":"id"},'
    b'{"type":"string","optional":true,"field":"note"},'
    b'{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
    b'"parameters":{"scale":"2"},"field":"amount"}],'
    b'"optional":false,"name":"shop.Order","version":1},'
    b'"payload":{"id":42,"note":null,"amount":9.99}}'
)
