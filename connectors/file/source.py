"""The FileStreamSource connector and task."""

from __future__ import annotations

import logging
import os
import select
import threading
import time
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigType,
    ConnectException,
    ExactlyOnceSupport,
    Importance,
    Range,
    SourceConnector,
    SourceRecord,
    SourceTask,
    non_empty_string,
    runtime_version,
)

logger = logging.getLogger(__name__)

FILE_CONFIG = "file"
TOPIC_CONFIG = "topic"
TASK_BATCH_SIZE_CONFIG = "batch.size"
DEFAULT_TASK_BATCH_SIZE = 2000

#: Source partition and offset field names, as the Java connector writes them.
FILENAME_FIELD = "filename"
POSITION_FIELD = "position"

#: Bytes asked of the OS per read: lines are split in user space, never one syscall per line.
_READ_SIZE = 64 * 1024
#: At most this much is read in one poll, so a poll stays short even on a huge backlog.
_MAX_READ_PER_POLL = 1024 * 1024
#: Standard input's file descriptor (read when ``file`` is not set).
_STDIN_FD = 0
#: How long an idle poll waits for the file to grow (or to appear); stop() ends the wait at once.
_IDLE_WAIT_S = 0.5

CONFIG_DEF = (
    ConfigDef()
    .define(FILE_CONFIG, ConfigType.STRING, None, importance=Importance.HIGH,
            documentation="Source filename. If not specified, the standard input will be used")
    .define(TOPIC_CONFIG, ConfigType.STRING, NO_DEFAULT, non_empty_string, importance=Importance.HIGH,
            documentation="The topic to publish data to")
    # At least 1: a batch of 0 lines would never advance while the task reports RUNNING.
    .define(TASK_BATCH_SIZE_CONFIG, ConfigType.INT, DEFAULT_TASK_BATCH_SIZE, Range.at_least(1),
            importance=Importance.LOW,
            documentation="The maximum number of records the source task can read from the file each time it "
                          "is polled")
)


def _filename(props: Mapping[str, str]) -> str | None:
    name: str | None = CONFIG_DEF.parse(props)[FILE_CONFIG]
    return name or None


class FileStreamSourceConnector(SourceConnector):
    """Reads one file (or standard input when ``file`` is not set) with a single task.

    Exactly-once capable when reading a real file that is only appended to; standard input has no
    offsets, so exactly-once is unsupported for it.
    """

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return runtime_version()

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        logger.info("Starting file source connector reading from %s", _filename(props) or "standard input")

    def task_class(self) -> type[SourceTask]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        # Only one reader of a stream makes sense.
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        # Offsets are byte positions in the file: a restart resumes exactly after the last committed
        # line as long as the file is only appended to. Standard input cannot be re-read.
        if _filename(connector_config):
            return ExactlyOnceSupport.SUPPORTED
        return ExactlyOnceSupport.UNSUPPORTED

    def alter_offsets(
        self,
        connector_config: Mapping[str, str],
        offsets: Mapping[tuple[tuple[str, Any], ...], dict[str, Any] | None],
    ) -> bool:
        if not _filename(connector_config):
            raise ConnectException(
                f"Offsets cannot be modified if the '{FILE_CONFIG}' configuration is unspecified. This is because "
                "stdin is used for input and offsets are not tracked.")
        # Partitions from earlier configurations (other files) may be present too: each is checked.
        for partition, offset in offsets.items():
            if offset is None:
                # Tombstones are always allowed, so garbage in the offsets can be cleaned up.
                continue
            if POSITION_FIELD not in offset:
                raise ConnectException(f"Offset objects should either be null or contain the key '{POSITION_FIELD}'")
            position = offset[POSITION_FIELD]
            if not isinstance(position, int) or isinstance(position, bool):
                raise ConnectException(
                    f"The value for the '{POSITION_FIELD}' key in the offset is expected to be a Long value")
            if position < 0:
                raise ConnectException(
                    f"The value for the '{POSITION_FIELD}' key in the offset should be a non-negative value")
            if partition is None:
                raise ConnectException("Partition objects cannot be null")
            if FILENAME_FIELD not in dict(partition):
                raise ConnectException(f"Partition objects should contain the key '{FILENAME_FIELD}'")
        # The task checks on start-up whether the position fits the configured file.
        return True


