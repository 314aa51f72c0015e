"""JsonConverter with schemas: the envelopes Java's ``JsonConverterTest`` expects, byte for byte."""

from __future__ import annotations

import datetime
import decimal

import pytest

from connect_runtime.api.data import Date, Decimal, Schema, SchemaAndValue, SchemaBuilder, Struct, Time, Timestamp
from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import java_float_to_string
from connect_runtime.converters.bytearray_converter import ByteArrayConverter
from connect_runtime.converters.json_converter import JsonConverter

TOPIC = "topic"


def converter(**configs: str) -> JsonConverter:
    conv = JsonConverter()
    conv.configure(configs, False)
    return conv


@pytest.mark.parametrize(("schema", "value", "expected"), [
    (Schema.BOOLEAN_SCHEMA, True, '{"schema":{"type":"boolean","optional":false},"payload":true}'),
    (Schema.INT8_SCHEMA, 12, '{"schema":{"type":"int8","optional":false},"payload":12}'),
    (Schema.INT16_SCHEMA, 12, '{"schema":{"type":"int16","optional":false},"payload":12}'),
    (Schema.INT32_SCHEMA, 12, '{"schema":{"type":"int32","optional":false},"payload":12}'),
    (Schema.INT64_SCHEMA, 4398046511104, '{"schema":{"type":"int64","optional":false},"payload":4398046511104}'),
    (Schema.FLOAT32_SCHEMA, 12.34, '{"schema":{"type":"float","optional":false},"payload":12.34}'),
    (Schema.FLOAT64_SCHEMA, 12.34, '{"schema":{"type":"double","optional":false},"payload":12.34}'),
    (Schema.BYTES_SCHEMA, b"test-string", '{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}'),
    (Schema.STRING_SCHEMA, "test-string", '{"schema":{"type":"string","optional":false},"payload":"test-string"}'),
    (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2, 3],
     '{"schema":{"type":"array","items":{"type":"int32","optional":false},"optional":false},"payload":[1,2,3]}'),
    (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build(), {"key1": 12, "key2": 15},
     '{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},'
     '"optional":false},"payload":{"key1":12,"key2":15}}'),
    (SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.INT32_SCHEMA).build(), {1: 12, 2: 15},
     '{"schema":{"type":"map","keys":{"type":"int32","optional":false},"values":{"type":"int32","optional":false},'
     '"optional":false},"payload":[[1,12],[2,15]]}'),
])
def test_primitive_and_container_envelopes(schema: Schema, value: object, expected: str) -> None:
    assert converter().from_connect_data(TOPIC, value, schema=schema) == expected.encode()


def test_struct_envelope_keeps_field_order_and_writes_field_names_last() -> None:
    schema = (SchemaBuilder.struct().field("field1", Schema.BOOLEAN_SCHEMA).field("field2", Schema.STRING_SCHEMA)
              .field("field3", Schema.STRING_SCHEMA).field("field4", Schema.BOOLEAN_SCHEMA).build())
    struct = Struct(schema).put("field1", True).put("field2", "string2").put("field3", "string3").put("field4", False)
    assert converter().from_connect_data(TOPIC, struct, schema=schema) == (
        b'{"schema":{"type":"struct","fields":[{"type":"boolean","optional":false,"field":"field1"},'
        b'{"type":"string","optional":false,"field":"field2"},{"type":"string","optional":false,"field":"field3"},'
        b'{"type":"boolean","optional":false,"field":"field4"}],"optional":false},'
        b'"payload":{"field1":true,"field2":"string2","field3":"string3","field4":false}}')


