"""The plugin allowlist (``plugin.allowed.packages``, ``plugin.path``) and discovery: a name outside it is
checked before any import and not found; a ``plugin.path`` directory's modules are discovered at
start-up; the worker file's plugin classes go through the same rule; PASSWORD values never show in
error messages."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from connect_runtime.api import ConfigDef, ConfigException, ConfigType, SourceConnector, Transformation
from connect_runtime.cluster.validation import ConnectorValidator
from connect_runtime.composition import compose_worker
from connect_runtime.config.plugin_classes import PluginAllowlist, PluginSettingError
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError
from connect_runtime.plugins.registry import PluginNotFoundError, PluginRegistry
from connect_runtime.redaction import password_values, redactor

REQUIRED = {"bootstrap.servers": "b:9092", "group.id": "g", "config.storage.topic": "c",
            "offset.storage.topic": "o", "status.storage.topic": "s"}
SENTINELS = ("tests.sentinel_import.Zen", "sentinel_import.Zen")


@pytest.fixture
def sentinel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file tests/sentinel_import.py writes when imported (importable here: tests/ is on sys.path)."""
    target = tmp_path / "imported"
    monkeypatch.setenv("CONNECT_RUNTIME_SENTINEL_FILE", str(target))
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
    for name in ("sentinel_import", "tests.sentinel_import"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return target


def _plugin_dir(root: Path, name: str = "acme_plugins") -> Path:
    root.mkdir(exist_ok=True)
    (root / f"{name}.py").write_text(
        "from connect_runtime.api import Transformation\n"
        "from connect_runtime.transforms.filter import Filter  # imported, not defined here: not its plugin\n"
        "class Shout(Transformation):\n"
        "    def apply(self, record):\n"
        "        return record\n"
        "class NotAPlugin:\n"
        "    pass\n")
    return root


def test_a_name_outside_the_allowlist_is_not_found_and_not_imported(sentinel: Path) -> None:
    zen_before = "this" in sys.modules
    registry = PluginRegistry(PluginAllowlist(["tests.plugins", "sentinel"]))
    for name in (*SENTINELS, "this.Zen", "builtins.int", "unittest.__main__.Main", "tests.Zen", ".sentinel_import.Zen",
                 "sentinel_import$Zen"):
        assert not registry.allowlist.allows(name)
        with pytest.raises(PluginNotFoundError):
            registry.resolve(name)
    assert not sentinel.exists()
    assert ("this" in sys.modules) == zen_before
    assert int not in registry.all_plugins()


def test_an_allowed_package_allows_its_modules_only_and_only_plugin_classes(sentinel: Path) -> None:
    allowlist = PluginAllowlist(["sentinel_import"])
    assert allowlist.allows("sentinel_import.Zen") and allowlist.allows("sentinel_import.sub.Zen")
    assert not allowlist.allows("sentinel_importer.Zen")
    registry = PluginRegistry(allowlist)
    assert issubclass(registry.resolve("sentinel_import.Zen"), Transformation)
    assert sentinel.exists()  # the control: allowed, so imported
    with pytest.raises(PluginNotFoundError):
        registry.resolve("sentinel_import.Path")  # a class, but no plugin
    assert all(c.__name__ != "Path" for c in registry.all_plugins())


def test_plugin_path_modules_are_discovered_at_start_up(tmp_path: Path) -> None:
    plugins = _plugin_dir(tmp_path / "plugins")
    registry = PluginRegistry(PluginAllowlist(plugin_path=[str(plugins)]))
    shout = registry.resolve("Shout")
    assert shout.__module__ == "acme_plugins" and shout in registry.transformations()
    assert registry.resolve("acme_plugins.Shout") is shout
    with pytest.raises(PluginNotFoundError):
        registry.resolve("acme_plugins.NotAPlugin")


def test_bad_plugin_path_entries_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PluginSettingError, match="not a directory"):
        PluginAllowlist(plugin_path=[str(tmp_path / "missing")])
    one, two = _plugin_dir(tmp_path / "one", "twice"), _plugin_dir(tmp_path / "two", "twice")
    with pytest.raises(PluginSettingError, match="module twice is also in"):
        PluginAllowlist(plugin_path=[str(one), str(two)])
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "json.py").write_text("")
    with pytest.raises(ConfigException, match="module json is shadowed by"):
        PluginRegistry(PluginAllowlist(plugin_path=[str(shadow)]))
    with pytest.raises(PluginSettingError, match="must be a dotted Python package name"):
        PluginAllowlist(["..up"])


