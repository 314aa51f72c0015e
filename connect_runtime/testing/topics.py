"""Read what a topic holds, as a test needs it: committed records, log-end offsets, transactions.

Every reader here talks to a real broker. The Kafka clients they create log through the
``connect_runtime.testing.kafka`` logger (so librdkafka's lines land in pytest's captured log, not on
the test's stderr), and the admin requests of one broker share one cached :func:`admin_client` for
the whole test session instead of building a client per call.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from confluent_kafka import Consumer, IsolationLevel, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

KAFKA_LOGGER = logging.getLogger("connect_runtime.testing.kafka")
"""The logger every Kafka client of the toolkit logs librdkafka's lines to."""

Record = tuple[bytes | None, bytes | None]
"""A record as the simple readers return it: ``(key, value)``, raw bytes (``None`` for a null)."""

_MAX_TOPIC_LEN = 249
_INVALID_TOPIC_CHARS = re.compile(r"[^a-zA-Z0-9._-]+")
_ADMINS: dict[str, Any] = {}
_ADMINS_LOCK = threading.Lock()


def client_settings(bootstrap: str, **settings: Any) -> dict[str, Any]:
    """librdkafka settings for a toolkit client of ``bootstrap``: ``settings`` plus the quiet logger.

    Use it for clients a test builds itself (``Producer(client_settings(bootstrap, **{"acks": "all"}))``)
    so that their log lines are captured like the toolkit's own.
    """
    return {"bootstrap.servers": bootstrap, "logger": KAFKA_LOGGER, **settings}


def admin_client(bootstrap: str) -> Any:
    """The session's shared ``AdminClient`` of ``bootstrap`` (created on first use, then cached).

    The pytest plugin drops the cached clients when its broker stops (:func:`close_admin_clients`).
    """
    with _ADMINS_LOCK:
        admin = _ADMINS.get(bootstrap)
        if admin is None:
            admin = _ADMINS[bootstrap] = AdminClient(client_settings(bootstrap))
        return admin


def close_admin_clients(bootstrap: str | None = None) -> None:
    """Forget the cached admin client of ``bootstrap`` (of every broker when ``None``), e.g. before a
    broker a test started itself goes away, so that no client keeps reconnecting to it."""
    with _ADMINS_LOCK:
        for key in [bootstrap] if bootstrap is not None else list(_ADMINS):
            admin = _ADMINS.pop(key, None)
            if admin is not None:
                admin.poll(0)  # serve queued log lines to the logger before the handle goes


def unique_topic_name(prefix: str = "test") -> str:
    """A fresh topic name: ``prefix`` (sanitized) plus a random suffix, at most 249 characters."""
    base = _INVALID_TOPIC_CHARS.sub("-", prefix).strip("-.") or "test"
    suffix = uuid.uuid4().hex[:12]
    return f"{base[: _MAX_TOPIC_LEN - len(suffix) - 1]}-{suffix}"


