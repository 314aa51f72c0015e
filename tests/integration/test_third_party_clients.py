"""Five third-party Kafka Connect clients, unmodified, against our worker and against Java Kafka Connect.

The clients: PyPI ``kafka-connect-py`` (library and its ``kc`` CLI), PyPI ``kafkaconnect`` (library and
its ``kafkaconnect`` CLI), PyPI ``kafka-connect-api``, npm ``kafka-connect-client`` (run by
``clients/driver.mjs``) and Maven ``org.sourcelab:kafka-connect-client`` (run by ``clients/Driver.java``).

Every client runs the same :data:`SCRIPT` of operations, each mapped to the client's own call for it
(an operation the client does not offer is left out), once against Java Kafka Connect 4.1.1 (the
session's ``java_connect`` worker) and once against this module's worker, both on the same broker
with a ``FileStreamSource`` connector (which both have). An operation passes when the call does not
fail, its answer holds what the step expects and the worker reaches the state the step causes. The
test fails for any operation that passes on Java and fails on ours; the operations that fail on Java
too, because of the client, are :data:`CLIENT_BUGS`, checked to still fail on Java so that the table
stays true (docs/operations.md, "Third-party clients", lists them).

Not run: ``kafkaconnect create influxdb-sink|s3-sink|jdbc-sink|mirrormaker2``, which create connectors
of plugins neither worker has through the same calls as ``kafkaconnect upload``; ``kafkaconnect help``
and ``kc --version``, which call no worker; ``kafka-connect-api``'s ``aws_lambdas``, AWS Lambda
handlers around the same calls.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest
from kafka_connect import KafkaConnect
from kafka_connect_api.kafka_connect_api import Api, Cluster, Connector
from kafkaconnect.connect import Connect

from connect_runtime.testing import ConnectClient, ConnectRestError, WorkerProcess, wait_until
from connect_runtime.testing.java_connect import CONNECT_REFERENCE_VERSION, JavaConnectWorker
from connect_runtime.testing.launcher import file_lock
from connect_runtime.testing.local_kafka import default_cache_dir, ensure_maven_jars
from connect_runtime.testing.pytest_plugin import new_topic

#: Exactly-once source support enabled, as on the ``java_connect`` worker.
pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled")]

NPM_CLIENT_VERSION = "2.3.0"
"""npm ``kafka-connect-client``, installed at test time into a cache keyed by this version."""

SOURCELAB_CLIENT_VERSION = "4.0.5"
"""Maven ``org.sourcelab:kafka-connect-client``, fetched at test time into a cache keyed by this version."""

DRIVERS = Path(__file__).parent / "clients"

#: How long a worker may take to reach the state an operation causes.
EFFECT_TIMEOUT_S = 30.0


# ---------------------------------------------------------------------------------------------
# The script
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What one client's run works on: its connector, topic and input file, on one worker."""

    rest: ConnectClient
    name: str
    topic: str
    file: Path
    config_file: Path
    cluster_id: str
    level: str

    @property
    def config(self) -> dict[str, str]:
        return {"connector.class": "FileStreamSource", "name": self.name, "tasks.max": "1",
                "file": str(self.file), "topic": self.topic}

    @property
    def config2(self) -> dict[str, str]:
        return {**self.config, "batch.size": "100"}

    @property
    def pattern(self) -> str:
        return f"^{self.name}$"

    def ctx(self) -> dict[str, Any]:
        """What a driver is handed with each operation."""
        return {"name": self.name, "config": self.config, "config2": self.config2, "plugin": "FileStreamSource",
                "pattern": self.pattern, "level": self.level, "config_file": str(self.config_file),
                "offsets": [{"partition": {"filename": str(self.file)}, "offset": {"position": 0}}]}


def _running(run: Run) -> bool:
    return run.rest.in_state(run.name, "RUNNING", 1) is not None


def _running_with_topic(run: Run) -> bool:
    return _running(run) and run.topic in run.rest.active_topics(run.name)


