"""SparkSource on local[*]: files to a topic, every row exactly once, offsets per file."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from conftest import WorkerFactory
from spark_helpers import create_topic, csv_inputs, rows_by_id, wait_files_complete, write_csv

from connect_runtime.testing.cluster import ConnectClient, end_offsets, read_committed


def _expected_total(bootstrap: str, topic: str, total: int) -> None:
    ends = end_offsets(bootstrap, topic)
    # Data records plus one commit marker per transaction and partition: at least the rows.
    assert sum(ends.values()) >= total, f"{sum(ends.values())} < {total} records in {topic}"


def test_three_csv_files_land_exactly_once_with_keys_and_per_file_offsets(
        workers: WorkerFactory, kafka_bootstrap: str, tmp_path: Path) -> None:
    data = tmp_path / "in"
    data.mkdir()
    for f in range(3):
        write_csv(data / f"part-{f}.csv", f * 100_000, 100_000)
    worker = workers().start_ready()
    client = ConnectClient(worker.url)
    topic = create_topic(kafka_bootstrap, f"spark-local-{uuid.uuid4().hex[:8]}")
    client.create_connector("spark-local", {
        "connector.class": "SparkSource", "tasks.max": "1", "topic": topic,
        "source.path": str(data), "source.format": "csv", "source.options.header": "true",
        "source.schema": "id BIGINT, name STRING, amount DOUBLE", "key.columns": "id",
        "spark.master": "local[2]", "spark.delivery.transaction.rows": "40000",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
    })

    offsets = wait_files_complete(client, "spark-local", 3)
    assert sorted(offsets) == sorted((data / f"part-{f}.csv").as_uri() for f in range(3))
    assert all(o["rows"] == 100_000 and o["slots"] == 8 for o in offsets.values()), offsets
    _expected_total(kafka_bootstrap, topic, 300_000)
    counts, records = rows_by_id(kafka_bootstrap, topic)
    assert len(counts) == 300_000 and set(counts.values()) == {1}, "every id exactly once"
    assert min(counts) == 0 and max(counts) == 299_999
    key, value = records[0]
    row = json.loads(value or b"")
    assert json.loads(key or b"") == {"id": row["id"]}
    assert row == {"id": row["id"], "name": f"name-{row['id']}", "amount": row["id"] % 1000 + 0.5}
    status = client.status("spark-local")
    assert status["tasks"][0]["state"] == "RUNNING", status


def test_a_connector_offsets_topic_holds_the_positions(workers: WorkerFactory, kafka_bootstrap: str,
                                                      tmp_path: Path) -> None:
    data = csv_inputs(tmp_path / "in", 2000, 2000)
    client = ConnectClient(workers().start_ready().url)
    topic = create_topic(kafka_bootstrap, f"spark-own-{uuid.uuid4().hex[:8]}")
    own = f"spark-own-offsets-{uuid.uuid4().hex[:8]}"
    client.create_connector("own", {
        "connector.class": "SparkSource", "tasks.max": "2", "topic": topic, "offsets.storage.topic": own,
        "source.path": str(data), "source.options.header": "true", "spark.master": "local[2]",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
    })
    offsets = wait_files_complete(client, "own", 2)
    assert {o["rows"] for o in offsets.values()} == {2000}
    counts, _ = rows_by_id(kafka_bootstrap, topic)
    assert sorted(counts) == list(range(4000)) and set(counts.values()) == {1}
    # The positions are in the connector's own offsets topic, in Kafka Connect's format.
    keys = {json.loads(k or b"")[1]["file"] for k, _ in read_committed(kafka_bootstrap, own)
            if json.loads(k or b"")[0] == "own"}
    assert keys == set(offsets)