def new_topic(
    bootstrap: str,
    name: str | None = None,
    partitions: int = 1,
    *,
    replication_factor: int = -1,
    config: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> str:
    """Create a topic and wait until every partition has a leader; return its name.

    ``name`` defaults to a fresh unique name. ``replication_factor=-1`` uses the broker default;
    ``config`` holds topic-level configs (e.g. ``{"cleanup.policy": "compact"}``). Raises
    ``RuntimeError`` when the topic cannot be created or does not become ready in ``timeout`` s.
    """
    topic = name or unique_topic_name()
    admin: Any = admin_client(bootstrap)
    futures = admin.create_topics(
        [
            NewTopic(
                topic, num_partitions=partitions, replication_factor=replication_factor, config=config or {}
            )
        ],
        operation_timeout=timeout,
        request_timeout=timeout,
    )
    try:
        futures[topic].result(timeout=timeout)
    except Exception as exc:
        raise RuntimeError(f"could not create topic {topic!r} on {bootstrap}: {exc}") from exc
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RuntimeError(
                f"topic {topic!r} on {bootstrap} had no leader for all partitions in {timeout:g} s"
            )
        try:
            md = admin.list_topics(topic=topic, timeout=min(5.0, remaining))
            tmd = md.topics.get(topic)
            if (
                tmd is not None
                and tmd.error is None
                and len(tmd.partitions) == partitions
                and all(p.leader >= 0 and p.error is None for p in tmd.partitions.values())
            ):
                return topic
        except Exception:  # KafkaException while metadata propagates; retry until the deadline
            pass
        finally:
            admin.poll(0)  # serve its log lines to the logger
        time.sleep(0.1)


def _list_offsets(bootstrap: str, topic: str, isolation: Any, timeout_s: float) -> dict[int, int]:
    admin = admin_client(bootstrap)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            md = admin.list_topics(topic, timeout=max(1.0, deadline - time.monotonic())).topics[topic]
            if md.error is not None:
                raise KafkaException(md.error)
            req = {TopicPartition(topic, p): OffsetSpec.latest() for p in md.partitions}
            res = admin.list_offsets(req, isolation_level=isolation, request_timeout=30)
            return {tp.partition: f.result().offset for tp, f in sorted(res.items(), key=lambda i: i[0].partition)}
        except KafkaException:
            # A topic created a moment ago may have no leader known yet (NOT_LEADER_FOR_PARTITION,
            # UNKNOWN_TOPIC_OR_PART): transient until the deadline.
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)
        finally:
            admin.poll(0)


def end_offsets(bootstrap: str, topic: str, timeout_s: float = 30.0) -> dict[int, int]:
    """Log-end offset (high watermark) of every partition of ``topic``, open transactions included."""
    return _list_offsets(bootstrap, topic, IsolationLevel.READ_UNCOMMITTED, timeout_s)


def stable_offsets(bootstrap: str, topic: str, timeout_s: float = 30.0) -> dict[int, int]:
    """Last stable offset of every partition of ``topic``: where a ``read_committed`` reader stops.

    Behind :func:`end_offsets` exactly while a transaction on that partition is still open.
    """
    return _list_offsets(bootstrap, topic, IsolationLevel.READ_COMMITTED, timeout_s)


def open_transactions(bootstrap: str, topic: str) -> dict[int, tuple[int, int]]:
    """Partitions of ``topic`` with a transaction still open: ``{partition: (stable offset, end offset)}``."""
    lso, end = stable_offsets(bootstrap, topic), end_offsets(bootstrap, topic)
    return {p: (lso[p], end[p]) for p in end if lso.get(p, end[p]) < end[p]}


@dataclass(frozen=True)
class TopicRecord:
    """One record of a topic with where it sits and what became of it."""

    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    #: ``"committed"`` (visible to ``read_committed`` readers; non-transactional records too),
    #: ``"aborted"`` (written in a transaction that was aborted), or ``"open"`` (at or past the last
    #: stable offset: its transaction is not decided yet).
    outcome: Literal["committed", "aborted", "open"] = "committed"


def _read(bootstrap: str, topic: str, isolation: str, until: Callable[[], dict[int, int]],
          timeout_s: float) -> list[TopicRecord]:
    """Every record of ``topic`` the ``isolation`` level shows, from offset 0 up to ``until()``."""
    ends = until()
    consumer = Consumer(client_settings(bootstrap, **{
        "group.id": f"toolkit-reader-{uuid.uuid4()}", "isolation.level": isolation,
        "enable.auto.commit": False, "auto.offset.reset": "earliest"}))
    out: list[TopicRecord] = []
    deadline = time.monotonic() + timeout_s
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in ends])
        while True:
            for m in consumer.consume(10000, 0.5):
                partition, offset = m.partition(), m.offset()
                if m.error() is None and partition is not None and offset is not None:
                    out.append(TopicRecord(partition, offset, m.key(), m.value()))
            positions = consumer.position([TopicPartition(topic, p) for p in ends])
            # A position stays negative until the first fetch of an empty partition: that one is done.
            if all(ends[tp.partition] == 0 or tp.offset >= ends[tp.partition] for tp in positions):
                return out
            if time.monotonic() > deadline:
                raise AssertionError(f"reading {topic} ({isolation}) did not reach {ends} in {timeout_s}s"
                                     + _open_note(bootstrap, topic, isolation))
    finally:
        consumer.close()