def _paused(run: Run) -> bool:
    return run.rest.in_state(run.name, "PAUSED", 1) is not None


def _stopped(run: Run) -> bool:
    return run.rest.in_state(run.name, "STOPPED") is not None


def _reconfigured(run: Run) -> bool:
    return run.rest.connector_config(run.name).get("batch.size") == "100" and _running(run)


def _no_topics(run: Run) -> bool:
    return run.rest.active_topics(run.name) == []


def _offsets_altered(run: Run) -> bool:
    return [o["offset"] for o in run.rest.offsets(run.name)] == [{"position": 0}]


def _no_offsets(run: Run) -> bool:
    return run.rest.offsets(run.name) == []


def _root_level_kept(run: Run) -> bool:
    return bool(run.rest.request("GET", "/admin/loggers/root").json()["level"] == run.level)


def _gone(run: Run) -> bool:
    return run.rest.request("GET", f"/connectors/{run.name}").status_code == 404


def _bring_about(run: Run, reached: Callable[[Run], bool], method: str, path: str, **kwargs: Any) -> None:
    """Send the request until the worker is where ``reached`` says (a worker may refuse it for a moment,
    during a rebalance)."""
    def done() -> bool:
        with contextlib.suppress(ConnectRestError):  # e.g. no status yet: not there
            if reached(run):
                return True
        run.rest.request(method, path, **kwargs)
        return False

    wait_until(done, EFFECT_TIMEOUT_S, interval_s=1.0, message=f"{method} {path} to take effect")


def _ensure_running(run: Run) -> None:
    _bring_about(run, _running, "PUT", f"/connectors/{run.name}/resume")


def _ensure_stopped(run: Run) -> None:
    _bring_about(run, _stopped, "PUT", f"/connectors/{run.name}/stop")


def _recreate(run: Run) -> None:
    # Running, not only created: until then a listing with its status may leave it out (Java's does).
    _bring_about(run, _running, "POST", "/connectors", json={"name": run.name, "config": run.config})


@dataclass(frozen=True)
class Step:
    """One operation of the script.

    ``expect``: texts the client's answer must hold (``{name}``, ``{topic}`` and ``{cluster_id}`` filled
    in); ``effect``: what the worker must reach afterwards; ``prepare``: what the test itself does (over
    REST) before, so that the step starts from the state it needs whatever the client offered before it.
    """

    op: str
    label: str = ""
    expect: tuple[str, ...] = ()
    effect: Callable[[Run], bool] | None = None
    prepare: Callable[[Run], None] | None = None

    @property
    def key(self) -> str:
        return self.label or self.op


