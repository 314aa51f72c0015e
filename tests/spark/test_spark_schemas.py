"""SparkSource's Spark-to-Connect schema mapping (connectors/spark/schemas.py): which Connect schema each
Spark type gets, which types are refused (naming the column), and the bytes Spark writes for a row:
exactly what our JsonConverter (proven against Java's by the data harness) writes for the same row as a
Struct of the mapped schema."""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import WorkerFactory
from pyspark.sql import types as T
from spark_helpers import create_topic, csv_inputs, wait_files_complete

from connect_runtime.api import (
    DataException,
    Date,
    Decimal,
    Schema,
    SchemaBuilder,
    SchemaType,
    Struct,
    Timestamp,
)
from connect_runtime.converters.json_converter import JsonConverter
from connect_runtime.testing.cluster import ConnectClient, read_committed, wait_until
from connectors.spark.delivery import escape_supplementary
from connectors.spark.schemas import envelope_json, row_schema, schema_json


def test_each_spark_type_maps_to_its_connect_schema() -> None:
    row = T.StructType([
        T.StructField("b", T.ByteType(), False), T.StructField("s", T.ShortType(), True),
        T.StructField("i", T.IntegerType(), False), T.StructField("l", T.LongType(), True),
        T.StructField("f", T.FloatType(), True), T.StructField("d", T.DoubleType(), False),
        T.StructField("ok", T.BooleanType(), True), T.StructField("name", T.StringType(), True),
        T.StructField("code", T.CharType(3), True), T.StructField("note", T.VarcharType(10), True),
        T.StructField("raw", T.BinaryType(), True), T.StructField("price", T.DecimalType(10, 2), False),
        T.StructField("day", T.DateType(), True), T.StructField("at", T.TimestampType(), True),
        T.StructField("local", T.TimestampNTZType(), False),
        T.StructField("tags", T.ArrayType(T.StringType(), containsNull=False), True),
        T.StructField("scores", T.MapType(T.IntegerType(), T.DoubleType(), valueContainsNull=True), True),
        T.StructField("inner", T.StructType([T.StructField("x", T.LongType(), False)]), True),
    ])
    expected = (
        SchemaBuilder.struct()
        .field("b", Schema.INT8_SCHEMA).field("s", Schema.OPTIONAL_INT16_SCHEMA)
        .field("i", Schema.INT32_SCHEMA).field("l", Schema.OPTIONAL_INT64_SCHEMA)
        .field("f", Schema.OPTIONAL_FLOAT32_SCHEMA).field("d", Schema.FLOAT64_SCHEMA)
        .field("ok", Schema.OPTIONAL_BOOLEAN_SCHEMA).field("name", Schema.OPTIONAL_STRING_SCHEMA)
        .field("code", Schema.OPTIONAL_STRING_SCHEMA).field("note", Schema.OPTIONAL_STRING_SCHEMA)
        .field("raw", Schema.OPTIONAL_BYTES_SCHEMA).field("price", Decimal.schema(2))
        .field("day", Date.builder().optional().build()).field("at", Timestamp.builder().optional().build())
        .field("local", Timestamp.SCHEMA)
        .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
        .field("scores", SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.OPTIONAL_FLOAT64_SCHEMA).optional().build())
        .field("inner", SchemaBuilder.struct().field("x", Schema.INT64_SCHEMA).optional().build())
        .build()
    )
    assert row_schema(row) == expected
    # The schema's JSON is Java's asJsonSchema, as our JsonConverter writes it.
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"})
    written = converter.from_connect_data("t", [], schema=SchemaBuilder.array(expected).build())
    assert written == b'{"schema":{"type":"array","items":' + schema_json(expected).encode() + \
        b',"optional":false},"payload":[]}'


@pytest.mark.parametrize(("spark_type", "column", "why"), [
    (T.NullType(), "nothing", "a column that is always null has no type"),
    (T.DayTimeIntervalType(), "waited", "Connect has no interval type"),
    (T.YearMonthIntervalType(), "waited", "Connect has no interval type"),
    (T.CalendarIntervalType(), "waited", "Connect has no interval type"),
    (T.VariantType(), "doc", "a VARIANT value has no fixed schema"),
    (T.ArrayType(T.StructType([T.StructField("gap", T.DayTimeIntervalType())])), "doc.element.gap",
     "Connect has no interval type"),
    (T.MapType(T.StringType(), T.NullType()), "doc.value", "a column that is always null has no type"),
])
def test_types_without_a_connect_equivalent_are_refused_naming_the_column(spark_type: T.DataType, column: str,
                                                                         why: str) -> None:
    top = column.split(".")[0]
    row = T.StructType([T.StructField("id", T.LongType()), T.StructField(top, spark_type)])
    with pytest.raises(DataException) as refused:
        row_schema(row)
    assert str(refused.value).startswith(f"Column {column} has Spark type ")
    assert f"which has no Kafka Connect schema ({why})" in str(refused.value)


