"""Executor side: one Spark partition per delivery slot writes its rows into Kafka exactly once.

Why this shape (see docs/spark.md):

* Every deliverer of a slot uses the slot's transactional id, so ``init_transactions()`` fences every
  older deliverer of the same files: a failed attempt Spark retries, a speculative twin, the
  application of a task that moved to another worker. Only the newest can commit.
* After fencing, the deliverer re-reads the slot's committed positions from where the driver stopped
  reading: whatever an older deliverer committed in between is skipped, never written twice.
* Rows reach the executor in file order (each file is read whole, in one partition), so a row's
  position is its index in its file. A transaction ends with the offsets records of the files it
  advanced, so a row is visible iff its position is committed (``read_committed``).
* Transactions are bounded in rows and bytes so that a large file never meets
  ``transaction.timeout.ms``.
* Only the driver marks a file complete (``eof``), once Spark reported that the partition that read it
  succeeded (:meth:`SlotDeliverer.close`): an attempt whose executor dies, or whose task is killed, can
  see its input end between two Arrow batches exactly as if it were complete.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import json
import logging
import re
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer

from connect_runtime.api import DataException, DelegatedDelivery
from connect_runtime.api.kafka_clients import (
    JAVA_COMPATIBLE_PARTITIONER,
    commit_transaction,
    init_transactions,
    kafka_error,
)
from connectors.spark.positions import FILE, FilePosition, PositionReader, canonical_uri, slot_of, transactional_id

logger = logging.getLogger(__name__)
#: librdkafka's log lines of the deliverers' producers, through Python logging rather than raw stderr.
_KAFKA_CLIENT_LOGGER = logging.getLogger(f"{__name__}.kafka_client")

#: The columns every delivery partition carries (built by the driver).
KEY, VALUE, PATH = "__key", "__value", "__file"
#: ``seen``: JSON of the rows of each file of the slot the attempt read (all of them if Spark reports it done).
SUMMARY_SCHEMA = "slot LONG, files LONG, rows LONG, skipped LONG, transactions LONG, seen STRING"
_COMMIT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class SlotPlan:
    """What one slot delivers in one Spark job: its files as listed, and where the driver read to."""

    slot: int
    #: uri -> (size, modified) of the listing this delivery is based on.
    files: dict[str, tuple[int, int]]
    #: uri -> rows already committed (as the driver read them).
    committed: dict[str, int]


@dataclass(frozen=True)
class DeliveryPlan:
    delivery: DelegatedDelivery
    topic: str
    slots_total: int
    transaction_rows: int
    transaction_bytes: int
    #: The primary offsets topic partitions the driver read to (the executors continue from there).
    offsets_start: dict[int, int]
    #: One per Spark partition, in partition order.
    slots: list[SlotPlan]
    #: Keys / values are JsonConverter envelopes with a schema: characters outside the Basic Multilingual
    #: Plane get Jackson's surrogate-pair escapes, which Spark's to_json does not write.
    escape_keys: bool = False
    escape_values: bool = False


#: Fenced by a newer producer with the slot's transactional id.
_FENCED = frozenset({KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH})
#: A newer deliverer that commits nothing for this long is presumed gone (a live one commits at least
#: every _MAX_TRANSACTION_S).
_TAKEOVER_S = 60.0
#: A transaction commits after this long even below its row and byte budgets, so that a slow input
#: never reaches transaction.timeout.ms and a watching twin sees progress.
_MAX_TRANSACTION_S = 10.0


class SlotTakenOver(Exception):
    """This attempt was fenced by a newer deliverer of its slot that then stopped making progress."""


class Stopped(Exception):
    """The executor was asked to stop (SIGTERM/SIGHUP): the open transaction is aborted."""


def deliver(plan: DeliveryPlan) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The ``mapInArrow`` function: deliver this partition's slot, yield one summary row.

    The slot is found from the partition's first row (Spark does not promise partition order across a
    union); a partition without rows yields nothing. The driver closes every slot's files afterwards."""

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa  # the spark extra's, and only executors need it

        first = next((b for b in batches if b.num_rows), None)
        if first is None:
            return
        uri = canonical_uri(first.column(PATH)[0].as_py())
        slot = next((s for s in plan.slots if s.slot == slot_of(uri, plan.slots_total)), None)
        if slot is None:
            raise DataException(f"Spark returned rows of {uri}, which no slot of this task delivers")
        summary = SlotDeliverer(plan, slot).run(itertools.chain([first], batches))
        yield pa.RecordBatch.from_pylist([summary])

    return run


