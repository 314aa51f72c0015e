"""The live objects a worker file configures: its config providers, its connector client config override
policy and the TLS of its calls to other workers.

:class:`~connect_runtime.config.worker_config.WorkerConfig` is data; these are not (they hold connections,
files and secrets, and must be closed). The composition root (:mod:`connect_runtime.composition`) makes
them from the config and closes them when the worker stops; the worker, herder and validator only use
them. The factories below are the one way each is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from connect_runtime.api.errors import ConfigException
from connect_runtime.api.override_policy import ConnectorClientConfigOverridePolicy
from connect_runtime.config.config_providers import ConfigTransformer, load_config_providers
from connect_runtime.config.override_policies import BUILTIN_POLICIES, OverridePolicyName
from connect_runtime.config.plugin_classes import PluginAllowlist
from connect_runtime.config.rest_tls import PeerTls
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError

__all__ = ["WorkerPlugins", "create_config_transformer", "create_override_policy"]

_POLICY_KEY = "connector.client.config.override.policy"
_POLICY_REQUIREMENT = ("must be one of " + ", ".join(p.value for p in OverridePolicyName) + ", or the dotted path "
                       "of a connect_runtime.api.ConnectorClientConfigOverridePolicy subclass")


def create_config_transformer(props: Mapping[str, str], allowlist: PluginAllowlist) -> ConfigTransformer:
    """The providers ``config.providers`` of ``props`` names, created and configured (classes found through
    ``allowlist``); one that cannot be raises :class:`WorkerConfigError` naming its key."""
    try:
        return ConfigTransformer(load_config_providers(props, allowlist.load))
    except WorkerConfigError:
        raise
    except ConfigException as e:
        raise WorkerConfigError(str(e)) from None


def create_override_policy(config: WorkerConfig) -> ConnectorClientConfigOverridePolicy:
    """The ``connector.client.config.override.policy`` instance, configured with the whole worker file; a
    class that cannot be found or configured raises :class:`WorkerConfigError` naming the key."""
    name = config.connector_client_config_override_policy
    cls = BUILTIN_POLICIES[name] if isinstance(name, OverridePolicyName) else config.plugin_allowlist.load(name)
    if cls is None or not issubclass(cls, ConnectorClientConfigOverridePolicy):
        raise WorkerConfigError(f'Invalid value "{name}" for configuration {_POLICY_KEY}: {_POLICY_REQUIREMENT}',
                                key=_POLICY_KEY, value=name)
    try:
        policy = cls()
        policy.configure(config.originals)
    except Exception as e:
        raise WorkerConfigError(f"{_POLICY_KEY}={name} failed to configure: {e}", key=_POLICY_KEY,
                                value=name) from e
    return policy


@dataclass(frozen=True)
class WorkerPlugins:
    """What the worker, herder and validator use of the plugin instances the worker file configures.

    Made and closed by the composition root; a worker built without one (tests, embedding) gets
    :meth:`without_providers`.
    """

    #: Resolves ``${provider:[path:]key}`` placeholders with the worker's config providers.
    config_transformer: ConfigTransformer
    #: The ``connector.client.config.override.policy`` instance, configured.
    override_policy: ConnectorClientConfigOverridePolicy
    #: How this worker calls other workers over https (None: only plain http, or the system's defaults).
    peer_tls: PeerTls | None = field(default=None)

    @classmethod
    def without_providers(cls, config: WorkerConfig) -> WorkerPlugins:
        """No config providers, ``config``'s override policy and default peer TLS: nothing to close."""
        return cls(ConfigTransformer({}), create_override_policy(config))
