"""Stand-ins for what the runtime hands a task, for unit tests with no broker and no worker.

For a plugin's unit tests: :class:`FakeTaskContext` (the task's context, built from plain values),
:class:`FakeOffsetStorageReader` (committed offsets given as ``(partition, offset)`` pairs) and
:class:`FakeTransactionContext` (records the commit and abort requests of a task run with
``transaction.boundary=connector``). Initialize a task with them and call ``start`` and ``poll``
directly::

    task = MySourceTask()
    task.initialize(FakeTaskContext(offsets=[({"file": "in.txt"}, {"position": 10})]))
    task.start(props)
    records = task.poll()

For the runtime's own task-loop tests: :class:`FakeProducer`, :class:`FakeStatusListener` and
:class:`FakeOffsetStore` record what a task loop did to them, in one shared list of events when given
one, so a test can assert the order across them (``"begin"`` before ``"FAILED"``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from connect_runtime.api import (
    OffsetStorageReader,
    SourceRecord,
    TransactionContext,
    freeze_partition,
)
from connect_runtime.types import ConnectorTaskId
from connect_runtime.worker.source_task_base import _TaskContext

#: A source partition or a source offset, as a task builds them.
SourceMap = Mapping[str, Any]


class FakeOffsetStorageReader(OffsetStorageReader):
    """Committed offsets from plain ``(source partition, source offset)`` pairs.

    ``commit`` adds or replaces one, e.g. to start a second task instance where the first one's last
    record left off.
    """

    def __init__(self, committed: Iterable[tuple[SourceMap, SourceMap]] = ()) -> None:
        self.committed: dict[Any, dict[str, Any]] = {}
        for partition, offset in committed:
            self.commit(partition, offset)

    def commit(self, partition: SourceMap, offset: SourceMap) -> None:
        """Make ``offset`` the committed offset of ``partition``."""
        self.committed[freeze_partition(partition)] = dict(offset)

    def offsets(self, partitions: Collection[SourceMap]) -> dict[Any, dict[str, Any] | None]:
        return {freeze_partition(p): self.committed.get(freeze_partition(p)) for p in partitions}


class FakeTransactionContext(TransactionContext):
    """Records a task's commit and abort requests, in order, and acts on none of them.

    ``requests`` holds ``("commit" | "abort", record or None)`` per call; ``commits`` and ``aborts``
    the record of each call of one kind (None: the whole batch). Records are the very objects the task
    passed, so ``ctx.commits == [batch[-1]]`` checks identity as the runtime does.
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, SourceRecord | None]] = []

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        self.requests.append(("commit", record))

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        self.requests.append(("abort", record))

    @property
    def commits(self) -> list[SourceRecord | None]:
        """The record of each commit request (None: commit after the batch)."""
        return [r for kind, r in self.requests if kind == "commit"]

    @property
    def aborts(self) -> list[SourceRecord | None]:
        """The record of each abort request (None: abort after the batch)."""
        return [r for kind, r in self.requests if kind == "abort"]


class FakeTaskContext(_TaskContext):
    """A source task's context without a worker: the runtime's own context class, built from plain values.

    ``offsets`` is a reader, or the committed ``(partition, offset)`` pairs for a
    :class:`FakeOffsetStorageReader` (the reader is ``self.offsets`` either way);
    ``transaction_context`` is what a task of a connector run with ``transaction.boundary=connector``
    gets (a :class:`FakeTransactionContext`, say), None otherwise.
    """

    def __init__(self, configs: Mapping[str, str] | None = None,
                 offsets: OffsetStorageReader | Iterable[tuple[SourceMap, SourceMap]] = (),
                 transaction_context: TransactionContext | None = None) -> None:
        self.offsets = offsets if isinstance(offsets, OffsetStorageReader) else FakeOffsetStorageReader(offsets)
        super().__init__(dict(configs or {}), self.offsets, transaction_context, None)


