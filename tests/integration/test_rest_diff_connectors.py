"""The connector and connector-plugin endpoints, ours against Apache Kafka Connect's, request by request
(harness: rest_differential.py).

Both workers run on the same broker with their own groups; each request goes to both and the answers
must be the same, but for the deliberate divergences listed, with their reasons, in
``rest_differential.DELIBERATE_DIVERGENCES``. The connectors are ``FileStreamSource``, which both
workers have; its topics are created first (Java's task needs its topic to exist).
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from rest_differential import Differential, Req

from connect_runtime.testing.pytest_plugin import new_topic

pytestmark = [pytest.mark.kafka, pytest.mark.connect_worker(eos="enabled")]

#: The plugins both workers have, by simple class name: our connectors are Python classes of other
#: packages than Java's (a fact of the product, not a divergence), so entries are compared by alias.
SHARED_PLUGINS = frozenset({
    "FileStreamSourceConnector", "VerifiableSourceConnector",
    "ByteArrayConverter", "JsonConverter", "StringConverter", "SimpleHeaderConverter",
    "Cast$Key", "Cast$Value", "DropHeaders", "ExtractField$Key", "ExtractField$Value", "Filter",
    "Flatten$Key", "Flatten$Value", "HeaderFrom$Key", "HeaderFrom$Value", "HoistField$Key",
    "HoistField$Value", "InsertField$Key", "InsertField$Value", "InsertHeader", "MaskField$Key",
    "MaskField$Value", "RegexRouter", "ReplaceField$Key", "ReplaceField$Value", "SetSchemaMetadata$Key",
    "SetSchemaMetadata$Value", "TimestampConverter$Key", "TimestampConverter$Value", "TimestampRouter",
    "ValueToKey", "HasHeaderKey", "RecordIsTombstone", "TopicNameMatches",
})

#: The connector class both workers know by this alias.
FILE_SOURCE = "FileStreamSource"


@pytest.fixture(scope="module")
def source_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("diff-connectors") / "lines.txt"
    path.write_text("a\nb\nc\n")
    return path


def file_source(source_file: Path, topic: str, **extra: Any) -> dict[str, Any]:
    return {"connector.class": FILE_SOURCE, "tasks.max": "1", "file": str(source_file), "topic": topic, **extra}


def simple_name(class_name: str) -> str:
    return class_name.rsplit(".", 1)[-1]


def shared_plugins(body: list[dict[str, str]]) -> list[dict[str, str]]:
    """The entries of the plugins both workers have, their classes shown by simple name."""
    return [{**p, "class": simple_name(p["class"])} for p in body if simple_name(p.get("class", "")) in SHARED_PLUGINS]


def _key_facts(definition: dict[str, Any], value: dict[str, Any] | None = None) -> None:
    name = definition.get("name", "")
    # A plugin's version is its own (normalised, as every version is).
    if name.endswith(".plugin.version") and definition.get("default_value") is not None:
        definition["default_value"] = "<version>"
        if value is not None:
            value["value"] = None if value.get("value") is None else "<version>"
            value["recommended_values"] = ["<version>" for _ in value.get("recommended_values", [])]
    # connector.class's documentation names the base class and an example plugin: Java's there, Python's here.
    if name == "connector.class":
        definition["documentation"] = "<plugin facts>"
    # The converters recommended are those installed: compare those both workers have.
    if name in ("key.converter", "value.converter", "header.converter") and value is not None:
        value["recommended_values"] = [c for c in value.get("recommended_values", [])
                                       if simple_name(c) in SHARED_PLUGINS]


def plugin_facts(body: Any) -> Any:
    """A config definition (``GET .../config``) or validation result with the plugins' own facts (their
    versions, the class names in ``connector.class``'s documentation, the installed converters) made
    comparable."""
    if isinstance(body, list):
        for key in body:
            if isinstance(key, dict):
                _key_facts(key)
    elif isinstance(body, dict):
        for config in body.get("configs", []):
            _key_facts(config["definition"], config["value"])
    return body


def available_plugins(body: Any) -> Any:
    """An error body without the plugin facts of its message: the list of available connectors (Java's
    classes there, Python's here) and the Java exception class Java's message may start with."""
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        message = body["message"].split(", available connectors are: ")[0]
        body["message"] = re.sub(r"^(org\.apache\.kafka\.[\w.]+Exception: )+", "", message)
    return body


def installed_version(body: Any) -> Any:
    """An error body naming a plugin's class and installed versions (Java's there, ours here) without them."""
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        message = re.sub(r"^Plugin \S+ not found", "Plugin <class> not found", body["message"])
        body["message"] = re.sub(r"available versions: \[.*\]$", "available versions: <versions>", message)
    return body


def python_task_class(body: Any) -> Any:
    """Task configs with the task class shown by simple name (a Python class here, a Java one there)."""
    for task in body if isinstance(body, list) else []:
        if "task.class" in task.get("config", {}):
            task["config"]["task.class"] = simple_name(task["config"]["task.class"])
    return body


def test_connector_plugins(rest_diff: Differential) -> None:
    def config(label: str, plugin: str, query: str = "", view: Any = plugin_facts) -> Req:
        return Req(f"connectors-plugin-config-{label}", "GET", f"/connector-plugins/{plugin}/config{query}", view=view)

    rest_diff.send_all([
        Req("connectors-plugins", "GET", "/connector-plugins", view=shared_plugins),
        Req("connectors-plugins-only-true", "GET", "/connector-plugins?connectorsOnly=true", view=shared_plugins),
        Req("connectors-plugins-all", "GET", "/connector-plugins?connectorsOnly=false", view=shared_plugins),
        config("alias", "FileStreamSource"),
        config("simple", "FileStreamSourceConnector"),
        config("full-name", "org.apache.kafka.connect.file.FileStreamSourceConnector"),
        config("transform", "org.apache.kafka.connect.transforms.Cast$Value"),
        config("predicate", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches"),
        config("converter", "org.apache.kafka.connect.json.JsonConverter"),
        config("header-converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter"),
        config("version-latest", "FileStreamSource", "?version=latest"),
        config("version-invalid", "FileStreamSource", "?version=[bad"),
        config("version-missing", "FileStreamSource", "?version=9.9.9", view=installed_version),
        config("unknown", "NoSuchPlugin"),
        config("unknown-class", "com.example.NoSuchConnector"),
    ])
    rest_diff.assert_same()


def test_validate(rest_diff: Differential, source_file: Path) -> None:
    def validate(label: str, config: Any, plugin: str = FILE_SOURCE, **kw: Any) -> Req:
        return Req(f"connectors-validate-{label}", "PUT", f"/connector-plugins/{plugin}/config/validate",
                   json_body=config, view=lambda b: available_plugins(plugin_facts(b)), **kw)

    topic = "diff-validate"
    rest_diff.send_all([
        validate("valid", file_source(source_file, topic)),
        validate("no-class", {"tasks.max": "1", "topic": topic}),
        validate("missing-topic", {"connector.class": FILE_SOURCE, "file": str(source_file)}),
        validate("bad-batch-size", file_source(source_file, topic, **{"batch.size": "many"})),
        validate("negative-batch-size", file_source(source_file, topic, **{"batch.size": "-1"})),
        validate("bad-tasks-max", file_source(source_file, topic, **{"tasks.max": "0"})),
        validate("tasks-max-above-limit", file_source(source_file, topic, **{"tasks.max": "1001"})),
        validate("unknown-transform", file_source(source_file, topic, transforms="t",
                                                  **{"transforms.t.type": "com.example.NoSuchTransform"})),
        validate("transform-no-type", file_source(source_file, topic, transforms="t")),
        validate("transform-predicate", file_source(source_file, topic, **{
            "transforms": "route,drop",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": "(.*)", "transforms.route.replacement": "$1-x",
            "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.predicate": "tomb", "transforms.drop.negate": "true",
            "predicates": "tomb",
            "predicates.tomb.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
        })),
        validate("predicate-unknown", file_source(source_file, topic, **{
            "transforms": "drop", "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.predicate": "nope", "predicates": "nope",
        })),
        validate("converters", file_source(source_file, topic, **{
            "key.converter": "JsonConverter", "key.converter.schemas.enable": "maybe",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "header.converter": "org.apache.kafka.connect.json.JsonConverter",
        })),
        validate("transform-alias", file_source(source_file, topic, transforms="f", **{"transforms.f.type": "Filter"})),
        validate("errors", file_source(source_file, topic, **{
            "errors.tolerance": "all", "errors.retry.timeout": "-1", "errors.retry.delay.max.ms": "100",
            "errors.log.enable": "true", "errors.log.include.messages": "maybe",
        })),
        validate("transform-missing-setting", file_source(source_file, topic, **{
            "transforms": "route", "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter"})),
        validate("transform-bad-setting", file_source(source_file, topic, **{
            "transforms": "cast", "transforms.cast.type": "org.apache.kafka.connect.transforms.Cast$Value",
            "transforms.cast.spec": "x:nope"})),
        validate("predicate-bad-pattern", file_source(source_file, topic, **{
            "transforms": "drop", "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.predicate": "m", "predicates": "m",
            "predicates.m.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
            "predicates.m.pattern": "(",
        })),
        validate("client-overrides", file_source(source_file, topic, **{
            "producer.override.linger.ms": "5", "admin.override.request.timeout.ms": "1000"})),
        validate("exactly-once-required", file_source(source_file, topic, **{"exactly.once.support": "required"})),
        validate("boundary-connector", file_source(source_file, topic, **{"transaction.boundary": "connector"})),
        validate("boundary-interval", file_source(source_file, topic, **{
            "transaction.boundary": "interval", "transaction.boundary.interval.ms": "-5"})),
        validate("offsets-topic-empty", file_source(source_file, topic, **{"offsets.storage.topic": ""})),
        validate("errors-bad-tolerance", file_source(source_file, topic, **{"errors.tolerance": "some"})),
        validate("topic-creation", file_source(source_file, topic, **{
            "topic.creation.groups": "g",
            "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "3",
            "topic.creation.g.include": "diff-.*", "topic.creation.g.partitions": "5",
        })),
        validate("topic-creation-bad", file_source(source_file, topic, **{
            "topic.creation.default.replication.factor": "0", "topic.creation.default.partitions": "x",
        })),
        validate("class-mismatch", file_source(source_file, topic), plugin="VerifiableSource"),
        validate("class-full-name", file_source(
            source_file, topic, **{"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector"})),
        validate("empty-object", {}),
        validate("array", ["a"]),
        validate("null-value", file_source(source_file, topic, **{"batch.size": None})),
        validate("number-value", file_source(source_file, topic, **{"batch.size": 10})),
        validate("unknown-plugin", {"connector.class": "NoSuchPlugin"}, plugin="NoSuchPlugin"),
    ])
    rest_diff.assert_same()


def test_create(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap)
    name = f"diff-create-{uuid.uuid4().hex[:6]}"
    config = file_source(source_file, topic)

    def create(label: str, body: Any) -> Req:
        return Req(f"connectors-create-{label}", "POST", "/connectors", json_body=body, view=available_plugins)

    # A request that should fail names a connector of its own, so that one created by mistake on either
    # side shows as that request's difference only.
    rest_diff.send_all([
        create("valid", {"name": name, "config": config}),
        create("exists", {"name": name, "config": config}),
        create("exists-other-config", {"name": name, "config": {**config, "batch.size": "3"}}),
        create("no-name", {"config": config}),
        create("null-name", {"name": None, "config": config}),
        create("empty-name", {"name": "", "config": config}),
        create("blank-name", {"name": "  ", "config": config}),
        create("control-name", {"name": f"{name}-\u0007", "config": config}),
        create("no-config", {"name": f"{name}-no-config"}),
        create("name-mismatch", {"name": f"{name}-mismatch", "config": {**config, "name": "other"}}),
        create("unknown-class", {"name": f"{name}-unknown-class", "config": {**config, "connector.class": "NoSuch"}}),
        create("no-topic", {"name": f"{name}-no-topic", "config": {"connector.class": FILE_SOURCE}}),
        # Java's Jetty refuses an encoded slash in a path, so a connector named so could never be deleted
        # there: this one is invalid for another reason, which both must find all the same.
        create("slash-name", {"name": f"{name}/b", "config": {"connector.class": FILE_SOURCE}}),
        create("no-class", {"name": f"{name}-no-class", "config": {"topic": topic}}),
        create("bad-batch-size", {"name": f"{name}-bad-batch", "config": {**config, "batch.size": "x"}}),
        create("object-value", {"name": f"{name}-object", "config": {**config, "batch.size": {"a": 1}}}),
        create("extra-field", {"name": f"{name}-extra", "config": config, "extra": 1}),
        create("initial-bad", {"name": f"{name}-initial-bad", "config": config, "initial_state": "SLEEPING"}),
        create("array", [name]),
        create("number-name", {"name": 42, "config": {"connector.class": FILE_SOURCE}}),
        create("class-full-name-no-topic", {"name": f"{name}-full", "config": {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector"}}),
    ])
    rest_diff.assert_same()
    # Each of these creates a connector of its own name, the same on both sides.
    variants: dict[str, dict[str, Any]] = {
        "spaces": {"name": f"{name} with spaces"},
        "unicode": {"name": f"{name}-\u00e9\u4e2d"},
        "numbers": {"name": f"{name}-num", "config": {**config, "tasks.max": 1, "batch.size": 10}},
        "booleans": {"name": f"{name}-bool", "config": {**config, "errors.log.enable": True}},
        "null-value": {"name": f"{name}-null", "config": {**config, "batch.size": None}},
        "paused": {"name": f"{name}-paused", "initial_state": "PAUSED"},
        "stopped": {"name": f"{name}-stopped", "initial_state": "STOPPED"},
        "running": {"name": f"{name}-running", "initial_state": "RUNNING"},
        "initial-lower": {"name": f"{name}-lower", "initial_state": "paused"},
    }
    for label, body in variants.items():
        rest_diff.send(create(label, {"config": config, **body}))
    def created_here(names: list[str]) -> list[str]:
        # Java lists the names in its HashSet's order: compared as a set. The connector with a null value
        # exists on Java only (connectors-create-null-value).
        return sorted(n for n in names if n.startswith(name) and n != f"{name}-null")

    rest_diff.send(Req("connectors-list-created", "GET", "/connectors", view=created_here))
    rest_diff.assert_same()
    for client in rest_diff.http.values():
        for created in client.get("/connectors").json():
            if created.startswith(name):
                assert client.delete(f"/connectors/{quote(created, safe='')}").status_code == 204


def test_config_and_reads(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap)
    name = f"diff-cfg-{uuid.uuid4().hex[:6]}"
    config = file_source(source_file, topic)
    rest_diff.send(Req("connectors-put-create", "PUT", f"/connectors/{name}/config", json_body=config))
    # The answers to an update show the tasks the connector has by then: wait for them on both sides.
    rest_diff.wait_both(lambda c: c.get(f"/connectors/{name}/tasks").json() != [], "tasks configured")
    rest_diff.send_all([
        Req("connectors-put-update", "PUT", f"/connectors/{name}/config", json_body={**config, "batch.size": "5"}),
        Req("connectors-put-name-mismatch", "PUT", f"/connectors/{name}/config",
            json_body={**config, "name": "other"}),
        Req("connectors-put-invalid", "PUT", f"/connectors/{name}/config", json_body={**config, "batch.size": "x"}),
        Req("connectors-put-no-class", "PUT", f"/connectors/{name}/config", json_body={"topic": topic}),
        Req("connectors-put-array", "PUT", f"/connectors/{name}/config", json_body=[1]),
        Req("connectors-put-empty", "PUT", f"/connectors/{name}-empty/config", json_body={}),
        Req("connectors-put-numbers", "PUT", f"/connectors/{name}/config",
            json_body={**config, "tasks.max": 1, "batch.size": 5}),
        Req("connectors-patch", "PATCH", f"/connectors/{name}/config", json_body={"batch.size": "7"}),
        Req("connectors-patch-remove", "PATCH", f"/connectors/{name}/config", json_body={"batch.size": None}),
        Req("connectors-patch-empty", "PATCH", f"/connectors/{name}/config", json_body={}),
        Req("connectors-patch-invalid", "PATCH", f"/connectors/{name}/config", json_body={"topic": ""}),
        Req("connectors-patch-unknown", "PATCH", "/connectors/nope/config", json_body={"a": "b"}),
        Req("connectors-patch-rename", "PATCH", f"/connectors/{name}/config", json_body={"name": "other"}),
        Req("connectors-patch-number", "PATCH", f"/connectors/{name}/config", json_body={"batch.size": 9}),
        Req("connectors-patch-class", "PATCH", f"/connectors/{name}/config", json_body={"connector.class": "NoSuch"},
            view=available_plugins),
        Req("connectors-get", "GET", f"/connectors/{name}"),
        Req("connectors-get-config", "GET", f"/connectors/{name}/config"),
        Req("connectors-get-tasks", "GET", f"/connectors/{name}/tasks", view=python_task_class),
        Req("connectors-get-unknown", "GET", "/connectors/nope"),
        Req("connectors-get-config-unknown", "GET", "/connectors/nope/config"),
        Req("connectors-get-tasks-unknown", "GET", "/connectors/nope/tasks"),
    ])
    rest_diff.assert_same()


def test_tasks_config_is_gone(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    # GET /connectors/{c}/tasks-config was deprecated in 3.x and removed in 4.0: no such path, known
    # connector or not.
    name = f"diff-tc-{uuid.uuid4().hex[:6]}"
    rest_diff.both("PUT", f"/connectors/{name}/config", 201,
                   json=file_source(source_file, new_topic(kafka_bootstrap), **{"tasks.max": "1"}))
    rest_diff.send_all([
        Req("connectors-get-tasks-config", "GET", f"/connectors/{name}/tasks-config"),
        Req("connectors-get-tasks-config-unknown", "GET", "/connectors/nope/tasks-config"),
    ])
    rest_diff.assert_same()
    rest_diff.both("DELETE", f"/connectors/{name}", 204)


def test_list_and_delete(rest_diff: Differential, source_file: Path, kafka_bootstrap: str) -> None:
    topic = new_topic(kafka_bootstrap)
    name = f"diff-list-{uuid.uuid4().hex[:6]}"
    rest_diff.both("POST", "/connectors", 201, json={"name": name, "config": file_source(source_file, topic)})
    rest_diff.wait_both(lambda c: c.get(f"/connectors/{name}/status").json()["tasks"][0]["state"] == "RUNNING",
                        "task running")

    def only(body: Any) -> Any:
        # Connectors of the other tests of this module are still there: compare this one's entry.
        return {name: body[name]} if isinstance(body, dict) and name in body else body

    rest_diff.send_all([
        Req("connectors-list-status", "GET", "/connectors?expand=status", view=only),
        Req("connectors-list-info", "GET", "/connectors?expand=info", view=only),
        Req("connectors-list-both", "GET", "/connectors?expand=status&expand=info", view=only),
        Req("connectors-list-both-reversed", "GET", "/connectors?expand=info&expand=status", view=only),
        Req("connectors-list-comma", "GET", "/connectors?expand=status,info", view=only),
        Req("connectors-list-unknown-expand", "GET", "/connectors?expand=nope", view=only),
        Req("connectors-list-empty-expand", "GET", "/connectors?expand=", view=only),
        Req("connectors-list-upper-expand", "GET", "/connectors?expand=STATUS", view=only),
        Req("connectors-list-expand-trailing-slash", "GET", "/connectors/?expand=info", view=only),
        Req("connectors-delete", "DELETE", f"/connectors/{name}"),
        Req("connectors-delete-again", "DELETE", f"/connectors/{name}"),
        Req("connectors-delete-unknown", "DELETE", "/connectors/nope"),
    ])
    rest_diff.assert_same()
