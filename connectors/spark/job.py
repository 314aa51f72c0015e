"""The Spark application a SparkSource task launches (``spark-submit job.py <spec.json>``).

The driver lists the task's input files, reads their committed positions, and runs one Spark job per
round: one partition per delivery slot with work, read whole files in a stable order, apply
``transform.sql``, turn rows into JSON key/value bytes inside the JVM, and hand them to
:mod:`connectors.spark.delivery` on the executors. In batch mode it runs one round and exits; in
continuous mode it lists the input again every ``poll.interval.ms`` until it is stopped.

It talks to its task through stdout: one JSON event per line, prefixed with :data:`EVENT_PREFIX`
(Spark's own logs go to stderr). It exits when the worker that launched it is gone.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError

from connect_runtime.api import DelegatedDelivery
from connect_runtime.api.kafka_clients import is_transient_code
from connectors.spark.config import JSON_CONVERTERS, SparkSourceSettings
from connectors.spark.delivery import KEY, PATH, SUMMARY_SCHEMA, VALUE, DeliveryPlan, SlotDeliverer, SlotPlan, deliver
from connectors.spark.positions import PositionReader, canonical_uri, slot_of
from connectors.spark.schemas import envelope_json

# pyspark is imported where it is used: the worker imports this module (for its constants) whether or
# not the spark extra is installed, and only the driver needs it.

EVENT_PREFIX = "@@spark-source "
#: Spark reads each file whole in its own scan partition: rows keep their file order, and a row's
#: index in its partition is its index in its file.
NO_SPLIT = str(1 << 62)
CORRUPT = "__corrupt_record"
ROW = "__row_in_file"
#: How many slots the driver closes at once after a round.
_CLOSING_THREADS = 16


def emit(event: str, **fields: Any) -> None:
    print(EVENT_PREFIX + json.dumps({"event": event, **fields}), flush=True)


@dataclass
class Listing:
    size: int
    modified: int


def _watch_worker(pid: int) -> None:
    """Exit when the Connect worker that launched this application is gone (its task cannot stop us
    any more); the JVM and executors follow."""
    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                print("The Connect worker is gone; stopping the application", file=sys.stderr, flush=True)
                os._exit(3)
            except PermissionError:
                pass
    threading.Thread(target=watch, name="worker-watch", daemon=True).start()


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    _watch_worker(int(spec["worker_pid"]))
    try:
        return Driver(spec).run()
    except Exception as e:
        trace = traceback.format_exc()
        emit("error", message=_one_line(e), trace=trace, transient=_transient(e, trace))
        return 1


def _transient(error: BaseException, trace: str) -> bool:
    """Whether the application failed because Kafka was unreachable or moving (the task is then
    restarted with backoff, as the runtime restarts any task that failed that way). Executor errors
    reach the driver as text, so the Kafka error codes are read from the trace."""
    if isinstance(error, TimeoutError):
        return True
    codes = [getattr(KafkaError, name, None) for name in re.findall(r"KafkaError\{code=(\w+)", trace)]
    return bool(codes) and all(c is not None and is_transient_code(c) for c in codes)


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    # Py4J errors start with a generic line; the Python or Java reason follows.
    for line in text:
        if "DataException" in line or "Malformed" in line or "Exception:" in line or "Error:" in line:
            return line.strip()[:1000]
    return (text[0] if text else type(e).__name__)[:1000]


class Driver:
    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec
        self.settings = SparkSourceSettings(**spec["settings"])
        self.delivery = DelegatedDelivery.from_json(spec["delivery"])
        self.owned = set(int(s) for s in spec["slots"])
        self.reported: set[str] = set()
        self.previous: dict[str, Listing] = {}

    def run(self) -> int:
        from pyspark.sql import SparkSession

        _check_converters(self.delivery)
        spark = SparkSession.builder.getOrCreate()
        sc = spark.sparkContext
        emit("started", app_id=sc.applicationId, ui=sc.uiWebUrl, master=sc.master)
        reader = PositionReader.for_driver(self.delivery)
        reader.check_topic(self.settings.topic)
        committed = {uri: p for uri, p in reader.read().items() if p is not None}
        self._check_slots(committed)
        try:
            while True:
                started = time.monotonic()
                listing = self.list_files(spark)
                work = self.plan(listing, committed)
                if work:
                    self.deliver(spark, work, reader.end_offsets())
                if self.settings.mode != "continuous":
                    emit("done", files=len(listing))
                    return 0
                self.previous = listing
                time.sleep(max(0.0, self.settings.poll_interval_ms / 1000 - (time.monotonic() - started)))
                for uri, p in reader.read().items():
                    if p is None:
                        committed.pop(uri, None)
                    else:
                        committed[uri] = p
        finally:
            reader.close()
            spark.stop()

    def _check_slots(self, committed: Mapping[str, Any]) -> None:
        recorded = {p.slots for p in committed.values() if p.slots}
        if recorded and recorded != {self.settings.slots}:
            raise ValueError(
                f"spark.delivery.slots is {self.settings.slots} but this connector's offsets were written with "
                f"{', '.join(map(str, sorted(recorded)))}: the value is fixed when the connector is created. Set it "
                "back, or reset the connector's offsets (DELETE /connectors/<name>/offsets) to re-ingest")

    # -- listing ------------------------------------------------------------------------------------
    def list_files(self, spark: Any) -> dict[str, Listing]:
        """Every file the task owns under source.path: canonical URI -> size and modification time."""
        jvm = spark.sparkContext._jvm
        conf = spark.sparkContext._jsc.hadoopConfiguration()
        found: dict[str, Listing] = {}
        missing = []
        for pattern in self.settings.source_paths:
            path = jvm.org.apache.hadoop.fs.Path(pattern)
            fs = path.getFileSystem(conf)
            statuses = fs.globStatus(path)
            if not statuses:
                missing.append(pattern)
                continue
            for status in statuses:
                if status.isDirectory():
                    root = status.getPath().toUri().getPath().rstrip("/")
                    files = fs.listFiles(status.getPath(), True)
                    while files.hasNext():
                        f = files.next()
                        relative = f.getPath().toUri().getPath()[len(root):]
                        if any(part.startswith(("_", ".")) for part in relative.split("/") if part):
                            continue
                        found[canonical_uri(f.getPath().toUri().toString())] = Listing(f.getLen(),
                                                                                        f.getModificationTime())
                else:
                    found[canonical_uri(status.getPath().toUri().toString())] = Listing(
                        status.getLen(), status.getModificationTime())
        if missing and self.settings.mode != "continuous":
            raise FileNotFoundError(f"Path does not exist or matches no file: {', '.join(missing)}")
        slots = self.settings.slots
        return {uri: listing for uri, listing in found.items() if slot_of(uri, slots) in self.owned}

    # -- planning -----------------------------------------------------------------------------------
    def plan(self, listing: Mapping[str, Listing], committed: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
        """Which files each slot delivers this round: new files, unfinished files, grown files."""
        continuous = self.settings.mode == "continuous"
        now_ms = int(time.time() * 1000)
        settle_ms = self.settings.poll_interval_ms
        work: dict[int, dict[str, Any]] = {}
        for uri, listed in sorted(listing.items()):
            position = committed.get(uri)
            if position is not None and position.eof:
                if listed.size == position.size and listed.modified == position.modified:
                    continue
                if listed.size <= position.size:
                    self._report(uri, f"{uri} changed after it was delivered (size {position.size} -> {listed.size}, "
                                      f"modified {position.modified} -> {listed.modified}): it was truncated or "
                                      "rewritten, so it is not read again. Write new files instead; reset its "
                                      "offset to re-ingest it")
                    continue
            if continuous:
                before = self.previous.get(uri)
                stable = before is not None and before.size == listed.size and before.modified == listed.modified
                if not stable and now_ms - listed.modified < settle_ms:
                    continue  # still being written: wait until it stops changing
            slot = slot_of(uri, self.settings.slots)
            entry = work.setdefault(slot, {"files": {}, "committed": {}})
            entry["files"][uri] = (listed.size, listed.modified)
            entry["committed"][uri] = position.rows if position is not None else 0
        return work

    def _report(self, uri: str, message: str) -> None:
        if uri not in self.reported:
            self.reported.add(uri)
            emit("file-changed", file=uri, message=message)

    # -- one round ----------------------------------------------------------------------------------
    def deliver(self, spark: Any, work: Mapping[int, Mapping[str, Any]], offsets_start: Mapping[int, int]) -> None:
        from pyspark.sql import DataFrame

        settings = self.settings
        slots = sorted(work)
        frames = [self.slot_frame(spark, list(work[s]["files"])) for s in slots]
        union = functools.reduce(DataFrame.union, frames)
        plan = DeliveryPlan(self.delivery, settings.topic, settings.slots, settings.transaction_rows,
                            settings.transaction_bytes, dict(offsets_start),
                            [SlotPlan(s, dict(work[s]["files"]), dict(work[s]["committed"])) for s in slots],
                            # Jackson writes a character beyond U+FFFF as an escaped surrogate pair, with
                            # schemas or without; Spark's to_json writes it raw.
                            escape_keys=bool(settings.key_columns), escape_values=True)
        started = time.monotonic()
        reported = {r["slot"]: r.asDict() for r in union.mapInArrow(deliver(plan), SUMMARY_SCHEMA).collect()}

        def close(slot_plan: SlotPlan) -> dict[str, Any]:
            # Spark reported the slot's partition done, so its summary counts every row of the slot's files
            # (none if no row survived: empty files, all filtered). Mark them complete from here, as a
            # deliverer of the slot (fencing, re-reading positions): an executor cannot tell its input was
            # complete, as one that was cut off between two batches sees the same clean end.
            summary = reported.get(slot_plan.slot)
            closed = SlotDeliverer(plan, slot_plan).close(json.loads(summary["seen"]) if summary else {})
            if summary is not None:
                closed.update({k: summary[k] for k in ("rows", "skipped")},
                              transactions=summary["transactions"] + closed["transactions"])
            return closed

        # One producer per slot (its transactional id), each waiting for Kafka: close the slots side by side.
        with ThreadPoolExecutor(min(len(plan.slots), _CLOSING_THREADS), thread_name_prefix="close") as pool:
            summaries = list(pool.map(close, plan.slots))
        rows = sum(s["rows"] for s in summaries)
        emit("delivered", rows=rows, skipped=sum(s["skipped"] for s in summaries),
             files=sum(s["files"] for s in summaries), transactions=sum(s["transactions"] for s in summaries),
             seconds=round(time.monotonic() - started, 3))

    def read(self, spark: Any, files: list[str]) -> Any:
        settings = self.settings
        reader = spark.read.format(settings.source_format).options(**settings.source_options)
        if settings.source_format in ("csv", "json"):
            reader = reader.option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", CORRUPT)
            schema = self._schema(spark, files)
            return reader.schema(schema).load(files)
        if settings.source_schema:
            reader = reader.schema(settings.source_schema)
        return reader.load(files)

    def _schema(self, spark: Any, files: list[str]) -> Any:
        from pyspark.sql.types import StringType, StructField, StructType

        settings = self.settings
        if settings.source_schema:
            schema: Any = StructType.fromDDL(settings.source_schema)
        else:
            schema = (spark.read.format(settings.source_format).options(**settings.source_options)
                      .option("columnNameOfCorruptRecord", CORRUPT).load(files).schema)
        if CORRUPT not in schema.fieldNames():
            schema = StructType([*schema.fields, StructField(CORRUPT, StringType(), True)])
        return schema

    def slot_frame(self, spark: Any, files: list[str]) -> Any:
        """One slot's rows as (key, value, file) in file order, in one partition."""
        from pyspark.sql import functions as F

        settings = self.settings
        df = self.read(spark, files)
        if CORRUPT in df.columns:
            df = self._malformed(df)
        df.createOrReplaceTempView("source")
        out = spark.sql(settings.transform_sql) if settings.transform_sql else df
        missing = [c for c in settings.key_columns if c not in out.columns]
        if missing:
            raise ValueError(f"key.columns {', '.join(missing)} not among the columns {', '.join(out.columns)}")
        value = _json_bytes(out, out.columns, self.delivery.value_converter)
        key = (_json_bytes(out, settings.key_columns, self.delivery.key_converter)
               if settings.key_columns else F.lit(None).cast("binary"))
        framed = out.select(key.alias(KEY), value.alias(VALUE), F.input_file_name().alias(PATH))
        _check_row_wise(framed)
        return framed.coalesce(1)

    def _malformed(self, df: Any) -> Any:
        """errors.tolerance=none: the first malformed row fails the job with its file and line; all: malformed
        rows are skipped, and counted and logged (a separate, cheap pass over the same files)."""
        from pyspark.sql import functions as F

        settings = self.settings
        header = 1 if str(settings.source_options.get("header", "false")).lower() == "true" else 0
        # Each file is its own scan partition, so the row's index in its partition is its index in its file
        # (computed in a projection of its own: in the filter it would count only the rows evaluated).
        df = df.select("*", F.monotonically_increasing_id().bitwiseAND(F.lit((1 << 33) - 1)).alias(ROW))
        row = F.col(ROW)
        bad = F.col(CORRUPT).isNotNull()
        if settings.tolerate_errors:
            # Every column, as delivery reads them: csv parses only the columns a query references, so a
            # narrower query would find fewer malformed rows.
            data = [F.col(f"`{c}`") for c in df.columns if c not in (CORRUPT, ROW)]
            rejected = df.where(bad).select(F.input_file_name().alias("file"), row.alias("row"),
                                            F.col(CORRUPT).alias("record"), *data).cache()
            count = rejected.count()
            if count:
                # The rows' text leaves Spark only when errors.log.include.messages asks for it.
                samples = [{"file": r["file"], "row": r["row"], "line": r["row"] + 1 + header,
                            **({"record": r["record"]} if settings.log_record_content else {})}
                           for r in rejected.limit(20).collect()] if settings.log_errors else []
                emit("malformed", count=count, samples=samples)
            rejected.unpersist()
            checked = df.where(~bad)
        else:
            message = F.format_string("Malformed row %s (line %s) in %s: %s", row, row + 1 + header,
                                      F.input_file_name(), F.col(CORRUPT))
            checked = df.where(F.when(bad, F.raise_error(message)).otherwise(F.lit(True)))
        return checked.drop(CORRUPT, ROW)