class FakeProducer:
    """A ``confluent_kafka.Producer`` for task-loop tests: every call succeeds at once.

    ``produced`` holds ``(topic, key, value)`` of every record; ``events`` gets ``"produce <topic>"``
    per record and ``"begin"``, ``"commit"`` and ``"abort"`` per transaction call. No delivery
    callback is ever called.
    """

    def __init__(self, events: list[str] | None = None) -> None:
        self.events: list[str] = [] if events is None else events
        self.produced: list[tuple[str, Any, Any]] = []

    def produce(self, topic: str, value: Any = None, key: Any = None, *args: Any, **kwargs: Any) -> None:
        self.produced.append((topic, key, value))
        self.events.append(f"produce {topic}")

    def sent_to(self, topic: str) -> list[tuple[Any, Any]]:
        """``(key, value)`` of every record produced to ``topic``."""
        return [(k, v) for t, k, v in self.produced if t == topic]

    def poll(self, timeout: float = 0) -> int:
        return 0

    def flush(self, timeout: float = 0) -> int:
        return 0

    def purge(self) -> None: ...

    def list_topics(self, timeout: float = -1) -> None: ...

    def init_transactions(self, timeout: float) -> None: ...

    def begin_transaction(self) -> None:
        self.events.append("begin")

    def commit_transaction(self, timeout: float) -> None:
        self.events.append("commit")

    def abort_transaction(self, timeout: float) -> None:
        self.events.append("abort")


class FakeStatusListener:
    """A task status listener that records the states a task loop reports.

    ``events`` gets ``"RUNNING"``, ``"PAUSED"``, ``"FAILED"`` and ``"UNASSIGNED"``; ``failures`` the
    ``(trace, transient)`` of each failure. ``active`` is the connector's live active-topics view
    (KIP-558), which ``on_topic_used`` extends and ``used`` records; ``track_topics=False`` is topic
    tracking off: no view, and a reported topic fails the test.
    """

    def __init__(self, events: list[str] | None = None, *, active: Iterable[str] = (),
                 track_topics: bool = True) -> None:
        self.events: list[str] = [] if events is None else events
        self.failures: list[tuple[str, bool]] = []
        self.active: dict[str, None] | None = dict.fromkeys(active) if track_topics else None
        self.used: list[str] = []

    def on_startup(self, task: ConnectorTaskId) -> None:
        self.events.append("RUNNING")

    def on_pause(self, task: ConnectorTaskId) -> None:
        self.events.append("PAUSED")

    def on_resume(self, task: ConnectorTaskId) -> None:
        self.events.append("RUNNING")

    def on_failure(self, task: ConnectorTaskId, trace: str, transient: bool = False) -> None:
        self.events.append("FAILED")
        self.failures.append((trace, transient))

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        self.events.append("UNASSIGNED")

    def active_topics(self, connector: str) -> Mapping[str, Any] | None:
        return self.active

    def on_topic_used(self, task: ConnectorTaskId, topic: str) -> None:
        assert self.active is not None, f"{topic} reported as used with topic tracking off"
        self.used.append(topic)
        self.active[topic] = None


class FakeOffsetStore:
    """A task's offsets store that stores nothing: every read is at its end at once.

    ``written`` holds the entries of every ``set`` call.
    """

    topic = "offsets"
    has_connector_store = False

    def __init__(self) -> None:
        self.written: list[Mapping[bytes, Any]] = []

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def read_to_end(self) -> Future[None]:
        done: Future[None] = Future()
        done.set_result(None)
        return done

    def write_tombstones_first(self, entries: Mapping[bytes, Any], timeout_s: float = 30.0) -> None: ...

    def mirror(self, entries: Mapping[bytes, Any]) -> None: ...

    def set(self, entries: Mapping[bytes, Any], producer: Any = None, timeout_s: float = 30.0) -> None:
        self.written.append(entries)
