"""Java regular expressions for the transforms that take one (RegexRouter, TopicNameMatches).

Connector configs are written for Kafka Connect, whose patterns are ``java.util.regex`` patterns and
whose replacement strings use ``$1`` / ``${name}`` group references and ``\\`` escapes. Python's
``re`` accepts nearly the same pattern syntax; the differences handled here are named groups
(``(?<name>...)``) and the replacement grammar.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from connect_runtime.api.errors import ConfigException

# "(?<name>" opens a named group in Java; "(?<=" and "(?<!" are look-behinds in both.
_NAMED_GROUP = re.compile(r"(?<!\\)\(\?<(?![=!])")
_GROUP_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def compile_java(pattern: str) -> re.Pattern[str]:
    """Compile a Java regular expression; ``re.error`` if Python cannot."""
    return re.compile(_NAMED_GROUP.sub("(?P<", pattern))


def regex_validator(name: str, value: Any) -> None:
    """Config validator: the value compiles as a regular expression (Kafka's ``RegexValidator``)."""
    try:
        compile_java(str(value))
    except re.error as e:
        raise ConfigException(name, value, f"Invalid regex: {e}") from None


def java_replacement(pattern: re.Pattern[str], replacement: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement function that expands ``replacement`` as Java's
    ``Matcher.appendReplacement`` does: ``$n`` (the longest group number that exists), ``${name}``,
    and ``\\x`` for a literal ``x``. An invalid reference raises :class:`ValueError` here, not per
    record."""
    parts: list[str | int] = []  # literal text, or a group number/name to substitute
    literal: list[str] = []
    i, n = 0, len(replacement)
    while i < n:
        c = replacement[i]
        if c == "\\":
            i += 1
            if i >= n:
                raise ValueError("character to be escaped is missing")
            literal.append(replacement[i])
            i += 1
        elif c == "$":
            i += 1
            if i >= n:
                raise ValueError("Illegal group reference: group index is missing")
            if literal:
                parts.append("".join(literal))
                literal = []
            if replacement[i] == "{":
                m = _GROUP_NAME.match(replacement, i + 1)
                end = m.end() if m else i + 1
                if m is None or end >= n or replacement[end] != "}":
                    raise ValueError("named capturing group is missing trailing '}'")
                if m.group() not in pattern.groupindex:
                    raise ValueError(f"No group with name {{{m.group()}}}")
                parts.append(pattern.groupindex[m.group()])
                i = end + 1
            else:
                if not replacement[i].isdigit():
                    raise ValueError("Illegal group reference")
                group = int(replacement[i])
                if group > pattern.groups:
                    raise ValueError(f"No group {group}")
                i += 1
                # Java takes further digits while the number still names an existing group.
                while i < n and replacement[i].isdigit() and group * 10 + int(replacement[i]) <= pattern.groups:
                    group = group * 10 + int(replacement[i])
                    i += 1
                parts.append(group)
        else:
            literal.append(c)
            i += 1
    if literal:
        parts.append("".join(literal))
    if all(isinstance(p, str) for p in parts):
        text = "".join(p for p in parts if isinstance(p, str))
        return lambda _m: text

    def expand(m: re.Match[str]) -> str:
        return "".join(p if isinstance(p, str) else (m.group(p) or "") for p in parts)

    return expand
