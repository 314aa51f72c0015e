"""Reading ``.properties`` files the way ``java.util.Properties.load`` does.

Operators bring ``worker.properties`` files written for Apache Kafka Connect; they must mean the
same thing here. So this follows the Java format exactly rather than a "close enough" ``key=value``
split: ``#``/``!`` comment lines, ``=``, ``:`` or whitespace as separator, backslash escapes
(including ``\\uXXXX``), and lines continued by an odd number of trailing backslashes.
"""

from __future__ import annotations

import logging
import os

__all__ = ["PropertiesError", "load_properties", "parse_properties"]

log = logging.getLogger(__name__)

# Java's notion of whitespace in a properties file: space, tab and form feed (not newline).
_WHITESPACE = " \t\f"
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class PropertiesError(ValueError):
    """The text is not a valid properties file (only a malformed ``\\uXXXX`` escape can cause this)."""


def _logical_lines(text: str) -> list[str]:
    """Split ``text`` into logical lines: a port of Java's ``Properties.LineReader.readLine``.

    Leading whitespace of every natural line is dropped (also of continuation lines); blank lines
    are skipped; a comment (``#``/``!``) is only recognised while the logical line is still empty
    and never continues onto the next line; an odd number of trailing backslashes joins the next
    natural line; a continuation onto a blank line ends the logical line. Ported state machine
    rather than a line-based rewrite so that even odd inputs (a lone backslash at end of input)
    give what Java gives.
    """
    lines: list[str] = []
    n = len(text)
    off = 0
    while True:
        buf: list[str] = []
        skip_whitespace = True
        appended_line_begin = False
        preceding_backslash = False
        while True:
            if off >= n:
                if buf:
                    if preceding_backslash:
                        buf.pop()
                    lines.append("".join(buf))
                return lines
            c = text[off]
            off += 1
            if skip_whitespace:
                if c in _WHITESPACE:
                    continue
                if not appended_line_begin and c in "\r\n":
                    continue
                skip_whitespace = False
                appended_line_begin = False
            if not buf and c in "#!":
                # A comment: skip to the end of the natural line, line break included.
                while off < n and text[off] not in "\r\n":
                    off += 1
                if off >= n:
                    return lines
                off += 1
                skip_whitespace = True
                continue
            if c not in "\r\n":
                buf.append(c)
                preceding_backslash = (not preceding_backslash) if c == "\\" else False
                continue
            # End of a natural line.
            if not buf:
                skip_whitespace = True
                continue
            if off >= n:
                if preceding_backslash:
                    buf.pop()
                lines.append("".join(buf))
                return lines
            if not preceding_backslash:
                lines.append("".join(buf))
                break
            # The backslash at the end of the line is not part of it: continue on the next line.
            buf.pop()
            skip_whitespace = True
            appended_line_begin = True
            preceding_backslash = False
            if c == "\r" and text[off] == "\n":
                off += 1


def _split_key_value(line: str) -> tuple[str, str]:
    """Split a logical line into raw (still escaped) key and value, as ``Properties.load0`` does."""
    limit = len(line)
    key_len = 0
    value_start = limit
    has_separator = False
    preceding_backslash = False
    while key_len < limit:
        c = line[key_len]
        if not preceding_backslash:
            if c in "=:":
                value_start = key_len + 1
                has_separator = True
                break
            if c in _WHITESPACE:
                value_start = key_len + 1
                break
        preceding_backslash = (not preceding_backslash) if c == "\\" else False
        key_len += 1
    # Skip whitespace after the key, and at most one '=' or ':' if the key ended with whitespace.
    while value_start < limit:
        c = line[value_start]
        if c not in _WHITESPACE:
            if not has_separator and c in "=:":
                has_separator = True
            else:
                break
        value_start += 1
    return line[:key_len], line[value_start:]


def _unescape(raw: str) -> str:
    """Resolve backslash escapes: ``\\t \\n \\r \\f``, ``\\uXXXX``; any other escaped char is itself."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        i += 1
        if c != "\\":
            out.append(c)
            continue
        if i >= n:  # a lone trailing backslash: Java drops it too
            break
        c = raw[i]
        i += 1
        if c == "u":
            digits = raw[i:i + 4]
            if len(digits) != 4 or not all(d in _HEX_DIGITS for d in digits):
                raise PropertiesError(f"Malformed \\uxxxx encoding: \\u{digits}")
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append(_SIMPLE_ESCAPES.get(c, c))
    text = "".join(out)
    return _join_surrogates(text)


def _join_surrogates(text: str) -> str:
    """Java strings are UTF-16: ``\\uD83D\\uDE00`` is one character. Combine such pairs."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    # A lone surrogate stays as it is (Java keeps it too); only valid pairs are combined.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def parse_properties(text: str) -> dict[str, str]:
    """Parse the text of a ``.properties`` file with ``java.util.Properties.load`` semantics.

    A key given twice keeps its last value. A key without a value maps to ``""``. Trailing
    whitespace of a value is kept, as in Java. Raises :class:`PropertiesError` on a malformed
    ``\\uXXXX`` escape.
    """
    props: dict[str, str] = {}
    for line in _logical_lines(text):
        raw_key, raw_value = _split_key_value(line)
        props[_unescape(raw_key)] = _unescape(raw_value)
    return props


def load_properties(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read and parse a ``.properties`` file.

    Java reads property files as ISO-8859-1; we read UTF-8 (what people actually write today)
    and fall back to ISO-8859-1 when the file is not valid UTF-8, so files written for Java
    still load. ``\\uXXXX`` escapes work either way. ``OSError`` (e.g. a missing file)
    propagates to the caller.
    """
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        log.info("%s is not valid UTF-8; reading it as ISO-8859-1 like Java does", os.fspath(path))
        text = data.decode("iso-8859-1")
    if text.startswith("\ufeff"):  # a UTF-8 byte order mark is not part of the first key
        text = text[1:]
    return parse_properties(text)
