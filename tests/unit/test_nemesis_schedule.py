"""The fault schedule of bench/nemesis.py: drawn from the seed alone, so a run can be replayed (no broker)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest
from bench_scripts import BENCH, load_bench_script


@pytest.fixture(scope="module")
def nemesis() -> ModuleType:
    return load_bench_script("nemesis")


def test_the_same_seed_draws_the_same_schedule(nemesis: ModuleType) -> None:
    kinds = nemesis.DEFAULT_KINDS
    first = nemesis.draw_schedule(7, 600, kinds)
    assert first == nemesis.draw_schedule(7, 600, kinds)
    assert len(first) > 3


def test_another_seed_draws_another_schedule(nemesis: ModuleType) -> None:
    kinds = nemesis.DEFAULT_KINDS
    assert nemesis.draw_schedule(7, 600, kinds) != nemesis.draw_schedule(8, 600, kinds)


def test_every_kind_is_drawable(nemesis: ModuleType) -> None:
    kinds = list(nemesis.KINDS)
    drawn = {f.kind for seed in range(40) for f in nemesis.draw_schedule(seed, 900, kinds)}
    assert drawn == set(kinds)
    # Every broker role, and both scopes of a zombie, are drawn too.
    targets = [f.target for seed in range(40) for f in nemesis.draw_schedule(seed, 900, kinds)]
    assert {t["role"] for t in targets if "role" in t} == {"leader", "node", "data_leader", "coordinator"}
    assert {t["scope"] for t in targets if "scope" in t} == {"worker", "group"}
    # A fault of one kind alone is drawable too, over and over.
    for kind in kinds:
        assert {f.kind for f in nemesis.draw_schedule(1, 900, [kind])} == {kind}


@pytest.mark.parametrize("duration", [60, 120, 300, 1800])
def test_faults_fit_the_run_one_after_another(nemesis: ModuleType, duration: int) -> None:
    for seed in range(20):
        schedule = nemesis.draw_schedule(seed, duration, nemesis.DEFAULT_KINDS)
        assert [f.index for f in schedule] == list(range(len(schedule)))
        end = 0.0
        for fault in schedule:
            kind = nemesis.KINDS[fault.kind]
            assert fault.at_s >= end, "one fault at a time: each starts after the one before and its recovery"
            assert kind.hold_s[0] <= fault.hold_s <= kind.hold_s[1]
            end = fault.at_s + fault.hold_s + kind.budget_s
            assert end <= duration
    assert nemesis.draw_schedule(3, 1800, nemesis.DEFAULT_KINDS), "a long run has faults"


def test_a_zombie_is_held_past_the_session_timeout(nemesis: ModuleType) -> None:
    for fault in nemesis.draw_schedule(5, 1800, ["worker_zombie", "worker_group_zombie"]):
        assert fault.hold_s > nemesis.SESSION_TIMEOUT_S


def test_the_network_kinds_are_drawn_by_default_in_every_variant(nemesis: ModuleType) -> None:
    assert {"worker_partition", "leader_partition"} <= set(nemesis.DEFAULT_KINDS)
    faults = [f for seed in range(40) for f in nemesis.draw_schedule(seed, 900, nemesis.DEFAULT_KINDS)
              if f.kind in ("worker_partition", "leader_partition")]
    assert {(f.kind, f.target["mode"], f.target["peers"]) for f in faults} == {
        (kind, mode, peers) for kind in ("worker_partition", "leader_partition")
        for mode in ("cut", "blackhole") for peers in (False, True)}
    assert all(f.hold_s > nemesis.SESSION_TIMEOUT_S for f in faults), "held past the session timeout"


class _FakeFaults:
    """Records the toolkit calls the nemesis makes; ``fail`` makes the fault itself raise."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, str, bool]] = []
        self.fail = fail

    def cut(self, cage: object, *, brokers: bool, peers: bool) -> None:
        self.calls.append(("cut", getattr(cage, "path", ""), peers))
        if self.fail:
            raise RuntimeError("iptables failed")

    def blackhole(self, cage: object, *, brokers: bool, peers: bool) -> None:
        self.calls.append(("blackhole", getattr(cage, "path", ""), peers))

    def heal(self, cage: object) -> None:
        self.calls.append(("heal", getattr(cage, "path", ""), True))


def _caged_run(tmp_path: Path, faults: _FakeFaults, members: list[int]) -> tuple[object, object]:
    """A run with one worker (pid 42) and its cage, whose cgroup holds ``members``."""
    (tmp_path / "cgroup.procs").write_text("".join(f"{pid}\n" for pid in members))
    cage = SimpleNamespace(path="cage-0", cgroup=tmp_path, pids=lambda: members)
    worker = SimpleNamespace(port=8083, url="http://127.0.0.1:8083", proc=SimpleNamespace(pid=42), cgroup=tmp_path)
    return SimpleNamespace(faults=faults, cages={8083: cage}), worker


def test_a_partition_faults_the_workers_cage_and_returns_its_heal(nemesis: ModuleType, tmp_path: Path) -> None:
    faults = _FakeFaults()
    run, worker = _caged_run(tmp_path, faults, [42, 43])
    heal = nemesis.network_partition(run, worker, "blackhole", peers=True)
    assert faults.calls == [("blackhole", "cage-0", True)]
    heal()
    assert faults.calls[-1] == ("heal", "cage-0", True)


