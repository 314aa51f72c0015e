"""Connector config validation: the common Connect keys, the plugin's own keys, and KIP-618's
exactly-once preflight checks (docs/architecture.md, "Exactly-once validation"), rendered as Kafka
Connect's ConfigInfos."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from connect_runtime.api.config_def import HIDDEN, ConfigDef, ConfigKey, ConfigType, ConfigValue
from connect_runtime.api.connector import Connector, SourceConnector
from connect_runtime.api.converter import CONVERTER_TYPE_CONFIG, Converter, HeaderConverter
from connect_runtime.api.errors import ConfigException
from connect_runtime.api.exactly_once import ConnectorTransactionBoundaries, ExactlyOnceSupport
from connect_runtime.api.transformation import Predicate, Transformation
from connect_runtime.cluster.framework_config import framework_config_def
from connect_runtime.cluster.herder_api import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo, PluginDesc
from connect_runtime.config.client_settings import client_setting_problems
from connect_runtime.config.config_providers import MIN_REDACTED_LENGTH, ResolvedConfig, has_placeholder
from connect_runtime.config.connector_config import (
    CLIENT_OVERRIDE_PREFIXES,
    PLUGIN_VERSION_SUFFIX,
    validate_topic_creation,
)
from connect_runtime.config.override_policies import validate_client_overrides
from connect_runtime.config.transformation_config import enrich
from connect_runtime.config.worker_config import ExactlyOnceSourceSupport, WorkerConfig
from connect_runtime.config.worker_plugins import WorkerPlugins
from connect_runtime.converters.schema_registry.registry_converter import SchemaRegistryConverter
from connect_runtime.errors import BadRequestHttpError, NotFoundHttpError
from connect_runtime.plugins.registry import PluginNotFoundError, PluginRegistry, listed_name, plugin_types
from connect_runtime.plugins.versions import check_requested_versions, converter_versions, installed_version
from connect_runtime.redaction import password_values, redactor
from connect_runtime.version import UNDEFINED_VERSION, plugin_version, satisfies

logger = logging.getLogger(__name__)

#: The package of the runtime's own plugins (converters), which validation may configure.
_BUILT_IN = "connect_runtime."

EXACTLY_ONCE_SUPPORT = "exactly.once.support"
TRANSACTION_BOUNDARY = "transaction.boundary"


def _str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def key_info(key: ConfigKey) -> ConfigKeyInfo:
    """A ConfigDef key as the REST API describes it."""
    return ConfigKeyInfo(
        name=key.name, type=key.type.value, required=key.required,
        default_value=None if key.required else _str(key.default), importance=key.importance.value,
        documentation=key.documentation, group=key.group, order=key.order_in_group, width=key.width.value,
        display_name=key.display_name or key.name, dependents=list(key.dependents))


def _refuse_orphan_converter_settings(props: Mapping[str, str], values: dict[str, ConfigValue]) -> None:
    """``<kind>.converter.*`` without ``<kind>.converter``: the worker's converter runs with the worker's
    settings, so these would do nothing (Kafka Connect ignores them silently, a classic surprise). Refused
    at validation only: a stored config keeps running as it would on a Java worker."""
    for kind in ("key", "value", "header"):
        name = f"{kind}.converter"
        if str(props.get(name) or "").strip() or name not in values:
            continue
        # <kind>.converter.plugin.version is the framework's own key (KIP-891), validated on its own.
        orphans = sorted(k for k in props if k.startswith(name + ".") and k != name + ".plugin.version")
        if orphans:
            values[name].errors.append(
                f"{', '.join(orphans)} would have no effect without {name}: the worker's {name} runs with the "
                f"worker's {name}.* settings. Set {name} as well, or remove {'it' if len(orphans) == 1 else 'them'}")


def _merge_values(values: dict[str, ConfigValue], more: list[ConfigValue]) -> None:
    """Add ``more`` to ``values``; a key already there gets the new errors only."""
    for cv in more:
        if cv.name in values:
            values[cv.name].errors.extend(e for e in cv.errors if e not in values[cv.name].errors)
        else:
            values[cv.name] = cv


class ConnectorValidator:
    """Validates connector configs against the plugin and this worker's settings."""

    def __init__(self, config: WorkerConfig, plugins: PluginRegistry,
                 worker_plugins: WorkerPlugins | None = None) -> None:
        self._config = config
        self._plugins = plugins
        self._worker_plugins = worker_plugins or WorkerPlugins.without_providers(config)

    def validate(self, props: Mapping[str, str]) -> ConfigInfos:
        """Validate the config with provider placeholders resolved; the result shows only raw values.

        A placeholder a provider refuses (a path outside ``allowed.paths``) is an error on its key, and
        so is one in a key that shapes the config (see :func:`_shapes_config`): what those resolve to
        would become key names and groups of the result. While the plugin validates, the resolved values
        are redacted from the process's log.
        """
        # Checked on the raw config: the 400 must not show a resolved value.
        if not props.get("connector.class"):
            # Java's message echoes the config; the log names its keys only (their types are not known).
            raise BadRequestHttpError(
                f"Connector config {_java_hash_map_string(props)} contains no connector type",
                log_message=f"Connector config with keys {sorted(props)} contains no connector type")
        if has_placeholder(props["connector.class"]):
            raise BadRequestHttpError(_SHAPING_PLACEHOLDER.format(key="connector.class"))
        failures = {k: _SHAPING_PLACEHOLDER.format(key=k) for k, v in props.items()
                    if _shapes_config(k) and has_placeholder(v)}
        # The refused keys are left out of what is resolved and validated (their errors are added after).
        to_resolve = {k: v for k, v in props.items() if k not in failures}
        transformer = self._worker_plugins.config_transformer
        try:
            resolved = transformer.transform(to_resolve)
        except ConfigException:
            resolved = ResolvedConfig(dict(to_resolve))
            for key, value in to_resolve.items():  # one by one, to tell which keys the refusal is about
                if not has_placeholder(value):
                    continue
                try:
                    one = transformer.transform({key: value})
                except ConfigException as e:
                    failures[key] = str(e)
                    continue
                resolved = resolved.then(ResolvedConfig({**resolved.data, **one.data}, one.secrets, one.resolved_any))
        # A refused plugin class stays as written (refused twice over, but its alias keeps its keys);
        # a refused alias list is left out (its aliases would become key names).
        resolved.data.update({k: props[k] for k in failures if k.endswith(".type")})
        owner = ("validation", object())
        redactor.register(owner, resolved)
        try:
            infos = self._validate_resolved(resolved.data)
        finally:
            redactor.unregister(owner)
        if resolved.resolved_any:
            infos = _with_raw_values(infos, props, resolved)
        return _hide_passwords(_with_errors(infos, props, failures) if failures else infos)

    def _validate_resolved(self, props: Mapping[str, str]) -> ConfigInfos:
        class_name = props["connector.class"]
        cls = self._plugins.connector_class(class_name)
        connector = cls()
        # The plugin's PASSWORD values stay out of the log while it validates (and of what we log).
        owner = ("validation passwords", object())
        try:  # the transforms' and predicates' keys too
            definition = enrich(connector.config_def(), props, self._plugins.resolve)
        except ConfigException:  # a malformed chain: validation reports it below
            definition = connector.config_def()
        redactor.register(owner, password_values(definition, props))
        try:
            return self._validate_plugin(class_name, cls, connector, props)
        finally:
            redactor.unregister(owner)

    def _validate_plugin(self, class_name: str, cls: type[Connector], connector: Connector,
                         props: Mapping[str, str]) -> ConfigInfos:
        common = enrich(framework_config_def(self._config, self._plugins, connector, props=props), props,
                        self._plugins.resolve, self._recommended_classes)
        values = {cv.name: cv for cv in common.validate(props)}
        _class_values_as_java_shows_them(common, props, values, self._plugins.resolve)
        _refuse_orphan_converter_settings(props, values)
        check_requested_versions(props, class_name, connector, lambda key, error: values[key].errors.append(error),
                                 converter_versions(self._plugins, props, self._config))
        if isinstance(connector, SourceConnector):
            creation_def, creation_values = validate_topic_creation(props, self._config.topic_creation_enable)
            common = common.merge(creation_def)
            _merge_values(values, creation_values)
        plugin_def = connector.config_def()
        try:
            plugin_values = connector.validate(props)
        except Exception as e:
            logger.exception("Connector %s failed to validate", class_name)
            plugin_values = [ConfigValue("connector.class", class_name,
                                         errors=[f"An unexpected error occurred during validation: {e}"])]
        _merge_values(values, plugin_values)
        if isinstance(connector, SourceConnector):
            self._preflight(connector, props, values)
        merged = common.merge(plugin_def)
        # Java names the result after connector.class as given (an alias stays an alias).
        infos = self._infos(class_name, merged, values)
        infos = self._with_client_overrides(infos, cls, props)
        return self._with_converter_settings(infos, props, values)

    def _with_converter_settings(self, infos: ConfigInfos, props: Mapping[str, str],
                                 values: Mapping[str, ConfigValue]) -> ConfigInfos:
        """Add the own keys of each converter the connector names, prefixed ``<kind>.converter.``, with
        their verdicts (Java's ``validateAllConverterConfigs``: the header converter's, the key's, then
        the value's; only for a converter the connector names and that passed its own checks). Besides the
        converter's ConfigDef, a built-in converter's ``configure`` is tried so a setting it refuses (e.g.
        an unknown ``converter.encoding``) is an error here rather than a failed task."""
        for kind in ("header", "key", "value"):
            key_name = f"{kind}.converter"
            verdict, version = values.get(key_name), values.get(key_name + PLUGIN_VERSION_SUFFIX)
            name = props.get(key_name)
            if not name or verdict is None or verdict.errors or (version is not None and version.errors):
                continue
            infos = self._with_settings_of(infos, props, kind, name)
        return infos

    def _with_settings_of(self, infos: ConfigInfos, props: Mapping[str, str], kind: str, name: str) -> ConfigInfos:
        key_name = f"{kind}.converter"
        prefix = key_name + "."
        settings: dict[str, Any] = {k[len(prefix):]: v for k, v in props.items() if k.startswith(prefix)}
        settings[CONVERTER_TYPE_CONFIG] = kind  # as the worker configures it (Java's Plugins.newConverter)
        what = f"{kind} converter"
        converter: Converter | HeaderConverter
        try:
            converter = (self._plugins.header_converter(name) if kind == "header" else self._plugins.converter(name))()
            definition = converter.config_def()
            checked = {cv.name: cv for cv in definition.validate(settings)}
        except Exception as e:
            logger.exception("Failed to validate the settings of %s %s", what, name)
            return _with_errors(infos, props, {key_name: f"Failed to perform config validation for {what}: {e}"})
        # Only a built-in converter is configured here: a plugin's configure may open clients, which a
        # converter cannot be asked to close. A registry converter's configure calls the registry, so its
        # settings are only parsed (refusals no single key's validator can make: the credentials' form,
        # the TLS stores, bearer auth named at all).
        if not any(cv.errors for cv in checked.values()) and type(converter).__module__.startswith(_BUILT_IN):
            try:
                if isinstance(converter, SchemaRegistryConverter):
                    converter.check_settings(settings, kind == "key")
                elif isinstance(converter, HeaderConverter) and kind == "header":
                    converter.configure(settings)
                elif isinstance(converter, Converter):
                    converter.configure(settings, kind == "key")
            except ConfigException as e:
                target = checked.get(e.name) or checked.get(CONVERTER_TYPE_CONFIG)
                if target is None:
                    return _with_errors(infos, props, {key_name: str(e)})
                target.errors.append(str(e))
            except Exception as e:
                return _with_errors(infos, props, {key_name: f"Failed to configure {what}: {e}"})
        extra: list[ConfigInfo] = []
        groups = list(infos.groups)
        # In the order of Java's result, which its ConfigDef.validate takes from a HashMap.
        for key_name_ in _java_hash_map_order(list(definition.keys)):
            key, cv = definition.keys[key_name_], checked[key_name_]
            if key.group and key.group not in groups:
                groups.append(key.group)
            extra.append(ConfigInfo(key_info(replace(key, name=prefix + key.name)), ConfigValueInfo(
                prefix + key.name, _str(cv.value), [str(v) for v in cv.recommended_values], list(cv.errors),
                cv.visible)))
        errors = sum(1 for cv in checked.values() if cv.errors)
        return ConfigInfos(infos.name, infos.error_count + errors, groups, [*infos.configs, *extra])

    def _with_client_overrides(self, infos: ConfigInfos, cls: type, props: Mapping[str, str]) -> ConfigInfos:
        """Add the ``*.override.*`` keys with their verdicts: an error on each key the worker's policy
        disallows (reference ``AbstractHerder.validateClientOverrides``), and on each that librdkafka cannot
        be given (checked on the worker's settings with the overrides laid over them: some settings are
        translated together, e.g. ``ssl.truststore.type`` with ``ssl.truststore.location``)."""
        verdicts = {cv.name: cv for cv in
                    validate_client_overrides(self._worker_plugins.override_policy, props.get("name", ""), cls, props)}
        for kind, prefix in CLIENT_OVERRIDE_PREFIXES.items():
            overrides = {k[len(prefix):]: v for k, v in props.items() if k.startswith(prefix) and k != prefix}
            if not overrides:
                continue
            settings = dict(self._config.client_props(kind + "."))
            settings.update(overrides)
            for problem in client_setting_problems(settings, kind):
                name = prefix + problem.key
                cv = verdicts.setdefault(name, ConfigValue(name, props.get(name)))
                cv.errors.append(f"{name}: {problem.message}")
        if not verdicts:
            return infos
        extra = [ConfigInfo(_override_key_info(cv.name), ConfigValueInfo(
            cv.name, HIDDEN if _is_password(cv.name) else _str(cv.value),
            [str(v) for v in cv.recommended_values], list(cv.errors), cv.visible)) for cv in verdicts.values()]
        errors = sum(len(cv.errors) for cv in verdicts.values())
        return ConfigInfos(infos.name, infos.error_count + errors, infos.groups, [*infos.configs, *extra])

    def _recommended_classes(self, base: type) -> list[str]:
        """The ``transforms.<alias>.type`` / ``predicates.<alias>.type`` recommendations."""
        found = self._plugins.transformations() if base is Transformation else self._plugins.predicates()
        return sorted(listed_name(c) for c in found)

    def _preflight(self, connector: SourceConnector, props: Mapping[str, str], values: dict[str, ConfigValue]) -> None:
        eos = values.get(EXACTLY_ONCE_SUPPORT)
        if eos is not None and not eos.errors and str(eos.value).lower() == "required":
            if self._config.exactly_once_source_support is not ExactlyOnceSourceSupport.ENABLED:
                eos.errors.append("This worker does not have exactly-once source support enabled.")
            try:
                support = connector.exactly_once_support(props)
                if support is None:
                    eos.errors.append(
                        "The connector does not implement the API required for preflight validation of "
                        "exactly-once source support. Please consult the documentation for the connector to "
                        "determine whether it supports exactly-once semantics, and then consider "
                        "reconfiguring the connector to use the value \"requested\" for this property (which "
                        "will still permit the connector to be started, but without any guarantees)")
                elif support is not ExactlyOnceSupport.SUPPORTED:
                    eos.errors.append("The connector does not support exactly-once semantics with the provided "
                                      "configuration.")
            except Exception as e:
                eos.errors.append(f"An unexpected error occurred during validation: {e}")
        tb = values.get(TRANSACTION_BOUNDARY)
        if tb is not None and not tb.errors and str(tb.value).lower() == "connector":
            try:
                boundaries = connector.can_define_transaction_boundaries(props)
                if boundaries is None:
                    tb.errors.append("The connector does not implement the API required for preflight "
                                     "validation of connector-defined transaction boundaries.")
                elif boundaries is not ConnectorTransactionBoundaries.SUPPORTED:
                    tb.errors.append("The connector does not support connector-defined transaction boundaries "
                                     "with the given configuration. Please reconfigure it to use a different "
                                     "transaction boundary definition.")
            except Exception as e:
                tb.errors.append(f"An unexpected error occurred during validation: {e}")

    @staticmethod
    def _infos(name: str, definition: ConfigDef, values: Mapping[str, ConfigValue]) -> ConfigInfos:
        configs: list[ConfigInfo] = []
        groups: list[str] = []
        errors = 0
        for key in definition.keys.values():
            if key.group and key.group not in groups:
                groups.append(key.group)
            cv = values.get(key.name) or ConfigValue(key.name, None)
            errors += len(cv.errors)
            configs.append(ConfigInfo(key_info(key), ConfigValueInfo(
                key.name, _str(cv.value), [str(v) for v in cv.recommended_values], list(cv.errors), cv.visible)))
        return ConfigInfos(name, errors, groups, configs)

    @staticmethod
    def raise_if_invalid(infos: ConfigInfos, props: Mapping[str, str]) -> None:
        """Create/update fail with 400 and Kafka Connect's message listing every error."""
        if infos.error_count == 0:
            return
        lines = [e for c in infos.configs for e in c.value.errors]
        raise BadRequestHttpError(
            f"Connector configuration is invalid and contains the following {infos.error_count} error(s):\n"
            + "\n".join(lines)
            + "\nYou can also find the above list of errors at the endpoint "
            "`/connector-plugins/{connectorType}/config/validate`")

    def plugin_descs(self, connectors_only: bool) -> list[PluginDesc]:
        out: list[PluginDesc] = []
        for cls in self._plugins.all_plugins():
            kinds = plugin_types(cls)
            if connectors_only and kinds[0] not in ("source", "sink"):
                continue
            if kinds[0] == "rest_extension":  # not listed by Java's ConnectorPluginsResource either
                continue
            version = None
            if issubclass(cls, Connector | Transformation | Predicate | Converter | HeaderConverter):
                try:
                    version = plugin_version(cls())
                except Exception:
                    version = None
            out.extend(PluginDesc(listed_name(cls), kind, version or UNDEFINED_VERSION) for kind in kinds)
        # Java's ConnectorPluginsResource: by type (sinks, sources, transformations, predicates,
        # converters, header converters), then by class name.
        return sorted(out, key=lambda p: (_LISTED_TYPES.index(p.type) if p.type in _LISTED_TYPES
                                          else len(_LISTED_TYPES), p.class_name))

    def plugin_config(self, plugin: str, version: str | None = None) -> list[ConfigKeyInfo]:
        """Java's ``connectorPluginConfig``: a connector's own keys, then the framework's keys it does not
        define; a converter's own keys; 404 for an unknown plugin, 400 when the installed version does not
        meet the ``version`` range asked for."""
        try:
            cls = self._plugins.resolve(plugin)
        except PluginNotFoundError:
            raise NotFoundHttpError(f"Unknown plugin {plugin}.") from None
        if version is not None:
            installed = installed_version(self._plugins, plugin)
            if installed is None or not satisfies(installed, version):
                raise BadRequestHttpError(f"Plugin {listed_name(cls)} not found that matches the version range "
                                          f"{version}, available versions: [{installed or ''}]")
        if issubclass(cls, Connector):
            connector = cls()
            keys = connector.config_def().merge(
                framework_config_def(self._config, self._plugins, connector, worker_converters=False))
            return [key_info(k) for k in keys.keys.values()]
        if issubclass(cls, Converter | HeaderConverter):
            return [key_info(k) for k in cls().config_def().keys.values()]
        if issubclass(cls, Transformation | Predicate):
            if inspect.isabstract(cls):
                raise BadRequestHttpError(
                    f"Invalid plugin class {plugin}: the class is abstract and cannot be created.")
            return [key_info(k) for k in cls().config_def().keys.values()]
        return []


