"""TLS of the REST API: the ``ssl.*`` settings of https listeners and of calls to other workers, as
:class:`ssl.SSLContext` objects.

Kafka Connect reads them as Java's ``SSLUtils`` does: an https listener takes every setting from
``listeners.https.ssl.*`` (``admin.listeners.https.ssl.*`` for an admin listener) when at least one
key with that prefix is set, and otherwise from the top-level ``ssl.*`` keys ("all or nothing", not
key by key). Calls to other workers use the ``listeners.https.`` settings the same way: the keystore
is presented when the peer asks for a client certificate, the truststore verifies the peer, and the
host name is checked unless ``ssl.endpoint.identification.algorithm`` is empty.

Keystores and truststores are read as PEM (a file, or inline ``ssl.keystore.certificate.chain`` /
``ssl.keystore.key`` / ``ssl.truststore.certificates``) or PKCS12 (read with ``cryptography``). A
setting Python's :mod:`ssl` cannot honour (a JKS store, Java-only providers, a Java cipher suite name)
raises :class:`TlsSettingError`, one line naming the key and what to use instead.
"""

from __future__ import annotations

import os
import re
import secrets
import ssl
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from connect_runtime.api.errors import ConfigException

__all__ = [
    "ADMIN_LISTENERS_HTTPS_PREFIX",
    "LISTENERS_HTTPS_PREFIX",
    "ClientAuth",
    "PeerTls",
    "TlsSettingError",
    "client_context",
    "prefixed_client_context",
    "server_context",
    "tls_settings",
]

LISTENERS_HTTPS_PREFIX: Final = "listeners.https."
ADMIN_LISTENERS_HTTPS_PREFIX: Final = "admin.listeners.https."

