"""The pure parts of the network-fault toolkit: names, rules, sweep decisions, delay schedule."""

from __future__ import annotations

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