class FileStreamSourceTask(SourceTask):
    """Emits each complete line (ended by ``\\n``, ``\\r\\n`` or ``\\r``) as a string value with a null
    key. The offset of a record is the byte position just after its line ending; a line still being
    written (no ending yet) waits for its ending."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        # Held while reading and while closing, so stop() never closes the descriptor under a read.
        self._io_lock = threading.Lock()
        self._filename: str | None = None
        self._fd: int | None = None
        self._position: int | None = None  # byte position of the start of self._buffer; None for stdin
        self._buffer = b""
        self._ready: list[SourceRecord] = []
        self._partition: dict[str, Any] = {}
        self._missing_logged = False

    def version(self) -> str:
        return runtime_version()

    def start(self, props: Mapping[str, str]) -> None:
        cfg = CONFIG_DEF.parse(props)
        self._filename = cfg[FILE_CONFIG] or None
        self._topic: str = cfg[TOPIC_CONFIG]
        self._batch_size: int = cfg[TASK_BATCH_SIZE_CONFIG]
        # One partition object for every record: the runtime serializes its key once.
        self._partition = {FILENAME_FIELD: self._filename}
        if self._filename is None:
            self._fd = _STDIN_FD  # offsets are not tracked
            self._position = None

    def _open(self) -> bool:
        """Open the file at its committed position; False when it does not exist yet."""
        assert self._filename is not None
        try:
            fd = os.open(self._filename, os.O_RDONLY)
        except FileNotFoundError:
            if not self._missing_logged:
                logger.warning("Couldn't find file %s for FileStreamSourceTask, waiting for it to be created",
                               self._filename)
                self._missing_logged = True
            return False
        except OSError as e:
            raise ConnectException(f"Error while trying to open file {self._filename}: {e}") from e
        try:
            stored = self.context.offset_storage_reader.offset(self._partition)
            position = stored.get(POSITION_FIELD) if stored else None
            if position is not None and (not isinstance(position, int) or isinstance(position, bool)):
                raise ConnectException("Offset position is the incorrect type")
            self._position = position or 0
            if self._position:
                logger.debug("Found previous offset, skipping to file offset %d", self._position)
                os.lseek(fd, self._position, os.SEEK_SET)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        logger.debug("Opened %s for reading", self._filename)
        return True

    def poll(self) -> list[SourceRecord] | None:
        if self._ready:
            return self._take_ready()
        with self._io_lock:
            if self._stop.is_set():
                return None
            if self._fd is None and not self._open():
                opened = False
            else:
                opened = True
                self._read()
        if not opened or not self._ready:
            self._stop.wait(_IDLE_WAIT_S)
            return None
        return self._take_ready()

    def _take_ready(self) -> list[SourceRecord]:
        if len(self._ready) <= self._batch_size:
            batch, self._ready = self._ready, []
        else:
            batch, self._ready = self._ready[:self._batch_size], self._ready[self._batch_size:]
        return batch

    def _read(self) -> None:
        """Read what is available (up to a cap) and turn complete lines into records."""
        fd = self._fd
        assert fd is not None
        stdin = self._filename is None
        chunks = [self._buffer] if self._buffer else []
        total = 0
        while total < _MAX_READ_PER_POLL:
            if stdin and not select.select([fd], [], [], 0)[0]:
                break  # nothing more without blocking
            try:
                data = os.read(fd, _READ_SIZE)
            except OSError as e:
                raise ConnectException(f"Error while reading {self._filename or 'stdin'}: {e}") from e
            if not data:
                break
            chunks.append(data)
            total += len(data)
            if stdin:
                break  # a pipe may have more only after another select
        if not total:
            return
        buf = b"".join(chunks)
        lines = buf.splitlines(keepends=True)  # bytes split on \n, \r\n and \r only
        last = lines[-1]
        # A last piece with no ending is incomplete; one ending in a lone \r may yet become \r\n.
        if not last.endswith(b"\n"):
            self._buffer = lines.pop()
        else:
            self._buffer = b""
        if not lines:
            return
        topic, partition, position = self._topic, self._partition, self._position
        now_ms = int(time.time() * 1000)
        ready = self._ready
        for line in lines:
            end = len(line) - (2 if line.endswith(b"\r\n") else 1)
            text = line[:end].decode("utf-8", "replace")
            if position is not None:
                position += len(line)
            ready.append(SourceRecord(partition, {POSITION_FIELD: position}, topic, None, None, text,
                                      timestamp=now_ms))
        self._position = position

    def stop(self) -> None:
        self._stop.set()
        with self._io_lock:
            if self._fd is not None and self._filename is not None:
                os.close(self._fd)
            self._fd = None
