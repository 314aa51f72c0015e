"""Pure logic of the Spark connector: slots, positions, task configs, config checks, transform.sql."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from connect_runtime.api import ConfigValue, ConnectException, DelegatedDelivery
from connectors.spark import SparkSourceConnector
from connectors.spark.config import SPARK_EXTRA_MISSING, SparkSourceSettings, validate_extra
from connectors.spark.connector import malformed_samples
from connectors.spark.positions import FilePosition, canonical_uri, slot_of, transactional_id
from connectors.spark.sql_check import check_transform_sql

BASE = {"topic": "t", "source.path": "/data/in", "spark.delivery.slots": "8"}


def _delivery() -> DelegatedDelivery:
    return DelegatedDelivery(connector="files", transactional_id_prefix="grp-files",
                             producer_config={"bootstrap.servers": "b:9092"}, offsets_topic="offsets",
                             offsets_consumer_config={"bootstrap.servers": "b:9092"})


def test_one_spelling_per_file_whoever_lists_it() -> None:
    uri = "file:///tmp/a%20b.csv"
    assert canonical_uri("/tmp/a b.csv") == uri
    assert canonical_uri("file:/tmp/a%20b.csv") == uri  # Hadoop's Path.toUri()
    assert canonical_uri(uri) == uri  # Spark's input_file_name()
    assert canonical_uri("hdfs://nn:8020/x/y z") == "hdfs://nn:8020/x/y%20z"


def test_slots_spread_files_and_name_their_deliverers() -> None:
    counts = Counter(slot_of(f"file:///data/part-{i:05d}.csv", 8) for i in range(800))
    assert set(counts) == set(range(8)) and min(counts.values()) > 60
    assert slot_of("file:///x.csv", 8) == slot_of("file:///x.csv", 8)
    assert transactional_id(_delivery(), 3) == "grp-files-spark-3"


def test_task_configs_give_every_slot_to_exactly_one_task() -> None:
    connector = SparkSourceConnector()
    connector.start({**BASE, "tasks.max": "3"})
    configs = connector.task_configs(3)
    slots = [int(s) for c in configs for s in c["task.slots"].split(",")]
    assert sorted(slots) == list(range(8))
    assert [c["task.slots"] for c in configs] == ["0,3,6", "1,4,7", "2,5"]
    assert len(connector.task_configs(20)) == 8  # never more tasks than slots


def test_offsets_round_trip_in_kafka_connect_format() -> None:
    delivery = _delivery()
    position = FilePosition(rows=1200, eof=True, size=48211, modified=1763900000000, slots=8)
    key, value = delivery.offset_record({"file": "file:///in/a.csv"}, position.as_offset())
    assert key == b'["files",{"file":"file:///in/a.csv"}]'
    assert value == b'{"rows":1200,"eof":true,"size":48211,"modified":1763900000000,"slots":8}'
    parsed = delivery.parse_offset_record(key, value)
    assert parsed is not None and FilePosition.from_offset(parsed[1] or {}) == position
    assert delivery.parse_offset_record(b'["other",{"file":"x"}]', value) is None
    assert DelegatedDelivery.from_json(delivery.to_json()) == delivery


@pytest.mark.parametrize(("sql", "problem"), [
    ("SELECT id, upper(name) AS name FROM source WHERE amount > 0", None),
    ("SELECT explode(split(name, '-')) AS part FROM source", None),
    ("SELECT name, count(*) FROM source GROUP BY name", "GROUP BY"),
    ("SELECT * FROM source ORDER BY id", "ORDER BY"),
    ("SELECT * FROM source LIMIT 5", "LIMIT"),
    ("SELECT a.id FROM source a JOIN source b ON a.id = b.id", "a join"),
    ("SELECT DISTINCT name FROM source", "DISTINCT"),
    ("SELECT id, row_number() OVER (PARTITION BY name) FROM source", "window"),
    ("SELECT * FROM other", "must read the view `source` only"),
    ("SELECT FROM WHERE", "does not parse"),
])
def test_transform_sql_must_parse_and_work_row_by_row(sql: str, problem: str | None) -> None:
    found = check_transform_sql(sql)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found, found


def test_validation_refuses_settings_it_cannot_honour(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("id\n1\n")
    props = {**BASE, "source.path": str(tmp_path / "*.csv"), "transforms": "x", "transaction.boundary": "interval",
             "value.converter": "org.apache.kafka.connect.storage.StringConverter",
             "topic.creation.default.partitions": "3"}
    values = {cv.name: cv for cv in SparkSourceConnector().validate(props)}
    assert not values["source.path"].errors
    assert "use transform.sql" in values["transforms"].errors[0]
    assert "leave transaction.boundary" in values["transaction.boundary"].errors[0]
    assert "must be org.apache.kafka.connect.json.JsonConverter" in values["value.converter"].errors[0]
    assert "does not create topics" in values["topic.creation.groups"].errors[0]
    missing = {cv.name: cv for cv in SparkSourceConnector().validate({**BASE, "source.path": str(tmp_path / "no")})}
    assert missing["source.path"].errors == [f"Path does not exist or matches no file: {tmp_path / 'no'}"]
    continuous = {**BASE, "source.path": str(tmp_path / "later"), "mode": "continuous"}
    assert not {cv.name: cv for cv in SparkSourceConnector().validate(continuous)}["source.path"].errors


@pytest.mark.parametrize(("key", "value"), [
    ("errors.retry.timeout", "30000"), ("errors.retry.timeout", "-1"), ("errors.retry.delay.max.ms", "1000"),
    ("header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter")])
def test_validation_refuses_error_handling_spark_does_itself(tmp_path: Path, key: str, value: str) -> None:
    (tmp_path / "a.csv").write_text("id\n1\n")
    props = {**BASE, "source.path": str(tmp_path / "*.csv"), key: value}
    values = {cv.name: cv for cv in SparkSourceConnector().validate(props)}
    assert values[key].errors and f"SparkSource cannot honour {key}" in values[key].errors[0], values[key].errors


def test_validation_accepts_error_handling_at_its_defaults(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("id\n1\n")
    props = {**BASE, "source.path": str(tmp_path / "*.csv"), "errors.retry.timeout": "0",
             "errors.retry.delay.max.ms": "60000", "errors.log.enable": "true",
             "errors.log.include.messages": "true"}
    assert not [cv for cv in SparkSourceConnector().validate(props) if cv.errors]
    settings = SparkSourceSettings.parse(props)
    assert settings.log_errors and settings.log_record_content
    assert not SparkSourceSettings.parse(BASE).log_errors and not SparkSourceSettings.parse(BASE).log_record_content


def test_skipped_rows_are_logged_with_their_text_only_when_asked() -> None:
    where = [{"file": "file:/in/a.csv", "row": 10, "line": 12}]
    assert malformed_samples([]) == ""
    assert malformed_samples(where) == ": file:/in/a.csv line 12"
    assert malformed_samples([{**where[0], "record": "10,name-10,oops"}]) == \
        ": file:/in/a.csv line 12: '10,name-10,oops'"


def test_missing_pyspark_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspark" else real(name, *a))
    values: dict[str, ConfigValue] = {}
    validate_extra(BASE, values)
    assert values["spark.master"].errors == [SPARK_EXTRA_MISSING]
    assert "pip install 'connect-runtime[spark]'" in SPARK_EXTRA_MISSING


def test_settings_collect_prefixed_keys() -> None:
    settings = SparkSourceSettings.parse({**BASE, "spark.conf.spark.executor.memory": "2g",
                                          "source.options.header": "true", "key.columns": "id, region",
                                          "errors.tolerance": "all", "source.path": "/a, /b"})
    assert settings.spark_conf == {"spark.executor.memory": "2g"}
    assert settings.source_options == {"header": "true"}
    assert settings.key_columns == ["id", "region"] and settings.tolerate_errors
    assert settings.source_paths == ["/a", "/b"] and settings.master == "local[*]" and settings.slots == 8


def test_alter_offsets_accepts_rows_and_resets_only() -> None:
    connector = SparkSourceConnector()
    assert connector.alter_offsets(BASE, {(("file", "file:///a"),): {"rows": 10}, (("file", "file:///b"),): None})
    with pytest.raises(ConnectException, match="partitions are"):
        connector.alter_offsets(BASE, {(("path", "x"),): {"rows": 1}})
    with pytest.raises(ConnectException, match="offsets are"):
        connector.alter_offsets(BASE, {(("file", "file:///a"),): {"rows": -1}})


def test_applications_that_lost_kafka_are_restarted_not_failed_for_good() -> None:
    from connect_runtime.clients import is_transient
    from connectors.spark.application import SparkApplication
    from connectors.spark.connector import SparkSourceTask
    from connectors.spark.job import _transient

    outage = 'cimpl.KafkaException: KafkaError{code=_TRANSPORT,val=-195,str="Broker: transport failure"}'
    assert _transient(RuntimeError("job aborted"), outage)
    assert _transient(TimeoutError("Reading offsets topic took over 60 s"), "")
    assert not _transient(RuntimeError("x"), 'KafkaError{code=_FENCED,val=-144,str="fenced"}')
    assert not _transient(RuntimeError("Malformed row 3 (line 5)"), "")
    app = SparkApplication("c-task-0", "local[1]", {}, {})
    task = SparkSourceTask()
    assert is_transient(task._failure(app, {"event": "error", "message": "lost Kafka", "transient": True}))
    assert not is_transient(task._failure(app, {"event": "error", "message": "Malformed row", "transient": False}))


def test_the_example_in_docs_spark_md_validates(tmp_path: Path) -> None:
    import json
    import re

    docs = (Path(__file__).parents[2] / "docs" / "spark.md").read_text()
    body = json.loads(re.search(r"-d '(\{.*?\})'", docs, re.S).group(1))  # type: ignore[union-attr]
    config = body["config"]
    (tmp_path / "day-1.csv").write_text("id,region,amount\n1,eu,9.5\n")
    config["source.path"] = str(tmp_path)
    values = SparkSourceConnector().validate(config)
    assert [(cv.name, cv.errors) for cv in values if cv.errors] == []
    own = {k for k in config if not k.startswith(("source.options.", "spark.conf."))}
    assert own - {"connector.class", "tasks.max", "value.converter", "value.converter.schemas.enable"} <= {
        cv.name for cv in values}


def test_validation_refuses_source_schema_columns_with_no_connect_type(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("id\n1\n")
    ddl = ("id BIGINT, `took` INTERVAL DAY TO SECOND COMMENT 'a TIME', doc VARIANT, at TIME(6), "
           "ok STRUCT<time: TIMESTAMP, gap: INTERVAL YEAR>, stamp TIMESTAMP_NTZ, wall TIMESTAMP WITHOUT TIME ZONE, "
           "here TIMESTAMP WITH LOCAL TIME ZONE")
    props = {**BASE, "source.path": str(tmp_path / "*.csv"), "source.schema": ddl,
             "value.converter": "org.apache.kafka.connect.json.JsonConverter"}

    def errors(changes: dict[str, str]) -> list[str]:
        values = {cv.name: cv for cv in SparkSourceConnector().validate({**props, **changes})}
        return values["source.schema"].errors

    assert errors({}) == [
        f"Column {name} has Spark type {kind}, which has no Kafka Connect schema: cast it in transform.sql, or set "
        "the converter's schemas.enable=false" for name, kind in (("took", "INTERVAL"), ("doc", "VARIANT"),
                                                                  ("at", "TIME"))]
    # Schemaless rows take any type; transform.sql may cast; the worker's own converter is not known here.
    assert errors({"value.converter.schemas.enable": "false"}) == []
    assert errors({"transform.sql": "SELECT id FROM source"}) == []
    assert errors({"value.converter": ""}) == []
    key_only = {"value.converter.schemas.enable": "false", "key.converter": "JsonConverter", "key.columns": "id,doc"}
    assert [e.split(" has ")[0] for e in errors(key_only)] == ["Column doc"]
