"""Schemas and SchemaBuilder: building, Java's equality and hashing, which Python values each type takes."""

from __future__ import annotations

import datetime
import decimal
import inspect

import pytest

import connect_runtime.api.data as data
from connect_runtime.api import (
    DataException,
    Date,
    Decimal,
    Field,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    SchemaBuilderException,
    SchemaType,
    Struct,
    Time,
    Timestamp,
    validate_value,
)


def test_predefined_schemas_are_the_builders_schemas() -> None:
    assert SchemaBuilder.int64().build() == Schema.INT64_SCHEMA
    assert SchemaBuilder.string().optional().build() == Schema.OPTIONAL_STRING_SCHEMA
    assert Schema.OPTIONAL_STRING_SCHEMA.is_optional and not Schema.STRING_SCHEMA.is_optional
    assert Schema.BOOLEAN_SCHEMA.type is Schema.Type.BOOLEAN
    assert Schema.BYTES_SCHEMA != Schema.OPTIONAL_BYTES_SCHEMA


def test_type_names_are_javas() -> None:
    assert str(SchemaType.INT8) == "INT8"
    assert SchemaType.FLOAT64.value == "float64"
    assert SchemaType.STRING.is_primitive and not SchemaType.STRUCT.is_primitive


def test_builder_sets_every_property() -> None:
    schema = (
        SchemaBuilder.int32().name("n").version(2).doc("d").parameter("a", "1").parameters({"b": "2"})
        .optional().default_value(7).build()
    )
    assert (schema.type, schema.name, schema.version, schema.doc) == (SchemaType.INT32, "n", 2, "d")
    assert dict(schema.parameters or {}) == {"a": "1", "b": "2"}
    assert schema.is_optional and schema.default_value == 7
    assert repr(schema) == "Schema{n:INT32}"
    assert repr(Schema.INT8_SCHEMA) == "Schema{INT8}"


def test_empty_parameters_leave_none() -> None:
    assert SchemaBuilder.string().parameters({}).build().parameters is None


def test_struct_fields_keep_their_order() -> None:
    schema = SchemaBuilder.struct().field("b", Schema.STRING_SCHEMA).field("a", Schema.INT8_SCHEMA).build()
    assert [f.name for f in schema.fields] == ["b", "a"]
    assert schema.field("a") == Field("a", 1, Schema.INT8_SCHEMA)
    assert schema.field("missing") is None
    assert repr(schema.fields[0]) == "Field{name=b, index=0, schema=Schema{STRING}}"


def test_fields_order_matters_for_equality() -> None:
    ab = SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA).field("b", Schema.STRING_SCHEMA).build()
    ba = SchemaBuilder.struct().field("b", Schema.STRING_SCHEMA).field("a", Schema.STRING_SCHEMA).build()
    assert ab != ba
    assert ab == SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA).field("b", Schema.STRING_SCHEMA).build()


@pytest.mark.parametrize(
    "other",
    [
        SchemaBuilder.string().name("x").build(),
        SchemaBuilder.string().version(1).build(),
        SchemaBuilder.string().doc("x").build(),
        SchemaBuilder.string().parameter("k", "v").build(),
        SchemaBuilder.string().optional().build(),
        SchemaBuilder.string().default_value("x").build(),
        Schema.BYTES_SCHEMA,
    ],
)
def test_every_property_takes_part_in_equality(other: Schema) -> None:
    assert other != Schema.STRING_SCHEMA


def test_equal_schemas_hash_equally_even_with_container_defaults() -> None:
    def build(default: object) -> Schema:
        return SchemaBuilder.array(Schema.BYTES_SCHEMA).default_value(default).build()

    first, second = build([b"ab", bytearray(b"c")]), build((bytearray(b"ab"), b"c"))
    assert first == second and hash(first) == hash(second)
    maps = [SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).default_value({"a": 1}).build() for _ in "xy"]
    assert maps[0] == maps[1] and hash(maps[0]) == hash(maps[1])
    assert build([b"ab"]) != build([b"ac"])


def test_decimal_defaults_compare_with_their_scale_as_big_decimal_does() -> None:
    tenth = Decimal.builder(1).default_value(decimal.Decimal("1.0")).build()
    assert tenth != Decimal.builder(1).default_value(decimal.Decimal("1.00")).build()
    assert tenth == Decimal.builder(1).default_value(decimal.Decimal("1.0")).build()


def test_schemaless_values_of_different_java_types_differ() -> None:
    assert SchemaAndValue(None, 1) != SchemaAndValue(None, True)
    assert SchemaAndValue(None, 1) != SchemaAndValue(None, 1.0)
    assert SchemaAndValue(None, [b"a"]) == SchemaAndValue(None, (bytearray(b"a"),))
    assert hash(SchemaAndValue(None, [b"a"])) == hash(SchemaAndValue(None, (bytearray(b"a"),)))
    assert SchemaAndValue(None, None) == SchemaAndValue.NULL
    assert repr(SchemaAndValue(Schema.STRING_SCHEMA, "x")) == "SchemaAndValue{schema=Schema{STRING}, value=x}"


