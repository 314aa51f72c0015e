#!/usr/bin/env python3
"""Exactly-once throughput of the schema-registry converters against Kafka's JsonConverter, in one run.

One exactly-once VerifiableSource task with ``complete.record.data=true`` (a Struct {name, task, topic,
time_ms, seqno} with its schema, 1000 records per transaction) runs in its own worker per converter:

* ``json``: ``org.apache.kafka.connect.json.JsonConverter`` with ``schemas.enable=true`` (every value
  carries its schema as JSON), the reference point;
* ``avro``: ``io.confluent.connect.avro.AvroConverter``;
* ``jsonschema``: ``io.confluent.connect.json.JsonSchemaConverter``;
* ``protobuf``: ``io.confluent.connect.protobuf.ProtobufConverter``;

the last three against a real schema registry (``--registry``, else ``$SCHEMA_REGISTRY_URL``, else a
local registry started for the run). Windows run from a commit to a commit on the data topic, as in
``eos_throughput.py`` (whose ``RuntimeBench`` this uses); the other workers' connectors are paused. After
one discarded window each, the windows go round in turn, the order reversed every other round, so a
drift of the machine or the broker weighs on every converter alike. ``summary.<name>_to_json`` = the
converter's mean records/s over JsonConverter's (the issue's target for Avro: >= 0.8).

    python bench/registry_converters.py [--seconds 10] [--warmup 3] [--rounds 4]
                                        [--converters json,avro,jsonschema,protobuf]
                                        [--bootstrap HOST:PORT] [--registry URL]

Prints ONE JSON object on stdout; logs go to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# bench/ first: importing _common puts this tree on sys.path and PYTHONPATH (the worker children's).
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import add_bootstrap_argument, broker, configure_logging
from eos_throughput import RuntimeBench, _mean, _mean_or_none, cpu_us_per_record

from connect_runtime.api.data import Struct
from connect_runtime.converters import BUILTIN_CONVERTERS
from connect_runtime.testing.local_kafka import session_kafka_version
from connect_runtime.testing.local_registry import LocalRegistry

log = logging.getLogger("bench.registry_converters")

#: Each compared converter: its class name and its settings besides the registry URL.
CONVERTERS: dict[str, tuple[str, dict[str, str]]] = {
    "json": ("org.apache.kafka.connect.json.JsonConverter", {"schemas.enable": "true"}),
    "avro": ("io.confluent.connect.avro.AvroConverter", {}),
    "jsonschema": ("io.confluent.connect.json.JsonSchemaConverter", {}),
    "protobuf": ("io.confluent.connect.protobuf.ProtobufConverter", {}),
}
REGISTRY_ENV = "SCHEMA_REGISTRY_URL"


def converter_settings(name: str, registry_url: str) -> dict[str, str]:
    """The converter's settings, unprefixed."""
    cls, settings = CONVERTERS[name]
    out = {"converter": cls, **settings}
    if name != "json":
        out["schema.registry.url"] = registry_url
    return out


def connector_converter_config(name: str, registry_url: str) -> dict[str, str]:
    """The ``value.converter`` keys of a connector config using converter ``name``."""
    settings = converter_settings(name, registry_url)
    cls = settings.pop("converter")
    return {"value.converter": cls, **{f"value.converter.{k}": v for k, v in settings.items()}}


def seqno_reader(name: str, registry_url: str) -> Callable[[bytes | None], int]:
    """Reads the seqno of a complete record's value with the converter that wrote it."""
    settings = converter_settings(name, registry_url)
    converter: Any = BUILTIN_CONVERTERS[settings.pop("converter")]()
    converter.configure(settings, False)

    def seqno(value: bytes | None) -> int:
        decoded = converter.to_connect_data("", value)
        struct = getattr(decoded, "value", decoded)
        return int(struct.get("seqno") if isinstance(struct, Struct) else struct["seqno"])

    return seqno


