"""Struct: put and get by name or Field, defaults, validate() with Java's messages, equality and repr."""

from __future__ import annotations

import pytest

from connect_runtime.api import DataException, Schema, SchemaBuilder, Struct
from connect_runtime.api.data import validate_value

SCHEMA = (
    SchemaBuilder.struct()
    .name("s")
    .field("a", Schema.INT32_SCHEMA)
    .field("b", Schema.STRING_SCHEMA)
    .field("c", Schema.OPTIONAL_BYTES_SCHEMA)
    .field("d", SchemaBuilder.int8().default_value(5).build())
    .build()
)


def test_put_and_get_by_name_or_field() -> None:
    struct = Struct(SCHEMA).put("a", 1)
    field_b = SCHEMA.field("b")
    assert field_b is not None
    struct.put(field_b, "x")
    assert struct.get("a") == 1 and struct.get(field_b) == "x" and struct.get("c") is None
    assert struct.schema is SCHEMA


def test_get_returns_the_default_and_get_without_default_does_not() -> None:
    struct = Struct(SCHEMA)
    assert struct.get("d") == 5
    assert struct.get_without_default("d") is None
    assert struct.put("d", 6).get("d") == 6


def test_put_validates_with_javas_message() -> None:
    with pytest.raises(DataException, match=r"^Invalid Python object for schema with type INT32: <class 'str'> "
                                            r'for field: "a"$'):
        Struct(SCHEMA).put("a", "1")
    with pytest.raises(DataException, match=r'^Invalid value: null used for required field: "b", schema type: STRING$'):
        Struct(SCHEMA).put("b", None)


def test_unknown_field_and_non_struct_schema() -> None:
    with pytest.raises(DataException, match=r"^z is not a valid field name$"):
        Struct(SCHEMA).get("z")
    with pytest.raises(DataException, match=r"^z is not a valid field name$"):
        Struct(SCHEMA).put("z", 1)
    with pytest.raises(DataException, match=r"^Not a struct schema: Schema\{STRING\}$"):
        Struct(Schema.STRING_SCHEMA)


def test_validate_requires_required_fields_without_default() -> None:
    struct = Struct(SCHEMA).put("a", 1)
    with pytest.raises(DataException, match=r'^Invalid value: null used for required field: "b", schema type: STRING$'):
        struct.validate()
    struct.put("b", "x").validate()  # c is optional and d has a default


def test_nested_struct_is_validated_in_depth() -> None:
    outer_schema = SchemaBuilder.struct().field("inner", SCHEMA).build()
    with pytest.raises(DataException, match='required field: "a"'):
        Struct(outer_schema).put("inner", Struct(SCHEMA))
    other = SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()
    with pytest.raises(DataException, match=r"^Struct schemas do not match\.$"):
        Struct(outer_schema).put("inner", Struct(other).put("a", 1))


def test_equality_and_hash_follow_schema_and_values() -> None:
    first = Struct(SCHEMA).put("a", 1).put("b", "x").put("c", b"\x00")
    second = Struct(SCHEMA).put("a", 1).put("b", "x").put("c", bytearray(b"\x00"))
    assert first == second and hash(first) == hash(second)
    assert first != Struct(SCHEMA).put("a", 2).put("b", "x").put("c", b"\x00")
    unset_default = Struct(SCHEMA).put("a", 1).put("b", "x").put("c", b"\x00").put("d", 5)
    assert first != unset_default  # as Java: a default is not a value that was put
    renamed = SchemaBuilder.struct().name("t").field("a", Schema.INT32_SCHEMA).build()
    assert Struct(renamed).put("a", 1) != Struct(SchemaBuilder.struct().field("a", Schema.INT32_SCHEMA).build()).put(
        "a", 1
    )


def test_repr_is_javas_to_string() -> None:
    assert repr(Struct(SCHEMA)) == "Struct{}"
    assert repr(Struct(SCHEMA).put("a", 1).put("b", "x")) == "Struct{a=1,b=x}"
    nested = SchemaBuilder.struct().field("n", SCHEMA).field("m", Schema.OPTIONAL_STRING_SCHEMA).build()
    inner = Struct(SCHEMA).put("a", 1).put("b", "y")
    assert repr(Struct(nested).put("n", inner).put("m", "z")) == "Struct{n=Struct{a=1,b=y},m=z}"


def test_put_takes_a_plain_value_fast_with_the_same_verdict_as_validate_value() -> None:
    """``put`` accepts a value of exactly a plain schema's class (and range) without the full rules;
    every value must still get the verdict and message ``validate_value`` gives."""
    plain = [Schema.INT8_SCHEMA, Schema.INT16_SCHEMA, Schema.INT32_SCHEMA, Schema.INT64_SCHEMA,
             Schema.FLOAT64_SCHEMA, Schema.BOOLEAN_SCHEMA, Schema.STRING_SCHEMA, Schema.OPTIONAL_INT8_SCHEMA,
             SchemaBuilder.int32().name("named").build()]
    values: list[object] = [0, 127, 128, -129, 2**15, 2**31, -(2**63) - 1, 2**63, True, False, 1.5, float("nan"),
                            "s", "", None, b"x", [1]]
    builder = SchemaBuilder.struct()
    for index, schema in enumerate(plain):
        builder.field(f"f{index}", schema)
    struct_schema = builder.build()
    for index, schema in enumerate(plain):
        for value in values:
            try:
                validate_value(schema, value, f"f{index}")
                expected = None
            except DataException as e:
                expected = str(e)
            try:
                Struct(struct_schema).put(f"f{index}", value)
                got = None
            except DataException as e:
                got = str(e)
            assert got == expected, (schema, value)