def test_non_struct_and_non_container_accessors_raise_javas_messages() -> None:
    with pytest.raises(DataException, match=r"^Cannot list fields on non-struct type$"):
        _ = Schema.STRING_SCHEMA.fields
    with pytest.raises(DataException, match=r"^Cannot look up fields on non-struct type$"):
        Schema.STRING_SCHEMA.field("a")
    with pytest.raises(DataException, match=r"^Cannot look up key schema on non-map type$"):
        _ = SchemaBuilder.array(Schema.STRING_SCHEMA).build().key_schema
    with pytest.raises(DataException, match=r"^Cannot look up value schema on non-array and non-map type$"):
        _ = Schema.STRING_SCHEMA.value_schema


def test_builder_refuses_setting_a_property_twice() -> None:
    with pytest.raises(SchemaBuilderException, match=r"^Invalid SchemaBuilder call: name has already been set\.$"):
        SchemaBuilder.string().name("a").name("b")
    with pytest.raises(SchemaBuilderException, match="optional has already been set"):
        SchemaBuilder.string().optional().required()
    assert SchemaBuilder.string().optional().optional().build().is_optional


def test_builder_field_errors() -> None:
    with pytest.raises(SchemaBuilderException, match=r"^Cannot create fields on type STRING$"):
        SchemaBuilder.string().field("a", Schema.STRING_SCHEMA)
    with pytest.raises(SchemaBuilderException, match=r"^fieldName cannot be null\.$"):
        SchemaBuilder.struct().field("", Schema.STRING_SCHEMA)
    with pytest.raises(SchemaBuilderException, match=r"^Cannot create field because of field name duplication a$"):
        SchemaBuilder.struct().field("a", Schema.STRING_SCHEMA).field("a", Schema.INT8_SCHEMA)


def test_builder_validates_the_default_value() -> None:
    with pytest.raises(SchemaBuilderException, match=r"^Invalid default value$") as raised:
        SchemaBuilder.int8().default_value("x")
    assert isinstance(raised.value.__cause__, DataException)
    with pytest.raises(SchemaBuilderException, match=r"^Invalid default value$"):
        SchemaBuilder.int8().default_value(None)
    assert SchemaBuilder.int8().optional().default_value(None).build().default_value is None


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (Schema.INT8_SCHEMA, -128),
        (Schema.INT8_SCHEMA, 127),
        (Schema.INT16_SCHEMA, 2**15 - 1),
        (Schema.INT32_SCHEMA, -(2**31)),
        (Schema.INT64_SCHEMA, 2**63 - 1),
        (Schema.FLOAT32_SCHEMA, 1.5),
        (Schema.FLOAT64_SCHEMA, float("inf")),
        (Schema.BOOLEAN_SCHEMA, False),
        (Schema.STRING_SCHEMA, ""),
        (Schema.BYTES_SCHEMA, b"a"),
        (Schema.BYTES_SCHEMA, bytearray(b"a")),
        (SchemaBuilder.array(Schema.INT8_SCHEMA).build(), [1, 2]),
        (SchemaBuilder.array(Schema.INT8_SCHEMA).build(), (1, 2)),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_INT8_SCHEMA).build(), {"a": None}),
        (Decimal.schema(2), decimal.Decimal("1.25")),
        (Date.SCHEMA, datetime.date(1969, 12, 31)),
        (Time.SCHEMA, datetime.time(1, 2)),
        (Timestamp.SCHEMA, datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)),
        (Schema.OPTIONAL_STRING_SCHEMA, None),
    ],
)
def test_valid_values(schema: Schema, value: object) -> None:
    validate_value(schema, value)


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        (Schema.INT8_SCHEMA, "1", "Invalid Python object for schema with type INT8: <class 'str'> for value"),
        (Schema.INT32_SCHEMA, True, "Invalid Python object for schema with type INT32: <class 'bool'> for value"),
        (Schema.FLOAT64_SCHEMA, 1, "Invalid Python object for schema with type FLOAT64: <class 'int'> for value"),
        (Schema.BOOLEAN_SCHEMA, 1, "Invalid Python object for schema with type BOOLEAN: <class 'int'> for value"),
        (Schema.BYTES_SCHEMA, "a", "Invalid Python object for schema with type BYTES: <class 'str'> for value"),
        (Schema.INT8_SCHEMA, 128,
         "Invalid Python object for schema with type INT8: <class 'int'> 128 out of range [-128, 127] for value"),
        (Schema.INT64_SCHEMA, 2**63, "out of range [-9223372036854775808, 9223372036854775807]"),
        (Schema.STRING_SCHEMA, None, "Invalid value: null used for required value, schema type: STRING"),
        (Date.SCHEMA, 3, 'Invalid Python object for schema "org.apache.kafka.connect.data.Date" with type INT32: '
         "<class 'int'> for value"),
        (Decimal.schema(2), 1.5, "Invalid Python object for schema \"org.apache.kafka.connect.data.Decimal\""),
        (SchemaBuilder.array(Schema.INT8_SCHEMA).build(), [1, "x"],
         "Invalid Python object for schema with type INT8: <class 'str'> for element of array value"),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {1: 1},
         "Invalid Python object for schema with type STRING: <class 'int'> for key of map value"),
        (SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT8_SCHEMA).build(), {"a": None},
         "Invalid value: null used for required value of map value, schema type: INT8"),
        (Schema(SchemaType.ARRAY), [1], "No schema defined for element of array value"),
        (Schema(SchemaType.MAP), {}, "No schema defined for key of map value"),
        (SchemaBuilder.struct().build(), Struct(SchemaBuilder.struct().name("x").build()),
         "Struct schemas do not match."),
    ],
)
def test_invalid_values_give_javas_messages(schema: Schema, value: object, message: str) -> None:
    with pytest.raises(DataException) as raised:
        validate_value(schema, value)
    assert message in str(raised.value)