SCRIPT: tuple[Step, ...] = (
    Step("server_info", expect=("{cluster_id}",)),
    Step("plugins", expect=("FileStreamSourceConnector",)),
    Step("plugins_all", expect=("JsonConverter",)),
    Step("validate", expect=("error_count",)),
    Step("create", effect=_running_with_topic),
    Step("list", expect=("{name}",)),
    Step("list_pattern", expect=("{name}",)),
    Step("list_state", expect=("{name}",)),
    Step("list_expand_status", expect=("{name}", "RUNNING")),
    Step("list_expand_info", expect=("{name}", "{topic}")),
    Step("list_expand_all", expect=("RUNNING", "{topic}")),
    Step("exists", expect=("true",)),
    Step("get", expect=("{topic}",)),
    Step("connector_class", expect=("FileStreamSource",)),
    Step("config_get", expect=("{topic}",)),
    Step("tasks", expect=("{name}",)),
    Step("status", expect=("RUNNING",)),
    Step("state", expect=("RUNNING",)),
    Step("task_status", expect=("RUNNING",)),
    Step("task_running", expect=("true",)),
    Step("topics", expect=("{topic}",)),
    Step("offsets", expect=("position",)),
    Step("config_put", effect=_reconfigured),
    Step("restart", effect=_running),
    Step("restart_with_tasks", effect=_running),
    Step("restart_all", effect=_running),
    Step("restart_task", effect=_running),
    Step("restart_all_tasks", effect=_running),
    Step("pause", effect=_paused),
    Step("resume", effect=_running),
    Step("pause_all", effect=_paused),
    Step("resume_all", effect=_running),
    Step("cycle", effect=_running),
    Step("stop_all", effect=_stopped, prepare=_ensure_running),
    Step("stop", effect=_stopped, prepare=_ensure_running),
    Step("topics_reset", effect=_no_topics, prepare=_ensure_stopped),
    Step("offsets_alter", effect=_offsets_altered, prepare=_ensure_stopped),
    Step("offsets_reset", effect=_no_offsets, prepare=_ensure_stopped),
    Step("resume", label="resume after stop", effect=_running),
    Step("loggers", expect=("root",)),
    Step("root_logger", expect=("level",)),
    Step("root_logger_set", effect=_root_level_kept),
    Step("logger_set", effect=_root_level_kept),
    Step("delete", effect=_gone),
    Step("delete_all", effect=_gone, prepare=_recreate),
)
"""Every operation any of the clients offers, in an order where each finds the state it needs.

The names are this test's (``*_all`` acts on every connector matching a pattern, here the run's own
connector; ``cycle`` is pause, restart every task, resume); each client maps the ones it offers."""


