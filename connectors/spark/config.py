"""The Spark source connector's settings: keys, defaults, documentation and the checks that need no
JVM (a worker never starts one; the Spark application checks the rest when it starts)."""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ConfigValue,
    Importance,
    Range,
    ValidString,
    non_empty_string,
)
from connectors.spark.schemas import ddl_refusals
from connectors.spark.sql_check import check_transform_sql

SPARK_MASTER = "spark.master"
SPARK_CONF_PREFIX = "spark.conf."
SPARK_SUBMIT_TIMEOUT_MS = "spark.submit.timeout.ms"
DELIVERY_SLOTS = "spark.delivery.slots"
TRANSACTION_ROWS = "spark.delivery.transaction.rows"
TRANSACTION_BYTES = "spark.delivery.transaction.bytes"
SOURCE_FORMAT = "source.format"
SOURCE_PATH = "source.path"
SOURCE_OPTIONS_PREFIX = "source.options."
SOURCE_SCHEMA = "source.schema"
TRANSFORM_SQL = "transform.sql"
TOPIC = "topic"
KEY_COLUMNS = "key.columns"
MODE = "mode"
POLL_INTERVAL_MS = "poll.interval.ms"
#: Set by the connector in each task's config: the delivery slots the task owns.
TASK_SLOTS = "task.slots"
TASK_ID = "task.id"

BATCH = "batch"
CONTINUOUS = "continuous"
JSON_CONVERTERS = frozenset({"org.apache.kafka.connect.json.JsonConverter", "JsonConverter"})

_SPARK = "Spark"
_SOURCE = "Source"
_OUTPUT = "Output"

CONFIG_DEF = (
    ConfigDef()
    .define(SPARK_MASTER, ConfigType.STRING, "local[*]", non_empty_string, Importance.HIGH,
            "The Spark master the task's application runs on: local[*] (the default) runs Spark inside the "
            "task's child process, spark://host:port a standalone cluster; any other master (yarn, k8s://...) "
            "is passed to spark-submit as is. Settings for the application go in spark.conf.<key> "
            "(e.g. spark.conf.spark.executor.memory=2g).", _SPARK, 1)
    .define(SPARK_SUBMIT_TIMEOUT_MS, ConfigType.LONG, 120000, Range.at_least(1000), Importance.LOW,
            "How long a task waits for its Spark application to start (spark-submit until the Spark "
            "context is up) before the task fails.", _SPARK, 2)
    .define(DELIVERY_SLOTS, ConfigType.INT, 8, Range.between(1, 1024), Importance.MEDIUM,
            "How many transactional producers may deliver at once: each file belongs to one slot "
            "(murmur2 of its path modulo this number) and slots are spread over the tasks. Fixed when the "
            "connector is created: the slot of a file names the transactional id that fences older "
            "deliverers of it, so a task refuses to run with a different value than the one its offsets "
            "were written with.", _SPARK, 3)
    .define(TRANSACTION_ROWS, ConfigType.LONG, 100000, Range.at_least(1), Importance.LOW,
            "At most this many rows per Kafka transaction (a slot commits rows and its files' offsets, then "
            "starts the next transaction), so large files never reach transaction.timeout.ms.", _SPARK, 4)
    .define(TRANSACTION_BYTES, ConfigType.LONG, 64 * 1024 * 1024, Range.at_least(1024), Importance.LOW,
            "At most about this many key and value bytes per Kafka transaction.", _SPARK, 5)
    .define(SOURCE_FORMAT, ConfigType.STRING, "csv", non_empty_string, Importance.HIGH,
            "The Spark data source format of the input: csv, json (JSON lines), parquet, orc, text, or any "
            "other format name Spark knows. Reader options go in source.options.<key> "
            "(e.g. source.options.header=true).", _SOURCE, 1)
    .define(SOURCE_PATH, ConfigType.STRING, NO_DEFAULT, non_empty_string, Importance.HIGH,
            "The input: a file, a directory (read recursively) or a glob, as a local path or any Hadoop URI "
            "(hdfs://, s3a://, ...). Comma-separated for several.", _SOURCE, 2)
    .define(SOURCE_SCHEMA, ConfigType.STRING, None, None, Importance.MEDIUM,
            "The input's schema as a Spark DDL string (id BIGINT, name STRING, ...). Without it csv columns "
            "are strings and other formats use the schema Spark infers. With it, rows that do not parse "
            "(csv, json) are malformed: errors.tolerance decides what happens to them.", _SOURCE, 3)
    .define(TRANSFORM_SQL, ConfigType.STRING, None, None, Importance.MEDIUM,
            "A Spark SQL query over the view `source` applied to every row before delivery, e.g. "
            "SELECT id, upper(name) AS name FROM source WHERE amount > 0. It must work row by row "
            "(projections and filters; no aggregation, join, sort, limit or window), so that each output "
            "row keeps its place in its file.", _SOURCE, 4)
    .define(MODE, ConfigType.STRING, BATCH, ValidString.one_of(BATCH, CONTINUOUS), Importance.HIGH,
            "batch: deliver what source.path matches when the task starts, then stay RUNNING and idle. "
            "continuous: every poll.interval.ms also pick up new files and rows appended to known files.",
            _SOURCE, 5)
    .define(POLL_INTERVAL_MS, ConfigType.LONG, 10000, Range.at_least(100), Importance.MEDIUM,
            "continuous mode: how often the input is listed again. A new or grown file is delivered once its "
            "size has not changed for one interval, so that half-written rows are never read.", _SOURCE, 6)
    .define(TOPIC, ConfigType.STRING, NO_DEFAULT, non_empty_string, Importance.HIGH,
            "The topic every row is written to. The value is the row as a JSON object, as JsonConverter "
            "writes it; with value.converter.schemas.enable=true (JsonConverter's default) a Struct with the "
            "Connect schema mapped from the row's Spark schema (docs/spark.md).", _OUTPUT, 1)
    .define(KEY_COLUMNS, ConfigType.LIST, "", None, Importance.MEDIUM,
            "Columns (after transform.sql) whose values form the record key, a JSON object of those columns; "
            "empty: records have no key.", _OUTPUT, 2)
)