class SlotDeliverer:
    def __init__(self, plan: DeliveryPlan, slot: SlotPlan) -> None:
        self._plan = plan
        self._slot = slot
        self._producer: Producer | None = None
        self._delivery_error: str | None = None

    def run(self, batches: Iterator[Any]) -> dict[str, Any]:
        """Deliver the rows of ``batches`` (this slot's partition), every file up to its last row, but
        mark none complete: the input may have ended early without an error (see :meth:`close`)."""
        return self._as_only_deliverer(lambda producer, committed: self._deliver(producer, committed, batches))

    def close(self, seen: Mapping[str, int]) -> dict[str, Any]:
        """The driver's last step of a slot, once Spark reported its partition done (or it had no rows):
        ``seen`` holds every row of each file, all delivered, so write each file's ``eof`` record."""
        return self._as_only_deliverer(lambda producer, committed: self._close(producer, committed, seen))

    def _as_only_deliverer(self, work: Callable[[Producer, dict[str, int]], dict[str, Any]]) -> dict[str, Any]:
        previous = _install_handlers(self._on_signal)
        try:
            producer = self._fence()
            committed = self._committed_after_fencing()
            return work(producer, committed)
        except KafkaException as e:
            err = kafka_error(e)
            if err is None or err.code() not in _FENCED:
                self._abort()
                raise
            self._producer = None  # fenced: nothing of ours is open any more
            self._watch_newer_deliverer()
            raise SlotTakenOver(f"Delivery slot {self._slot.slot} was taken over by a newer deliverer, which then "
                                f"made no progress for {_TAKEOVER_S:.0f} s; this attempt fails so that Spark "
                                "runs the slot again") from e
        except BaseException:
            self._abort()
            raise
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if self._producer is not None:
                self._producer.flush(5)

    def _watch_newer_deliverer(self) -> None:
        """A newer deliverer of this slot fenced us: a speculative twin, a retry Spark started while it
        thought we were lost, or the application of the task's new owner. Failing at once would make
        Spark retry the slot and fence the newer one in turn; succeeding would let Spark kill the newer
        one before it is done. So wait while its positions advance: when it finishes, Spark kills this
        attempt (its twin succeeded) or nobody needs it. If it stops advancing, it is gone: fail, and
        Spark's retry (a fresh read of the files) takes over."""
        plan, slot = self._plan, self._slot
        logger.info("Delivery slot %d: fenced by a newer deliverer; watching its progress", slot.slot)
        reader = PositionReader(plan.delivery, [(plan.delivery.offsets_topic, plan.delivery.offsets_consumer_config)])
        try:
            partitions = {reader.partition_of(uri) for uri in slot.files}
            last_progress = time.monotonic()
            while time.monotonic() - last_progress < _TAKEOVER_S:
                if any(uri in slot.files for uri in reader.read(120.0, partitions, plan.offsets_start)):
                    last_progress = time.monotonic()
                time.sleep(1.0)
        finally:
            reader.close()

    def _on_delivery_error(self, err: Any, msg: Any) -> None:
        if err is not None and self._delivery_error is None:
            self._delivery_error = f"{err.str()} (topic {msg.topic()})"

    def _on_signal(self, signum: int, frame: Any) -> None:
        raise Stopped(f"delivery slot {self._slot.slot} stopped by signal {signum}")

    def _fence(self) -> Producer:
        """Become the only deliverer of the slot: ``init_transactions`` fences every older one (and waits
        for their open transaction to be aborted or committed)."""
        conf: dict[str, Any] = dict(self._plan.delivery.producer_config)
        conf.setdefault("linger.ms", 20)
        conf.setdefault("queue.buffering.max.messages", 500000)
        conf.setdefault("acks", "all")
        conf["enable.idempotence"] = True
        conf["transactional.id"] = transactional_id(self._plan.delivery, self._slot.slot)
        # Only failed records get a report (no per-record callback); the first one explains a failed commit.
        conf["delivery.report.only.error"] = True
        conf["on_delivery"] = self._on_delivery_error
        # Keys land where a Java producer (and the runtime's) puts them, unless the operator chose otherwise.
        conf.setdefault("partitioner", JAVA_COMPATIBLE_PARTITIONER)
        conf.setdefault("logger", _KAFKA_CLIENT_LOGGER)
        producer = Producer(conf)
        self._producer = producer
        init_transactions(producer, 60)
        return producer

    def _committed_after_fencing(self) -> dict[str, int]:
        """The slot's positions including anything an older deliverer committed after the driver's read."""
        plan, slot = self._plan, self._slot
        committed = dict(slot.committed)
        reader = PositionReader(plan.delivery, [(plan.delivery.offsets_topic,
                                                 plan.delivery.offsets_consumer_config)])
        try:
            partitions = {reader.partition_of(uri) for uri in slot.files}
            for uri, position in reader.read(120.0, partitions, plan.offsets_start).items():
                if uri in slot.files:
                    committed[uri] = position.rows if position is not None else 0
        finally:
            reader.close()
        return committed

    def _deliver(self, producer: Producer, committed: dict[str, int], batches: Iterator[Any]) -> dict[str, Any]:
        import pyarrow.compute as pc  # the spark extra's, and only executors need it

        plan, slot = self._plan, self._slot
        topic = plan.topic
        produce = producer.produce
        seen: dict[str, int] = {}  # rows of each file passed so far in this pass
        advanced: dict[str, int] = {}  # files whose position moved in the open transaction
        txn_rows = txn_bytes = 0
        delivered = skipped = transactions = 0
        max_rows, max_bytes = plan.transaction_rows, plan.transaction_bytes
        producer.begin_transaction()
        txn_started = time.monotonic()
        for batch in batches:
            files = batch.column(PATH)
            runs = pc.run_end_encode(files)
            ends = runs.run_ends.to_pylist()
            names = runs.values.to_pylist()
            keys_col = batch.column(KEY)
            values = batch.column(VALUE).to_pylist()
            keys = keys_col.to_pylist() if keys_col.null_count < len(keys_col) else None
            if plan.escape_values and _has_supplementary(batch.column(VALUE)):
                values = [escape_supplementary(v) for v in values]
            if keys is not None and plan.escape_keys and _has_supplementary(keys_col):
                keys = [escape_supplementary(k) for k in keys]
            lengths = pc.binary_length(batch.column(VALUE))
            if keys is not None:
                lengths = pc.add(lengths, pc.fill_null(pc.binary_length(keys_col), 0))
            cumulative = pc.cumulative_sum(lengths).to_pylist()
            start = 0
            for name, end in zip(names, ends, strict=True):
                uri = _known(name, slot.files)
                first = seen.get(uri, 0)
                seen[uri] = first + (end - start)
                # Rows of this run at positions below the committed one are already in Kafka (possibly all
                # of them: the committed position can lie beyond this run).
                lo = start + min(end - start, max(0, committed.get(uri, 0) - first))
                skipped += lo - start
                i = lo
                while i < end:
                    hi = min(end, i + max_rows - txn_rows)
                    before = cumulative[i - 1] if i else 0
                    # The rows that fit in the byte budget; always at least one.
                    hi = max(i + 1, bisect.bisect_right(cumulative, before + max_bytes - txn_bytes, i, hi))
                    txn_bytes += cumulative[hi - 1] - before
                    _produce_range(producer, produce, topic, keys, values, i, hi)
                    txn_rows += hi - i
                    delivered += hi - i
                    advanced[uri] = first + (hi - start)
                    i = hi
                    if txn_rows >= max_rows or txn_bytes >= max_bytes or \
                            time.monotonic() - txn_started >= _MAX_TRANSACTION_S:
                        self._commit(producer, advanced, eof=set())
                        transactions += 1
                        advanced = {}
                        txn_rows = txn_bytes = 0
                        producer.begin_transaction()
                        txn_started = time.monotonic()
                start = end
        for uri in slot.files:
            _check_not_shrunk(uri, seen.get(uri, 0), committed.get(uri, 0))
        if advanced:
            self._commit(producer, advanced, eof=set())
            transactions += 1
        else:
            producer.abort_transaction(10)  # empty
        return {"slot": slot.slot, "files": len(slot.files), "rows": delivered, "skipped": skipped,
                "transactions": transactions, "seen": json.dumps({uri: seen.get(uri, 0) for uri in slot.files})}

    def _close(self, producer: Producer, committed: dict[str, int], seen: Mapping[str, int]) -> dict[str, Any]:
        """Every file of the slot gets its eof record, including files with no (new) rows."""
        slot = self._slot
        for uri in slot.files:
            rows, done = seen.get(uri, 0), committed.get(uri, 0)
            _check_not_shrunk(uri, rows, done)
            if rows > done:
                raise DataException(f"Slot {slot.slot}'s deliverer read {rows} rows of {uri} but only {done} are "
                                    "committed: the file is not marked complete (the task's next application "
                                    "delivers the rest)")
        producer.begin_transaction()
        self._commit(producer, {uri: seen.get(uri, 0) for uri in slot.files}, eof=set(slot.files))
        return {"slot": slot.slot, "files": len(slot.files), "rows": 0, "skipped": 0, "transactions": 1,
                "seen": json.dumps({uri: seen.get(uri, 0) for uri in slot.files})}

    def _commit(self, producer: Producer, advanced: dict[str, int], eof: set[str]) -> None:
        plan, slot = self._plan, self._slot
        offsets_topic = plan.delivery.offsets_topic
        for uri, rows in advanced.items():
            size, modified = slot.files[uri]
            position = FilePosition(rows, uri in eof, size, modified, plan.slots_total)
            key, value = plan.delivery.offset_record({FILE: uri}, position.as_offset())
            producer.produce(offsets_topic, value, key)
        try:
            commit_transaction(producer, _COMMIT_TIMEOUT_S)
        except KafkaException as e:
            if self._delivery_error is None:
                raise
            raise KafkaException(kafka_error(e)) from DataException(
                f"Slot {slot.slot} could not deliver to Kafka: {self._delivery_error}")

    def _abort(self) -> None:
        producer = self._producer
        if producer is None:
            return
        try:
            producer.abort_transaction(10)
        except KafkaException as e:
            err = kafka_error(e)
            logger.info("Could not abort slot %d's transaction (%s); it is aborted when the next deliverer "
                        "starts or after transaction.timeout.ms", self._slot.slot, err)


