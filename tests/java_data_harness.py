"""The differential harness's driver: Apache Kafka Connect's data classes, the reference, in one JVM.

``tests/java/ConnectDataHarness.java`` is compiled with ``javac`` against ``connect-api``,
``connect-json`` and ``connect-transforms`` of the broker's release (fetched once from Maven Central
into a cache next to the broker's jars) and started once; :meth:`JavaDataHarness.run` sends it a batch
of cases as JSON lines and returns its answers in order. The Java file documents the case format; this
module has the Python half of it: :func:`schema_from` and :func:`value_from` build our objects from
the same descriptions, and :func:`python_message` is the one table where a Java message is allowed to
differ from ours.

Case format, in short: a schema is ``{"type", "optional", "default", "name", "version", "doc",
"parameters", "fields": [{"name", "schema"}], "key", "value"}`` (logical types by their Java name and
``scale`` parameter); a value is ``None`` or one tagged object (``{"int8": 1}``, ``{"float64": 0.5}``,
``{"bytes": base64}``, ``{"decimal": "-1.20"}``, ``{"date": days}``, ``{"time": millis}``,
``{"timestamp": millis}``, ``{"array": [...]}``, ``{"map": [[k, v], ...]}``,
``{"struct": {field: value}, "schema": optional}``); ``op`` names the operation.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import functools
import hashlib
import json
import math
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from connect_runtime.api import Header, SourceRecord, header_schema
from connect_runtime.api.data import Date, Schema, SchemaBuilder, SchemaType, Struct, Time, Timestamp, validate_value
from connect_runtime.api.errors import DataException
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.testing.java_connect import CONNECT_REFERENCE_VERSION
from connect_runtime.testing.java_service import cache_root
from connect_runtime.testing.local_kafka import ensure_maven_jars

HARNESS_SOURCE = Path(__file__).parent / "java" / "ConnectDataHarness.java"
MAIN_CLASS = "ConnectDataHarness"

DEPENDENCIES: tuple[tuple[str, str, str], ...] = (
    ("org.apache.kafka", "connect-api", CONNECT_REFERENCE_VERSION),
    ("org.apache.kafka", "connect-json", CONNECT_REFERENCE_VERSION),
    ("org.apache.kafka", "connect-transforms", CONNECT_REFERENCE_VERSION),
    ("org.apache.kafka", "connect-runtime", CONNECT_REFERENCE_VERSION),  # ByteArrayConverter lives there
)
"""The harness's classpath: Connect's data classes, its converters and its transforms."""

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
DAY_MS = 86_400_000

JAVA_CLASSES: Mapping[str, str] = {
    "java.lang.Byte": "int",
    "java.lang.Short": "int",
    "java.lang.Integer": "int",
    "java.lang.Long": "int",
    "java.lang.Float": "float",
    "java.lang.Double": "float",
    "java.lang.Boolean": "bool",
    "java.lang.String": "str",
    "[B": "bytes",
    "java.math.BigDecimal": "decimal.Decimal",
    "java.util.ArrayList": "list",
    "java.util.LinkedHashMap": "dict",
    "org.apache.kafka.connect.data.Struct": "connect_runtime.api.data.struct.Struct",
}
"""The normalisation table, Java's class -> the Python class our value of the same case has.

