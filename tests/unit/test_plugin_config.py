"""Plugin config definitions and validation as Java 4.1 presents them (pure: no broker)."""

from __future__ import annotations

import pytest
from worker_stubs import RecordingStatuses, StubSourceConnector

from connect_runtime.api.errors import ConnectException
from connect_runtime.cluster.herder_api import ConfigInfos
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.config.connector_config import source_connector_config_def
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.converters import BUILTIN_CONVERTERS
from connect_runtime.errors import BadRequestHttpError, NotFoundHttpError
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.types import TargetState
from connect_runtime.version import runtime_version, satisfies, version_requirement
from connect_runtime.worker import worker as worker_module
from connectors.verifiable.connector import VERSION as VERIFIABLE_VERSION

WORKER = WorkerConfig.from_properties({
    "bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c", "offset.storage.topic": "o",
    "status.storage.topic": "s", "key.converter": "org.apache.kafka.connect.storage.StringConverter",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
})
# Confluent's registry converters are built in too, under their Java names (sorted first).
JAVA_CONVERTERS = [*sorted(n for n in BUILTIN_CONVERTERS if n.startswith("io.confluent.")),
                   "org.apache.kafka.connect.converters.ByteArrayConverter",
                   "org.apache.kafka.connect.json.JsonConverter", "org.apache.kafka.connect.storage.StringConverter"]
FRAMEWORK_KEYS = list(source_connector_config_def().keys)


@pytest.fixture
def validator() -> ConnectorValidator:
    return ConnectorValidator(WORKER, PluginRegistry())


def _by_name(infos: ConfigInfos) -> dict[str, tuple[str | None, list[str], list[str], str | None]]:
    return {c.definition.name: (c.value.value, c.value.recommended_values, c.value.errors,
                                c.definition.default_value) for c in infos.configs}


def test_connector_config_lists_its_own_keys_then_the_24_framework_keys(validator: ConnectorValidator) -> None:
    keys = validator.plugin_config("VerifiableSource")
    names = [k.name for k in keys]
    assert names == ["topic", "throughput", "complete.record.data", *FRAMEWORK_KEYS]
    assert len(FRAMEWORK_KEYS) == 24
    by_name = {k.name: k for k in keys}
    # The definition has no converter defaults, as Java's; validation shows the worker's (below).
    assert by_name["key.converter"].default_value is None
    assert by_name["value.converter"].default_value is None
    assert by_name["header.converter"].default_value is None
    assert by_name["connector.plugin.version"].default_value == VERIFIABLE_VERSION
    assert by_name["tasks.max.enforce"].default_value == "true"


def test_converter_config_is_its_own_config_def(validator: ConnectorValidator) -> None:
    json_keys = validator.plugin_config("org.apache.kafka.connect.json.JsonConverter")
    assert [(k.name, k.default_value, k.group) for k in json_keys] == [
        ("converter.type", None, None), ("schemas.enable", "true", "Schemas"),
        ("schemas.cache.size", "1000", "Schemas"), ("decimal.format", "BASE64", "Serialization"),
        ("replace.null.with.default", "true", "Serialization")]
    assert [k.name for k in validator.plugin_config("StringConverter")] == ["converter.type", "converter.encoding"]
    assert [k.name for k in validator.plugin_config("ByteArrayConverter")] == ["converter.type"]


def test_unknown_plugin_is_404(validator: ConnectorValidator) -> None:
    with pytest.raises(NotFoundHttpError, match=r"^Unknown plugin NoSuchThing\.$"):
        validator.plugin_config("NoSuchThing")


def test_validate_echoes_connector_class_and_shows_framework_defaults(validator: ConnectorValidator) -> None:
    infos = validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t"})
    assert infos.name == "VerifiableSource" and infos.error_count == 0
    values = _by_name(infos)
    assert values["connector.plugin.version"][:2] == (VERIFIABLE_VERSION, [VERIFIABLE_VERSION])
    assert values["key.converter"][:2] == ("org.apache.kafka.connect.storage.StringConverter", JAVA_CONVERTERS)
    assert values["value.converter"][1] == JAVA_CONVERTERS
    assert values["tasks.max.enforce"][0] == "true"
    # KIP-891: each converter's version defaults to, and recommends, the installed one's.
    assert values["key.converter.plugin.version"][:2] == (runtime_version(), [runtime_version()])
    assert values["header.converter.plugin.version"][:2] == (runtime_version(), [runtime_version()])
    java = validator.validate({"connector.class": "org.apache.kafka.connect.tools.VerifiableSourceConnector",
                               "name": "v", "topic": "t"})
    assert java.name == "org.apache.kafka.connect.tools.VerifiableSourceConnector"


@pytest.mark.parametrize(("requested", "ok"), [
    (VERIFIABLE_VERSION, True), ("[0.1,1.0)", True), ("(0.1.0,)", False), ("9.9", False), ("[,0.0.9]", False)])
def test_connector_plugin_version_is_honoured(validator: ConnectorValidator, requested: str, ok: bool) -> None:
    infos = validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                "connector.plugin.version": requested})
    errors = _by_name(infos)["connector.plugin.version"][2]
    assert (errors == []) is ok, errors


