"""The worker ⇄ task-process protocol: every message the pipe carries, its encoding, and who answers it.

Kept in one module, as Java's ``ConnectProtocol`` keeps every schema of a protocol with its
serialise/parse pair in one class: each message is a frozen dataclass, :data:`MESSAGES` says which side
sends it and which method of the other side's handler (:class:`WorkerEnd`, :class:`TaskEnd`) receives
it, and both ends encode, decode and dispatch through that one table. A message an end does not know,
or one sent the wrong way, is an :class:`UnknownMessage` error at once rather than a silent drop.

Three shapes of message:

- notifications from the task (:class:`Note`): statuses and topics first written, in the order the task
  loop produces them, plus the process's own start-up result and goodbye, and its metrics once a second;
- commands from the worker (also :class:`Note`): stop, and target-state changes (pause / resume);
- calls from the task (:class:`Call`), answered by the worker with a result or an error: what needs the
  cluster or the stores (fencing, the generation check, offsets reads and at-least-once writes).

Records never cross the pipe, so the per-record path has no IPC, and each call is one round trip.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from connect_runtime.api.errors import ConnectException
from connect_runtime.api.record import SourceMap
from connect_runtime.storage.offset_backing_store import OffsetEntries
from connect_runtime.types import ConnectorTaskId, TargetState
from connect_runtime.worker.task_metrics import TaskMetricsReport

R = TypeVar("R")


class Note:
    """A message the receiver handles without answering."""

    __slots__ = ()


class Call(Generic[R]):
    """A message the receiver answers with an ``R`` (or an error the caller raises)."""

    __slots__ = ()


Message = Note | Call[Any]


class UnknownMessage(ConnectException):
    """A message that is not in :data:`MESSAGES`, is malformed, or was sent by the side receiving it."""


class Side(enum.Enum):
    """The two ends of the pipe."""

    WORKER = "worker"
    TASK = "task process"


# -- task → worker: notifications ------------------------------------------------------------------
class Lifecycle(enum.Enum):
    """A step of a task's life the worker records as its status (FAILED is :class:`TaskFailed`)."""

    STARTED = "started"  # the task's start() returned: RUNNING
    PAUSED = "paused"
    RESUMED = "resumed"
    SHUT_DOWN = "shut down"  # stopped in order: UNASSIGNED


@dataclass(frozen=True, slots=True)
class StatusChanged(Note):
    task: ConnectorTaskId
    change: Lifecycle


@dataclass(frozen=True, slots=True)
class TaskFailed(Note):
    """FAILED with its trace; ``transient`` when Kafka was unavailable (the runtime may restart it)."""

    task: ConnectorTaskId
    trace: str
    transient: bool


@dataclass(frozen=True, slots=True)
class TopicUsed(Note):
    """The task produced to a topic that was not among its connector's active topics."""

    task: ConnectorTaskId
    topic: str


@dataclass(frozen=True, slots=True)
class TaskBuilt(Note):
    """The process built the task; ``version`` is what its ``version()`` returned."""

    version: str | None


@dataclass(frozen=True, slots=True)
class TaskBuildFailed(Note):
    """The process could not build the task (plugins, converters, producer); it ends after this."""

    trace: str
    transient: bool


@dataclass(frozen=True, slots=True)
class TaskClosed(Note):
    """The task loop ended and the process is about to exit: an end the worker need not report."""

    failed: bool


@dataclass(frozen=True, slots=True)
class OffsetsMirrored(Note):
    """Offsets the task's producer wrote to the connector's own topic, for the worker's copy on its topic."""

    entries: OffsetEntries


@dataclass(frozen=True, slots=True)
class MetricsReported(Note):
    """What the task's metrics read now: sent once a second while the task runs, and once when it ends."""

    report: TaskMetricsReport


# -- task → worker: calls --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FenceZombies(Call[None]):
    """Fence the producers of the connector's previous task generation (exactly-once start-up)."""


@dataclass(frozen=True, slots=True)
class VerifyGeneration(Call[None]):
    """Fail if the task's configs changed or it was revoked while it was starting up."""


@dataclass(frozen=True, slots=True)
class StartOffsets(Call[None]):
    """Start the connector's offsets store the worker keeps for the task."""


@dataclass(frozen=True, slots=True)
class ReadOffsetsToEnd(Call[None]):
    """Read the offsets store to its end."""


@dataclass(frozen=True, slots=True)
class GetOffsets(Call[Mapping[Any, "dict[str, Any] | None"]]):
    """The committed offsets of ``partitions`` (the task's ``OffsetStorageReader``)."""

    partitions: tuple[SourceMap, ...]


@dataclass(frozen=True, slots=True)
class WriteTombstonesFirst(Call[None]):
    """Write the tombstones among ``entries`` to the worker's offsets topic before the task's commit."""

    entries: OffsetEntries
    timeout_s: float


@dataclass(frozen=True, slots=True)
class SetOffsets(Call[None]):
    """Write ``entries`` through the worker's producer (an at-least-once flush)."""

    entries: OffsetEntries
    timeout_s: float


# -- worker → task: commands -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StopTask(Note):
    """Stop: the task makes its final commit and the process exits."""


@dataclass(frozen=True, slots=True)
class ChangeTargetState(Note):
    """Pause or resume the task."""

    state: TargetState