Our messages keep Java's wording with "Python object" and ``type(value)``; this table is the only
place where the two may differ. ``java.util.Date`` is missing on purpose: it stands for the three
Python classes of Date, Time and Timestamp values, so :func:`python_message` takes the Python class of
the case's value for it. Deliberate differences beyond class names are in
:data:`DELIBERATE_DIFFERENCES`.
"""

DELIBERATE_DIFFERENCES: Mapping[str, str] = {
    "out of range": "An int out of an INT8/16/32 schema's range: Java's case must carry a wider boxed class "
                    "(a Byte cannot hold 300), so Java names that class while ours names the range. Both "
                    "refuse; only the verdicts are compared.",
    "int and float widths": "Python has one int and one float, so an Integer for an INT64 schema or a Float "
                            "for a FLOAT64 one (refused by Java) has no Python counterpart: such cases are "
                            "not generated.",
    "temporal classes": "Java's Date, Time and Timestamp values are all java.util.Date; ours are date, time "
                        "and datetime (a datetime is a date), so one temporal value for another temporal "
                        "schema is not compared.",
    "unhashable map keys": "A list or a mapping cannot be a dict key in Python: map keys are never arrays "
                           "or maps in the corpus.",
    "time of 24:00": "Java accepts 86400000 ms as a Time; datetime.time has no 24:00, so ours refuses it "
                     "(asserted as such).",
    "bytes in a collection default": "Java compares defaults with Objects.deepEquals, which compares a "
                                     "byte[] inside a List or Map by identity, so two schemas built alike "
                                     "are unequal; Python's bytes are values and compare by content.",
    "dates Python represents": "Dates and timestamps outside years 1..9999 have no datetime: the corpus "
                               "stays inside them.",
    "floats printed by JDK 17": "The harness runs on JDK 17, whose Double.toString and Float.toString print "
                                "some values with more digits than the shortest that round-trips (1.0E23 as "
                                "9.999999999999999E22). Ours prints the shortest, as JDK 19+ does: where the "
                                "texts differ only in such numbers, Java's with more digits and both parsing "
                                "to the same double (the same float for a FLOAT32), it is not a difference.",
    "bytes as text": "Java's StringConverter writes a byte[] as its identity ([B@1b6d3586), which no one can "
                     "read; ours decodes the bytes as UTF-8. Java's text holding \"[B@\" is not compared.",
    "dates as text": "StringConverter writes java.util.Date.toString(), in the JVM's time zone; ours prints "
                     "as a JVM in UTC does, and the harness's JVM runs in UTC.",
    "argument errors": "Java's IllegalArgumentException is Python's ValueError (same message); the "
                       "canonical form names both ValueError.",
    "a record in a message": "Messages that print a whole record (TimestampRouter's \"Timestamp missing on "
                             "record: ...\") show Java's toString of its objects, identity hashes of byte "
                             "arrays included; those messages are compared up to the record "
                             "(MESSAGES_COMPARED_BY_PREFIX).",
    "string timestamps without a format": "TimestampConverter given a string timestamp and no format fails in "
                                          "Java with a NullPointerException, ours with a DataException saying "
                                          "the format is required: the corpus configures a format wherever a "
                                          "string may come in.",
    "map classes": "The harness builds maps as java.util.LinkedHashMap (to keep their order for the converters' "
                   "bytes); Kafka Connect's converters give java.util.HashMap, which our messages name, so the two "
                   "names are one in compared messages.",
    "equal bytes map keys": "A Java map keyed by byte[] holds two equal arrays as two keys (identity); a "
                            "Python dict keeps one: records with such a map are left out of the "
                            "transforms' comparisons.",
}
"""The known, deliberate differences between Java's data classes and ours, by the name the tests use
for them, each with why."""

_JAVA_OBJECT = re.compile(r"Invalid Java object for schema(?P<name> \".*?\")? with type (?P<type>[A-Z0-9]+): "
                          r"class (?P<cls>\S+) for ", re.S)


def python_message(java_message: str, python_class: type | None = None) -> str:
    """Java's ``message`` as ours says it: "Java object" becomes "Python object" and the Java class
    the Python one (:data:`JAVA_CLASSES`; ``python_class`` when the Java class is ``java.util.Date``)."""

    def replace(match: re.Match[str]) -> str:
        java = match["cls"]
        if java == "java.util.Date" and python_class is not None:
            shown = repr(python_class)
        else:
            shown = f"<class '{JAVA_CLASSES.get(java, java)}'>"
        return f"Invalid Python object for schema{match['name'] or ''} with type {match['type']}: {shown} for "

    return _JAVA_OBJECT.sub(replace, java_message)


def schema_from(desc: Mapping[str, Any]) -> Schema:
    """Our :class:`Schema` of a schema description (what the Java side builds with ``SchemaBuilder``)."""
    kind = SchemaType[desc["type"]]
    if kind is SchemaType.MAP and "key" in desc:
        builder = SchemaBuilder.map(schema_from(desc["key"]), schema_from(desc["value"]))
    elif kind is SchemaType.ARRAY and "value" in desc:
        builder = SchemaBuilder.array(schema_from(desc["value"]))
    else:
        builder = SchemaBuilder.of_type(kind)
    if desc.get("optional"):
        builder.optional()
    if desc.get("name") is not None:
        builder.name(desc["name"])
    if desc.get("version") is not None:
        builder.version(desc["version"])
    if desc.get("doc") is not None:
        builder.doc(desc["doc"])
    for key, value in (desc.get("parameters") or {}).items():
        builder.parameter(key, value)
    for field in desc.get("fields", ()):
        builder.field(field["name"], schema_from(field["schema"]))
    if desc.get("default") is not None:
        builder.default_value(value_from(desc["default"], builder.build()))
    return builder.build()


def value_from(enc: Any, context: Schema | None) -> object:
    """Our Python value of a value encoding; ``context`` is the schema the value stands for (a struct
    without its own ``schema`` takes it)."""
    if enc is None:
        return None
    tag = next(k for k in enc if k != "schema")
    x = enc[tag]
    if tag in ("int8", "int16", "int32", "int64"):
        return int(x)
    if tag in ("float32", "float64"):
        return float(x)
    if tag in ("boolean", "string"):
        return x
    if tag == "bytes":
        return base64.b64decode(x)
    if tag == "decimal":
        return decimal.Decimal(x)
    if tag == "date":
        return (EPOCH + datetime.timedelta(days=x)).date()
    if tag == "time":
        return (EPOCH + datetime.timedelta(milliseconds=x)).time()
    if tag == "timestamp":
        return EPOCH + datetime.timedelta(milliseconds=x)
    if tag == "array":
        inner = context.value_schema if context is not None and context.type is SchemaType.ARRAY else None
        return [value_from(e, inner) for e in x]
    if tag == "map":
        is_map = context is not None and context.type is SchemaType.MAP
        return {value_from(k, context.key_schema if is_map else None):  # type: ignore[union-attr]
                value_from(v, context.value_schema if is_map else None) for k, v in x}  # type: ignore[union-attr]
    if tag == "struct":
        schema = schema_from(enc["schema"]) if "schema" in enc else context
        assert schema is not None, "a struct value needs a schema"
        struct = Struct(schema)
        for name, field_value in x.items():
            field = schema.field(name)
            struct.put(name, value_from(field_value, None if field is None else field.schema))
        return struct
    raise ValueError(f"unknown value tag {tag}")


def describe_schema(schema: Schema) -> dict[str, Any]:
    """The description of ``schema``, as the Java side's ``describe`` prints one."""
    d: dict[str, Any] = {"type": schema.type.name, "optional": schema.is_optional}
    for attr in ("name", "version", "doc"):
        if getattr(schema, attr) is not None:
            d[attr] = getattr(schema, attr)
    if schema.parameters is not None:
        d["parameters"] = dict(schema.parameters)
    if schema.type is SchemaType.STRUCT:
        d["fields"] = [{"name": f.name, "schema": describe_schema(f.schema)} for f in schema.fields]
    # Values.parse_string builds arrays and maps without element schemas when their elements have none in common.
    if schema.type is SchemaType.MAP:
        d["key"] = None if schema.key_schema is None else describe_schema(schema.key_schema)
    if schema.type in (SchemaType.MAP, SchemaType.ARRAY):
        d["value"] = None if schema.value_schema is None else describe_schema(schema.value_schema)
    if schema.default_value is not None:
        d["default"] = encode_value(schema.default_value, schema)
    return d