def _class_values_as_java_shows_them(definition: ConfigDef, props: Mapping[str, str],
                                     values: dict[str, ConfigValue], resolve: Callable[[str], type]) -> None:
    """A class-valued key shows the class's full name (an alias given shows as the class it names), and
    none for a class that is not installed: in Kafka, parsing the value loads the class, and the result
    shows the loaded class's name (our validators look the class up instead, with the same message)."""
    for key in definition.keys.values():
        value = values.get(key.name)
        if key.type is not ConfigType.CLASS or value is None or not props.get(key.name):
            continue
        try:
            value.value = listed_name(resolve(str(props[key.name]).strip()))
        except Exception:
            if f"Class {props[key.name]} could not be found." in " ".join(value.errors):
                value.value = None


def _java_string_hash(text: str) -> int:
    """Java's ``String.hashCode()`` (over UTF-16 code units, as a signed 32-bit int)."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _java_hash_map_order(names: list[str]) -> list[str]:
    """``names`` in the order a Java ``HashMap`` filled with them in this order iterates them (default
    capacity, doubled as it fills)."""
    capacity = 16
    while len(names) > capacity * 0.75:
        capacity *= 2
    return sorted(names, key=lambda n: _java_bucket(n, capacity))  # stable: insertion order within a bucket


def _java_bucket(key: str, capacity: int) -> int:
    h = _java_string_hash(key) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (capacity - 1)


def _java_hash_map_string(props: Mapping[str, str]) -> str:
    """``props`` as Java prints a ``HashMap`` copy of it (``{k=v, ...}``, in its bucket order), as the
    reference's message about a config without ``connector.class`` shows it."""
    capacity = 1
    while capacity < int(len(props) / 0.75 + 1.0):  # HashMap(Map)'s table size for that many entries
        capacity *= 2

    ordered = sorted(props.items(), key=lambda kv: _java_bucket(kv[0], capacity))  # stable within a bucket
    return "{" + ", ".join(f"{k}={'null' if v is None else v}" for k, v in ordered) + "}"


