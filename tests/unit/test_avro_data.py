"""Confluent's AvroData mapping: the registered text must equal Java's byte for byte (the registry
compares text), and values must read back with an independent Avro reader (fastavro).

The expected texts are the real output of Confluent's ``AvroData`` (run on Avro 1.12, default config
unless stated; the bare primitives aside, which are Avro's spelling of a type without properties),
written out here because Confluent's jars are not on Maven Central, so tests cannot run them.
"""

# ruff: noqa: E501  (the expected schema texts are Java's, verbatim, one line each)

from __future__ import annotations

import datetime
import decimal
import io
import json
from typing import Any

import fastavro
import pytest
from plugins.every_type_source import ADDRESS as ADDR
from plugins.every_type_source import ORDER

from connect_runtime.api.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.converters.schema_registry.avro_data import AvroData, AvroDataConfig, scrub_name
from connect_runtime.converters.schema_registry.avro_format import AvroFormat
from connect_runtime.converters.schema_registry.avro_schema import parse

UTC = datetime.UTC


def avro_text(schema: Schema, **config: Any) -> str:
    return AvroData(AvroDataConfig(**config)).from_connect_schema(schema).text()


def fastavro_read(text: str, payload: bytes) -> Any:
    """The independent reader: fastavro with the registered text as writer schema."""
    return fastavro.schemaless_reader(io.BytesIO(payload), fastavro.parse_schema(json.loads(text)), None)


# --- A: primitives and logical types at the top level ------------------------------------------------

GOLDEN_A = [
    (Schema.STRING_SCHEMA, '"string"'),
    (Schema.OPTIONAL_STRING_SCHEMA, '["null","string"]'),
    (Schema.INT8_SCHEMA, '{"type":"int","connect.type":"int8"}'),
    (Schema.OPTIONAL_INT16_SCHEMA, '["null",{"type":"int","connect.type":"int16"}]'),
    (Schema.BYTES_SCHEMA, '"bytes"'),
    (Decimal.schema(2), '{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}'),
    (Decimal.builder(2).parameter("connect.decimal.precision", "10").build(), '{"type":"bytes","scale":2,"precision":10,"connect.version":1,"connect.parameters":{"scale":"2","connect.decimal.precision":"10"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}'),
    (Date.SCHEMA, '{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}'),
    (Time.SCHEMA, '{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}'),
    (Timestamp.builder().optional().build(), '["null",{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}]'),
    (SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(), '{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}'),
    (SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).build(), '{"type":"array","items":["null","long"]}'),
    # the other primitives, as Avro prints a schema without properties
    (Schema.INT32_SCHEMA, '"int"'), (Schema.INT64_SCHEMA, '"long"'), (Schema.FLOAT32_SCHEMA, '"float"'),
    (Schema.FLOAT64_SCHEMA, '"double"'), (Schema.BOOLEAN_SCHEMA, '"boolean"'),
    (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build(), '{"type":"map","values":["null","string"]}'),
]


@pytest.mark.parametrize(("schema", "expected"), GOLDEN_A, ids=[repr(s) + str(i) for i, (s, _) in enumerate(GOLDEN_A)])
def test_a_primitives_and_logical_types(schema: Schema, expected: str) -> None:
    assert avro_text(schema) == expected


# --- B, C: every type in one named struct -------------------------------------------------------------

# Example B's struct is the end-to-end test plugin's value schema (tests/integration/test_avro_converter.py).
GOLDEN_B = '{"type":"record","name":"Order","namespace":"com.example","fields":[{"name":"i8","type":{"type":"int","connect.type":"int8"}},{"name":"i16","type":{"type":"int","connect.type":"int16"}},{"name":"i32","type":"int"},{"name":"i64","type":"long"},{"name":"f32","type":"float"},{"name":"f64","type":"double"},{"name":"flag","type":"boolean"},{"name":"s","type":"string"},{"name":"b","type":"bytes"},{"name":"opt_s","type":["null","string"],"default":null},{"name":"def_s","type":{"type":"string","connect.default":"x"},"default":"x"},{"name":"opt_def_i","type":[{"type":"int","connect.default":5},"null"],"default":5},{"name":"doc_s","type":{"type":"string","connect.doc":"field doc"}},{"name":"amount","type":{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}},{"name":"day","type":{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}},{"name":"tod","type":{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}},{"name":"ts","type":["null",{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}],"default":null},{"name":"tags","type":{"type":"array","items":"string"}},{"name":"counts","type":{"type":"map","values":"int"}},{"name":"by_id","type":["null",{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}],"default":null},{"name":"addr","type":["null",{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"street","type":"string"},{"name":"zip","type":["null","int"],"default":null}]}],"default":null}],"connect.doc":"an order","connect.version":3,"connect.parameters":{"owner":"team-a"},"connect.name":"com.example.Order"}'
GOLDEN_C = '{"type":"record","name":"Order","namespace":"com.example","fields":[{"name":"i8","type":"int"},{"name":"i16","type":"int"},{"name":"i32","type":"int"},{"name":"i64","type":"long"},{"name":"f32","type":"float"},{"name":"f64","type":"double"},{"name":"flag","type":"boolean"},{"name":"s","type":"string"},{"name":"b","type":"bytes"},{"name":"opt_s","type":["null","string"],"default":null},{"name":"def_s","type":"string","default":"x"},{"name":"opt_def_i","type":["int","null"],"default":5},{"name":"doc_s","type":"string"},{"name":"amount","type":{"type":"bytes","scale":2,"precision":64,"logicalType":"decimal"}},{"name":"day","type":{"type":"int","logicalType":"date"}},{"name":"tod","type":{"type":"int","logicalType":"time-millis"}},{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},{"name":"tags","type":{"type":"array","items":"string"}},{"name":"counts","type":{"type":"map","values":"int"}},{"name":"by_id","type":["null",{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}],"default":null},{"name":"addr","type":["null",{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"street","type":"string"},{"name":"zip","type":["null","int"],"default":null}]}],"default":null}]}'


def test_b_every_type_in_one_named_struct() -> None:
    assert avro_text(ORDER) == GOLDEN_B


def test_c_without_connect_meta_data() -> None:
    assert avro_text(ORDER, connect_meta_data=False) == GOLDEN_C