def test_a_negative_decimal_scale_is_refused_naming_the_column() -> None:
    # Spark's legacy negative scales (spark.sql.legacy.allowNegativeScaleOfDecimal): 1200 in DECIMAL(5,-2)
    # has the unscaled value 12, which the digits of its text do not give.
    row = T.StructType([T.StructField("id", T.LongType()), T.StructField("hundreds", T.DecimalType(5, -2))])
    with pytest.raises(DataException) as refused:
        row_schema(row)
    assert str(refused.value).startswith("Column hundreds has Spark type decimal(5,-2) with a negative scale")


def test_duplicate_columns_are_refused_naming_the_column() -> None:
    row = T.StructType([T.StructField("id", T.LongType()), T.StructField("id", T.StringType())])
    with pytest.raises(DataException, match=r"^Column id: Cannot create field because of field name duplication id"):
        row_schema(row)


# -- the bytes Spark writes ---------------------------------------------------------------------------

ROWS_SQL = """
SELECT * FROM VALUES
  (1, CAST(-128 AS TINYINT), CAST(12.30 AS DECIMAL(10,2)), DATE'2024-02-29', TIMESTAMP'2024-01-01 00:00:00.123456Z',
   TIMESTAMP_NTZ'2024-01-01 12:00:00.5', CAST(1.0E10 AS FLOAT), 1.0E-5D, X'00FF10', 'é"\\n\\u0001€𝄞',
   array(CAST(-0.05 AS DECIMAL(5,2)), NULL), map(1, DATE'1969-12-31', 2, NULL),
   map('k', CAST(0 AS DECIMAL(38,0))), named_struct('when', TIMESTAMP'1969-12-31 23:59:59.9995Z', 'n', NULL),
   CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0)), CAST(0 AS DECIMAL(10,10))),
  (2, NULL, CAST(-99999999.99 AS DECIMAL(10,2)), DATE'1900-01-01', NULL, NULL, CAST('NaN' AS FLOAT), NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, CAST('-99999999999999999999999999999999999999' AS DECIMAL(38,0)),
   CAST(-0.0000000001 AS DECIMAL(10,10))),
  (3, CAST(127 AS TINYINT), CAST(0.01 AS DECIMAL(10,2)), NULL, TIMESTAMP'1970-01-01 00:00:00Z', NULL, NULL, NULL,
   X'', '', array(), map(), map(), named_struct('when', NULL, 'n', 7),
   CAST('-18446744073709551616' AS DECIMAL(38,0)), CAST(0.5 AS DECIMAL(10,10)))
AS t(id, tiny, price, day, at, local, f, d, raw, text, amounts, days, totals, inner, huge, tiny_dec)
"""


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[1]").appName("schemas").config("spark.ui.enabled", "false")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def _connect_value(schema: Schema, value: Any) -> Any:
    """A collected Spark value as the Connect value of ``schema`` (what a Struct holds)."""
    if value is None:
        return None
    if schema.type is SchemaType.STRUCT:
        struct = Struct(schema)
        for field in schema.fields:
            struct.put(field.name, _connect_value(field.schema, value[field.name]))
        return struct
    if schema.type is SchemaType.ARRAY:
        assert schema.value_schema is not None
        return [_connect_value(schema.value_schema, v) for v in value]
    if schema.type is SchemaType.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        return {_connect_value(schema.key_schema, k): _connect_value(schema.value_schema, v) for k, v in value.items()}
    if schema.name == Decimal.LOGICAL_NAME:
        assert schema.parameters is not None
        return value.quantize(decimal.Decimal(1).scaleb(-int(schema.parameters["scale"])),
                              context=decimal.Context(prec=100))
    if schema.name == Timestamp.LOGICAL_NAME:
        # TIMESTAMP comes back in this process's local time, TIMESTAMP_NTZ as the wall clock (read as UTC).
        return value.astimezone(datetime.UTC) if value.tzinfo is None and schema.parameters is None else value
    return value