def test_nested_struct_with_metadata_and_defaults() -> None:
    inner = SchemaBuilder.struct().name("Inner").field("n", Schema.OPTIONAL_INT32_SCHEMA).optional().build()
    optional_with_default = SchemaBuilder.string().optional().default_value("dflt").build()
    schema = (SchemaBuilder.struct().name("Outer").version(2).doc("d").parameter("p", "v")
              .field("s", optional_with_default).field("inner", inner).build())
    value = Struct(schema).put("inner", Struct(inner))
    assert converter().from_connect_data(TOPIC, value, schema=schema) == (
        b'{"schema":{"type":"struct","fields":[{"type":"string","optional":true,"default":"dflt","field":"s"},'
        b'{"type":"struct","fields":[{"type":"int32","optional":true,"field":"n"}],"optional":true,"name":"Inner",'
        b'"field":"inner"}],"optional":false,"name":"Outer","version":2,"doc":"d","parameters":{"p":"v"}},'
        b'"payload":{"s":"dflt","inner":{"n":null}}}')
    no_replace = converter(**{"replace.null.with.default": "false"})
    assert no_replace.from_connect_data(TOPIC, value, schema=schema).endswith(  # type: ignore[union-attr]
        b'"payload":{"s":null,"inner":{"n":null}}}')
    required = SchemaBuilder.struct().field("s", SchemaBuilder.string().default_value("dflt").build()).build()
    with pytest.raises(DataException, match="null value for field that is required"):
        no_replace.from_connect_data(TOPIC, Struct(required), schema=required)


def test_decimal_base64_and_numeric() -> None:
    value = decimal.Decimal("1.56")
    schema_json = ('{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
                   '"parameters":{"scale":"2"}}')
    assert converter().from_connect_data(TOPIC, value, schema=Decimal.schema(2)) == (
        f'{{"schema":{schema_json},"payload":"AJw="}}'.encode())
    numeric = converter(**{"decimal.format": "NUMERIC"})
    assert numeric.from_connect_data(TOPIC, value, schema=Decimal.schema(2)) == (
        f'{{"schema":{schema_json},"payload":1.56}}'.encode())
    assert numeric.from_connect_data(TOPIC, decimal.Decimal("-0.00"), schema=Decimal.schema(2)).endswith(  # type: ignore[union-attr]
        b'"payload":0.00}')


def test_date_time_timestamp() -> None:
    date = converter().from_connect_data(TOPIC, datetime.date(1969, 12, 31), schema=Date.SCHEMA)
    assert date == (b'{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date",'
                    b'"version":1},"payload":-1}')
    time = converter().from_connect_data(TOPIC, datetime.time(0, 0, 14, 400_000), schema=Time.SCHEMA)
    assert time == (b'{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time",'
                    b'"version":1},"payload":14400}')
    stamp = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(milliseconds=4000000000)
    assert converter().from_connect_data(TOPIC, stamp, schema=Timestamp.SCHEMA) == (
        b'{"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp",'
        b'"version":1},"payload":4000000000}')


def test_null_value_with_optional_schema_and_without_envelope() -> None:
    assert converter().from_connect_data(TOPIC, None, schema=Schema.OPTIONAL_INT32_SCHEMA) == (
        b'{"schema":{"type":"int32","optional":true},"payload":null}')
    plain = converter(**{"schemas.enable": "false"})
    assert plain.from_connect_data(TOPIC, None, schema=Schema.OPTIONAL_INT32_SCHEMA) == b"null"
    assert plain.from_connect_data(TOPIC, 7, schema=Schema.INT32_SCHEMA) == b"7"


def test_schemaless_values_keep_the_null_schema_envelope() -> None:
    assert converter().from_connect_data(TOPIC, {"a": 1}) == b'{"schema":null,"payload":{"a":1}}'
    assert converter().from_connect_data(TOPIC, None) is None


@pytest.mark.parametrize(("schema", "value", "message"), [
    (Schema.INT32_SCHEMA, None, "Conversion error: null value for field that is required and has no default value"),
    (Schema.INT32_SCHEMA, "x", "Invalid type for INT32: <class 'str'>"),
    (Schema.FLOAT64_SCHEMA, 1, "Invalid type for FLOAT64: <class 'int'>"),
    (Schema.BYTES_SCHEMA, "x", "Invalid type for bytes type: <class 'str'>"),
    (Decimal.schema(2), 1.5, "Invalid type for Decimal, expected BigDecimal but was <class 'float'>"),
])
def test_refusals_use_javas_messages(schema: Schema, value: object, message: str) -> None:
    with pytest.raises(DataException) as info:
        converter().from_connect_data(TOPIC, value, schema=schema)
    assert str(info.value) == message


def test_struct_with_another_schema_is_refused() -> None:
    schema = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    other = SchemaBuilder.struct().field("b", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataException, match=r"Mismatching schema\."):
        converter().from_connect_data(TOPIC, Struct(other).put("b", 1), schema=schema)