def test_converter_plugin_versions_are_met_by_the_installed_converter_only(validator: ConnectorValidator) -> None:
    infos = validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                "value.converter.plugin.version": "3.9.0"})
    (error,) = _by_name(infos)["value.converter.plugin.version"][2]
    assert error == (f"Version 3.9.0 of plugin the worker's value.converter is not installed; the installed "
                     f"version is {runtime_version()}") and infos.error_count == 1
    infos = validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                "key.converter": "JsonConverter", "key.converter.plugin.version": runtime_version(),
                                "value.converter.plugin.version": f"[{runtime_version()},)"})
    assert infos.error_count == 0


@pytest.mark.parametrize(("spec", "required"), [
    ("1.0", "[1.0,1.0]"), (" [1.0] ", "[1.0,1.0]"), ("[1.0, 2.0)", "[1.0,2.0)"), ("(,2.0]", "(,2.0]"),
    ("[bad", None), ("", None), ("1.0]", None), ("[1.0", None)])
def test_version_requirement_as_java_reads_it(spec: str, required: str | None) -> None:
    if required is None:
        with pytest.raises(ValueError):
            version_requirement(spec)
    else:
        assert version_requirement(spec) == required


def test_plugin_config_of_a_version_not_installed_is_400(validator: ConnectorValidator) -> None:
    assert validator.plugin_config("VerifiableSource", f"[{VERIFIABLE_VERSION},{VERIFIABLE_VERSION}]")
    with pytest.raises(BadRequestHttpError) as raised:
        validator.plugin_config("VerifiableSource", "[9.9.9,9.9.9]")
    assert raised.value.message == ("Plugin connectors.verifiable.connector.VerifiableSourceConnector not found "
                                    f"that matches the version range [9.9.9,9.9.9], available versions: "
                                    f"[{VERIFIABLE_VERSION}]")


def test_version_ranges() -> None:
    assert satisfies("1.2.0", "[1.0,2.0)") and not satisfies("2.0", "[1.0,2.0)") and satisfies("2.0", "[1.0,2.0]")
    assert satisfies("1.10", "(1.9,)") and not satisfies("1.0", "1.0.0")


class _TooManyTasks(StubSourceConnector):
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"n": str(i)} for i in range(max_tasks + 2)]


_TOO_MANY = f"{__name__}._TooManyTasks"


def _too_many_tasks_plugins() -> PluginRegistry:
    plugins = PluginRegistry()
    plugins.register(_TooManyTasks)
    return plugins


TOO_MANY_TASKS = ("The connector c has generated 3 tasks, which is greater than 1, the maximum number of tasks it is "
                  "configured to create. This behaviour should be considered a bug and is disallowed. If necessary, "
                  "it can be permitted by reconfiguring the connector with 'tasks.max.enforce' set to false; however, "
                  "this option will be removed in a future release of Kafka Connect.")


@pytest.mark.parametrize("enforce", ["true", "false"])
def test_tasks_max_enforce(enforce: str) -> None:
    """Java 4.x: too many task configs fail the connector with TooManyTasksException's message."""
    statuses = RecordingStatuses()
    worker = worker_module.Worker(WORKER, "w:1", _too_many_tasks_plugins(), None, statuses,  # type: ignore[arg-type]
                                  lambda name: None)
    props = {"name": "c", "connector.class": _TOO_MANY, "tasks.max": "1", "tasks.max.enforce": enforce}
    assert worker.start_connector("c", props, TargetState.STARTED).result(5)
    statuses.connectors.clear()
    if enforce == "true":
        with pytest.raises(worker_module.TooManyTasksException) as raised:
            worker.connector_task_configs("c", 1).result(5)
        assert str(raised.value) == TOO_MANY_TASKS
        (status,) = statuses.connectors
        assert status.state == "FAILED" and status.trace is not None and TOO_MANY_TASKS in status.trace
    else:
        assert len(worker.connector_task_configs("c", 1).result(5)) == 3
        assert statuses.connectors == []


def test_tasks_max_limit_is_a_validation_error_and_never_reaches_the_connector(validator: ConnectorValidator) -> None:
    limited = WorkerConfig.from_properties({**WORKER.originals, "tasks.max.limit": "50"})
    infos = ConnectorValidator(limited, PluginRegistry()).validate(
        {"connector.class": "VerifiableSource", "name": "v", "topic": "t", "tasks.max": "2147483647"})
    assert _by_name(infos)["tasks.max"][2] == [
        "Invalid value 2147483647 for configuration tasks.max: Value must be no more than 50 (this worker's "
        "tasks.max.limit)"]
    assert infos.error_count == 1
    assert _by_name(validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                        "tasks.max": "1000"}))["tasks.max"][2] == []
    assert _by_name(validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                        "tasks.max": "1001"}))["tasks.max"][2] != []
    # A config stored with a higher tasks.max (another worker's limit) never asks the connector for tasks.
    worker = worker_module.Worker(limited, "w:1", _too_many_tasks_plugins(), None,  # type: ignore[arg-type]
                                  RecordingStatuses(), lambda name: None)
    assert worker.start_connector("c", {"name": "c", "connector.class": _TOO_MANY}, TargetState.STARTED).result(5)
    with pytest.raises(ConnectException, match=r"no more than 50"):
        worker.connector_task_configs("c", 2147483647).result(5)