# ---------------------------------------------------------------------------------------------
# Drivers: one per client, mapping the script's operations to the client's calls
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What a client call gave: ``ok`` false when it raised (``text`` then says why), else its answer as text."""

    ok: bool
    text: str


class Driver(Protocol):
    ops: frozenset[str]

    def call(self, op: str, ctx: Mapping[str, Any]) -> Answer: ...

    def close(self) -> None: ...


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=repr)


@dataclass
class LibraryDriver:
    """A Python client called in this process; ``failures`` are texts of answers that report an error
    instead of raising (Connect's error body, or the client's own messages)."""

    table: Mapping[str, Callable[[Mapping[str, Any]], Any]]
    failures: tuple[str, ...] = ('"error_code"',)
    ops: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.ops = frozenset(self.table)

    def call(self, op: str, ctx: Mapping[str, Any]) -> Answer:
        try:
            text = _text(self.table[op](ctx))
        except Exception as e:  # whatever the client raises is this operation's failure
            response = getattr(e, "response", None)  # requests' HTTPError: its message leaves the body out
            body = f" {response.text}" if response is not None else ""
            return Answer(False, f"{type(e).__name__}: {e}{body}")
        return Answer(not any(f in text for f in self.failures), text)

    def close(self) -> None:
        pass


@dataclass
class CliDriver:
    """A Python client's CLI, one process per operation: ``command`` then the operation's arguments.
    Both CLIs print errors and exit 0, so ``failures`` are the texts of their error messages."""

    command: list[str]
    table: Mapping[str, Callable[[Mapping[str, Any]], list[str]]]
    failures: tuple[str, ...]
    ops: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.ops = frozenset(self.table)

    def call(self, op: str, ctx: Mapping[str, Any]) -> Answer:
        proc = subprocess.run([*self.command, *self.table[op](ctx)], capture_output=True, text=True, timeout=60,
                              check=False)
        text = proc.stdout
        failed = proc.returncode != 0 or any(f in text for f in self.failures)
        return Answer(not failed, f"{text}{proc.stderr[-2000:]}" if failed else text)

    def close(self) -> None:
        pass


class ProcessDriver:
    """A driver program (``clients/driver.mjs``, ``clients/Driver.java``) that reads an operation a line
    on stdin and answers a line on stdout, ``{"ok": ..., "value" | "error": ...}``."""

    def __init__(self, command: list[str], stderr: Path) -> None:
        self.stderr = stderr
        with stderr.open("w") as err:
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)
        self.ops = frozenset(self._request("ops", {})["value"])

    def _request(self, op: str, ctx: Mapping[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"op": op, "ctx": ctx}) + "\n")
        self.proc.stdin.flush()
        # Skip what a library prints on its own (the JVM's or a logger's warnings).
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"the driver {self.proc.args} exited with {self.proc.wait()}: "
                                     f"{self.stderr.read_text()[-2000:]}")
            if line.startswith('{"ok"'):
                answer: dict[str, Any] = json.loads(line)
                return answer

    def call(self, op: str, ctx: Mapping[str, Any]) -> Answer:
        answer = self._request(op, ctx)
        return Answer(True, _text(answer["value"])) if answer["ok"] else Answer(False, answer["error"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def kafka_connect_py(url: str) -> Driver:
    kc = KafkaConnect(url=url)
    return LibraryDriver({
        "server_info": lambda x: kc.get_cluster_info(),
        "plugins": lambda x: kc.list_connector_plugins(),
        "validate": lambda x: kc.validate_connector_config(x["plugin"], x["config"]),
        "create": lambda x: kc.create_connector({"name": x["name"], "config": x["config"]}),
        "list": lambda x: kc.list_connectors(),
        "list_pattern": lambda x: kc.list_connectors(pattern=x["pattern"]),
        "list_state": lambda x: kc.list_connectors(pattern=x["pattern"], state="RUNNING"),
        "list_expand_status": lambda x: kc.list_connectors(expand="status"),
        "list_expand_info": lambda x: kc.list_connectors(expand="info"),
        "get": lambda x: kc.get_connector(x["name"]),
        "config_get": lambda x: kc.get_connector_config(x["name"]),
        "tasks": lambda x: kc.list_connector_tasks(x["name"]),
        "status": lambda x: kc.get_connector_status(x["name"]),
        "task_status": lambda x: kc.get_connector_task_status(x["name"], 0),
        "topics": lambda x: kc.list_connector_topics(x["name"]),
        "config_put": lambda x: kc.update_connector(x["name"], x["config2"]),
        "restart": lambda x: kc.restart_connector(x["name"]),
        "restart_with_tasks": lambda x: kc.restart_connector(x["name"], include_tasks=True),
        "restart_all": lambda x: kc.restart_all_connectors(pattern=x["pattern"]),
        "restart_task": lambda x: kc.restart_connector_task(x["name"], 0),
        "pause": lambda x: kc.pause_connector(x["name"]),
        "resume": lambda x: kc.resume_connector(x["name"]),
        "pause_all": lambda x: kc.pause_all_connectors(pattern=x["pattern"]),
        "resume_all": lambda x: kc.resume_all_connectors(pattern=x["pattern"]),
        "stop_all": lambda x: kc.stop_all_connectors(pattern=x["pattern"]),
        "stop": lambda x: kc.stop_connector(x["name"]),
        "topics_reset": lambda x: kc.reset_connector_topics(x["name"]),
        "delete": lambda x: kc.delete_connector(x["name"]),
        "delete_all": lambda x: kc.delete_all_connectors(pattern=x["pattern"]),
    })


def _script(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def kc_cli(url: str) -> Driver:
    def data(value: Any) -> list[str]:
        return ["-d", json.dumps(value)]

    return CliDriver([_script("kc"), "--url", url], {
        "server_info": lambda x: ["info"],
        "plugins": lambda x: ["list-plugins"],
        "validate": lambda x: ["validate-config", x["plugin"], *data(x["config"])],
        "create": lambda x: ["create", *data({"name": x["name"], "config": x["config"]})],
        "list": lambda x: ["list"],
        "list_pattern": lambda x: ["list", "-p", x["pattern"]],
        "list_state": lambda x: ["list", "-p", x["pattern"], "-s", "RUNNING"],
        "list_expand_status": lambda x: ["list", "-e", "status"],
        "list_expand_info": lambda x: ["list", "-e", "info"],
        "get": lambda x: ["get", x["name"]],
        "config_get": lambda x: ["config", x["name"]],
        "tasks": lambda x: ["list-tasks", x["name"]],
        "status": lambda x: ["status", x["name"]],
        "task_status": lambda x: ["task-status", x["name"], "0"],
        "topics": lambda x: ["list-topics", x["name"]],
        "config_put": lambda x: ["update", x["name"], *data(x["config2"])],
        "restart": lambda x: ["restart", x["name"]],
        "restart_with_tasks": lambda x: ["restart", x["name"], "--include-tasks"],
        "restart_all": lambda x: ["restart", "--all", "-p", x["pattern"]],
        "restart_task": lambda x: ["restart-task", x["name"], "0"],
        "pause": lambda x: ["pause", x["name"]],
        "resume": lambda x: ["resume", x["name"]],
        "pause_all": lambda x: ["pause", "--all", "-p", x["pattern"]],
        "resume_all": lambda x: ["resume", "--all", "-p", x["pattern"]],
        "topics_reset": lambda x: ["reset-topics", x["name"]],
        "delete": lambda x: ["delete", x["name"]],
        "delete_all": lambda x: ["delete", "--all", "-p", x["pattern"]],
    }, failures=("Client Error", "Server Error", "Oops!", "Error decoding JSON"))


#: What kafkaconnect's ``Connect`` answers instead of raising on 404, 409 and a refused connection.
_KAFKACONNECT_FAILURES = ('"error_code"', "not found.", "rebalance is in process", "Failed to establish")


def kafkaconnect_lib(url: str) -> Driver:
    connect = Connect(url)
    return LibraryDriver({
        "plugins": lambda x: connect.plugins(),
        "validate": lambda x: connect.validate(x["plugin"], json.dumps(x["config"])),
        "create": lambda x: connect.validate_and_create(x["name"], json.dumps(x["config"])),
        "list": lambda x: connect.list(),
        "get": lambda x: connect.info(x["name"]),
        "config_get": lambda x: connect.config(x["name"]),
        "tasks": lambda x: connect.tasks(x["name"]),
        "status": lambda x: connect.status(x["name"]),
        "topics": lambda x: connect.topics(x["name"]),
        "config_put": lambda x: connect.create_or_update(x["name"], json.dumps(x["config2"])),
        "restart": lambda x: connect.restart(x["name"]),
        "pause": lambda x: connect.pause(x["name"]),
        "resume": lambda x: connect.resume(x["name"]),
        "delete": lambda x: connect.remove(x["name"]),
    }, failures=_KAFKACONNECT_FAILURES)


def kafkaconnect_cli(url: str) -> Driver:
    return CliDriver([_script("kafkaconnect"), "--connect", url], {
        "plugins": lambda x: ["plugins"],
        "validate": lambda x: ["upload", x["config_file"], "--name", x["name"], "--dry-run"],
        "create": lambda x: ["upload", x["config_file"], "--name", x["name"]],
        "list": lambda x: ["list"],
        "get": lambda x: ["info", x["name"]],
        "config_get": lambda x: ["config", x["name"]],
        "tasks": lambda x: ["tasks", x["name"]],
        "status": lambda x: ["status", x["name"]],
        "topics": lambda x: ["topics", x["name"]],
        "restart": lambda x: ["restart", x["name"]],
        "pause": lambda x: ["pause", x["name"]],
        "resume": lambda x: ["resume", x["name"]],
        "delete": lambda x: ["delete", x["name"]],
    }, failures=("Traceback", *_KAFKACONNECT_FAILURES))


def kafka_connect_api(url: str) -> Driver:
    cluster = Cluster(Api(url=url))

    def connector(x: Mapping[str, Any]) -> Connector:
        return Connector(cluster, x["name"])

    def set_root(x: Mapping[str, Any]) -> None:
        cluster.root_logger = x["level"]

    return LibraryDriver({
        "server_info": lambda x: repr(cluster),  # the cluster's URL, version and Kafka cluster id
        "create": lambda x: setattr(connector(x), "config", x["config"]),
        "list": lambda x: list(cluster.connectors),
        "exists": lambda x: connector(x).exists(),
        "get": lambda x: connector(x).config,
        "connector_class": lambda x: connector(x).connector_class,
        "tasks": lambda x: connector(x).tasks,
        "status": lambda x: connector(x).status,
        "state": lambda x: connector(x).state,
        "task_status": lambda x: connector(x).tasks[0].status,
        "task_running": lambda x: connector(x).tasks[0].is_running(),
        "config_put": lambda x: setattr(connector(x), "config", x["config2"]),
        "restart": lambda x: connector(x).restart(),
        "restart_task": lambda x: connector(x).tasks[0].restart(),
        "restart_all_tasks": lambda x: connector(x).restart_all_tasks(),
        "pause": lambda x: connector(x).pause(),
        "resume": lambda x: connector(x).resume(),
        "cycle": lambda x: connector(x).cycle_connector(),
        "loggers": lambda x: cluster.loggers,
        "root_logger": lambda x: cluster.root_logger,
        "root_logger_set": set_root,
        "logger_set": lambda x: cluster.set_logger_log_level("root", x["level"]),
        "delete": lambda x: connector(x).delete(),
    })


# ---------------------------------------------------------------------------------------------
# The npm and Maven clients, fetched once into the cache the broker's jars use
# ---------------------------------------------------------------------------------------------


def npm_client_dir() -> Path:
    """A directory whose ``node_modules`` holds npm ``kafka-connect-client`` (installed the first time)."""
    directory = default_cache_dir().parent / f"npm-kafka-connect-client-{NPM_CLIENT_VERSION}"
    marker = directory / ".complete"
    if marker.is_file():
        return directory
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed to install the npm client kafka-connect-client"
    with file_lock(directory / ".lock"):
        if not marker.is_file():
            proc = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(directory),
                                   f"kafka-connect-client@{NPM_CLIENT_VERSION}"],
                                  capture_output=True, text=True, timeout=300, check=False)
            assert proc.returncode == 0, f"npm install failed: {proc.stdout}{proc.stderr}"
            marker.touch()
    return directory


@pytest.fixture(scope="module")
def npm_client() -> Path:
    assert shutil.which("node") is not None, "node is needed to run the npm client kafka-connect-client"
    return npm_client_dir()


@pytest.fixture(scope="module")
def sourcelab_classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The classpath of ``Driver`` (compiled here) and the Maven client with its dependencies."""
    libs = ensure_maven_jars(default_cache_dir().parent / f"sourcelab-kafka-connect-client-{SOURCELAB_CLIENT_VERSION}",
                             (("org.sourcelab", "kafka-connect-client", SOURCELAB_CLIENT_VERSION),),
                             "kafka-connect-client-", "sourcelab-kafka-connect-client",
                             version=CONNECT_REFERENCE_VERSION)
    javac = shutil.which("javac")
    assert javac is not None, "javac (a JDK) is needed to compile the Maven client's driver"
    classes = tmp_path_factory.mktemp("sourcelab-driver")
    subprocess.run([javac, "-cp", f"{libs}/*", "-d", str(classes), str(DRIVERS / "Driver.java")], check=True,
                   timeout=600)  # generous: a loaded 2-core CI machine
    return f"{classes}{os.pathsep}{libs}/*"


