"""Which runtime a plugin runs in.

A built-in or bundled plugin reports the runtime's version as its own (as Kafka's bundled plugins
report ``AppInfoParser.getVersion()``); any plugin may log it.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["UNKNOWN_VERSION", "runtime_version"]

#: The runtime version when the package metadata is missing (a bare source tree), as Kafka's
#: ``AppInfoParser`` reports it.
UNKNOWN_VERSION = "unknown"


def runtime_version() -> str:
    """The installed ``connect-runtime`` version: the worker's (``GET /``) and the built-in plugins'."""
    try:
        return version("connect-runtime")
    except PackageNotFoundError:
        return UNKNOWN_VERSION
