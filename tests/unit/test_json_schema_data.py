"""The Connect ⇄ JSON Schema mapping against Confluent's ``JsonSchemaData``.

The expected texts are what Java's ``JsonSchemaData.fromConnectSchema(...).canonicalString()``
printed (Confluent's source compiled against everit-json-schema 1.14.4 and connect-api 3.9.0, run on
JDK 17.0.15), with one normalisation: the members of each ``oneOf`` are listed null first, as we write
them, because Java orders them by hash codes that change from one JVM run to the next. The Java run's
other answers (values, schemas read back) are written out in the tests below likewise.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from connect_runtime.api.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.converters.schema_registry import registry_converter
from connect_runtime.converters.schema_registry.json_schema_converter import JsonSchemaConverter
from connect_runtime.converters.schema_registry.json_schema_data import (
    JsonSchemaDataConfig,
    ValueMapper,
    decode_text,
    encode_tree,
    from_connect_schema,
    schema_text,
    to_connect_schema,
)
from connect_runtime.converters.schema_registry.json_schema_format import JsonSchemaFormat

S = Schema
ENUM = "io.confluent.connect.json.Enum"


def config(**settings: str) -> JsonSchemaDataConfig:
    return JsonSchemaDataConfig.from_configs({key.replace("_", "."): value for key, value in settings.items()})


def point(optional: bool = False) -> Schema:
    builder = (SchemaBuilder.struct().name("com.example.Point").version(1)
               .field("x", S.FLOAT64_SCHEMA).field("y", S.OPTIONAL_FLOAT64_SCHEMA))
    return (builder.optional() if optional else builder).build()


def order() -> Schema:
    """Every Connect type in one struct: primitives, optionals, a default, logical types, an array,
    maps with string and int keys, and named, optional and unnamed nested structs."""
    return (
        SchemaBuilder.struct().name("com.example.Order").version(2).doc("an order")
        .field("i8", S.INT8_SCHEMA).field("i16", S.INT16_SCHEMA).field("i32", S.INT32_SCHEMA)
        .field("i64", S.INT64_SCHEMA).field("f32", S.FLOAT32_SCHEMA).field("f64", S.FLOAT64_SCHEMA)
        .field("flag", S.BOOLEAN_SCHEMA).field("s", S.STRING_SCHEMA).field("b", S.BYTES_SCHEMA)
        .field("opt_s", S.OPTIONAL_STRING_SCHEMA).field("def_s", SchemaBuilder.string().default_value("x").build())
        .field("amount", Decimal.schema(2)).field("day", Date.builder().build()).field("tod", Time.builder().build())
        .field("ts", Timestamp.builder().build()).field("opt_ts", Timestamp.builder().optional().build())
        .field("tags", SchemaBuilder.array(S.STRING_SCHEMA).build())
        .field("attrs", SchemaBuilder.map(S.STRING_SCHEMA, S.OPTIONAL_INT64_SCHEMA).build())
        .field("by_id", SchemaBuilder.map(S.INT32_SCHEMA, S.STRING_SCHEMA).optional().build())
        .field("at", point()).field("maybe_at", point(optional=True))
        .field("anon", SchemaBuilder.struct().field("a", S.INT32_SCHEMA).optional().build())
        .build()
    )


def order_value() -> Struct:
    return (
        Struct(order()).put("i8", -8).put("i16", 300).put("i32", 70000).put("i64", 1 << 40).put("f32", 1.1)
        .put("f64", 0.1).put("flag", True).put("s", 'héllo "q" /\x01').put("b", b"\x00\x01\xff")
        .put("amount", decimal.Decimal("-12.34")).put("day", datetime.date(2022, 1, 8))
        .put("tod", datetime.time(1, 2, 3, 4000)).put("ts", datetime.datetime(2023, 11, 14, 22, 13, 20, 123000,
                                                                          datetime.UTC))
        .put("tags", ["a", "b"]).put("attrs", {"k": 1}).put("by_id", {7: "seven"})
        .put("at", Struct(point()).put("x", 1.5))
    )


_NAMES = ["id", "name", "email", "created_at", "updated_at", "status", "amount", "currency", "country", "city",
          "zip", "street", "phone", "note", "flag", "count", "ratio", "score", "kind", "seq"]


def wide(name: str, count: int, field_schema: Schema) -> Schema:
    builder = SchemaBuilder.struct().name(name)
    for field in _NAMES[:count]:
        builder.field(field, field_schema)
    return builder.build()


def string_with(**parameters: str) -> Schema:
    return SchemaBuilder.string().parameters(parameters).build()


SCHEMAS: dict[str, tuple[Callable[[], Schema], dict[str, str]]] = {
    **{name: (functools.partial(getattr, S, f"{name}_SCHEMA"), {}) for name in (
        "STRING", "OPTIONAL_STRING", "INT8", "INT16", "INT32", "INT64", "FLOAT32", "FLOAT64", "BOOLEAN", "BYTES",
        "OPTIONAL_INT16", "OPTIONAL_BOOLEAN")},
    "Decimal2": (lambda: Decimal.schema(2), {}),
    "Decimal2 NUMERIC": (lambda: Decimal.schema(2), {"decimal.format": "NUMERIC"}),
    "Decimal2 precision": (lambda: Decimal.builder(2).parameter("connect.decimal.precision", "10").build(), {}),
    "Date": (lambda: Date.builder().build(), {}),
    "Time": (lambda: Time.builder().build(), {}),
    "Timestamp": (lambda: Timestamp.builder().build(), {}),
    "Timestamp optional": (lambda: Timestamp.builder().optional().build(), {}),
    "array<optional int64>": (lambda: SchemaBuilder.array(S.OPTIONAL_INT64_SCHEMA).build(), {}),
    "map<string,int32>": (lambda: SchemaBuilder.map(S.STRING_SCHEMA, S.INT32_SCHEMA).build(), {}),
    "map<int32,string>": (lambda: SchemaBuilder.map(S.INT32_SCHEMA, S.STRING_SCHEMA).build(), {}),
    "map<optstring,optstring> optional": (
        lambda: SchemaBuilder.map(S.OPTIONAL_STRING_SCHEMA, S.OPTIONAL_STRING_SCHEMA).optional().build(), {}),
    "enum": (lambda: string_with(**{ENUM: "", f"{ENUM}.a": "a", f"{ENUM}.b": "b"}), {}),
    "string with doc default name version params": (
        lambda: SchemaBuilder.string().name("n.S").version(3).doc("a doc").default_value('x"/é')
        .parameter("p1", "v1").parameter("k", "w").build(), {}),
    "int8 default": (lambda: SchemaBuilder.int8().default_value(3).build(), {}),
    "float32 default": (lambda: SchemaBuilder.float32().default_value(1.5).build(), {}),
    "float64 default": (lambda: SchemaBuilder.float64().default_value(0.1).build(), {}),
    "bytes default": (lambda: SchemaBuilder.bytes().default_value(b"\x01\x02").build(), {}),
    "bool default": (lambda: SchemaBuilder.bool().default_value(True).build(), {}),
    "optional int32 default": (lambda: SchemaBuilder.int32().optional().default_value(5).build(), {}),
    "decimal default": (lambda: Decimal.builder(2).default_value(decimal.Decimal("1.25")).build(), {}),
    "Order": (order, {}),
    "Point no additional": (point, {"object.additional.properties": "false"}),
    "optional Point": (lambda: point(optional=True), {}),
    "unnamed struct": (
        lambda: SchemaBuilder.struct().field("a", S.INT32_SCHEMA).field("b", S.OPTIONAL_STRING_SCHEMA).build(), {}),
    # Properties print in java.util.HashMap order: 12, 13 and 20 fields cross its resize thresholds.
    "Wide20": (lambda: wide("Wide", 20, S.OPTIONAL_STRING_SCHEMA), {}),
    "W13": (lambda: wide("W13", 13, S.INT32_SCHEMA), {}),
    "W12": (lambda: wide("W12", 12, S.INT32_SCHEMA), {}),
    "many params": (lambda: string_with(a="1", b="2", c="3", dd="4", scale="5", zzz="6",
                                        **{"connect.decimal.precision": "7"}), {}),
    # everit prints an enum's values from a HashSet, and properties from the builder's HashMap as it is.
    "enum in a HashSet's order": (lambda: string_with(**{ENUM: "", f"{ENUM}.GREEN": "GREEN", f"{ENUM}.X": "X",
                                                         f"{ENUM}.BLUE": "BLUE"}), {}),
    "three properties": (lambda: SchemaBuilder.struct().field("x", S.STRING_SCHEMA).field("c", S.STRING_SCHEMA)
                         .field("id", S.STRING_SCHEMA).build(), {}),
    # Defaults print through org.json: objects in HashMap order, numbers without trailing fraction zeros
    # and FLOAT32 inside a container as the double it widens to.
    "map<string,int32> default": (lambda: SchemaBuilder.map(S.STRING_SCHEMA, S.INT32_SCHEMA)
                                  .default_value({"x": 1, "c": 2, "id": 3}).build(), {}),
    "map<int32,string> default": (lambda: SchemaBuilder.map(S.INT32_SCHEMA, S.STRING_SCHEMA)
                                  .default_value({1: "a"}).build(), {}),
    "float defaults": (lambda: SchemaBuilder.struct().field("f64", SchemaBuilder.float64().default_value(2.0).build())
                       .field("f32s", SchemaBuilder.array(S.FLOAT32_SCHEMA).default_value([1e-07, 2.0]).build())
                       .build(), {}),
    "NUMERIC decimals in a default": (
        lambda: SchemaBuilder.array(Decimal.schema(2)).default_value(
            [decimal.Decimal("1.50"), decimal.Decimal("100.00")]).build(), {"decimal.format": "NUMERIC"}),
    # The registered text is Jackson's String: characters outside the BMP stay raw.
    "astral characters": (lambda: SchemaBuilder.string().doc("\U0001F600 \x01").build(), {}),
}

JAVA_TEXTS: dict[str, str] = {
    'Point no additional': (
        '{"type":"object","additionalProperties":false,"title":"com.example.Point","connect.version":1,'
        '"properties":{"x":{"type":"number","connect.index":0,"connect.type":"float64"},'
        '"y":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"number","connect.type":"float64"}]}}}'
    ),
    'STRING': '{"type":"string"}',
    'OPTIONAL_STRING': '{"oneOf":[{"type":"null"},{"type":"string"}]}',
    'INT8': '{"type":"integer","connect.type":"int8"}',
    'INT16': '{"type":"integer","connect.type":"int16"}',
    'INT32': '{"type":"integer","connect.type":"int32"}',
    'INT64': '{"type":"integer","connect.type":"int64"}',
    'FLOAT32': '{"type":"number","connect.type":"float32"}',
    'FLOAT64': '{"type":"number","connect.type":"float64"}',
    'BOOLEAN': '{"type":"boolean"}',
    'BYTES': '{"type":"string","connect.type":"bytes"}',
    'OPTIONAL_INT16': '{"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int16"}]}',
    'OPTIONAL_BOOLEAN': '{"oneOf":[{"type":"null"},{"type":"boolean"}]}',
    'Decimal2': (
        '{"type":"string","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,'
        '"connect.type":"bytes","connect.parameters":{"scale":"2"}}'
    ),
    'Decimal2 NUMERIC': (
        '{"type":"number","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,'
        '"connect.type":"bytes","connect.parameters":{"scale":"2"}}'
    ),
    'Decimal2 precision': (
        '{"type":"string","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,'
        '"connect.type":"bytes","connect.parameters":{"scale":"2","connect.decimal.precision":"10"}}'
    ),
    'Date': (
        '{"type":"integer","title":"org.apache.kafka.connect.data.Date","connect.version":1,'
        '"connect.type":"int32"}'
    ),
    'Time': (
        '{"type":"integer","title":"org.apache.kafka.connect.data.Time","connect.version":1,'
        '"connect.type":"int32"}'
    ),
    'Timestamp': (
        '{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp","connect.version":1,'
        '"connect.type":"int64"}'
    ),
    'Timestamp optional': (
        '{"oneOf":[{"type":"null"},{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp",'
        '"connect.version":1,"connect.type":"int64"}]}'
    ),
    'array<optional int64>': (
        '{"type":"array","items":{"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int64"}]}}'
    ),
    'map<string,int32>': (
        '{"type":"object","connect.type":"map","additionalProperties":{"type":"integer",'
        '"connect.type":"int32"}}'
    ),
    'map<int32,string>': (
        '{"type":"array","connect.type":"map","items":{"type":"object",'
        '"properties":{"value":{"type":"string","connect.index":1},"key":{"type":"integer","connect.index":0,'
        '"connect.type":"int32"}}}}'
    ),
    'map<optstring,optstring> optional': (
        '{"oneOf":[{"type":"null"},{"type":"array","connect.type":"map","items":{"type":"object",'
        '"properties":{"value":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"key":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"string"}]}}}}]}'
    ),
    'enum': '{"enum":["a","b"]}',
    'string with doc default name version params': (
        '{"type":"string","title":"n.S","description":"a doc","default":"x\\"/é","connect.version":3,'
        '"connect.parameters":{"p1":"v1","k":"w"}}'
    ),
    'int8 default': '{"type":"integer","default":3,"connect.type":"int8"}',
    'float32 default': '{"type":"number","default":1.5,"connect.type":"float32"}',
    'float64 default': '{"type":"number","default":0.1,"connect.type":"float64"}',
    'bytes default': '{"type":"string","default":"AQI=","connect.type":"bytes"}',
    'bool default': '{"default":true,"type":"boolean"}',
    'optional int32 default': '{"oneOf":[{"type":"null"},{"type":"integer","default":5,"connect.type":"int32"}]}',
    'decimal default': (
        '{"type":"string","title":"org.apache.kafka.connect.data.Decimal","default":"fQ==",'
        '"connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"2"}}'
    ),
    'Order': (
        '{"type":"object","title":"com.example.Order","description":"an order","connect.version":2,'
        '"properties":{"opt_ts":{"connect.index":15,"oneOf":[{"type":"null"},{"type":"integer",'
        '"title":"org.apache.kafka.connect.data.Timestamp","connect.version":1,"connect.type":"int64"}]},'
        '"maybe_at":{"connect.index":20,"oneOf":[{"type":"null"},{"type":"object",'
        '"title":"com.example.Point","connect.version":1,"properties":{"x":{"type":"number",'
        '"connect.index":0,"connect.type":"float64"},"y":{"connect.index":1,"oneOf":[{"type":"null"},'
        '{"type":"number","connect.type":"float64"}]}}}]},"anon":{"connect.index":21,'
        '"oneOf":[{"type":"null"},{"type":"object","properties":{"a":{"type":"integer","connect.index":0,'
        '"connect.type":"int32"}}}]},"b":{"type":"string","connect.index":8,"connect.type":"bytes"},'
        '"amount":{"type":"string","title":"org.apache.kafka.connect.data.Decimal","connect.index":11,'
        '"connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"2"}},'
        '"flag":{"connect.index":6,"type":"boolean"},"f32":{"type":"number","connect.index":4,'
        '"connect.type":"float32"},"f64":{"type":"number","connect.index":5,"connect.type":"float64"},'
        '"i64":{"type":"integer","connect.index":3,"connect.type":"int64"},"tod":{"type":"integer",'
        '"title":"org.apache.kafka.connect.data.Time","connect.index":13,"connect.version":1,'
        '"connect.type":"int32"},"i32":{"type":"integer","connect.index":2,"connect.type":"int32"},'
        '"def_s":{"type":"string","default":"x","connect.index":10},"i8":{"type":"integer","connect.index":0,'
        '"connect.type":"int8"},"i16":{"type":"integer","connect.index":1,"connect.type":"int16"},'
        '"tags":{"type":"array","connect.index":16,"items":{"type":"string"}},"attrs":{"type":"object",'
        '"connect.index":17,"connect.type":"map","additionalProperties":{"oneOf":[{"type":"null"},'
        '{"type":"integer","connect.type":"int64"}]}},"s":{"type":"string","connect.index":7},'
        '"at":{"type":"object","title":"com.example.Point","connect.index":19,"connect.version":1,'
        '"properties":{"x":{"type":"number","connect.index":0,"connect.type":"float64"},'
        '"y":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"number","connect.type":"float64"}]}}},'
        '"opt_s":{"connect.index":9,"oneOf":[{"type":"null"},{"type":"string"}]},"day":{"type":"integer",'
        '"title":"org.apache.kafka.connect.data.Date","connect.index":12,"connect.version":1,'
        '"connect.type":"int32"},"by_id":{"connect.index":18,"oneOf":[{"type":"null"},{"type":"array",'
        '"connect.type":"map","items":{"type":"object","properties":{"value":{"type":"string",'
        '"connect.index":1},"key":{"type":"integer","connect.index":0,"connect.type":"int32"}}}}]},'
        '"ts":{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp","connect.index":14,'
        '"connect.version":1,"connect.type":"int64"}}}'
    ),
    'optional Point': (
        '{"oneOf":[{"type":"null"},{"type":"object","title":"com.example.Point","connect.version":1,'
        '"properties":{"x":{"type":"number","connect.index":0,"connect.type":"float64"},'
        '"y":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"number","connect.type":"float64"}]}}}]}'
    ),
    'unnamed struct': (
        '{"type":"object","properties":{"a":{"type":"integer","connect.index":0,"connect.type":"int32"},'
        '"b":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"string"}]}}}'
    ),
    'Wide20': (
        '{"type":"object","title":"Wide","properties":{"zip":{"connect.index":10,"oneOf":[{"type":"null"},'
        '{"type":"string"}]},"country":{"connect.index":8,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"note":{"connect.index":13,"oneOf":[{"type":"null"},{"type":"string"}]},"amount":{"connect.index":6,'
        '"oneOf":[{"type":"null"},{"type":"string"}]},"flag":{"connect.index":14,"oneOf":[{"type":"null"},'
        '{"type":"string"}]},"city":{"connect.index":9,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"kind":{"connect.index":18,"oneOf":[{"type":"null"},{"type":"string"}]},"count":{"connect.index":15,'
        '"oneOf":[{"type":"null"},{"type":"string"}]},"created_at":{"connect.index":3,'
        '"oneOf":[{"type":"null"},{"type":"string"}]},"score":{"connect.index":17,"oneOf":[{"type":"null"},'
        '{"type":"string"}]},"updated_at":{"connect.index":4,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"phone":{"connect.index":12,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"street":{"connect.index":11,"oneOf":[{"type":"null"},{"type":"string"}]},"name":{"connect.index":1,'
        '"oneOf":[{"type":"null"},{"type":"string"}]},"currency":{"connect.index":7,"oneOf":[{"type":"null"},'
        '{"type":"string"}]},"id":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"string"}]},'
        '"email":{"connect.index":2,"oneOf":[{"type":"null"},{"type":"string"}]},"seq":{"connect.index":19,'
        '"oneOf":[{"type":"null"},{"type":"string"}]},"status":{"connect.index":5,"oneOf":[{"type":"null"},'
        '{"type":"string"}]},"ratio":{"connect.index":16,"oneOf":[{"type":"null"},{"type":"string"}]}}}'
    ),
    'W13': (
        '{"type":"object","title":"W13","properties":{"zip":{"type":"integer","connect.index":10,'
        '"connect.type":"int32"},"country":{"type":"integer","connect.index":8,"connect.type":"int32"},'
        '"amount":{"type":"integer","connect.index":6,"connect.type":"int32"},"city":{"type":"integer",'
        '"connect.index":9,"connect.type":"int32"},"created_at":{"type":"integer","connect.index":3,'
        '"connect.type":"int32"},"updated_at":{"type":"integer","connect.index":4,"connect.type":"int32"},'
        '"phone":{"type":"integer","connect.index":12,"connect.type":"int32"},"street":{"type":"integer",'
        '"connect.index":11,"connect.type":"int32"},"name":{"type":"integer","connect.index":1,'
        '"connect.type":"int32"},"currency":{"type":"integer","connect.index":7,"connect.type":"int32"},'
        '"id":{"type":"integer","connect.index":0,"connect.type":"int32"},"email":{"type":"integer",'
        '"connect.index":2,"connect.type":"int32"},"status":{"type":"integer","connect.index":5,'
        '"connect.type":"int32"}}}'
    ),
    'W12': (
        '{"type":"object","title":"W12","properties":{"zip":{"type":"integer","connect.index":10,'
        '"connect.type":"int32"},"country":{"type":"integer","connect.index":8,"connect.type":"int32"},'
        '"amount":{"type":"integer","connect.index":6,"connect.type":"int32"},"updated_at":{"type":"integer",'
        '"connect.index":4,"connect.type":"int32"},"city":{"type":"integer","connect.index":9,'
        '"connect.type":"int32"},"street":{"type":"integer","connect.index":11,"connect.type":"int32"},'
        '"name":{"type":"integer","connect.index":1,"connect.type":"int32"},"created_at":{"type":"integer",'
        '"connect.index":3,"connect.type":"int32"},"currency":{"type":"integer","connect.index":7,'
        '"connect.type":"int32"},"id":{"type":"integer","connect.index":0,"connect.type":"int32"},'
        '"email":{"type":"integer","connect.index":2,"connect.type":"int32"},"status":{"type":"integer",'
        '"connect.index":5,"connect.type":"int32"}}}'
    ),
    'many params': (
        '{"type":"string","connect.parameters":{"dd":"4","a":"1","b":"2","c":"3","scale":"5","zzz":"6",'
        '"connect.decimal.precision":"7"}}'
    ),
    "enum in a HashSet's order": '{"enum":["BLUE","X","GREEN"]}',
    "three properties": (
        '{"type":"object","properties":{"c":{"type":"string","connect.index":1},"x":{"type":"string",'
        '"connect.index":0},"id":{"type":"string","connect.index":2}}}'
    ),
    "map<string,int32> default": (
        '{"type":"object","default":{"c":2,"x":1,"id":3},"connect.type":"map","additionalProperties":'
        '{"type":"integer","connect.type":"int32"}}'
    ),
    "map<int32,string> default": (
        '{"type":"array","default":[{"value":"a","key":1}],"connect.type":"map","items":{"type":"object",'
        '"properties":{"value":{"type":"string","connect.index":1},"key":{"type":"integer","connect.index":0,'
        '"connect.type":"int32"}}}}'
    ),
    "float defaults": (
        '{"type":"object","properties":{"f32s":{"type":"array","default":[1.0000000116860974E-7,2],'
        '"connect.index":1,"items":{"type":"number","connect.type":"float32"}},"f64":{"type":"number",'
        '"default":2,"connect.index":0,"connect.type":"float64"}}}'
    ),
    "NUMERIC decimals in a default": (
        '{"type":"array","default":[1.5,100],"items":{"type":"number","title":'
        '"org.apache.kafka.connect.data.Decimal","connect.version":1,"connect.type":"bytes",'
        '"connect.parameters":{"scale":"2"}}}'
    ),
    "astral characters": '{"type":"string","description":"\U0001F600 \\u0001"}',
}


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_schema_text_is_javas(name: str) -> None:
    make, settings = SCHEMAS[name]
    assert schema_text(from_connect_schema(make(), JsonSchemaDataConfig.from_configs(settings))) == JAVA_TEXTS[name]


# Their text loses what Java's loses too: a FLOAT32 widened to a double, a decimal's trailing zeros.
_LOSSY_DEFAULTS = {"float defaults", "NUMERIC decimals in a default"}


@pytest.mark.parametrize("name", [name for name in SCHEMAS if name not in _LOSSY_DEFAULTS])
def test_schema_reads_back_to_the_same_connect_schema(name: str) -> None:
    make, settings = SCHEMAS[name]
    data_config = JsonSchemaDataConfig.from_configs(settings)
    schema = make()
    tree = json.loads(schema_text(from_connect_schema(schema, data_config)))
    assert to_connect_schema(tree, data_config) == schema


def test_bytes_inside_a_default_print_as_javas_signed_byte_arrays() -> None:
    # org.json turns a byte[] inside a JSONArray into an array of numbers; Java cannot read that
    # default back either (an invalid default), so this text only matters as the text registered.
    schema = SchemaBuilder.array(S.BYTES_SCHEMA).default_value([b"\xde\xad"]).build()
    assert schema_text(from_connect_schema(schema, config())) == (
        '{"type":"array","default":[[-34,-83]],"items":{"type":"string","connect.type":"bytes"}}')


def test_properties_without_connect_index_read_in_javas_hashmap_order() -> None:
    text = ('{"type":"object","properties":{"id":{"type":"string"},"x":{"type":"string"},"c":{"type":"string"},'
            '"name":{"type":"string"},"amount":{"type":"number"}}}')
    # Java's JsonSchemaData reads this as fields amount, c, x, name, id.
    assert [field.name for field in to_connect_schema(json.loads(text), config()).fields] == [
        "amount", "c", "x", "name", "id"]


# --- values -------------------------------------------------------------------------------------------

JAVA_ORDER_VALUE = (
    '{"i8":-8,"i16":300,"i32":70000,"i64":1099511627776,"f32":1.1,"f64":0.1,"flag":true,'
    '"s":"héllo \\"q\\" /\\u0001","b":"AAH/","opt_s":null,"def_s":"x","amount":"+y4=","day":19000,'
    '"tod":3723004,"ts":1700000000123,"opt_ts":null,"tags":["a","b"],"attrs":{"k":1},'
    '"by_id":[{"key":7,"value":"seven"}],"at":{"x":1.5,"y":null},"maybe_at":null,"anon":null}'
)


def test_value_text_is_javas() -> None:
    assert encode_tree(ValueMapper(config()).to_tree(order(), order_value())).decode() == JAVA_ORDER_VALUE


def test_numeric_decimals_are_json_numbers() -> None:
    schema_text_of = schema_text(from_connect_schema(order(), config(decimal_format="numeric")))
    amount = '"amount":{"type":"%s","title":"org.apache.kafka.connect.data.Decimal"'
    assert schema_text_of == JAVA_TEXTS["Order"].replace(amount % "string", amount % "number")
    text = encode_tree(ValueMapper(config(decimal_format="NUMERIC")).to_tree(order(), order_value())).decode()
    assert text == JAVA_ORDER_VALUE.replace('"+y4="', "-12.34")
    back = ValueMapper(config(decimal_format="NUMERIC")).to_connect(order(), decode_text(text.encode()))
    assert back.get("amount") == decimal.Decimal("-12.34")


@pytest.mark.parametrize(("schema", "value", "java"), [
    (SchemaBuilder.array(S.FLOAT32_SCHEMA).build(), [1e10, 0.1, 3.0, 1e-5, float("nan")],
     '[1.0E10,0.1,3.0,1.0E-5,"NaN"]'),
    (SchemaBuilder.array(S.FLOAT64_SCHEMA).build(), [1e10, 0.1, 3.0, 1e-5, 1e22, 123456789012.5],
     "[1.0E10,0.1,3.0,1.0E-5,1.0E22,1.234567890125E11]"),
    (SchemaBuilder.int32().optional().default_value(5).build(), None, "5"),
    (S.OPTIONAL_STRING_SCHEMA, None, "null"),
])
def test_numbers_and_nulls_are_written_as_java_writes_them(schema: Schema, value: Any, java: str) -> None:
    assert encode_tree(ValueMapper(config()).to_tree(schema, value)).decode() == java


def test_values_read_back() -> None:
    value = order_value()
    back = ValueMapper(config()).to_connect(order(), decode_text(JAVA_ORDER_VALUE.encode()))
    for field in order().fields:
        expected = value.get(field)
        if field.name == "tod":  # a Time reads back as UTC
            expected = datetime.time(1, 2, 3, 4000, tzinfo=datetime.UTC)
        assert back.get(field) == expected, field.name


def to_tree(mapper: ValueMapper, schema: Schema, value: Any) -> Any:
    return mapper.to_tree(schema, value)


def compiled(mapper: ValueMapper, schema: Schema, value: Any) -> Any:
    return mapper.writer(schema)(value)


@pytest.mark.parametrize("write", [to_tree, compiled])
def test_a_required_null_field_is_left_out_and_ignore_default_for_nullables_writes_null(
        write: Callable[[ValueMapper, Schema, Any], Any]) -> None:
    schema = (SchemaBuilder.struct().field("req", S.STRING_SCHEMA)
              .field("d", SchemaBuilder.int32().optional().default_value(7).build()).build())
    assert encode_tree(write(ValueMapper(config()), schema, Struct(schema))) == b'{"d":7}'
    ignoring = config(ignore_default_for_nullables="true")
    assert encode_tree(write(ValueMapper(ignoring), schema, Struct(schema))) == b'{"d":null}'


@pytest.mark.parametrize("write", [to_tree, compiled])
@pytest.mark.parametrize(("schema", "value"), [
    (S.INT32_SCHEMA, True), (S.INT8_SCHEMA, 128), (S.STRING_SCHEMA, b"x"), (S.BOOLEAN_SCHEMA, 1),
    (point(), Struct(SchemaBuilder.struct().field("x", S.FLOAT64_SCHEMA).build())),
])
def test_values_that_do_not_fit_their_schema_are_refused(
        write: Callable[[ValueMapper, Schema, Any], Any], schema: Schema, value: Any) -> None:
    with pytest.raises(DataException):
        write(ValueMapper(config()), schema, value)


@pytest.mark.parametrize("write", [to_tree, compiled])
def test_compiled_and_generic_writers_agree(write: Callable[[ValueMapper, Schema, Any], Any]) -> None:
    assert encode_tree(write(ValueMapper(config()), order(), order_value())).decode() == JAVA_ORDER_VALUE


def to_connect(mapper: ValueMapper, schema: Schema, node: Any) -> Any:
    return mapper.to_connect(schema, node)


def compiled_reader(mapper: ValueMapper, schema: Schema, node: Any) -> Any:
    return mapper.reader(schema)(node)


@pytest.mark.parametrize("read", [to_connect, compiled_reader])
def test_compiled_and_generic_readers_agree(read: Callable[[ValueMapper, Schema, Any], Any]) -> None:
    mapper = ValueMapper(config())
    node = decode_text(JAVA_ORDER_VALUE.encode())
    assert read(mapper, order(), node) == mapper.to_connect(order(), node)
    # A default fills a missing field; a whole number in a float field reads as a float.
    schema = (SchemaBuilder.struct().field("d", SchemaBuilder.int32().default_value(7).build())
              .field("f", S.FLOAT64_SCHEMA).field("day", Date.builder().build()).build())
    read_back = read(ValueMapper(config()), schema, {"f": 2, "day": 1})
    assert read_back == Struct(schema).put("d", 7).put("f", 2.0).put("day", datetime.date(1970, 1, 2))
    assert read_back.get("f").__class__ is float


@pytest.mark.parametrize("read", [to_connect, compiled_reader])
@pytest.mark.parametrize(("schema", "node"), [
    (S.INT32_SCHEMA, True), (S.BOOLEAN_SCHEMA, 1), (S.INT32_SCHEMA, None),
    (SchemaBuilder.struct().field("x", S.INT8_SCHEMA).build(), {"x": 300}),
    (SchemaBuilder.struct().field("x", S.INT8_SCHEMA).build(), [1]),
])
def test_payload_values_that_do_not_fit_their_schema_are_refused(
        read: Callable[[ValueMapper, Schema, Any], Any], schema: Schema, node: Any) -> None:
    with pytest.raises(DataException):
        read(ValueMapper(config()), schema, node)


def test_a_required_null_value_is_refused_by_the_format() -> None:
    fmt = JsonSchemaFormat()
    fmt.configure({})
    with pytest.raises(DataException, match="null value of a required schema"):
        fmt.from_connect(S.STRING_SCHEMA).encode(None)


# --- schemas written by others --------------------------------------------------------------------------

FOREIGN: dict[str, Any] = {
    "type": "object", "title": "Foreign", "description": "d",
    "properties": {
        "a": {"type": "integer"}, "b": {"type": "number"}, "c": {"type": "string", "default": "zz"},
        "d": {"enum": ["x", "y", None]}, "e": {"oneOf": [{"type": "null"}, {"type": "string"}]},
        "f": {"oneOf": [{"type": "string"}, {"type": "integer"}]}, "g": {"type": "array", "items": {"type": "boolean"}},
        "h": {"type": "object", "additionalProperties": {"type": "string"}, "connect.type": "map"},
        "i": {"type": "object", "properties": {"z": {"type": "integer"}}}, "j": {"type": ["string", "null"]},
        "k": {"const": "c"}, "l": {"allOf": [{"type": "string"}, {"maxLength": 3}]},
    },
    "required": ["a", "b"],
}


def foreign_schema(optional_nonrequired: bool) -> Schema:
    """What Java's toConnectSchema gave for FOREIGN (registry version 7)."""
    def opt(builder: SchemaBuilder) -> Schema:
        return (builder.optional() if optional_nonrequired else builder).build()

    one_of = (SchemaBuilder.struct().name("io.confluent.connect.json.OneOf")
              .field("io.confluent.connect.json.OneOf.field.0", S.OPTIONAL_STRING_SCHEMA)
              .field("io.confluent.connect.json.OneOf.field.1", S.OPTIONAL_INT64_SCHEMA))
    builder = SchemaBuilder.struct().name("Foreign").doc("d")
    if not optional_nonrequired:
        builder.version(7)
    return (
        builder.field("a", S.INT64_SCHEMA).field("b", S.FLOAT64_SCHEMA)
        .field("c", opt(SchemaBuilder.string().default_value("zz")))
        .field("d", opt(SchemaBuilder.string().parameters({ENUM: "", f"{ENUM}.x": "x", f"{ENUM}.y": "y",
                                                           f"{ENUM}.<NULL>": "<NULL>"})))
        .field("e", S.OPTIONAL_STRING_SCHEMA).field("f", opt(one_of))
        .field("g", opt(SchemaBuilder.array(S.BOOLEAN_SCHEMA)))
        .field("h", opt(SchemaBuilder.map(S.STRING_SCHEMA, S.STRING_SCHEMA)))
        .field("i", opt(SchemaBuilder.struct().field("z", opt(SchemaBuilder.int64()))))
        .field("j", S.OPTIONAL_STRING_SCHEMA)
        .field("k", opt(SchemaBuilder.string().parameters({ENUM: "", f"{ENUM}.c": "c"})))
        .field("l", opt(SchemaBuilder.string()))
        .build()
    )


