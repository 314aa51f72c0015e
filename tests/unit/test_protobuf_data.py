"""Confluent's ProtobufData mapping: the registered ``.proto`` text must be the text Java's converter
registers (registries compare text), values must read back, and the payload must carry Confluent's
message indexes.

The expected texts are written out from Confluent's Java sources (``ProtobufData.fromConnectSchema``
building the descriptor, ``ProtobufSchema.toProtoFile`` and ``ProtobufSchemaUtils.toString`` printing
it), because Confluent's jars are not on Maven Central and tests cannot run them. Values are checked
against messages built by hand with protobuf's own API from hand-written descriptors, so the field
numbers and types do not come from the code under test.
"""

# ruff: noqa: E501  (schemas and expected texts read best one field per line)

from __future__ import annotations

import datetime
import decimal
import io
from typing import Any

import pytest
from confluent_kafka.schema_registry._sync.protobuf import ProtobufSerializer
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2

from connect_runtime.api.data import Date, Decimal, Schema, SchemaBuilder, Struct, Time, Timestamp
from connect_runtime.api.errors import ConfigException, DataException
from connect_runtime.converters.schema_registry.protobuf_data import ProtobufData, ProtobufDataConfig, scrub_name
from connect_runtime.converters.schema_registry.protobuf_format import (
    ProtobufFormat,
    decode_indexes,
    encode_indexes,
)

UTC = datetime.UTC
TAG = "io.confluent.connect.protobuf.Tag"
ENUM = "io.confluent.connect.protobuf.Enum"


def proto_text(schema: Schema, **config: Any) -> str:
    return ProtobufData(ProtobufDataConfig(**config)).from_connect_schema(schema).text


def configured(**configs: Any) -> ProtobufFormat:
    fmt = ProtobufFormat()
    fmt.configure(configs)
    return fmt


def meta(key: str, value: str, indent: str = "  ") -> str:
    return (f' [(confluent.field_meta) = {{\n{indent}  params: [\n{indent}    {{\n{indent}      key: "{key}",\n'
            f'{indent}      value: "{value}"\n{indent}    }}\n{indent}  ]\n{indent}}}]')


PRIMITIVES = (
    SchemaBuilder.struct().name("com.example.Primitives")
    .field("i8", Schema.INT8_SCHEMA).field("i16", Schema.INT16_SCHEMA).field("i32", Schema.INT32_SCHEMA)
    .field("i64", Schema.INT64_SCHEMA).field("f32", Schema.FLOAT32_SCHEMA).field("f64", Schema.FLOAT64_SCHEMA)
    .field("b", Schema.BOOLEAN_SCHEMA).field("s", Schema.STRING_SCHEMA).field("by", Schema.BYTES_SCHEMA)
    .build()
)
PRIMITIVES_TEXT = (
    'syntax = "proto3";\n'
    "package com.example;\n"
    "\n"
    "message Primitives {\n"
    f"  int32 i8 = 1{meta('connect.type', 'int8')};\n"
    f"  int32 i16 = 2{meta('connect.type', 'int16')};\n"
    "  int32 i32 = 3;\n"
    "  int64 i64 = 4;\n"
    "  float f32 = 5;\n"
    "  double f64 = 6;\n"
    "  bool b = 7;\n"
    "  string s = 8;\n"
    "  bytes by = 9;\n"
    "}\n"
)

NULLABLES = (
    SchemaBuilder.struct().name("com.example.Nullables")
    .field("i16", Schema.OPTIONAL_INT16_SCHEMA).field("i32", Schema.OPTIONAL_INT32_SCHEMA)
    .field("i64", Schema.OPTIONAL_INT64_SCHEMA).field("f32", Schema.OPTIONAL_FLOAT32_SCHEMA)
    .field("f64", Schema.OPTIONAL_FLOAT64_SCHEMA).field("b", Schema.OPTIONAL_BOOLEAN_SCHEMA)
    .field("s", Schema.OPTIONAL_STRING_SCHEMA).field("by", Schema.OPTIONAL_BYTES_SCHEMA)
    .build()
)


def test_primitive_fields_are_proto3_scalars_with_connect_type_for_int8_and_int16() -> None:
    assert proto_text(PRIMITIVES) == PRIMITIVES_TEXT


