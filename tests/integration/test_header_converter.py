"""Header converters on a real broker: record headers (from the task, one with a FLOAT32 schema the
converters write as a Java Float, and from InsertHeader) land in Kafka as Java's bytes with the
worker's default SimpleHeaderConverter, as JSON with the connector's ``header.converter=JsonConverter``;
a header the converter rejects goes through errors.tolerance; a header.converter that is no header
converter is refused."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from connect_runtime.testing.cluster import ConnectClient, WorkerProcess, end_offsets, plugin_path, wait_until
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

PLUGINS_DIR = Path(__file__).resolve().parent.parent / "plugins"
SOURCE = "header_source.HeaderSourceConnector"
J = "org.apache.kafka.connect."
#: InsertHeader's literal "1.0" is parsed to the integer 1 (Java's Values.parseString).
INSERT = {"transforms": "ins", "transforms.ins.type": J + "transforms.InsertHeader",
          "transforms.ins.header": "lit", "transforms.ins.value.literal": "1.0"}


def _headers(bootstrap: str, topic: str, count: int) -> list[list[tuple[str, bytes | None]]]:
    """The headers of the first ``count`` committed records of ``topic``."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"verify-{uuid.uuid4()}",
                         "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, p, 0) for p in end_offsets(bootstrap, topic)])
    out: list[list[tuple[str, bytes | None]]] = []
    deadline = time.monotonic() + 60
    try:
        while len(out) < count and time.monotonic() < deadline:
            out.extend(m.headers() or [] for m in consumer.consume(100, 0.5) if m.error() is None)
    finally:
        consumer.close()
    return out[:count]


@pytest.mark.connect_worker(extra=plugin_path(PLUGINS_DIR))
def test_headers_are_converted_by_the_header_converter(kafka_bootstrap: str, connect_worker: WorkerProcess) -> None:
    simple_topic = new_topic(kafka_bootstrap, f"hdr-{uuid.uuid4().hex[:8]}")
    json_topic = new_topic(kafka_bootstrap, f"hdr-{uuid.uuid4().hex[:8]}")
    worker = connect_worker
    client = ConnectClient(worker.url)
    try:
        client.create_connector("simple", {"connector.class": SOURCE, "topic": simple_topic, "count": "3", **INSERT})
        client.create_connector("json", {
            "connector.class": SOURCE, "topic": json_topic, "count": "3", **INSERT,
            "header.converter": J + "json.JsonConverter", "header.converter.schemas.enable": "false"})
        for topic in (simple_topic, json_topic):
            wait_until(lambda t=topic: sum(end_offsets(kafka_bootstrap, t).values()) >= 3, 60,  # type: ignore[misc]
                       message=f"records in {topic}")
        # Java's SimpleHeaderConverter (Values.convertToString, UTF-8): bytes as base64, null as null.
        assert _headers(kafka_bootstrap, simple_topic, 3) == [[
            ("text", "h\u00e9llo".encode()), ("int", b"42"), ("float", b"1.5"), ("bool", b"true"),
            ("bytes", b"AP8="), ("map", b'{"a":[1,"x"]}'), ("null", None), ("float32", b"0.33333334"),
            ("lit", b"1")]] * 3
        assert _headers(kafka_bootstrap, json_topic, 3) == [[
            ("text", '"h\u00e9llo"'.encode()), ("int", b"42"), ("float", b"1.5"), ("bool", b"true"),
            ("bytes", b'"AP8="'), ("map", b'{"a":[1,"x"]}'), ("null", None), ("float32", b"0.33333334"),
            ("lit", b"1")]] * 3

        # ByteArrayConverter rejects the str header: skipped under errors.tolerance=all, fatal under none.
        raw = {"connector.class": SOURCE, "count": "3", "header.converter": J + "converters.ByteArrayConverter"}
        tolerant_topic = new_topic(kafka_bootstrap, f"hdr-{uuid.uuid4().hex[:8]}")
        client.create_connector("tolerant", {**raw, "topic": tolerant_topic, "errors.tolerance": "all",
                                             "errors.log.enable": "true"})
        client.create_connector("strict", {**raw, "topic": tolerant_topic})
        failed = wait_until(lambda: next((t for t in client.status("strict").get("tasks", [])
                                          if t["state"] == "FAILED"), None), 60, message="strict task FAILED")
        assert "Tolerance exceeded in error handler" in failed["trace"]
        assert "ByteArrayConverter is not compatible with objects of type <class 'str'>" in failed["trace"]
        wait_until(lambda: worker.log_path.read_text().count(
            "Error encountered in task tolerant-0. Executing stage 'HEADER_CONVERTER' with class "
            "'connect_runtime.converters.bytearray_converter.ByteArrayConverter'") == 3, 60,
            message="the three skipped records logged")
        assert client.status("tolerant")["tasks"][0]["state"] == "RUNNING"
        assert sum(end_offsets(kafka_bootstrap, tolerant_topic).values()) == 0

        bad = {"connector.class": SOURCE, "topic": "t", "name": "bad",
               "header.converter": J + "tools.VerifiableSourceConnector"}
        r = client.request("PUT", f"/connector-plugins/{SOURCE}/config/validate", json=bad)
        assert r.status_code == 200, r.text
        errors = {c["value"]["name"]: c["value"]["errors"] for c in r.json()["configs"] if c["value"]["errors"]}
        assert errors == {"header.converter": [
            f"Class class {J}tools.VerifiableSourceConnector does not implement the HeaderConverter interface"]}
        r = client.request("POST", "/connectors", json={"name": "bad", "config": bad})
        assert r.status_code == 400 and "does not implement the HeaderConverter interface" in r.json()["message"]
        listed = client.request("GET", "/connector-plugins", params={"connectorsOnly": "false"}).json()
        assert {"class": J + "storage.SimpleHeaderConverter", "type": "header_converter"} in [
            {k: p[k] for k in ("class", "type")} for p in listed]
    finally:
        client.close()
        worker.stop()


def test_worker_refuses_a_header_converter_that_is_not_one(
        kafka_bootstrap: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    worker = worker_factory(extra={"header.converter": J + "json.NoSuchConverter"})
    assert worker.wait_exit() == 1
    assert ("connect-distributed: Invalid value org.apache.kafka.connect.json.NoSuchConverter for configuration "
            "header.converter: Class org.apache.kafka.connect.json.NoSuchConverter could not be found.") in \
        worker.log_path.read_text()