def test_a_schema_written_by_others_maps_as_java_maps_it() -> None:
    assert to_connect_schema(FOREIGN, config(), 7) == foreign_schema(False)


def test_use_optional_for_nonrequired() -> None:
    assert to_connect_schema(FOREIGN, config(use_optional_for_nonrequired="true")) == foreign_schema(True)


@pytest.mark.parametrize(("tree", "version", "expected"), [
    ({"type": "integer"}, 2, SchemaBuilder.int64().version(2).build()),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, None, S.OPTIONAL_STRING_SCHEMA),
    ({"type": "object", "definitions": {"P": {"type": "object", "properties": {"x": {"type": "number"}}}},
      "properties": {"p": {"$ref": "#/definitions/P"}}}, None,
     SchemaBuilder.struct().field("p", SchemaBuilder.struct().field("x", S.FLOAT64_SCHEMA).build()).build()),
    ({"type": "boolean", "default": True}, None, SchemaBuilder.bool().default_value(True).build()),
])
def test_other_shapes(tree: dict[str, Any], version: int | None, expected: Schema) -> None:
    assert to_connect_schema(tree, config(), version) == expected


def test_flatten_singleton_unions() -> None:
    tree = {"oneOf": [{"type": "string"}]}
    assert to_connect_schema(tree, config()) == S.STRING_SCHEMA
    kept = to_connect_schema(tree, config(flatten_singleton_unions="false"))
    assert kept == (SchemaBuilder.struct().name("io.confluent.connect.json.OneOf")
                    .field("io.confluent.connect.json.OneOf.field.0", S.OPTIONAL_STRING_SCHEMA).build())


