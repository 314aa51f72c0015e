"""Transforms and predicates on a real broker: a chain (InsertField, RegexRouter, Filter on
TopicNameMatches) changes what lands in Kafka exactly as configured; the offsets of filtered records
are not written (docs/architecture.md, "Internal topic records"); the delivered sequences stay
exactly-once; invalid chains are refused with the reference's errors."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

import pytest

from connect_runtime.testing.cluster import (
    ConnectClient,
    ConnectRestError,
    WorkerProcess,
    check_sequences,
    end_offsets,
    read_committed,
    stored_offsets,
    verifiable_key,
    wait_for_records,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = pytest.mark.kafka

J = "org.apache.kafka.connect.transforms."


def _chain() -> dict[str, str]:
    return {
        "transforms": "insert,route,drop",
        "transforms.insert.type": J + "InsertField$Value",
        "transforms.insert.topic.field": "source_topic",
        "transforms.insert.static.field": "via",
        "transforms.insert.static.value": "smt",
        "transforms.route.type": J + "RegexRouter",
        "transforms.route.regex": "(.*)-keep",
        "transforms.route.replacement": "$1-out",
        # Sees the routed name: "-keep" records arrive here as "-out" and pass.
        "transforms.drop.type": J + "Filter",
        "transforms.drop.predicate": "isDrop",
        "predicates": "isDrop",
        "predicates.isDrop.type": J + "predicates.TopicNameMatches",
        "predicates.isDrop.pattern": ".*-(drop|keep)",
    }


def _count(bootstrap: str, topic: str) -> int:
    return sum(end_offsets(bootstrap, topic).values())


def test_chain_with_predicate_shapes_what_lands_in_kafka(
        kafka_bootstrap: str, worker_factory: Callable[..., WorkerProcess]) -> None:
    base = f"tr-{uuid.uuid4().hex[:8]}"
    keep = new_topic(kafka_bootstrap, f"{base}-keep")
    out = new_topic(kafka_bootstrap, f"{base}-out")
    drop = new_topic(kafka_bootstrap, f"{base}-drop")
    worker = worker_factory(eos="enabled")
    worker.wait_ready()
    offsets_topic = worker.props["offset.storage.topic"]
    client = ConnectClient(worker.url)
    try:
        common = {"connector.class": "VerifiableSource", "throughput": "300", "complete.record.data": "true",
                  **_chain()}
        client.create_connector("kept", {**common, "topic": keep, "tasks.max": "2"})
        client.create_connector("dropped", {**common, "topic": drop, "tasks.max": "1"})
        client.wait_running("kept", 2)
        client.wait_running("dropped", 1)
        wait_for_records(kafka_bootstrap, out, 400)
        assert client.status("dropped")["tasks"][0]["state"] == "RUNNING"
        assert worker.stop() == 0  # clean stop: each task's final commit
    finally:
        client.close()

    records = read_committed(kafka_bootstrap, out)
    values = [json.loads(v) for _, v in records if v is not None]
    assert values and all(v["source_topic"] == keep and v["via"] == "smt" and v["topic"] == keep for v in values)
    report = check_sequences(records, key=verifiable_key)
    assert report.exactly_once, report.summary()
    assert set(report.counts) == {0, 1}
    # Nothing under the original name (routed) or the filtered connector's topic (dropped).
    assert _count(kafka_bootstrap, keep) == 0
    assert _count(kafka_bootstrap, drop) == 0
    # Delivered records' offsets are committed with them; filtered records' offsets never are.
    assert stored_offsets(kafka_bootstrap, offsets_topic, "kept") == report.max_seqno
    assert stored_offsets(kafka_bootstrap, offsets_topic, "dropped") == {}


def test_invalid_chains_are_refused(connect_client: ConnectClient) -> None:
    client = connect_client
    config = {"connector.class": "VerifiableSource", "topic": "t", "name": "bad",
              "transforms": "a,b", "transforms.a.type": "NoSuchTransform",
              "transforms.b.type": "Filter", "transforms.b.predicate": "nowhere"}
    body = client.validate(config)
    assert client.validation_errors(config) == {
        "transforms.a.type": ["Invalid value NoSuchTransform for configuration transforms.a.type: Class "
                              "NoSuchTransform could not be found."],
        "transforms.b.predicate": ["Invalid value nowhere for configuration transforms.b.predicate: Predicate "
                                   "'nowhere' is not defined: list it in 'predicates' and set "
                                   "'predicates.nowhere.type'"],
    }
    assert body["error_count"] == 2 and "Transforms: b" in body["groups"]
    with pytest.raises(ConnectRestError) as refused:
        client.create_connector("bad", config)
    assert refused.value.status_code == 400
    assert "Class NoSuchTransform could not be found." in refused.value.message
    kinds = {p["class"]: p["type"] for p in client.connector_plugins(connectors_only=False)}
    assert kinds["org.apache.kafka.connect.transforms.RegexRouter"] == "transformation"
    assert kinds["org.apache.kafka.connect.transforms.predicates.HasHeaderKey"] == "predicate"
    assert [k["name"] for k in client.plugin_config(f"{J}RegexRouter")] == ["regex", "replacement"]
