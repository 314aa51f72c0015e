"""Headers with schemas, and what SimpleHeaderConverter writes and reads (run as a script: every assert holds)."""

from __future__ import annotations

import datetime

from connect_runtime.api import Date, Header, Schema, SchemaAndValue, SchemaBuilder, SourceRecord
from connect_runtime.converters.simple_header_converter import SimpleHeaderConverter

TAGS = SchemaBuilder.array(Schema.STRING_SCHEMA).build()

record = SourceRecord({"shop": "main"}, {"order": 42}, "orders", key=42, value="...", headers=[
    ("source", "shop-main"),                        # a (key, value) pair: a header without a schema
    Header("ratio", 0.1, Schema.FLOAT32_SCHEMA),     # Header(key, value, schema): the converter gets the schema
    Header("tags", ["new", "gift"], TAGS),
    Header("day", datetime.date(2024, 1, 31), Date.SCHEMA),
])

# What the task loop does with each header (header.converter: SimpleHeaderConverter, the default).
converter = SimpleHeaderConverter()
written = [converter.from_connect_header("orders", h[0], h[1], schema=h[2] if len(h) > 2 else None)
           for h in record.headers or ()]
assert written == [b"shop-main", b"0.1", b'["new","gift"]', b"2024-01-31"]

# Reading header bytes back infers the schema, as Java's Values.parseString does.
assert converter.to_connect_header_schema_and_value("orders", "day", b"2024-01-31") == SchemaAndValue(
    Date.SCHEMA, datetime.date(2024, 1, 31))
assert converter.to_connect_header_schema_and_value("orders", "tags", b'["new","gift"]') == SchemaAndValue(
    TAGS, ["new", "gift"])
