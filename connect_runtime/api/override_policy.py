"""Which client settings a connector may override (``connector.client.config.override.policy``).

A connector's ``producer.override.*``, ``consumer.override.*`` and ``admin.override.*`` keys change
the settings of the Kafka clients the worker creates for it. The worker's policy decides which of
them are allowed: the built-in ``All`` (the default), ``None`` and ``Principal``, or a subclass of
:class:`ConnectorClientConfigOverridePolicy` named by its dotted path (in a ``plugin.path`` module or
under ``plugin.allowed.packages``). A disallowed key is an error on
that key when the connector is validated or created, and fails the connector and its tasks at start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from connect_runtime.api.config_def import ConfigValue

__all__ = ["ClientType", "ConnectorClientConfigOverridePolicy", "ConnectorClientConfigRequest"]


class ClientType(StrEnum):
    """The kind of Kafka client an override is for."""

    PRODUCER = "producer"
    CONSUMER = "consumer"
    ADMIN = "admin"


@dataclass(frozen=True)
class ConnectorClientConfigRequest:
    """One connector's overrides for one kind of client, as a policy sees them."""

    connector_name: str
    connector_type: str
    """``"source"`` (the only kind this runtime runs)."""
    connector_class: type
    client_type: ClientType
    client_props: Mapping[str, str]
    """The overrides with their ``<client>.override.`` prefix stripped, values resolved."""


class ConnectorClientConfigOverridePolicy:
    """Base class of override policies (Kafka's ``AbstractConnectorClientConfigOverridePolicy``).

    Subclasses set :attr:`policy_name` and override :meth:`is_allowed`; those wanting more control
    override :meth:`validate`. The worker creates one instance at start-up and calls
    :meth:`configure` with the worker's properties.
    """

    policy_name: str = "Custom"
    """The name the error message gives: ``The '<name>' policy does not allow ...``."""

    def configure(self, configs: Mapping[str, str]) -> None:
        """Set the policy up from the worker's properties."""

    def is_allowed(self, name: str, value: str, request: ConnectorClientConfigRequest) -> bool:
        """Whether client setting ``name`` (prefix stripped) may be overridden; the default allows none."""
        return False

    def validate(self, request: ConnectorClientConfigRequest) -> list[ConfigValue]:
        """One :class:`ConfigValue` per override in ``request``, with an error on each disallowed one."""
        out: list[ConfigValue] = []
        for name, value in request.client_props.items():
            cv = ConfigValue(name, value)
            if not self.is_allowed(name, value, request):
                cv.errors.append(f"The '{self.policy_name}' policy does not allow '{name}' to be overridden "
                                 "in the connector configuration.")
            out.append(cv)
        return out

    def close(self) -> None:
        """Release what the policy holds; called once when the worker stops."""