HEAD = 'syntax = "proto3";\npackage com.example;\n\n'
I16 = meta("connect.type", "int16")


@pytest.mark.parametrize(("config", "expected"), [
    # optional fields are the same scalars by default: proto3 has no presence for them
    ({}, HEAD + "message Nullables {\n"
     f"  int32 i16 = 1{I16};\n  int32 i32 = 2;\n  int64 i64 = 3;\n  float f32 = 4;\n  double f64 = 5;\n"
     "  bool b = 6;\n  string s = 7;\n  bytes by = 8;\n}\n"),
    ({"optional_for_nullables": True}, HEAD + "message Nullables {\n"
     f"  optional int32 i16 = 1{I16};\n  optional int32 i32 = 2;\n  optional int64 i64 = 3;\n  optional float f32 = 4;\n"
     "  optional double f64 = 5;\n  optional bool b = 6;\n  optional string s = 7;\n  optional bytes by = 8;\n}\n"),
    ({"wrapper_for_nullables": True}, HEAD + 'import "google/protobuf/wrappers.proto";\n\nmessage Nullables {\n'
     f"  google.protobuf.Int32Value i16 = 1{I16};\n  google.protobuf.Int32Value i32 = 2;\n"
     "  google.protobuf.Int64Value i64 = 3;\n  google.protobuf.FloatValue f32 = 4;\n  google.protobuf.DoubleValue f64 = 5;\n"
     "  google.protobuf.BoolValue b = 6;\n  google.protobuf.StringValue s = 7;\n  google.protobuf.BytesValue by = 8;\n}\n"),
])
def test_nullable_fields_as_each_setting_writes_them(config: dict[str, bool], expected: str) -> None:
    assert proto_text(NULLABLES, **config) == expected


LOGICAL = (
    SchemaBuilder.struct().name("shop.Payment")
    .field("amount", Decimal.builder(2).parameter("connect.decimal.precision", "10").build())
    .field("fee", Decimal.builder(3).optional().build())
    .field("day", Date.SCHEMA).field("at", Time.SCHEMA).field("ts", Timestamp.builder().optional().build())
    .build()
)
LOGICAL_TEXT = (
    'syntax = "proto3";\n'
    "package shop;\n"
    "\n"
    'import "confluent/type/decimal.proto";\n'
    'import "google/type/date.proto";\n'
    'import "google/type/timeofday.proto";\n'
    'import "google/protobuf/timestamp.proto";\n'
    "\n"
    "message Payment {\n"
    "  confluent.type.Decimal amount = 1 [(confluent.field_meta) = {\n"
    "    params: [\n"
    "      {\n"
    '        value: "10",\n'
    '        key: "precision"\n'
    "      },\n"
    "      {\n"
    '        value: "2",\n'
    '        key: "scale"\n'
    "      }\n"
    "    ]\n"
    "  }];\n"
    "  confluent.type.Decimal fee = 2 [(confluent.field_meta) = {\n"
    "    params: [\n"
    "      {\n"
    '        value: "3",\n'
    '        key: "scale"\n'
    "      }\n"
    "    ]\n"
    "  }];\n"
    "  google.type.Date day = 3;\n"
    "  google.type.TimeOfDay at = 4;\n"
    "  google.protobuf.Timestamp ts = 5;\n"
    "}\n"
)


def test_logical_types_are_the_well_known_messages_imported_in_field_order() -> None:
    assert proto_text(LOGICAL) == LOGICAL_TEXT