def _open_note(bootstrap: str, topic: str, isolation: str) -> str:
    """Why a ``read_committed`` read timed out, when a transaction still open is the reason."""
    if isolation != "read_committed":
        return ""
    try:
        still_open = open_transactions(bootstrap, topic)
    except Exception:  # the timeout is the news; a failed look at the reason must not hide it
        return ""
    if not still_open:
        return ""
    return (f": a transaction is still open on partitions {sorted(still_open)} (stable, end offsets "
            f"{still_open}); read_transactions shows its records")


def read_records(bootstrap: str, topic: str, timeout_s: float = 120.0) -> list[TopicRecord]:
    """Every committed record of ``topic`` with its partition and offset, read to the current end.

    Read like a ``read_committed`` consumer: records of aborted transactions are not among them, and
    a transaction still open at the log end is waited for (up to ``timeout_s``) until it is decided.
    Ordered by partition, then offset. Raises AssertionError at the deadline, naming the partitions
    whose transaction is still open (see :func:`read_committed`).
    """
    records = _read(bootstrap, topic, "read_committed", lambda: end_offsets(bootstrap, topic), timeout_s)
    return sorted(records, key=lambda r: (r.partition, r.offset))


def read_committed(bootstrap: str, topic: str, timeout_s: float = 120.0) -> list[Record]:
    """Every committed record of ``topic`` as ``(key, value)``, read to the current end.

    ``read_committed`` isolation: aborted transactions are left out, and a transaction still open at
    the log end holds the read back until its producer commits or aborts it, or the broker aborts it
    once the producer's ``transaction.timeout.ms`` (60 s by default) has passed. ``timeout_s`` bounds
    that wait: at the deadline an AssertionError names the partitions whose transaction is still open.
    Lower it to fail fast in a test that expects everything decided; :func:`read_transactions` reads
    without waiting and shows open records as such. Records of one partition keep their order;
    partitions follow each other.
    """
    return [(r.key, r.value) for r in read_records(bootstrap, topic, timeout_s)]


def wait_for_records(bootstrap: str, topic: str, n: int, timeout_s: float = 60.0) -> list[Record]:
    """Wait until ``topic`` holds at least ``n`` committed records; return every one read, as
    ``(key, value)`` (at least ``n``; records of one partition in order).

    One ``read_committed`` consumer follows the topic, so waiting costs one read of the topic, not
    one per poll. Raises AssertionError (naming how many arrived) at the deadline.
    """
    consumer = Consumer(client_settings(bootstrap, **{
        "group.id": f"toolkit-wait-{uuid.uuid4()}", "isolation.level": "read_committed",
        "enable.auto.commit": False, "auto.offset.reset": "earliest"}))
    out: list[Record] = []
    deadline = time.monotonic() + timeout_s
    try:
        consumer.assign([TopicPartition(topic, p, 0) for p in end_offsets(bootstrap, topic)])
        while len(out) < n:
            if time.monotonic() > deadline:
                raise AssertionError(f"{topic} had {len(out)} committed records, not {n}, after {timeout_s}s")
            out.extend((m.key(), m.value()) for m in consumer.consume(10000, 0.5) if m.error() is None)
        return out
    finally:
        consumer.close()


@dataclass(frozen=True)
class Transaction:
    """Consecutive records of one partition that were committed or aborted together."""

    partition: int
    #: ``"committed"``, ``"aborted"`` or ``"open"`` (not decided yet), as for :class:`TopicRecord`.
    outcome: Literal["committed", "aborted", "open"]
    records: tuple[TopicRecord, ...]

    @property
    def first_offset(self) -> int:
        """Offset of the transaction's first record."""
        return self.records[0].offset

    @property
    def last_offset(self) -> int:
        """Offset of the transaction's last record (its marker, when it has one, comes right after)."""
        return self.records[-1].offset

    def __len__(self) -> int:
        return len(self.records)