def test_c_without_connect_meta_data_reads_int8_back_as_int32() -> None:
    data = AvroData(AvroDataConfig(connect_meta_data=False))
    back = data.to_connect_schema(parse(GOLDEN_C))
    i8 = back.field("i8")
    assert i8 is not None and i8.schema == Schema.INT32_SCHEMA


# --- D, E: unnamed structs numbered, reused schemas printed by name, defaults -------------------------

def test_d_unnamed_structs_are_numbered_and_a_reused_one_is_a_name_reference() -> None:
    inner = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    inner2 = SchemaBuilder.struct().field("b", Schema.STRING_SCHEMA).build()
    unnamed = SchemaBuilder.struct().field("x", inner).field("y", inner2).field("z", inner).build()
    assert avro_text(unnamed) == '{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"x","type":{"type":"record","name":"ConnectDefault2","fields":[{"name":"a","type":"int"}]}},{"name":"y","type":{"type":"record","name":"ConnectDefault3","fields":[{"name":"b","type":"string"}]}},{"name":"z","type":"ConnectDefault2"}]}'


SHAPE = (
    SchemaBuilder.struct().name("com.example.Shape")
    .field("a", SchemaBuilder.struct().name("com.example.Point").version(1).optional().field("x", Schema.FLOAT64_SCHEMA).build())
    .field("b", SchemaBuilder.struct().name("com.example.Point").version(1).optional().field("x", Schema.FLOAT64_SCHEMA).build())
    .field("c", SchemaBuilder.struct().name("com.example.Point").version(1).field("x", Schema.FLOAT64_SCHEMA).build())
    .field("i8d", SchemaBuilder.int8().default_value(3).build())
    .field("bd", SchemaBuilder.bytes().default_value(b"\x01\x02").build())
    .field("f32d", SchemaBuilder.float32().default_value(1.5).build())
    .build()
)
GOLDEN_E = '{"type":"record","name":"Shape","namespace":"com.example","fields":[{"name":"a","type":["null",{"type":"record","name":"Point","fields":[{"name":"x","type":"double"}],"connect.version":1,"connect.name":"com.example.Point"}],"default":null},{"name":"b","type":["null","Point"],"default":null},{"name":"c","type":"Point"},{"name":"i8d","type":{"type":"int","connect.default":3,"connect.type":"int8"},"default":3},{"name":"bd","type":{"type":"bytes","connect.default":"\\u0001\\u0002"},"default":"\\u0001\\u0002"},{"name":"f32d","type":{"type":"float","connect.default":1.5},"default":1.5}],"connect.name":"com.example.Shape"}'


def test_e_named_optional_struct_reused_and_defaults() -> None:
    assert avro_text(SHAPE) == GOLDEN_E


# Run on Confluent's AvroData too (the same harness): float and double defaults in Java's notation,
# Jackson's escapes (upper-case hex, non-ASCII raw), a struct without namespace under one with a
# namespace ("namespace":""), a named map with a default Avro refuses (no "default" on the field), an
# optional array and an optional INT8 with defaults ([X,"null"]), a negative-scale Decimal.
MISC = (
    SchemaBuilder.struct().name("T")
    .field("f32", SchemaBuilder.float32().default_value(0.1).build())
    .field("f64", SchemaBuilder.float64().default_value(1e10).build())
    .field("u", SchemaBuilder.string().default_value("é\x01\x1f").doc("dé").build())
    .field("ostruct", SchemaBuilder.struct().name("com.x.P").optional().field("q", Schema.INT32_SCHEMA).build())
    .field("nested", SchemaBuilder.struct().name("com.x.Q").field(
        "r", SchemaBuilder.struct().name("Top").field("z", Schema.INT32_SCHEMA).build()).build())
    .field("m", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).name("com.x.M").default_value({1: "a"}).build())
    .field("arr", SchemaBuilder.array(Schema.INT32_SCHEMA).optional().default_value([1, 2]).build())
    .field("oi8", SchemaBuilder.int8().optional().default_value(3).build())
    .field("dec", Decimal.builder(-2).optional().build())
    .build()
)
GOLDEN_MISC = '{"type":"record","name":"T","fields":[{"name":"f32","type":{"type":"float","connect.default":0.1},"default":0.1},{"name":"f64","type":{"type":"double","connect.default":1.0E10},"default":1.0E10},{"name":"u","type":{"type":"string","connect.doc":"dé","connect.default":"é\\u0001\\u001F"},"default":"é\\u0001\\u001F"},{"name":"ostruct","type":["null",{"type":"record","name":"P","namespace":"com.x","fields":[{"name":"q","type":"int"}],"connect.name":"com.x.P"}],"default":null},{"name":"nested","type":{"type":"record","name":"Q","namespace":"com.x","fields":[{"name":"r","type":{"type":"record","name":"Top","namespace":"","fields":[{"name":"z","type":"int"}],"connect.name":"Top"}}],"connect.name":"com.x.Q"}},{"name":"m","type":{"type":"array","items":{"type":"record","name":"M","namespace":"com.x","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}],"connect.internal.type":"MapEntry"},"connect.default":[[1,"a"]],"connect.name":"com.x.M"}},{"name":"arr","type":[{"type":"array","items":"int","connect.default":[1,2]},"null"],"default":[1,2]},{"name":"oi8","type":[{"type":"int","connect.default":3,"connect.type":"int8"},"null"],"default":3},{"name":"dec","type":["null",{"type":"bytes","scale":-2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"-2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],"default":null}],"connect.name":"T"}'


def test_defaults_escapes_namespaces_and_refused_defaults_as_java_prints_them() -> None:
    assert avro_text(MISC) == GOLDEN_MISC


def struct_of(name: str, **fields: SchemaBuilder) -> Schema:
    """A struct schema of these fields, each given as the builder of its schema."""
    builder = SchemaBuilder.struct().name(name)
    for field_name, field_schema in fields.items():
        builder.field(field_name, field_schema)
    return builder.build()