#: The ``ssl.*`` keys an https listener (or the client of other workers) reads.
_KEYS: Final = frozenset({
    "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
    "ssl.keystore.certificate.chain", "ssl.keystore.key",
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
    "ssl.client.auth", "ssl.enabled.protocols", "ssl.protocol", "ssl.cipher.suites",
    "ssl.endpoint.identification.algorithm", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm",
    "ssl.provider", "ssl.secure.random.implementation", "ssl.engine.factory.class",
})
#: Java-only settings, refused when set (with what to do instead).
_JAVA_ONLY: Final[Mapping[str, str]] = {
    "ssl.provider": "Python's ssl uses OpenSSL; remove it",
    "ssl.secure.random.implementation": "Python's ssl uses OpenSSL's random generator; remove it",
    "ssl.engine.factory.class": "Java SSL engines cannot run in this worker; remove it",
}
#: Java's default algorithms, which are what OpenSSL does anyway; any other value is refused.
_JAVA_DEFAULTS: Final[Mapping[str, frozenset[str]]] = {
    "ssl.keymanager.algorithm": frozenset({"SunX509", "PKIX"}),
    "ssl.trustmanager.algorithm": frozenset({"PKIX"}),
}
#: ``ssl.protocol`` names the context's protocol family; the versions offered are ssl.enabled.protocols.
_PROTOCOLS: Final = frozenset({"TLS", "TLSv1.2", "TLSv1.3"})
_VERSIONS: Final[Mapping[str, ssl.TLSVersion]] = {
    "TLSv1": ssl.TLSVersion.TLSv1,
    "TLSv1.1": ssl.TLSVersion.TLSv1_1,
    "TLSv1.2": ssl.TLSVersion.TLSv1_2,
    "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}
_DEFAULT_ENABLED_PROTOCOLS: Final = "TLSv1.2,TLSv1.3"
_IANA_TLS12_CIPHER: Final = re.compile(r"^(?:TLS|SSL)_\w+_WITH_\w+$")
_STORE_TYPES: Final = frozenset({"PEM", "PKCS12"})


class TlsSettingError(ConfigException):
    """An ``ssl.*`` setting of the REST API that cannot be honoured (or is missing); ``key`` is the key as
    written. ``message`` completes "Unsupported REST TLS setting <key>: ", unless ``whole`` says it is
    the whole line."""

    def __init__(self, key: str, message: str, *, whole: bool = False, what: str = "REST TLS") -> None:
        super().__init__(message if whole else f"Unsupported {what} setting {key}: {message}")
        self.key = key
        self.value = None


class ClientAuth(StrEnum):
    """``ssl.client.auth`` of an https listener (Java's ``SslClientAuth``)."""

    NONE = "none"
    REQUESTED = "requested"
    REQUIRED = "required"


class _Settings:
    """The settings one context is built from, with the prefix they were written with (for messages)."""

    def __init__(self, values: Mapping[str, str], prefix: str, what: str = "REST TLS") -> None:
        self.values = values
        self.prefix = prefix
        self.what = what

    def get(self, key: str) -> str | None:
        value = self.values.get(key)
        return None if value is None else value.strip()

    def name(self, key: str) -> str:
        return self.prefix + key

    def refuse(self, key: str, message: str) -> TlsSettingError:
        return TlsSettingError(self.name(key), message, what=self.what)


def tls_settings(originals: Mapping[str, str], prefix: str) -> tuple[dict[str, str], str]:
    """The ``ssl.*`` settings for ``prefix`` (Java's ``valuesWithPrefixAllOrNothing``) and the prefix
    they came from: the prefixed keys (prefix stripped) when any is set, else the top-level ones.

    A prefixed key this module does not read is refused: it would otherwise be silently ignored.
    """
    prefixed = {k[len(prefix):]: v for k, v in originals.items() if k.startswith(prefix)}
    if prefixed:
        for key in prefixed:
            if key not in _KEYS:
                raise TlsSettingError(prefix + key, "is not a TLS setting of the REST API (supported: "
                                      + ", ".join(sorted(_KEYS - _JAVA_ONLY.keys())) + ")")
        return prefixed, prefix
    return {k: v for k, v in originals.items() if k in _KEYS}, ""


def server_context(originals: Mapping[str, str], prefix: str = LISTENERS_HTTPS_PREFIX) -> ssl.SSLContext:
    """The context of an https listener whose settings have ``prefix`` (``listeners.https.`` or
    ``admin.listeners.https.``); raises :class:`TlsSettingError` on a setting it cannot honour."""
    s = _Settings(*tls_settings(originals, prefix))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _check_common(s)
    if not _load_keystore(context, s):
        raise TlsSettingError(prefix + "ssl.keystore.location",
                              f"An https listener needs a keystore: set {prefix}ssl.keystore.type=PEM and "
                              f"{prefix}ssl.keystore.location (or {prefix}ssl.keystore.certificate.chain and "
                              f"{prefix}ssl.keystore.key, or a PKCS12 {prefix}ssl.keystore.location), "
                              "or the same ssl.* keys without the prefix", whole=True)
    auth_value = (s.get("ssl.client.auth") or ClientAuth.NONE.value).lower()
    try:
        auth = ClientAuth(auth_value)
    except ValueError:
        raise s.refuse("ssl.client.auth", "must be one of none, requested, required") from None
    if auth is not ClientAuth.NONE:
        context.verify_mode = ssl.CERT_REQUIRED if auth is ClientAuth.REQUIRED else ssl.CERT_OPTIONAL
        if not _load_truststore(context, s):
            context.load_default_certs(ssl.Purpose.CLIENT_AUTH)
    else:
        _load_truststore(context, s)  # checked even when unused, so a mistake shows at start-up
    _apply_algorithms(context, s)
    return context


def client_context(originals: Mapping[str, str]) -> ssl.SSLContext:
    """The context of calls to other workers over https (Java's ``RestClient``): the ``listeners.https.``
    settings, else the top-level ``ssl.*`` ones."""
    return _client_context(_Settings(*tls_settings(originals, LISTENERS_HTTPS_PREFIX)))


def prefixed_client_context(values: Mapping[str, str], prefix: str, what: str) -> ssl.SSLContext:
    """The context of an https client whose ``ssl.*`` settings were written with ``prefix`` (stripped in
    ``values``, e.g. a schema registry's ``schema.registry.ssl.*``); refusals name the key as written
    and say ``Unsupported <what> setting``."""
    return _client_context(_Settings({k: v for k, v in values.items() if k in _KEYS}, prefix, what))


def _client_context(s: _Settings) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _check_common(s)
    _load_keystore(context, s)
    if not _load_truststore(context, s):
        context.load_default_certs(ssl.Purpose.SERVER_AUTH)
    identification = s.get("ssl.endpoint.identification.algorithm")
    if identification is not None and identification.lower() not in ("", "https"):
        raise s.refuse("ssl.endpoint.identification.algorithm", "must be https (check the peer's host name) "
                                                                "or empty (do not)")
    context.check_hostname = identification is None or identification.lower() == "https"
    context.verify_mode = ssl.CERT_REQUIRED
    _apply_algorithms(context, s)
    return context


def _check_common(s: _Settings) -> None:
    for key, why in _JAVA_ONLY.items():
        if s.get(key):
            raise s.refuse(key, why)
    for key, accepted in _JAVA_DEFAULTS.items():
        value = s.get(key)
        if value and value not in accepted:
            raise s.refuse(key, f"only {' or '.join(sorted(accepted))} (what OpenSSL does) can be honoured; "
                                "remove it")
    protocol = s.get("ssl.protocol")
    if protocol and protocol not in _PROTOCOLS:
        raise s.refuse("ssl.protocol", "must be TLS, TLSv1.2 or TLSv1.3 (the versions offered are "
                                       "ssl.enabled.protocols)")


def _store_type(s: _Settings, key: str) -> str:
    store_type = (s.get(key) or "JKS").upper()
    if store_type not in _STORE_TYPES:
        default = "" if s.get(key) else " (the default)"
        raise s.refuse(key, f"{store_type}{default} cannot be read by Python; convert the store to PKCS12 "
                            "(keytool -importkeystore -deststoretype PKCS12) and set PKCS12, or to PEM and set PEM")
    return store_type


def _load_keystore(context: ssl.SSLContext, s: _Settings) -> bool:
    """Load the certificate chain and key into ``context``; False when no keystore is configured."""
    location = s.get("ssl.keystore.location")
    chain = s.values.get("ssl.keystore.certificate.chain")
    key = s.values.get("ssl.keystore.key")
    store_password = s.values.get("ssl.keystore.password")
    key_password = s.values.get("ssl.key.password")
    if not location and not chain and not key:
        return False
    if location and (chain or key):
        raise s.refuse("ssl.keystore.certificate.chain" if chain else "ssl.keystore.key",
                       "is set together with ssl.keystore.location; set one or the other")
    # Inline PEM is PEM whatever the (default) type says, as in Kafka; a file needs its type named.
    store_type = "PEM" if not location and not s.get("ssl.keystore.type") else _store_type(s, "ssl.keystore.type")
    if store_type == "PKCS12":
        if not location:
            raise s.refuse("ssl.keystore.type", "a PKCS12 keystore needs ssl.keystore.location")
        _load_pkcs12_keystore(context, s, location, store_password if store_password is not None else key_password)
        return True
    if store_password:
        raise s.refuse("ssl.keystore.password", "a PEM keystore has no store password (use ssl.key.password for "
                                                "an encrypted key); remove it")
    if location:
        _load_chain(context, s, "ssl.keystore.location", location, None, key_password)
        return True
    if not chain or not key:
        raise s.refuse("ssl.keystore.key" if not key else "ssl.keystore.certificate.chain",
                       "a PEM keystore needs both ssl.keystore.certificate.chain and ssl.keystore.key")
    with _private_file(key.strip() + "\n" + chain.strip() + "\n") as path:
        _load_chain(context, s, "ssl.keystore.key", path, None, key_password)
    return True


def _load_chain(context: ssl.SSLContext, s: _Settings, key: str, certfile: str, keyfile: str | None,
                password: str | None) -> None:
    try:
        context.load_cert_chain(certfile, keyfile, password=password or None)
    except FileNotFoundError:
        raise s.refuse(key, f"the file {certfile} does not exist") from None
    except ssl.SSLError as e:
        raise s.refuse(key, "does not hold a PEM private key (encrypted with ssl.key.password, if at all) "
                            f"matching its certificate chain ({e.reason or e})") from None
    except OSError as e:
        raise s.refuse(key, f"cannot be read: {e.strerror or e}") from None


def _read(s: _Settings, key: str, location: str) -> bytes:
    try:
        with open(location, "rb") as f:
            return f.read()
    except OSError as e:
        raise s.refuse(key, f"cannot be read: {e.strerror or e}") from None


def _load_pkcs12_keystore(context: ssl.SSLContext, s: _Settings, location: str, password: str | None) -> None:
    # cryptography's PKCS12 support is a heavy import, needed only by PKCS12 stores
    from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, Encoding, PrivateFormat, pkcs12

    data = _read(s, "ssl.keystore.location", location)
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(data, password.encode() if password else None)
    except ValueError as e:
        raise s.refuse("ssl.keystore.location", f"is not a PKCS12 keystore that ssl.keystore.password opens ({e})") \
            from None
    if key is None or cert is None:
        raise s.refuse("ssl.keystore.location", "the PKCS12 keystore holds no private key with its certificate")
    # load_cert_chain reads files only: the key goes to a private temporary file, encrypted with a
    # one-time password, and the file is removed at once.
    one_time = secrets.token_urlsafe(24)
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(one_time.encode()))
    pem += cert.public_bytes(Encoding.PEM) + b"".join(c.public_bytes(Encoding.PEM) for c in extra)
    with _private_file(pem.decode("ascii")) as path:
        _load_chain(context, s, "ssl.keystore.location", path, None, one_time)


