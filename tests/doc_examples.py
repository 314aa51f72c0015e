"""The shell examples of README.md and docs/*.md, split into commands the docs test runs as written.

A fenced ``bash`` block is run by ``tests/integration/test_doc_examples.py`` on the session's broker
unless the line before it says why not: ``<!-- docs-test: skip: <reason> -->``. A block that talks to
the demo connector says ``<!-- docs-test: with the demo connector -->`` and the test creates that
connector first, as ``./dev demo`` does. In a run block, ``curl`` commands are sent to the test's worker
in place of ``localhost:8083`` (the REST listener of ``worker.properties``); starting the local broker
and a worker from ``worker.properties`` is what the test's environment stands in for; anything else
runs in ``bash`` from the repository's root.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console"})
#: Where the examples send their requests: the REST listener of worker.properties.
DOCUMENTED_WORKER = re.compile(r"^(?:http://)?(?:localhost|127\.0\.0\.1):8083(?=/|$)")
SKIP = "skip:"
WITH_DEMO = "with the demo connector"

_BLOCK = re.compile(r"(?:<!-- docs-test: (?P<marker>.*?) -->\n)?^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```$",
                    re.S | re.M)
#: Commands the test's environment stands in for: the session's broker for the local broker, and the
#: test's worker (started from worker.properties) for workers started from it.
_STAND_INS = (
    re.compile(r"^\.venv/bin/connect-runtime local-kafka start\b"),
    re.compile(r"^\.venv/bin/connect-distributed worker\.properties\b"),
)
_CURL_FLAGS = frozenset({"-s", "--silent", "-S", "--show-error", "-f", "--fail"})
_CURL_OPTIONS = {"-X": "method", "--request": "method", "-H": "header", "--header": "header",
                 "-d": "data", "--data": "data", "--data-raw": "data"}


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its docs-test marker and its text."""

    document: Path
    line: int
    language: str
    marker: str | None
    body: str

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"

    @property
    def skip_reason(self) -> str | None:
        if self.marker is not None and self.marker.startswith(SKIP):
            return self.marker[len(SKIP):].strip()
        return None


@dataclass(frozen=True)
class Command:
    """One shell command of a block (continued lines and quoted newlines joined) and its words."""

    text: str
    words: list[str]

    @property
    def stood_in_for(self) -> bool:
        return any(pattern.match(self.text) for pattern in _STAND_INS)


@dataclass(frozen=True)
class CurlRequest:
    """What a ``curl`` command of the docs asks the documented worker."""

    method: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None

    def created_connector(self) -> tuple[str, dict[str, str]] | None:
        """The name and config of the connector this request creates (or reconfigures), if any."""
        if self.body is None:
            return None
        if self.method == "POST" and self.path == "/connectors":
            request = json.loads(self.body)
            return request["name"], request["config"]
        matched = re.fullmatch(r"/connectors/([^/]+)/config", self.path)
        if self.method == "PUT" and matched:
            return matched[1], json.loads(self.body)
        return None


def blocks() -> Iterator[Block]:
    """Every fenced block of README.md and docs/*.md, in document order."""
    for document in DOCUMENTS:
        text = document.read_text()
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start("lang")) + 1
            yield Block(document, line, match["lang"], match["marker"], match["body"])


def shell_blocks() -> Iterator[Block]:
    return (block for block in blocks() if block.language in SHELL_LANGUAGES)


def commands(body: str) -> Iterator[Command]:
    """The commands of a shell block: a line ending in a backslash, or inside a quote, goes on."""
    pending = ""
    for line in body.splitlines():
        pending += line + "\n"
        if line.endswith("\\"):
            continue
        try:
            words = shlex.split(pending.replace("\\\n", " "), comments=True)
        except ValueError:  # a quote still open
            continue
        if words:
            yield Command(pending.strip(), words)
        pending = ""
    if pending.strip():
        raise ValueError(f"unterminated command: {pending!r}")


def curl_request(words: list[str]) -> CurlRequest:
    """The request of a ``curl`` command; ValueError for an option or address the docs test does not know."""
    assert words[0] == "curl"
    values: dict[str, list[str]] = {"method": [], "header": [], "data": []}
    urls: list[str] = []
    rest = iter(words[1:])
    for word in rest:
        if word in _CURL_FLAGS:
            continue
        if word in _CURL_OPTIONS:
            values[_CURL_OPTIONS[word]].append(next(rest))
        elif word.startswith("-"):
            raise ValueError(f"curl option {word} is not one the docs test knows")
        else:
            urls.append(word)
    if len(urls) != 1 or not DOCUMENTED_WORKER.match(urls[0]):
        raise ValueError(f"curl should address the documented worker (localhost:8083), not {urls}")
    body = values["data"][-1] if values["data"] else None
    method = values["method"][-1] if values["method"] else ("POST" if body is not None else "GET")
    headers = dict(h.split(":", 1) for h in values["header"])
    return CurlRequest(method, DOCUMENTED_WORKER.sub("", urls[0]) or "/",
                       {k.strip(): v.strip() for k, v in headers.items()}, body)