def test_built_in_converters_are_listed_by_their_kafka_names(validator: ConnectorValidator) -> None:
    converters = sorted(p.class_name for p in validator.plugin_descs(False) if p.type == "converter")
    assert converters == JAVA_CONVERTERS
    assert all(p.type in ("source", "sink") for p in validator.plugin_descs(True))


def test_plugins_are_listed_by_type_then_class_name_with_versions(validator: ConnectorValidator) -> None:
    # As Java's ConnectorPluginsResource lists them: sinks, sources, transformations, predicates,
    # converters, header converters; the built-in converters have a version, as Kafka's do.
    descs = validator.plugin_descs(False)
    types = [p.type for p in descs]
    order = ["sink", "source", "transformation", "predicate", "converter", "header_converter"]
    assert types == sorted(types, key=order.index)
    for kind in set(types):
        names = [p.class_name for p in descs if p.type == kind]
        assert names == sorted(names)
    assert all(p.version == runtime_version() for p in descs if p.type in ("converter", "header_converter"))


def test_validation_shows_no_value_for_one_that_does_not_parse(validator: ConnectorValidator) -> None:
    # As Kafka's ConfigDef.validate: an unparseable value shows as null, one its validator refuses as parsed.
    values = _by_name(validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                          "tasks.max": "many", "errors.retry.timeout": "-2"}))
    assert values["tasks.max"][0] is None and values["tasks.max"][2] == [
        "Invalid value many for configuration tasks.max: Not a number of type INT"]
    assert values["errors.retry.timeout"][0] == "-2" and values["errors.retry.timeout"][2] != []


def test_config_without_connector_class_is_echoed_as_java_prints_its_hash_map(validator: ConnectorValidator) -> None:
    # The reference's message shows a HashMap copy of the config: {k=v, ...} in its bucket order.
    with pytest.raises(BadRequestHttpError) as raised:
        validator.validate({"topic": "diff-validate", "tasks.max": "1"})
    assert raised.value.message == "Connector config {topic=diff-validate, tasks.max=1} contains no connector type"
    with pytest.raises(BadRequestHttpError, match=r"^Connector config \{name=n, topic=t\} contains no connector"):
        validator.validate({"topic": "t", "name": "n"})


def test_key_and_value_converter_settings_are_validated_after_the_header_converters(
        validator: ConnectorValidator) -> None:
    # Java's validateAllConverterConfigs: the header converter's keys, the key's, then the value's, each only
    # when the connector names that converter, in the order of Java's ConfigDef.validate (a HashMap's).
    infos = validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                "header.converter": "JsonConverter", "key.converter": "JsonConverter",
                                "key.converter.schemas.enable": "maybe"})
    prefixed = [(c.value.name, c.value.value, c.value.errors) for c in infos.configs
                if c.value.name.startswith(("header.converter.", "key.converter.", "value.converter."))
                and not c.value.name.endswith(".plugin.version")]
    java_order = ["decimal.format", "converter.type", "schemas.cache.size", "replace.null.with.default",
                  "schemas.enable"]
    assert [n for n, _, _ in prefixed] == [*(f"header.converter.{k}" for k in java_order),
                                           *(f"key.converter.{k}" for k in java_order)]
    assert prefixed[6][1:] == ("key", [])
    assert prefixed[-1][1:] == (None, ["Invalid value maybe for configuration schemas.enable: Expected value to be "
                                       "either true or false"])
    assert infos.error_count == 1
    assert infos.groups[-2:] == ["Serialization", "Schemas"]


def test_only_a_built_in_converter_is_configured_by_validation(validator: ConnectorValidator,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # A plugin converter's configure may open clients it has no way to close: validation checks only its
    # ConfigDef, as Java's does; a built-in one is also configured, so a setting it refuses is an error.
    from connect_runtime.converters.json_converter import JsonConverter

    configured: list[dict[str, object]] = []

    class PluginConverter(JsonConverter):
        def configure(self, configs: dict[str, object], is_key: bool) -> None:  # type: ignore[override]
            configured.append(dict(configs))
            raise RuntimeError("would connect to a registry")

    built_in = validator._plugins.converter
    monkeypatch.setattr(validator._plugins, "converter",
                        lambda name: PluginConverter if name == "JsonConverter" else built_in(name))
    config = {"connector.class": "VerifiableSource", "name": "v", "topic": "t"}
    infos = validator.validate({**config, "value.converter": "JsonConverter"})
    errors = {c.value.name: c.value.errors for c in infos.configs if c.value.errors}
    assert configured == [] and errors == {}
    infos = validator.validate({**config, "value.converter": "StringConverter",
                                "value.converter.converter.encoding": "no-such-charset"})
    assert infos.error_count == 1
