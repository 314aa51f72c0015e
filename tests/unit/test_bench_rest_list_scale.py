"""Pure helpers of bench/rest_list_scale.py and the shared REST client of bench/_common.py (no broker)."""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any

import pytest
from bench_scripts import load_bench_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench_script("rest_list_scale")


def _status(state: str, task_states: list[str]) -> dict[str, Any]:
    return {"status": {"name": "n", "connector": {"state": state, "worker_id": "w"},
                       "tasks": [{"id": i, "state": s, "worker_id": "w"} for i, s in enumerate(task_states)],
                       "type": "source"}}


def test_connector_plan_runs_a_few_and_pauses_or_stops_the_rest(bench: ModuleType) -> None:
    plan = bench.connector_plan(7, 2)
    assert list(plan.values()) == ["RUNNING", "RUNNING", "PAUSED", "STOPPED", "PAUSED", "STOPPED", "PAUSED"]
    assert len(set(plan)) == 7
    body = bench.create_body("conn-0003", "STOPPED", "t")
    assert body["initial_state"] == "STOPPED" and body["config"]["topic"] == "t"
    assert body["config"]["connector.class"] == "VerifiableSource"


def test_settled_needs_every_connector_in_its_state(bench: ModuleType) -> None:
    plan = {"a": "RUNNING", "b": "PAUSED", "c": "STOPPED"}
    done = {"a": _status("RUNNING", ["RUNNING"]), "b": _status("PAUSED", []), "c": _status("STOPPED", [])}
    assert bench.settled(done, plan)
    assert not bench.settled({k: v for k, v in done.items() if k != "c"}, plan)
    assert not bench.settled({**done, "x": _status("PAUSED", [])}, plan)
    assert not bench.settled({**done, "a": _status("RUNNING", ["UNASSIGNED"])}, plan)
    assert not bench.settled({**done, "a": _status("RUNNING", [])}, plan)
    assert not bench.settled({**done, "b": _status("UNASSIGNED", [])}, plan)


def test_comma_separated_expand_is_ignored_as_java_does(bench: ModuleType) -> None:
    plan = {"a": "PAUSED", "b": "STOPPED"}
    assert bench.comma_separated_ignored({"a": {}, "b": {}}, plan)
    assert not bench.comma_separated_ignored({"a": {}, "b": _status("STOPPED", [])}, plan)
    assert not bench.comma_separated_ignored({"a": {}}, plan)


def _worker(p99: float, sequential_p99: float) -> dict[str, Any]:
    endpoints = {name: {"concurrent": {"count": 10, "p99_ms": p99},
                        "sequential": {"count": 5, "p99_ms": sequential_p99}}
                 for name in ("list", "expand_status", "expand_info", "expand_status_info", "plugins")}
    return {"url": "http://w", "role": "follower", "endpoints": endpoints}


def test_output_judges_the_worst_worker_in_both_modes(bench: ModuleType) -> None:
    args = bench.parse_args([])
    workers = [_worker(120.0, 40.0), _worker(150.0, 60.0), _worker(90.0, 30.0)]
    out = bench.build_output(args, workers, True, {"create_s": 1.0, "settled_s": 2.0}, (0.5, 1.25))
    assert out["expand_status_info_p99_ms"] == {"sequential": 60.0, "concurrent": 150.0}
    assert out["within_target"] is True and out["expand_status_info_p99_target_ms"] == 200.0
    assert out["loadavg_1m_before_after"] == [0.5, 1.25] and out["expand_comma_separated_answered_as_java"]
    json.dumps(out)
    assert bench.build_output(args, [*workers, _worker(200.0, 10.0)], True, {}, (0, 0))["within_target"] is False
    assert bench.build_output(args, [*workers, _worker(10.0, 201.0)], True, {}, (0, 0))["within_target"] is False
    missing = [*workers, {"endpoints": {"expand_status_info": {"concurrent": {"count": 0}, "sequential": {}}}}]
    assert bench.worst_p99(missing, "expand_status_info", "concurrent") is None
    assert bench.build_output(args, missing, True, {}, (0, 0))["within_target"] is False


def test_parse_args(bench: ModuleType) -> None:
    args = bench.parse_args([])
    assert (args.workers, args.connectors, args.running, args.clients) == (3, 500, 5, 4)
    for bad in (["--workers", "0"], ["--running", "501"], ["--running", "-1"], ["--requests", "0"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)


def test_shared_client_and_load_against_a_tiny_server(bench: ModuleType) -> None:
    common = load_bench_script("_common")

    async def scenario() -> dict[str, Any]:
        seen: list[bytes] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    break
                path = head.split(b" ")[1]
                seen.append(path)
                status, body = (200, b'{"ok":true}') if path == b"/good" else (404, b"nope")
                writer.write(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n%s" % (status, len(body), body))
                await writer.drain()
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            result = await common.load(f"http://127.0.0.1:{port}", lambda i: "/good" if i % 5 else "/bad", 3, 20)
        # 3 warm-up requests (paths(0)), then the 20 measured ones.
        assert len(seen) == 23
        return dict(result)

    result = asyncio.run(scenario())
    assert result["count"] == 20 and result["clients"] == 3 and result["requests_per_s"] > 0
    assert result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert len(result["errors"]) == 4 and result["errors"][0].startswith("404 ")


def test_summary_nearest_rank(bench: ModuleType) -> None:
    common = load_bench_script("_common")
    got = common.summary([i / 1000 for i in range(1, 101)], wall_s=2.0)
    assert got == {"count": 100, "p50_ms": 50.0, "p99_ms": 99.0, "max_ms": 100.0, "requests_per_s": 50.0}
    assert common.summary([]) == {"count": 0}