def _json_bytes(frame: Any, names: list[str], converter: tuple[str, Mapping[str, str]]) -> Any:
    """JsonConverter's bytes of a row of the columns ``names`` of ``frame``, computed in the JVM.

    With ``schemas.enable=true`` (JsonConverter's default) the row is a Struct of the Connect schema its
    Spark schema maps to (connectors/spark/schemas.py), written as Java's JsonConverter writes one.
    Otherwise it is a schemaless map: Spark's to_json and Kafka's JsonConverter both write with Jackson
    (same number and string forms); nulls are kept as Connect keeps them."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    columns = [F.col(f"`{c}`") for c in names]
    settings = converter[1]
    if _with_schema(converter):
        row_type = StructType([frame.schema[c] for c in names])
        numeric = str(settings.get("decimal.format", "BASE64")).strip().upper() == "NUMERIC"
        return envelope_json(columns, row_type, numeric).cast("binary")
    return F.to_json(F.struct(*columns), {"ignoreNullFields": "false"}).cast("binary")


def _with_schema(converter: tuple[str, Mapping[str, str]]) -> bool:
    """Whether the JsonConverter writes records with their schema (``schemas.enable``, true by default)."""
    return str(converter[1].get("schemas.enable", "true")).strip().lower() == "true"


def _check_converters(delivery: Any) -> None:
    for kind, (name, _) in (("key", delivery.key_converter), ("value", delivery.value_converter)):
        if name not in JSON_CONVERTERS:
            raise ValueError(f"SparkSource writes rows as JSON, but the {kind} converter is {name}: set "
                             f"{kind}.converter=org.apache.kafka.connect.json.JsonConverter")


def _check_row_wise(df: Any) -> None:
    plan = df._jdf.queryExecution().executedPlan().toString()
    for operator in ("Exchange", "Sort", "Aggregate", "Window", "Limit"):
        if operator in plan:
            raise ValueError(f"transform.sql must work row by row: its plan has {operator}, which breaks the "
                             "per-file row positions exactly-once delivery relies on")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