def _load_truststore(context: ssl.SSLContext, s: _Settings) -> bool:
    """Load the trusted certificates into ``context``; False when no truststore is configured."""
    location = s.get("ssl.truststore.location")
    certificates = s.values.get("ssl.truststore.certificates")
    password = s.values.get("ssl.truststore.password")
    if not location and not certificates:
        return False
    if location and certificates:
        raise s.refuse("ssl.truststore.certificates", "is set together with ssl.truststore.location; set one or "
                                                      "the other")
    store_type = "PEM" if certificates and not s.get("ssl.truststore.type") else _store_type(s, "ssl.truststore.type")
    key = "ssl.truststore.location" if location else "ssl.truststore.certificates"
    if store_type == "PKCS12":
        if not location:
            raise s.refuse("ssl.truststore.type", "a PKCS12 truststore needs ssl.truststore.location")
        cadata = _pkcs12_certificates(s, location, password)
    else:
        if password:
            raise s.refuse("ssl.truststore.password", "a PEM truststore has no password; remove it")
        cadata = _read(s, key, location).decode("ascii", "replace") if location else (certificates or "")
    try:
        context.load_verify_locations(cadata=cadata)
    except (ssl.SSLError, ValueError) as e:
        raise s.refuse(key, f"holds no PEM certificate that can be read ({e})") from None
    return True


