"""The worker's ``response.http.headers.config``: rules for headers the REST API adds to its responses
(KIP-577), parsed and validated as Kafka Connect's ``RestServerConfig`` and Jetty's ``HeaderFilter`` do.

The value is a comma-separated list of rules; a rule in double quotes may contain commas. Each rule is
``[action] [header name]:[header value]`` where the action is ``set``, ``add``, ``setDate`` or ``addDate``
(any case)::

    set X-Frame-Options: DENY, "add Cache-Control: no-cache, no-store, must-revalidate", setDate Expires: 3600000

``setDate`` / ``addDate`` take a number of milliseconds added to the current time; the header is sent as
an HTTP date (``Tue, 24 Nov 2026 19:00:00 GMT``). The rules are applied by ``rest.response_headers``.

As Java, a header value may not contain ``:`` (the name and value are split at it) and a name may not
contain whitespace. Where Jetty would fail later (a date action with a value that is not a number) or
send a broken header (a name that is not an HTTP token, a value with control characters), the rule is
refused here too, so a worker never starts with a rule it cannot honour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["HeaderAction", "ResponseHeaderConfigError", "ResponseHeaderRule", "csv_split",
           "parse_response_headers"]


class HeaderAction(StrEnum):
    """What a rule does with its header."""

    SET = "set"
    """Send the header with this value, unless the response already has one of that name."""
    ADD = "add"
    """Send the header (also when the response already has one of that name)."""
    SET_DATE = "setDate"
    """As ``set``, with the current time plus the value (milliseconds) as an HTTP date."""
    ADD_DATE = "addDate"
    """As ``add``, with the current time plus the value (milliseconds) as an HTTP date."""

    @property
    def adds(self) -> bool:
        """Whether the header is added rather than set."""
        return self in (HeaderAction.ADD, HeaderAction.ADD_DATE)

    @property
    def is_date(self) -> bool:
        """Whether the value is a millisecond offset from now, sent as an HTTP date."""
        return self in (HeaderAction.SET_DATE, HeaderAction.ADD_DATE)


_ACTIONS = {action.value.lower(): action for action in HeaderAction}
#: Java's list, as its messages print it.
_ACTION_NAMES = "[" + ", ".join(action.value for action in HeaderAction) + "]"
# Java's \s, and String.trim() (every character up to the space).
_JAVA_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]+")
_JAVA_HAS_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]")
_TRIMMED = "".join(chr(c) for c in range(0x21))
# RFC 9110: a field name is a token; a value is visible ASCII with inner spaces and tabs.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_FIELD_VALUE = re.compile(r"[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?")
_LONG = re.compile(r"[+-]?[0-9]+")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


class ResponseHeaderConfigError(ValueError):
    """A rule of ``response.http.headers.config`` is malformed; the message is Java's where it has one."""


@dataclass(frozen=True)
class ResponseHeaderRule:
    """One parsed rule: ``value`` is the header value, or for a date action the millisecond offset as
    written (``offset_ms`` holds it as a number)."""

    action: HeaderAction
    name: str
    value: str
    offset_ms: int = 0


def _trim(text: str) -> str:
    return text.strip(_TRIMMED)


def csv_split(value: str) -> list[str]:
    """Split ``value`` as Jetty's ``StringUtil.csvSplit``: at commas, each item trimmed of whitespace; an
    item in double quotes keeps its commas and spaces (a backslash escapes the next character), and
    text after its closing quote up to the next comma is dropped. An empty item between two commas is
    kept (``""``); a trailing comma adds none."""
    items: list[str] = []
    item: list[str] = []
    state = "pre"  # pre: before an item; data: in one; quote: inside quotes; slosh: after \; post: after quotes
    trailing_white = 0  # trailing whitespace in `item` while in data
    for ch in value:
        if state == "pre":
            if ch.isspace():
                continue
            if ch == '"':
                state = "quote"
            elif ch == ",":
                items.append("")
            else:
                item.append(ch)
                state = "data"
        elif state == "data":
            if ch == ",":
                items.append("".join(item[:len(item) - trailing_white]))
                item.clear()
                trailing_white = 0
                state = "pre"
            else:
                item.append(ch)
                trailing_white = trailing_white + 1 if ch.isspace() else 0
        elif state == "quote":
            if ch == "\\":
                state = "slosh"
            elif ch == '"':
                items.append("".join(item))
                item.clear()
                state = "post"
            else:
                item.append(ch)
        elif state == "slosh":
            item.append(ch)
            state = "quote"
        elif ch == ",":  # post
            state = "pre"
    if state == "data":
        items.append("".join(item[:len(item) - trailing_white]))
    elif state in ("quote", "slosh"):
        items.append("".join(item))
    return items


def parse_rule(config: str) -> ResponseHeaderRule:
    """Parse one rule (an item of :func:`csv_split`); raises :class:`ResponseHeaderConfigError`."""
    tokens = _JAVA_WHITESPACE.split(_trim(config), maxsplit=1)
    if len(tokens) != 2:
        raise ResponseHeaderConfigError(
            f"Invalid format of header config '{config}'. Expected: '[action] [header name]:[header value]'")
    action = _ACTIONS.get(_trim(tokens[0]).lower())
    if action is None:
        raise ResponseHeaderConfigError(
            f"Invalid header config action: '{_trim(tokens[0])}'. Expected one of {_ACTION_NAMES}")
    header = tokens[1]
    # Java splits at every colon and drops trailing empty parts: exactly a name and a value are allowed.
    parts = _trim(header).split(":")
    while parts and not parts[-1]:
        parts.pop()
    if len(parts) != 2:
        raise ResponseHeaderConfigError(
            f"Invalid format of header name and header value pair '{header}'. "
            "Expected: '[header name]:[header value]'")
    name = _trim(parts[0])
    if not name or _JAVA_HAS_WHITESPACE.search(name):
        raise ResponseHeaderConfigError(
            f"Invalid header name '{name}'. The '[header name]' cannot contain whitespace")
    if not _TOKEN.fullmatch(name):
        raise ResponseHeaderConfigError(
            f"Invalid header name '{name}'. The '[header name]' must be an HTTP token (letters, digits and "
            "!#$%&'*+-.^_`|~)")
    value = _trim(_trim(header).split(":", 1)[1])  # as Jetty: everything after the first colon
    if action.is_date:
        if not _LONG.fullmatch(value) or not _LONG_MIN <= int(value) <= _LONG_MAX:
            raise ResponseHeaderConfigError(
                f"Invalid header value '{value}' of header config '{_trim(config)}'. "
                f"The '[header value]' of {action.value} must be a number of milliseconds")
        return ResponseHeaderRule(action, name, value, int(value))
    if not _FIELD_VALUE.fullmatch(value):
        raise ResponseHeaderConfigError(
            f"Invalid header value '{value}' of header config '{_trim(config)}'. "
            "The '[header value]' must be printable ASCII")
    return ResponseHeaderRule(action, name, value)


def parse_response_headers(value: str) -> tuple[ResponseHeaderRule, ...]:
    """Parse ``response.http.headers.config`` (blank: no rules); raises :class:`ResponseHeaderConfigError`
    naming the first bad rule."""
    if not value.strip():
        return ()
    return tuple(parse_rule(config) for config in csv_split(value))
