"""KIP-507 request signing: HMAC signatures on the internal (worker-to-worker) REST endpoints.

Pure logic, no I/O. A worker signs the raw body of an internal request (``POST /connectors/{c}/tasks``,
``PUT /connectors/{c}/fence``; the fence body is empty) with the cluster's current session key and
sends the signature in two headers; the receiver recomputes the MAC with its own copy of the key.
Byte-compatible with Java's ``InternalRequestSignature``: standard base64 (with padding) of the raw
MAC, and the Java algorithm name (``HmacSHA256``) in the algorithm header.

Session keys are secrets: no function here logs them, and no object here holds one (so none can
leak through a ``repr``).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from connect_runtime.config.worker_config import HMAC_ALGORITHMS
from connect_runtime.errors import BadRequestHttpError, ForbiddenHttpError, ServiceUnavailableHttpError

__all__ = [
    "DEFAULT_KEY_SIZE_BITS",
    "INVALID_SIGNATURE",
    "MIN_KEY_SIZE_BITS",
    "MISSING_SIGNATURE",
    "NO_SESSION_KEY",
    "SIGNATURE_ALGORITHM_HEADER",
    "SIGNATURE_HEADER",
    "RequestSignature",
    "UnknownAlgorithmError",
    "check_request_signature",
    "compute_mac",
    "generate_key",
    "java_algorithm_name",
    "sign",
    "unsupported_algorithm_message",
    "verify",
]

#: Header carrying ``base64(HMAC(key, body))`` (Java's ``InternalRequestSignature.SIGNATURE_HEADER``).
SIGNATURE_HEADER: Final = "X-Connect-Authorization"
#: Header carrying the Java MAC algorithm name (``SIGNATURE_ALGORITHM_HEADER``).
SIGNATURE_ALGORITHM_HEADER: Final = "X-Connect-Request-Signature-Algorithm"

#: ``KeyGenerator.getInstance(alg).generateKey()`` sizes of the SunJCE provider, in bits: the SHA-2
#: generators default to the digest length, the legacy HmacMD5/HmacSHA1 generators to 64 bytes.
DEFAULT_KEY_SIZE_BITS: Final[Mapping[str, int]] = {
    "HmacMD5": 512,
    "HmacSHA1": 512,
    "HmacSHA224": 224,
    "HmacSHA256": 256,
    "HmacSHA384": 384,
    "HmacSHA512": 512,
}
#: SunJCE's HMAC key generators refuse shorter keys ("Key length must be at least 40 bits").
MIN_KEY_SIZE_BITS: Final = 40

#: DistributedHerder's messages (``requestNotSignedProperly``), verbatim.
MISSING_SIGNATURE: Final = "Internal request missing required signature"
NO_SESSION_KEY: Final = (
    "This worker is still starting up and has not been able to read a session key from the config topic yet"
)
INVALID_SIGNATURE: Final = "Internal request contained invalid signature."

_BY_FOLDED_NAME: Final = {name.lower(): name for name in HMAC_ALGORITHMS}


class UnknownAlgorithmError(ValueError):
    """No MAC implementation for the algorithm name (Java's ``NoSuchAlgorithmException``)."""

    def __init__(self, algorithm: str) -> None:
        # NoSuchAlgorithmException's message from javax.crypto.Mac.getInstance.
        super().__init__(f"Algorithm {algorithm} not available")
        self.algorithm = algorithm


def java_algorithm_name(algorithm: str) -> str:
    """The canonical Java name of a MAC algorithm; lookup is case-insensitive, like the JCA's."""
    name = _BY_FOLDED_NAME.get(algorithm.lower())
    if name is None:
        raise UnknownAlgorithmError(algorithm)
    return name


def compute_mac(key: bytes, algorithm: str, body: bytes) -> bytes:
    """``HMAC(key, body)`` with the named Java algorithm (e.g. ``HmacSHA256``)."""
    digest = HMAC_ALGORITHMS[java_algorithm_name(algorithm)]
    return hmac.new(key, body, digest).digest()


def sign(key: bytes, algorithm: str, body: bytes) -> dict[str, str]:
    """The two signature headers for a request whose raw body is ``body`` (``b""`` when empty)."""
    signature = base64.b64encode(compute_mac(key, algorithm, body)).decode("ascii")
    return {SIGNATURE_HEADER: signature, SIGNATURE_ALGORITHM_HEADER: algorithm}


def verify(key: bytes, algorithm: str, body: bytes, signature: str) -> bool:
    """Whether ``signature`` (the base64 header value) is ``body``'s MAC under ``key``.

    The comparison is constant-time; a malformed (non-base64) signature is simply invalid.
    """
    decoded = _decode_signature(signature)
    if decoded is None:
        return False
    return hmac.compare_digest(compute_mac(key, algorithm, body), decoded)


def generate_key(algorithm: str, size_bits: int | None = None) -> bytes:
    """A fresh random session key, sized as Java's ``KeyGenerator`` would size it.

    ``size_bits`` is ``inter.worker.key.size`` (``None``: the algorithm's default, see
    :data:`DEFAULT_KEY_SIZE_BITS`); sizes that are not whole bytes round up, as in Java.
    """
    name = java_algorithm_name(algorithm)
    bits = DEFAULT_KEY_SIZE_BITS[name] if size_bits is None else size_bits
    if bits < MIN_KEY_SIZE_BITS:
        raise ValueError(f"Key length must be at least {MIN_KEY_SIZE_BITS} bits")
    return secrets.token_bytes((bits + 7) // 8)


def _decode_signature(value: str) -> bytes | None:
    try:
        return base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is not None:
        return value
    folded = name.lower()
    for key, candidate in headers.items():
        if key.lower() == folded:
            return candidate
    return None


@dataclass(frozen=True, slots=True)
class RequestSignature:
    """The signature an internal request arrived with (Java's ``InternalRequestSignature``)."""

    algorithm: str
    signature: str
    body: bytes = field(repr=False)

    @classmethod
    def from_headers(cls, headers: Mapping[str, str], body: bytes) -> RequestSignature | None:
        """Read the signature headers; None when either is missing.

        Raises :class:`UnknownAlgorithmError` when the algorithm names no MAC we implement (Java
        answers that with 400 and the ``NoSuchAlgorithmException`` message).
        """
        algorithm = _header(headers, SIGNATURE_ALGORITHM_HEADER)
        signature = _header(headers, SIGNATURE_HEADER)
        if algorithm is None or signature is None:
            return None
        java_algorithm_name(algorithm)
        return cls(algorithm=algorithm, signature=signature, body=body)

    def is_valid(self, key: bytes) -> bool:
        """Whether the body's MAC under ``key`` matches the signature (constant-time)."""
        return verify(key, self.algorithm, self.body, self.signature)


def unsupported_algorithm_message(algorithm: str, verification_algorithms: Sequence[str]) -> str:
    """DistributedHerder's 400 message for an algorithm this worker does not accept."""
    # Java formats the List with AbstractCollection.toString: "[HmacSHA256, HmacSHA512]".
    allowed = "[" + ", ".join(verification_algorithms) + "]"
    return (
        f"This worker does not support the '{algorithm}' key signing algorithm used by other workers. "
        f"This worker is currently configured to use: {allowed}. "
        "Check that all workers' configuration files permit the same set of signature algorithms, "
        "and correct any misconfigured worker and restart it."
    )


def check_request_signature(
    headers: Mapping[str, str],
    body: bytes,
    verification_algorithms: Sequence[str],
    session_key: bytes | None,
) -> None:
    """Accept an internal request or raise the error Java's herder answers with.

    In Java's order (``InternalRequestSignature.fromHeaders`` then ``requestNotSignedProperly``):
    missing header → 400; unknown algorithm → 400; algorithm not in ``verification_algorithms``
    → 400; no session key read yet → 503; MAC mismatch → 403.
    """
    try:
        signature = RequestSignature.from_headers(headers, body)
    except UnknownAlgorithmError as exc:
        raise BadRequestHttpError(str(exc)) from None
    if signature is None:
        raise BadRequestHttpError(MISSING_SIGNATURE)
    # Java compares the name as sent (Mac.getAlgorithm() echoes it), so the check is case-sensitive.
    if signature.algorithm not in verification_algorithms:
        raise BadRequestHttpError(unsupported_algorithm_message(signature.algorithm, verification_algorithms))
    if session_key is None:
        raise ServiceUnavailableHttpError(NO_SESSION_KEY)
    if not signature.is_valid(session_key):
        raise ForbiddenHttpError(INVALID_SIGNATURE)