@dataclass
class TransactionReport:
    """What :func:`read_transactions` found in a topic."""

    #: Every record, committed, aborted or open, by partition and offset.
    records: list[TopicRecord] = field(default_factory=list)
    #: The records grouped into transactions, by partition and offset.
    transactions: list[Transaction] = field(default_factory=list)

    def _with(self, outcome: str) -> list[TopicRecord]:
        return [r for r in self.records if r.outcome == outcome]

    @property
    def committed(self) -> list[TopicRecord]:
        """Records a ``read_committed`` consumer sees."""
        return self._with("committed")

    @property
    def aborted(self) -> list[TopicRecord]:
        """Records of aborted transactions."""
        return self._with("aborted")

    @property
    def open(self) -> list[TopicRecord]:
        """Records at or past the last stable offset (their transaction is still open)."""
        return self._with("open")

    @property
    def committed_transactions(self) -> list[Transaction]:
        """Transactions that committed."""
        return [t for t in self.transactions if t.outcome == "committed"]

    @property
    def aborted_transactions(self) -> list[Transaction]:
        """Transactions that aborted."""
        return [t for t in self.transactions if t.outcome == "aborted"]

    def summary(self) -> str:
        """One line for an assertion message."""
        return (f"{len(self.committed)} committed records in {len(self.committed_transactions)} transactions, "
                f"{len(self.aborted)} aborted in {len(self.aborted_transactions)}, {len(self.open)} open")


def read_transactions(bootstrap: str, topic: str, timeout_s: float = 120.0,
                      settle_s: float = 30.0) -> TransactionReport:
    """Every record of ``topic`` up to its current end marked committed, aborted or open, and grouped
    into transactions.

    Transactions open at the end are first given up to ``settle_s`` to be decided (a task commits
    on its own schedule; ``settle_s=0`` takes the topic as it is). Then it reads the topic twice,
    ``read_uncommitted`` (every record) and ``read_committed`` (the visible ones): a record of the
    first read missing from the second was aborted, unless it lies at or past the partition's last
    stable offset (its transaction is still open). A transaction aborted before its records
    reached the broker leaves nothing to report. Each commit or abort
    marker takes an offset of its own, so a transaction is a run of consecutive offsets with one
    outcome. That grouping is exact for partitions written by one transactional producer at a time
    (a Connect source task); interleaved transactions of several producers on one partition, or a
    compacted topic, split runs differently, and non-transactional records run together as one
    "transaction" until the next gap.
    """
    ends = end_offsets(bootstrap, topic)
    deadline = time.monotonic() + settle_s
    while True:
        lso = stable_offsets(bootstrap, topic)
        if all(lso[p] >= ends[p] for p in ends) or time.monotonic() >= deadline:
            break
        time.sleep(0.2)
    every = sorted((r for r in _read(bootstrap, topic, "read_uncommitted", lambda: ends, timeout_s)
                    if r.offset < ends[r.partition]), key=lambda r: (r.partition, r.offset))
    visible = {(r.partition, r.offset)
               for r in _read(bootstrap, topic, "read_committed", lambda: lso, timeout_s)}
    report = TransactionReport()
    run: list[TopicRecord] = []

    def close_run() -> None:
        if run:
            report.transactions.append(Transaction(run[0].partition, run[0].outcome, tuple(run)))
            run.clear()

    for r in every:
        outcome: Literal["committed", "aborted", "open"]
        if r.offset >= lso.get(r.partition, 0):
            outcome = "open"
        else:
            outcome = "committed" if (r.partition, r.offset) in visible else "aborted"
        record = TopicRecord(r.partition, r.offset, r.key, r.value, outcome)
        report.records.append(record)
        if run and (run[-1].partition != r.partition or run[-1].offset + 1 != r.offset
                    or run[-1].outcome != outcome):
            close_run()
        run.append(record)
    close_run()
    return report