ADDRESS = SchemaBuilder.struct().name("com.example.address").field("street", Schema.STRING_SCHEMA).optional().build()
CONTAINERS = (
    SchemaBuilder.struct()
    .field("address", ADDRESS)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
    .field("scores", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT64_SCHEMA).optional().build())
    .field("by_id", SchemaBuilder.map(Schema.INT32_SCHEMA, ADDRESS).name("id_map").build())
    .field("inner", SchemaBuilder.struct().field("x", Schema.INT32_SCHEMA).build())
    .field("items", SchemaBuilder.array(SchemaBuilder.struct().name("Item").field("n", Schema.INT32_SCHEMA).build()).build())
    .build()
)
CONTAINERS_TEXT = (
    'syntax = "proto3";\n'
    "\n"
    "message ConnectDefault1 {\n"
    "  addressMessage address = 1;\n"
    "  repeated string tags = 2;\n"
    "  repeated ConnectDefault2Entry scores = 3;\n"
    "  repeated IdMapEntry by_id = 4;\n"
    "  ConnectDefault3 inner = 5;\n"
    "  repeated Item items = 6;\n"
    "\n"
    "  message addressMessage {\n"
    "    string street = 1;\n"
    "  }\n"
    "  message ConnectDefault2Entry {\n"
    "    string key = 1;\n"
    "    int64 value = 2;\n"
    "  }\n"
    "  message IdMapEntry {\n"
    "    int32 key = 1;\n"
    "    address value = 2;\n"
    # Java indents every line of a nested message, the blank one too
    "  \n"
    "    message address {\n"
    "      string street = 1;\n"
    "    }\n"
    "  }\n"
    "  message ConnectDefault3 {\n"
    "    int32 x = 1;\n"
    "  }\n"
    "  message Item {\n"
    "    int32 n = 1;\n"
    "  }\n"
    "}\n"
)


def test_structs_arrays_and_maps_nest_as_java_names_them() -> None:
    # Unnamed schemas are ConnectDefault1, 2, ... (the root first, no package); maps are repeated
    # <Name>Entry messages; a struct named as its field gets "Message" appended.
    assert proto_text(CONTAINERS) == CONTAINERS_TEXT


STATUS = (
    SchemaBuilder.string().name("Status").parameter(ENUM, "Status")
    .parameter(f"{ENUM}.ACTIVE", "0").parameter(f"{ENUM}.INACTIVE", "1").optional().build()
)
PAYLOAD = (
    SchemaBuilder.struct().name("io.confluent.connect.protobuf.Union.payload")
    .field("text", SchemaBuilder.string().optional().parameter(TAG, "3").build())
    .field("number", SchemaBuilder.int64().optional().parameter(TAG, "4").build())
    .optional().build()
)
EVENT = (
    SchemaBuilder.struct().name("shop.Event")
    .field("id", SchemaBuilder.int32().parameter(TAG, "1").build())
    .field("status", SchemaBuilder.string().name("Status").parameter(ENUM, "Status")
           .parameter(f"{ENUM}.ACTIVE", "0").parameter(f"{ENUM}.INACTIVE", "1").optional().parameter(TAG, "2").build())
    .field("payload_0", PAYLOAD)
    .field("u", SchemaBuilder.int64().parameter("io.confluent.connect.protobuf.Type", "uint64").parameter(TAG, "7").build())
    .build()
)
EVENT_TEXT = (
    'syntax = "proto3";\n'
    "package shop;\n"
    "\n"
    "message Event {\n"
    "  int32 id = 1;\n"
    "  Status status = 2;\n"
    "  uint64 u = 7;\n"
    "\n"
    "  oneof payload {\n"
    "    string text = 3;\n"
    "    int64 number = 4;\n"
    "  }\n"
    "\n"
    "  enum Status {\n"
    "    ACTIVE = 0;\n"
    "    INACTIVE = 1;\n"
    "  }\n"
    "}\n"
)


def test_enums_unions_tags_and_protobuf_types_come_from_the_parameters() -> None:
    assert proto_text(EVENT) == EVENT_TEXT


def test_a_primitive_root_is_its_wrapper_in_wrappers_proto() -> None:
    fmt = configured()
    schema = fmt.from_connect(Schema.STRING_SCHEMA)
    assert schema.record_name == "google.protobuf.StringValue"
    assert schema.text.startswith('syntax = "proto3";\npackage google.protobuf;\n\noption java_package = "com.google.protobuf";\n')
    assert "message StringValue {\n  string value = 1;\n}\n" in schema.text
    payload = schema.encode("hi")
    # StringValue is the file's eighth message: indexes [7], then the message
    assert payload == bytes([2, 14]) + b"\x0a\x02hi"
    assert schema.decode(payload) == "hi"
    # read back from the registered text, whose first message is DoubleValue: the indexes pick StringValue
    read = fmt.from_registry(schema.text, 4)
    assert read.record_name == "google.protobuf.DoubleValue"
    string_value = read.for_payload(payload)
    assert string_value.connect_schema == SchemaBuilder.string().version(4).build()
    assert string_value.decode(payload) == "hi"
    assert read.for_payload(b"\x00") is read
    with pytest.raises(DataException, match="Unsupported root schema of type ARRAY"):
        fmt.from_connect(SchemaBuilder.array(Schema.STRING_SCHEMA).build())


