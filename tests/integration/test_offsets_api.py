"""The offsets REST API (KIP-875) of a real worker on the real broker: what GET reports, and what
tasks resume from after PATCH (alter) and DELETE (reset), with and without exactly-once support.

VerifiableSource tasks write ``seqno`` 0, 1, 2, ... under the source partition ``{"id": <task>}``
and resume from the stored seqno + 1, so altering task 0's offset to K must make its next records
K+1, K+2, ... and a reset must restart every sequence at 0.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import KafkaException, Producer

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    read_committed,
    stored_offsets,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic, unique_topic_name

#: One EOS-enabled worker for the module (tests/integration/conftest.py).
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled")]

NOT_STOPPED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/{}/stop' endpoint"
)
#: VerifiableSource does not override ``alter_offsets``, so the runtime answers with the hedged text.
ALTERED = (
    "The Connect framework-managed offsets for this connector have been altered successfully. However, if this "
    "connector manages offsets externally, they will need to be manually altered in the system that the "
    "connector uses."
)
RESET = ALTERED.replace("altered", "reset")
#: Records per second per task: a few hundred records within the test, light on a 2-core machine.
THROUGHPUT = "50"


# ---------------------------------------------------------------------------------------------
# Fixtures and helpers
# ---------------------------------------------------------------------------------------------


def _start_worker(bootstrap: str, workdir: Path, eos: str) -> WorkerProcess:
    return WorkerProcess(bootstrap, workdir, f"offsets-api-{uuid.uuid4().hex[:8]}", eos=eos).start_ready()


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _verifiable(topic: str, tasks: int, **extra: str) -> dict[str, str]:
    return {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": str(tasks),
            "throughput": THROUGHPUT, **extra}


def _json(resp: httpx.Response, status: int) -> Any:
    assert resp.status_code == status, f"{resp.request.method} {resp.request.url}: {resp.status_code} {resp.text}"
    return resp.json()


def _records(bootstrap: str, topic: str) -> list[tuple[int, int]]:
    """(task, seqno) of every committed record, in the topic's order (one partition)."""
    return verifiable_pairs(read_committed(bootstrap, topic, timeout_s=30))


def _wait_records(bootstrap: str, topic: str, per_task: dict[int, int]) -> list[tuple[int, int]]:
    """Wait until each task in ``per_task`` has more than that many committed records."""

    def enough() -> list[tuple[int, int]] | None:
        records = _records(bootstrap, topic)
        counts = {t: sum(1 for task, _ in records if task == t) for t in per_task}
        return records if all(counts[t] > n for t, n in per_task.items()) else None

    return wait_until(enough, 60, interval_s=0.5, message=f"more records than {per_task} in {topic}")


def _stop(client: ConnectClient, name: str) -> None:
    client.stop_connector(name)
    client.wait_state(name, "STOPPED", timeout_s=60)


def _settled(bootstrap: str, client: ConnectClient, name: str,
             topic: str) -> tuple[list[tuple[int, int]], dict[int, int]] | None:
    """The committed records and the stored offsets, once the offsets are those of the last records."""
    records = _records(bootstrap, topic)
    stored = _get_offsets(client, name)
    return (records, stored) if stored == _max_seqnos(records) else None


def _resume(client: ConnectClient, name: str, tasks: int) -> None:
    client.resume_connector(name)
    client.wait_running(name, tasks)


def _get_offsets(client: ConnectClient, name: str) -> dict[int, int]:
    """GET /connectors/{c}/offsets as {task: seqno}, checking the JSON shape on the way."""
    body = _json(client.request("GET", f"/connectors/{name}/offsets"), 200)
    assert list(body) == ["offsets"], body
    out: dict[int, int] = {}
    for entry in body["offsets"]:
        assert list(entry) == ["partition", "offset"], entry
        assert list(entry["partition"]) == ["id"] and list(entry["offset"]) == ["seqno"], entry
        out[entry["partition"]["id"]] = entry["offset"]["seqno"]
    return out


def _patch(client: ConnectClient, name: str, offsets: list[dict[str, Any]]) -> httpx.Response:
    return client.request("PATCH", f"/connectors/{name}/offsets", json={"offsets": offsets})