@dataclass(frozen=True)
class SparkSourceSettings:
    """The parsed connector configuration, as the task and the Spark application use it."""

    master: str
    spark_conf: dict[str, str]
    submit_timeout_ms: int
    slots: int
    transaction_rows: int
    transaction_bytes: int
    source_format: str
    source_paths: list[str]
    source_options: dict[str, str]
    source_schema: str | None
    transform_sql: str | None
    topic: str
    key_columns: list[str]
    mode: str
    poll_interval_ms: int
    tolerate_errors: bool
    #: ``errors.log.enable``: each skipped malformed row (file and line) goes to the log, not just their count.
    log_errors: bool = False
    #: ``errors.log.include.messages``: those log lines carry the row's text too.
    log_record_content: bool = False

    @classmethod
    def parse(cls, props: Mapping[str, str]) -> SparkSourceSettings:
        values = CONFIG_DEF.parse(props)
        return cls(
            master=values[SPARK_MASTER],
            spark_conf=_prefixed(props, SPARK_CONF_PREFIX),
            submit_timeout_ms=values[SPARK_SUBMIT_TIMEOUT_MS],
            slots=values[DELIVERY_SLOTS],
            transaction_rows=values[TRANSACTION_ROWS],
            transaction_bytes=values[TRANSACTION_BYTES],
            source_format=values[SOURCE_FORMAT].lower(),
            source_paths=split_paths(values[SOURCE_PATH]),
            source_options=_prefixed(props, SOURCE_OPTIONS_PREFIX),
            source_schema=values[SOURCE_SCHEMA] or None,
            transform_sql=values[TRANSFORM_SQL] or None,
            topic=values[TOPIC],
            key_columns=[c for c in values[KEY_COLUMNS] if c],
            mode=values[MODE],
            poll_interval_ms=values[POLL_INTERVAL_MS],
            tolerate_errors=str(props.get("errors.tolerance", "none")).strip().lower() == "all",
            log_errors=_flag(props, "errors.log.enable"),
            log_record_content=_flag(props, "errors.log.include.messages"),
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _flag(props: Mapping[str, str], key: str) -> bool:
    return str(props.get(key, "false")).strip().lower() == "true"


def _prefixed(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {k[len(prefix):]: str(v) for k, v in props.items() if k.startswith(prefix) and len(k) > len(prefix)}


def split_paths(value: str) -> list[str]:
    return [p.strip() for p in value.split(",") if p.strip()]


# -- checks beyond the ConfigDef ----------------------------------------------------------------
SPARK_EXTRA_MISSING = (
    "PySpark is not installed in this worker's Python environment; install the connector's extra on "
    "every worker: pip install 'connect-runtime[spark]'")
JAVA_MISSING = ("No Java runtime found (java on PATH or JAVA_HOME): Spark needs Java 17 or newer on "
                "every worker")


def environment_errors() -> list[str]:
    """What this worker lacks to launch Spark applications."""
    errors = []
    if not _installed("pyspark"):
        errors.append(SPARK_EXTRA_MISSING)
    elif not _installed("pyarrow"):
        errors.append("pyarrow is not installed in this worker's Python environment; install the connector's "
                      "extra on every worker: pip install 'connect-runtime[spark]'")
    java_home = os.environ.get("JAVA_HOME")
    if not (shutil.which("java") or (java_home and os.path.exists(os.path.join(java_home, "bin", "java")))):
        errors.append(JAVA_MISSING)
    return errors


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def local_path(path: str) -> str | None:
    """The local file-system path of ``path`` (no scheme or ``file:``); None for other Hadoop URIs."""
    parsed = urlparse(path)
    if parsed.scheme in ("", "file"):
        return parsed.path if parsed.scheme else path
    if len(parsed.scheme) == 1:  # a Windows drive letter, not a scheme
        return path
    return None


def missing_paths(paths: list[str]) -> list[str]:
    """The local paths and globs that match nothing (other URIs are checked by the application)."""
    missing = []
    for path in paths:
        local = local_path(path)
        if local is not None and not glob.glob(local):
            missing.append(path)
    return missing


def validate_extra(props: Mapping[str, str], values: dict[str, ConfigValue]) -> None:
    """Add the checks a ConfigDef cannot express to ``values``."""
    def error(name: str, message: str) -> None:
        cv = values.setdefault(name, ConfigValue(name, props.get(name)))
        if message not in cv.errors:
            cv.errors.append(message)

    for message in environment_errors():
        error(SPARK_MASTER, message)
    path = values.get(SOURCE_PATH)
    mode = values.get(MODE)
    if path is not None and not path.errors and isinstance(path.value, str) and \
            (mode is None or mode.value == BATCH):
        missing = missing_paths(split_paths(path.value))
        if missing:
            error(SOURCE_PATH, f"Path does not exist or matches no file: {', '.join(missing)}")
    sql = values.get(TRANSFORM_SQL)
    if sql is not None and sql.value:
        problem = check_transform_sql(str(sql.value))
        if problem:
            error(TRANSFORM_SQL, problem)
    for kind in ("key", "value"):
        name = f"{kind}.converter"
        converter = props.get(name)
        if converter and converter.strip() not in JSON_CONVERTERS:
            error(name, f"SparkSource writes rows as JSON: {name} must be "
                        "org.apache.kafka.connect.json.JsonConverter")
    _check_schema_types(props, error)
    boundary = props.get("transaction.boundary")
    if boundary and boundary.strip().lower() != "poll":
        error("transaction.boundary", "SparkSource delivers from Spark executors, in transactions bounded by "
                                      f"{TRANSACTION_ROWS} and {TRANSACTION_BYTES}; leave transaction.boundary "
                                      "at its default")
    # The runtime's retry and error-handling machinery never sees these rows: Spark delivers them.
    for name, default, why in (
            ("errors.retry.timeout", "0", "Spark retries a failed task itself (spark.task.maxFailures)"),
            ("errors.retry.delay.max.ms", "60000", "Spark retries a failed task itself (spark.task.maxFailures)"),
            ("header.converter", None, "its records carry no headers")):
        given = props.get(name)
        if given is not None and given.strip() and (default is None or given.strip() != default):
            error(name, f"SparkSource cannot honour {name}: {why}; remove it")
    if props.get("transforms", "").strip():
        error("transforms", "Kafka Connect transformations do not apply to the rows Spark delivers; "
                            "use transform.sql")
    if any(k.startswith("topic.creation.") for k in props):
        error("topic.creation.groups", "SparkSource does not create topics: create the topic before the "
                                       "connector")


def _schemas_enabled(props: Mapping[str, str], kind: str) -> bool:
    """Whether the connector's own ``<kind>.converter`` asks for schemas (unknown, so False, when the
    connector leaves the converter to the worker)."""
    return bool(props.get(f"{kind}.converter", "").strip()) and \
        str(props.get(f"{kind}.converter.schemas.enable", "true")).strip().lower() == "true"


def _check_schema_types(props: Mapping[str, str], error: Callable[[str, str], None]) -> None:
    """Columns of ``source.schema`` that cannot get a Connect schema, when a converter asks for schemas
    and no ``transform.sql`` may cast them (the application checks every case again)."""
    ddl = props.get(SOURCE_SCHEMA, "")
    if not ddl or not ddl.strip() or props.get(TRANSFORM_SQL, "").strip():
        return
    keys = {c.strip() for c in props.get(KEY_COLUMNS, "").split(",") if c.strip()}
    if _schemas_enabled(props, "value"):
        problems = ddl_refusals(ddl)
    elif _schemas_enabled(props, "key") and keys:
        problems = ddl_refusals(ddl, keys)
    else:
        return
    for problem in problems:
        error(SOURCE_SCHEMA, problem)