LOGICAL_DEFAULTS = struct_of(
    "com.x.D",
    dec=Decimal.builder(2).default_value(decimal.Decimal("1.50")),
    day=Date.builder().default_value(datetime.date(1970, 1, 3)),
    ts=Timestamp.builder().optional().default_value(datetime.datetime(1970, 1, 1, 0, 0, 1, 234000, tzinfo=UTC)),
    bh=SchemaBuilder.bytes().default_value(b"\xffA"),
    sm=SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).default_value({"k": 5}),
    b=SchemaBuilder.bool().default_value(True),
)
# the defaults' bytes as ISO-8859-1 text, C1 and Latin-1 characters raw
GOLDEN_LOGICAL_DEFAULTS = '{"type":"record","name":"D","namespace":"com.x","fields":[{"name":"dec","type":{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},"connect.default":"\\u0000\x96","connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"},"default":"\\u0000\x96"},{"name":"day","type":{"type":"int","connect.version":1,"connect.default":2,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"},"default":2},{"name":"ts","type":[{"type":"long","connect.version":1,"connect.default":1234,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"},"null"],"default":1234},{"name":"bh","type":{"type":"bytes","connect.default":"\xffA"},"default":"\xffA"},{"name":"sm","type":{"type":"map","values":"long","connect.default":{"k":5}},"default":{"k":5}},{"name":"b","type":{"type":"boolean","connect.default":true},"default":true}],"connect.name":"com.x.D"}'


def test_defaults_of_logical_types_bytes_and_maps_as_java_prints_them() -> None:
    assert avro_text(LOGICAL_DEFAULTS) == GOLDEN_LOGICAL_DEFAULTS


UNION = (SchemaBuilder.struct().name("io.confluent.connect.avro.Union").optional()
         .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("string", Schema.OPTIONAL_STRING_SCHEMA)
         .field("P", SchemaBuilder.struct().name("com.x.P").optional().field("q", Schema.INT32_SCHEMA).build())
         .build())
WITH_UNION = SchemaBuilder.struct().field("u", UNION).build()


def test_a_union_struct_is_an_avro_union() -> None:
    assert avro_text(WITH_UNION) == '{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"u","type":["null","int","string",{"type":"record","name":"P","namespace":"com.x","fields":[{"name":"q","type":"int"}],"connect.name":"com.x.P"}],"default":null}]}'


# --- F, G: plain Avro written by others ---------------------------------------------------------------

PLAIN_F = '{"type":"record","name":"T","doc":"d","fields":[{"name":"i","type":"int","doc":"fd","default":4},{"name":"f","type":{"type":"fixed","name":"F4","size":4}},{"name":"m","type":{"type":"map","values":"long"}}]}'


def test_f_plain_avro_to_connect_and_back() -> None:
    data = AvroData()
    connect = data.to_connect_schema(parse(PLAIN_F))
    assert connect.name == "T" and connect.version is None
    assert dict(connect.parameters or {}) == {"io.confluent.connect.avro.record.doc": "d",
                                              "io.confluent.connect.avro.field.doc.i": "fd"}
    i, f, m = connect.fields
    assert (i.schema.type, i.schema.default_value, dict(i.schema.parameters or {})) == (
        Schema.Type.INT32, 4, {"io.confluent.connect.avro.field.default": "true"})
    assert (f.schema.type, f.schema.name, dict(f.schema.parameters or {})) == (
        Schema.Type.BYTES, "F4", {"connect.fixed.size": "4"})
    assert m.schema == SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT64_SCHEMA).build()
    assert data.from_connect_schema(connect).text() == '{"type":"record","name":"T","doc":"d","fields":[{"name":"i","type":"int","doc":"fd","default":4},{"name":"f","type":{"type":"fixed","name":"F4","size":4,"connect.parameters":{"connect.fixed.size":"4"},"connect.name":"F4"}},{"name":"m","type":{"type":"map","values":"long"}}],"connect.parameters":{"io.confluent.connect.avro.record.doc":"d","io.confluent.connect.avro.field.doc.i":"fd"},"connect.name":"T"}'


def test_f_the_registry_version_is_the_fallback_version() -> None:
    assert AvroData().to_connect_schema(parse(PLAIN_F), 7).version == 7
    # connect.version wins over the registry's
    assert AvroData().to_connect_schema(parse(GOLDEN_B), 9).version == 3


PLAIN_G = '{"type":"record","name":"R","namespace":"ns","fields":[{"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},{"name":"n","type":["null","long"],"default":null},{"name":"u","type":["int","string"]}]}'
ENUM_PARAMS = {"io.confluent.connect.avro.Enum": "ns.Color", "io.confluent.connect.avro.Enum.RED": "RED",
               "io.confluent.connect.avro.Enum.GREEN": "GREEN"}


@pytest.mark.parametrize(("enhanced", "expected"), [
    (False, '{"type":"record","name":"R","namespace":"ns","fields":[{"name":"color","type":{"type":"string","connect.parameters":{"io.confluent.connect.avro.Enum":"ns.Color","io.confluent.connect.avro.Enum.RED":"RED","io.confluent.connect.avro.Enum.GREEN":"GREEN"},"connect.name":"ns.Color"}},{"name":"n","type":["null","long"],"default":null},{"name":"u","type":["int","string"]}],"connect.name":"ns.R"}'),
    (True, '{"type":"record","name":"R","namespace":"ns","fields":[{"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"],"connect.parameters":{"io.confluent.connect.avro.Enum":"ns.Color","io.confluent.connect.avro.Enum.RED":"RED","io.confluent.connect.avro.Enum.GREEN":"GREEN"},"connect.name":"ns.Color"}},{"name":"n","type":["null","long"],"default":null},{"name":"u","type":["int","string"]}],"connect.name":"ns.R"}'),
])
def test_g_enum_and_union_from_plain_avro(enhanced: bool, expected: str) -> None:
    data = AvroData(AvroDataConfig(enhanced_avro_schema_support=enhanced))
    connect = data.to_connect_schema(parse(PLAIN_G))
    color, n, u = connect.fields
    assert (color.schema.type, color.schema.name, dict(color.schema.parameters or {})) == (
        Schema.Type.STRING, "ns.Color", ENUM_PARAMS)
    assert list(color.schema.parameters or {}) == list(ENUM_PARAMS)  # Java's order, written back so
    assert n.schema == Schema.OPTIONAL_INT64_SCHEMA
    assert u.schema.name == "io.confluent.connect.avro.Union" and not u.schema.is_optional
    assert [(f.name, f.schema) for f in u.schema.fields] == [
        ("int", Schema.OPTIONAL_INT32_SCHEMA), ("string", Schema.OPTIONAL_STRING_SCHEMA)]
    assert data.from_connect_schema(connect).text() == expected


