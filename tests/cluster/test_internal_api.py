"""The internal (worker-to-worker) REST endpoints on real workers: KIP-507 signatures and KIP-618 fencing.

``PUT /connectors/{c}/fence`` and ``POST /connectors/{c}/tasks`` (docs/architecture.md, "Exactly-once
source tasks") are driven here from the outside, the way another worker would call them: signed with
the session key read from the config topic (``session-key``), or deliberately not. What the leader did
is read back from the config topic (read_committed, in order): ``commit-<c>`` records (new task
generations) and ``tasks-fencing-<c>`` records (task counts written after fencing). Whether a
transactional id was fenced is observed with "zombie" producers opened by the test: a transactional
producer that initialised the task's transactional id ``<group.id>-<c>-<n>`` and holds an open
transaction; if the leader fenced that id, the zombie's commit fails and its record never becomes
visible.

One case cannot be produced deterministically on a real cluster: new task configurations committed
*while* the leader is fencing (409). Here ``_fence`` runs on the leader's herder thread, the only
thread that writes commit records, so during fencing only an outside writer could commit, and the
window is a few hundred milliseconds of producer initialisation that nothing outside the leader can
hold open. ``test_fence_conflict_when_task_configs_move_while_fencing`` therefore checks
``DistributedHerder._fence`` itself with a fake config store and fake fencing producers (no broker).

The pre-key 503 is shown on a real worker (``test_no_session_key_yet_is_503``) and at the REST layer
in tests/unit/test_rest_api.py::test_internal_signature_errors.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import logging
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from connect_runtime.cluster.fencing import ZombieFencer
from connect_runtime.cluster.membership import Heartbeat, heartbeat_key
from connect_runtime.cluster.request_signature import (
    INVALID_SIGNATURE,
    MISSING_SIGNATURE,
    NO_SESSION_KEY,
    SIGNATURE_ALGORITHM_HEADER,
    SIGNATURE_HEADER,
    generate_key,
    sign,
)
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.errors import ConflictHttpError
from connect_runtime.storage import formats
from connect_runtime.storage.config_store import ClusterConfigState, LeaderRecord
from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    config_records,
    current_leader,
    plugin_path,
    read_committed,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic
from connect_runtime.types import ConnectorTaskId
from connectors.verifiable.connector import VerifiableSourceTask

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
ALGORITHM = "HmacSHA256"
SINK_CLASS = "plain_sink.PlainSinkConnector"
VERIFIABLE_TASK_CLASS = f"{VerifiableSourceTask.__module__}.{VerifiableSourceTask.__qualname__}"
FENCE_CONFLICT = "Fencing failed because new task configurations were generated for the connector"

Headers = dict[str, str]


# -- helpers --------------------------------------------------------------------------------------


def _err(status: int, message: str) -> dict[str, Any]:
    return {"error_code": status, "message": message}


def _answer(r: httpx.Response) -> tuple[int, Any]:
    """Status and body (parsed JSON if it is JSON, else the text) for one assertion with a readable diff."""
    try:
        return r.status_code, r.json()
    except ValueError:
        return r.status_code, r.text


def _session_keys(bootstrap: str, config_topic: str) -> list[formats.SessionKeyRecord]:
    """Every ``session-key`` record of the config topic, oldest first."""
    out = []
    for key, value in config_records(bootstrap, config_topic):
        if key == "session-key":
            rec = formats.parse_config_record(key, value)
            assert isinstance(rec, formats.SessionKeyRecord), rec
            out.append(rec)
    return out


def _latest_key(bootstrap: str, config_topic: str) -> formats.SessionKeyRecord | None:
    keys = _session_keys(bootstrap, config_topic)
    return keys[-1] if keys else None


def _fence_events(bootstrap: str, config_topic: str, connector: str) -> list[tuple[str, int]]:
    """``("commit", tasks)`` / ``("fencing", task-count)`` for ``connector``, in config-topic order."""
    out: list[tuple[str, int]] = []
    for key, value in config_records(bootstrap, config_topic):
        if key not in (formats.commit_key(connector), formats.task_count_key(connector)):
            continue
        rec = formats.parse_config_record(key, value)
        if isinstance(rec, formats.CommitRecord):
            out.append(("commit", rec.tasks))
        elif isinstance(rec, formats.TaskCountRecord):
            out.append(("fencing", rec.task_count))
    return out


def _answer_once(send: Callable[[], httpx.Response], ok: Callable[[int], bool]
                 ) -> Callable[[], httpx.Response | None]:
    """For ``wait_until``: send the request; its response once the status is ``ok``, else None."""
    def attempt() -> httpx.Response | None:
        r = send()
        return r if ok(r.status_code) else None

    return attempt


def _fence(client: ConnectClient, connector: str, headers: Headers) -> httpx.Response:
    return client.request("PUT", f"/connectors/{connector}/fence", headers=headers)


def _post_tasks(client: ConnectClient, connector: str, body: bytes, headers: Headers) -> httpx.Response:
    return client.request("POST", f"/connectors/{connector}/tasks", content=body,
                          headers={"Content-Type": "application/json", **headers})


def _task_configs(client: ConnectClient, connector: str) -> list[dict[str, str]]:
    r = client.request("GET", f"/connectors/{connector}/tasks")
    assert r.status_code == 200, r.text
    return [t["config"] for t in r.json()]


def _leader_and_follower(bootstrap: str, workers: list[WorkerProcess]) -> tuple[WorkerProcess, WorkerProcess]:
    config_topic = workers[0].props["config.storage.topic"]
    leader_url = wait_until(lambda: (rec := current_leader(bootstrap, config_topic)) and rec["url"], 30,
                            message="a leader record")
    leader = next(w for w in workers if w.url == leader_url)
    follower = next(w for w in workers if w is not leader)
    return leader, follower


#: librdkafka logs a fenced producer's fatal error; route it to logging (captured by pytest), not stderr.
_ZOMBIE_LOG = logging.getLogger("tests.zombie")


class Zombie:
    """An older instance of task ``<group>-<connector>-<task>``: its transactional id, one record in an
    open transaction. Opening it fences whatever producer held the id before (as a restarted task would)."""

    #: Every zombie created, so that a failed test's leftovers can be closed (``close_zombies``).
    opened: ClassVar[list[Zombie]] = []

    def __init__(self, bootstrap: str, group: str, connector: str, task: int, topic: str) -> None:
        self.transactional_id = f"{group}-{connector}-{task}"
        self.marker = f"zombie-{task}-{uuid.uuid4().hex[:8]}"
        self._producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": self.transactional_id,
                                   "transaction.timeout.ms": 120000, "logger": _ZOMBIE_LOG})
        self._closed = False
        Zombie.opened.append(self)
        self._producer.init_transactions(30)
        self._producer.begin_transaction()
        self._producer.produce(topic, key=b'"zombie"', value=json.dumps(self.marker).encode())
        assert self._producer.flush(30) == 0, "the zombie's record was not delivered"

    def commit(self) -> KafkaError | None:
        """Try to commit the open transaction: None if it committed, else the (fencing) error."""
        try:
            self._producer.commit_transaction(30)
            return None
        except KafkaException as e:
            err = e.args[0]
            assert isinstance(err, KafkaError), e
            return err
        finally:
            self.close()

    def close(self) -> None:
        close = getattr(self._producer, "close", None)  # recent confluent-kafka; else freed when collected
        if close is not None and not self._closed:
            self._closed = True
            with contextlib.suppress(KafkaException):  # a fenced producer cannot abort: it says so
                close()


@pytest.fixture
def close_zombies() -> Iterator[None]:
    yield
    while Zombie.opened:
        Zombie.opened.pop().close()


def _assert_fenced(zombie: Zombie) -> None:
    err = zombie.commit()
    assert err is not None, f"{zombie.transactional_id} was not fenced: its transaction committed"
    assert err.fatal() or err.code() in (KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH,
                                         KafkaError._FENCED), f"{zombie.transactional_id}: not a fencing error: {err}"


def _assert_not_fenced(zombie: Zombie) -> None:
    err = zombie.commit()
    assert err is None, f"{zombie.transactional_id} was fenced although no fencing was due: {err}"


def _markers(bootstrap: str, topic: str) -> set[str]:
    """Zombie markers visible to read_committed consumers of ``topic``."""
    out = set()
    for key, value in read_committed(bootstrap, topic):
        if key == b'"zombie"' and value is not None:
            out.add(json.loads(value))
    return out


# -- 1. signatures --------------------------------------------------------------------------------
@pytest.mark.kafka
@pytest.mark.cluster
def test_internal_endpoints_check_signatures(kafka_bootstrap: str, cluster: Callable[..., WorkerProcess]) -> None:
    worker = cluster(extra=plugin_path(PLUGINS_DIR))
    worker.wait_ready()
    config_topic = worker.props["config.storage.topic"]
    client = ConnectClient(worker.url)
    key = wait_until(lambda: _latest_key(kafka_bootstrap, config_topic), 30, message="a session key")
    assert key.algorithm == ALGORITHM
    client.create_connector("src", {"connector.class": "VerifiableSource", "topic": new_topic(kafka_bootstrap),
                                    "tasks.max": "1", "throughput": "5"})
    client.wait_running("src", 1)
    events = _fence_events(kafka_bootstrap, config_topic, "src")
    assert events == [("commit", 1), ("fencing", 1)]
    tasks_body = json.dumps(_task_configs(client, "src")).encode()

    def fence(headers: Headers) -> httpx.Response:
        return _fence(client, "src", headers)

    def post(headers: Headers) -> httpx.Response:
        return _post_tasks(client, "src", tasks_body, headers)

    for call, body in ((fence, b""), (post, tasks_body)):
        good = sign(key.key, ALGORITHM, body)
        # Unsigned, or half-signed: 400.
        for headers in ({}, {SIGNATURE_HEADER: good[SIGNATURE_HEADER]}, {SIGNATURE_ALGORITHM_HEADER: ALGORITHM}):
            r = call(headers)
            assert _answer(r) == (400, _err(400, MISSING_SIGNATURE)), headers
        # An algorithm that names no MAC: 400.
        r = call({**good, SIGNATURE_ALGORITHM_HEADER: "HmacFoo"})
        assert _answer(r) == (400, _err(400, "Algorithm HmacFoo not available"))
        # A forged MAC, a MAC of another body, a key that is not the session key: 403.
        forged = base64.b64encode(secrets.token_bytes(32)).decode()
        for headers in ({**good, SIGNATURE_HEADER: forged}, sign(key.key, ALGORITHM, body + b" "),
                        sign(generate_key(ALGORITHM), ALGORITHM, body)):
            r = call(headers)
            assert _answer(r) == (403, _err(403, INVALID_SIGNATURE)), headers
        # Signed with the session key: accepted.
        r = call(good)
        assert _answer(r) == (204, ""), r.text
    # Neither accepted request changed anything: same task configs (no new generation), and the
    # connector was not pending fencing (no new task-count record).
    assert _fence_events(kafka_bootstrap, config_topic, "src") == events

    signed_empty = sign(key.key, ALGORITHM, b"")
    r = _fence(client, "nope", signed_empty)
    assert _answer(r) == (404, _err(404, "Connector nope not found"))
    r = _post_tasks(client, "nope", b"[]", sign(key.key, ALGORITHM, b"[]"))
    assert _answer(r) == (404, _err(404, "Connector nope not found"))
    # A connector that is not a source connector cannot be fenced.
    created = client.create_connector("sinky", {"connector.class": SINK_CLASS, "tasks.max": "1"})
    assert created["type"] == "sink"
    r = _fence(client, "sinky", signed_empty)
    assert _answer(r) == (400, _err(400, "Connector sinky is not a source connector"))
    client.close()


@pytest.mark.kafka
@pytest.mark.cluster
def test_key_rotation_makes_the_previous_key_stale(kafka_bootstrap: str,
                                                   cluster: Callable[..., WorkerProcess]) -> None:
    worker = cluster(extra={"inter.worker.key.ttl.ms": "3000"})
    worker.wait_ready()
    config_topic = worker.props["config.storage.topic"]
    client = ConnectClient(worker.url)
    client.create_connector("rot", {"connector.class": "VerifiableSource", "topic": new_topic(kafka_bootstrap),
                                    "tasks.max": "1", "throughput": "1"})
    client.wait_running("rot", 1)

    def accepted_with_current_key() -> formats.SessionKeyRecord | None:
        """Sign with the latest key; None (retry) if the key rotated while the request was in flight."""
        before = _latest_key(kafka_bootstrap, config_topic)
        assert before is not None
        r = _fence(client, "rot", sign(before.key, ALGORITHM, b""))
        if _latest_key(kafka_bootstrap, config_topic) != before:
            return None
        assert r.status_code == 204, r.text
        return before

    first = wait_until(accepted_with_current_key, 30, message="a request signed with the current key")
    wait_until(lambda: (k := _latest_key(kafka_bootstrap, config_topic)) and k.creation_timestamp
               > first.creation_timestamp, 20, message="a rotated session key")
    # The worker reads the new key right after writing it; from then on the old one is refused for good.
    r = wait_until(_answer_once(lambda: _fence(client, "rot", sign(first.key, ALGORITHM, b"")), lambda s: s == 403),
                   10, message="the previous key to be refused")
    assert _answer(r) == (403, _err(403, INVALID_SIGNATURE))
    second = wait_until(accepted_with_current_key, 30, message="a request signed with the rotated key")
    assert second.key != first.key
    r = _fence(client, "rot", sign(first.key, ALGORITHM, b""))
    assert _answer(r) == (403, _err(403, INVALID_SIGNATURE))
    client.close()


@pytest.mark.kafka
@pytest.mark.cluster
def test_no_session_key_yet_is_503(kafka_bootstrap: str, tmp_path: Path) -> None:
    """A worker that has not read a session key answers signed internal requests with 503.

    On a normal start the leader writes the first key within a second. To hold a real worker in the
    pre-key state, the test plays a "ghost" leader: it creates the internal topics, writes a ``leader``
    record naming a worker that does not exist and keeps that worker's heartbeats coming. The real worker
    sees a live leader, so it does not claim leadership, and nobody writes a key. When the ghost leaves,
    the real worker takes over, writes a key, and the same requests pass the signature check.
    """
    group = f"prekey-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    compact = {"cleanup.policy": "compact"}
    topics = [NewTopic(f"{group}-configs", 1, 1, config=compact), NewTopic(f"{group}-offsets", 5, 1, config=compact),
              NewTopic(f"{group}-status", 2, 1, config=compact)]
    for fut in admin.create_topics(topics).values():
        fut.result(30)
    ghost_id, ghost_url = "ghost:1", "http://127.0.0.1:1"
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    producer.produce(f"{group}-configs", key=b"leader", value=LeaderRecord(ghost_id, ghost_url, 1).to_bytes())
    beat = Heartbeat(ghost_id, ghost_url, "ghost-session", 0).to_bytes()
    stop = threading.Event()

    def heartbeats() -> None:
        while True:
            producer.produce(f"{group}-status", key=heartbeat_key(ghost_id).encode(), value=beat)
            producer.flush(10)
            if stop.wait(0.5):
                return

    heartbeats_thread = threading.Thread(target=heartbeats, daemon=True, name="ghost-heartbeats")
    heartbeats_thread.start()
    worker = WorkerProcess(kafka_bootstrap, tmp_path, group, extra={
        "session.timeout.ms": "4000", "heartbeat.interval.ms": "1000", "scheduled.rebalance.max.delay.ms": "0"})
    try:
        worker.start().wait_ready()
        client = ConnectClient(worker.url)
        tasks_body = b'[{"task.class": "T"}]'
        any_key = generate_key(ALGORITHM)
        for method, path, body in (("PUT", "/connectors/c/fence", b""), ("POST", "/connectors/c/tasks", tasks_body)):
            r = client.request(method, path, content=body, headers=sign(any_key, ALGORITHM, body))
            assert _answer(r) == (503, _err(503, NO_SESSION_KEY)), path
            # The signature headers are still checked first.
            r = client.request(method, path, content=body)
            assert _answer(r) == (400, _err(400, MISSING_SIGNATURE)), path
            r = client.request(method, path, content=body,
                               headers={**sign(any_key, ALGORITHM, body), SIGNATURE_ALGORITHM_HEADER: "HmacFoo"})
            assert _answer(r) == (400, _err(400, "Algorithm HmacFoo not available")), path
        # Really pre-key: nobody wrote a key, and the ghost is still the leader.
        config_topic = f"{group}-configs"
        assert _session_keys(kafka_bootstrap, config_topic) == []
        leader = current_leader(kafka_bootstrap, config_topic)
        assert leader is not None and leader["worker_id"] == ghost_id
        # The ghost leaves cleanly (a tombstone for its heartbeat): the worker takes over and writes a key.
        stop.set()
        heartbeats_thread.join(10)
        producer.produce(f"{group}-status", key=heartbeat_key(ghost_id).encode(), value=None)
        producer.flush(10)
        key = wait_until(lambda: _latest_key(kafka_bootstrap, config_topic), 30, message="the first session key")
        leader = current_leader(kafka_bootstrap, config_topic)
        assert leader is not None and leader["url"] == worker.url and leader["epoch"] == 2
        r = wait_until(_answer_once(lambda: _fence(client, "c", sign(key.key, ALGORITHM, b"")), lambda s: s != 503),
                       10, message="the worker to read its own key")
        assert _answer(r) == (404, _err(404, "Connector c not found"))
        r = _fence(client, "c", sign(any_key, ALGORITHM, b""))
        assert _answer(r) == (403, _err(403, INVALID_SIGNATURE))
        client.close()
    finally:
        stop.set()
        worker.kill()


# -- 2. fencing semantics -------------------------------------------------------------------------
@pytest.mark.kafka
@pytest.mark.cluster
@pytest.mark.usefixtures("close_zombies")
def test_fencing_through_a_follower(kafka_bootstrap: str, cluster: Callable[..., WorkerProcess]) -> None:
    """Each generation's fencing, requested from the follower, which forwards it to the leader.

    The connector is created PAUSED, so it never generates task configs itself and its tasks wait
    before their start-up fencing: the test hands the leader each generation's task configs through
    ``POST /connectors/{c}/tasks`` and the only fencing is the one it requests with ``PUT .../fence``.
    """
    workers = [cluster(), cluster()]
    for w in workers:
        w.wait_ready()
    _, follower = _leader_and_follower(kafka_bootstrap, workers)
    config_topic = follower.props["config.storage.topic"]
    group = follower.props["group.id"]
    client = ConnectClient(follower.url)
    key = wait_until(lambda: _latest_key(kafka_bootstrap, config_topic), 30, message="a session key").key
    zombie_topic = new_topic(kafka_bootstrap)
    name = "fenced"
    config = {"connector.class": "VerifiableSource", "topic": new_topic(kafka_bootstrap), "tasks.max": "3",
              "throughput": "5"}
    r = client.request("POST", "/connectors", json={"name": name, "config": config, "initial_state": "PAUSED"})
    assert r.status_code == 201, r.text
    wait_until(lambda: client.status(name)["connector"]["state"] == "PAUSED", 30, message=f"{name} PAUSED")
    assert _fence_events(kafka_bootstrap, config_topic, name) == []

    def new_generation(count: int, throughput: str = "5") -> None:
        """Hand the leader ``count`` task configs (via the follower); the commit record is then written."""
        configs = [{**config, "name": name, "task.class": VERIFIABLE_TASK_CLASS, "task.id": str(i),
                    "throughput": throughput} for i in range(count)]
        body = json.dumps(configs).encode()
        r = _post_tasks(client, name, body, sign(key, ALGORITHM, body))
        assert _answer(r) == (204, ""), r.text
        events = _fence_events(kafka_bootstrap, config_topic, name)
        assert events[-1] == ("commit", count), events

    def fence() -> list[tuple[str, int]]:
        r = _fence(client, name, sign(key, ALGORITHM, b""))
        assert _answer(r) == (204, ""), r.text
        return _fence_events(kafka_bootstrap, config_topic, name)

    def zombies(*tasks: int) -> list[Zombie]:
        return [Zombie(kafka_bootstrap, group, name, t, zombie_topic) for t in tasks]

    # Verified by the follower before forwarding: a forged request never reaches the leader.
    r = _fence(client, name, sign(generate_key(ALGORITHM), ALGORITHM, b""))
    assert _answer(r) == (403, _err(403, INVALID_SIGNATURE))

    # First generation (2 tasks): no previous task count, so nothing is fenced; the count is recorded
    # after the commit.
    z0, z1 = zombies(0, 1)
    new_generation(2)
    assert fence() == [("commit", 2), ("fencing", 2)]
    _assert_not_fenced(z0)
    _assert_not_fenced(z1)
    kept = {z0.marker, z1.marker}
    lost: set[str] = set()

    # Not pending fencing any more: a no-op (no record, no fencing).
    (z0,) = zombies(0)
    assert fence() == [("commit", 2), ("fencing", 2)]
    _assert_not_fenced(z0)
    kept.add(z0.marker)

    # 2 -> 3: the previous generation's count (2) is fenced: ids 0 and 1, not 2.
    z0, z1, z2 = zombies(0, 1, 2)
    new_generation(3)
    assert fence()[-2:] == [("commit", 3), ("fencing", 3)]
    _assert_fenced(z0)
    _assert_fenced(z1)
    _assert_not_fenced(z2)
    kept.add(z2.marker)
    lost |= {z0.marker, z1.marker}

    # 3 -> 2: ids 0..2 of the previous generation are fenced although the new one has 2 tasks.
    z0, z1, z2 = zombies(0, 1, 2)
    new_generation(2)
    assert fence()[-2:] == [("commit", 2), ("fencing", 2)]
    for z in (z0, z1, z2):
        _assert_fenced(z)
    lost |= {z0.marker, z1.marker, z2.marker}

    # 2 -> 1, then 1 -> 1 with changed task configs: no fencing (the new task's own producer
    # initialisation fences its predecessor), but the count is recorded.
    new_generation(1)
    assert fence()[-2:] == [("commit", 1), ("fencing", 1)]
    (z0,) = zombies(0)
    new_generation(1, throughput="7")
    assert fence()[-2:] == [("commit", 1), ("fencing", 1)]
    _assert_not_fenced(z0)
    kept.add(z0.marker)

    visible = _markers(kafka_bootstrap, zombie_topic)
    assert kept <= visible and not (lost & visible), (kept, lost, visible)
    assert _fence_events(kafka_bootstrap, config_topic, name) == [
        ("commit", 2), ("fencing", 2), ("commit", 3), ("fencing", 3), ("commit", 2), ("fencing", 2),
        ("commit", 1), ("fencing", 1), ("commit", 1), ("fencing", 1)]
    client.close()


@pytest.mark.kafka
@pytest.mark.cluster
@pytest.mark.usefixtures("close_zombies")
def test_shrinking_running_tasks_fences_the_previous_generation(
        kafka_bootstrap: str, cluster: Callable[..., WorkerProcess]) -> None:
    """3 running tasks reconfigured to 2: the tasks' start-up fencing covers task id 2 as well."""
    worker = cluster()
    worker.wait_ready()
    config_topic = worker.props["config.storage.topic"]
    group = worker.props["group.id"]
    client = ConnectClient(worker.url)
    topic = new_topic(kafka_bootstrap)
    name = "shrink"
    config = {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "3", "throughput": "20"}
    client.create_connector(name, config)
    client.wait_running(name, 3)
    assert _fence_events(kafka_bootstrap, config_topic, name) == [("commit", 3), ("fencing", 3)]
    # An older instance of task 2 (this fences the real task 2, which fails at its next commit; it is
    # not restarted, so nothing but the leader's fencing can fence this zombie in turn).
    zombie = Zombie(kafka_bootstrap, group, name, 2, topic)
    r = client.request("PUT", f"/connectors/{name}/config", json={**config, "tasks.max": "2"})
    assert r.status_code == 200, r.text
    wait_until(lambda: _fence_events(kafka_bootstrap, config_topic, name)[2:] == [("commit", 2), ("fencing", 2)],
               60, message="the 2-task generation committed and fenced")
    client.wait_running(name, 2)
    _assert_fenced(zombie)
    assert zombie.marker not in _markers(kafka_bootstrap, topic)
    client.close()