def _pkcs12_certificates(s: _Settings, location: str, password: str | None) -> str:
    # cryptography's PKCS12 support is a heavy import, needed only by PKCS12 stores
    from cryptography.hazmat.primitives.serialization import Encoding, pkcs12

    data = _read(s, "ssl.truststore.location", location)
    try:
        store = pkcs12.load_pkcs12(data, password.encode() if password else None)
    except ValueError as e:
        raise s.refuse("ssl.truststore.location", f"is not a PKCS12 truststore that ssl.truststore.password "
                                                  f"opens ({e})") from None
    certs = [c.certificate for c in ([store.cert] if store.cert else []) + list(store.additional_certs)]
    if not certs:
        raise s.refuse("ssl.truststore.location", "the PKCS12 truststore holds no certificate")
    return "".join(c.public_bytes(Encoding.PEM).decode("ascii") for c in certs)


def _apply_algorithms(context: ssl.SSLContext, s: _Settings) -> None:
    """``ssl.enabled.protocols`` (a contiguous range of TLS versions) and ``ssl.cipher.suites``."""
    raw = s.get("ssl.enabled.protocols")
    names = [p.strip() for p in (raw if raw is not None else _DEFAULT_ENABLED_PROTOCOLS).split(",") if p.strip()]
    unknown = [n for n in names if n not in _VERSIONS]
    if unknown or not names:
        raise s.refuse("ssl.enabled.protocols", "must list TLS versions among " + ", ".join(_VERSIONS)
                       + (f" ({unknown[0]} is not one)" if unknown else ""))
    order = list(_VERSIONS)
    indexes = sorted({order.index(n) for n in names})
    if indexes != list(range(indexes[0], indexes[-1] + 1)):
        raise s.refuse("ssl.enabled.protocols", "OpenSSL offers a range of TLS versions; list every version "
                                                "between the lowest and the highest")
    lowest, highest = _VERSIONS[order[indexes[0]]], _VERSIONS[order[indexes[-1]]]
    suites = s.get("ssl.cipher.suites")
    if suites:
        lowest, highest = _apply_cipher_suites(context, s, suites, lowest, highest)
    try:
        context.minimum_version = lowest
        context.maximum_version = highest
    except (ValueError, ssl.SSLError) as e:
        raise s.refuse("ssl.enabled.protocols", f"cannot be set with this OpenSSL ({e})") from None