@pytest.mark.parametrize(("value", "expected"), [
    (3.14, "3.14"), (1.0e10, "1.0E10"), (1.4e-45, "1.4E-45"), (0.001, "0.001"), (-0.0, "-0.0"),
    (3.4028234663852886e38, "3.4028235E38"), (1e40, "Infinity"), (0.1, "0.1"),
])
def test_float32_is_written_as_java_float_to_string(value: float, expected: str) -> None:
    assert java_float_to_string(value) == expected


def test_schema_cache_is_bounded_by_schemas_cache_size() -> None:
    conv = converter(**{"schemas.cache.size": "1"})
    first = SchemaBuilder.int32().name("a").build()
    second = SchemaBuilder.int32().name("b").build()
    for schema in (first, second, first):
        assert conv.from_connect_data(TOPIC, 1, schema=schema) == (
            f'{{"schema":{{"type":"int32","optional":false,"name":"{schema.name}"}},"payload":1}}'.encode())
    assert conv._encoder._cache.keys() == [first]


def test_schema_metadata_translation() -> None:
    """Java's ``testJsonSchemaMetadataTranslation``, with the bytes Jackson writes for each tree."""
    conv = converter()
    assert conv.from_connect_data(TOPIC, True, schema=SchemaBuilder.bool().default_value(True).build()) == (
        b'{"schema":{"type":"boolean","optional":false,"default":true},"payload":true}')
    described = (SchemaBuilder.bool().required().name("bool").version(3).doc("the documentation")
                 .parameter("foo", "bar").build())
    assert conv.from_connect_data(TOPIC, True, schema=described) == (
        b'{"schema":{"type":"boolean","optional":false,"name":"bool","version":3,"doc":"the documentation",'
        b'"parameters":{"foo":"bar"}},"payload":true}')


def test_decimal_with_trailing_zeros_to_numeric_json() -> None:
    numeric = converter(**{"decimal.format": "NUMERIC"})
    converted = numeric.from_connect_data(TOPIC, decimal.Decimal("1.5600"), schema=Decimal.schema(4))
    assert converted is not None and converted.endswith(b'"payload":1.5600}')


def test_mismatching_schema_and_value_is_refused() -> None:
    with pytest.raises(DataException, match="Invalid type for FLOAT64: <class 'bool'>"):
        converter().from_connect_data(TOPIC, True, schema=Schema.FLOAT64_SCHEMA)


def test_schema_cache_keeps_one_entry_per_equal_schema() -> None:
    """Java's ``testCacheSchemaToJsonConversion``: equal schemas built twice share an entry."""
    conv = converter()
    conv.from_connect_data(TOPIC, True, schema=SchemaBuilder.bool().build())
    conv.from_connect_data(TOPIC, True, schema=SchemaBuilder.bool().build())
    assert len(conv._encoder._cache) == 1
    conv.from_connect_data(TOPIC, True, schema=SchemaBuilder.bool().optional().build())
    assert len(conv._encoder._cache) == 2


def test_string_keyed_map_writes_a_null_key_as_the_text_null() -> None:
    schema = SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    converted = converter().from_connect_data(TOPIC, {None: 1, "a": 2}, schema=schema)
    assert converted is not None and converted.endswith(b'"payload":{"null":1,"a":2}}')


def test_byte_array_converter_takes_only_bytes_schemas() -> None:
    conv = ByteArrayConverter()
    assert conv.from_connect_data(TOPIC, b"x", schema=Schema.BYTES_SCHEMA) == b"x"
    with pytest.raises(DataException, match="Invalid schema type for ByteArrayConverter: INT32"):
        conv.from_connect_data(TOPIC, b"x", schema=Schema.INT32_SCHEMA)