# --- Round trips of schemas ------------------------------------------------------------------------

@pytest.mark.parametrize("schema", [ORDER, SHAPE, MISC, WITH_UNION, LOGICAL_DEFAULTS] + [s for s, _ in GOLDEN_A],
                         ids=lambda s: repr(s))
def test_what_java_registers_reads_back_to_the_same_connect_schema_and_text(schema: Schema) -> None:
    data = AvroData()
    text = data.from_connect_schema(schema).text()
    back = data.to_connect_schema(parse(text))
    if schema is MISC:
        # Java reads a MapEntry array's default as a list, which the map schema refuses: the map
        # default is dropped (Avro refused it as the field's default already)
        text = text.replace(',"connect.default":[[1,"a"]]', "")
    # the text is a fixed point: reading it and writing it again registers nothing new
    assert data.from_connect_schema(back).text() == text
    if schema is not MISC:
        assert back == schema


def test_config_keys_are_listed_with_java_defaults_and_unsupported_ones_refused() -> None:
    keys = AvroFormat().config_def().keys
    assert keys["connect.meta.data"].default is True
    assert keys["enhanced.avro.schema.support"].default is False
    assert keys["schemas.cache.config"].default == 1000
    assert set(keys) == {"connect.meta.data", "enhanced.avro.schema.support", "schemas.cache.config",
                         "scrub.invalid.names", "allow.optional.map.keys", "flatten.singleton.unions",
                         "discard.type.doc.default", "generalized.sum.type.support",
                         "ignore.default.for.nullables"}
    for key in ("generalized.sum.type.support", "discard.type.doc.default"):
        with pytest.raises(ConfigException, match=key):
            AvroFormat().configure({key: "true"})
    AvroFormat().configure({"generalized.sum.type.support": "false", "schema.registry.url": "http://x"})


def test_schemas_cache_config_bounds_the_schema_cache() -> None:
    data = AvroData(AvroDataConfig.from_configs({"schemas.cache.config": "1"}))
    first = data.from_connect_schema(ORDER)
    assert data.from_connect_schema(ORDER) is first
    data.from_connect_schema(SHAPE)
    assert data.from_connect_schema(ORDER) is not first


def test_connect_meta_data_false_is_honoured_by_the_format() -> None:
    fmt = AvroFormat()
    fmt.configure({"connect.meta.data": "false"})
    assert fmt.from_connect(ORDER).text == GOLDEN_C


def test_optional_map_keys_and_scrubbed_names() -> None:
    optional_keys = SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    assert avro_text(optional_keys).startswith('{"type":"array"')
    assert avro_text(optional_keys, allow_optional_map_keys=True) == '{"type":"map","values":"int"}'
    odd = SchemaBuilder.struct().name("com.ex-ample.1Rec").field("a b", Schema.INT32_SCHEMA).build()
    assert avro_text(odd, scrub_invalid_names=True) == '{"type":"record","name":"x1Rec","namespace":"com.ex_ample","fields":[{"name":"a_b","type":"int"}],"connect.name":"com.ex-ample.1Rec"}'
    assert scrub_name("9a~") == "x9a_7E"


# --- Values -------------------------------------------------------------------------------------------

def order_value() -> Struct:
    return (Struct(ORDER).put("i8", -1).put("i16", 300).put("i32", 7).put("i64", 2**40).put("f32", 1.5)
            .put("f64", 0.1).put("flag", True).put("s", "é").put("b", b"\x00\xff").put("opt_s", None)
            .put("def_s", "y").put("opt_def_i", 6).put("doc_s", "d").put("amount", decimal.Decimal("-1.23"))
            .put("day", datetime.date(1970, 1, 4)).put("tod", datetime.time(0, 0, 1, 5000, tzinfo=UTC))
            .put("ts", datetime.datetime(2021, 3, 4, 5, 6, 7, 8000, tzinfo=UTC)).put("tags", ["a", "b"])
            .put("counts", {"k": 1}).put("by_id", {1: "one", 2: "two"})
            .put("addr", Struct(ADDR).put("street", "main").put("zip", None)))


def test_values_are_what_an_independent_reader_decodes() -> None:
    fs = AvroFormat().from_connect(ORDER)
    payload = fs.encode(order_value())
    assert fastavro_read(fs.text, payload) == {
        "i8": -1, "i16": 300, "i32": 7, "i64": 2**40, "f32": 1.5, "f64": 0.1, "flag": True, "s": "é",
        "b": b"\x00\xff", "opt_s": None, "def_s": "y", "opt_def_i": 6, "doc_s": "d",
        "amount": decimal.Decimal("-1.23"), "day": datetime.date(1970, 1, 4),
        "tod": datetime.time(0, 0, 1, 5000), "ts": datetime.datetime(2021, 3, 4, 5, 6, 7, 8000, tzinfo=UTC),
        "tags": ["a", "b"], "counts": {"k": 1},
        "by_id": [{"key": 1, "value": "one"}, {"key": 2, "value": "two"}],
        "addr": {"street": "main", "zip": None},
    }


# Avro binary of the same values written by Java: Confluent's AvroData.fromConnectData, then Avro's
# GenericDatumWriter with the schema AvroData made (what AbstractKafkaAvroSerializer does after the header)
JAVA_ORDER_BYTES = bytes.fromhex("01d8040e8080808080400000c03f9a9999999999b93f0104c3a90400ff000279000c0264028506da0f02c0e887baff5d04026102620002026b0200020402066f6e65040674776f0002086d61696e00")
JAVA_UNION_BYTES = [("string", "s", bytes.fromhex("040273")), ("P", "point", bytes.fromhex("0608")), (None, None, b"\x00")]