# ---------------------------------------------------------------------------------------------
# Operations that fail on Java Kafka Connect too
# ---------------------------------------------------------------------------------------------

_AXIOS_FORM = ("axios labels a request without a body application/x-www-form-urlencoded, and the reference's "
               "resources consume JSON only: 415")

CLIENT_BUGS: dict[tuple[str, str], str] = {
    # (client, operation): the client's bug that makes the operation fail on Java Kafka Connect 4.1.1 too
    ("kc", "validate"): "validate-config passes the config's JSON text on, which the library encodes again: the body "
                        "is a JSON string, not an object",
    ("npm kafka-connect-client", "list_expand_all"): "axios writes expand: [status, info] as expand[]=status&"
                                                     "expand[]=info, a parameter Connect does not read",
    ("npm kafka-connect-client", "topics"): "getTopics replaces axios's transformResponse, then indexes the unparsed "
                                            "JSON text: TypeError",
    ("npm kafka-connect-client", "restart_task"): _AXIOS_FORM,
    ("npm kafka-connect-client", "pause"): _AXIOS_FORM,
    ("npm kafka-connect-client", "resume"): _AXIOS_FORM,
    ("npm kafka-connect-client", "resume after stop"): _AXIOS_FORM,
    ("npm kafka-connect-client", "stop"): _AXIOS_FORM,
    ("npm kafka-connect-client", "topics_reset"): _AXIOS_FORM,
}