def test_variants_are_refused() -> None:
    with pytest.raises(DataException, match="variants"):
        to_connect_schema({"type": "object", "properties": {"any": {}}}, config())


# --- settings ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["preserve.additional.properties", "generalized.sum.type.support",
                                 "json.indent.output"])
def test_unsupported_settings_are_refused_by_name(key: str) -> None:
    with pytest.raises(ConfigException, match=re.escape(key)):
        JsonSchemaDataConfig.from_configs({key: "true"})
    # and connector validation reports them on their key
    errors = {value.name: value.errors for value in JsonSchemaFormat().config_def().validate({key: "true"})}
    assert len(errors[key]) == 1 and "leave it false" in errors[key][0]
    assert not any(errors[other] for other in errors if other != key)


def test_a_bad_decimal_format_is_refused_by_name() -> None:
    with pytest.raises(ConfigException, match=r"decimal\.format"):
        JsonSchemaDataConfig.from_configs({"decimal.format": "HEX"})


def test_schemas_cache_config_bounds_the_format_caches() -> None:
    fmt = JsonSchemaFormat()
    fmt.configure({"schemas.cache.config": "1"})
    first = fmt.from_connect(S.STRING_SCHEMA)
    assert fmt.from_connect(S.STRING_SCHEMA) is first
    fmt.from_connect(S.INT32_SCHEMA)
    assert fmt.from_connect(S.STRING_SCHEMA) is not first


