"""Config providers: where ``${provider:[path:]key}`` placeholders in configurations get their values.

A worker lists its providers in its properties file::

    config.providers=vault
    config.providers.vault.class=mypackage.providers.VaultConfigProvider
    config.providers.vault.param.url=https://vault:8200

and a connector config may then say ``"db.password": "${vault:secret/db:password}"``. The value is
looked up when the connector or task starts; the config topic and the REST API keep the placeholder.
The built-in providers are ``FileConfigProvider``, ``DirectoryConfigProvider`` and
``EnvVarConfigProvider`` (also under their Apache Kafka class names).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Set

__all__ = ["ConfigProvider"]


class ConfigProvider(ABC):
    """Looks up configuration values by path and key (Kafka's ``ConfigProvider``).

    The worker creates one instance per name in ``config.providers`` when it starts, calls
    :meth:`configure` with that name's ``param.*`` settings (prefix stripped), and :meth:`close` when
    it stops. An exception from :meth:`configure` stops the worker from starting. :meth:`get` may be
    called from several threads at once.
    """

    def configure(self, configs: Mapping[str, str]) -> None:
        """Set the provider up from its ``config.providers.<name>.param.*`` settings."""

    @abstractmethod
    def get(self, path: str, keys: Set[str]) -> Mapping[str, str]:
        """The values of ``keys`` at ``path`` (``""`` when the placeholder names no path).

        Leave a key out of the result when it has no value: its placeholder then stays as written,
        as in Kafka. Raise :class:`~connect_runtime.api.ConfigException` when the lookup itself is
        refused or fails; the connector or task that needed it fails with that message.
        """

    def close(self) -> None:
        """Release what the provider holds; called once when the worker stops."""