def _seqno(task: int, n: int | None) -> dict[str, Any]:
    return {"partition": {"id": task}, "offset": None if n is None else {"seqno": n}}


def _new_seqnos(records: list[tuple[int, int]], after: int, task: int) -> list[int]:
    """The seqnos of ``task`` among the records after the first ``after`` records."""
    return [s for t, s in records[after:] if t == task]


def _max_seqnos(records: list[tuple[int, int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for task, seq in records:
        out[task] = max(seq, out.get(task, -1))
    return out


def _alter_and_reset(bootstrap: str, client: ConnectClient, offsets_topic: str) -> None:
    """The whole KIP-875 round on one worker: GET, refusals while running, alter, resume, reset, resume."""
    name, topic = _name("offsets"), new_topic(bootstrap)
    client.create_connector(name, _verifiable(topic, tasks=2))
    client.wait_running(name, 2)
    _wait_records(bootstrap, topic, {0: 10, 1: 10})

    # Only a STOPPED connector's offsets may change (running here).
    not_stopped = {"error_code": 400, "message": NOT_STOPPED.format(name)}
    assert _json(_patch(client, name, [_seqno(0, 3)]), 400) == not_stopped
    assert _json(client.request("DELETE", f"/connectors/{name}/offsets"), 400) == not_stopped

    _stop(client, name)
    # STOPPED shows no task as soon as the task configs are gone; a task process may still be making
    # its final commit, which the offsets read waits for and a records read taken before it does not.
    records, stored = wait_until(lambda: _settled(bootstrap, client, name, topic), 30,
                                 message=f"the offsets of {name} and the records in {topic} agree")
    assert stored == stored_offsets(bootstrap, offsets_topic, name), stored

    # Alter: task 0 back to seqno 3 (a rewind, so its next records cannot be a natural continuation).
    assert _json(_patch(client, name, [_seqno(0, 3)]), 200) == {"message": ALTERED}
    assert _get_offsets(client, name) == {0: 3, 1: stored[1]}
    assert stored_offsets(bootstrap, offsets_topic, name) == {0: 3, 1: stored[1]}
    _resume(client, name, 2)
    after = _wait_records(bootstrap, topic, {0: len(records) + 5})
    task0 = _new_seqnos(after, len(records), 0)
    task1 = _new_seqnos(after, len(records), 1)
    assert task0[:5] == [4, 5, 6, 7, 8], task0[:20]
    assert task0 == list(range(4, 4 + len(task0))), task0
    assert task1 == list(range(stored[1] + 1, stored[1] + 1 + len(task1))), task1

    # Reset: every sequence restarts at 0.
    _stop(client, name)
    records, _ = wait_until(lambda: _settled(bootstrap, client, name, topic), 30,
                            message=f"the offsets of {name} and the records in {topic} agree")
    assert _json(client.request("DELETE", f"/connectors/{name}/offsets"), 200) == {"message": RESET}
    assert _get_offsets(client, name) == {}
    assert stored_offsets(bootstrap, offsets_topic, name) == {}
    # Nothing left to reset is still a success.
    assert _json(client.request("DELETE", f"/connectors/{name}/offsets"), 200) == {"message": RESET}
    _resume(client, name, 2)
    counts = {t: sum(1 for task, _ in records if task == t) for t in (0, 1)}
    after = _wait_records(bootstrap, topic, {0: counts[0] + 3, 1: counts[1] + 3})
    for task in (0, 1):
        fresh = _new_seqnos(after, len(records), task)
        assert fresh == list(range(len(fresh))), (task, fresh[:20])
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------


def test_get_offsets_of_unknown_connector_is_404(client: ConnectClient) -> None:
    body = _json(client.request("GET", "/connectors/no-such-connector/offsets"), 404)
    assert body == {"error_code": 404, "message": "Connector no-such-connector not found"}
    body = _json(_patch(client, "no-such-connector", [_seqno(0, 1)]), 404)
    assert body == {"error_code": 404, "message": "Connector no-such-connector not found"}


def test_alter_and_reset_exactly_once(kafka_bootstrap: str, worker: WorkerProcess,
                                      client: ConnectClient) -> None:
    _alter_and_reset(kafka_bootstrap, client, worker.props["offset.storage.topic"])


def test_alter_and_reset_at_least_once(kafka_bootstrap: str, tmp_path: Path) -> None:
    with _start_worker(kafka_bootstrap, tmp_path, "disabled") as worker, ConnectClient(worker.url) as client:
        _alter_and_reset(kafka_bootstrap, client, worker.props["offset.storage.topic"])


def test_alter_fences_a_zombie_of_the_old_generation(kafka_bootstrap: str, worker: WorkerProcess,
                                                     client: ConnectClient) -> None:
    """Under exactly-once, no task instance from before the alter can commit after it."""
    name, topic = _name("zombie"), new_topic(kafka_bootstrap)
    client.create_connector(name, _verifiable(topic, tasks=1))
    client.wait_running(name, 1)
    _wait_records(kafka_bootstrap, topic, {0: 5})
    _stop(client, name)

    # A straggler of task 0 (as if its worker had been cut off): it has a transaction open.
    zombie = Producer({"bootstrap.servers": kafka_bootstrap,
                       "transactional.id": f"{worker.props['group.id']}-{name}-0"})
    zombie.init_transactions(30)
    zombie.begin_transaction()
    zombie.produce(topic, key=b"0", value=b"999999")
    assert zombie.flush(30) == 0

    assert _json(_patch(client, name, [_seqno(0, 1000)]), 200) == {"message": ALTERED}
    with pytest.raises(KafkaException) as failure:
        zombie.commit_transaction(30)
    error = failure.value.args[0]
    assert error.fatal() or "fenc" in error.str().lower(), error
    assert all(seq != 999999 for _, seq in _records(kafka_bootstrap, topic))

    before = _records(kafka_bootstrap, topic)
    _resume(client, name, 1)
    after = _wait_records(kafka_bootstrap, topic, {0: len(before) + 2})
    assert _new_seqnos(after, len(before), 0)[:2] == [1001, 1002]
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204


def test_connector_specific_offsets_topic(kafka_bootstrap: str, worker: WorkerProcess,
                                          client: ConnectClient) -> None:
    """GET reads the connector's own topic; PATCH and DELETE reach it and the worker's global topic."""
    name, topic = _name("own-topic"), new_topic(kafka_bootstrap)
    own = unique_topic_name("connector-offsets")
    global_topic = worker.props["offset.storage.topic"]
    client.create_connector(name, _verifiable(topic, tasks=2, **{"offsets.storage.topic": own}))
    client.wait_running(name, 2)
    _wait_records(kafka_bootstrap, topic, {0: 5, 1: 5})
    _stop(client, name)

    # The combined view: the connector's topic first, the worker's topic for partitions it lacks.
    stored = _get_offsets(client, name)
    combined = {**stored_offsets(kafka_bootstrap, global_topic, name), **stored_offsets(kafka_bootstrap, own, name)}
    assert stored == combined == _max_seqnos(_records(kafka_bootstrap, topic)), stored

    assert _json(_patch(client, name, [_seqno(0, 500), _seqno(1, None)]), 200) == {"message": ALTERED}
    assert _get_offsets(client, name) == {0: 500}
    assert stored_offsets(kafka_bootstrap, own, name) == {0: 500}
    # The global topic gets the tombstone before the write and the new offset as a mirror after it.
    wait_until(lambda: stored_offsets(kafka_bootstrap, global_topic, name) == {0: 500}, 30,
               message="the altered offset mirrored to the worker's offsets topic")
    raw = [(k, v) for k, v in read_committed(kafka_bootstrap, own) if k is not None and json.loads(k)[0] == name]
    assert (json.dumps([name, {"id": 0}], separators=(",", ":")).encode(), b'{"seqno":500}') in raw

    assert _json(client.request("DELETE", f"/connectors/{name}/offsets"), 200) == {"message": RESET}
    assert _get_offsets(client, name) == {}
    assert stored_offsets(kafka_bootstrap, own, name) == {}
    assert stored_offsets(kafka_bootstrap, global_topic, name) == {}
    assert client.request("DELETE", f"/connectors/{name}").status_code == 204
