"""The pure parts of the network-fault toolkit: names, rules, sweep decisions, delay schedule."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from connect_runtime.testing import network_faults as nf


def test_names_carry_the_owner_pid_and_a_fixed_prefix() -> None:
    assert nf.chain_name(123, 0) == "CRNF-123-0"
    assert nf.cgroup_name(123, 0, 2) == "crnf-123-0-2"
    assert nf.owner_pid("CRNF-123-0") == 123
    assert nf.owner_pid("crnf-123-0-2") == 123
    # iptables limits chain names to 28 characters, whatever the pid
    assert len(nf.chain_name(4194304, 999)) <= 28


@pytest.mark.parametrize("name", ["OUTPUT", "DOCKER", "crnf", "crnf-x-1", "I27NAT", "crnf-1-2-3-4", "user.slice"])
def test_other_names_have_no_owner(name: str) -> None:
    assert nf.owner_pid(name) is None


def test_sweep_removes_only_what_a_dead_process_left() -> None:
    names = ["CRNF-10-0", "CRNF-11-0", "crnf-10-0-1", "DOCKER", "system.slice", "crnf-12-3-0"]
    assert nf.stale(names, alive=lambda pid: pid == 11) == ["CRNF-10-0", "crnf-10-0-1", "crnf-12-3-0"]
    assert nf.stale(names, alive=lambda pid: True) == []


def test_chains_are_read_from_an_iptables_listing() -> None:
    listing = "-P OUTPUT ACCEPT\n-N CRNF-10-0\n-N DOCKER\n-A OUTPUT -j CRNF-10-0\n"
    assert nf.chains_in(listing) == ["CRNF-10-0", "DOCKER"]


def test_the_cgroup2_mount_is_found_on_hybrid_and_pure_systems() -> None:
    hybrid = ("tmpfs /sys/fs/cgroup tmpfs ro 0 0\n"
              "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
              "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nsdelegate 0 0\n")
    assert nf.cgroup2_mount(hybrid) == Path("/sys/fs/cgroup/unified")
    assert nf.cgroup2_mount("cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n") == Path("/sys/fs/cgroup")
    assert nf.cgroup2_mount("cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n") is None


def test_missing_requirements_are_named_together() -> None:
    assert nf.missing_requirements(0, "/usr/sbin/iptables", Path("/sys/fs/cgroup")) == []
    missing = nf.missing_requirements(1000, None, None)
    assert len(missing) == 3
    assert "root" in missing[0] and "iptables" in missing[1] and "cgroup v2" in missing[2]


def test_bootstrap_addresses_are_resolved_and_prefixes_dropped() -> None:
    assert nf.parse_addresses("127.0.0.1:9092, PLAINTEXT://localhost:9093") == [
        ("127.0.0.1", 9092), ("127.0.0.1", 9093)]


def test_rules_match_the_cage_and_one_destination() -> None:
    assert nf.redirect_rule("CRNF-1-0", "crnf-1-0-0", ("127.0.0.1", 9092), 40000) == [
        "-A", "CRNF-1-0", "-p", "tcp", "-d", "127.0.0.1", "--dport", "9092", "-m", "cgroup", "--path",
        "crnf-1-0-0", "-j", "REDIRECT", "--to-ports", "40000"]
    refuse = nf.refuse_rule("CRNF-1-0", "crnf-1-0-0", 40000)
    # only SYNs: the handshake is refused, never a packet of a connection the proxy already aborts
    assert "--syn" in refuse and refuse[-3:] == ["REJECT", "--reject-with", "tcp-reset"]
    assert refuse[refuse.index("--dport") + 1] == "40000"


def test_delays_do_not_add_up_and_keep_the_order() -> None:
    # three chunks arriving together under 0.5 s leave together, 0.5 s later (not at 0.5, 1.0, 1.5)
    previous = 0.0
    out = []
    for arrival in (10.0, 10.0, 10.01):
        previous = nf.release_time(arrival, 0.5, previous)
        out.append(previous)
    assert out == [10.5, 10.5, 10.51]
    # a chunk arriving after the delay was lifted still waits for the delayed one ahead of it
    assert nf.release_time(10.2, 0.0, 10.51) == 10.51
    assert nf.release_time(11.0, 0.0, 10.51) == 11.0


class _FakeIptables:
    """``iptables`` as the toolkit calls it: chains and OUTPUT hooks per table; a call starting with
    ``fail`` (table, then arguments) fails."""

    def __init__(self, fail: tuple[str, ...] = ()) -> None:
        self.chains: set[tuple[str, str]] = set()
        self.hooks: list[tuple[str, str]] = []
        self.fail = fail

    def __call__(self, iptables: str, table: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        ok = not self.fail or (table, *args)[:len(self.fail)] != self.fail
        if ok and args[0] == "-N":
            self.chains.add((table, args[1]))
        elif ok and args[:2] == ("-I", "OUTPUT"):
            self.hooks.append((table, args[3]))
        elif args[:2] == ("-D", "OUTPUT"):
            ok = (table, args[3]) in self.hooks
            if ok:
                self.hooks.remove((table, args[3]))
        elif args[0] == "-X":
            self.chains.discard((table, args[1]))
        if check and not ok:
            raise RuntimeError(f"iptables -t {table} {' '.join(args)}: refused")
        return subprocess.CompletedProcess([], 0 if ok else 1, "", "")


@pytest.fixture
def fake_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[..., _FakeIptables]:
    """Root, iptables and a cgroup v2 root in ``tmp_path``, as far as the toolkit can tell."""
    monkeypatch.setattr(nf.os, "geteuid", lambda: 0)
    monkeypatch.setattr(nf.shutil, "which", lambda name: "/usr/sbin/iptables")
    monkeypatch.setattr(nf, "cgroup2_mount", lambda mounts: tmp_path)

    def install(fail: tuple[str, ...] = ()) -> _FakeIptables:
        fake = _FakeIptables(fail)
        monkeypatch.setattr(nf, "_iptables", fake)
        return fake
    return install


def test_a_setup_that_fails_halfway_leaves_no_chain(fake_machine: Callable[..., _FakeIptables]) -> None:
    iptables = fake_machine(fail=("filter", "-N"))
    with pytest.raises(RuntimeError, match="refused"):
        nf.NetworkFaults()
    assert iptables.chains == set() and iptables.hooks == []


def test_close_removes_every_cgroup_and_stops_the_proxy_when_one_cgroup_cannot_be_removed(
        fake_machine: Callable[..., _FakeIptables], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    iptables = fake_machine()
    faults = nf.NetworkFaults()
    first, second = faults.cage("127.0.0.1:9092"), faults.cage("127.0.0.1:9092")
    removed: list[Path] = []

    def remove(cgroup: Path) -> None:
        if cgroup == first.cgroup:
            raise OSError(16, "Device or resource busy")
        removed.append(cgroup)
    monkeypatch.setattr(nf, "_remove_cgroup", remove)
    with pytest.raises(OSError, match="busy"):
        faults.close()
    assert removed == [second.cgroup]
    assert iptables.chains == set() and iptables.hooks == []
    assert not faults._proxy._thread.is_alive()
    faults.close()  # once only
    with pytest.raises(RuntimeError, match="closed"):
        faults.cage("127.0.0.1:9092")