def test_scrub_invalid_names_encodes_as_java() -> None:
    schema = SchemaBuilder.struct().name("my-ns.bad name").field("1st", Schema.INT32_SCHEMA).field("a.b", Schema.STRING_SCHEMA).build()
    assert proto_text(schema, scrub_invalid_names=True) == (
        'syntax = "proto3";\npackage my_ns;\n\nmessage bad_name {\n  int32 x1st = 1;\n  string a_b = 2;\n}\n')
    assert scrub_name("valid_Name1") == "valid_Name1"
    assert scrub_name("_x") == "x_x"
    assert scrub_name("a~b") == "a_7Eb"
    assert scrub_name("é") == "_C3_A9"


def test_message_indexes_are_zigzag_varints_with_the_first_message_as_one_zero_byte() -> None:
    assert encode_indexes((0,)) == b"\x00"
    # the count too is zigzag: [1, 0] is 04 02 00, as confluent-kafka's serializer writes it
    for indexes in ((1, 0), (7,), (0,), (3, 200, 1)):
        reference = io.BytesIO()
        ProtobufSerializer._encode_varints(reference, list(indexes))
        assert encode_indexes(indexes) == reference.getvalue() or indexes == (0,)
    assert encode_indexes((1, 0)) == bytes([4, 2, 0])
    assert decode_indexes(b"\x00rest") == ((0,), 1)
    assert decode_indexes(bytes([4, 2, 0, 200, 1])) == ((1, 0), 3)
    assert decode_indexes(bytes([2, 200, 1])) == ((100,), 3)
    with pytest.raises(DataException, match="message indexes"):
        decode_indexes(bytes([2]))


# --- values -----------------------------------------------------------------------------------------


def hand_made_class(fields: list[tuple[str, int, int, str]], package: str, name: str) -> Any:
    """A message class from a descriptor written by hand: (name, number, type, type name)."""
    proto = descriptor_pb2.FileDescriptorProto(name=f"hand/{name}.proto", package=package, syntax="proto3")
    proto.dependency.append("google/protobuf/timestamp.proto")
    message = proto.message_type.add(name=name)
    for field_name, number, field_type, type_name in fields:
        added = message.field.add(name=field_name, number=number, type=field_type, label=1)
        if type_name:
            added.type_name = type_name
    pool = descriptor_pool.DescriptorPool()
    ts = descriptor_pb2.FileDescriptorProto()
    timestamp_pb2.DESCRIPTOR.CopyToProto(ts)
    pool.Add(ts)
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}"))


def test_a_struct_encodes_to_the_message_protobuf_itself_builds() -> None:
    fmt = configured()
    struct = (Struct(PRIMITIVES).put("i8", -3).put("i16", 300).put("i32", -70000).put("i64", 1 << 40)
              .put("f32", 1.5).put("f64", -2.25).put("b", True).put("s", "héllo").put("by", b"\x00\x01"))
    payload = fmt.from_connect(PRIMITIVES).encode(struct)
    F = descriptor_pb2.FieldDescriptorProto
    cls = hand_made_class([("i8", 1, F.TYPE_INT32, ""), ("i16", 2, F.TYPE_INT32, ""), ("i32", 3, F.TYPE_INT32, ""),
                           ("i64", 4, F.TYPE_INT64, ""), ("f32", 5, F.TYPE_FLOAT, ""), ("f64", 6, F.TYPE_DOUBLE, ""),
                           ("b", 7, F.TYPE_BOOL, ""), ("s", 8, F.TYPE_STRING, ""), ("by", 9, F.TYPE_BYTES, "")],
                          "com.example", "Primitives")
    expected = cls(i8=-3, i16=300, i32=-70000, i64=1 << 40, f32=1.5, f64=-2.25, b=True, s="héllo", by=b"\x00\x01")
    assert payload == b"\x00" + expected.SerializeToString()


