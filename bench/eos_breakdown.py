#!/usr/bin/env python3
"""Where the task's loop thread spends its time: one VerifiableSource task exactly once (poll boundary, 1000 records
per poll and per transaction) and the same task at least once, in two worker child processes on one
broker, measured in alternating windows (E A E A ... with ``--rounds``; the other worker paused).

Each worker loads ``bench/task_timing.py``, which times the task loop's phases per poll (the plugin's
``poll``, ``_send_batch`` = conversion + ``produce``, ``batch_end`` = the commit or the offsets flush, the
``commit_transaction`` calls and the time the task's loop thread waited for a commit). Per window it prints
records/s (as ``eos_throughput.py`` counts them: committed seqnos exactly once, high-watermark growth at
least once), the worker's CPU cores, and per poll the milliseconds of each phase and what is left
(``other_ms``: the loop itself, pause checks, GIL waits).

    python bench/eos_breakdown.py [--seconds 10] [--warmup 3] [--rounds 3] [--broker-warmup 30]
                                  [--eos-producer-override linger.ms=0 ...] [--modes eos,alos]
                                  [--bootstrap HOST:PORT]

``--eos-producer-override KEY=VALUE`` adds ``producer.override.KEY=VALUE`` to the exactly-once connector.
Prints ONE JSON object on stdout; logs go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(_BENCH))
from _common import add_bootstrap_argument, broker, configure_logging  # noqa: E402  (puts this tree on sys.path)
from eos_throughput import (  # noqa: E402
    BATCH_SIZE,
    RuntimeBench,
    process_tree_cpu_s,
    run_baseline,
)

from connect_runtime.testing.cluster import WorkerProcess  # noqa: E402

log = logging.getLogger("bench.eos_breakdown")

_TIMING_MODULE = _BENCH / "task_timing.py"
_CHILD_CMD = ("import runpy, sys; runpy.run_path(sys.argv[1]); from connect_runtime.cli import distributed_main; "
              "sys.exit(distributed_main(sys.argv[2:]))")
PHASES = ("poll", "poll_ahead", "send", "batch_end", "commit_transaction", "flush")


class TimedWorkerProcess(WorkerProcess):
    """Our worker child process with ``bench/task_timing.py`` loaded before it starts."""

    def __init__(self, bootstrap: str, workdir: Path, group_id: str, eos: bool) -> None:
        super().__init__(bootstrap, workdir, group_id, eos="enabled" if eos else "disabled")
        self.timing_file = workdir / "task-timing.json"
        self.env["BENCH_TASK_TIMING_FILE"] = str(self.timing_file)

    def start(self) -> TimedWorkerProcess:
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in self.props.items()))
        env = {**os.environ, **self.env, "PYTHONUNBUFFERED": "1"}
        with self.log_path.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-c", _CHILD_CMD, str(_TIMING_MODULE),
                                          str(self.config_path)], stdout=out, stderr=subprocess.STDOUT, env=env)
        return self

    def totals(self) -> dict[str, Any]:
        """The task loop's running totals as the child last wrote them."""
        return dict(json.loads(self.timing_file.read_text()))


class TimedBench(RuntimeBench):
    """A :class:`RuntimeBench` of one task in a :class:`TimedWorkerProcess`, with producer overrides."""

    def __init__(self, bootstrap: str, workdir: Path, eos: bool, overrides: dict[str, str]) -> None:
        self.timed: TimedWorkerProcess | None = None

        def worker(group: str) -> TimedWorkerProcess:
            self.timed = TimedWorkerProcess(bootstrap, workdir / group, group, eos)
            return self.timed

        super().__init__(bootstrap, workdir, "poll", eos=eos, worker=worker,
                         topic_prefix="bench-eos" if eos else "bench-alo")
        self.overrides = overrides

    def connector_config(self, topic: str | None = None) -> dict[str, str]:
        config = super().connector_config(topic)
        config.update({f"producer.override.{k}": v for k, v in self.overrides.items()})
        return config

    def window(self, seconds: float, warmup_s: float) -> dict[str, Any]:
        """One measured window with the per-poll breakdown over it."""
        assert self.timed is not None and self.timed.proc is not None
        self.resume()
        time.sleep(warmup_s)
        before, cpu0, t0 = self.timed.totals(), process_tree_cpu_s(self.timed.proc.pid), time.monotonic()
        result = self.measure(seconds, 0.0)
        after, cpu1, t1 = self.timed.totals(), process_tree_cpu_s(self.timed.proc.pid), time.monotonic()
        self.pause()
        delta = {k: after[k] - before[k] for k in after if k != "commit_durations_s"}
        new_commits = int(delta["commits"])
        durations = sorted(after["commit_durations_s"][-new_commits:]) if new_commits else []
        polls = max(1.0, delta["polls"])
        loop = delta["loop_wall_s"]
        return {
            "records_per_s": result["records_per_s"],
            "loop_records_per_s": round(delta["records"] / loop, 1) if loop > 0 else None,
            "records_per_poll": round(delta["records"] / polls, 1),
            "per_poll": per_poll(delta),
            "commit_transaction_ms_p50_p90_p99": [round(percentile(durations, q) * 1000, 2) for q in (50, 90, 99)]
            if durations else None,
            "worker_cpu_cores": (round((cpu1 - cpu0) / (t1 - t0), 2)
                                 if cpu0 is not None and cpu1 is not None else None),
        }


