"""``.properties`` parsing must match ``java.util.Properties.load``.

Expected values are what Java's ``Properties.load`` returns for the same text (JDK 17 LineReader /
load0 / loadConvert semantics).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from connect_runtime.config.properties import PropertiesError, load_properties, parse_properties


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a=1", {"a": "1"}),
        ("a:1", {"a": "1"}),
        ("a 1", {"a": "1"}),
        ("a\t1", {"a": "1"}),
        ("a\f1", {"a": "1"}),
        ("a = 1", {"a": "1"}),
        ("a   :   1", {"a": "1"}),
        ("a\t=\t1", {"a": "1"}),
        # Only the first separator counts: the rest belongs to the value.
        ("a=b=c", {"a": "b=c"}),
        ("a:b:c", {"a": "b:c"}),
        ("a==b", {"a": "=b"}),
        ("a=:b", {"a": ":b"}),
        # Whitespace ended the key, so one following '=' or ':' is still the separator ...
        ("a = = b", {"a": "= b"}),
        ("a := b", {"a": "= b"}),
        # ... but a second word is the value.
        ("a b c", {"a": "b c"}),
    ],
)
def test_separators(text: str, expected: dict[str, str]) -> None:
    assert parse_properties(text) == expected


def test_trailing_whitespace_of_value_is_kept_and_leading_whitespace_of_line_dropped() -> None:
    assert parse_properties("   a = 1  \n\t\fb=2\t") == {"a": "1  ", "b": "2\t"}


@pytest.mark.parametrize("line", ["key", "key=", "key:", "key   ", "key =   ", "  key  :  "])
def test_key_without_value_maps_to_empty_string(line: str) -> None:
    assert parse_properties(line) == {"key": ""}


def test_comments_and_blank_lines() -> None:
    text = "# a comment\n! another\n   # indented\n\t! indented\n\n   \n\t\f\na=1 # not a comment\nb=2!x"
    assert parse_properties(text) == {"a": "1 # not a comment", "b": "2!x"}


def test_comment_line_ending_in_backslash_does_not_continue() -> None:
    assert parse_properties("# comment \\\nk=v") == {"k": "v"}


def test_empty_text() -> None:
    assert parse_properties("") == {}
    assert parse_properties("\n\n# only comments\n") == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my\\ key=v", {"my key": "v"}),
        ("a\\=b=c", {"a=b": "c"}),
        ("a\\:b:c", {"a:b": "c"}),
        ("\\#not-a-comment=1", {"#not-a-comment": "1"}),
        ("\\!bang=1", {"!bang": "1"}),
        ("k\\\\=v", {"k\\": "v"}),  # escaped backslash, then an unescaped separator
        ("k=\\t\\n\\r\\f", {"k": "\t\n\r\f"}),
        ("k=C:\\\\dir\\\\file", {"k": "C:\\dir\\file"}),
        ("k=\\q\\z", {"k": "qz"}),  # any other escaped character is itself
        ("k=\\ leading", {"k": " leading"}),  # an escaped space survives the whitespace skip
        ("k=\\=\\:\\#\\!", {"k": "=:#!"}),
        ("k=\\u0041\\u00e9\\u00E9", {"k": "Aéé"}),
        ("\\u006b=v", {"k": "v"}),
        ("k=\\uD83D\\uDE00", {"k": "\U0001F600"}),  # a UTF-16 surrogate pair is one character
        ("k=caf\u00e9", {"k": "café"}),
    ],
)
def test_escapes(text: str, expected: dict[str, str]) -> None:
    assert parse_properties(text) == expected


@pytest.mark.parametrize("text", ["k=\\u00G1", "k=\\u12", "k=\\u", "\\uZZZZ=v"])
def test_malformed_unicode_escape_is_an_error(text: str) -> None:
    with pytest.raises(PropertiesError, match="Malformed"):
        parse_properties(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("k=a\\\n   b", {"k": "ab"}),
        ("k=a \\\n\t  b", {"k": "a b"}),
        ("k=one,\\\n    two,\\\n    three", {"k": "one,two,three"}),
        # An even number of trailing backslashes is escaped backslashes, not a continuation.
        ("k=a\\\\\nb=2", {"k": "a\\", "b": "2"}),
        ("k=a\\\\\\\nb", {"k": "a\\b"}),
        # A continuation line starting with '#' is content, not a comment.
        ("k=a\\\n  # b", {"k": "a# b"}),
        # A continuation onto a blank line ends the logical line.
        ("k=a\\\n\nb=1", {"k": "a", "b": "1"}),
        # A trailing backslash at the end of the input is dropped.
        ("k=a\\", {"k": "a"}),
        ("k=a\\\n", {"k": "a"}),
        # Keys continue too.
        ("ke\\\n  y=v", {"key": "v"}),
        # CRLF and CR line ends.
        ("k=1\\\r\n  2\r\nb=3", {"k": "12", "b": "3"}),
        ("k=1\\\r  2\rb=3", {"k": "12", "b": "3"}),
    ],
)
def test_line_continuations(text: str, expected: dict[str, str]) -> None:
    assert parse_properties(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Java quirks kept on purpose (checked against JDK 17 by differential fuzzing).
        ("\\", {"": ""}),  # a lone backslash at end of input is an empty logical line
        ("\\\n", {"": ""}),
        ("\\\r\n", {}),
        ("\\\n\n", {}),
        ("\\\n#c\nk=v", {"k": "v"}),  # still an empty logical line, so '#' starts a comment
        ("k=\\uD83D", {"k": "\ud83d"}),  # a lone surrogate stays as it is
    ],
)
def test_java_edge_cases(text: str, expected: dict[str, str]) -> None:
    assert parse_properties(text) == expected


def test_line_terminators() -> None:
    assert parse_properties("a=1\r\nb=2\rc=3\nd=4") == {"a": "1", "b": "2", "c": "3", "d": "4"}


def test_later_keys_override_earlier_ones() -> None:
    assert parse_properties("a=1\nb=2\na=3") == {"a": "3", "b": "2"}


def test_realistic_worker_file() -> None:
    text = """
# Kafka Connect distributed worker
bootstrap.servers=localhost:9092,\\
                  localhost:9093
group.id = connect-cluster
key.converter: org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=false
exactly.once.source.support   enabled
listeners=http://:8083
plugin.path=/opt/plugins,\\
    /usr/share/java
"""
    assert parse_properties(text) == {
        "bootstrap.servers": "localhost:9092,localhost:9093",
        "group.id": "connect-cluster",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "exactly.once.source.support": "enabled",
        "listeners": "http://:8083",
        "plugin.path": "/opt/plugins,/usr/share/java",
    }


def test_load_properties_reads_utf8(tmp_path: Path) -> None:
    path = tmp_path / "w.properties"
    path.write_bytes("name=café\nother=\\u00e9\n".encode())
    assert load_properties(path) == {"name": "café", "other": "é"}


def test_load_properties_falls_back_to_latin1(tmp_path: Path) -> None:
    path = tmp_path / "w.properties"
    path.write_bytes(b"name=caf\xe9\n")  # ISO-8859-1, as Java writes it; not valid UTF-8
    assert load_properties(str(path)) == {"name": "café"}


def test_load_properties_ignores_utf8_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "w.properties"
    path.write_bytes(b"\xef\xbb\xbfgroup.id=g\n")
    assert load_properties(path) == {"group.id": "g"}


def test_load_properties_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_properties(tmp_path / "absent.properties")