def test_timestamps_encode_as_seconds_and_nanos() -> None:
    schema = SchemaBuilder.struct().name("t.T").field("ts", Timestamp.SCHEMA).build()
    at = datetime.datetime(1969, 12, 31, 23, 59, 59, 250000, tzinfo=UTC)
    payload = configured().from_connect(schema).encode(Struct(schema).put("ts", at))
    cls = hand_made_class([("ts", 1, descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE, ".google.protobuf.Timestamp")], "t", "T")
    message = cls.FromString(payload[1:])
    assert (message.ts.seconds, message.ts.nanos) == (-1, 250_000_000)


def full_event() -> Struct:
    return (Struct(EVENT).put("id", 7).put("status", "INACTIVE")
            .put("payload_0", Struct(PAYLOAD).put("number", 42)).put("u", -1))


def test_values_round_trip_through_the_registered_text() -> None:
    fmt = configured()
    written = fmt.from_connect(EVENT)
    read = fmt.from_registry(written.text, 3)
    value = read.decode(written.encode(full_event()))
    assert value.get("id") == 7
    assert value.get("status") == "INACTIVE"
    assert value.get("payload_0").get("number") == 42
    assert value.get("payload_0").get("text") is None
    # uint64 reads back as Java's long: all bits set is -1
    assert value.get("u") == -1


def test_the_read_schema_is_javas_every_field_optional_with_its_tag() -> None:
    read = configured().from_registry(EVENT_TEXT, 3).connect_schema
    expected = (
        SchemaBuilder.struct().name("Event")
        .field("payload_0", SchemaBuilder.struct().name("io.confluent.connect.protobuf.Union.payload")
               .field("text", SchemaBuilder.string().optional().parameter(TAG, "3").build())
               .field("number", SchemaBuilder.int64().optional().parameter(TAG, "4").build()).optional().build())
        .field("id", SchemaBuilder.int32().optional().parameter(TAG, "1").build())
        .field("status", SchemaBuilder.string().name("Status").parameter(ENUM, "Status")
               .parameter(f"{ENUM}.ACTIVE", "0").parameter(f"{ENUM}.INACTIVE", "1").optional().parameter(TAG, "2").build())
        .field("u", SchemaBuilder.int64().parameter("io.confluent.connect.protobuf.Type", "uint64").optional()
               .parameter(TAG, "7").build())
        .version(3)
        .build()
    )
    assert read == expected


def test_logical_and_container_values_round_trip() -> None:
    fmt = configured()
    value = (Struct(LOGICAL).put("amount", decimal.Decimal("-12.34")).put("day", datetime.date(1969, 7, 20))
             .put("at", datetime.time(23, 59, 58, 999000, tzinfo=UTC))
             .put("ts", datetime.datetime(2026, 11, 28, 7, 0, 0, 123000, tzinfo=UTC)))
    read = fmt.from_registry(LOGICAL_TEXT, 1)
    back = read.decode(fmt.from_connect(LOGICAL).encode(value))
    assert back.get("amount") == decimal.Decimal("-12.34")
    assert back.get("fee") is None
    assert back.get("day") == datetime.date(1969, 7, 20)
    assert back.get("at") == datetime.time(23, 59, 58, 999000, tzinfo=UTC)
    assert back.get("ts") == datetime.datetime(2026, 11, 28, 7, 0, 0, 123000, tzinfo=UTC)
    assert read.connect_schema.field("amount").schema.parameters == {"scale": "2", "connect.decimal.precision": "10", TAG: "1"}

    inner = CONTAINERS.field("inner").schema
    item = CONTAINERS.field("items").schema.value_schema
    containers = (Struct(CONTAINERS).put("address", Struct(ADDRESS).put("street", "Main"))
                  .put("tags", ["a", "b"]).put("scores", {"x": 1, "y": None})
                  .put("by_id", {5: Struct(ADDRESS).put("street", "Side")})
                  .put("inner", Struct(inner).put("x", 0)).put("items", [Struct(item).put("n", 1), Struct(item).put("n", 2)]))
    read = fmt.from_registry(CONTAINERS_TEXT, None)
    back = read.decode(fmt.from_connect(CONTAINERS).encode(containers))
    assert back.get("address").get("street") == "Main"
    assert back.get("tags") == ["a", "b"]
    # a null map value is left unset in its entry: proto3 reads the default back
    assert back.get("scores") == {"x": 1, "y": 0}
    assert back.get("by_id")[5].get("street") == "Side"
    # an all-default nested message is still present (Java sets it)
    assert back.get("inner").get("x") == 0
    assert [s.get("n") for s in back.get("items")] == [1, 2]
    assert read.connect_schema.field("scores").schema.name == "connect_default2"
    assert read.connect_schema.field("by_id").schema.name == "id_map"


