"""The built-in ``connector.client.config.override.policy`` implementations and their checks.

``All`` allows every ``*.override.*`` key, ``None`` none, ``Principal`` only ``sasl.jaas.config``,
``sasl.mechanism`` and ``security.protocol`` (Kafka's policies, also under their Java class names).
:func:`validate_client_overrides` gives the validation results (an error on each disallowed key,
prefixed name, Kafka's message); :func:`check_client_overrides` refuses a config at start-up.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import StrEnum
from typing import Final

from connect_runtime.api.config_def import ConfigValue
from connect_runtime.api.errors import ConnectException
from connect_runtime.api.override_policy import (
    ConnectorClientConfigOverridePolicy,
    ConnectorClientConfigRequest,
)
from connect_runtime.config.connector_config import CLIENT_OVERRIDE_PREFIXES

__all__ = [
    "BUILTIN_POLICIES",
    "AllConnectorClientConfigOverridePolicy",
    "NoneConnectorClientConfigOverridePolicy",
    "PrincipalConnectorClientConfigOverridePolicy",
    "check_client_overrides",
    "validate_client_overrides",
]

log = logging.getLogger(__name__)


class OverridePolicyName(StrEnum):
    """The built-in policies' names: the values of ``connector.client.config.override.policy`` (which
    also takes their Kafka class names) and the names their error messages give."""

    ALL = "All"
    NONE = "None"
    PRINCIPAL = "Principal"

class AllConnectorClientConfigOverridePolicy(ConnectorClientConfigOverridePolicy):
    """Every client setting may be overridden (the default)."""

    policy_name = OverridePolicyName.ALL

    def configure(self, configs: Mapping[str, str]) -> None:
        log.info("Setting up All Policy for ConnectorClientConfigOverride. This will allow all client "
                 "configurations to be overridden")

    def is_allowed(self, name: str, value: str, request: ConnectorClientConfigRequest) -> bool:
        return True


class NoneConnectorClientConfigOverridePolicy(ConnectorClientConfigOverridePolicy):
    """No client setting may be overridden."""

    policy_name = OverridePolicyName.NONE

    def configure(self, configs: Mapping[str, str]) -> None:
        log.info("Setting up None Policy for ConnectorClientConfigOverride. This will disallow any client "
                 "configuration to be overridden")

    def is_allowed(self, name: str, value: str, request: ConnectorClientConfigRequest) -> bool:
        return False


class PrincipalConnectorClientConfigOverridePolicy(ConnectorClientConfigOverridePolicy):
    """Only the client's principal: ``sasl.jaas.config``, ``sasl.mechanism``, ``security.protocol``."""

    policy_name = OverridePolicyName.PRINCIPAL
    ALLOWED: Final = frozenset({"sasl.jaas.config", "sasl.mechanism", "security.protocol"})

    def configure(self, configs: Mapping[str, str]) -> None:
        log.info("Setting up Principal policy for ConnectorClientConfigOverride. This will allow `sasl` client "
                 "configuration to be overridden.")

    def is_allowed(self, name: str, value: str, request: ConnectorClientConfigRequest) -> bool:
        return name in self.ALLOWED


#: Built-in policies by their short names (``All``, ``None``, ``Principal``).
BUILTIN_POLICIES: Final[Mapping[OverridePolicyName, type[ConnectorClientConfigOverridePolicy]]] = {
    OverridePolicyName(cls.policy_name): cls
    for cls in (AllConnectorClientConfigOverridePolicy, NoneConnectorClientConfigOverridePolicy,
                PrincipalConnectorClientConfigOverridePolicy)
}

_JAVA_POLICY_PACKAGE = "org.apache.kafka.connect.connector.policy."
# Accepted spellings (case-insensitive): the short name, and the Kafka class name with or without its
# package (our classes carry the Kafka simple names).
_SPELLINGS: Final[Mapping[str, OverridePolicyName]] = {
    spelling.lower(): name
    for name, cls in BUILTIN_POLICIES.items()
    for spelling in (name.value, cls.__name__, _JAVA_POLICY_PACKAGE + cls.__name__)
}


def builtin_policy_name(spelling: str) -> OverridePolicyName | None:
    """The built-in policy ``spelling`` names (``All``, ``AllConnectorClientConfigOverridePolicy``, or the
    Kafka class name with its package, in any case); None for any other name."""
    return _SPELLINGS.get(spelling.strip().lower())


def validate_client_overrides(
    policy: ConnectorClientConfigOverridePolicy,
    connector_name: str,
    connector_class: type,
    props: Mapping[str, str],
) -> list[ConfigValue]:
    """The policy's verdict on every ``<client>.override.*`` key of ``props`` (names with the prefix).

    All three client kinds are checked for a source connector: this runtime builds producers,
    consumers (offsets topics) and admin clients (offsets and new topics) from a connector's overrides.
    """
    out: list[ConfigValue] = []
    for kind, prefix in CLIENT_OVERRIDE_PREFIXES.items():
        overrides = {k[len(prefix):]: v for k, v in props.items() if k.startswith(prefix) and k != prefix}
        if not overrides:
            continue
        request = ConnectorClientConfigRequest(connector_name, "source", connector_class, kind, overrides)
        for cv in policy.validate(request):
            out.append(ConfigValue(prefix + cv.name, cv.value, list(cv.recommended_values), list(cv.errors),
                                   cv.visible))
    return out


def check_client_overrides(
    policy: ConnectorClientConfigOverridePolicy,
    connector_name: str,
    connector_class: type,
    props: Mapping[str, str],
) -> None:
    """Raise ConnectException (Kafka's message, names only) when the policy disallows an override.

    Validation refuses such a config already; this catches one written before the policy changed.
    """
    refused = [cv for cv in validate_client_overrides(policy, connector_name, connector_class, props) if cv.errors]
    if refused:
        # Kafka prints each ConfigValue with its value; the value may be a secret, so it is left out.
        raise ConnectException("Client Config Overrides not allowed "
                               + ", ".join(f"[{cv.name}: {' '.join(cv.errors)}]" for cv in refused))
