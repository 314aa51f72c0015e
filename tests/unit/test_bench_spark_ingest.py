"""Pure helpers of bench/spark_ingest.py (no broker, no Spark)."""

from __future__ import annotations

import csv
from pathlib import Path
from types import ModuleType

import pytest
from bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench_script("spark_ingest")


def test_write_csv_spreads_every_id_once_over_the_files(bench: ModuleType, tmp_path: Path) -> None:
    info = bench.write_csv(tmp_path / "a", 1003, 4)
    files = sorted((tmp_path / "a").glob("*.csv"))
    assert len(files) == 4 and info["rows"] == 1003
    assert info["bytes"] == sum(f.stat().st_size for f in files)
    ids = []
    for f in files:
        with f.open(newline="") as fh:
            rows = list(csv.reader(fh))
        assert rows[0] == list(bench.COLUMNS)
        assert all(len(r) == len(bench.COLUMNS) for r in rows[1:])
        ids += [int(r[0]) for r in rows[1:]]
    assert ids == list(range(1003))
    bench.write_csv(tmp_path / "b", 1003, 4)
    assert [f.read_bytes() for f in files] == [f.read_bytes() for f in sorted((tmp_path / "b").glob("*.csv"))]


def test_record_id_reads_the_key_shapes_of_both_writers(bench: ModuleType) -> None:
    assert bench._record_id(b"1234", None) == 1234  # Spark's sink: the id column cast to string
    assert bench._record_id(b'"1234"', None) == 1234  # JsonConverter, schemaless string
    assert bench._record_id(b'{"id":"7"}', None) == 7  # a struct key of the key columns
    assert bench._record_id(None, b'{"id":"9","name":"x"}') == 9
    assert bench._record_id(None, b'{"schema":{},"payload":{"id":11}}') == 11
    assert bench._record_id(b"nope", b"[]") is None
    assert bench._record_id(None, None) is None


def test_connector_config_carries_the_run(bench: ModuleType, tmp_path: Path) -> None:
    config = bench.connector_config(tmp_path, "t1", "spark://127.0.0.1:7077", 2)
    assert config["connector.class"] == "SparkSource"
    assert config["source.path"] == str(tmp_path)
    assert (config["topic"], config["spark.master"], config["spark.delivery.slots"]) == (
        "t1", "spark://127.0.0.1:7077", "2")
    assert all(isinstance(v, str) for v in config.values())


def test_only_rejects_unknown_parts(bench: ModuleType) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--only", "a,x"])