def test_validation_runs_only_when_json_fail_invalid_schema_asks() -> None:
    text = '{"type":"string","maxLength":3}'
    lenient = JsonSchemaFormat()
    lenient.configure({})
    assert lenient.from_registry(text, 1).encode("abcd") == b'"abcd"'
    strict = JsonSchemaFormat()
    strict.configure({"json.fail.invalid.schema": "true"})
    assert strict.from_registry(text, 1).encode("abc") == b'"abc"'
    with pytest.raises(DataException, match="Validation error"):
        strict.from_registry(text, 1).encode("abcd")


def test_json_fail_invalid_schema_validates_what_is_read_too() -> None:
    # Java's converter passes the setting to its deserializer as well, which validates every payload.
    text = '{"type":"object","properties":{"s":{"type":"string","maxLength":3}}}'
    payload = b'{"s":"abcd"}'
    lenient = JsonSchemaFormat()
    lenient.configure({})
    assert lenient.from_registry(text, 1).decode(payload).get("s") == "abcd"
    strict = JsonSchemaFormat()
    strict.configure({"json.fail.invalid.schema": "true"})
    assert strict.from_registry(text, 1).decode(b'{"s":"abc"}').get("s") == "abc"
    with pytest.raises(DataException, match="Validation error"):
        strict.from_registry(text, 1).decode(payload)


