"""How each key of the worker file is parsed: the shared value grammar (:mod:`connect_runtime.api.config_values`)
plus the worker's own rules, as the pydantic ``BeforeValidator`` types
:class:`~connect_runtime.config.worker_config.WorkerConfig` declares its fields with.

A rule that refuses a value raises :class:`SettingInvalid` with the requirement ("must be at least 1"); the
config turns it into the one-line start-up error naming the key and the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Final
from urllib.parse import urlsplit

from pydantic import BeforeValidator

from connect_runtime.api.config_values import parse_bool, parse_integer, parse_list, parse_string
from connect_runtime.config.override_policies import OverridePolicyName, builtin_policy_name
from connect_runtime.config.response_headers import ResponseHeaderConfigError, parse_response_headers

__all__ = [
    "HMAC_ALGORITHMS",
    "ExactlyOnceSourceSupport",
    "SettingInvalid",
    "parse_listener",
]

#: Java MAC algorithm names we can sign and verify internal requests with (KIP-507), mapped to the
#: :mod:`hashlib` digest that ``hmac.new(key, msg, digest)`` takes.
HMAC_ALGORITHMS: Final[Mapping[str, str]] = {
    "HmacMD5": "md5",
    "HmacSHA1": "sha1",
    "HmacSHA224": "sha224",
    "HmacSHA256": "sha256",
    "HmacSHA384": "sha384",
    "HmacSHA512": "sha512",
}
_HMAC_BY_FOLDED_NAME = {name.lower(): name for name in HMAC_ALGORITHMS}

# Java's HMAC key generators refuse keys shorter than this many bits.
_MIN_HMAC_KEY_BITS = 40


class ExactlyOnceSourceSupport(StrEnum):
    """``exactly.once.source.support``: the rolling-upgrade switch for exactly-once source (KIP-618).

    Existing clusters go ``disabled`` -> ``preparing`` -> ``enabled``, one rolling pass each.
    """

    DISABLED = "disabled"
    """No exactly-once source tasks. (Unlike Java's, this runtime's leader writes the config topic
    through its transactional producer in every mode: leadership itself rests on it.)"""
    PREPARING = "preparing"
    """Like ``disabled`` for tasks: the first pass of the rolling upgrade, taken by workers that will
    serve exactly-once tasks in the next pass (Java's leader starts writing transactionally here)."""
    ENABLED = "enabled"
    """Source tasks run exactly once (transactional producers, read_committed offsets)."""

    @property
    def enabled(self) -> bool:
        """Whether exactly-once source tasks are on (only under ``enabled``)."""
        return self is ExactlyOnceSourceSupport.ENABLED



class SettingInvalid(ValueError):
    """Raised inside validators; carries what the one-line error message needs.

    ``key``/``value`` are only given by checks that span several keys (the validated field's own key
    and value are known from the pydantic error otherwise).
    """

    def __init__(self, message: str, key: str | None = None, value: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.value = value


# --- value parsers: the shared grammar (api.config_values) plus the worker's own rules -------------


def _parse_non_empty_string(value: object) -> str:
    s = parse_string(value)
    if not s:
        raise SettingInvalid("must not be empty")
    return s


def _parse_optional_string(value: object) -> str | None:
    """An unset optional string: Java keeps ``""``; we map it to None so callers test one thing."""
    if value is None:
        return None
    s = parse_string(value)
    return s or None


def _integer_parser(type_name: str) -> Callable[[object], int]:
    def parse(value: object) -> int:
        return parse_integer(value, type_name)

    return parse


_parse_int = _integer_parser("INT")
_parse_long = _integer_parser("LONG")
_parse_short = _integer_parser("SHORT")


def _optional(parse: Callable[[object], int]) -> Callable[[object], int | None]:
    def parse_optional(value: object) -> int | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        return parse(value)

    return parse_optional


def _at_least(parse: Callable[[object], int], minimum: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        number = parse(value)
        if number < minimum:
            raise SettingInvalid(f"must be at least {minimum}")
        return number

    return check


def _broker_default_or_positive(parse: Callable[[object], int], what: str) -> Callable[[object], int]:
    def check(value: object) -> int:
        number = parse(value)
        if number != -1 and number < 1:
            raise SettingInvalid(f"{what} must be at least 1, or -1 to use the broker's default")
        return number

    return check


def _parse_optional_list(value: object) -> list[str] | None:
    return None if value is None else parse_list(value)


def parse_eos_support(value: object) -> ExactlyOnceSourceSupport:
    if isinstance(value, ExactlyOnceSourceSupport):
        return value
    s = parse_string(value).lower()
    try:
        return ExactlyOnceSourceSupport(s)
    except ValueError:
        allowed = ", ".join(m.value for m in ExactlyOnceSourceSupport)
        raise SettingInvalid(f"must be one of {allowed}") from None


def parse_override_policy(value: object) -> OverridePolicyName | str:
    """A built-in policy's name (any spelling), or the dotted path of a policy class."""
    if isinstance(value, OverridePolicyName):
        return value
    s = parse_string(value)
    policy = builtin_policy_name(s)
    if policy is not None:
        return policy
    return s  # a class: found (through the plugin allowlist) when the policy is created


def parse_plugin_discovery(value: object) -> str:
    # Java's modes choose how jars are searched; ours (entry points and plugin.path, both always) is its
    # default, hybrid_warn. The others would change what Java finds, so they are not accepted silently.
    s = parse_string(value).lower()
    if s != "hybrid_warn":
        raise SettingInvalid("only hybrid_warn (the default) is supported: plugins are found through entry points "
                       "and plugin.path, both always")
    return s


def _hmac_name(value: str) -> str:
    name = _HMAC_BY_FOLDED_NAME.get(value.strip().lower())
    if name is None:
        raise SettingInvalid("must be one of " + ", ".join(HMAC_ALGORITHMS))
    return name


def parse_hmac(value: object) -> str:
    return _hmac_name(parse_string(value))


def parse_hmac_list(value: object) -> list[str]:
    names = parse_list(value)
    if not names:
        raise SettingInvalid("must list at least one signature verification algorithm")
    return [_hmac_name(n) for n in names]


def parse_key_size(value: object) -> int | None:
    size = _optional(_parse_int)(value)
    if size is not None and size < _MIN_HMAC_KEY_BITS:
        raise SettingInvalid(f"must be at least {_MIN_HMAC_KEY_BITS} (bits), or unset for the algorithm's default")
    return size


def parse_listener(url: str) -> tuple[str, str, int]:
    """Split a REST listener URL (``http://:8083``, ``https://[::1]:8443``) into scheme, host, port.

    The host is ``""`` when the URL leaves it out (bind on all interfaces); the port is required,
    as in Java. Raises ValueError when the URL is not a listener.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError(f"listener {url!r} must start with http:// or https://")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"listener {url!r} has an invalid port") from None
    if port is None:
        raise ValueError(f"listener {url!r} must name a port, like http://:8083")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username is not None:
        raise ValueError(f"listener {url!r} must be just scheme://host:port")
    return scheme, parts.hostname or "", port


def parse_listeners(value: object) -> list[str]:
    listeners = parse_list(value)
    if not listeners:
        raise SettingInvalid("must contain at least one listener, like http://:8083")
    _check_listeners(listeners)
    return listeners


def parse_admin_listeners(value: object) -> list[str] | None:
    """Unset: admin endpoints on the normal listeners; empty: admin endpoints disabled."""
    listeners = _parse_optional_list(value)
    _check_listeners(listeners or ())
    return listeners


def _check_listeners(listeners: Sequence[str]) -> None:
    for listener in listeners:
        try:
            parse_listener(listener)
        except ValueError as e:
            raise SettingInvalid(str(e)) from None


def parse_response_headers_setting(value: object) -> str:
    """The raw rules (Java's ``getString``), once they are known to parse."""
    rules = parse_string(value)
    try:
        parse_response_headers(rules)
    except ResponseHeaderConfigError as e:
        raise SettingInvalid(str(e)) from None
    return rules


def parse_advertised_listener(value: object) -> str | None:
    s = _parse_optional_string(value)
    if s is None:
        return None
    if s.lower() not in ("http", "https"):
        raise SettingInvalid("must be one of http, https")
    return s.lower()


def parse_port(value: object) -> int | None:
    port = _optional(_parse_int)(value)
    if port is not None and not 1 <= port <= 65535:
        raise SettingInvalid("must be a port number between 1 and 65535")
    return port


Str = Annotated[str, BeforeValidator(parse_string)]
NonEmptyStr = Annotated[str, BeforeValidator(_parse_non_empty_string)]
OptStr = Annotated[str | None, BeforeValidator(_parse_optional_string)]
Bool = Annotated[bool, BeforeValidator(parse_bool)]
NonNegInt = Annotated[int, BeforeValidator(_at_least(_parse_int, 0))]
NonNegLong = Annotated[int, BeforeValidator(_at_least(_parse_long, 0))]
PositiveInt = Annotated[int, BeforeValidator(_at_least(_parse_int, 1))]
ReplicationFactor = Annotated[
    int, BeforeValidator(_broker_default_or_positive(_parse_short, "replication factor"))]
Partitions = Annotated[int, BeforeValidator(_broker_default_or_positive(_parse_int, "number of partitions"))]
StrList = Annotated[list[str], BeforeValidator(parse_list)]
OptStrList = Annotated[list[str] | None, BeforeValidator(_parse_optional_list)]