@contextlib.contextmanager
def registry(workdir: Path, url: str | None) -> Iterator[tuple[str, bool]]:
    """(``url``, False) when given, else a local registry's URL and True, stopped on the way out."""
    if url:
        yield url, False
        return
    local = LocalRegistry(workdir / "registry")
    started = local.start()
    try:
        yield started, True
    finally:
        local.stop()


def run(bootstrap: str, registry_url: str, workdir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One worker per converter; windows in turn, ABBA."""
    # Topic names of the same length for every converter: the same record contents either way.
    benches = {name: RuntimeBench(bootstrap, workdir, "poll", 1000, "complete", topic_prefix=f"bench-{name[:2]}",
                                  extra_config=connector_converter_config(name, registry_url),
                                  seqno_of=seqno_reader(name, registry_url))
               for name in args.converters}
    windows: dict[str, list[dict[str, Any]]] = {name: [] for name in benches}
    order = list(benches.items())
    try:
        for _, bench in order:
            bench.start()
            bench.pause()
        for name, bench in order:
            log.info("%s: warm-up window (discarded)", name)
            bench.measure(args.seconds, args.warmup)
            bench.pause()
        for r in range(args.rounds):
            for name, bench in (order if r % 2 == 0 else order[::-1]):
                log.info("%s: window %d/%d", name, r + 1, args.rounds)
                windows[name].append(bench.measure(args.seconds, args.warmup))
                bench.pause()
    finally:
        for bench in benches.values():
            bench.stop()
    results: dict[str, Any] = {}
    for name, ws in windows.items():
        results[name] = {
            "converter": CONVERTERS[name][0],
            "records_per_s": round(_mean([w["records_per_s"] for w in ws]), 1),
            "cpu_cores": _mean_or_none([w["worker_cpu_cores"] for w in ws]),
            "cpu_us_per_record": cpu_us_per_record(ws),
            "windows": ws,
        }
    return results


def summary(results: dict[str, Any]) -> dict[str, Any]:
    """Each converter's rate relative to JsonConverter's, and the issue's target for Avro."""
    out: dict[str, Any] = {"avro_to_json_target": 0.8}
    json_rate = results.get("json", {}).get("records_per_s")
    for name, result in results.items():
        out[f"{name}_records_per_s"] = result["records_per_s"]
        if name != "json" and json_rate:
            out[f"{name}_to_json"] = round(result["records_per_s"] / json_rate, 3)
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="measurement window of each run (10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up before each window (3)")
    parser.add_argument("--rounds", type=int, default=4, help="windows per converter (4)")
    parser.add_argument("--converters", default=",".join(CONVERTERS),
                        help=f"which converters, comma-separated ({','.join(CONVERTERS)})")
    parser.add_argument("--registry", default=os.environ.get(REGISTRY_ENV),
                        help=f"schema.registry.url (default ${REGISTRY_ENV}, else a local registry)")
    add_bootstrap_argument(parser)
    args = parser.parse_args(argv)
    args.converters = [c.strip() for c in args.converters.split(",") if c.strip()]
    unknown = [c for c in args.converters if c not in CONVERTERS]
    if unknown or not args.converters:
        parser.error(f"--converters takes names from {', '.join(CONVERTERS)}; got {', '.join(unknown) or 'none'}")
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be >= 1 and --seconds > 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure_logging()
    with tempfile.TemporaryDirectory(prefix="bench-registry-") as tmp:
        workdir = Path(tmp)
        load_before = os.getloadavg()
        with broker(workdir, args.bootstrap) as kafka, registry(workdir, args.registry) as (url, local_registry):
            results = run(kafka.bootstrap, url, workdir, args)
        load_after = os.getloadavg()
    print(json.dumps({
        "benchmark": "registry_converters",
        "kafka": session_kafka_version() if kafka.local else "external",
        "registry": "local" if local_registry else "external",
        "seconds": args.seconds,
        "warmup_seconds": args.warmup,
        "rounds": args.rounds,
        "loadavg_1m": [load_before[0], load_after[0]],
        "summary": summary(results),
        "converters": results,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