def test_the_format_names_records_by_title() -> None:
    fmt = JsonSchemaFormat()
    fmt.configure({})
    assert fmt.schema_type == "JSON"
    assert fmt.from_connect(order()).record_name == "com.example.Order"
    assert fmt.from_connect(S.STRING_SCHEMA).record_name is None
    written = fmt.from_connect(order())
    assert written.decode(written.encode(order_value())) == fmt.from_registry(written.text, 2).decode(
        JAVA_ORDER_VALUE.encode())


# --- the converter's nulls -----------------------------------------------------------------------------

class StubRegistry:
    """Stands in for the registry client: every schema registers as id 7."""

    def __init__(self, settings: Any, schema_type: str) -> None:
        self.registered: list[str] = []

    def check_access(self) -> None:
        pass

    def close(self) -> None:
        pass

    def register(self, subject: str, text: str) -> int:
        self.registered.append(text)
        return 7


def test_nulls_are_written_as_javas_converter_writes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_converter, "RegistryClient", StubRegistry)
    conv = JsonSchemaConverter()
    conv.configure({"schema.registry.url": "http://127.0.0.1:1"}, False)
    header = b"\x00\x00\x00\x00\x07"
    # an optional schema's null is the JSON text null with the schema's id, not a tombstone
    assert conv.from_connect_data("t", None, schema=S.OPTIONAL_STRING_SCHEMA) == header + b"null"
    assert conv.from_connect_data("t", None, schema=SchemaBuilder.int32().default_value(7).build()) == header + b"7"
    # a required schema's null, or a null without a schema, is a tombstone
    assert conv.from_connect_data("t", None, schema=S.STRING_SCHEMA) is None
    assert conv.from_connect_data("t", None) is None
    assert conv.from_connect_data("t", "x", schema=S.STRING_SCHEMA) == header + b'"x"'