def test_worker_file_plugin_classes_go_through_the_allowlist(sentinel: Path, tmp_path: Path) -> None:
    for key in ("connector.client.config.override.policy", "config.providers.x.class"):
        props = {**REQUIRED, key: "sentinel_import.Zen", "config.providers": "x" if "providers" in key else ""}
        with pytest.raises(WorkerConfigError, match=r"sentinel_import\.Zen"):
            compose_worker(props)
    assert not sentinel.exists()
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "vault_provider.py").write_text(
        "from connect_runtime.api.config_provider import ConfigProvider\n"
        "class Vault(ConfigProvider):\n"
        "    def configure(self, configs): pass\n"
        "    def get(self, path, keys): return {k: 'v-' + k for k in keys}\n"
        "    def close(self): pass\n")
    composed = compose_worker({**REQUIRED, "plugin.path": str(plugins), "config.providers": "v",
                               "config.providers.v.class": "vault_provider.Vault"})
    assert composed.plugins.config_transformer.transform({"a": "${v:p:k}"}).data == {"a": "v-k"}
    composed.close()


class _Secretive(SourceConnector):
    """A connector with a PASSWORD key whose plugin validation logs it."""

    def version(self) -> str:
        return "1"

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("db.password", ConfigType.PASSWORD, "",
                                  lambda name, value: _refuse_short(name, value))

    def validate(self, connector_configs):  # type: ignore[no-untyped-def]
        logging.getLogger(__name__).warning("validating with %s", connector_configs.get("db.password"))
        return super().validate(connector_configs)

    def start(self, props):  # type: ignore[no-untyped-def]
        pass

    def task_class(self):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def task_configs(self, max_tasks):  # type: ignore[no-untyped-def]
        return []

    def stop(self) -> None:
        pass


class _Tokenised(Transformation):
    """A transformation with a PASSWORD key."""

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("token", ConfigType.PASSWORD, "")

    def apply(self, record):  # type: ignore[no-untyped-def]
        return record


def _refuse_short(name: str, value: object) -> None:
    if len(str(value)) < 30:
        raise ConfigException(name, value, "too short")


def test_password_values_are_hidden_in_results_errors_and_the_log(caplog: pytest.LogCaptureFixture) -> None:
    secret = "hunter2-but-longer"
    registry = PluginRegistry()
    registry.register(_Secretive)
    registry.register(_Tokenised)
    validator = ConnectorValidator(WorkerConfig.from_properties(REQUIRED), registry)
    with caplog.at_level(logging.WARNING):
        infos = validator.validate({"connector.class": "_Secretive", "name": "n", "db.password": secret})
    (value,) = [c.value for c in infos.configs if c.value.name == "db.password"]
    assert (value.value, value.errors) == ("[hidden]", ["Invalid value [hidden] for configuration db.password: "
                                                        "too short"])
    assert secret not in str(infos)
    assert "validating with [hidden]" in caplog.text and secret not in caplog.text
    assert redactor.redact(secret) == secret  # no longer redacted once validation is over
    infos = validator.validate({"connector.class": "_Secretive", "name": "n", "db.password": secret * 2,
                                "transforms": "t", "transforms.t.type": "_Tokenised", "transforms.t.token": secret})
    assert {c.value.name: c.value.value for c in infos.configs}["transforms.t.token"] == "[hidden]"
    infos = validator.validate({"connector.class": "_Secretive", "name": "n", "db.password": "a"})
    (value,) = [c.value for c in infos.configs if c.value.name == "db.password"]
    assert (value.value, value.errors) == ("[hidden]", ["Invalid value [hidden] for configuration db.password: "
                                                        "too short"])
    assert password_values(_Secretive().config_def(), {"db.password": "short"}).secrets == {}  # < 6: left alone


def test_plugin_discovery_modes_other_than_the_default_are_refused() -> None:
    config = WorkerConfig.from_properties({**REQUIRED, "plugin.discovery": "HYBRID_WARN"})
    assert config.plugin_discovery == "hybrid_warn"
    with pytest.raises(WorkerConfigError, match=r'Invalid value "service_load" for configuration plugin\.discovery'):
        WorkerConfig.from_properties({**REQUIRED, "plugin.discovery": "service_load"})
