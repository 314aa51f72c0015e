"""JsonLinesSource: copies a JSON-lines file into a Kafka topic, exactly once, resuming where it stopped."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

from connect_runtime.api import (
    NO_DEFAULT,
    ConfigDef,
    ConfigException,
    ConfigType,
    ConnectException,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    Importance,
    Range,
    SourceConnector,
    SourceRecord,
    SourceTask,
    non_empty_string,
)

VERSION = "1.0.0"


def absolute_path(name: str, value: Any) -> None:
    """A validator: raise ConfigException(name, value, why) to reject a value."""
    if value is not None and not Path(value).is_absolute():
        raise ConfigException(name, value, "Must be an absolute path")


CONFIG_DEF = (
    ConfigDef()
    .define("file", ConfigType.STRING, NO_DEFAULT, absolute_path, Importance.HIGH,
            "The JSON-lines file to read, one JSON value per line.")
    .define("topic", ConfigType.STRING, NO_DEFAULT, non_empty_string, Importance.HIGH,
            "The topic to write the lines to.")
    .define("batch.size", ConfigType.INT, 500, Range.at_least(1), Importance.LOW,
            "The most lines one poll() returns.")
    .define("lines.per.transaction", ConfigType.INT, 100, Range.at_least(1), Importance.LOW,
            "With transaction.boundary=connector: commit a transaction after this many lines, "
            "and whenever the task has read to the end of the file.")
)


class JsonLinesSourceConnector(SourceConnector):
    """One task reads the whole file: a file is one source partition, read in order."""

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return JsonLinesSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.props)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport:
        # The offset (a byte position) says exactly which lines were delivered: resuming from it
        # neither repeats nor skips a line.
        return ExactlyOnceSupport.SUPPORTED

    def can_define_transaction_boundaries(
        self, connector_config: Mapping[str, str]
    ) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.SUPPORTED

    def alter_offsets(self, connector_config: Mapping[str, str],
                      offsets: Mapping[tuple[tuple[str, Any], ...], dict[str, Any] | None]) -> bool:
        # Offsets live in Kafka only: nothing to change elsewhere, but refuse what the task cannot use.
        for frozen, offset in offsets.items():
            if set(dict(frozen)) != {"file"}:
                raise ConnectException(f"Unknown source partition {dict(frozen)}: expected {{'file': path}}")
            if offset is not None and not (isinstance(offset.get("position"), int)
                                           and isinstance(offset.get("line"), int)):
                raise ConnectException(f"Offset {offset} needs integer 'position' and 'line'")
        return True


class JsonLinesSourceTask(SourceTask):
    """Reads lines after the committed byte position; the offset of a record is where the next line starts."""

    file: BinaryIO

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props)  # typed values: config["batch.size"] is an int
        self.topic: str = config["topic"]
        self.batch_size: int = config["batch.size"]
        self.lines_per_transaction: int = config["lines.per.transaction"]
        self.partition = {"file": config["file"]}
        committed = self.context.offset_storage_reader.offset(self.partition)
        self.position: int = committed["position"] if committed else 0
        self.line: int = committed["line"] if committed else 0
        self.uncommitted = 0  # lines sent since the last transaction this task asked to commit
        self.file = open(config["file"], "rb")  # noqa: SIM115 - closed in stop()
        self.file.seek(self.position)

    def poll(self) -> list[SourceRecord] | None:
        records: list[SourceRecord] = []
        transactions = self.context.transaction_context  # None unless transaction.boundary=connector
        while len(records) < self.batch_size:
            raw = self.file.readline()
            if not raw.endswith(b"\n"):  # end of file, or a line still being written: read it next time
                self.file.seek(self.position)
                if transactions is not None and self.uncommitted:
                    # Caught up: commit the tail now (after this batch). Left open while the file is
                    # quiet, the broker would abort it after transaction.timeout.ms and fail the task.
                    transactions.commit_transaction()
                    self.uncommitted = 0
                break
            self.position += len(raw)
            self.line += 1
            # A new dict per record: the runtime keeps a reference until the offset is committed.
            record = SourceRecord(self.partition, {"position": self.position, "line": self.line},
                                  self.topic, value=json.loads(raw))
            records.append(record)
            self.uncommitted += 1
            if transactions is not None and self.uncommitted == self.lines_per_transaction:
                transactions.commit_transaction(record)
                self.uncommitted = 0
        if not records:
            time.sleep(0.2)  # nothing new: wait a little, but return so that the task can be stopped
            return None
        return records

    def stop(self) -> None:
        self.file.close()  # called once, on this thread, after the last poll() returned
