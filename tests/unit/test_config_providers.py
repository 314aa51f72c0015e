"""Config providers (file, directory, env, a plugin's own) and ``${provider:[path:]key}`` resolution."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Set
from pathlib import Path

import pytest

from connect_runtime.api import ConfigException, ConfigProvider
from connect_runtime.composition import compose_worker
from connect_runtime.config.config_providers import (
    ConfigTransformer,
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
    load_config_providers,
    reverse_transform,
)
from connect_runtime.config.worker_config import WorkerConfigError
from connect_runtime.redaction import SecretRedactor

REQUIRED = {
    "bootstrap.servers": "broker1:9092",
    "group.id": "g",
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
}


class RecordingProvider(ConfigProvider):
    """A plugin author's provider, found by dotted path; remembers its params and lookups."""

    instances: list[RecordingProvider] = []

    def __init__(self) -> None:
        self.params: dict[str, str] = {}
        self.lookups: list[tuple[str, frozenset[str]]] = []
        self.closed = False
        RecordingProvider.instances.append(self)

    def configure(self, configs: Mapping[str, str]) -> None:
        self.params = dict(configs)

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        self.lookups.append((path, frozenset(keys)))
        return {k: f"{path}/{k}".upper() for k in keys if k != "missing"}

    def close(self) -> None:
        self.closed = True


class Vendor:
    """A plugin author's provider nested in a class (named ``Vendor$Nested``, as Java names nested classes)."""

    class Nested(RecordingProvider):
        pass


class FailingProvider(ConfigProvider):
    def configure(self, configs: Mapping[str, str]) -> None:
        raise ValueError("cannot reach the vault")

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        return {}


def _file_provider(allowed: str | None = None) -> FileConfigProvider:
    p = FileConfigProvider()
    p.configure({} if allowed is None else {"allowed.paths": allowed})
    return p


def test_file_provider_reads_keys_of_a_properties_file(tmp_path: Path) -> None:
    f = tmp_path / "db.properties"
    f.write_text("user = alice\npassword=s3cr\\u0065t\n# comment\n")
    provider = _file_provider()
    assert provider.get(str(f), {"user", "password", "absent"}) == {"user": "alice", "password": "s3cret"}
    assert provider.get("", {"user"}) == {}
    with pytest.raises(ConfigException, match=r"Could not read properties from file .*nope"):
        provider.get(str(tmp_path / "nope"), {"user"})


def test_allowed_paths_refuse_a_path_outside_with_kafkas_message(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (inside / "a.properties").write_text("k=v\n")
    (outside / "b.properties").write_text("k=v\n")
    provider = _file_provider(str(inside))
    assert provider.get(str(inside / "a.properties"), {"k"}) == {"k": "v"}
    sneaky = f"{inside}/../out/b.properties"
    with caplog.at_level(logging.WARNING), pytest.raises(ConfigException) as info:
        provider.get(sneaky, {"k"})
    assert str(info.value) == f"The path {sneaky} is not allowed to be accessed"
    assert f"The path {sneaky} is not allowed to be accessed" in caplog.text
    # A sibling whose name starts like the allowed one is outside too (whole path components).
    (tmp_path / "in2").mkdir()
    (tmp_path / "in2" / "c.properties").write_text("k=v\n")
    with pytest.raises(ConfigException, match="not allowed"):
        provider.get(str(tmp_path / "in2" / "c.properties"), {"k"})


def test_allowed_paths_must_be_absolute_and_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigException, match="Path relative/dir is not absolute"):
        _file_provider("relative/dir")
    with pytest.raises(ConfigException, match=f"Path {tmp_path / 'missing'} does not exist"):
        _file_provider(str(tmp_path / "missing"))


def test_directory_provider_reads_files_by_name(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "db-password").write_text("hunter2\n")
    (tmp_path / "secrets" / "sub").mkdir()
    (tmp_path / "elsewhere").write_text("nope")
    provider = DirectoryConfigProvider()
    provider.configure({"allowed.paths": str(tmp_path / "secrets")})
    got = provider.get(str(tmp_path / "secrets"), {"db-password", "sub", "missing", "../elsewhere"})
    assert got == {"db-password": "hunter2\n"}  # the whole content; directories and escapes ignored
    with pytest.raises(ConfigException, match="is not allowed to be accessed"):
        provider.get(str(tmp_path), {"elsewhere"})
    assert provider.get(str(tmp_path / "secrets" / "db-password"), {"x"}) == {}  # not a directory


