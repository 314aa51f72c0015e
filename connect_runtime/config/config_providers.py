"""Config providers and the ``${provider:[path:]key}`` placeholders they resolve (KIP-297, KIP-421).

The worker's ``config.providers`` names its providers; ``config.providers.<name>.class`` and
``config.providers.<name>.param.<k>`` create and configure each one. :class:`ConfigTransformer`
replaces the placeholders of a configuration with what the providers return, as Kafka's
``ConfigTransformer`` does: a placeholder naming an unknown provider, or a key its provider has no
value for, stays as written. Built in (also under their Apache Kafka class names and short names):

- :class:`FileConfigProvider` -- ``${file:/etc/secrets/db.properties:password}``: a key of a
  Java properties file;
- :class:`DirectoryConfigProvider` -- ``${directory:/run/secrets:db-password}``: the content of a
  file in a directory;
- :class:`EnvVarConfigProvider` -- ``${env:DB_PASSWORD}``: an environment variable (no path).

The file and directory providers take ``allowed.paths`` (Kafka 3.9+): a comma-separated list of
absolute, existing paths. A placeholder naming a path outside them is refused with Kafka's message
(Kafka logs the message and leaves the placeholder as written; this runtime fails the lookup instead,
so a connector never silently starts with the literal placeholder).

The built-in providers refuse a param they do not have (:class:`UnknownProviderParam`): a typo must not
leave one unrestricted.

Resolved values are secrets: only the runtime's start-up of a connector or task (and validation, offsets
requests, the worker's own config) sees them. The config topic and the REST answers showing a config
keep the placeholders; :meth:`ResolvedConfig.redact` takes resolved values of at least
:data:`MIN_REDACTED_LENGTH` characters back out of messages (failure traces, validation results, errors).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Final

from connect_runtime.api.config_provider import ConfigProvider
from connect_runtime.api.config_values import InvalidValue, parse_list
from connect_runtime.api.errors import ConfigException
from connect_runtime.config.properties import PropertiesError, load_properties

__all__ = [
    "BUILTIN_CONFIG_PROVIDERS",
    "CONFIG_PROVIDERS_CONFIG",
    "MIN_REDACTED_LENGTH",
    "PLACEHOLDER_PATTERN",
    "ConfigTransformer",
    "DirectoryConfigProvider",
    "EnvVarConfigProvider",
    "FileConfigProvider",
    "ResolvedConfig",
    "UnknownProviderParam",
    "has_placeholder",
    "load_config_providers",
    "reverse_transform",
]

log = logging.getLogger(__name__)

CONFIG_PROVIDERS_CONFIG: Final = "config.providers"

#: Kafka's ``ConfigTransformer.DEFAULT_PATTERN``: ``${provider:[path:]key}``.
PLACEHOLDER_PATTERN: Final = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")

ALLOWED_PATHS_CONFIG: Final = "allowed.paths"
ALLOWLIST_PATTERN_CONFIG: Final = "allowlist.pattern"


class _AllowedPaths:
    """``allowed.paths``: which paths a file or directory provider may read (Kafka's ``AllowedPaths``)."""

    def __init__(self, value: str | None) -> None:
        self._paths: list[PurePath] | None = None
        if value:
            paths = []
            for item in value.split(","):
                path = PurePath(os.path.normpath(item.strip()))
                if not path.is_absolute():
                    raise ConfigException(f"Path {path} is not absolute")
                if not os.path.exists(path):
                    raise ConfigException(f"Path {path} does not exist")
                paths.append(path)
            self._paths = paths

    def check(self, path: str) -> str:
        """``path`` normalised; ConfigException (Kafka's message, also logged) when it is not allowed."""
        if self._paths is None:
            return path
        normalised = PurePath(os.path.normpath(path))
        if not any(normalised.is_relative_to(allowed) for allowed in self._paths):
            log.warning("The path %s is not allowed to be accessed", path)
            raise ConfigException(f"The path {path} is not allowed to be accessed")
        return str(normalised)


class UnknownProviderParam(ConfigException):
    """A built-in provider was given a ``param.*`` setting it does not have (a typo would otherwise
    leave it unrestricted)."""

    def __init__(self, param: str, known: Iterable[str]) -> None:
        self.param = param
        self.known = sorted(known)
        super().__init__(f"Unknown parameter {param}; the provider takes only: {', '.join(self.known)}")


def _refuse_unknown(configs: Mapping[str, str], *known: str) -> None:
    for key in sorted(configs):
        if key not in known:
            raise UnknownProviderParam(key, known)


class _PathProvider(ConfigProvider):
    _allowed: _AllowedPaths | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        _refuse_unknown(configs, ALLOWED_PATHS_CONFIG)
        self._allowed = _AllowedPaths(configs.get(ALLOWED_PATHS_CONFIG))

    def _checked(self, path: str) -> str:
        if self._allowed is None:
            raise ConfigException("The provider has not been configured yet.")
        return self._allowed.check(path)


class FileConfigProvider(_PathProvider):
    """Values from a Java properties file: ``${file:/path/to/file.properties:key}``.

    Param ``allowed.paths``: the paths the provider may read; unset, any path. Any other param is
    refused (:class:`UnknownProviderParam`).
    """

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        if not path:
            return {}
        checked = self._checked(path)
        try:
            props = load_properties(checked)
        except (OSError, PropertiesError) as e:
            log.error("Could not read properties from file %s: %s", path, e)
            raise ConfigException(f"Could not read properties from file {path}") from None
        return {k: props[k] for k in keys if k in props}


class DirectoryConfigProvider(_PathProvider):
    """Values from the files of a directory, one per file: ``${directory:/path/to/dir:filename}``.

    The value is the file's whole content (UTF-8, nothing stripped). Param ``allowed.paths`` as for
    :class:`FileConfigProvider`.
    """

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        if not path:
            return {}
        directory = self._checked(path)
        if not os.path.isdir(directory):
            log.warning("The path %s is not a directory", path)
            return {}
        out: dict[str, str] = {}
        for key in keys:
            file = os.path.join(directory, key)
            # Keys are file names in that directory, never paths leading out of it.
            if os.path.basename(key) != key or key in ("", ".", "..") or not os.path.isfile(file):
                continue
            try:
                with open(file, encoding="utf-8") as f:
                    out[key] = f.read()
            except (OSError, UnicodeDecodeError) as e:
                log.error("Could not read file %s for property %s: %s", file, key, e)
                raise ConfigException(f"Could not read file {file} for property {key}") from None
        return out


class EnvVarConfigProvider(ConfigProvider):
    """Values of the worker's environment variables: ``${env:VARIABLE}`` (a path is refused).

    Param ``allowlist.pattern``: a regular expression the whole variable name must match; unset,
    every variable may be read; any other param is refused. The environment is read when the provider is configured.
    """

    def __init__(self, environment: Mapping[str, str] | None = None) -> None:
        self._environment = environment
        self._visible: dict[str, str] | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        _refuse_unknown(configs, ALLOWLIST_PATTERN_CONFIG)
        pattern_text = configs.get(ALLOWLIST_PATTERN_CONFIG)
        if pattern_text is None:
            log.info("No pattern for environment variables provided. Using default pattern '(.*)'.")
            pattern_text = ".*"
        try:
            pattern = re.compile(pattern_text)
        except re.error as e:
            raise ConfigException(f"Invalid value {pattern_text} for configuration {ALLOWLIST_PATTERN_CONFIG}: "
                                  f"not a regular expression ({e})") from None
        env = dict(os.environ) if self._environment is None else dict(self._environment)
        self._visible = {k: v for k, v in env.items() if pattern.fullmatch(k)}

    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        if path:
            log.error("Path is not supported for EnvVarConfigProvider, invalid value '%s'", path)
            raise ConfigException(f"Path is not supported for EnvVarConfigProvider, invalid value '{path}'")
        if self._visible is None:
            raise ConfigException("The provider has not been configured yet.")
        return {k: self._visible[k] for k in keys if k in self._visible}


#: Built-in providers by every name they answer to (Java class name, simple name, short name).
BUILTIN_CONFIG_PROVIDERS: Final[Mapping[str, type[ConfigProvider]]] = {
    name: cls
    for cls in (FileConfigProvider, DirectoryConfigProvider, EnvVarConfigProvider)
    for name in (f"org.apache.kafka.common.config.provider.{cls.__name__}", cls.__name__,
                 cls.__name__.removesuffix("ConfigProvider"), f"{cls.__module__}.{cls.__qualname__}")
}


#: Resolved values shorter than this are not taken out of messages: "1" or "true" would garble every
#: line (a secret this short is no secret). Longer ones are replaced where they stand alone, not
#: inside a longer word or number.
MIN_REDACTED_LENGTH: Final = 6


@dataclass(frozen=True)
class ResolvedConfig:
    """A configuration with its placeholders resolved, and what it takes to hide them again."""

    data: dict[str, str]
    """Every key, with placeholders replaced where the provider had a value."""
    secrets: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Each resolved value (at least :data:`MIN_REDACTED_LENGTH` long) and the placeholder it came from."""
    resolved_any: bool = False
    """Whether any placeholder was resolved (however short its value)."""
    _pattern: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.secrets:
            # Longest first: a secret that contains another is put back whole.
            alternatives = "|".join(re.escape(v) for v in sorted(self.secrets, key=len, reverse=True))
            object.__setattr__(self, "_pattern", re.compile(f"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])"))

    def redact(self, text: str) -> str:
        """``text`` with every resolved value put back as the placeholder it came from."""
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self.secrets[m.group(0)], text)

    def then(self, later: ResolvedConfig) -> ResolvedConfig:
        """``later``'s data, redacting what either resolved (a task resolves two configs)."""
        return ResolvedConfig(later.data, {**self.secrets, **later.secrets}, self.resolved_any or later.resolved_any)

    @property
    def has_secrets(self) -> bool:
        """Whether :meth:`redact` has anything to take out."""
        return self._pattern is not None


class ConfigTransformer:
    """Resolves ``${provider:[path:]key}`` placeholders with the worker's providers (Kafka's
    ``ConfigTransformer``); thread-safe as long as the providers are."""

    def __init__(self, providers: Mapping[str, ConfigProvider]) -> None:
        self._providers = dict(providers)

    def transform(self, configs: Mapping[str, str]) -> ResolvedConfig:
        """Resolve ``configs``; a provider's ConfigException (a refused or failed lookup) propagates."""
        wanted: dict[str, dict[str, set[str]]] = {}
        for value in configs.values():
            if not isinstance(value, str) or "${" not in value:
                continue
            for m in PLACEHOLDER_PATTERN.finditer(value):
                provider, path, key = m.group(1), m.group(3) or "", m.group(4)
                if provider in self._providers:
                    wanted.setdefault(provider, {}).setdefault(path, set()).add(key)
        if not wanted:
            return ResolvedConfig(dict(configs))
        found: dict[tuple[str, str], Mapping[str, str]] = {}
        for provider, by_path in wanted.items():
            for path, keys in by_path.items():
                found[(provider, path)] = self._lookup(provider, path, keys)
        secrets: dict[str, str] = {}
        resolved_any = False

        def replace(m: re.Match[str]) -> str:
            nonlocal resolved_any
            value = found.get((m.group(1), m.group(3) or ""), {}).get(m.group(4))
            if value is None:
                return m.group(0)
            resolved_any = True
            if len(value) >= MIN_REDACTED_LENGTH:
                secrets[value] = m.group(0)
            return value

        data = {k: (PLACEHOLDER_PATTERN.sub(replace, v) if isinstance(v, str) and "${" in v else v)
                for k, v in configs.items()}
        return ResolvedConfig(data, secrets, resolved_any)

    def _lookup(self, provider: str, path: str, keys: set[str]) -> Mapping[str, str]:
        try:
            return self._providers[provider].get(path, frozenset(keys))
        except ConfigException:
            raise
        except Exception as e:  # a plugin's own provider failing in its own way
            raise ConfigException(f"Config provider '{provider}' failed to look up path '{path}': {e}") from e

    def close(self) -> None:
        """Close every provider (errors logged, not raised)."""
        for name, provider in self._providers.items():
            try:
                provider.close()
            except Exception:
                log.exception("Config provider %s failed to close", name)


def has_placeholder(value: str | None) -> bool:
    """Whether ``value`` contains a ``${provider:[path:]key}`` placeholder."""
    return value is not None and PLACEHOLDER_PATTERN.search(value) is not None


def reverse_transform(raw_connector_config: Mapping[str, str],
                      task_configs: Iterable[Mapping[str, str]]) -> list[dict[str, str]]:
    """Task configs with the connector's placeholders put back (Kafka's ``reverseTransform``).

    A connector sees resolved values and often copies them into its task configs; before those are
    written to the config topic, every key the raw connector config has a placeholder for gets the
    placeholder back. Tasks resolve it again when they start.
    """
    with_placeholders = {k: v for k, v in raw_connector_config.items() if has_placeholder(v)}
    return [{k: with_placeholders.get(k, v) for k, v in config.items()} for config in task_configs]


def load_config_providers(
    props: Mapping[str, str],
    resolve_class: Callable[[str], type | None] | None = None,
) -> dict[str, ConfigProvider]:
    """Create and configure the providers ``props`` (worker properties) names in ``config.providers``.

    A class that is not built in is found with ``resolve_class`` (the worker's plugin allowlist: see
    :class:`~connect_runtime.config.plugin_classes.PluginAllowlist`); without it only built-ins are found.

    A missing or unknown class, or a provider whose ``configure`` fails, raises ConfigException
    with one line naming the provider's key; providers created before it are closed.
    """
    listed = props.get(CONFIG_PROVIDERS_CONFIG) or ""
    try:
        names = [n for n in parse_list(listed) if n]
    except InvalidValue:
        return {}  # the worker config's own parsing reports it, naming the key
    providers: dict[str, ConfigProvider] = {}
    try:
        for name in names:
            providers[name] = _create_provider(props, name, resolve_class)
    except BaseException:
        ConfigTransformer(providers).close()
        raise
    return providers


def _create_provider(props: Mapping[str, str], name: str,
                     resolve_class: Callable[[str], type | None] | None) -> ConfigProvider:
    prefix = f"{CONFIG_PROVIDERS_CONFIG}.{name}"
    class_key = f"{prefix}.class"
    class_name = (props.get(class_key) or "").strip()
    if not class_name:
        raise ConfigException(f'Missing required configuration "{class_key}" for config provider {name} '
                              f"(listed in {CONFIG_PROVIDERS_CONFIG})")
    cls = BUILTIN_CONFIG_PROVIDERS.get(class_name)
    if cls is None:
        found = resolve_class(class_name) if resolve_class is not None else None
        if not (isinstance(found, type) and issubclass(found, ConfigProvider)):
            found = None
        if found is None:
            raise ConfigException(
                f"Invalid value {class_name} for configuration {class_key}: Failed to find any class that "
                f"implements ConfigProvider and which name matches {class_name}, available ConfigProviders "
                f"are: {', '.join(sorted({c.__name__ for c in BUILTIN_CONFIG_PROVIDERS.values()}))}")
        cls = found
    param_prefix = f"{prefix}.param."
    params = {k[len(param_prefix):]: v for k, v in props.items() if k.startswith(param_prefix)}
    try:
        provider = cls()
        provider.configure(params)
    except UnknownProviderParam as e:
        raise ConfigException(f"Unknown configuration {param_prefix}{e.param} for config provider {name} "
                              f"({class_name}); it takes only: "
                              f"{', '.join(param_prefix + k for k in e.known)}") from None
    except Exception as e:
        raise ConfigException(f"Config provider {name} ({class_key}={class_name}) failed to configure: {e}") from e
    return provider
