"""Header converters: SimpleHeaderConverter's bytes (Kafka's ``Values.convertToString``), the built-in
converters as header converters, and how header.converter is validated and listed (pure: no broker)."""

from __future__ import annotations

import decimal
from types import SimpleNamespace
from typing import Any

import pytest

from connect_runtime.api import (
    ConfigException,
    DataException,
    Header,
    HeaderConverter,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
)
from connect_runtime.cluster.framework_config import check_worker_converters
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.converters import ByteArrayConverter, JsonConverter, SimpleHeaderConverter, StringConverter
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.worker.source_task_base import WorkerSourceTask

SIMPLE = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
WORKER = {"bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c",
          "offset.storage.topic": "o", "status.storage.topic": "s"}


@pytest.mark.parametrize(("value", "expected"), [
    ("plain text", b"plain text"),
    ("", b""),
    ('three"blind\\"mice', b'three"blind\\"mice'),  # top-level strings are not escaped
    ("caf\u00e9 \U0001f600", "caf\u00e9 \U0001f600".encode()),
    (True, b"true"), (False, b"false"),
    (42, b"42"), (-9223372036854775808, b"-9223372036854775808"),
    (1.0, b"1.0"), (1e10, b"1.0E10"), (0.0001, b"1.0E-4"), (float("nan"), b"NaN"),
    (decimal.Decimal("1.50"), b"1.50"), (decimal.Decimal("1E-7"), b"1E-7"),
    (b"\x00\x01\xff", b"AAH/"),  # Base64.getEncoder(): standard alphabet, padded
    ([1, "a", None, True], b'[1,"a",null,true]'),
    ({"foo": "123", "bar": "baz"}, b'{"foo":"123","bar":"baz"}'),
    ({1: 2.5, "k": [b"\x01"]}, b'{1:2.5,"k":["AQ=="]}'),
    (['q"uo\\te'], b'["q\\"uo\\\\te"]'),  # embedded: only \ and " are escaped
    ([], b"[]"), ({}, b"{}"),
])
def test_simple_header_converter_writes_javas_bytes(value: Any, expected: bytes) -> None:
    assert SimpleHeaderConverter().from_connect_header("t", "h", value) == expected


def test_simple_header_converter_null_and_bad_values() -> None:
    conv = SimpleHeaderConverter()
    assert conv.from_connect_header("t", "h", None) is None
    assert conv.to_connect_header("t", "h", None) is None and conv.to_connect_header("t", "h", b"x") == "x"
    with pytest.raises(DataException, match=r"^Failed to serialize unexpected value type builtins\.object: "):
        conv.from_connect_header("t", "h", object())
    assert conv.config_def().keys == {}  # Java's is an empty ConfigDef


def test_built_in_converters_are_header_converters_writing_their_value_form() -> None:
    json = JsonConverter()
    json.configure({"schemas.enable": "false", "converter.type": "header"})
    assert json.from_connect_header("t", "h", {"a": [1, "x"]}) == b'{"a":[1,"x"]}'
    assert json.from_connect_header("t", "h", "x") == b'"x"'
    enveloped = JsonConverter()
    enveloped.configure({"converter.type": "header"})
    assert enveloped.from_connect_header("t", "h", 1) == b'{"schema":null,"payload":1}'
    assert StringConverter().from_connect_header("t", "h", 7) == b"7"
    assert ByteArrayConverter().from_connect_header("t", "h", b"raw") == b"raw"
    with pytest.raises(DataException):
        ByteArrayConverter().from_connect_header("t", "h", "text")
    assert all(issubclass(c, HeaderConverter) for c in (JsonConverter, StringConverter, ByteArrayConverter))


def test_header_converters_are_listed_as_java_lists_them() -> None:
    validator = ConnectorValidator(WorkerConfig.from_properties(WORKER), PluginRegistry())
    listed = sorted(p.class_name for p in validator.plugin_descs(False) if p.type == "header_converter")
    assert listed == ["org.apache.kafka.connect.converters.ByteArrayConverter",
                      "org.apache.kafka.connect.json.JsonConverter", SIMPLE,
                      "org.apache.kafka.connect.storage.StringConverter"]
    assert validator.plugin_config(SIMPLE) == []


@pytest.mark.parametrize(("header_converter", "error"), [
    (None, None),
    ("org.apache.kafka.connect.json.JsonConverter", None),
    ("StringConverter", None),
    ("VerifiableSource", "Class class VerifiableSource does not implement the HeaderConverter interface"),
    ("no.such.Converter",
     "Invalid value no.such.Converter for configuration header.converter: Class no.such.Converter could not be "
     "found."),
])
def test_validation_refuses_a_header_converter_that_is_not_one(header_converter: str | None,
                                                               error: str | None) -> None:
    validator = ConnectorValidator(WorkerConfig.from_properties(WORKER), PluginRegistry())
    props = {"connector.class": "VerifiableSource", "name": "v", "topic": "t"}
    if header_converter is not None:
        props["header.converter"] = header_converter
    infos = validator.validate(props)
    (value,) = [c.value for c in infos.configs if c.value.name == "header.converter"]
    assert value.errors == ([] if error is None else [error])
    assert infos.error_count == (0 if error is None else 1)
    assert SIMPLE in value.recommended_values
    assert [c.definition.default_value for c in infos.configs if c.value.name == "header.converter"] == [SIMPLE]