def test_env_provider_allowlist_and_no_path() -> None:
    env = {"DB_PASSWORD": "pw", "HOME": "/root", "DB_USER": "u"}
    provider = EnvVarConfigProvider(env)
    provider.configure({"allowlist.pattern": "DB_.*"})
    assert provider.get("", {"DB_PASSWORD", "HOME"}) == {"DB_PASSWORD": "pw"}
    with pytest.raises(ConfigException) as info:
        provider.get("/some/path", {"DB_USER"})
    assert str(info.value) == "Path is not supported for EnvVarConfigProvider, invalid value '/some/path'"
    everything = EnvVarConfigProvider(env)
    everything.configure({})
    assert everything.get("", {"HOME"}) == {"HOME": "/root"}
    # ${env:VAR} has no path; the grammar gives the provider "".
    resolved = ConfigTransformer({"env": provider}).transform({"a": "${env:DB_PASSWORD}", "b": "${env:HOME}"})
    assert resolved.data == {"a": "pw", "b": "${env:HOME}"}  # not allowed: left as written


def test_transformer_grammar_unknown_providers_and_missing_keys() -> None:
    provider = RecordingProvider()
    t = ConfigTransformer({"rec": provider})
    resolved = t.transform({
        "both": "jdbc://${rec:/db:host}:${rec:/db:port}/x",
        "no.path": "${rec:key}",
        "unknown.provider": "${vault:/p:k}",
        "missing.key": "${rec:/db:missing}",
        "plain": "nothing here",
    })
    assert resolved.data == {
        "both": "jdbc:///DB/HOST:/DB/PORT/x",
        "no.path": "/KEY",
        "unknown.provider": "${vault:/p:k}",
        "missing.key": "${rec:/db:missing}",
        "plain": "nothing here",
    }
    # One lookup per provider and path, with every key wanted there.
    assert sorted(provider.lookups) == [("", frozenset({"key"})), ("/db", frozenset({"host", "port", "missing"}))]
    assert resolved.redact("failed to reach /DB/HOST:/DB/PORT") == "failed to reach ${rec:/db:host}:${rec:/db:port}"
    assert resolved.redact("/DB/HOSTNAME") == "/DB/HOSTNAME"  # only where the value stands alone


def test_short_values_are_resolved_but_not_redacted() -> None:
    class Short(ConfigProvider):
        def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
            return {"n": "1", "word": "secret"}

    resolved = ConfigTransformer({"s": Short()}).transform({"tasks.max": "${s:n}", "p": "${s:word}"})
    assert resolved.data == {"tasks.max": "1", "p": "secret"}
    assert resolved.resolved_any
    assert resolved.redact("line 1: secret, secrets") == "line 1: ${s:word}, secrets"


def test_reverse_transform_puts_placeholders_back_into_task_configs() -> None:
    raw = {"topic": "${file:/s.properties:topic}", "tasks.max": "2", "name": "c"}
    tasks = [{"topic": "secret-topic", "task.id": "0"}, {"topic": "secret-topic", "task.id": "1", "name": "c"}]
    assert reverse_transform(raw, tasks) == [
        {"topic": "${file:/s.properties:topic}", "task.id": "0"},
        {"topic": "${file:/s.properties:topic}", "task.id": "1", "name": "c"},
    ]


def test_worker_config_creates_providers_and_resolves_its_own_values(tmp_path: Path) -> None:
    secrets = tmp_path / "worker.properties"
    secrets.write_text("group=resolved-group\n")
    RecordingProvider.instances.clear()
    composed = compose_worker({
        **REQUIRED,
        "group.id": f"${{file:{secrets}:group}}",
        "config.providers": "file,rec",
        "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
        "config.providers.file.param.allowed.paths": str(tmp_path),
        "config.providers.rec.class": f"{__name__}.RecordingProvider",
        "plugin.allowed.packages": __name__,
        "config.providers.rec.param.url": "https://vault",
    })
    assert composed.config.group_id == "resolved-group"
    (provider,) = RecordingProvider.instances
    assert provider.params == {"url": "https://vault"}
    assert composed.plugins.config_transformer.transform({"x": "${rec:p:k}"}).data == {"x": "P/K"}
    composed.close()
    assert provider.closed