# ---------------------------------------------------------------------------------------------
# Running the script
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    ok: bool
    detail: str


#: ``(client, "java" | "ours")`` -> operation -> its outcome.
Outcomes = dict[tuple[str, str], dict[str, Outcome]]


def run_script(driver: Driver, run: Run) -> dict[str, Outcome]:
    """Each step the driver offers, in order: what it gave, judged by the step's expectations and effect."""
    results: dict[str, Outcome] = {}
    ctx = run.ctx()
    try:
        for step in SCRIPT:
            if step.op not in driver.ops:
                continue
            if step.prepare is not None:
                step.prepare(run)
            answer = _call(driver, step.op, ctx)
            results[step.key] = _judge(step, answer, run)
    finally:
        driver.close()
        # DELETE until the worker no longer knows it: once deleted, the next one is a 404.
        wait_until(lambda: run.rest.request("DELETE", f"/connectors/{run.name}").status_code == 404,
                   EFFECT_TIMEOUT_S, message=f"{run.name} deleted")
    return results


#: A refusal that Kafka Connect asks clients to retry: a request during a rebalance (500 on Java), or a
#: conflict with a concurrent config change (409). The runs share their workers, so either can happen.
#: ``kc`` prints no body, only ``500 Server Error``: any 500 it reports is retried.
_TRANSIENT = re.compile(r"rebalance|stale configuration|\b409 (Client Error|Conflict)|HTTP 409|error_code\W{1,4}409|"
                        r"\b500 Server Error")