def test_proto3_presence_decides_what_reads_back_as_null() -> None:
    fmt = configured()
    empty = Struct(NULLABLES)
    plain = fmt.from_registry(proto_text(NULLABLES), None).decode(fmt.from_connect(NULLABLES).encode(empty))
    # no presence for plain proto3 scalars: Java reads their defaults
    assert (plain.get("i32"), plain.get("s"), plain.get("b")) == (0, "", False)
    with_optional = configured(**{"optional.for.nullables": True})
    text = proto_text(NULLABLES, optional_for_nullables=True)
    back = with_optional.from_registry(text, None).decode(with_optional.from_connect(NULLABLES).encode(empty))
    assert (back.get("i32"), back.get("s")) == (None, None)
    wrapped = configured(**{"wrapper.for.nullables": True})
    text = proto_text(NULLABLES, wrapper_for_nullables=True)
    read = wrapped.from_registry(text, None)
    back = read.decode(wrapped.from_connect(NULLABLES).encode(Struct(NULLABLES).put("i64", 0)))
    assert (back.get("i64"), back.get("s")) == (0, None)
    # Java reads connect.type only on int32 fields, not on the wrapper messages: INT16 comes back INT32
    assert read.connect_schema.field("i16").schema.type is Schema.Type.INT32


def test_read_settings_int_for_enums_flatten_unions_and_enhanced_names() -> None:
    payload = configured().from_connect(EVENT).encode(full_event())
    read = configured(**{"int.for.enums": True, "flatten.unions": True, "enhanced.protobuf.schema.support": True,
                         "generate.index.for.unions": False}).from_registry(EVENT_TEXT, None)
    assert read.connect_schema.name == "shop.Event"
    assert [f.name for f in read.connect_schema.fields] == ["text", "number", "id", "status", "u"]
    value = read.decode(payload)
    assert (value.get("status"), value.get("number"), value.get("text")) == (1, 42, None)
    unions = configured(**{"generate.index.for.unions": False}).from_registry(EVENT_TEXT, None)
    assert unions.connect_schema.fields[0].name == "payload"


def test_generate_struct_for_nulls_and_raw_wrappers() -> None:
    text = 'syntax = "proto3";\nmessage A {\n  B b = 1;\n  message B {\n    int32 x = 1;\n  }\n}\n'
    empty = b"\x00"
    assert configured().from_registry(text, None).decode(empty).get("b") is None
    assert configured(**{"generate.struct.for.nulls": True}).from_registry(text, None).decode(empty).get("b").get("x") == 0
    wrappers = configured().from_connect(Schema.INT64_SCHEMA).text
    as_struct = configured(**{"wrapper.for.raw.primitives": False}).from_registry(wrappers, None)
    assert as_struct.connect_schema.name == "DoubleValue"
    raw = configured().from_registry(wrappers, 2)
    assert raw.connect_schema == SchemaBuilder.float64().version(2).build()