#: The lead bytes of 4-byte UTF-8 sequences: the characters beyond U+FFFF.
_SUPPLEMENTARY_LEAD = re.compile(rb"[\xf0-\xf4]")
_SUPPLEMENTARY = re.compile("[\U00010000-\U0010FFFF]")


def _has_supplementary(column: Any) -> bool:
    """Whether a binary Arrow column may hold such a character: one scan of its data buffer."""
    data = column.buffers()[2]
    return data is not None and _SUPPLEMENTARY_LEAD.search(memoryview(data)) is not None


def _surrogate_pair(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"


def escape_supplementary(json_bytes: bytes | None) -> bytes | None:
    """JSON text with each character beyond U+FFFF written as Jackson writes it to bytes, an escaped
    surrogate pair (``\\uD83D\\uDE00``); such characters only occur inside JSON strings."""
    if json_bytes is None or _SUPPLEMENTARY_LEAD.search(json_bytes) is None:
        return json_bytes
    return _SUPPLEMENTARY.sub(_surrogate_pair, json_bytes.decode("utf-8")).encode("utf-8")


def _check_not_shrunk(uri: str, rows: int, committed: int) -> None:
    if rows < committed:
        raise DataException(f"{uri} now has {rows} rows but {committed} were already delivered: it was rewritten or "
                            "truncated while being read")


def _known(name: str, files: dict[str, tuple[int, int]]) -> str:
    if name in files:
        return name
    uri = canonical_uri(name)
    if uri in files:
        return uri
    raise DataException(f"Spark returned rows of {name!r}, which is not one of this slot's files: each file must "
                        "be read whole in one partition (is transform.sql row by row?)")


def _produce_range(producer: Producer, produce: Callable[..., None], topic: str, keys: list[Any] | None,
                   values: list[Any], lo: int, hi: int) -> None:
    """Send rows ``lo:hi``; a full local queue waits for deliveries instead of failing."""
    i = lo
    while i < hi:
        try:
            if keys is None:
                for i in range(i, hi):  # noqa: B020 - resumes at the row that did not fit
                    produce(topic, values[i])
            else:
                for i in range(i, hi):  # noqa: B020
                    produce(topic, values[i], keys[i])
            i = hi
        except BufferError:
            producer.poll(0.05)
    producer.poll(0)


def _install_handlers(handler: Callable[[int, Any], None]) -> dict[int, Any]:
    """Stop (and abort the open transaction) on SIGTERM/SIGHUP: Spark's Python daemon sends SIGHUP to
    its workers when the executor goes away, and a stopped local application gets SIGTERM. Aborting
    at once keeps ``read_committed`` readers from waiting for ``transaction.timeout.ms``."""
    previous: dict[int, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError):  # not the main thread: Spark's own handling applies
            previous[sig] = signal.signal(sig, handler)
    return previous
