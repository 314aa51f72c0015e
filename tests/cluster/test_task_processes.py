"""Tasks in processes of their own: a task whose plugin kills its interpreter fails alone,
and a worker killed with SIGKILL leaves no task process behind (tests/cluster).

The fenced-zombie case (SIGSTOP of a worker while its task processes run on) is
test_exactly_once_cluster.py::test_zombie_task_is_fenced.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from process_tree import descendants, task_processes, wait_gone

from connect_runtime.testing.cluster import (
    ConnectClient,
    WorkerProcess,
    check_sequences,
    end_offsets,
    plugin_path,
    read_committed,
    verifiable_pairs,
    wait_until,
)
from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.cluster]

PLUGINS_DIR = Path(__file__).resolve().parents[1] / "plugins"
CRASHING = "crashing_source.CrashingSourceConnector"
DIED = re.compile(r"The process running task (\S+) \(pid (\d+)\) died unexpectedly: (.*)")
#: The cluster fixture's session.timeout.ms (tests/cluster/conftest.py FAST), in seconds.
SESSION_TIMEOUT_S = 4.0
#: Slack on a loaded 2-core machine for "at once" (a task process exits when its worker's pipe closes).
MARGIN_S = 6.0


def _total(bootstrap: str, topic: str) -> int:
    return sum(end_offsets(bootstrap, topic).values())


def _grows(bootstrap: str, topic: str, by: int = 100, timeout_s: float = 60) -> None:
    floor = _total(bootstrap, topic)
    wait_until(lambda: _total(bootstrap, topic) > floor + by, timeout_s, message=f"{topic} to grow by {by}")


def _exactly_once(bootstrap: str, topic: str, tasks: set[int]) -> None:
    report = check_sequences(verifiable_pairs(read_committed(bootstrap, topic)))
    assert report.exactly_once, report.summary()
    assert set(report.counts) == tasks, report.summary()


def _placement(client: ConnectClient, name: str, tasks: int) -> dict[int, str] | None:
    st = client.status(name)
    if st["connector"]["state"] != "RUNNING" or len(st["tasks"]) != tasks or any(
            t["state"] != "RUNNING" for t in st["tasks"]):
        return None
    return {t["id"]: t["worker_id"] for t in st["tasks"]}


def _worker_id(w: WorkerProcess) -> str:
    return f"127.0.0.1:{w.port}"


def _died(worker: WorkerProcess, client: ConnectClient, name: str,
          not_pid: int | None = None) -> tuple[str, int, str] | None:
    """(first line of the trace, pid, how it died) once task 0 of ``name`` is FAILED because its process
    died (and, with ``not_pid``, that was another process than ``not_pid``). The worker must be alive."""
    assert worker.proc is not None and worker.proc.poll() is None, f"the worker died: {worker.log_tail()}"
    tasks = client.status(name)["tasks"]
    if not tasks or tasks[0]["state"] != "FAILED":
        return None
    first = tasks[0].get("trace", "").splitlines()[0]
    match = DIED.search(first)
    assert match is not None, f"{name} FAILED for another reason: {tasks[0].get('trace')}"
    pid = int(match.group(2))
    return None if pid == not_pid else (first, pid, match.group(3))


def test_a_task_whose_process_dies_fails_alone(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    """os._exit(1) and a segfault in a task's plugin: that task is FAILED with what happened to its
    process; the worker, its REST API and another connector's tasks go on; a restart of the task runs it
    in a new process (which resumes from the committed offset)."""
    worker: WorkerProcess = cluster(extra=plugin_path(PLUGINS_DIR))
    worker.wait_ready()
    assert worker.proc is not None
    client = ConnectClient(worker.url)
    healthy = new_topic(kafka_bootstrap, partitions=2)
    client.create_connector("healthy", {"connector.class": "VerifiableSource", "topic": healthy, "tasks.max": "2",
                                        "throughput": "100"})
    client.wait_running("healthy", 2)
    crash_topics = {mode: new_topic(kafka_bootstrap) for mode in ("exit", "segfault")}
    for mode, topic in crash_topics.items():
        client.create_connector(f"crash-{mode}", {"connector.class": CRASHING, "topic": topic, "crash.mode": mode,
                                                  "crash.after.polls": "3"})

    deaths = {mode: wait_until(lambda m=mode: _died(worker, client, f"crash-{m}"), 60,
                               message=f"crash-{mode}'s task FAILED") for mode in crash_topics}
    for mode, expected in (("exit", "exit code 1"), ("segfault", "SIGSEGV")):
        first, pid, how = deaths[mode]
        assert (f"ConnectException: The process running task crash-{mode}-0 (pid {pid}) died unexpectedly: "
                in first), first
        assert expected in how, first
        assert pid != worker.proc.pid, first
        assert client.status(f"crash-{mode}")["connector"]["state"] == "RUNNING"  # the connector lives in the worker

    # The worker and everything else in it go on.
    assert worker.proc.poll() is None, worker.log_tail()
    r = client.request("GET", "/connectors")
    assert r.status_code == 200 and sorted(r.json()) == ["crash-exit", "crash-segfault", "healthy"], r.text
    _grows(kafka_bootstrap, healthy)
    assert _placement(client, "healthy", 2), client.status("healthy")

    # A restart runs the task in a new process: it writes on from its committed offset, then dies in turn.
    before = _total(kafka_bootstrap, crash_topics["exit"])
    assert before > 0
    r = client.request("POST", "/connectors/crash-exit/tasks/0/restart")
    assert r.status_code == 204, r.text
    first_pid = deaths["exit"][1]
    _, second_pid, how = wait_until(lambda: _died(worker, client, "crash-exit", not_pid=first_pid), 60,
                                    message="the restarted task's new process to die")
    assert "exit code 1" in how and second_pid != worker.proc.pid
    assert _total(kafka_bootstrap, crash_topics["exit"]) > before
    _exactly_once(kafka_bootstrap, crash_topics["exit"], {0})
    assert worker.proc.poll() is None, worker.log_tail()
    _exactly_once(kafka_bootstrap, healthy, {0, 1})


def test_sigkill_of_a_worker_leaves_no_task_process(kafka_bootstrap: str, cluster) -> None:  # type: ignore[no-untyped-def]
    """SIGKILL of a worker: within the session timeout none of its processes is left, its tasks run on the
    other worker, and every record is there exactly once."""
    workers: list[WorkerProcess] = [cluster(), cluster()]
    for w in workers:
        w.wait_ready()
    topic = new_topic(kafka_bootstrap, partitions=4)
    client = ConnectClient(workers[0].url)
    client.create_connector("sk", {"connector.class": "VerifiableSource", "topic": topic, "tasks.max": "4",
                                   "throughput": "100"})

    def spread() -> dict[int, str] | None:
        placed = _placement(client, "sk", 4)
        return placed if placed and len(set(placed.values())) == 2 else None

    placed = wait_until(spread, 90, message="4 tasks RUNNING on both workers")
    victim, survivor = workers[1], workers[0]
    held = sorted(f"sk-{task}" for task, worker_id in placed.items() if worker_id == _worker_id(victim))
    # One process per task, below the worker.
    tasks = wait_until(lambda: (t := task_processes(victim)) and sorted(t.values()) == held and t, 30,
                       message=f"one process for each of the victim worker's tasks {held}")
    _grows(kafka_bootstrap, topic)
    tree = descendants(victim) | set(tasks)  # its helpers (the fork server) too
    victim.kill()
    wait_gone(tree, SESSION_TIMEOUT_S + MARGIN_S, "no process of the killed worker left")

    wait_until(lambda: (p := _placement(client, "sk", 4)) and set(p.values()) == {_worker_id(survivor)}, 90,
               message="all 4 tasks RUNNING on the survivor")
    wait_until(lambda: sorted(task_processes(survivor).values()) == [f"sk-{t}" for t in range(4)], 30,
               message="the 4 task processes under the survivor")
    _grows(kafka_bootstrap, topic)
    _exactly_once(kafka_bootstrap, topic, {0, 1, 2, 3})