def test_envelopes_read_back_with_their_schema() -> None:
    """Java's ``booleanToConnect`` and ``structToConnect`` cases, through ``to_connect_schema_and_value``."""
    conv = converter()
    described = conv.to_connect_schema_and_value(TOPIC, (
        b'{ "schema": { "type": "boolean", "optional": false, "name": "bool", "version": 2, '
        b'"doc": "the documentation", "parameters": { "foo": "bar" }}, "payload": true }'))
    assert described == SchemaAndValue(SchemaBuilder.bool().required().name("bool").version(2)
                                       .doc("the documentation").parameter("foo", "bar").build(), True)
    with_default = conv.to_connect_schema_and_value(
        TOPIC, b'{ "schema": { "type": "boolean", "default": true }, "payload": null }')
    assert with_default == SchemaAndValue(SchemaBuilder.bool().default_value(True).build(), True)
    schema = SchemaBuilder.struct().field("optional", Schema.OPTIONAL_STRING_SCHEMA).field(
        "required", Schema.STRING_SCHEMA).build()
    read = conv.to_connect_schema_and_value(TOPIC, (
        b'{ "schema": { "type": "struct", "fields": [{ "field":"optional", "type": "string", "optional": true }, '
        b'{  "field": "required", "type": "string" }] }, "payload": { "required": "required" } }'))
    assert read == SchemaAndValue(schema, Struct(schema).put("required", "required"))
    assert conv.to_connect_schema_and_value(TOPIC, None) == SchemaAndValue(None, None)
    assert conv.to_connect_schema_and_value(TOPIC, b'{"schema":null,"payload":[1]}') == SchemaAndValue(None, [1])


def test_what_is_written_reads_back_equal() -> None:
    inner = SchemaBuilder.struct().name("Inner").field("when", Timestamp.SCHEMA).optional().build()
    schema = (SchemaBuilder.struct().name("Outer").version(1)
              .field("amount", Decimal.schema(3))
              .field("day", Date.SCHEMA)
              .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
              .field("counts", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).build())
              .field("inners", SchemaBuilder.array(inner).build())
              .build())
    stamp = datetime.datetime(1969, 7, 20, 20, 17, 40, tzinfo=datetime.UTC)
    value = (Struct(schema).put("amount", decimal.Decimal("-12.345")).put("day", datetime.date(1969, 7, 20))
             .put("tags", ["a", "é"]).put("counts", {1: 0.5, -2: None})
             .put("inners", [Struct(inner).put("when", stamp), None]))
    for decimal_format in ("BASE64", "NUMERIC"):
        conv = converter(**{"decimal.format": decimal_format})
        assert conv.to_connect_schema_and_value(TOPIC, conv.from_connect_data(TOPIC, value, schema=schema)) == (
            SchemaAndValue(schema, value))


def test_read_schemas_are_cached_by_their_json_text() -> None:
    """Java's ``testCacheSchemaToConnectConversion``: an equal schema spelled otherwise is another entry."""
    conv = converter()
    for text in (b'{ "type": "boolean" }', b'{ "type": "boolean" }', b'{ "type": "boolean", "optional": true }',
                 b'{ "type": "boolean", "optional": false }'):
        conv.to_connect_schema_and_value(TOPIC, b'{ "schema": ' + text + b', "payload": true }')
    assert len(conv._read_schemas) == 3


def test_reading_a_null_takes_the_default_only_with_replace_null_with_default() -> None:
    data = b'{"schema":{"type":"int32","optional":true,"default":5},"payload":null}'
    assert converter().to_connect_schema_and_value(TOPIC, data).value == 5
    assert converter().to_connect_data(TOPIC, data) == 5
    keep_null = converter(**{"replace.null.with.default": "false"})
    assert keep_null.to_connect_schema_and_value(TOPIC, data).value is None
    assert keep_null.to_connect_data(TOPIC, data) is None
    with pytest.raises(DataException, match="Invalid null value for required INT32 field"):
        keep_null.to_connect_data(TOPIC, b'{"schema":{"type":"int32","default":5},"payload":null}')


def test_read_schema_cache_is_bounded_by_schemas_cache_size() -> None:
    """The other direction of ``schemas.cache.size``: at most that many read schemas are kept, the
    least recently used evicted first (Java's ``toConnectSchemaCache``)."""
    conv = converter(**{"schemas.cache.size": "2"})
    texts = [b'{"type":"int32","name":"%s"}' % name for name in (b"a", b"b", b"a", b"c")]
    for text in texts:
        conv.to_connect_schema_and_value(TOPIC, b'{"schema":' + text + b',"payload":1}')
    kept = conv._read_schemas.keys()  # least recently used first
    assert kept == [b'{"type":"int32","name":"a"}', b'{"type":"int32","name":"c"}']


