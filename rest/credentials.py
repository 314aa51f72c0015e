"""The Basic authentication credentials store: who may call the REST API, and with which password.

The file is a Java ``.properties`` file, as Kafka's ``PropertyFileLoginModule`` reads it: one
``user: password`` (or ``user=password``) per line, ``#`` comments. A password is either plain text
(as in Kafka) or a hash printed by ``connect-runtime hash-password``, in the PHC string format of
scrypt::

    $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>

with ``<salt>`` and ``<hash>`` in unpadded standard base64 (a 16-byte salt, a 32-byte hash). A value
starting with ``$scrypt$`` is always read as a hash (a malformed one refuses start-up), so a plain
password that happens to start that way must be hashed instead.

Passwords are compared in constant time (:func:`hmac.compare_digest`); a user not in the file costs
as much as a wrong password, so response times do not tell which users exist.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["CredentialStore", "CredentialsError", "hash_password"]

SCRYPT_PREFIX = "$scrypt$"
#: Default cost: N = 2**15, r = 8, p = 1 (32 MiB, some tens of milliseconds per check).
DEFAULT_LOG_N = 15
DEFAULT_R = 8
DEFAULT_P = 1
_SALT_BYTES = 16
_HASH_BYTES = 32
#: Bounds on the cost a hash may ask for: a file must not make each request take gigabytes.
_MAX_LOG_N = 20
_MAX_R = 32
_MAX_P = 16
_PHC = re.compile(r"\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)")
#: Successful checks remembered (keyed by an HMAC of user and password under a per-process key) so
#: that a client calling repeatedly does not pay the KDF on every request.
_CACHE_LIMIT = 1024


class CredentialsError(ValueError):
    """The credentials file or a stored password is invalid (the message never contains a password)."""


@dataclass(frozen=True, slots=True)
class _ScryptHash:
    log_n: int
    r: int
    p: int
    salt: bytes
    digest: bytes

    def matches(self, password: str) -> bool:
        return hmac.compare_digest(_scrypt(password, self.salt, self.log_n, self.r, self.p, len(self.digest)),
                                   self.digest)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def _scrypt(password: str, salt: bytes, log_n: int, r: int, p: int, length: int) -> bytes:
    n = 1 << log_n
    # hashlib's default memory cap (32 MiB) is just below what N=2**15, r=8 needs.
    maxmem = 128 * r * (n + p + 2) + (1 << 20)
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=maxmem, dklen=length)


def hash_password(password: str, *, log_n: int = DEFAULT_LOG_N, r: int = DEFAULT_R, p: int = DEFAULT_P) -> str:
    """A new salted scrypt hash of ``password``, in the format of the module docstring."""
    if not 1 <= log_n <= _MAX_LOG_N or not 1 <= r <= _MAX_R or not 1 <= p <= _MAX_P:
        raise CredentialsError(f"scrypt cost out of range (ln 1..{_MAX_LOG_N}, r 1..{_MAX_R}, p 1..{_MAX_P})")
    salt = os.urandom(_SALT_BYTES)
    digest = _scrypt(password, salt, log_n, r, p, _HASH_BYTES)
    return f"{SCRYPT_PREFIX}ln={log_n},r={r},p={p}${_b64(salt)}${_b64(digest)}"


def _parse_hash(value: str) -> _ScryptHash:
    match = _PHC.fullmatch(value.strip())
    if match is None:
        raise CredentialsError("not a valid $scrypt$ln=..,r=..,p=..$salt$hash value")
    log_n, r, p = (int(match.group(i)) for i in (1, 2, 3))
    if not 1 <= log_n <= _MAX_LOG_N or not 1 <= r <= _MAX_R or not 1 <= p <= _MAX_P:
        raise CredentialsError(f"scrypt cost out of range (ln 1..{_MAX_LOG_N}, r 1..{_MAX_R}, p 1..{_MAX_P})")
    try:
        salt, digest = _unb64(match.group(4)), _unb64(match.group(5))
    except (binascii.Error, ValueError):
        raise CredentialsError("salt or hash is not valid base64") from None
    if len(digest) < 16:
        raise CredentialsError("hash is shorter than 16 bytes")
    return _ScryptHash(log_n, r, p, salt, digest)


class CredentialStore:
    """Users and their passwords (plain or hashed); :meth:`check` verifies a pair."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        """``entries`` maps user to stored password; raises :class:`CredentialsError` naming the
        first user whose hash is malformed."""
        self._plain: dict[str, bytes] = {}
        self._hashed: dict[str, _ScryptHash] = {}
        for user, stored in entries.items():
            if stored.startswith(SCRYPT_PREFIX):
                try:
                    self._hashed[user] = _parse_hash(stored)
                except CredentialsError as e:
                    raise CredentialsError(f"the password of user '{user}' is a malformed hash: {e}") from None
            else:
                self._plain[user] = stored.encode("utf-8", "surrogatepass")
        # A stand-in for unknown users, so that they cost what a known user costs.
        self._dummy_plain = secrets.token_bytes(16)
        self._dummy_hash = (_ScryptHash(DEFAULT_LOG_N, DEFAULT_R, DEFAULT_P, secrets.token_bytes(_SALT_BYTES),
                                        secrets.token_bytes(_HASH_BYTES)) if self._hashed else None)
        self._cache_key = secrets.token_bytes(32)
        self._verified: set[bytes] = set()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._plain) + len(self._hashed)

    def quick_check(self, user: str, password: str) -> bool | None:
        """:meth:`check` when it needs no key derivation (a plain password, a hashed one already
        verified, or no hashes at all); None when only :meth:`check` can tell (it takes tens of
        milliseconds of CPU: callers on an event loop run it in a thread)."""
        encoded = password.encode("utf-8", "surrogatepass")
        if user in self._hashed:
            with self._lock:
                return True if self._token(user, encoded) in self._verified else None
        plain = self._plain.get(user)
        if plain is not None:
            return hmac.compare_digest(encoded, plain)
        return None if self._dummy_hash is not None else self.check(user, password)

    def _token(self, user: str, encoded_password: bytes) -> bytes:
        return hmac.new(self._cache_key, user.encode("utf-8", "surrogatepass") + b"\0" + encoded_password,
                        hashlib.sha256).digest()

    def check(self, user: str, password: str) -> bool:
        """Whether ``password`` is ``user``'s password (constant-time comparisons)."""
        encoded = password.encode("utf-8", "surrogatepass")
        hashed = self._hashed.get(user)
        if hashed is not None:
            token = self._token(user, encoded)
            with self._lock:
                if token in self._verified:
                    return True
            if not hashed.matches(password):
                return False
            with self._lock:
                if len(self._verified) >= _CACHE_LIMIT:
                    self._verified.clear()
                self._verified.add(token)
            return True
        plain = self._plain.get(user)
        if plain is not None:
            return hmac.compare_digest(encoded, plain)
        # Unknown user: do the work a known one would cost, then fail.
        if self._dummy_hash is not None:
            self._dummy_hash.matches(password)
        else:
            hmac.compare_digest(encoded, self._dummy_plain)
        return False