@pytest.mark.parametrize("decimal_format", ["BASE64", "NUMERIC"])
def test_rows_are_written_as_our_json_converter_writes_the_struct(spark: Any, decimal_format: str) -> None:
    from pyspark.sql import functions as F

    frame = spark.sql(ROWS_SQL)
    ntz = {"local"}
    schema = row_schema(frame.schema)
    written = frame.select(envelope_json([F.col(c) for c in frame.columns], frame.schema,
                                         decimal_format == "NUMERIC").alias("json"), *frame.columns).collect()
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true", "decimal.format": decimal_format})
    assert len(written) == 3
    for row in written:
        values = row.asDict(recursive=True)
        struct = Struct(schema)
        for field in schema.fields:
            value = values[field.name]
            if field.name in ntz and value is not None:
                value = value.replace(tzinfo=datetime.UTC)
            struct.put(field.name, _connect_value(field.schema, value))
        expected = converter.from_connect_data("t", struct, schema=schema)
        assert expected is not None
        # What the deliverer sends: Spark's text, characters beyond U+FFFF escaped as Jackson writes them.
        assert escape_supplementary(row["json"].encode()) == expected, row["id"]
        # ... and reads back as a Struct of the same schema (times at milliseconds) that writes the same bytes,
        # except a NaN float, written as the string "NaN", which JsonConverter reads as 0.0 (as Java's does).
        read = converter.to_connect_schema_and_value("t", row["json"].encode())
        assert read.schema == schema
        if row["id"] != 2:
            assert converter.from_connect_data("t", read.value, schema=schema) == expected


# -- end to end: a worker's SparkSource task --------------------------------------------------------

JSON = "org.apache.kafka.connect.json.JsonConverter"


def _spark_connector(kafka_bootstrap: str, tmp_path: Path, sql: str) -> tuple[dict[str, str], Path]:
    data = csv_inputs(tmp_path / "in", 1500, 1500)
    topic = create_topic(kafka_bootstrap, f"spark-schemas-{uuid.uuid4().hex[:8]}")
    return {"connector.class": "SparkSource", "tasks.max": "1", "topic": topic, "source.path": str(data),
            "source.format": "csv", "source.options.header": "true", "spark.master": "local[2]",
            "source.schema": "id BIGINT, name STRING, amount DECIMAL(8,1)", "transform.sql": sql,
            "key.columns": "id", "key.converter": JSON, "key.converter.schemas.enable": "true",
            "value.converter": JSON, "value.converter.schemas.enable": "true"}, data


def test_rows_reach_kafka_with_their_schema_exactly_once(workers: WorkerFactory, kafka_bootstrap: str,
                                                         tmp_path: Path) -> None:
    sql = ("SELECT id, concat(name, '😀') AS name, amount, date_add(DATE'2024-01-01', CAST(id % 400 AS INT)) AS day "
           "FROM source")
    config, _ = _spark_connector(kafka_bootstrap, tmp_path, sql)
    client = ConnectClient(workers().start_ready().url)
    client.create_connector("schemas", config)
    wait_files_complete(client, "schemas", 2)

    value_schema = (SchemaBuilder.struct().field("id", Schema.OPTIONAL_INT64_SCHEMA)
                    .field("name", Schema.OPTIONAL_STRING_SCHEMA)
                    .field("amount", Decimal.builder(1).optional().build())
                    .field("day", Date.builder().optional().build()).build())
    key_schema = SchemaBuilder.struct().field("id", Schema.OPTIONAL_INT64_SCHEMA).build()
    keys, values = JsonConverter(), JsonConverter()
    keys.configure({"schemas.enable": "true"}, is_key=True)
    values.configure({"schemas.enable": "true"})
    counts: dict[int, int] = {}
    for key_bytes, value_bytes in read_committed(kafka_bootstrap, config["topic"]):
        key = keys.to_connect_schema_and_value(config["topic"], key_bytes)
        value = values.to_connect_schema_and_value(config["topic"], value_bytes)
        assert key.schema == key_schema and value.schema == value_schema
        assert isinstance(key.value, Struct) and isinstance(value.value, Struct)
        row_id = value.value.get("id")
        assert isinstance(row_id, int) and key.value.get("id") == row_id
        assert value.value.get("name") == f"name-{row_id}😀" and b'\\uD83D\\uDE00",' in (value_bytes or b"")
        assert value.value.get("amount") == decimal.Decimal(f"{row_id % 1000}.5")
        assert value.value.get("day") == datetime.date(2024, 1, 1) + datetime.timedelta(days=row_id % 400)
        counts[row_id] = counts.get(row_id, 0) + 1
    assert counts == dict.fromkeys(range(3000), 1), "every row exactly once"


def test_a_column_with_no_connect_type_fails_the_task_naming_it(workers: WorkerFactory, kafka_bootstrap: str,
                                                                tmp_path: Path) -> None:
    config, _ = _spark_connector(kafka_bootstrap, tmp_path,
                                 "SELECT id, make_dt_interval(0, 0, 0, id) AS waited FROM source")
    client = ConnectClient(workers().start_ready().url)
    client.create_connector("no-type", config)

    def failed() -> dict[str, Any] | None:
        tasks = client.status("no-type")["tasks"]
        return tasks[0] if tasks and tasks[0]["state"] == "FAILED" else None

    task = wait_until(failed, timeout_s=180, interval_s=1.0)
    assert "Column waited has Spark type interval day to second, which has no Kafka Connect schema" in task["trace"]
    assert read_committed(kafka_bootstrap, config["topic"]) == []
