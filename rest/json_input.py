"""Decoding request bodies as JSON, bounded: every hostile body is a 400, never a crash.

Python's ``json`` parser recurses once per nesting level, so a deeply nested body raises
``RecursionError``; and it turns a lone surrogate escape (``"\\ud800"``) into a string that cannot be
encoded as UTF-8 again (the failure would come later, when the value is written to Kafka or echoed in
a response). :func:`decode_json` refuses both at parse time, with Kafka Connect's 400 error body:

- nesting deeper than :data:`MAX_NESTING_DEPTH` (Jackson has a limit too, ``maxNestingDepth``; ours is
  lower because every Connect body is flat or nearly so: a config map has depth 1, an offsets body 4);
- strings (keys or values) with an unpaired UTF-16 surrogate.

Both checks cost nothing for ordinary bodies: the depth check only runs when the body holds more
brackets than the limit, and the surrogate check only when the text has a surrogate escape.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from connect_runtime.errors import BadRequestHttpError

#: The deepest nesting of arrays and objects a request body may have.
MAX_NESTING_DEPTH = 64

# A JSON string literal (escapes included), written so the regex engine never backtracks.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
# The \u escape of a surrogate code unit (U+D800..U+DFFF); paired ones are fine, json joins them.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_UTF8_BOM = b"\xef\xbb\xbf"


def _reject_constant(token: str) -> NoReturn:
    # Jackson rejects NaN/Infinity unless ALLOW_NON_NUMERIC_NUMBERS is on; so do we.
    raise ValueError(f"Non-standard JSON token '{token}' is not allowed")


def _too_deep(text: str, limit: int) -> bool:
    """Whether the brackets of ``text`` (outside strings) nest deeper than ``limit``.

    Each pass removes the innermost ``[]``/``{}`` pairs (C-speed string replacement, no Python loop
    per character): what is left after ``limit`` passes nests deeper than ``limit``. Unbalanced
    brackets (a truncated body) stop the passes early; then the leading run of openers still counts.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_A_BRACKET.sub("", _STRING.sub("", text))
    for removed in range(limit):
        if not brackets:
            return False
        shorter = brackets.replace("[]", "").replace("{}", "")
        if len(shorter) == len(brackets):  # unbalanced: the parser refuses it, unless it is too deep
            return removed + len(brackets) - len(brackets.lstrip("[{")) > limit
        brackets = shorter
    return bool(brackets)


def _lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) in ``value`` holding an unpaired surrogate, else None."""
    if isinstance(value, str):
        return value if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key) or _lone_surrogate(item)
            if found is not None:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _lone_surrogate(item)
            if found is not None:
                return found
    return None


def decode_json(raw: bytes, *, numbers_as_text: bool) -> Any:
    """Parse a request body as UTF-8 JSON; any problem raises :class:`BadRequestHttpError` (400).

    ``numbers_as_text`` keeps numbers as their literal text (``1.50`` stays ``"1.50"``), as Jackson
    binds a number to a ``String`` field; otherwise they become ``int``/``float``.
    """
    if raw.startswith(_UTF8_BOM):  # Jackson skips a byte order mark; so do we
        raw = raw[len(_UTF8_BOM):]
    try:
        text = raw.decode("utf-8")  # also refuses UTF-8-encoded surrogates
    except UnicodeDecodeError as exc:
        raise BadRequestHttpError(f"Request body is not valid UTF-8: {exc}") from None
    if _too_deep(text, MAX_NESTING_DEPTH):
        raise BadRequestHttpError(f"Request body nests JSON arrays and objects deeper than {MAX_NESTING_DEPTH} levels")
    try:
        if numbers_as_text:
            value = json.loads(text, parse_int=str, parse_float=str, parse_constant=_reject_constant)
        else:
            value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:  # not reachable within MAX_NESTING_DEPTH; kept as a last line of defence
        raise BadRequestHttpError("Request body nests JSON arrays and objects too deeply") from None
    except (json.JSONDecodeError, ValueError) as exc:
        raise BadRequestHttpError(f"Request body is not valid JSON: {exc}") from None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None:
        bad = _lone_surrogate(value)
        if bad is not None:
            code = next(c for c in bad if "\ud800" <= c <= "\udfff")
            raise BadRequestHttpError(
                f"Request body is not valid JSON: a string holds the unpaired surrogate \\u{ord(code):04x}, "
                "which is not valid Unicode")
    return value