def per_poll(delta: dict[str, float]) -> dict[str, float]:
    """Milliseconds per poll of each phase from the growth of the totals over a window."""
    polls = max(1.0, delta["polls"])
    out = {f"{p}_ms": round(delta[f"{p}_s"] * 1000 / polls, 3) for p in PHASES}
    # The task's loop thread waited for the commit (or the offsets flush) in batch_end, except while it polled ahead.
    blocked = delta["batch_end_s"] - delta.get("poll_ahead_s", 0.0)
    out["blocked_in_batch_end_ms"] = round(blocked * 1000 / polls, 3)
    loop = delta["loop_wall_s"]
    out["other_ms"] = round((loop - delta["poll_s"] - delta["send_s"] - blocked) * 1000 / polls, 3)
    out["loop_ms"] = round(loop * 1000 / polls, 3)
    return out


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of an ascending, non-empty list."""
    rank = max(1, -(-len(sorted_values) * q // 100))
    return sorted_values[int(rank) - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="measurement window (10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up before each window (3)")
    parser.add_argument("--rounds", type=int, default=3, help="windows per mode, alternating (3)")
    parser.add_argument("--broker-warmup", type=float, default=30.0,
                        help="seconds of discarded bare-producer transactions first (30)")
    parser.add_argument("--modes", default="eos,alos", help="comma-separated, in window order: eos, alos")
    parser.add_argument("--eos-producer-override", action="append", default=[], metavar="KEY=VALUE",
                        help="producer.override.KEY=VALUE on the exactly-once connector (repeatable)")
    add_bootstrap_argument(parser)
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in ("eos", "alos") for m in modes) or args.rounds < 1:
        parser.error("--modes takes eos and/or alos; --rounds >= 1")
    overrides = dict(o.split("=", 1) for o in args.eos_producer_override)
    configure_logging()

    windows: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory(prefix="bench-breakdown-") as tmp:
        workdir = Path(tmp)
        with broker(workdir, args.bootstrap) as kafka:
            bootstrap = kafka.bootstrap
            load_before = os.getloadavg()[0]
            benches: dict[str, TimedBench] = {}
            try:
                if args.broker_warmup > 0:
                    run_baseline(bootstrap, args.broker_warmup, 0.0, BATCH_SIZE, "simple")
                for mode in modes:
                    benches[mode] = TimedBench(bootstrap, workdir, mode == "eos", overrides if mode == "eos" else {})
                    benches[mode].start()
                    benches[mode].pause()
                for r in range(args.rounds):
                    for mode in modes:
                        log.info("%s window %d/%d", mode, r + 1, args.rounds)
                        windows[mode].append(benches[mode].window(args.seconds, args.warmup))
                        log.info("%s: %s", mode, windows[mode][-1])
            finally:
                for bench in benches.values():
                    bench.stop()
        load_after = os.getloadavg()[0]

    rates = {m: [w["records_per_s"] for w in ws] for m, ws in windows.items()}
    out: dict[str, Any] = {
        "benchmark": "eos_breakdown",
        "kafka": kafka.version_label,
        "seconds": args.seconds, "rounds": args.rounds, "eos_producer_overrides": overrides,
        "records_per_s": {m: {"mean": round(sum(v) / len(v), 1), "min": min(v), "max": max(v)}
                          for m, v in rates.items()},
        "windows": windows,
        "loadavg_1m_before_after": [round(load_before, 2), round(load_after, 2)],
    }
    if "eos" in rates and "alos" in rates:
        out["exactly_once_cost"] = round(1 - (sum(rates["eos"]) / len(rates["eos"]))
                                         / (sum(rates["alos"]) / len(rates["alos"])), 3)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