_TAGS = {SchemaType.INT8: "int8", SchemaType.INT16: "int16", SchemaType.INT32: "int32", SchemaType.INT64: "int64",
         SchemaType.FLOAT32: "float32", SchemaType.FLOAT64: "float64", SchemaType.BOOLEAN: "boolean",
         SchemaType.STRING: "string", SchemaType.BYTES: "bytes"}


def encode_value(value: object, schema: Schema | None) -> Any:
    """The value encoding of ``value`` (the inverse of :func:`value_from`), tagged by ``schema`` where
    there is one and the value fits it, by the Python class where not (as Java's ``encode`` tags by
    the value's class: in an array Values.parseString typed STRING, a parsed 1 stays a Byte). A
    temporal value is tagged as Java's ``java.util.Date``: by the schema's logical name, else a
    timestamp."""
    if value is None:
        return None
    if isinstance(value, datetime.date | datetime.time):
        return _encode_temporal(value, None if schema is None else schema.name)
    if isinstance(value, Struct):
        return {"struct": {f.name: encode_value(value.get_without_default(f.name), f.schema)
                           for f in value.schema.fields}}
    if isinstance(value, decimal.Decimal):
        return {"decimal": format(value, "f")}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"bytes": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, list | tuple):
        inner = schema.value_schema if schema is not None else None
        return {"array": [encode_value(v, inner) for v in value]}
    if isinstance(value, Mapping):
        ks, vs = (schema.key_schema, schema.value_schema) if schema is not None else (None, None)
        return {"map": [[encode_value(k, ks), encode_value(v, vs)] for k, v in value.items()]}
    if isinstance(value, float) and not math.isfinite(value):  # as Java's side writes them
        tag = _TAGS[schema.type] if schema is not None and schema.type in _TAGS else "float64"
        return {tag: "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}
    if schema is not None and schema.type in _TAGS:
        try:
            validate_value(schema, value)
        except DataException:
            schema = None  # tagged by its class, as Java tags the value it kept
        else:
            return {_TAGS[schema.type]: value}
    if isinstance(value, bool):
        return {"boolean": value}
    if isinstance(value, int):
        return {"int64": value}
    if isinstance(value, float):
        return {"float64": value}
    if isinstance(value, str):
        return {"string": value}
    raise ValueError(f"cannot encode {type(value)}")


def _encode_temporal(value: datetime.date | datetime.time, name: str | None) -> dict[str, int]:
    if isinstance(value, datetime.datetime):
        millis = Timestamp.from_logical(Timestamp.SCHEMA, value)
    elif isinstance(value, datetime.date):
        millis = Date.from_logical(Date.SCHEMA, value) * DAY_MS
    else:
        millis = Time.from_logical(Time.SCHEMA, value)
    if name == Date.LOGICAL_NAME:
        return {"date": millis // DAY_MS}
    return {"time" if name == Time.LOGICAL_NAME else "timestamp": millis}


def record_from(desc: Mapping[str, Any]) -> SourceRecord:
    """Our :class:`SourceRecord` of a record description (``R`` in the Java file)."""
    key_schema = schema_from(desc["key_schema"]) if desc.get("key_schema") is not None else None
    value_schema = schema_from(desc["value_schema"]) if desc.get("value_schema") is not None else None
    headers = []
    for h in desc.get("headers", ()):
        schema = schema_from(h["schema"]) if h.get("schema") is not None else None
        headers.append(Header(h["key"], value_from(h.get("value"), schema), schema))
    return SourceRecord(None, None, desc.get("topic", "t"), desc.get("partition"),
                        value_from(desc.get("key"), key_schema), value_from(desc.get("value"), value_schema),
                        headers, desc.get("timestamp"), key_schema=key_schema, value_schema=value_schema)


def describe_record(record: SourceRecord) -> dict[str, Any]:
    """The description of ``record``, as the Java side's ``describe`` prints one."""
    return {
        "topic": record.topic,
        "partition": record.kafka_partition,
        "key_schema": None if record.key_schema is None else describe_schema(record.key_schema),
        "key": encode_value(record.key, record.key_schema),
        "value_schema": None if record.value_schema is None else describe_schema(record.value_schema),
        "value": encode_value(record.value, record.value_schema),
        "timestamp": record.timestamp,
        "headers": [{"key": h[0], "schema": None if header_schema(h) is None else describe_schema(header_schema(h)),
                     "value": encode_value(h[1], header_schema(h))} for h in record.headers or ()],
    }


MESSAGES_COMPARED_BY_PREFIX = ("Timestamp missing on record: ",)
"""Error messages compared only up to the record they print (see "a record in a message" in
:data:`DELIBERATE_DIFFERENCES`)."""


def _canonical(node: Any) -> Any:
    """A value encoding in comparable form: integer and float widths come from the schemas (compared
    on their own), so tags fold to one per kind (a schemaless Java Integer and our int are equal); a
    FLOAT32 is rounded to single precision; map entries are sorted (Java's HashMap has no order)."""
    if isinstance(node, list):
        return [_canonical(x) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, x in node.items():
        if key in ("int8", "int16", "int32", "int64"):
            out["int"] = x
        elif key == "float32" and isinstance(x, float):
            out["float"] = struct.unpack("f", struct.pack("f", x))[0]
        elif key in ("float32", "float64"):
            out["float"] = x
        elif key == "message" and isinstance(x, str) and x.startswith(MESSAGES_COMPARED_BY_PREFIX):
            out[key] = next(p for p in MESSAGES_COMPARED_BY_PREFIX if x.startswith(p))
        elif key == "message" and isinstance(x, str):
            out[key] = x.replace("java.util.LinkedHashMap", "java.util.HashMap")
        elif key == "error" and x == "IllegalArgumentException":
            out[key] = "ValueError"
        elif key == "map":
            pairs = [_canonical(pair) for pair in x]
            out["map"] = sorted(pairs, key=lambda pair: json.dumps(pair, sort_keys=True))
        else:
            out[key] = _canonical(x)
    return out


def canonical(answer: Any) -> str:
    """``answer`` (a Java or a Python answer) as a string two equal answers share."""
    return json.dumps(_canonical(answer), sort_keys=True)


@functools.cache
def _registry() -> PluginRegistry:
    return PluginRegistry()


def plugin_differences(harness: JavaDataHarness, cases: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every ``transform`` or ``predicate`` case whose answers differ, each shown by its first record
    that differs: the plugin, the record, then Java's answer and ours."""
    ours = {"transform": python_transform, "predicate": python_predicate}
    found = []
    for case, java in zip(cases, harness.run(cases), strict=True):
        python = ours[case["op"]](case)
        field = "records" if case["op"] == "transform" else "results"
        for i, (j, p) in enumerate(zip(java[field], python[field], strict=True)):
            if canonical(j) != canonical(p):
                found.append(f"{case['class']} {json.dumps(case.get('config', {}))}, record {i}:\n"
                             f"  input:  {json.dumps(case['records'][i])}\n"
                             f"  java:   {canonical(j)}\n  python: {canonical(p)}")
                break
    return found


def python_transform(case: Mapping[str, Any]) -> dict[str, Any]:
    """Our answer to a ``transform`` case: the built-in transform of that Java class name, configured
    once, applied to each record in turn."""
    transform = _registry().resolve(case["class"])()
    transform.configure(dict(case.get("config", {})))
    results: list[Any] = []
    try:
        for desc in case["records"]:
            try:
                result = transform.apply(record_from(desc))
            except Exception as e:  # the answer is the exception, as on the Java side
                results.append({"error": type(e).__name__, "message": str(e)})
            else:
                results.append(None if result is None else describe_record(result))
    finally:
        transform.close()
    return {"records": results}


def python_predicate(case: Mapping[str, Any]) -> dict[str, Any]:
    """Our answer to a ``predicate`` case."""
    predicate = _registry().resolve(case["class"])()
    predicate.configure(dict(case.get("config", {})))
    results: list[Any] = []
    for desc in case["records"]:
        try:
            results.append(predicate.test(record_from(desc)))
        except Exception as e:  # the answer is the exception, as on the Java side
            results.append({"error": type(e).__name__, "message": str(e)})
    return {"results": results}


def harness_cache_dir() -> Path:
    """Where the harness's jars and compiled class live: next to the broker's, keyed by version and by
    :data:`DEPENDENCIES` (a cache fetched for another list is never reused)."""
    digest = hashlib.sha256(repr(DEPENDENCIES).encode()).hexdigest()[:8]
    return cache_root() / f"kafka-connect-data-harness-{CONNECT_REFERENCE_VERSION}-{digest}"


class JavaDataHarness:
    """``ConnectDataHarness`` compiled and running in one JVM; :meth:`run` answers batches of cases."""

    def __init__(self, workdir: Path) -> None:
        javac, java = shutil.which("javac"), shutil.which("java")
        if javac is None or java is None:
            raise RuntimeError("the data harness needs a JDK (javac and java on PATH)")
        libs = ensure_maven_jars(harness_cache_dir(), DEPENDENCIES, "connect-api-", "kafka-connect-data-harness",
                                 version=CONNECT_REFERENCE_VERSION)
        classes = workdir / "classes"
        classes.mkdir(parents=True, exist_ok=True)
        classpath = os.pathsep.join([str(classes), f"{libs}/*"])
        compiled = subprocess.run([javac, "-nowarn", "-d", str(classes), "-cp", classpath, str(HARNESS_SOURCE)],
                                  capture_output=True, text=True, check=False)
        if compiled.returncode != 0:
            raise RuntimeError(f"javac could not compile {HARNESS_SOURCE.name}:\n{compiled.stdout}{compiled.stderr}")
        self._stderr = (workdir / "harness-stderr.log").open("wb")
        # UTC: StringConverter writes java.util.Date.toString() and Values formats and parses dates, both in
        # the JVM's time zone; ours are Java's in UTC.
        self._proc = subprocess.Popen([java, "-Xmx512m", "-Duser.timezone=UTC", "-cp", classpath, MAIN_CLASS],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)

    def run(self, cases: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Java's answers to ``cases``, in order (the whole batch is written by a thread while the
        answers are read, so that neither pipe fills up)."""
        import threading

        assert self._proc.stdin is not None and self._proc.stdout is not None
        stdin = self._proc.stdin
        payload = "".join(json.dumps(case) + "\n" for case in cases).encode()

        def write() -> None:
            stdin.write(payload)
            stdin.flush()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        answers = [json.loads(self._readline()) for _ in cases]
        writer.join()
        return answers

    def _readline(self) -> bytes:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the data harness exited with {self._proc.wait()}")
        return line

    def close(self) -> None:
        """Stop the JVM (closing its stdin ends its loop)."""
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._stderr.close()

