"""Validation of transforms and predicates in connector configs (the reference's ConnectorConfig
enrich/validate errors in ConfigInfos), the task's transformation chain, and the plugin listing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from connect_runtime.api.config_def import ConfigDef, ConfigType, Importance
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.record import SourceRecord
from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.cluster.herder_api import ConfigInfos
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.config.plugin_classes import PluginAllowlist
from connect_runtime.config.worker_config import WorkerConfig
from connect_runtime.errors import BadRequestHttpError
from connect_runtime.plugins.registry import PluginRegistry
from connect_runtime.worker.transformation_chain import PredicatedTransformation, build_transformation_chain

WORKER = {"bootstrap.servers": "broker:9092", "group.id": "g", "config.storage.topic": "c",
          "offset.storage.topic": "o", "status.storage.topic": "s"}
BASE = {"name": "a", "connector.class": "VerifiableSource", "topic": "t"}

CLOSED: list[str] = []


class Tagging(Transformation):
    """A test transform: appends its ``tag`` to the value list; remembers being closed."""

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("tag", ConfigType.STRING, "x", None, Importance.HIGH, "The tag.")

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.tag = self.config_def().parse(configs)["tag"]
        self.configs = dict(configs)

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return SourceRecord(record.source_partition, record.source_offset, record.topic,
                            value=[*record.value, self.tag])

    def close(self) -> None:
        CLOSED.append(f"t:{self.tag}")


class IsEven(Predicate):
    """A test predicate: true for records whose source offset is even."""

    def test(self, record: SourceRecord) -> bool:
        return record.source_offset is not None and record.source_offset["n"] % 2 == 0

    def close(self) -> None:
        CLOSED.append("p")


TAGGING = f"{__name__}.Tagging"
IS_EVEN = f"{__name__}.IsEven"
#: This module's plugins are named by dotted path: its package is allowed.
ALLOWED = PluginAllowlist([__name__])


@pytest.fixture
def validator() -> ConnectorValidator:
    return ConnectorValidator(WorkerConfig.from_properties(WORKER), PluginRegistry(ALLOWED))


def errors(infos: ConfigInfos) -> dict[str, list[str]]:
    return {c.definition.name: c.value.errors for c in infos.configs if c.value.errors}


def test_valid_chain_adds_each_alias_keys_in_its_group(validator: ConnectorValidator) -> None:
    infos = validator.validate({**BASE, "transforms": "route,drop", "predicates": "isOrders",
                                "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
                                "transforms.route.regex": "(.*)", "transforms.route.replacement": "$1-out",
                                "transforms.drop.type": "Filter", "transforms.drop.predicate": "isOrders",
                                "transforms.drop.negate": "true",
                                "predicates.isOrders.type": "TopicNameMatches",
                                "predicates.isOrders.pattern": "orders.*"})
    assert infos.error_count == 0, errors(infos)
    by_name = {c.definition.name: c for c in infos.configs}
    route = [(c.definition.name, c.definition.group, c.definition.order) for c in infos.configs
             if c.definition.name.startswith("transforms.route.")]
    # Java's order: type, version, then the embedded keys sorted (required, importance, name).
    assert route == [("transforms.route.type", "Transforms: route", 0),
                     ("transforms.route.plugin.version", "Transforms: route", 1),
                     ("transforms.route.regex", "Transforms: route", 2),
                     ("transforms.route.replacement", "Transforms: route", 3),
                     ("transforms.route.negate", "Transforms: route", 4),
                     ("transforms.route.predicate", "Transforms: route", 5)]
    t = by_name["transforms.route.type"]
    assert (t.definition.type, t.definition.required, t.definition.importance, t.definition.display_name,
            t.definition.documentation) == ("CLASS", True, "HIGH", "Transformation type for route",
                                           "Class for the 'route' transformation.")
    assert "org.apache.kafka.connect.transforms.RegexRouter" in t.value.recommended_values
    assert by_name["transforms.drop.negate"].value.value == "true"
    assert by_name["transforms.drop.negate"].definition.default_value == "false"
    assert by_name["predicates.isOrders.pattern"].definition.group == "Predicates: isOrders"
    assert by_name["predicates.isOrders.type"].definition.display_name == "Predicate type for isOrders"
    assert "Transforms: route" in infos.groups and "Predicates: isOrders" in infos.groups


def test_plugin_version_is_the_installed_one(validator: ConnectorValidator) -> None:
    props = {**BASE, "transforms": "f", "transforms.f.type": "Filter", "predicates": "p",
             "predicates.p.type": "RecordIsTombstone"}
    infos = validator.validate(props)
    by_name = {c.definition.name: c for c in infos.configs}
    installed = by_name["transforms.f.plugin.version"].definition.default_value
    assert installed and installed != "undefined"
    assert by_name["predicates.p.plugin.version"].value.recommended_values == [installed]
    infos = validator.validate({**props, "transforms.f.plugin.version": "0.0.0-other"})
    assert errors(infos) == {"transforms.f.plugin.version": [
        f"Invalid value 0.0.0-other for configuration transforms.f.plugin.version: Version 0.0.0-other of plugin "
        f"connect_runtime.transforms.filter.Filter is not installed; the installed version is {installed}"]}
    chain = build_transformation_chain({**props, "transforms.f.plugin.version": installed}, PluginRegistry(ALLOWED))
    assert len(chain) == 1
    # A range, as for connector.plugin.version (KIP-891): the installed version satisfies it, or it is refused.
    assert errors(validator.validate({**props, "transforms.f.plugin.version": f"[{installed},)"})) == {}
    assert len(build_transformation_chain({**props, "predicates.p.plugin.version": f"[{installed},)"},
                                          PluginRegistry(ALLOWED))) == 1
    assert list(errors(validator.validate({**props, "predicates.p.plugin.version": "(,0.0.1]"}))) == [
        "predicates.p.plugin.version"]


def test_missing_type_of_a_listed_alias(validator: ConnectorValidator) -> None:
    infos = validator.validate({**BASE, "transforms": "dangler", "predicates": "p"})
    assert errors(infos) == {
        "transforms.dangler.type": ['Missing required configuration "transforms.dangler.type" which has no default '
                                    'value.'],
        "predicates.p.type": ['Missing required configuration "predicates.p.type" which has no default value.'],
    }
    # Each alias lists its version key all the same, without a default, as Kafka does.
    versions = {c.definition.name: (c.definition.group, c.definition.default_value, c.value.value)
                for c in infos.configs if c.definition.name.endswith(".plugin.version")
                and c.definition.name.startswith(("transforms.", "predicates."))}
    assert versions == {"transforms.dangler.plugin.version": ("Transforms: dangler", None, None),
                        "predicates.p.plugin.version": ("Predicates: p", None, None)}


def test_bad_types(validator: ConnectorValidator) -> None:
    infos = validator.validate({**BASE, "transforms": "a,b,c", "predicates": "p",
                                "transforms.a.type": "uninstantiable",
                                "transforms.b.type": "VerifiableSource",
                                "transforms.c.type": "org.apache.kafka.connect.transforms.InsertField",
                                "predicates.p.type": "RegexRouter"})
    assert errors(infos) == {
        "transforms.a.type": ["Invalid value uninstantiable for configuration transforms.a.type: Class uninstantiable "
                              "could not be found."],
        "transforms.b.type": ["Class class connectors.verifiable.connector.VerifiableSourceConnector does not "
                              "implement the Transformation interface"],
        "transforms.c.type": ["This class is abstract and cannot be created. Did you mean "
                              "connect_runtime.transforms.insert_field.InsertFieldKey, "
                              "connect_runtime.transforms.insert_field.InsertFieldValue?"],
        "predicates.p.type": ["Class class connect_runtime.transforms.regex_router.RegexRouter does not implement "
                              "the Predicate interface"],
    }
    # Kafka's parse of a class value loads the class: one not installed shows no value, another shows the
    # full name of the class it loaded, as does an alias that resolves.
    shown = {c.value.name: c.value.value for c in infos.configs}
    assert shown["transforms.a.type"] is None
    assert shown["transforms.b.type"] == "connectors.verifiable.connector.VerifiableSourceConnector"
    aliased = validator.validate({**BASE, "transforms": "f", "transforms.f.type": "Filter",
                                  "key.converter": "JsonConverter"})
    shown = {c.value.name: c.value.value for c in aliased.configs}
    assert shown["transforms.f.type"] == "org.apache.kafka.connect.transforms.Filter"
    assert shown["key.converter"] == "org.apache.kafka.connect.json.JsonConverter"


def test_duplicate_aliases(validator: ConnectorValidator) -> None:
    infos = validator.validate({**BASE, "transforms": "a,a", "transforms.a.type": "Filter",
                                "predicates": "p,p", "predicates.p.type": "RecordIsTombstone"})
    assert errors(infos) == {
        "transforms": ["Invalid value ['a', 'a'] for configuration transforms: Duplicate alias provided."],
        "predicates": ["Invalid value ['p', 'p'] for configuration predicates: Duplicate alias provided."],
    }


def test_plugin_settings_predicate_and_negate_errors(validator: ConnectorValidator) -> None:
    infos = validator.validate({**BASE, "transforms": "r,f,n", "predicates": "p",
                                "transforms.r.type": "RegexRouter", "transforms.r.regex": "(",
                                "transforms.f.type": "Filter", "transforms.f.predicate": "undefined",
                                "transforms.n.type": "Filter", "transforms.n.negate": "true",
                                "predicates.p.type": "TopicNameMatches"})
    assert errors(infos) == {
        "transforms.r.regex": ["Invalid value ( for configuration regex: Invalid regex: missing ), unterminated "
                               "subpattern at position 0"],
        "transforms.r.replacement": ['Missing required configuration "transforms.r.replacement" which has no default '
                                     'value.'],
        "transforms.f.predicate": ["Invalid value undefined for configuration transforms.f.predicate: Predicate "
                                   "'undefined' is not defined: list it in 'predicates' and set "
                                   "'predicates.undefined.type'"],
        "transforms.n.type": ["Config 'transforms.n.negate' was provided but there is no config "
                              "'transforms.n.predicate' defining a predicate to be negated."],
        "predicates.p.pattern": ['Missing required configuration "predicates.p.pattern" which has no default value.'],
    }


def test_create_is_refused_with_the_errors(validator: ConnectorValidator) -> None:
    props = {**BASE, "transforms": "x"}
    with pytest.raises(BadRequestHttpError) as info:
        validator.raise_if_invalid(validator.validate(props), props)
    assert 'Missing required configuration "transforms.x.type" which has no default value.' in str(info.value)


def test_plugin_listing_and_config(validator: ConnectorValidator) -> None:
    descs = {d.class_name: d for d in validator.plugin_descs(connectors_only=False)}
    assert descs["org.apache.kafka.connect.transforms.RegexRouter"].type == "transformation"
    assert descs["org.apache.kafka.connect.transforms.predicates.TopicNameMatches"].type == "predicate"
    assert descs["org.apache.kafka.connect.transforms.Filter"].version != "undefined"
    assert "org.apache.kafka.connect.transforms.InsertField" not in descs  # abstract
    assert all(d.type in ("source", "sink") for d in validator.plugin_descs(connectors_only=True))
    keys = validator.plugin_config("org.apache.kafka.connect.transforms.RegexRouter")
    assert [(k.name, k.type, k.required, k.importance) for k in keys] == [
        ("regex", "STRING", True, "HIGH"), ("replacement", "STRING", True, "HIGH")]
    assert [k.name for k in validator.plugin_config("TopicNameMatches")] == ["pattern"]
    with pytest.raises(BadRequestHttpError):
        validator.plugin_config("org.apache.kafka.connect.transforms.InsertField")


def _rec(n: int, value: list[str] | None = None) -> SourceRecord:
    return SourceRecord({"p": 0}, {"n": n}, "t", value=value if value is not None else [])


def test_chain_applies_in_order_with_predicates_and_closes() -> None:
    CLOSED.clear()
    props = {**BASE, "transforms": "one,two,three", "predicates": "even",
             "transforms.one.type": TAGGING, "transforms.one.tag": "1", "transforms.one.plugin.version": "undefined",
             "transforms.two.type": TAGGING, "transforms.two.tag": "2", "transforms.two.predicate": "even",
             "transforms.three.type": TAGGING, "transforms.three.tag": "3", "transforms.three.predicate": "even",
             "transforms.three.negate": "true",
             "predicates.even.type": IS_EVEN}
    chain = build_transformation_chain(props, PluginRegistry(ALLOWED))
    assert [type(t) for t in chain] == [Tagging, PredicatedTransformation, PredicatedTransformation]
    first = chain[0]
    assert isinstance(first, Tagging)
    assert first.configs == {"type": TAGGING, "tag": "1"}  # predicate/negate/plugin.version removed

    def run(rec: SourceRecord) -> Any:
        out: SourceRecord | None = rec
        for t in chain:
            assert out is not None
            out = t.apply(out)
        return None if out is None else out.value

    assert run(_rec(2)) == ["1", "2"]
    assert run(_rec(3)) == ["1", "3"]
    for t in chain:
        t.close()
    assert CLOSED == ["t:1", "t:2", "p", "t:3", "p"]  # each predicated transform has its own predicate


def test_chain_refuses_invalid_config_and_closes_what_it_built() -> None:
    CLOSED.clear()
    props = {**BASE, "transforms": "ok,bad", "transforms.ok.type": TAGGING,
             "transforms.bad.type": "RegexRouter", "transforms.bad.regex": "(a)", "transforms.bad.replacement": "$2"}
    with pytest.raises(ConfigException, match="No group 2"):
        build_transformation_chain(props, PluginRegistry(ALLOWED))
    assert CLOSED == ["t:x"]
    with pytest.raises(ConfigException, match=r'Missing required configuration "transforms\.x\.type"'):
        build_transformation_chain({**BASE, "transforms": "x"}, PluginRegistry(ALLOWED))
    assert build_transformation_chain(BASE, PluginRegistry(ALLOWED)) == []


class Outer:
    """Holds a nested transformation, as Java's InsertField holds Key and Value."""

    class Inner(Transformation):
        def apply(self, record: SourceRecord) -> SourceRecord | None:
            return record


def test_plugin_classes_by_dotted_path_including_nested_ones() -> None:
    plugins = PluginRegistry(ALLOWED)
    assert plugins.resolve(f"{__name__}.Outer$Inner") is Outer.Inner
    assert plugins.resolve(f"{__name__}.Outer.Inner") is Outer.Inner
    assert plugins.resolve(TAGGING) is Tagging
    with pytest.raises(Exception, match="Failed to find any class"):
        plugins.resolve(f"{__name__}.Outer.Missing")


def test_full_parse_of_the_enriched_config_refuses_an_invalid_chain() -> None:
    """What the worker runs before starting a connector (Java's ConnectorConfig with a full config)."""
    from connect_runtime.config.transformation_config import enrich

    props = {**BASE, "transforms": "r", "transforms.r.type": "RegexRouter", "transforms.r.regex": "x"}
    with pytest.raises(ConfigException, match=r'Missing required configuration "transforms\.r\.replacement"'):
        enrich(ConfigDef(), props, PluginRegistry(ALLOWED).resolve).parse(props)