#: The order of plugin types in ``GET /connector-plugins``.
_LISTED_TYPES = ("sink", "source", "transformation", "predicate", "converter", "header_converter")

_SHAPING_PLACEHOLDER = ("The value of {key} must not contain a config provider placeholder: it names plugins "
                        "or aliases, which the validation result and the config's keys would show")
# Keys whose values become key names, groups or plugin choices (a resolved secret there would be echoed).
_SHAPING_KEYS = frozenset({"connector.class", "transforms", "predicates", "topic.creation.groups"})


def _shapes_config(key: str) -> bool:
    """Whether ``key``'s value names aliases or plugin classes (a placeholder there is refused)."""
    if key in _SHAPING_KEYS:
        return True
    return key.endswith(".type") and key.startswith(("transforms.", "predicates."))


# Client settings Kafka types PASSWORD (their values are shown as "[hidden]"), and librdkafka's own.
_PASSWORD_SETTINGS = frozenset({
    "sasl.jaas.config", "ssl.key.password", "ssl.keystore.password", "ssl.truststore.password", "ssl.keystore.key",
    "ssl.keystore.certificate.chain", "ssl.truststore.certificates", "sasl.password", "ssl.key.pem",
})


def _is_password(name: str) -> bool:
    return name.partition(".override.")[2] in _PASSWORD_SETTINGS