def test_values_are_byte_identical_to_javas_and_javas_read_back() -> None:
    fmt = AvroFormat()
    order = fmt.from_connect(ORDER)
    assert order.encode(order_value()) == JAVA_ORDER_BYTES
    assert fmt.from_registry(order.text, 3).decode(JAVA_ORDER_BYTES) == order_value()
    with_union = fmt.from_connect(WITH_UNION)
    for member, value, java in JAVA_UNION_BYTES:
        struct = Struct(WITH_UNION)
        if member is not None:
            member_value = Struct(UNION.fields[2].schema).put("q", 4) if value == "point" else value
            struct.put("u", Struct(UNION).put(member, member_value))
        assert with_union.encode(struct) == java
        assert fmt.from_registry(with_union.text, None).decode(java) == struct


def test_values_round_trip_through_the_registered_schema() -> None:
    fmt = AvroFormat()
    written = fmt.from_connect(ORDER)
    read = fmt.from_registry(written.text, 1)
    assert read.connect_schema == ORDER
    assert read.decode(written.encode(order_value())) == order_value()
    assert written.decode(written.encode(order_value())) == order_value()


def test_decimal_is_the_minimal_twos_complement_as_java_writes_it() -> None:
    fs = AvroFormat().from_connect(SchemaBuilder.struct().field("d", Decimal.schema(2)).build())
    value = Struct(fs.connect_schema).put("d", decimal.Decimal("-1.23"))
    assert fs.encode(value) == b"\x02\x85"  # length 1, then 0x85 (Java's BigInteger.toByteArray)


def test_defaults_fill_unset_fields_and_a_required_none_is_refused_with_javas_message() -> None:
    fs = AvroFormat().from_connect(ORDER)
    value = _with_none(order_value().put("opt_def_i", None), "def_s")
    decoded = fs.decode(fs.encode(value))
    assert (decoded.get("def_s"), decoded.get("opt_def_i")) == ("x", 5)
    with pytest.raises(DataException, match=r"^Found null value for non-optional schema$"):
        fs.encode(_with_none(order_value(), "i32"))
    with pytest.raises(DataException, match=r"^Found null value for non-optional schema$"):
        AvroFormat().from_connect(Schema.STRING_SCHEMA).encode(None)
    with pytest.raises(DataException, match="Mismatching struct schema"):
        fs.encode(Struct(SHAPE))


def _with_none(struct: Struct, field: str) -> Struct:
    """``struct`` with ``field`` unset (Struct.put refuses None for a required field, but a connector
    may leave one unset)."""
    found = struct.schema.field(field)
    assert found is not None
    struct._values[found.index] = None
    return struct


def test_top_level_bytes_are_raw_without_a_length_prefix() -> None:
    fmt = AvroFormat()
    raw = fmt.from_connect(Schema.BYTES_SCHEMA)
    assert raw.encode(b"\x01\x02") == b"\x01\x02"
    assert raw.decode(b"\x01\x02") == b"\x01\x02"
    dec = fmt.from_connect(Decimal.schema(2))
    assert dec.encode(decimal.Decimal("1.00")) == b"\x64"
    assert fmt.from_registry(dec.text, 1).decode(b"\x64") == decimal.Decimal("1.00")
    # anything else is Avro binary
    assert fmt.from_connect(Schema.STRING_SCHEMA).encode("hi") == b"\x04hi"
    assert fmt.from_connect(Schema.OPTIONAL_BYTES_SCHEMA).encode(b"\x01") == b"\x02\x02\x01"


@pytest.mark.parametrize(("schema", "value", "datum"), [
    (Schema.INT8_SCHEMA, -5, -5),
    (Schema.FLOAT32_SCHEMA, 0.5, 0.5),
    (Schema.OPTIONAL_STRING_SCHEMA, None, None),
    (Date.SCHEMA, datetime.date(1969, 12, 31), datetime.date(1969, 12, 31)),
    (SchemaBuilder.array(Schema.OPTIONAL_INT64_SCHEMA).build(), [1, None], [1, None]),
    (SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build(), {3: "c"}, [{"key": 3, "value": "c"}]),
])
def test_top_level_values(schema: Schema, value: Any, datum: Any) -> None:
    fmt = AvroFormat()
    fs = fmt.from_connect(schema)
    payload = fs.encode(value)
    assert fastavro_read(fs.text, payload) == datum
    assert fmt.from_registry(fs.text, 1).decode(payload) == value


def test_union_struct_values_and_enums() -> None:
    fmt = AvroFormat()
    fs = fmt.from_connect(WITH_UNION)
    point = Struct(UNION.fields[2].schema).put("q", 4)
    for member, value, datum in [("string", "s", "s"), ("int", 3, 3), ("P", point, {"q": 4})]:
        v = Struct(WITH_UNION).put("u", Struct(UNION).put(member, value))
        payload = fs.encode(v)
        assert fastavro_read(fs.text, payload) == {"u": datum}
        assert fs.decode(payload) == v
    assert fs.decode(fs.encode(Struct(WITH_UNION))) == Struct(WITH_UNION)

    enhanced = AvroFormat()
    enhanced.configure({"enhanced.avro.schema.support": "true"})
    read = enhanced.from_registry(PLAIN_G, 1)
    u = read.connect_schema.fields[2].schema
    value = Struct(read.connect_schema).put("color", "GREEN").put("n", None).put("u", Struct(u).put("string", "x"))
    payload = read.encode(value)
    assert fastavro_read(PLAIN_G, payload) == {"color": "GREEN", "n": None, "u": "x"}
    assert read.decode(payload) == value


def test_a_union_member_is_found_by_the_datum_read() -> None:
    text = '{"type":"record","name":"R","fields":[{"name":"u","type":["int","long","string"]}]}'
    read = AvroFormat().from_registry(text, 1)
    u = read.connect_schema.fields[0].schema
    for member, value in [("int", 1), ("long", 2**40), ("string", "s")]:
        payload = fastavro_write(text, {"u": value})
        assert read.decode(payload) == Struct(read.connect_schema).put("u", Struct(u).put(member, value))
    # the branch written is the field's, as Java picks it by the value's class (a Long is a long),
    # and read back it is that branch's field again, not the first member that would hold it
    small_long = Struct(read.connect_schema).put("u", Struct(u).put("long", 1))
    assert read.encode(small_long) == b"\x02\x02"
    assert read.decode(b"\x02\x02") == small_long


def fastavro_write(text: str, datum: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(json.loads(text)), datum)
    return out.getvalue()


