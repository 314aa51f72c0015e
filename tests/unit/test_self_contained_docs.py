"""Nothing in the repository cites a document the repository does not contain.

Design notes and behaviour write-ups that lived outside the repository were cited from code, docs and
tests ("DESIGN.md", "reference §6", ...); what readers need from them is in docs/architecture.md now,
and citations point there. This test keeps it so: it scans every file git tracks (and new files not yet
added) for citations of such documents, and checks that every ``*.md`` a file names exists here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve()

#: Citations of documents that are not part of the repository.
FORBIDDEN = re.compile(
    r"DESIGN\.md"
    r"|kafka-connect-behaviour"
    r"|reference\s*§|§\s*\d"  # sections of the behaviour reference
    r"|reference\s+\"Subtle\""  # its list of subtle behaviours
    r"|\bseeds/"  # the original design documents
    r"|\b(?:ISSUE|BRIEF)-[\w-]*\.md",
    re.IGNORECASE,
)

#: ``something.md`` as a file name or path.
MARKDOWN_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)\b")

#: Documents of other projects, named as such where they are cited (librdkafka's configuration list).
EXTERNAL = frozenset({"CONFIGURATION.md"})


def _files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            cwd=ROOT, capture_output=True, check=True).stdout
    paths = [ROOT / name for name in listed.decode().split("\0") if name]
    return [p for p in paths if p.is_file() and p.resolve() != THIS]


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None  # binary
    return data.decode("utf-8", errors="replace")


def test_no_file_cites_a_document_outside_the_repository() -> None:
    found = []
    for path in _files():
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = FORBIDDEN.search(line)
            if match:
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r} in {line.strip()[:100]!r}")
    assert not found, ("cites a document the repository does not contain (point at docs/architecture.md or "
                       "docs/*.md instead):\n" + "\n".join(found))


def test_every_markdown_document_named_exists() -> None:
    files = _files()
    tracked = {p.relative_to(ROOT).as_posix() for p in files}
    basenames = {p.name for p in files}
    missing = []
    for path in files:
        text = _text(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for name in MARKDOWN_NAME.findall(line):
                if name in EXTERNAL or name in tracked or Path(name).name in basenames:
                    continue
                if (path.parent / name).resolve().is_file():
                    continue
                missing.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert not missing, "names a Markdown document the repository does not contain:\n" + "\n".join(missing)


def test_the_checks_catch_what_they_are_for() -> None:
    for citation in ("see DESIGN.md", "(reference §6)", "reference §3, §4", "(reference \"Subtle\" 17)",
                     "kafka-connect-behaviour.md", "seeds/KIP-618.md", "ISSUE-13.md"):
        assert FORBIDDEN.search(citation), citation
    for fine in ("docs/architecture.md, \"Exactly-once source tasks\"", "the reference's messages",
                 "KIP-618", "Apache Kafka's ExactlyOnceSourceIntegrationTest"):
        assert not FORBIDDEN.search(fine), fine
    assert MARKDOWN_NAME.findall("see docs/spark.md and NOTES.md.") == ["docs/spark.md", "NOTES.md"]
