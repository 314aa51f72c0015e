"""The network-fault toolkit on real processes: a process in a cage loses the broker (cut, black hole,
delay) while one outside does not, the caged process's own HTTP port keeps answering, and nothing is
left behind once the toolkit is closed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from connect_runtime.testing import wait_until
from connect_runtime.testing.launcher import free_port
from connect_runtime.testing.network_faults import NetworkFaults, cgroup_name, chain_name

pytestmark = pytest.mark.kafka

PROBE = Path(__file__).with_name("net_probe.py")


class _Prober:
    """A net_probe.py child (in ``cgroup`` when given) and the calls the test makes to it."""

    def __init__(self, bootstrap: str, cgroup: Path | None, port: int, peer: int) -> None:
        self.port = port
        join = None
        if cgroup is not None:
            procs = str(cgroup / "cgroup.procs")

            def join() -> None:
                with open(procs, "w") as f:
                    f.write("0")
        self.proc = subprocess.Popen([sys.executable, str(PROBE), str(self.port), bootstrap.split(",")[0],
                                      str(peer)],
                                     preexec_fn=join)
        wait_until(self.healthy, 30, message=f"the probe on {self.port} to serve")

    def healthy(self) -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def probe(self, persistent: bool = False, path: str | None = None) -> dict[str, Any]:
        path = path or ("/persistent" if persistent else "/probe")
        body: dict[str, Any] = httpx.get(f"http://127.0.0.1:{self.port}{path}", timeout=10).json()
        return body

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def probers(kafka_bootstrap: str, network_faults: NetworkFaults) -> Iterator[tuple[Any, _Prober, _Prober]]:
    inside_port, outside_port = free_port(), free_port()
    cage = network_faults.cage(kafka_bootstrap, peers=[outside_port])
    inside = _Prober(kafka_bootstrap, cage.cgroup, inside_port, outside_port)
    outside = _Prober(kafka_bootstrap, None, outside_port, inside_port)
    try:
        yield cage, inside, outside
    finally:
        inside.close()
        outside.close()


def _reaches(prober: _Prober, persistent: bool = False) -> bool:
    return bool(prober.probe(persistent)["ok"])


def _reaches_soon(prober: _Prober) -> None:
    """``prober`` reaches the broker. A refused or reset connection fails at once; one that timed out
    (the probe allows 2 s, which a loaded machine can exceed) is tried again for up to 10 s."""
    answers: list[dict[str, Any]] = []

    def reached() -> bool:
        answers.append(prober.probe())
        assert answers[-1]["ok"] or "timed out" in answers[-1]["error"], "refused or reset, not slow"
        return bool(answers[-1]["ok"])
    try:
        wait_until(reached, 10, interval_s=0.5, message="the broker")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: {answers}") from None


def test_cut_refuses_and_resets_only_the_caged_process(network_faults: NetworkFaults, probers: Any) -> None:
    cage, inside, outside = probers
    assert _reaches(inside) and _reaches(inside, persistent=True) and _reaches(outside)
    assert inside.proc.pid in cage.pids() and outside.proc.pid not in cage.pids()
    network_faults.cut(cage)
    refused = inside.probe()
    assert not refused["ok"] and "ConnectionRefused" in refused["error"], refused
    reset = inside.probe(persistent=True)
    assert not reset["ok"], reset
    assert _reaches(outside) and _reaches(outside, persistent=True)
    assert inside.healthy()  # its own port still answers
    network_faults.heal(cage)
    wait_until(lambda: _reaches(inside) and _reaches(inside, persistent=True), 10, message="healed")


def test_blackhole_accepts_and_never_answers(network_faults: NetworkFaults, probers: Any) -> None:
    cage, inside, outside = probers
    assert _reaches(inside, persistent=True)
    network_faults.blackhole(cage)
    stalled = inside.probe(persistent=True)
    assert not stalled["ok"] and "timed out" in stalled["error"], stalled
    unanswered = inside.probe()
    assert not unanswered["ok"] and "timed out" in unanswered["error"], unanswered  # connected, then silence
    assert _reaches(outside) and inside.healthy()
    network_faults.heal(cage)
    wait_until(lambda: _reaches(inside) and _reaches(inside, persistent=True), 10, message="healed")


def test_delay_slows_only_the_caged_process(network_faults: NetworkFaults, probers: Any) -> None:
    cage, inside, outside = probers
    network_faults.delay(cage, 300)
    slow = inside.probe(persistent=True)
    # a request out and its answer back, each held 0.3 s
    assert slow["ok"] and slow["latency_s"] >= 0.6, slow
    fresh = inside.probe()
    assert fresh["ok"] and fresh["latency_s"] >= 0.6, fresh
    fast = outside.probe(persistent=True)
    assert fast["ok"] and fast["latency_s"] < slow["latency_s"], (fast, slow)
    network_faults.heal(cage)
    assert inside.probe(persistent=True)["ok"]


def test_peer_faults_reach_only_the_peers_named(network_faults: NetworkFaults, probers: Any) -> None:
    cage, inside, outside = probers
    assert inside.probe(path="/peer")["ok"] and outside.probe(path="/peer")["ok"]
    network_faults.cut(cage, brokers=False, peers=True)
    refused = inside.probe(path="/peer")
    assert not refused["ok"] and "refused" in refused["error"].lower(), refused
    _reaches_soon(inside)  # the brokers are still there
    back = outside.probe(path="/peer")
    assert back["ok"], back  # the peer still reaches the caged process
    network_faults.heal(cage)
    assert inside.probe(path="/peer")["ok"]


def test_nothing_is_left_behind(kafka_bootstrap: str, network_faults: NetworkFaults, probers: Any) -> None:
    cage, inside, _ = probers
    network_faults.cut(cage)
    network_faults.close()
    for table in ("filter", "nat"):
        rules = subprocess.run(["iptables", "-w", "-t", table, "-S"], capture_output=True, text=True,
                               check=True).stdout
        assert network_faults.chain not in rules, rules
    assert not cage.cgroup.exists()
    assert inside.proc.wait(10) < 0  # killed with its cage


def test_a_new_instance_sweeps_what_a_dead_process_left(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    chain, group = chain_name(dead.pid, 0), cgroup_name(dead.pid, 0, 0)
    for table in ("filter", "nat"):
        subprocess.run(["iptables", "-w", "-t", table, "-N", chain], check=True)
        subprocess.run(["iptables", "-w", "-t", table, "-I", "OUTPUT", "-j", chain], check=True)
    with NetworkFaults() as faults:
        leftover = faults._root / group
        leftover.mkdir()
        with NetworkFaults():
            for table in ("filter", "nat"):
                rules = subprocess.run(["iptables", "-w", "-t", table, "-S"], capture_output=True, text=True,
                                       check=True).stdout
                assert chain not in rules, rules
            assert not leftover.exists()