def test_a_partition_that_fails_half_way_is_healed(nemesis: ModuleType, tmp_path: Path) -> None:
    faults = _FakeFaults(fail=True)
    run, worker = _caged_run(tmp_path, faults, [42])
    with pytest.raises(RuntimeError, match="iptables failed"):
        nemesis.network_partition(run, worker, "cut")
    assert faults.calls == [("cut", "cage-0", False), ("heal", "cage-0", True)]


def test_a_partition_refuses_a_worker_outside_its_cage(nemesis: ModuleType, tmp_path: Path) -> None:
    faults = _FakeFaults()
    run, worker = _caged_run(tmp_path, faults, [7])  # restarted without re-entering its cgroup
    with pytest.raises(RuntimeError, match="not in its cage"):
        nemesis.network_partition(run, worker, "cut")
    assert faults.calls == []
    with pytest.raises(RuntimeError, match="cages"):
        nemesis.network_partition(SimpleNamespace(faults=None, cages={}), worker, "cut")


def test_the_command_line_prints_the_schedule_a_seed_draws(nemesis: ModuleType) -> None:
    def schedule(*args: str) -> dict:  # type: ignore[type-arg]
        out = subprocess.run([sys.executable, str(BENCH / "nemesis.py"), "--schedule-only", *args],
                             capture_output=True, text=True, check=True, timeout=120).stdout
        return json.loads(out)  # type: ignore[no-any-return]

    one = schedule("--seed", "11", "--duration", "300")
    assert one == schedule("--seed", "11", "--duration", "300")
    assert one["schedule"] == [json.loads(json.dumps(f.__dict__)) for f in nemesis.draw_schedule(11, 300, one["kinds"])]
    only = schedule("--seed", "11", "--duration", "300", "--faults", "pause_resume,stop_resume")
    assert {f["kind"] for f in only["schedule"]} <= {"pause_resume", "stop_resume"}


def test_the_file_check_finds_duplicates_gaps_disorder_and_strangers(nemesis: ModuleType) -> None:
    good = nemesis.file_lines_report([f"line-{i}" for i in range(5)], 5)
    assert (good["duplicates"], good["gaps"], good["in_order"], good["extra_lines"]) == (0, 0, True, [])
    bad = nemesis.file_lines_report(["line-0", "line-2", "line-2", "line-1", "line-7"], 5)
    assert bad["duplicates"] == 1 and bad["duplicated_sample"] == [2]
    assert bad["gaps"] == 2 and bad["missing_sample"] == [3, 4]
    assert not bad["in_order"] and bad["extra_lines"] == [7]


def test_a_stored_offset_other_than_the_last_record_is_a_mismatch(nemesis: ModuleType) -> None:
    assert nemesis.offset_mismatches({0: 9, 1: 4}, {0: 9, 1: 4}) == {}
    assert nemesis.offset_mismatches({0: 9, 1: 4}, {0: 8}) == {0: {"stored": 8, "last": 9},
                                                                1: {"stored": None, "last": 4}}


def test_the_offsets_tail_answers_when_each_partition_committed_after_a_moment(nemesis: ModuleType) -> None:
    tail = nemesis.OffsetsTail("127.0.0.1:9", "offsets")  # never started: no broker is asked
    try:
        for when in (1.0, 2.0, 5.0):
            tail.note("c", {"id": 0}, when)
        assert tail.first_commit_after("c", {"id": 0}, 0.5) == 1.0
        assert tail.first_commit_after("c", {"id": 0}, 2.0) == 5.0
        assert tail.first_commit_after("c", {"id": 0}, 5.0) is None
        assert tail.first_commit_after("c", {"id": 1}, 0.0) is None
        assert tail.committed_since("c", {"id": 0}, 4.0) and not tail.committed_since("c", {"id": 0}, 6.0)
    finally:
        tail.close()


def test_a_worker_restarted_by_a_fault_must_be_back_in_its_cage(nemesis: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "cgroup.procs").write_text("7\n")
    started: list[str] = []
    worker = SimpleNamespace(url="http://127.0.0.1:8083", cgroup=tmp_path, proc=SimpleNamespace(pid=42),
                             start=lambda: started.append("start"), wait_ready=lambda timeout: started.append("ready"))
    with pytest.raises(RuntimeError, match="outside its cage"):
        nemesis._restarting(worker)()
    (tmp_path / "cgroup.procs").write_text("7\n42\n")
    nemesis._restarting(worker)()
    assert started == ["start", "start", "ready"]


def test_without_network_faults_the_default_run_leaves_partitions_out_and_an_explicit_one_fails(
        nemesis: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nemesis, "missing_requirements", lambda *a: ["root"])
    assert nemesis.network_partition_available(required=False) is False
    with pytest.raises(SystemExit, match="network faults need root"):
        nemesis.network_partition_available(required=True)
    monkeypatch.setattr(nemesis, "missing_requirements", lambda *a: [])
    assert nemesis.network_partition_available(required=True) is True