def test_java_written_text_with_map_fields_and_options_reads() -> None:
    text = (
        'syntax = "proto3";\npackage acme.v1;\n\nimport "confluent/meta.proto";\n'
        'import "google/protobuf/timestamp.proto";\n\noption java_package = "com.acme";\n\n'
        "message Order {\n"
        '  int32 small = 1 [(confluent.field_meta) = { params: [ { key: "connect.type", value: "int16" } ] }];\n'
        "  map<string, int64> counts = 2;\n  .google.protobuf.Timestamp at = 3;\n  repeated Line lines = 4;\n"
        "  message Line {\n    sint64 qty = 1;\n    Kind kind = 2;\n  }\n}\nenum Kind {\n  A = 0;\n  B = 1;\n}\n"
    )
    read = configured().from_registry(text, 5)
    schema = read.connect_schema
    assert schema.field("small").schema.type is Schema.Type.INT16
    assert schema.field("counts").schema.name == "counts"
    line = schema.field("lines").schema.value_schema
    assert line.field("qty").schema.parameters == {"io.confluent.connect.protobuf.Type": "sint64", TAG: "1"}
    # field 1 = 2, then a counts entry {"a": 3}
    value = read.decode(bytes.fromhex("00" "0802" "1205" "0a0161" "1003"))
    assert value.get("small") == 2
    assert value.get("counts") == {"a": 3}
    assert value.get("at") is None


def test_bad_values_and_schemas_are_data_exceptions() -> None:
    fmt = configured()
    with pytest.raises(DataException, match="Cannot find field with name i8"):
        fmt.from_connect(EVENT).encode(Struct(PRIMITIVES))
    schema = SchemaBuilder.struct().name("a.A").field("u", SchemaBuilder.struct().name(
        "io.confluent.connect.protobuf.Union.u").field("x", Schema.OPTIONAL_INT32_SCHEMA).optional().build()).build()
    with pytest.raises(DataException, match=r"has no io\.confluent\.connect\.protobuf\.Tag"):
        fmt.from_connect(schema)
    with pytest.raises(DataException, match=r"Invalid io\.confluent\.connect\.protobuf\.Tag parameter 'x' of field n"):
        fmt.from_connect(SchemaBuilder.struct().field("n", SchemaBuilder.int32().parameter(TAG, "x").build()).build())
    with pytest.raises(DataException, match="Array cannot be nested"):
        fmt.from_connect(SchemaBuilder.struct().field("a", SchemaBuilder.array(SchemaBuilder.array(
            Schema.INT32_SCHEMA).build()).build()).build())
    with pytest.raises(DataException, match="name another message"):
        fmt.from_registry(PRIMITIVES_TEXT, None).decode(bytes([2, 2]))
    with pytest.raises(DataException, match="Could not parse"):
        fmt.from_registry("message {", None)


def test_data_config_keys_are_javas_and_generalized_sum_types_are_refused() -> None:
    keys = set(ProtobufFormat().config_def().keys)
    assert keys >= {
        "enhanced.protobuf.schema.support", "scrub.invalid.names", "int.for.enums", "optional.for.nullables",
        "optional.for.proto2", "wrapper.for.nullables", "wrapper.for.raw.primitives", "generate.struct.for.nulls",
        "generate.index.for.unions", "flatten.unions", "generalized.sum.type.support", "ignore.default.for.nullables",
        "schemas.cache.config",
    }
    with pytest.raises(ConfigException, match=r"generalized\.sum\.type\.support"):
        configured(**{"generalized.sum.type.support": "true"})
    with pytest.raises(ConfigException, match=r"skip\.known\.types"):
        configured(**{"skip.known.types": "false"})
    configured(**{"skip.known.types": "true", "generalized.sum.type.support": "false"})


def test_ignore_default_for_nullables_leaves_a_null_field_unset() -> None:
    schema = SchemaBuilder.struct().name("d.D").field("n", SchemaBuilder.int32().optional().default_value(5).build()).build()
    assert configured().from_connect(schema).encode(Struct(schema)) == b"\x00\x08\x05"
    assert configured(**{"ignore.default.for.nullables": True}).from_connect(schema).encode(Struct(schema)) == b"\x00"


def test_proto2_optional_fields_read_as_null_when_absent_unless_optional_for_proto2_is_off() -> None:
    text = 'syntax = "proto2";\npackage p;\n\nmessage P {\n  optional int32 a = 1;\n  required string b = 2;\n}\n'
    payload = b"\x00" + bytes.fromhex("1201") + b"x"
    assert configured().from_registry(text, None).decode(payload).get("a") is None
    assert configured(**{"optional.for.proto2": False}).from_registry(text, None).decode(payload).get("a") == 0
    read = configured(**{"optional.for.nullables": True}).from_registry(text, None).connect_schema
    assert read.field("a").schema.is_optional and not read.field("b").schema.is_optional