class WorkerEnd(Protocol):
    """What the worker's handle on a task process receives; one method per message the task sends."""

    def status_changed(self, message: StatusChanged) -> None: ...

    def task_failed(self, message: TaskFailed) -> None: ...

    def topic_used(self, message: TopicUsed) -> None: ...

    def task_built(self, message: TaskBuilt) -> None: ...

    def task_build_failed(self, message: TaskBuildFailed) -> None: ...

    def task_closed(self, message: TaskClosed) -> None: ...

    def offsets_mirrored(self, message: OffsetsMirrored) -> None: ...

    def metrics_reported(self, message: MetricsReported) -> None: ...

    def fence_zombies(self, message: FenceZombies) -> None: ...

    def verify_generation(self, message: VerifyGeneration) -> None: ...

    def start_offsets(self, message: StartOffsets) -> None: ...

    def read_offsets_to_end(self, message: ReadOffsetsToEnd) -> None: ...

    def get_offsets(self, message: GetOffsets) -> Mapping[Any, dict[str, Any] | None]: ...

    def write_tombstones_first(self, message: WriteTombstonesFirst) -> None: ...

    def set_offsets(self, message: SetOffsets) -> None: ...


class TaskEnd(Protocol):
    """What the task process receives; one method per command the worker sends."""

    def stop_task(self, message: StopTask) -> None: ...

    def change_target_state(self, message: ChangeTargetState) -> None: ...


@dataclass(frozen=True, slots=True)
class MessageKind:
    """One row of the table: a message type, its tag on the wire, who sends it, who receives it how."""

    message: type[Message]
    sender: Side
    #: The tag on the wire, and the name of the receiving end's method (on :class:`WorkerEnd` when the
    #: task sends it, on :class:`TaskEnd` when the worker does).
    handler: str


#: Every message of the protocol. Adding one: its dataclass, its row here, its method on the receiver.
MESSAGES: tuple[MessageKind, ...] = (
    MessageKind(StatusChanged, Side.TASK, "status_changed"),
    MessageKind(TaskFailed, Side.TASK, "task_failed"),
    MessageKind(TopicUsed, Side.TASK, "topic_used"),
    MessageKind(TaskBuilt, Side.TASK, "task_built"),
    MessageKind(TaskBuildFailed, Side.TASK, "task_build_failed"),
    MessageKind(TaskClosed, Side.TASK, "task_closed"),
    MessageKind(OffsetsMirrored, Side.TASK, "offsets_mirrored"),
    MessageKind(MetricsReported, Side.TASK, "metrics_reported"),
    MessageKind(FenceZombies, Side.TASK, "fence_zombies"),
    MessageKind(VerifyGeneration, Side.TASK, "verify_generation"),
    MessageKind(StartOffsets, Side.TASK, "start_offsets"),
    MessageKind(ReadOffsetsToEnd, Side.TASK, "read_offsets_to_end"),
    MessageKind(GetOffsets, Side.TASK, "get_offsets"),
    MessageKind(WriteTombstonesFirst, Side.TASK, "write_tombstones_first"),
    MessageKind(SetOffsets, Side.TASK, "set_offsets"),
    MessageKind(StopTask, Side.WORKER, "stop_task"),
    MessageKind(ChangeTargetState, Side.WORKER, "change_target_state"),
)

_BY_TYPE: dict[type[Any], MessageKind] = {kind.message: kind for kind in MESSAGES}
_BY_TAG: dict[str, MessageKind] = {kind.handler: kind for kind in MESSAGES}

#: A message on the wire: its tag, then its fields in order.
Encoded = tuple[Any, ...]


def kind_of(message: object, sender: Side) -> MessageKind:
    """The table's row for ``message`` sent by ``sender``; :class:`UnknownMessage` if there is none."""
    kind = _BY_TYPE.get(type(message))
    if kind is None:
        raise UnknownMessage(f"{type(message).__name__} is not a message of the task protocol")
    if kind.sender is not sender:
        raise UnknownMessage(f"{type(message).__name__} is sent by the {kind.sender.value}, not by the {sender.value}")
    return kind


def encode(message: Message, sender: Side) -> Encoded:
    """``message`` as it crosses the pipe: its tag, then its fields (pickled by the pipe)."""
    kind = kind_of(message, sender)
    return (kind.handler, *(getattr(message, f.name) for f in dataclasses.fields(message)))  # type: ignore[arg-type]


def decode(encoded: Encoded, sender: Side) -> Message:
    """The message :func:`encode` made; :class:`UnknownMessage` for a tag or shape it does not know."""
    tag = encoded[0] if encoded else None
    kind = _BY_TAG.get(tag) if isinstance(tag, str) else None
    if kind is None:
        raise UnknownMessage(f"Unknown message {tag!r} from the {sender.value}")
    if kind.sender is not sender:
        raise UnknownMessage(f"{tag!r} is sent by the {kind.sender.value}, not by the {sender.value}")
    try:
        return kind.message(*encoded[1:])
    except TypeError as e:
        raise UnknownMessage(f"Malformed message {tag!r} from the {sender.value}: {e}") from e


def dispatch(receiver: WorkerEnd | TaskEnd, message: Message, sender: Side) -> Any:
    """Hand ``message`` to the method of ``receiver`` the table names; returns what it returns."""
    return getattr(receiver, kind_of(message, sender).handler)(message)
