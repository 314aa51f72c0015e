"""KIP-507 request signing (pure logic): byte-compatibility with Java's InternalRequestSignature."""

from __future__ import annotations

import base64
import logging

import pytest

from connect_runtime.cluster.herder_api import SessionKeyInfo
from connect_runtime.cluster.request_signature import (
    DEFAULT_KEY_SIZE_BITS,
    INVALID_SIGNATURE,
    MISSING_SIGNATURE,
    NO_SESSION_KEY,
    SIGNATURE_ALGORITHM_HEADER,
    SIGNATURE_HEADER,
    RequestSignature,
    UnknownAlgorithmError,
    check_request_signature,
    compute_mac,
    generate_key,
    java_algorithm_name,
    sign,
    verify,
)
from connect_runtime.config.worker_config import HMAC_ALGORITHMS
from connect_runtime.errors import BadRequestHttpError, ForbiddenHttpError, ServiceUnavailableHttpError

# RFC 4231 test case 2 / RFC 2202 test case 2 ("Jefe"). The HmacSHA256 values were also checked
# with Java 17: Base64.getEncoder().encodeToString(Mac("HmacSHA256", "Jefe").doFinal(data)).
JEFE = b"Jefe"
DATA = b"what do ya want for nothing?"
KNOWN_ANSWERS = {
    "HmacSHA256": "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=",
    "HmacSHA1": "7/zfauXrL6LSdBbV8YTfnCWafHk=",
    "HmacSHA512": "Fkt6e/z4GeLjlfvnO1bgo4e9ZCIugx/WECcM1+olBVSXWL91wFqZSm0DT2X48Ob9yuqxo01Ka0tjbgcKOLznNw==",
}
# Java 17: the fence request's empty body signed with HmacSHA256 and key "Jefe".
EMPTY_BODY_HMAC_SHA256 = "kjWYym1krypdunnc0CGooP5cX1V1Ga2q8K1TLUUG3TA="


@pytest.mark.parametrize(("algorithm", "expected"), sorted(KNOWN_ANSWERS.items()))
def test_sign_known_answers(algorithm: str, expected: str) -> None:
    assert sign(JEFE, algorithm, DATA) == {SIGNATURE_HEADER: expected, SIGNATURE_ALGORITHM_HEADER: algorithm}
    assert verify(JEFE, algorithm, DATA, expected)


def test_sign_empty_body_known_answer() -> None:
    assert sign(JEFE, "HmacSHA256", b"")[SIGNATURE_HEADER] == EMPTY_BODY_HMAC_SHA256


def test_rfc4231_hex_vector() -> None:
    mac = compute_mac(JEFE, "HmacSHA256", DATA)
    assert mac.hex() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"


@pytest.mark.parametrize("algorithm", sorted(HMAC_ALGORITHMS))
def test_round_trip_every_algorithm(algorithm: str) -> None:
    key = generate_key(algorithm)
    headers = sign(key, algorithm, b"[]")
    assert verify(key, algorithm, b"[]", headers[SIGNATURE_HEADER])
    assert not verify(key, algorithm, b"[ ]", headers[SIGNATURE_HEADER])
    assert not verify(generate_key(algorithm), algorithm, b"[]", headers[SIGNATURE_HEADER])


def test_verify_rejects_malformed_signatures() -> None:
    good = sign(JEFE, "HmacSHA256", DATA)[SIGNATURE_HEADER]
    assert not verify(JEFE, "HmacSHA256", DATA, "not base64!")
    assert not verify(JEFE, "HmacSHA256", DATA, good[:-4])
    assert not verify(JEFE, "HmacSHA256", DATA, "")
    assert not verify(JEFE, "HmacSHA256", DATA, base64.b64encode(b"x" * 32).decode())


def test_algorithm_names_are_case_insensitive_like_the_jca() -> None:
    assert java_algorithm_name("hmacsha256") == "HmacSHA256"
    assert compute_mac(JEFE, "HMACSHA256", DATA) == compute_mac(JEFE, "HmacSHA256", DATA)
    with pytest.raises(UnknownAlgorithmError, match=r"^Algorithm HmacFoo not available$"):
        java_algorithm_name("HmacFoo")
    with pytest.raises(UnknownAlgorithmError):
        sign(JEFE, "SHA256", DATA)


