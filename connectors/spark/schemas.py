"""Spark schemas as Kafka Connect schemas, and rows as the JSON ``JsonConverter`` writes for them.

When the key or value converter asks for schemas (``JsonConverter`` with ``schemas.enable=true``), the
driver maps the row's Spark schema to a Connect schema once (:func:`row_schema`; the table in
docs/spark.md) and builds the record bytes inside the JVM as Java's ``JsonConverter`` writes a Struct
of that schema: the envelope with :func:`schema_json`, and :func:`_payload_json`, a Spark expression
that writes each value in Connect's form. Spark's own ``to_json`` already writes numbers, booleans,
strings, bytes (base64), arrays, string-keyed maps and structs with Jackson as Connect does, so a row
of only those goes through it whole; Decimal (base64 of the unscaled two's complement bytes, or a
number with ``decimal.format=NUMERIC``), Date (days), Timestamp (milliseconds) and maps with
non-string keys (arrays of ``[key, value]``) are written by expressions of their own. Executors run
Python only for the rare rows with a character beyond U+FFFF, which Jackson escapes as a surrogate
pair and Spark does not (``delivery.escape_supplementary``).

Columns whose Spark type has no Connect equivalent are refused, naming the column; with schemas
disabled rows stay schemaless JSON, Spark's ``to_json`` of the row, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from connect_runtime.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SchemaBuilderException,
    SchemaType,
    Timestamp,
)
from connect_runtime.api.java_json import json_dumps_compact

# pyspark is imported where it is used: only the Spark application's driver needs it.

#: Spark types refused, by ``typeName()``, with the reason given to the user.
_NO_CONNECT_TYPE = {
    "void": "a column that is always null has no type",
    "interval": "Connect has no interval type",
    "daytimeinterval": "Connect has no interval type",
    "yearmonthinterval": "Connect has no interval type",
    "variant": "a VARIANT value has no fixed schema",
    "time": "Spark's TIME type cannot be converted by this Spark version",
    "geometry": "Connect has no spatial type",
    "geography": "Connect has no spatial type",
}
_PRIMITIVES = {
    "byte": SchemaType.INT8, "short": SchemaType.INT16, "integer": SchemaType.INT32, "long": SchemaType.INT64,
    "float": SchemaType.FLOAT32, "double": SchemaType.FLOAT64, "boolean": SchemaType.BOOLEAN,
    "string": SchemaType.STRING, "char": SchemaType.STRING, "varchar": SchemaType.STRING,
    "binary": SchemaType.BYTES,
}
#: Leading bytes BigInteger.toByteArray leaves out: 00 before a byte below 0x80, FF before one above.
_REDUNDANT_SIGN_BYTES = "^(?:00)+(?=[0-7])|^(?:FF)+(?=[89A-F])"


#: A top-level type of a ``source.schema`` column with no Connect equivalent (nested types are outside it).
_REFUSED_DDL_TYPE = re.compile(r"\b(INTERVAL|VARIANT|VOID|GEOMETRY|GEOGRAPHY|TIME)\b(?!\s+ZONE\b)", re.IGNORECASE)
_DDL_COLUMN = re.compile(r"\s*(`(?:[^`]|``)*`|[^\s:`]+)\s*:?\s*(.*)", re.DOTALL)


def ddl_refusals(ddl: str, columns: set[str] | None = None) -> list[str]:
    """What a worker can tell without a JVM: the columns of the Spark DDL ``ddl`` (only those in
    ``columns``, if given) whose own type has no Connect schema, one message each. Types nested in
    arrays, maps and structs, and types that files or ``transform.sql`` produce, are checked by the
    application (:func:`row_schema`), which fails the task naming the column."""
    problems = []
    for column in _top_level(re.sub(r"'(?:[^'\\]|\\.)*'", "''", ddl)):
        match = _DDL_COLUMN.fullmatch(column)
        if match is None or not match.group(2).strip():
            continue
        name = match.group(1)
        name = name[1:-1].replace("``", "`") if name.startswith("`") else name
        own_type = _REFUSED_DDL_TYPE.search(re.sub(r"<.*>", "", match.group(2), flags=re.DOTALL))
        if own_type is not None and (columns is None or name in columns):
            problems.append(f"Column {name} has Spark type {own_type.group(1).upper()}, which has no Kafka Connect "
                            "schema: cast it in transform.sql, or set the converter's schemas.enable=false")
    return problems


def _top_level(ddl: str) -> Iterator[str]:
    """The comma-separated parts of ``ddl`` outside ``<>``, ``()`` and backticks."""
    depth, quoted, start = 0, False, 0
    for index, char in enumerate(ddl):
        if char == "`":
            quoted = not quoted
        elif not quoted and char in "<(":
            depth += 1
        elif not quoted and char in ">)":
            depth -= 1
        elif not quoted and depth == 0 and char == ",":
            yield ddl[start:index]
            start = index + 1
    yield ddl[start:]


def row_schema(row_type: Any) -> Schema:
    """The Connect STRUCT schema of rows of the Spark ``StructType`` ``row_type`` (required: a row is
    never null); raises ``DataException`` naming the first column Connect cannot type."""
    return _struct(row_type, optional=False, path="")


def _struct(struct_type: Any, optional: bool, path: str) -> Schema:
    builder = SchemaBuilder.struct()
    if optional:
        builder.optional()
    for field in struct_type.fields:
        column = f"{path}{field.name}"
        try:
            builder.field(field.name, _schema(field.dataType, field.nullable, column))
        except SchemaBuilderException as e:
            raise DataException(f"Column {column}: {e}") from e
    return builder.build()


def _schema(data_type: Any, optional: bool, column: str) -> Schema:
    name = data_type.typeName()
    primitive = _PRIMITIVES.get(name)
    if primitive is not None:
        builder = SchemaBuilder(primitive)
    elif name == "decimal":
        if data_type.scale < 0:  # Spark's legacy negative scales: the unscaled value is not its digits
            raise DataException(f"Column {column} has Spark type {data_type.simpleString()} with a negative scale, "
                                "which Kafka Connect's Decimal does not write here: cast it in transform.sql")
        builder = Decimal.builder(data_type.scale)
    elif name == "date":
        builder = Date.builder()
    elif name in ("timestamp", "timestamp_ntz"):
        builder = Timestamp.builder()
    elif name == "array":
        builder = SchemaBuilder.array(_schema(data_type.elementType, data_type.containsNull, f"{column}.element"))
    elif name == "map":
        builder = SchemaBuilder.map(_schema(data_type.keyType, False, f"{column}.key"),
                                    _schema(data_type.valueType, data_type.valueContainsNull, f"{column}.value"))
    elif name == "struct":
        return _struct(data_type, optional, f"{column}.")
    else:
        why = _NO_CONNECT_TYPE.get(name, "Connect has no equivalent type")
        raise DataException(
            f"Column {column} has Spark type {data_type.simpleString()}, which has no Kafka Connect schema "
            f"({why}): cast it in transform.sql, or set the converter's schemas.enable=false")
    if optional:
        builder.optional()
    return builder.build()


def schema_json(schema: Schema) -> str:
    """Java's ``JsonConverter.asJsonSchema`` as compact JSON text, for the schemas :func:`row_schema`
    makes (no defaults or docs)."""
    return json_dumps_compact(_schema_node(schema, None)).decode("utf-8")


def _schema_node(schema: Schema, field: str | None) -> dict[str, Any]:
    node: dict[str, Any] = {"type": {SchemaType.FLOAT32: "float", SchemaType.FLOAT64: "double"}.get(
        schema.type, schema.type.value)}
    if schema.type is SchemaType.ARRAY:
        node["items"] = _schema_node(_present(schema.value_schema), None)
    elif schema.type is SchemaType.MAP:
        node["keys"] = _schema_node(_present(schema.key_schema), None)
        node["values"] = _schema_node(_present(schema.value_schema), None)
    elif schema.type is SchemaType.STRUCT:
        node["fields"] = [_schema_node(f.schema, f.name) for f in schema.fields]
    node["optional"] = schema.is_optional
    if schema.name is not None:
        node["name"] = schema.name
    if schema.version is not None:
        node["version"] = schema.version
    if schema.parameters is not None:
        node["parameters"] = dict(schema.parameters)
    if field is not None:
        node["field"] = field
    return node


def _present(schema: Schema | None) -> Schema:
    if schema is None:
        raise DataException("An array or map schema without its element schemas")
    return schema


def envelope_json(columns: list[Any], row_type: Any, numeric_decimals: bool) -> Any:
    """A Spark string expression: ``{"schema":...,"payload":...}`` of the row made of ``columns``
    (whose types are ``row_type``'s fields), as Java's ``JsonConverter`` with ``schemas.enable=true``."""
    from pyspark.sql import functions as F

    schema = schema_json(row_schema(row_type))
    return F.concat(F.lit('{"schema":' + schema + ',"payload":'),
                    _row_payload(columns, row_type, numeric_decimals), F.lit("}"))


def _row_payload(columns: list[Any], row_type: Any, numeric_decimals: bool) -> Any:
    from pyspark.sql import functions as F

    if not any(_rewritten(f.dataType, numeric_decimals) for f in row_type.fields):
        return F.to_json(F.struct(*columns), {"ignoreNullFields": "false"})
    parts: list[Any] = [F.lit("{")]
    for index, (column, field) in enumerate(zip(columns, row_type.fields, strict=True)):
        key = json_dumps_compact(field.name).decode("utf-8")
        parts += [F.lit(("," if index else "") + key + ":"), _payload_json(column, field.dataType, numeric_decimals)]
    parts.append(F.lit("}"))
    return F.concat(*parts)


def _rewritten(data_type: Any, numeric_decimals: bool) -> bool:
    """Whether Spark's ``to_json`` writes values of ``data_type`` otherwise than Connect does."""
    name = data_type.typeName()
    if name in ("date", "timestamp", "timestamp_ntz"):
        return True
    if name == "decimal":
        return not numeric_decimals
    if name == "array":
        return _rewritten(data_type.elementType, numeric_decimals)
    if name == "map":
        return (data_type.keyType.typeName() not in ("string", "char", "varchar")
                or _rewritten(data_type.valueType, numeric_decimals))
    if name == "struct":
        return any(_rewritten(f.dataType, numeric_decimals) for f in data_type.fields)
    return False


def _payload_json(column: Any, data_type: Any, numeric_decimals: bool) -> Any:
    """A Spark string expression: the JSON text ``JsonConverter.convertToJson`` writes for the values of
    ``column`` (of Spark type ``data_type``) under the schema :func:`row_schema` gives it; ``null`` for
    a null."""
    from pyspark.sql import functions as F

    name = data_type.typeName()
    if not _rewritten(data_type, numeric_decimals):
        # The element of a one-element array: to_json takes only arrays, maps and structs.
        text = F.to_json(F.array(column), {"ignoreNullFields": "false"})
        return F.substr(text, F.lit(2), F.length(text) - 2)
    if name == "date":
        written = F.unix_date(column).cast("string")
    elif name == "timestamp":
        written = F.unix_millis(column).cast("string")
    elif name == "timestamp_ntz":
        # The wall-clock time read as UTC; microseconds rounded down to milliseconds, as for TIMESTAMP.
        if not hasattr(F, "timestamp_diff"):
            raise DataException("TIMESTAMP_NTZ columns get a Connect schema with PySpark 4 or later: cast them to "
                                "TIMESTAMP in transform.sql")
        micros = F.timestamp_diff("MICROSECOND", F.lit("1970-01-01 00:00:00").cast("timestamp_ntz"), column)
        whole_millis = (micros - F.pmod(micros, F.lit(1000))).cast("decimal(20,0)") / 1000
        written = whole_millis.cast("long").cast("string")
    elif name == "decimal":
        written = F.concat(F.lit('"'), F.base64(F.unhex(_unscaled_hex(column))), F.lit('"'))
    elif name == "array":
        elements = F.transform(column, lambda e: _payload_json(e, data_type.elementType, numeric_decimals))
        written = F.concat(F.lit("["), F.array_join(elements, ","), F.lit("]"))
    elif name == "map":
        entries = F.map_entries(column)
        if data_type.keyType.typeName() in ("string", "char", "varchar"):
            pairs = F.transform(entries, lambda e: F.concat(
                _payload_json(e["key"], data_type.keyType, numeric_decimals), F.lit(":"),
                _payload_json(e["value"], data_type.valueType, numeric_decimals)))
            written = F.concat(F.lit("{"), F.array_join(pairs, ","), F.lit("}"))
        else:
            pairs = F.transform(entries, lambda e: F.concat(
                F.lit("["), _payload_json(e["key"], data_type.keyType, numeric_decimals), F.lit(","),
                _payload_json(e["value"], data_type.valueType, numeric_decimals), F.lit("]")))
            written = F.concat(F.lit("["), F.array_join(pairs, ","), F.lit("]"))
    else:  # struct
        fields = [column.getField(f.name) for f in data_type.fields]
        written = _row_payload(fields, data_type, numeric_decimals)
    return F.when(column.isNull(), F.lit("null")).otherwise(written)


def _unscaled_hex(column: Any) -> Any:
    """Hex digits of ``BigInteger.toByteArray`` of a decimal column's unscaled value (at most 38 digits,
    so 128 bits hold it): the digits of its plain string without the point, split into two 64-bit
    halves (``hex`` of a long), in decimal arithmetic that never overflows DECIMAL(38, 0). A negative
    value is the bitwise NOT of ``-value - 1``, which is not negative."""
    import decimal

    from pyspark.sql import functions as F

    two_64, two_63 = F.lit(decimal.Decimal(2**64)), F.lit(decimal.Decimal(2**63))
    unscaled = F.regexp_replace(column.cast("string"), r"\.", "").cast("decimal(38,0)")
    negative = unscaled < 0
    # -1 - value, by subtraction: Spark negates (and takes abs of) a decimal at 34 digits, which rounds.
    magnitude = F.when(negative, F.lit(decimal.Decimal(-1)) - unscaled).otherwise(unscaled)
    # The quotient is rounded to 6 decimals, so its floor may be one too high, never too low: compute
    # the remainder from one below it (never beyond the magnitude) and correct.
    high = F.floor(magnitude / two_64)
    rest = magnitude - (high - 1) * two_64
    high = F.when(rest >= two_64, high).otherwise(high - 1)
    low = F.when(rest >= two_64, rest - two_64).otherwise(rest)
    low = F.when(low >= two_63, low - two_64).otherwise(low)
    digits = F.concat(F.lpad(F.hex(high.cast("long")), 16, "0"), F.lpad(F.hex(low.cast("long")), 16, "0"))
    digits = F.when(negative, F.translate(digits, "0123456789ABCDEF", "FEDCBA9876543210")).otherwise(digits)
    return F.regexp_replace(digits, _REDUNDANT_SIGN_BYTES, "")
