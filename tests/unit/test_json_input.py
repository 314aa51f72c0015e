"""Bounded JSON decoding of request bodies (pure): nesting depth and unpaired surrogates."""

from __future__ import annotations

import pytest

from connect_runtime.errors import BadRequestHttpError
from rest.json_input import MAX_NESTING_DEPTH, decode_json


def nested(depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()


def test_nesting_up_to_the_limit_is_accepted_and_one_more_is_400() -> None:
    assert decode_json(nested(MAX_NESTING_DEPTH), numbers_as_text=False) is not None
    with pytest.raises(BadRequestHttpError, match=f"deeper than {MAX_NESTING_DEPTH} levels"):
        decode_json(nested(MAX_NESTING_DEPTH + 1), numbers_as_text=False)


@pytest.mark.parametrize("body", [
    b"[" * 100_000,  # truncated: still too deep, not a RecursionError
    b'{"a": ' + b"{" * 2000 + b'"x": 1' + b"}" * 2000 + b"}",
])
def test_deep_or_truncated_bodies_are_400(body: bytes) -> None:
    with pytest.raises(BadRequestHttpError, match="deeper than"):
        decode_json(body, numbers_as_text=True)


def test_brackets_inside_strings_and_wide_flat_bodies_are_fine() -> None:
    assert decode_json(b'{"a": "' + b"[" * 1000 + b'\\"{"}', numbers_as_text=True) == {"a": "[" * 1000 + '"{'}
    assert decode_json(b"[" + b",".join([b"[]"] * 10_000) + b"]", numbers_as_text=True) == [[]] * 10_000
    assert decode_json(b'{"n": 1.50}', numbers_as_text=True) == {"n": "1.50"}


@pytest.mark.parametrize("body", [b'{"k": "a\\ud800"}', b'{"\\udfff": "v"}', b'[{"k": ["\\uDBFF"]}]'])
def test_unpaired_surrogates_are_400(body: bytes) -> None:
    with pytest.raises(BadRequestHttpError, match="unpaired surrogate"):
        decode_json(body, numbers_as_text=True)


def test_surrogate_pairs_and_escaped_backslashes_are_fine() -> None:
    assert decode_json(b'{"k": "\\ud83d\\ude00"}', numbers_as_text=True) == {"k": "\U0001f600"}
    assert decode_json(b'{"k": "\\\\ud800"}', numbers_as_text=True) == {"k": "\\ud800"}
    with pytest.raises(BadRequestHttpError, match="not valid UTF-8"):
        decode_json(b'{"k": "\xed\xa0\x80"}', numbers_as_text=True)  # a surrogate encoded as UTF-8


def test_a_utf8_byte_order_mark_is_skipped_as_jackson_does() -> None:
    assert decode_json(b'\xef\xbb\xbf{"level": "INFO"}', numbers_as_text=True) == {"level": "INFO"}