def test_generate_key_default_sizes_match_java_keygenerator() -> None:
    # SunJCE (checked on Java 17): SHA-2 generators default to the digest size, MD5/SHA1 to 64 bytes.
    assert DEFAULT_KEY_SIZE_BITS == {
        "HmacMD5": 512,
        "HmacSHA1": 512,
        "HmacSHA224": 224,
        "HmacSHA256": 256,
        "HmacSHA384": 384,
        "HmacSHA512": 512,
    }
    for algorithm, bits in DEFAULT_KEY_SIZE_BITS.items():
        assert len(generate_key(algorithm)) * 8 == bits
        assert len(generate_key(algorithm.upper())) * 8 == bits


def test_generate_key_explicit_sizes() -> None:
    assert len(generate_key("HmacSHA256", 128)) == 16
    assert len(generate_key("HmacSHA256", 41)) == 6  # rounds up to whole bytes, as Java
    assert len(generate_key("HmacSHA1", 40)) == 5
    with pytest.raises(ValueError, match="Key length must be at least 40 bits"):
        generate_key("HmacSHA256", 39)
    with pytest.raises(UnknownAlgorithmError):
        generate_key("AES")
    assert generate_key("HmacSHA256") != generate_key("HmacSHA256")


def test_request_signature_from_headers() -> None:
    headers = sign(JEFE, "HmacSHA256", DATA)
    parsed = RequestSignature.from_headers(headers, DATA)
    assert parsed is not None
    assert parsed.is_valid(JEFE)
    assert not parsed.is_valid(b"other")
    # Header names are case-insensitive.
    lower = {k.lower(): v for k, v in headers.items()}
    parsed = RequestSignature.from_headers(lower, DATA)
    assert parsed is not None and parsed.is_valid(JEFE)
    assert RequestSignature.from_headers({SIGNATURE_HEADER: headers[SIGNATURE_HEADER]}, DATA) is None
    assert RequestSignature.from_headers({SIGNATURE_ALGORITHM_HEADER: "HmacSHA256"}, DATA) is None
    with pytest.raises(UnknownAlgorithmError):
        RequestSignature.from_headers({**headers, SIGNATURE_ALGORITHM_HEADER: "HmacFoo"}, DATA)


def test_check_request_signature_order_and_messages() -> None:
    body = b'[{"task.class":"T"}]'
    good = sign(JEFE, "HmacSHA256", body)
    allowed = ["HmacSHA256"]
    check_request_signature(good, body, allowed, JEFE)  # accepted

    with pytest.raises(BadRequestHttpError) as missing:
        check_request_signature({}, body, allowed, None)
    assert missing.value.message == MISSING_SIGNATURE == "Internal request missing required signature"

    with pytest.raises(BadRequestHttpError) as unknown:
        check_request_signature({**good, SIGNATURE_ALGORITHM_HEADER: "HmacFoo"}, body, allowed, JEFE)
    assert unknown.value.message == "Algorithm HmacFoo not available"

    with pytest.raises(BadRequestHttpError) as not_allowed:
        check_request_signature(sign(JEFE, "HmacSHA512", body), body, allowed, None)
    assert not_allowed.value.message == (
        "This worker does not support the 'HmacSHA512' key signing algorithm used by other workers. "
        "This worker is currently configured to use: [HmacSHA256]. "
        "Check that all workers' configuration files permit the same set of signature algorithms, "
        "and correct any misconfigured worker and restart it."
    )

    with pytest.raises(ServiceUnavailableHttpError) as no_key:
        check_request_signature(good, body, allowed, None)
    assert no_key.value.status == 503
    assert no_key.value.message == NO_SESSION_KEY

    with pytest.raises(ForbiddenHttpError) as bad:
        check_request_signature(good, body + b" ", allowed, JEFE)
    assert bad.value.status == 403
    assert bad.value.message == INVALID_SIGNATURE == "Internal request contained invalid signature."


def test_keys_stay_out_of_reprs_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    key = b"\x01super-secret-key-material\x02"
    info = SessionKeyInfo(key=key, algorithm="HmacSHA256", creation_timestamp=1)
    assert "secret" not in repr(info)
    headers = sign(key, "HmacSHA256", DATA)
    parsed = RequestSignature.from_headers(headers, DATA)
    assert parsed is not None
    assert "secret" not in repr(parsed)
    with caplog.at_level(logging.DEBUG):
        check_request_signature(headers, DATA, ["HmacSHA256"], key)
        with pytest.raises(ForbiddenHttpError) as exc:
            check_request_signature(headers, DATA + b"!", ["HmacSHA256"], key)
    assert "secret" not in caplog.text
    assert "secret" not in str(exc.value)
