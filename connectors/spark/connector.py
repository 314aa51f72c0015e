"""SparkSource: a source connector whose tasks hand ingestion to PySpark applications."""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Mapping
from typing import Any

from connect_runtime.api import (
    ConfigDef,
    ConfigValue,
    ConnectException,
    ExactlyOnceSupport,
    RetriableException,
    SourceConnector,
    SourceRecord,
    SourceTask,
)
from connectors.spark.application import SparkApplication
from connectors.spark.config import (
    CONFIG_DEF,
    CONTINUOUS,
    TASK_ID,
    TASK_SLOTS,
    SparkSourceSettings,
    environment_errors,
    validate_extra,
)
from connectors.spark.positions import FILE

logger = logging.getLogger(__name__)

VERSION = "0.1.0"
_POLL_WAIT_S = 0.5



def malformed_samples(samples: list[dict[str, Any]]) -> str:
    """The tail of the log line of skipped malformed rows: where they are (``errors.log.enable``) and, with
    ``errors.log.include.messages``, their text (the application sends it only then)."""
    if not samples:
        return ""
    return ": " + "; ".join(f"{s.get('file')} line {s.get('line')}"
                            + (f": {str(s['record'])[:200]!r}" if "record" in s else "") for s in samples)

class SparkSourceConnector(SourceConnector):
    """Reads files (or anything Spark reads) with PySpark and delivers every row into Kafka exactly once
    from the Spark executors; progress is stored as ordinary source offsets, one per file."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}
        self._settings: SparkSourceSettings | None = None

    def version(self) -> str:
        return VERSION

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, connector_configs: Mapping[str, str]) -> list[ConfigValue]:
        values = {cv.name: cv for cv in CONFIG_DEF.validate(connector_configs)}
        validate_extra(connector_configs, values)
        return list(values.values())

    def start(self, props: Mapping[str, str]) -> None:
        self._settings = SparkSourceSettings.parse(props)
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return SparkSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Slot ``s`` goes to task ``s mod n``; never more tasks than slots."""
        assert self._settings is not None
        count = max(1, min(max_tasks, self._settings.slots))
        return [{**self._props, TASK_ID: str(t),
                 TASK_SLOTS: ",".join(str(s) for s in range(t, self._settings.slots, count))}
                for t in range(count)]

    def stop(self) -> None:
        pass

    def exactly_once_support(self, connector_config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED

    def alter_offsets(self, connector_config: Mapping[str, str],
                      offsets: Mapping[tuple[tuple[str, Any], ...], dict[str, Any] | None]) -> bool:
        """Offsets are ``{"file": <uri>}`` -> ``{"rows": <n>}``: set rows to skip or re-deliver part of a
        file, or reset (DELETE) to re-ingest everything."""
        for partition, offset in offsets.items():
            fields = dict(partition)
            if set(fields) != {FILE} or not isinstance(fields[FILE], str):
                raise ConnectException(f'SparkSource partitions are {{"file": "<uri>"}}, not {fields}')
            if offset is not None and not (isinstance(offset.get("rows"), int) and offset["rows"] >= 0):
                raise ConnectException(f'SparkSource offsets are {{"rows": <rows of the file delivered>}}, '
                                       f"not {offset}")
        return True


class SparkSourceTask(SourceTask):
    """Runs one Spark application for its delivery slots; ``poll`` only watches it (the executors write
    the records), so it never returns records."""

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._app: SparkApplication | None = None
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        problems = environment_errors()
        if problems:
            raise ConnectException("; ".join(problems))
        self._props = dict(props)
        self._settings = SparkSourceSettings.parse(props)
        self._slots = [int(s) for s in props[TASK_SLOTS].split(",") if s]
        delivery = self.context.delegated_delivery
        if delivery is None:
            raise ConnectException("SparkSource needs a runtime that supports delegated delivery")
        self._delivery = delivery
        self._name = f"{delivery.connector}-task-{props.get(TASK_ID, '0')}"
        self._launch()

    def _launch(self) -> None:
        settings = self._settings
        spec = {"settings": settings.to_dict(), "delivery": self._delivery.to_json(), "slots": self._slots,
                "worker_pid": os.getpid()}
        app = SparkApplication(self._name, settings.master, settings.spark_conf, spec)
        with self._lock:
            if self._stopping.is_set():
                return
            self._app = app
            app.start()
        first = app.wait_started(settings.submit_timeout_ms / 1000, self._stopping)
        if first is None:
            if self._stopping.is_set():
                return
            raise self._failure(app, None)
        if first.get("event") == "error":
            raise self._failure(app, first)
        logger.info("Task %s runs Spark application %s (%s); Spark UI: %s", self._name, app.app_id,
                    settings.master, app.ui or "disabled")

    def poll(self) -> list[SourceRecord] | None:
        app = self._app
        if app is None:
            self._stopping.wait(_POLL_WAIT_S)
            return None
        try:
            event = app.events.get(timeout=_POLL_WAIT_S)
        except queue.Empty:
            event = None
        if event is not None:
            self._handle(app, event)
            return None
        code = app.exit_code()
        if code is not None and app.events.empty() and not self._stopping.is_set():
            if code == 0 and self._settings.mode != CONTINUOUS:
                logger.info("Task %s: Spark application %s finished; the task stays idle", self._name, app.app_id)
                self._stop_app()
                return None
            raise self._failure(app, None)
        return None

    def _handle(self, app: SparkApplication, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "error":
            raise self._failure(app, event)
        if kind == "delivered":
            logger.info("Task %s: %d rows delivered (%d already in Kafka skipped) from %d files in %d transactions "
                        "in %.1f s", self._name, event.get("rows", 0), event.get("skipped", 0),
                        event.get("files", 0), event.get("transactions", 0), event.get("seconds", 0.0))
        elif kind == "malformed":
            logger.warning("Task %s skipped %d malformed rows (errors.tolerance=all)%s", self._name,
                           event.get("count", 0), malformed_samples(event.get("samples", [])))
        elif kind == "file-changed":
            logger.warning("Task %s: %s", self._name, event.get("message"))
        elif kind == "done":
            logger.info("Task %s: every file of the input is delivered", self._name)

    def _failure(self, app: SparkApplication, event: dict[str, Any] | None) -> ConnectException:
        if event is not None:
            failure = ConnectException(f"Spark application {app.app_id or app.name} failed: "
                                       f"{event.get('message')}\n{event.get('trace', '')}")
            if event.get("transient"):
                # Kafka was unreachable: the runtime restarts the task (a new application) with backoff.
                failure.__cause__ = RetriableException(str(event.get("message")))
            return failure
        return ConnectException(f"Spark application {app.app_id or app.name} exited with code {app.exit_code()}. "
                                f"Last lines of spark-submit:\n{app.stderr_tail()}")

    def on_pause(self) -> None:
        self._stop_app()

    def on_resume(self) -> None:
        self._launch()

    def stop(self) -> None:
        """Called on the task's thread once ``poll`` has returned; the worker gives it
        ``task.shutdown.graceful.timeout.ms``, so it does not wait for Spark: the application is stopped
        (SIGTERM, then SIGKILL after a grace period) on a thread of its own."""
        self._stopping.set()
        with self._lock:
            app, self._app = self._app, None
        if app is not None:
            logger.info("Task %s: stopping Spark application %s", self._name, app.app_id or app.name)
            # Not a daemon: a worker shutting down waits for its applications to be gone.
            threading.Thread(target=app.stop, name=f"{self._name}-stop").start()

    def _stop_app(self) -> None:
        with self._lock:
            app, self._app = self._app, None
        if app is not None:
            logger.info("Task %s: stopping Spark application %s", self._name, app.app_id or app.name)
            app.stop()