def test_a_latest_schema_encodes_a_struct_of_another_schema_by_field_name() -> None:
    fmt = AvroFormat()
    v2 = (SchemaBuilder.struct().name("com.example.V").field("id", Schema.INT64_SCHEMA)
          .field("note", SchemaBuilder.string().optional().build()).field("n", Schema.INT32_SCHEMA).build())
    latest = fmt.from_registry(fmt.from_connect(v2).text, 2)
    v1 = SchemaBuilder.struct().name("com.example.V").field("n", Schema.INT32_SCHEMA).field("id", Schema.INT64_SCHEMA).build()
    payload = latest.encode(Struct(v1).put("n", 1).put("id", 9))
    assert fastavro_read(latest.text, payload) == {"id": 9, "note": None, "n": 1}


def test_the_record_name_is_the_full_name_of_a_record_only() -> None:
    fmt = AvroFormat()
    assert fmt.from_connect(ORDER).record_name == "com.example.Order"
    assert fmt.from_connect(Schema.STRING_SCHEMA).record_name is None
    assert fmt.from_connect(ADDR).record_name is None  # an optional struct is a union


def test_ignore_default_for_nullables_writes_null_for_an_unset_optional_field() -> None:
    schema = SchemaBuilder.struct().field("o", SchemaBuilder.int32().optional().default_value(5).build()).build()
    default = AvroFormat()
    ignoring = AvroFormat()
    ignoring.configure({"ignore.default.for.nullables": "true"})
    assert fastavro_read(default.from_connect(schema).text, default.from_connect(schema).encode(Struct(schema))) == {"o": 5}
    assert fastavro_read(ignoring.from_connect(schema).text, ignoring.from_connect(schema).encode(Struct(schema))) == {"o": None}


def test_singleton_unions_are_flattened_unless_configured_not_to() -> None:
    text = '{"type":"record","name":"R","fields":[{"name":"s","type":["string"]}]}'
    assert AvroData().to_connect_schema(parse(text)).fields[0].schema == Schema.STRING_SCHEMA
    kept = AvroData(AvroDataConfig(flatten_singleton_unions=False)).to_connect_schema(parse(text)).fields[0].schema
    assert kept.name == "io.confluent.connect.avro.Union" and [f.name for f in kept.fields] == ["string"]


def test_fixed_values_and_a_recursive_schema_refused() -> None:
    read = AvroFormat().from_registry(PLAIN_F, 1)
    value = Struct(read.connect_schema).put("i", 1).put("f", b"abcd").put("m", {"x": 2})
    payload = read.encode(value)
    assert fastavro_read(PLAIN_F, payload) == {"i": 1, "f": b"abcd", "m": {"x": 2}}
    assert read.decode(payload) == value
    recursive = '{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]}'
    with pytest.raises(DataException, match="Recursive Avro schemas are not supported: Node"):
        AvroFormat().from_registry(recursive, 1)


# --- Differences a differential run against Confluent's AvroData found ----------------------------------
# Each expected text and payload below is the real output of Confluent's AvroData (Avro 1.12, JDK 25,
# default config unless stated), the payload written by Avro's GenericDatumWriter.

def java_case(schema: Schema, **config: Any) -> Any:
    fmt = AvroFormat()
    fmt.configure(config)
    return fmt.from_connect(schema)


def test_a_second_type_of_a_printed_name_is_printed_by_name_and_written_as_itself() -> None:
    # Avro 1.12 prints any type whose full name it printed before as a name reference, even a
    # different one: both maps are "MapEntry", and the second is written with its own types
    schema = (SchemaBuilder.struct().name("com.ex.Maps")
              .field("a", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.STRING_SCHEMA).build())
              .field("b", SchemaBuilder.map(Schema.INT64_SCHEMA, Schema.BOOLEAN_SCHEMA).build()).build())
    fs = java_case(schema)
    assert fs.text == '{"type":"record","name":"Maps","namespace":"com.ex","fields":[{"name":"a","type":{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}},{"name":"b","type":{"type":"array","items":"io.confluent.connect.avro.MapEntry"}}],"connect.name":"com.ex.Maps"}'
    value = Struct(schema).put("a", {1: "x"}).put("b", {5: True, -1: False})
    assert fs.encode(value).hex() == "0202027800040a01010000"


def test_a_type_without_namespace_referenced_inside_a_namespace() -> None:
    inner = SchemaBuilder.struct().name("Inner").field("x", Schema.INT32_SCHEMA)
    schema = (SchemaBuilder.struct().name("com.ex.Outer").field("p", inner.build())
              .field("q", inner.optional().build()).build())
    fs = java_case(schema)
    assert fs.text == '{"type":"record","name":"Outer","namespace":"com.ex","fields":[{"name":"p","type":{"type":"record","name":"Inner","namespace":"","fields":[{"name":"x","type":"int"}],"connect.name":"Inner"}},{"name":"q","type":["null","Inner"],"default":null}],"connect.name":"com.ex.Outer"}'
    p, q = schema.fields[0].schema, schema.fields[1].schema
    value = Struct(schema).put("p", Struct(p).put("x", 1)).put("q", Struct(q).put("x", 2))
    payload = fs.encode(value)
    assert payload.hex() == "020204"
    back = AvroFormat().from_registry(fs.text, 1).decode(payload)
    assert (back.get("p").get("x"), back.get("q").get("x")) == (1, 2)


def test_characters_beyond_the_bmp_are_written_raw_in_the_schema_text() -> None:
    fs = java_case(SchemaBuilder.string().doc("smile \U0001F600 \x01 é").build())
    assert fs.text == '{"type":"string","connect.doc":"smile \U0001F600 \\u0001 é"}'
    assert fs.encode("\U0001F600").hex() == "08f09f9880"