#: How long a transient refusal is asked again (a rebalance of one worker takes a second or two).
TRANSIENT_RETRY_S = 10.0


def _call(driver: Driver, op: str, ctx: Mapping[str, Any]) -> Answer:
    """The driver's answer, asked again while it is a transient refusal (as a client's user would)."""
    deadline = time.monotonic() + TRANSIENT_RETRY_S
    while True:
        answer = driver.call(op, ctx)
        if answer.ok or not _TRANSIENT.search(answer.text) or time.monotonic() > deadline:
            return answer
        time.sleep(0.5)


def _judge(step: Step, answer: Answer, run: Run) -> Outcome:
    if not answer.ok:
        return Outcome(False, answer.text[:500])
    for expected in step.expect:
        wanted = expected.format(name=run.name, topic=run.topic, cluster_id=run.cluster_id)
        if wanted not in answer.text:
            return Outcome(False, f"{wanted!r} not in the answer {answer.text[:500]!r}")
    if step.effect is not None:
        effect = step.effect
        try:
            wait_until(lambda: effect(run), EFFECT_TIMEOUT_S, message=effect.__name__.strip("_"))
        except AssertionError as e:
            return Outcome(False, f"{e} (the answer: {answer.text[:300]!r})")
    return Outcome(True, "")


def new_run(url: str, kafka_bootstrap: str, tmp: Path) -> Run:
    name = f"client-{uuid.uuid4().hex[:8]}"
    file = tmp / f"{name}.txt"
    file.write_text("".join(f"line {i}\n" for i in range(10)))
    rest = ConnectClient(url)
    run = Run(rest=rest, name=name, topic=new_topic(kafka_bootstrap), file=file,
              config_file=tmp / f"{name}.json", cluster_id=rest.server_info()["kafka_cluster_id"],
              level=rest.request("GET", "/admin/loggers/root").json()["level"])
    run.config_file.write_text(json.dumps(run.config))
    return run