def _override_key_info(name: str) -> ConfigKeyInfo:
    """A definition for a key outside the connector's ConfigDef (a ``*.override.*`` client setting)."""
    return ConfigKeyInfo(
        name=name, type="PASSWORD" if _is_password(name) else "STRING", required=False, default_value=None,
        importance="LOW", documentation="", group=None, order=-1, width="NONE", display_name=name, dependents=[])


def _with_errors(infos: ConfigInfos, props: Mapping[str, str], errors: Mapping[str, str]) -> ConfigInfos:
    """``infos`` with one more error on each key of ``errors`` (added for keys it does not list), each
    showing its value as given."""
    configs = [ConfigInfo(c.definition, replace(c.value, value=props[c.value.name],
                                                errors=[*c.value.errors, errors[c.value.name]]))
               if c.value.name in errors else c for c in infos.configs]
    listed = {c.value.name for c in infos.configs}
    configs.extend(ConfigInfo(_override_key_info(k), ConfigValueInfo(k, props[k], [], [message], True))
                   for k, message in errors.items() if k not in listed)
    return ConfigInfos(infos.name, infos.error_count + len(errors), infos.groups, configs)


def _with_raw_values(infos: ConfigInfos, raw: Mapping[str, str], resolved: ResolvedConfig) -> ConfigInfos:
    """``infos`` of a resolved config, showing the values as given: a key with a placeholder echoes the
    placeholder, and no other string of the result (names, groups, documentation, errors,
    recommended values) shows a resolved value."""
    redact = resolved.redact

    def opt(text: str | None) -> str | None:
        return None if text is None else redact(text)

    configs = []
    for c in infos.configs:
        v, d = c.value, c.definition
        value = raw[v.name] if v.name in raw and has_placeholder(raw[v.name]) else v.value
        definition = replace(
            d, name=redact(d.name), default_value=opt(d.default_value), documentation=redact(d.documentation),
            group=opt(d.group), display_name=redact(d.display_name), dependents=[redact(x) for x in d.dependents])
        configs.append(ConfigInfo(definition, replace(
            v, name=redact(v.name), value=opt(value),
            recommended_values=[redact(r) for r in v.recommended_values],
            errors=[redact(e) for e in v.errors])))
    return ConfigInfos(redact(infos.name), infos.error_count, [redact(g) for g in infos.groups], configs)


def _hide_passwords(infos: ConfigInfos) -> ConfigInfos:
    """``infos`` with every PASSWORD-typed value shown as ``[hidden]`` (as Java's ``Password`` prints), and
    those of ``MIN_REDACTED_LENGTH`` or more taken out of every error message (a plugin's own validation
    may quote them; shorter ones would garble the messages, and the ConfigDef's own errors already hide
    them)."""
    secrets = {c.value.value for c in infos.configs if c.definition.type == "PASSWORD"
               and c.value.value and len(c.value.value) >= MIN_REDACTED_LENGTH and c.value.value != HIDDEN}
    if not any(c.definition.type == "PASSWORD" for c in infos.configs):
        return infos
    # Longest first: a secret that contains another is hidden whole.
    ordered = sorted(secrets, key=len, reverse=True)

    def scrub(text: str) -> str:
        for secret in ordered:
            text = text.replace(secret, HIDDEN)
        return text

    configs = [ConfigInfo(c.definition, replace(
        c.value, value=HIDDEN if c.definition.type == "PASSWORD" and c.value.value is not None else c.value.value,
        errors=[scrub(e) for e in c.value.errors])) for c in infos.configs]
    return ConfigInfos(infos.name, infos.error_count, infos.groups, configs)