def test_a_string_map_is_written_in_java_hashmap_order() -> None:
    fs = java_case(SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
    keys = ["hi", "ü", "\U0001F600", "Aa", "BB", "a", "b", "zz", "key9", "k10", "k11", "k12", "k13"]
    value = {k: i for i, k in enumerate(keys, 1)}
    payload = fs.encode(value)
    assert payload.hex() == "1a044161080442420a047a7a100468690202610c02620e086b65793912066b313116066b313014066b31331a066b31321808f09f98800604c3bc0400"
    assert AvroFormat().from_registry(fs.text, 1).decode(payload) == value


@pytest.mark.parametrize(("schema", "config", "message"), [
    (SchemaBuilder.struct().name("com.ex.R-1").field("a", Schema.INT32_SCHEMA).build(), {}, "Illegal character in: R-1"),
    (SchemaBuilder.struct().name("R").field("2nd", Schema.INT32_SCHEMA).build(), {}, "Illegal initial character: 2nd"),
    (SchemaBuilder.string().name("E").parameter("io.confluent.connect.avro.Enum", "E")
     .parameter("io.confluent.connect.avro.Enum.a-b", "a-b").build(),
     {"enhanced.avro.schema.support": "true"}, "Illegal character in: a-b"),
    (SchemaBuilder.string().name("E").parameter("io.confluent.connect.avro.Enum", "ns.E-1")
     .parameter("io.confluent.connect.avro.Enum.A", "A").build(),
     {"enhanced.avro.schema.support": "true"}, "Illegal character in: E-1"),
    (SchemaBuilder.bytes().name("ns.F-1").parameter("connect.fixed.size", "2").build(), {}, "Illegal character in: F-1"),
    (SchemaBuilder.struct().name("ns.A\U0001F600").build(), {}, "Illegal character in: A\U0001F600"),
    (SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
     .field("Union", SchemaBuilder.struct().name("io.confluent.connect.avro.Union").optional()
            .field("int", Schema.OPTIONAL_INT32_SCHEMA).build())
     .field("string", Schema.OPTIONAL_STRING_SCHEMA).build(), {}, 'Nested union: [["int"],"string"]'),
    (SchemaBuilder.struct().name("io.confluent.connect.avro.Union").field("int", Schema.OPTIONAL_INT32_SCHEMA)
     .field("date", Date.builder().optional().build()).build(), {}, "Duplicate in union:int"),
], ids=["record", "field", "symbol", "enum", "fixed", "astral", "nested-union", "duplicate-in-union"])
def test_names_and_unions_avro_refuses_are_refused_with_avros_message(
        schema: Schema, config: dict[str, str], message: str) -> None:
    with pytest.raises(DataException) as raised:
        java_case(schema, **config)
    assert str(raised.value) == message


def test_names_of_unicode_letters_are_taken_and_scrubbed_names_are_written_and_read() -> None:
    schema = SchemaBuilder.struct().name("ns.Ünï").field("é1", Schema.INT32_SCHEMA).build()
    assert java_case(schema).text == '{"type":"record","name":"Ünï","namespace":"ns","fields":[{"name":"é1","type":"int"}],"connect.name":"ns.Ünï"}'
    scrubbed = SchemaBuilder.struct().name("R").field("2nd", Schema.INT32_SCHEMA).build()
    fs = java_case(scrubbed, **{"scrub.invalid.names": "true"})
    assert fs.text == '{"type":"record","name":"R","fields":[{"name":"x2nd","type":"int"}],"connect.name":"R"}'
    payload = fs.encode(Struct(scrubbed).put("2nd", 3))
    assert payload.hex() == "06"
    assert fs.decode(payload) == Struct(scrubbed).put("2nd", 3)


def test_a_map_default_with_a_null_key_is_refused() -> None:
    key = SchemaBuilder.string().optional().build()
    schema = (SchemaBuilder.struct().name("R")
              .field("m", SchemaBuilder.map(key, Schema.INT32_SCHEMA).default_value({None: 1}).build()).build())
    # Java fails too (a NullPointerException), rather than registering a "None" key
    with pytest.raises(DataException):
        java_case(schema, **{"allow.optional.map.keys": "true"})


def test_a_union_of_one_member_in_an_optional_struct_is_written_as_java_writes_it() -> None:
    union = (SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
             .field("map", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT64_SCHEMA).optional().build()).build())
    schema = SchemaBuilder.struct().name("R").optional().field("u", union).build()
    fs = java_case(schema)
    assert fs.text == '["null",{"type":"record","name":"R","fields":[{"name":"u","type":[{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"long"}]}}]}],"connect.name":"R"}]'
    value = Struct(schema).put("u", Struct(union).put("map", {7: 8}))
    assert fs.encode(value).hex() == "0200020e1000"