def test_reading_never_gives_a_negative_zero() -> None:
    """Java reads every JSON fraction through a BigDecimal, which has no -0."""
    envelopes = converter()
    for data in (b'{"schema":{"type":"double"},"payload":-0.0}', b'{"schema":{"type":"float"},"payload":-0.0}'):
        assert str(envelopes.to_connect_data(TOPIC, data)) == "0.0"
        assert str(envelopes.to_connect_schema_and_value(TOPIC, data).value) == "0.0"
    assert [str(x) for x in envelopes.to_connect_data(TOPIC, b'{"schema":null,"payload":[-0.0,-0e5]}')] == [
        "0.0", "0.0"]
    assert str(converter(**{"schemas.enable": "false"}).to_connect_data(TOPIC, b"-0.0")) == "0.0"


def test_schemaless_integers_read_as_java_longs() -> None:
    """``JsonNode.longValue()`` keeps the low 64 bits of a larger integer."""
    assert converter(**{"schemas.enable": "false"}).to_connect_data(TOPIC, b"[18446744073709551617,-1]") == [1, -1]
    assert converter().to_connect_data(TOPIC, b'{"schema":null,"payload":9223372036854775808}') == -(2**63)


def test_map_with_struct_keys_reads_back_with_struct_keys() -> None:
    key = SchemaBuilder.struct().field("k", Schema.INT32_SCHEMA).build()
    schema = SchemaBuilder.map(key, Schema.STRING_SCHEMA).default_value({Struct(key).put("k", 2): "d"}).build()
    value = {Struct(key).put("k", 1): "v"}
    conv = converter()
    data = conv.from_connect_data(TOPIC, value, schema=schema)
    assert data == (b'{"schema":{"type":"map","keys":{"type":"struct","fields":[{"type":"int32","optional":false,'
                    b'"field":"k"}],"optional":false},"values":{"type":"string","optional":false},"optional":false,'
                    b'"default":[[{"k":2},"d"]]},"payload":[[{"k":1},"v"]]}')
    assert conv.to_connect_schema_and_value(TOPIC, data) == SchemaAndValue(schema, value)


def test_a_schema_default_is_read_with_replace_null_with_default() -> None:
    """A null inside a default takes its own schema's default only with ``replace.null.with.default``,
    as Java reads defaults with the converter's config."""
    data = (b'{"schema":{"type":"array","items":{"type":"int32","optional":true,"default":7},'
            b'"optional":true,"default":[null]},"payload":null}')
    assert converter().to_connect_data(TOPIC, data) == [7]
    assert converter(**{"replace.null.with.default": "false"}).to_connect_data(TOPIC, data) is None
    keep_null = converter(**{"replace.null.with.default": "false"}).to_connect_schema_and_value(TOPIC, data)
    assert keep_null.schema.default_value == [None]


def test_a_numeric_decimal_default_beyond_64_bits_reads_back() -> None:
    schema = Decimal.builder(0).default_value(decimal.Decimal(2**70)).build()
    conv = converter(**{"decimal.format": "NUMERIC"})
    data = conv.from_connect_data(TOPIC, decimal.Decimal(1), schema=schema)
    assert conv.to_connect_schema_and_value(TOPIC, data) == SchemaAndValue(schema, decimal.Decimal(1))


def test_unparsable_bytes_are_refused_with_javas_message() -> None:
    """Java's message stops at the colon; what the parser said is the cause."""
    for config in ({}, {"schemas.enable": "false"}):
        with pytest.raises(DataException) as refused:
            converter(**config).to_connect_data(TOPIC, b"{")
        assert str(refused.value) == "Converting byte[] to Kafka Connect data failed due to serialization error: "
        assert refused.value.__cause__ is not None


def test_reading_time_out_of_the_day_is_refused_with_javas_message() -> None:
    with pytest.raises(DataException, match=r"^Time values must use number of milliseconds greater than 0 and less "
                                            r"than 86400000$"):
        converter().to_connect_data(TOPIC, b'{"schema":{"type":"int32","name":"%s"},"payload":86400001}'
                                    % Time.LOGICAL_NAME.encode())