@pytest.mark.parametrize("kind", ["key", "value", "header"])
def test_converter_settings_without_their_converter_are_refused(kind: str) -> None:
    """Java ignores them silently (the worker's converter keeps the worker's settings): refused here."""
    validator = ConnectorValidator(WorkerConfig.from_properties(WORKER), PluginRegistry())
    props = {"connector.class": "VerifiableSource", "name": "v", "topic": "t",
             f"{kind}.converter.schemas.enable": "false"}
    infos = validator.validate(props)
    name = f"{kind}.converter"
    assert [c.value.errors for c in infos.configs if c.value.name == name] == [[
        f"{name}.schemas.enable would have no effect without {name}: the worker's {name} runs with the worker's "
        f"{name}.* settings. Set {name} as well, or remove it"]]
    converter = SIMPLE if kind == "header" else "org.apache.kafka.connect.json.JsonConverter"
    assert validator.validate({**props, name: converter}).error_count == 0


def test_simple_header_converter_is_not_a_key_converter() -> None:
    validator = ConnectorValidator(WorkerConfig.from_properties(WORKER), PluginRegistry())
    infos = validator.validate({"connector.class": "VerifiableSource", "name": "v", "topic": "t",
                                "key.converter": SIMPLE})
    assert [c.value.errors for c in infos.configs if c.value.name == "key.converter"] == [
        [f"Class class {SIMPLE} does not implement the Converter interface"]]


def test_worker_start_up_refuses_a_header_converter_that_is_not_one() -> None:
    plugins = PluginRegistry()
    check_worker_converters(WorkerConfig.from_properties(WORKER), plugins)
    bad = WorkerConfig.from_properties({**WORKER, "header.converter": "VerifiableSource"})
    with pytest.raises(ConfigException) as raised:
        check_worker_converters(bad, plugins)
    assert str(raised.value) == ("Invalid value VerifiableSource for configuration header.converter: "
                                 "Class class VerifiableSource does not implement the HeaderConverter interface")


def test_simple_header_converter_reads_header_text_as_javas_values_parse_string() -> None:
    conv = SimpleHeaderConverter()
    assert conv.to_connect_header_schema_and_value("t", "h", b"42") == SchemaAndValue(Schema.INT8_SCHEMA, 42)
    assert conv.to_connect_header("t", "h", b"[1,300]") == [1, 300]
    assert conv.to_connect_header("t", "h", b"true") is True and conv.to_connect_header("t", "h", b"x y") == "x y"
    # not UTF-8: replacement characters, as Java's String; an encoded surrogate is one of them
    assert conv.to_connect_header("t", "h", b"a\xed\xa0\x80b\xff") == "a\ufffdb\ufffd"


def test_simple_header_converter_writes_a_float_as_its_schema_says() -> None:
    conv = SimpleHeaderConverter()
    assert conv.from_connect_header("t", "h", 0.1, schema=Schema.FLOAT32_SCHEMA) == b"0.1"
    assert conv.from_connect_header("t", "h", 0.10000000149011612) == b"0.10000000149011612"  # a double
    assert conv.from_connect_header("t", "h", [0.5, 1.1], schema=SchemaBuilder.array(
        Schema.FLOAT32_SCHEMA).build()) == b"[0.5,1.1]"


class _Recording(HeaderConverter):
    """A header converter that takes no schema argument, as plugins written before header schemas."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def from_connect_header(self, topic: str, header_key: str, value: Any) -> bytes | None:  # type: ignore[override]
        self.calls.append((header_key, value))
        return b"x"

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        return data


def test_the_task_passes_a_header_schema_only_when_the_header_has_one() -> None:
    task = SimpleNamespace(_header_converter=SimpleHeaderConverter(), _header_takes_schema=True)
    headers = [("plain", 0.1), Header("typed", 0.1, Schema.FLOAT32_SCHEMA), Header("none", 0.1)]
    assert WorkerSourceTask._convert_headers(task, "t", headers) == [  # type: ignore[arg-type]
        ("plain", b"0.1"), ("typed", b"0.1"), ("none", b"0.1")]
    old_style = _Recording()
    task = SimpleNamespace(_header_converter=old_style, _header_takes_schema=True)
    assert WorkerSourceTask._convert_headers(task, "t", [("a", 1), Header("b", 2)]) == [  # type: ignore[arg-type]
        ("a", b"x"), ("b", b"x")]
    assert old_style.calls == [("a", 1), ("b", 2)]


def test_validation_checks_the_header_converters_own_settings() -> None:
    validator = ConnectorValidator(WorkerConfig.from_properties(WORKER), PluginRegistry())
    base = {"connector.class": "VerifiableSource", "name": "v", "topic": "t",
            "header.converter": "org.apache.kafka.connect.json.JsonConverter"}

    def settings(props: dict[str, str]) -> tuple[int, dict[str, tuple[str | None, list[str]]]]:
        infos = validator.validate(props)
        return infos.error_count, {c.value.name: (c.value.value, c.value.errors) for c in infos.configs
                                   if c.value.name.startswith("header.converter.") and "version" not in c.value.name}

    count, found = settings({**base, "header.converter.schemas.enable": "maybe"})
    assert count == 1 and found["header.converter.converter.type"] == ("header", [])
    assert found["header.converter.schemas.enable"] == (  # no value: it does not parse (as Kafka shows it)
        None, ["Invalid value maybe for configuration schemas.enable: Expected value to be either true or false"])
    assert settings({**base, "header.converter.schemas.enable": "false"})[0] == 0
    count, found = settings({**base, "header.converter": "StringConverter",
                             "header.converter.converter.encoding": "nope"})
    assert count == 1 and found["header.converter.converter.encoding"][1] == [
        "Invalid value nope for configuration converter.encoding: Unsupported character encoding"]
    assert settings({k: v for k, v in base.items() if k != "header.converter"}) == (0, {})