def test_a_struct_of_another_schema_is_written_by_field_name_with_the_latest_schema() -> None:
    fmt = configured()
    with_note = SchemaBuilder.struct().name("com.example.Primitives")
    for f in PRIMITIVES.fields:
        with_note.field(f.name, f.schema)
    latest = fmt.from_registry(proto_text(with_note.field("note", Schema.OPTIONAL_STRING_SCHEMA).build()), 2)
    struct = (Struct(PRIMITIVES).put("i8", 1).put("i16", 2).put("i32", 3).put("i64", 4).put("f32", 0.5)
              .put("f64", 0.25).put("b", True).put("s", "s").put("by", b"b"))
    assert latest.encode(struct) == fmt.from_connect(PRIMITIVES).encode(struct)


COMPAT_BASE = 'syntax = "proto3";\npackage p;\n\nmessage M {\n  int32 a = 1;\n  string s = 2;\n  Inner i = 3;\n  oneof u {\n    int64 x = 4;\n    string y = 5;\n  }\n\n  message Inner {\n    bool f = 1;\n  }\n}\n'


@pytest.mark.parametrize(("change", "compatible"), [
    (("  string s = 2;\n", "  string s = 2;\n  double added = 9;\n"), True),   # a field added
    (("  string s = 2;\n", ""), True),                                         # a field removed
    (("int32 a = 1", "int64 a = 1"), True),                                    # same scalar group
    (("int32 a = 1", "uint64 renamed = 1"), True),                             # renamed too
    (("int32 a = 1", "string a = 1"), False),                                  # another scalar group
    (("int32 a = 1", "repeated int32 a = 1"), True),                          # no label before: Java lets it
    (("int32 a = 1", "Inner a = 1"), False),                                   # scalar to message
    (("  Inner i = 3;\n", "  Other i = 3;\n  message Other {\n    bool f = 1;\n  }\n"), False),  # another message type
    (("    bool f = 1;\n", "    string f = 1;\n"), False),                     # a nested message's field
    (("    string y = 5;\n", ""), False),                                     # a member of a living oneof
    (("package p;", "package q;"), False),
])
def test_latest_compatibility_follows_confluents_protobuf_diff(change: tuple[str, str], compatible: bool) -> None:
    fmt = configured()
    written = fmt.from_registry(COMPAT_BASE, 1)
    assert change[0] in COMPAT_BASE
    latest = fmt.from_registry(COMPAT_BASE.replace(change[0], change[1]), 2)
    assert latest.reads(written) is compatible


def test_moving_independent_fields_into_one_oneof_is_incompatible() -> None:
    fmt = configured()
    written = fmt.from_registry(COMPAT_BASE, 1)
    merged = COMPAT_BASE.replace("  int32 a = 1;\n", "").replace("    int64 x = 4;\n", "    int64 x = 4;\n    int32 a = 1;\n")
    assert fmt.from_registry(merged, 2).reads(written) is False


def test_int8_and_int16_beyond_their_range_wrap_as_java_narrows_them() -> None:
    read = configured().from_registry(PRIMITIVES_TEXT, None)
    # i8 = 200, i16 = 40000
    value = read.decode(b"\x00" + bytes.fromhex("08c801") + bytes.fromhex("10c0b802"))
    assert (value.get("i8"), value.get("i16")) == (-56, -25536)


def test_a_schema_may_import_the_files_javas_protobuf_schema_knows() -> None:
    text = ('syntax = "proto3";\nimport "google/type/money.proto";\nimport "google/protobuf/duration.proto";\n'
            'message A {\n  google.type.Money price = 1;\n  google.protobuf.Duration took = 2;\n}\n')
    read = configured().from_registry(text, None)
    assert [f.name for f in read.connect_schema.field("price").schema.fields] == ["currency_code", "units", "nanos"]
    value = read.decode(b"\x00" + bytes.fromhex("0a050a03455552" "1202" "0805"))
    assert value.get("price").get("currency_code") == "EUR" and value.get("took").get("seconds") == 5
    with pytest.raises(DataException, match="Could not resolve Protobuf type"):
        configured().from_registry('syntax = "proto3";\nimport "other.proto";\nmessage B {\n  other.X x = 1;\n}\n', None)