def test_reading_a_float_beyond_floats_range_gives_infinity_or_the_largest_float() -> None:
    """Java's ``(float)`` cast: infinity beyond the rounding boundary, the largest float below it."""
    conv = converter()
    assert conv.to_connect_data(TOPIC, b'{"schema":{"type":"float"},"payload":1e39}') == float("inf")
    assert conv.to_connect_data(TOPIC, b'{"schema":{"type":"float"},"payload":-3.4028235e38}') == (
        -3.4028234663852886e38)


def test_a_struct_without_a_schema_is_a_mismatching_schema() -> None:
    """Java's schemaless ``convertToJson`` finds a Struct's type, then no schema to match."""
    struct = Struct(SchemaBuilder.struct().build())
    for config in ({}, {"schemas.enable": "false"}):
        for value in (struct, [struct], {"k": struct}):
            with pytest.raises(DataException, match=r"^Mismatching schema\.$"):
                converter(**config).from_connect_data(TOPIC, value)


@pytest.mark.parametrize(("value", "payload"), [(1e39, '"Infinity"'), (-1e300, '"-Infinity"'),
                                                (3.5e38, '"Infinity"'), (3.4028235e38, "3.4028235E38")])
def test_float32_beyond_float_range_is_written_as_javas_quoted_infinity(value: float, payload: str) -> None:
    conv = converter()
    assert conv.from_connect_data(TOPIC, value, schema=Schema.FLOAT32_SCHEMA) == (
        b'{"schema":{"type":"float","optional":false},"payload":' + payload.encode() + b"}")
    array = SchemaBuilder.array(Schema.FLOAT32_SCHEMA).build()
    assert conv.from_connect_data(TOPIC, [value], schema=array).endswith(b'"payload":[' + payload.encode() + b"]}")


