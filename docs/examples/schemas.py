"""A source task emitting records with schemas, and the bytes JsonConverter writes for them (run as a
script: every assert holds)."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping

from connect_runtime.api import Decimal, Schema, SchemaBuilder, SourceRecord, SourceTask, Struct, Timestamp
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.testing import FakeTaskContext

# Build schemas once (at module level or in start()), not per record: converters cache by schema.
ORDER = (SchemaBuilder.struct().name("shop.Order").version(1)
         .field("id", Schema.INT64_SCHEMA)
         .field("note", Schema.OPTIONAL_STRING_SCHEMA)
         .field("amount", Decimal.schema(2))
         .field("placed", Timestamp.SCHEMA)
         .build())


class OrdersTask(SourceTask):
    """Emits the orders of one shop as ``shop.Order`` structs keyed by their INT64 id."""

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.shop = props["shop"]
        last = self.context.offset_storage_reader.offset({"shop": self.shop})
        self.next_id = 1 if last is None else last["order"] + 1

    def poll(self) -> list[SourceRecord] | None:
        records = []
        for order_id in range(self.next_id, self.next_id + 2):
            value = (Struct(ORDER).put("id", order_id).put("amount", decimal.Decimal("9.99"))
                     .put("placed", datetime.datetime(2024, 1, 31, 12, 0, tzinfo=datetime.UTC)))
            value.validate()  # a missing required field fails here, with Kafka Connect's message
            records.append(SourceRecord({"shop": self.shop}, {"order": order_id}, "orders", key=order_id, value=value,
                                        key_schema=Schema.INT64_SCHEMA, value_schema=ORDER))
        self.next_id += 2
        return records

    def stop(self) -> None: ...


# Run it as the runtime would, resuming after order 41 (a committed offset).
task = OrdersTask()
task.initialize(FakeTaskContext({"shop": "main"}, offsets=[({"shop": "main"}, {"order": 41})]))
task.start({"shop": "main"})
first, second = task.poll() or []

# What the task loop does with each record: value.converter=...JsonConverter, schemas.enable=true.
converter = JsonConverter()
converter.configure({"schemas.enable": "true", "decimal.format": "NUMERIC"}, False)
written = converter.from_connect_data(first.topic, first.value, schema=first.value_schema)
assert written == (
    b'{"schema":{"type":"struct","fields":['
    b'{"type":"int64","optional":false,"field":"id"},'
    b'{"type":"string","optional":true,"field":"note"},'
    b'{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
    b'"parameters":{"scale":"2"},"field":"amount"},'
    b'{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1,'
    b'"field":"placed"}],'
    b'"optional":false,"name":"shop.Order","version":1},'
    b'"payload":{"id":42,"note":null,"amount":9.99,"placed":1706702400000}}'
)

# A consumer (or a test) reads it back as Java's toConnectData does: the schema and a Struct.
read = converter.to_connect_schema_and_value("orders", written)
assert read.schema == ORDER and read.value == first.value
assert second.value.get("id") == 43