def _apply_cipher_suites(context: ssl.SSLContext, s: _Settings, value: str, lowest: ssl.TLSVersion,
                         highest: ssl.TLSVersion) -> tuple[ssl.TLSVersion, ssl.TLSVersion]:
    """Restrict the TLS 1.2 (and older) suites with OpenSSL names. Python cannot choose among TLS 1.3
    suites, so those are all or none: naming none of them turns TLS 1.3 off, as it would in Java."""
    names = [n.strip() for n in re.split(r"[,:]", value) if n.strip()]
    tls13 = {c["name"] for c in context.get_ciphers() if c.get("protocol") == "TLSv1.3"}
    named13 = [n for n in names if n in tls13]
    older = [n for n in names if n not in tls13]
    for name in older:
        if _IANA_TLS12_CIPHER.match(name):
            raise s.refuse("ssl.cipher.suites", f"{name} is a Java (IANA) name, which OpenSSL does not understand; "
                                                "use OpenSSL names (e.g. ECDHE-RSA-AES256-GCM-SHA384, see ciphers(1))")
    if named13 and set(named13) != tls13:
        raise s.refuse("ssl.cipher.suites", "Python's ssl cannot choose among TLS 1.3 suites; list all of "
                                            + ", ".join(sorted(tls13)) + " or none")
    if older:
        try:
            context.set_ciphers(":".join(older))
        except ssl.SSLError:
            raise s.refuse("ssl.cipher.suites", "names no cipher suite OpenSSL knows (use OpenSSL names, "
                                                "see ciphers(1))") from None
        known = {c["name"] for c in context.get_ciphers()}
        missing = [n for n in older if n not in known and not n.startswith(("!", "-", "+", "@"))
                   and n.upper() == n and "-" in n]
        if missing:
            raise s.refuse("ssl.cipher.suites", f"{missing[0]} is not a cipher suite OpenSSL offers")
    elif lowest < ssl.TLSVersion.TLSv1_3:
        lowest = ssl.TLSVersion.TLSv1_3  # only TLS 1.3 suites were named
    if not named13 and highest >= ssl.TLSVersion.TLSv1_3:
        highest = ssl.TLSVersion.TLSv1_2
    if lowest > highest:
        raise s.refuse("ssl.cipher.suites", "names no suite of the versions in ssl.enabled.protocols")
    return lowest, highest


@contextmanager
def _private_file(text: str) -> Iterator[str]:
    """A temporary file only this user can read, holding ``text``; removed on exit."""
    fd, path = tempfile.mkstemp(prefix="connect-rest-tls-", suffix=".pem")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text)
        yield path
    finally:
        os.unlink(path)


@dataclass(frozen=True)
class PeerTls:
    """How a worker calls other workers over https: a context, or why it cannot (a refused setting)."""

    context: ssl.SSLContext | None
    error: str | None = None