@pytest.mark.parametrize("value", ["NaN", "sNaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("decimal_format", ["BASE64", "NUMERIC"])
def test_non_finite_decimals_are_refused(value: str, decimal_format: str) -> None:
    conv = converter(**{"decimal.format": decimal_format})
    with pytest.raises(DataException, match="is not finite"):
        conv.from_connect_data(TOPIC, decimal.Decimal(value), schema=Decimal.schema(2))


@pytest.mark.parametrize(("schema", "value"), [
    (Schema.INT8_SCHEMA, 300), (Schema.INT8_SCHEMA, -129), (Schema.INT16_SCHEMA, 2**15),
    (Schema.INT32_SCHEMA, -(2**31) - 1), (Schema.INT64_SCHEMA, 2**63),
    (SchemaBuilder.array(Schema.INT32_SCHEMA).build(), [1, 2**40]),
    (SchemaBuilder.map(Schema.INT8_SCHEMA, Schema.STRING_SCHEMA).build(), {128: "x"}),
])
def test_ints_outside_their_schemas_range_are_refused_outside_structs_too(schema: Schema, value: object) -> None:
    with pytest.raises(DataException, match=r"Invalid type for INT(8|16|32|64): <class 'int'>"):
        converter().from_connect_data(TOPIC, value, schema=schema)


def test_ints_put_into_a_struct_without_put_are_range_checked() -> None:
    schema = SchemaBuilder.struct().field("n", Schema.INT8_SCHEMA).build()
    struct = Struct(schema)
    struct._values[0] = 300  # a plugin filling the slots directly skips put's check
    with pytest.raises(DataException, match="Invalid type for INT8"):
        converter().from_connect_data(TOPIC, struct, schema=schema)


@pytest.mark.parametrize("limit", [-(2**63), 2**63 - 1])
def test_ints_at_their_limits_are_written(limit: int) -> None:
    assert converter().from_connect_data(TOPIC, limit, schema=Schema.INT64_SCHEMA).endswith(
        f'"payload":{limit}}}'.encode())


def test_time_date_and_timestamp_read_back_equal_what_was_written() -> None:
    schema = (SchemaBuilder.struct().field("t", Time.SCHEMA).field("d", Date.SCHEMA).field("ts", Timestamp.SCHEMA)
              .field("dt", Time.builder().optional().default_value(datetime.time(1, 2, tzinfo=datetime.UTC)).build())
              .build())
    struct = (Struct(schema).put("t", datetime.time(13, 14, 15, 16000, tzinfo=datetime.UTC))
              .put("d", datetime.date(1969, 7, 20)).put("ts", datetime.datetime(2001, 2, 3, tzinfo=datetime.UTC))
              .put("dt", datetime.time(0, 0, 1, tzinfo=datetime.UTC)))
    conv = converter()
    back = conv.to_connect_schema_and_value(TOPIC, conv.from_connect_data(TOPIC, struct, schema=schema))
    assert back == SchemaAndValue(schema, struct)
    assert conv.to_connect_data(TOPIC, conv.from_connect_data(TOPIC, struct.get("t"), schema=Time.SCHEMA)) == (
        Time.to_logical(Time.SCHEMA, 47_655_016))


@pytest.mark.parametrize(("schema", "payload"), [
    (Timestamp.SCHEMA, "253402300800000"), (Timestamp.SCHEMA, "-62135596800001"),
    (Date.SCHEMA, "3000000"), (Date.SCHEMA, "-800000"),
])
def test_dates_python_cannot_hold_are_a_data_exception(schema: Schema, payload: str) -> None:
    conv = converter()
    envelope = (conv.from_connect_data(TOPIC, None, schema=SchemaBuilder(schema.type).name(schema.name or "")
                                       .version(1).optional().build())
                .replace(b'"optional":true', b'"optional":false').replace(b'"payload":null', b'"payload":' +
                                                                          payload.encode()))
    with pytest.raises(DataException, match="outside the dates Python represents"):
        conv.to_connect_data(TOPIC, envelope)


def test_a_midnight_datetime_in_a_date_field_is_written_as_struct_validation_accepts_it() -> None:
    schema = SchemaBuilder.struct().field("d", Date.SCHEMA).build()
    midnight = Struct(schema).put("d", datetime.datetime(1970, 1, 3, tzinfo=datetime.UTC))
    midnight.validate()
    assert converter().from_connect_data(TOPIC, midnight, schema=schema).endswith(b'"payload":{"d":2}}')
    noon = Struct(schema).put("d", datetime.datetime(1970, 1, 3, 12, tzinfo=datetime.UTC))
    noon.validate()  # as Java's Struct, which takes any java.util.Date
    with pytest.raises(DataException, match="Date type should not have any time fields set to non-zero values"):
        converter().from_connect_data(TOPIC, noon, schema=schema)


def test_a_null_key_and_a_null_text_key_are_one_json_key_first_position_last_value() -> None:
    schema = SchemaBuilder.map(Schema.OPTIONAL_STRING_SCHEMA, Schema.INT32_SCHEMA).build()
    assert converter().from_connect_data(TOPIC, {None: 1, "a": 3, "null": 2}, schema=schema).endswith(
        b'"payload":{"null":2,"a":3}}')


def test_float_defaults_that_java_tells_apart_are_not_shared_by_the_schema_cache() -> None:
    conv = converter()
    positive = SchemaBuilder.float64().default_value(0.0).build()
    negative = SchemaBuilder.float64().default_value(-0.0).build()
    assert b'"default":0.0' in conv.from_connect_data(TOPIC, 1.0, schema=positive)
    assert b'"default":-0.0' in conv.from_connect_data(TOPIC, 1.0, schema=negative)


def test_nesting_deeper_than_python_follows_is_a_data_exception() -> None:
    schema = Schema.INT8_SCHEMA
    value: object = 1
    for _ in range(2000):
        schema = SchemaBuilder.struct().field("inner", schema).build()
        value, value._values[0] = Struct(schema), value  # put would validate it all, again recursively
    with pytest.raises(DataException, match="nested too deeply"):
        converter().from_connect_data(TOPIC, value, schema=schema)


def test_the_fast_writer_of_plain_schemas_writes_what_the_general_walk_writes() -> None:
    """Plain schemas and structs of plain fields take a per-schema fast writer (cached with the
    schema texts); with ``schemas.cache.size=0`` every value takes the general walk. Both must give
    the same bytes, and anything the fast writer does not take (nulls, other classes, ints out of
    range, non-finite floats) must fall back to the general rules and messages."""
    import contextlib
    import random

    rng = random.Random(7)
    fast, general = JsonConverter(), JsonConverter()
    fast.configure({"schemas.enable": "true"}, False)
    general.configure({"schemas.enable": "true", "schemas.cache.size": "0"}, False)
    kinds = [(Schema.INT8_SCHEMA, lambda: rng.choice([0, 127, -128, 300, True])),
             (Schema.INT64_SCHEMA, lambda: rng.choice([2**63 - 1, -(2**63), 2**63, 5, None, 1.5])),
             (Schema.OPTIONAL_INT32_SCHEMA, lambda: rng.choice([None, 7, 2**31])),
             (Schema.FLOAT64_SCHEMA, lambda: rng.choice([0.1, -0.0, float("nan"), float("inf"), 1e300, 3])),
             (Schema.STRING_SCHEMA, lambda: rng.choice(["", "é\u0000\"\\😀", None, 5])),
             (Schema.BOOLEAN_SCHEMA, lambda: rng.choice([True, False, 1]))]
    row = SchemaBuilder.struct().name("Row")
    for index, (schema, _) in enumerate(kinds):
        row.field(f"f{index}", schema)
    row_schema = row.build()
    twin = SchemaBuilder.struct().name("Row")
    for index, (schema, _) in enumerate(kinds):
        twin.field(f"f{index}", schema)
    twin_schema = twin.build()

    def both(schema: Schema, value: object) -> None:
        outcomes = []
        for conv in (fast, general):
            try:
                outcomes.append(conv.from_connect_data("t", value, schema=schema))
            except DataException as e:
                outcomes.append(f"DataException: {e}")
        assert outcomes[0] == outcomes[1], (schema, value)

    for _ in range(300):
        for schema, draw in kinds:
            both(schema, draw())
        struct = Struct(row_schema)
        for index, (_, draw) in enumerate(kinds):
            with contextlib.suppress(DataException):  # an invalid value leaves the field unset
                struct.put(f"f{index}", draw())
        both(row_schema, struct)
        both(twin_schema, struct)  # an equal schema that is another object


@pytest.mark.parametrize("plain", [False, True])
def test_without_the_envelope_a_schemas_default_is_never_written(plain: bool) -> None:
    # A struct default whose field falls back on its own default cannot be written with
    # replace.null.with.default=false (Java fails too, in asJsonSchema); without the envelope Java never
    # writes the schema, so the value alone must still be written.
    inner = SchemaBuilder.struct().field("x", SchemaBuilder.float64().default_value(1.5).build()).optional().build()
    if plain:
        schema = (SchemaBuilder.struct().field("n", Schema.INT32_SCHEMA).optional()
                  .default_value(Struct(SchemaBuilder.struct().field("n", Schema.INT32_SCHEMA).optional().build())
                                 .put("n", 1)).build())
        value: object = Struct(schema).put("n", 2)
        expected = b'{"n":2}'
    else:
        schema = SchemaBuilder.map(Schema.STRING_SCHEMA, inner).optional().default_value({"a": Struct(inner)}).build()
        value, expected = {}, b"{}"
    conv = converter(**{"schemas.enable": "false", "replace.null.with.default": "false"})
    assert conv.from_connect_data(TOPIC, value, schema=schema) == expected
    if not plain:
        with pytest.raises(DataException, match="null value for field that is required"):
            converter(**{"replace.null.with.default": "false"}).from_connect_data(TOPIC, value, schema=schema)


_DEEP = 3000


@pytest.mark.parametrize("data", [
    b"[" * _DEEP + b"]" * _DEEP,
    b'{"schema":' + b'{"type":"array","items":' * _DEEP + b'{"type":"int8"}' + b"}" * _DEEP + b',"payload":[]}',
    b'{"schema":{"type":"array","items":{"type":"int8"}},"payload":' + b"[" * _DEEP + b"]" * _DEEP + b"}",
], ids=["schemaless", "deep schema", "deep payload"])
@pytest.mark.parametrize("enabled", ["true", "false"])
def test_reading_nesting_deeper_than_python_follows_is_a_data_exception(data: bytes, enabled: str) -> None:
    conv = converter(**{"schemas.enable": enabled})
    for read in (conv.to_connect_data, conv.to_connect_schema_and_value):
        with pytest.raises(DataException, match="nested too deeply"):
            read(TOPIC, data)