UNION6 = (SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
          .field("int", Schema.OPTIONAL_INT32_SCHEMA).field("long", Schema.OPTIONAL_INT64_SCHEMA)
          .field("float", Schema.OPTIONAL_FLOAT32_SCHEMA).field("double", Schema.OPTIONAL_FLOAT64_SCHEMA)
          .field("array", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
          .field("map", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build()).build())
IN_OPTIONAL = SchemaBuilder.struct().name("R").optional().field("u", UNION6).build()


@pytest.mark.parametrize(("member", "value", "java_hex"), [
    ("long", 5, "02020a"),
    ("double", 1.5, "0206000000000000f83f"),
    ("array", ["a", "b"], "0208040261026200"),
    ("map", {"k": "v"}, "020a02026b027600"),
])
def test_each_union_member_is_written_in_its_own_branch_and_read_back_to_it(
        member: str, value: Any, java_hex: str) -> None:
    fs = java_case(IN_OPTIONAL)
    assert fs.text == '["null",{"type":"record","name":"R","fields":[{"name":"u","type":["int","long","float","double",{"type":"array","items":"string"},{"type":"map","values":"string"}]}],"connect.name":"R"}]'
    struct = Struct(IN_OPTIONAL).put("u", Struct(UNION6).put(member, value))
    payload = fs.encode(struct)
    assert payload.hex() == java_hex
    read = AvroFormat().from_registry(fs.text, 1)
    back = read.decode(payload)
    assert back.get("u").get(member) == value
    assert read.encode(back) == payload


def test_a_union_with_field_names_of_its_own_encodes() -> None:
    # Java's fromConnectData takes any field names; only reading maps members to Java's names
    union = (SchemaBuilder.struct().name("io.confluent.connect.avro.Union")
             .field("first", Schema.OPTIONAL_INT32_SCHEMA).field("second", Schema.OPTIONAL_STRING_SCHEMA).build())
    fs = java_case(union)
    assert fs.text == '["int","string"]'
    assert fs.encode(Struct(union).put("second", "x")).hex() == "020278"


# Avro texts read as Java's toConnectSchema reads them and written again (Java's output verbatim): a
# field's own Avro default goes through Avro's Java objects, connect.default through JSON nodes.
READ_DEFAULTS = [
    ('{"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "array", "items": [{"type": "long", "connect.default": 5}, "null"]}, "default": [1, 2]}]}',
     '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":[{"type":"long","connect.default":5},"null"]},"default":[1,2]}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "array", "items": ["null", {"type": "record", "name": "E", "fields": []}]}, "default": [{}]}]}',
     '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":["null",{"type":"record","name":"E","fields":[],"connect.name":"E"}]},"default":[{}]}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "a", "type": [{"type": "array", "items": [{"type": "double", "connect.default": 10000000.0}, "null"], "connect.default": [1.5]}, "null"]}]}',
     '{"type":"record","name":"R","fields":[{"name":"a","type":["null",{"type":"array","items":[{"type":"double","connect.default":1.0E7},"null"]}],"default":null}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "m", "type": {"type": "map", "values": "int"}, "default": {"zz": 1, "a": 2, "hi": 3, "Aa": 4, "BB": 5}}]}',
     '{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"int"},"default":{"zz":1,"Aa":4,"BB":5,"a":2,"hi":3}}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "m", "type": {"type": "array", "items": {"type": "record", "name": "MapEntry", "namespace": "io.confluent.connect.avro", "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "string"}]}}, "default": []}]}',
     '{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}},"default":[]}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "m", "type": {"type": "array", "items": {"type": "record", "name": "MapEntry", "namespace": "io.confluent.connect.avro", "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "string"}]}}, "default": [{"key": 1, "value": "a"}]}]}',
     '{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]}}}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "u", "type": ["int", "string"], "default": 7}]}',
     '{"type":"record","name":"R","fields":[{"name":"u","type":["int","string"],"default":7}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "array", "items": "int", "connect.default": [1, null, 3]}}, {"name": "s", "type": {"type": "array", "items": "string", "connect.default": ["x", null]}}]}',
     '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int","connect.default":[1,0,3]},"default":[1,0,3]},{"name":"s","type":{"type":"array","items":"string","connect.default":["x","null"]},"default":["x","null"]}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "a", "type": {"type": "int", "connect.type": "int8"}, "default": 300}]}',
     '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"int","connect.type":"int8"},"default":44}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "r", "type": {"type": "record", "name": "In", "fields": [{"name": "x", "type": "int", "default": 4}, {"name": "y", "type": "string"}]}, "default": {"y": "q"}}]}',
     '{"type":"record","name":"R","fields":[{"name":"r","type":{"type":"record","name":"In","fields":[{"name":"x","type":"int","default":4},{"name":"y","type":"string"}],"connect.name":"In"},"default":{"x":4,"y":"q"}}],"connect.name":"R"}'),
    ('{"type": "record", "name": "R", "fields": [{"name": "r", "type": {"type": "record", "name": "In", "fields": [{"name": "x", "type": {"type": "int", "connect.type": "int8"}, "default": 4}, {"name": "y", "type": "string"}]}, "default": {"y": "q"}}]}',
     '{"type":"record","name":"R","fields":[{"name":"r","type":{"type":"record","name":"In","fields":[{"name":"x","type":{"type":"int","connect.type":"int8"},"default":4},{"name":"y","type":"string"}],"connect.name":"In"}}],"connect.name":"R"}'),
]


@pytest.mark.parametrize(("text", "java_written_again"), READ_DEFAULTS, ids=['array-of-optional-with-default', 'array-of-optional-struct', 'connect-default-only-drops-nested-optional-with-default', 'map-default-in-hashmap-order', 'empty-map-entry-default', 'map-entry-default-dropped', 'union-field-default', 'json-null-in-connect-default', 'int8-default-narrowed', 'missing-record-field-takes-its-default', 'missing-int8-record-field-drops-the-default'])
def test_defaults_read_from_avro_as_java_reads_them(text: str, java_written_again: str) -> None:
    back = AvroData().to_connect_schema(parse(text))
    assert AvroData().from_connect_schema(back).text() == java_written_again


def decimal_schema(scale: int, **params: str) -> Schema:
    builder = Decimal.builder(scale)
    for key, value in params.items():
        builder.parameter(key.replace("_", "."), value)
    return builder.build()


@pytest.mark.parametrize(("schema", "value", "java_text", "java_hex"), [
    # scale above the precision, or a negative precision: Java's legacy path, nothing checked
    (decimal_schema(2, connect_decimal_precision="0"), decimal.Decimal("1.25"),
     '{"type":"bytes","scale":2,"precision":0,"connect.version":1,"connect.parameters":{"scale":"2","connect.decimal.precision":"0"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}', "7d"),
    (decimal_schema(0, connect_decimal_precision="-1"), decimal.Decimal("7"),
     '{"type":"bytes","scale":0,"precision":-1,"connect.version":1,"connect.parameters":{"scale":"0","connect.decimal.precision":"-1"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}', "07"),
    (decimal_schema(0, connect_decimal_precision="4", connect_fixed_size="2"), decimal.Decimal("-5"),
     '{"type":"fixed","name":"Decimal","namespace":"org.apache.kafka.connect.data","size":2,"scale":0,"precision":4,"connect.version":1,"connect.parameters":{"scale":"0","connect.decimal.precision":"4","connect.fixed.size":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}', "fffb"),
], ids=["scale-above-precision", "negative-precision", "fixed"])
def test_decimal_precision_is_checked_only_where_java_checks_it(
        schema: Schema, value: decimal.Decimal, java_text: str, java_hex: str) -> None:
    fs = java_case(schema)
    assert fs.text == java_text
    assert fs.encode(value).hex() == java_hex


@pytest.mark.parametrize(("schema", "message"), [
    (decimal_schema(0, connect_decimal_precision="0"), "Invalid decimal precision: 0 (must be positive)"),
    (decimal_schema(0, connect_decimal_precision="10", connect_fixed_size="2"), "fixed(2) cannot store 10 digits (max 4)"),
], ids=["zero", "beyond-the-fixed-size"])
def test_decimal_precision_avro_refuses(schema: Schema, message: str) -> None:
    with pytest.raises(DataException) as raised:
        java_case(schema)
    assert str(raised.value) == message