def test_numeric_decimals_keep_every_digit_and_other_payloads_parse_fast() -> None:
    fmt = JsonSchemaFormat()
    fmt.configure({"decimal.format": "NUMERIC"})
    amounts = SchemaBuilder.struct().field("a", Decimal.schema(18)).field("f", S.FLOAT64_SCHEMA).build()
    value = Struct(amounts).put("a", decimal.Decimal("12345678901.234567890123456789")).put("f", 0.1)
    written = fmt.from_connect(amounts)
    assert written.encode(value) == b'{"a":12345678901.234567890123456789,"f":0.1}'
    assert written.decode(written.encode(value)) == value
    floats = SchemaBuilder.struct().field("f", S.FLOAT64_SCHEMA).field("i", S.INT64_SCHEMA).build()
    assert fmt.from_connect(floats).decode(b'{"f":1.0E-5,"i":9007199254740993}') == (
        Struct(floats).put("f", 1e-5).put("i", 9007199254740993))


def test_ignore_modern_dialects_reads_the_same_either_way() -> None:
    tree = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}
    expected = SchemaBuilder.struct().field("a", S.INT64_SCHEMA).build()
    assert to_connect_schema(tree, config()) == expected
    assert to_connect_schema(tree, config(ignore_modern_dialects="true")) == expected


