"""One VerifiableSource config, run on our worker and on Java's (the ``java_connect`` fixture), with
``JsonConverter`` and ``schemas.enable=true`` for keys and values, writes the same record bytes (time_ms
aside), in simple and ``complete.record.data=true`` modes; the connector's offsets and config records
stay schemaless JSON (docs/architecture.md, "Internal topic records").

Both connectors write to the same topic, one after the other (each stopped before the next starts), so
even the ``topic`` field inside a complete value is the same."""

from __future__ import annotations

import re

import pytest

from connect_runtime.testing import ConnectClient, WorkerProcess
from connect_runtime.testing.cluster import config_records, read_committed, wait_until
from connect_runtime.testing.java_connect import JavaConnectWorker
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.testing.topics import Record, read_records, wait_for_records

pytestmark = pytest.mark.kafka

JAVA_VERIFIABLE_SOURCE = "org.apache.kafka.connect.tools.VerifiableSourceConnector"
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
RECORDS = 20
# The digits of time_ms in a complete value's payload; nothing else in a record matches.
TIME_MS = re.compile(rb'"time_ms":(\d+)')


def _config(topic: str, complete: bool) -> dict[str, str]:
    return {"connector.class": JAVA_VERIFIABLE_SOURCE, "topic": topic, "tasks.max": "1", "throughput": "100",
            "complete.record.data": str(complete).lower(),
            "key.converter": JSON_CONVERTER, "key.converter.schemas.enable": "true",
            "value.converter": JSON_CONVERTER, "value.converter.schemas.enable": "true"}


def _run(url: str, bootstrap: str, topic: str, name: str, config: dict[str, str], already: int) -> list[Record]:
    """Run the connector until ``RECORDS`` more records are committed, stop it, and return them all."""
    with ConnectClient(url) as client:
        client.create_connector(name, config)
        wait_for_records(bootstrap, topic, already + RECORDS, timeout_s=90)
        client.stop_connector(name)
        wait_until(lambda: client.status(name)["connector"]["state"] == "STOPPED"
                   and not client.status(name)["tasks"], 60, message=f"{name} stopped on {url}")
    return read_committed(bootstrap, topic)[already:]


def _masked(value: bytes | None, complete: bool) -> bytes:
    assert value is not None
    masked, replaced = TIME_MS.subn(b'"time_ms":0', value)
    assert replaced == (1 if complete else 0), value
    return masked


@pytest.mark.parametrize("complete", [False, True], ids=["simple", "complete"])
def test_same_record_bytes_as_javas_verifiable_source(kafka_bootstrap: str, worker: WorkerProcess,
                                                      java_connect: JavaConnectWorker, complete: bool) -> None:
    topic = new_topic(kafka_bootstrap)
    name = f"verifiable-{'complete' if complete else 'simple'}"
    config = _config(topic, complete)
    ours = _run(worker.url, kafka_bootstrap, topic, name, config, 0)
    javas = _run(java_connect.url, kafka_bootstrap, topic, name, config, len(ours))

    assert len(ours) >= RECORDS and len(javas) >= RECORDS
    for seqno, (mine, theirs) in enumerate(zip(ours[:RECORDS], javas[:RECORDS], strict=True)):
        assert mine[0] == theirs[0] == b'{"schema":{"type":"int32","optional":false},"payload":0}'
        assert _masked(mine[1], complete) == _masked(theirs[1], complete), seqno
    if complete:
        first = _masked(ours[0][1], complete)
        assert first.startswith(b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,'
                                b'"field":"name"},')
        assert first.endswith(b',"payload":{"name":"%s","task":0,"topic":"%s","time_ms":0,"seqno":0}}'
                              % (name.encode(), topic.encode()))
    else:
        assert ours[3][1] == b'{"schema":{"type":"int64","optional":false},"payload":3}'

    # The connector's own records carry schemas; what the runtime keeps about it stays schemaless JSON,
    # byte for byte what Java's worker keeps.
    offsets = {r.key: r.value for r in read_records(kafka_bootstrap, worker.props["offset.storage.topic"])
               if r.key is not None and r.key.startswith(b'["%s"' % name.encode())}
    java_offsets = {r.key: r.value for r in read_records(kafka_bootstrap, java_connect.props["offset.storage.topic"])
                    if r.key is not None and r.key.startswith(b'["%s"' % name.encode())}
    assert list(offsets) == list(java_offsets) == [b'["%s",{"id":0}]' % name.encode()]
    for value in (*offsets.values(), *java_offsets.values()):
        assert value is not None and re.fullmatch(rb'\{"seqno":\d+\}', value), value
    written = dict(config_records(kafka_bootstrap, worker.props["config.storage.topic"]))
    properties = ",".join(f'"{k}":"{v}"' for k, v in {**config, "name": name}.items())
    assert written[f"connector-{name}"] == b'{"properties":{' + properties.encode() + b"}}"