def test_field_name_in_the_message() -> None:
    with pytest.raises(DataException, match=r'^Invalid value: null used for required field: "x", schema type: STRING$'):
        validate_value(Schema.STRING_SCHEMA, None, "x")


@pytest.mark.parametrize(("build", "message"), [
    (lambda: SchemaBuilder.struct().field("x", None), r"^fieldSchema for field x cannot be null\.$"),
    (lambda: SchemaBuilder.array(None), r"^valueSchema cannot be null\.$"),
    (lambda: SchemaBuilder.map(None, Schema.STRING_SCHEMA), r"^keySchema cannot be null\.$"),
    (lambda: SchemaBuilder.map(Schema.STRING_SCHEMA, None), r"^valueSchema cannot be null\.$"),
])
def test_builder_refuses_missing_child_schemas_with_javas_messages(build: object, message: str) -> None:
    with pytest.raises(SchemaBuilderException, match=message):
        build()  # type: ignore[operator]


def test_empty_parameters_are_ignored_even_after_some_were_set() -> None:
    # Java's parameters(Map) returns early on an empty map, so no schema carries an empty one
    assert SchemaBuilder.string().parameters({}).build() == Schema.STRING_SCHEMA
    assert SchemaBuilder.string().parameter("a", "b").parameters({}).build().parameters == {"a": "b"}


@pytest.mark.parametrize(("a", "b", "equal"), [
    (0.0, -0.0, False), (float("nan"), float("nan"), True), (1.5, 1.5, True), (-0.0, -0.0, True),
])
def test_float_defaults_compare_as_javas_double_equals(a: float, b: float, equal: bool) -> None:
    first = SchemaBuilder.float64().default_value(a).build()
    second = SchemaBuilder.float64().default_value(b).build()
    assert (first == second) is equal
    if equal:
        assert hash(first) == hash(second)
    struct_schema = SchemaBuilder.struct().field("f", Schema.FLOAT32_SCHEMA).build()
    assert (Struct(struct_schema).put("f", a) == Struct(struct_schema).put("f", b)) is equal


@pytest.mark.parametrize("value", ["NaN", "-sNaN", "Infinity", "-Infinity"])
def test_non_finite_decimals_are_invalid_with_javas_wording(value: str) -> None:
    schema = Decimal.schema(2)
    expected = (rf'^Invalid Python object for schema "org.apache.kafka.connect.data.Decimal" with type BYTES: '
                rf"<class 'decimal.Decimal'> {value} is not finite for field: \"d\"$")
    with pytest.raises(DataException, match=expected):
        validate_value(schema, decimal.Decimal(value), "d")
    with pytest.raises(DataException, match="is not finite"):
        Struct(SchemaBuilder.struct().field("d", schema).build()).put("d", decimal.Decimal(value))


def test_every_public_member_of_the_data_model_is_documented() -> None:
    undocumented = []
    for name in data.__all__:
        cls = getattr(data, name)
        for owner in getattr(cls, "__mro__", ()):
            if not owner.__module__.startswith("connect_runtime.api"):
                continue
            for attr, member in vars(owner).items():
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                public = not attr.startswith("_") and (isinstance(member, property) or inspect.isfunction(member))
                if public and not (member.__doc__ or "").strip():
                    undocumented.append(f"{name}.{attr}")
    assert not undocumented