@pytest.mark.parametrize("name", ["Vendor$Nested", "Vendor.Nested"])
def test_a_provider_class_nested_in_another_is_found(name: str) -> None:
    composed = compose_worker({**REQUIRED, "config.providers": "v", "plugin.allowed.packages": __name__,
                               "config.providers.v.class": f"{__name__}.{name}"})
    assert composed.plugins.config_transformer.transform({"x": "${v:p:k}"}).data == {"x": "P/K"}
    composed.close()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"config.providers": "file"},
         'Missing required configuration "config.providers.file.class" for config provider file'),
        ({"config.providers": "vault", "config.providers.vault.class": "no.such.VaultProvider"},
         "Invalid value no.such.VaultProvider for configuration config.providers.vault.class: Failed to find "
         "any class that implements ConfigProvider"),
        ({"config.providers": "bad", "config.providers.bad.class": f"{__name__}.FailingProvider",
          "plugin.allowed.packages": __name__},
         f"Config provider bad (config.providers.bad.class={__name__}.FailingProvider) failed to configure: "
         "cannot reach the vault"),
        ({"config.providers": "file", "config.providers.file.class": "FileConfigProvider",
          "config.providers.file.param.allowed.paths": "not/absolute"},
         "Path not/absolute is not absolute"),
        # A typo must not leave the provider unrestricted.
        ({"config.providers": "file", "config.providers.file.class": "FileConfigProvider",
          "config.providers.file.param.allowed.path": "/x"},
         "Unknown configuration config.providers.file.param.allowed.path for config provider file"),
        ({"config.providers": "dir", "config.providers.dir.class": "DirectoryConfigProvider",
          "config.providers.dir.param.allowedpaths": "/x"},
         "Unknown configuration config.providers.dir.param.allowedpaths for config provider dir"),
        ({"config.providers": "env", "config.providers.env.class": "EnvVarConfigProvider",
          "config.providers.env.param.allowlist.patern": "DB_.*"},
         "Unknown configuration config.providers.env.param.allowlist.patern for config provider env"),
    ],
)
def test_a_bad_provider_refuses_the_worker_with_one_line(extra: dict[str, str], message: str) -> None:
    with pytest.raises(WorkerConfigError) as info:
        compose_worker({**REQUIRED, **extra})
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_load_config_providers_short_names(tmp_path: Path) -> None:
    providers = load_config_providers({
        "config.providers": "f, d ,e",
        "config.providers.f.class": "File",
        "config.providers.d.class": "DirectoryConfigProvider",
        "config.providers.e.class": "EnvVar",
    })
    assert [type(p) for p in providers.values()] == [FileConfigProvider, DirectoryConfigProvider,
                                                      EnvVarConfigProvider]


def test_redactor_hides_resolved_values_in_log_records(caplog: pytest.LogCaptureFixture) -> None:
    redactor = SecretRedactor()
    resolved = ConfigTransformer({"rec": RecordingProvider()}).transform({"password": "${rec:/db:password}"})
    redactor.register("task-0", resolved)
    logger = logging.getLogger("test.redaction")
    with caplog.at_level(logging.INFO):
        logger.info("connecting with %s", "/DB/PASSWORD")
        try:
            raise RuntimeError("login failed for /DB/PASSWORD")
        except RuntimeError:
            logger.exception("task failed")
    assert "/DB/PASSWORD" not in caplog.text
    assert "connecting with ${rec:/db:password}" in caplog.text
    assert "login failed for ${rec:/db:password}" in caplog.text
    redactor.unregister("task-0")
    with caplog.at_level(logging.INFO):
        logger.info("after %s", "/DB/PASSWORD")
    assert "after /DB/PASSWORD" in caplog.text


def test_worker_start_up_errors_and_logs_never_show_resolved_values(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    secrets = tmp_path / "worker-secrets.properties"
    secrets.write_text("long=hunter2secret\nshort=abc\npolicy=delete,hunter2secret\n")
    providers = {"config.providers": "file", "config.providers.file.class": "FileConfigProvider"}
    for key in ("long", "short"):
        ref = f"${{file:{secrets}:{key}}}"
        with pytest.raises(WorkerConfigError) as info:
            compose_worker({**REQUIRED, **providers, "offset.flush.interval.ms": ref})
        line = str(info.value)
        assert line.startswith(f'Invalid value "{ref}" for configuration offset.flush.interval.ms'), line
        assert "hunter2secret" not in line and "abc" not in line and "\n" not in line
        assert info.value.value == ref
    # A setting refused after resolution shows its placeholder, not the resolved value.
    policy_ref = f"${{file:{secrets}:policy}}"
    with pytest.raises(WorkerConfigError) as info:
        compose_worker({**REQUIRED, **providers, "offset.storage.cleanup.policy": policy_ref})
    assert str(info.value).startswith(f'Invalid value "{policy_ref}" for configuration offset.storage.cleanup.policy')
    assert "hunter2secret" not in str(info.value)
    # A log line written later shows the placeholder too.
    with caplog.at_level(logging.WARNING):
        composed = compose_worker({**REQUIRED, **providers, "offset.storage.segment.ms": f"${{file:{secrets}:long}}"})
    used = composed.config.originals["offset.storage.segment.ms"]
    logging.getLogger("test.worker").warning("the worker uses %s", used)
    assert "hunter2secret" not in caplog.text
    composed.close()