@pytest.mark.parametrize(("java_text", "name"), [
    ('{"oneOf":[{"type":"string"},{"type":"null"}]}', "OPTIONAL_STRING"),
    ('{"oneOf":[{"type":"array","connect.type":"map","items":{"type":"object","properties":{"value":'
     '{"connect.index":1,"oneOf":[{"type":"string"},{"type":"null"}]},"key":{"connect.index":0,'
     '"oneOf":[{"type":"string"},{"type":"null"}]}}}},{"type":"null"}]}', "map<optstring,optstring> optional"),
    ('{"oneOf":[{"type":"object","title":"com.example.Point","connect.version":1,"properties":{"x":'
     '{"type":"number","connect.index":0,"connect.type":"float64"},"y":{"connect.index":1,"oneOf":'
     '[{"type":"null"},{"type":"number","connect.type":"float64"}]}}},{"type":"null"}]}', "optional Point"),
])
def test_javas_texts_read_the_same_whatever_their_oneof_order(java_text: str, name: str) -> None:
    """Texts exactly as one Java run printed them (the null member last)."""
    make, _ = SCHEMAS[name]
    assert to_connect_schema(json.loads(java_text), config()) == make()


def test_a_latest_version_reads_the_same_schema_whatever_its_oneof_order() -> None:
    """``use.latest.version`` with ``latest.compatibility.strict``: a subject's latest version that a
    Java worker registered with another oneOf order is the same schema; other schemas are not judged."""
    fmt = JsonSchemaFormat()
    fmt.configure({})
    ours = fmt.from_connect(point(optional=True))
    javas = fmt.from_registry(
        '{"oneOf":[{"type":"object","title":"com.example.Point","connect.version":1,"properties":{"x":'
        '{"connect.type":"float64","type":"number","connect.index":0},"y":{"connect.index":1,"oneOf":'
        '[{"type":"number","connect.type":"float64"},{"type":"null"}]}}},{"type":"null"}]}', 1)
    assert javas.reads(ours) is True
    assert fmt.from_connect(point()).reads(ours) is None