def table(results: Mapping[str, tuple[Outcome, Outcome]]) -> str:
    """One line per operation: passed on Java? on ours? and why not."""
    lines = [f"{'operation':<22} java  ours"]
    for op, (java, ours) in results.items():
        why = "; ".join(f"{side}: {o.detail}" for side, o in (("java", java), ("ours", ours)) if not o.ok)
        lines.append(f"{op:<22} {'ok  ' if java.ok else 'FAIL'}  {'ok  ' if ours.ok else 'FAIL'}  {why}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------

CLIENTS = ("kafka-connect-py", "kc", "kafkaconnect", "kafkaconnect-cli", "kafka-connect-api",
           "npm kafka-connect-client", "sourcelab kafka-connect-client")


def make_driver(client: str, url: str, npm_client: Path, sourcelab_classpath: str, stderr: Path) -> Driver:
    if client == "npm kafka-connect-client":
        return ProcessDriver(["node", str(DRIVERS / "driver.mjs"), str(npm_client), url], stderr)
    if client == "sourcelab kafka-connect-client":
        return ProcessDriver(["java", "-cp", sourcelab_classpath, "Driver", url], stderr)
    factories: dict[str, Callable[[str], Driver]] = {
        "kafka-connect-py": kafka_connect_py, "kc": kc_cli, "kafkaconnect": kafkaconnect_lib,
        "kafkaconnect-cli": kafkaconnect_cli, "kafka-connect-api": kafka_connect_api,
    }
    return factories[client](url)


@pytest.fixture(scope="module")
def outcomes(worker: WorkerProcess, java_connect: JavaConnectWorker, kafka_bootstrap: str, npm_client: Path,
             sourcelab_classpath: str, tmp_path_factory: pytest.TempPathFactory) -> Outcomes:
    """Every client's script on both workers: ``(client, "java" | "ours")`` -> operation -> outcome.

    The fourteen runs go at once (each on a connector of its own): a run mostly waits for its worker."""
    tmp = tmp_path_factory.mktemp("client-runs")
    runs = {(client, side): new_run(url, kafka_bootstrap, tmp) for client in CLIENTS
            for side, url in (("java", java_connect.url), ("ours", worker.url))}

    def run_client(client: str, run: Run) -> dict[str, Outcome]:
        with closing(run.rest):
            driver = make_driver(client, run.rest.url, npm_client, sourcelab_classpath,
                                 run.file.with_suffix(".driver.log"))
            return run_script(driver, run)

    with ThreadPoolExecutor(len(runs)) as pool:
        futures = {key: pool.submit(run_client, key[0], run) for key, run in runs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("client", CLIENTS)
def test_client_operations_that_work_on_java_work_on_ours(client: str, outcomes: Outcomes) -> None:
    java, ours = outcomes[client, "java"], outcomes[client, "ours"]
    assert java.keys() == ours.keys()
    report = table({op: (java[op], ours[op]) for op in ours})

    problems = []
    for op in ours:
        bug = CLIENT_BUGS.get((client, op))
        if bug is not None:
            if java[op].ok:
                problems.append(f"{op}: listed as failing on Java ({bug}) but passed there")
        elif not java[op].ok:
            problems.append(f"{op}: failed on Java and is not in CLIENT_BUGS")
        elif not ours[op].ok:
            problems.append(f"{op}: passed on Java, failed on ours")
    print(report)  # what passed where, for a run with -rP
    assert not problems, "\n".join(problems) + "\n\n" + report
    unknown = {op for (c, op) in CLIENT_BUGS if c == client} - ours.keys()
    assert not unknown, f"CLIENT_BUGS names operations {client} does not run: {unknown}"