# -- 3. the 409 path, at unit level ----------------------------------------------------------------
class _FakeConfigStore:
    """``refresh()`` returns whatever ``state`` is now (the test moves it)."""

    def __init__(self, state: ClusterConfigState) -> None:
        self.state = state

    def refresh(self, timeout_s: float = 30.0) -> ClusterConfigState:
        return self.state


class _FakeLeadership:
    """Leads, and records what it writes."""

    def __init__(self) -> None:
        self.writes: list[list[tuple[str, bytes | None]]] = []

    def require_leader(self) -> None:
        pass

    def write(self, records: list[tuple[str, bytes | None]]) -> None:
        self.writes.append(records)


@pytest.mark.parametrize("moved", [True, False])
def test_fence_conflict_when_task_configs_move_while_fencing(moved: bool) -> None:
    """Generation 7 (2 tasks) follows one whose count record says 3; while ids 0..2 are being fenced,
    generation 8 is committed (moved) or not. No broker: the config store and producers are fakes."""
    c = "c"
    cfg = {"name": c, "connector.class": "VerifiableSource", "topic": "t", "tasks.max": "2"}
    before = ClusterConfigState(
        connector_configs={c: cfg},
        task_configs={ConnectorTaskId(c, i): {**cfg, "task.id": str(i)} for i in range(2)},
        task_counts={c: 2}, task_count_records={c: 3}, task_config_generations={c: 7},
        pending_fencing=frozenset({c}))
    after = dataclasses.replace(before, task_counts={c: 1}, task_config_generations={c: 8},
                                task_configs={ConnectorTaskId(c, 0): {**cfg, "task.id": "0"}})
    store = _FakeConfigStore(before)
    fenced: list[ConnectorTaskId] = []
    leadership = _FakeLeadership()
    config = WorkerConfig.from_properties({"bootstrap.servers": "b:9092", "group.id": "g",
                                           "config.storage.topic": "c", "offset.storage.topic": "o",
                                           "status.storage.topic": "s"})
    fencer = ZombieFencer(config, store, leadership, is_source=lambda props: True,  # type: ignore[arg-type]
                          producer_settings=lambda props: {}, on_herder=lambda fn: fn())

    def fence_producer(task: ConnectorTaskId, settings: object) -> None:
        fenced.append(task)
        if moved:
            store.state = after

    fencer.fence_producer = fence_producer  # type: ignore[method-assign]
    try:
        if moved:
            with pytest.raises(ConflictHttpError) as info:
                fencer.fence(c)
            assert info.value.status == 409
            assert str(info.value) == FENCE_CONFLICT
            assert leadership.writes == []
        else:
            fencer.fence(c)
            assert leadership.writes == [[formats.task_count_record(c, 2)]]
    finally:
        fencer.close()
    assert sorted(fenced) == [ConnectorTaskId(c, i) for i in range(3)]
