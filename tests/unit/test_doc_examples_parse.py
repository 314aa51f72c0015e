"""The docs' shell examples are all either run by tests/integration/test_doc_examples.py or marked with
why not, and what it runs it understands: every ``curl`` addresses the documented worker with options
it knows and JSON it can read. Also: every ``json`` block of the docs is JSON."""

from __future__ import annotations

import json

import pytest
from doc_examples import SKIP, WITH_DEMO, Block, blocks, commands, curl_request, shell_blocks


def _run_blocks() -> list[Block]:
    return [block for block in shell_blocks() if block.skip_reason is None]


def test_every_shell_block_is_run_or_says_why_not() -> None:
    found = list(shell_blocks())
    assert len(found) >= 10, [block.where for block in found]
    for block in found:
        assert block.marker in (None, WITH_DEMO) or block.skip_reason, (
            f"{block.where}: <!-- docs-test: {block.marker} --> should be '{SKIP} <reason>' or '{WITH_DEMO}'")
    # The README's connector examples are among those run.
    assert any(block.document.name == "README.md" and "/connectors -d" in block.body for block in _run_blocks())


@pytest.mark.parametrize("block", _run_blocks(), ids=lambda block: block.where)
def test_every_command_run_is_understood(block: Block) -> None:
    for command in commands(block.body):
        if command.words[0] == "curl":
            request = curl_request(command.words)
            if request.body is not None:
                json.loads(request.body)


def test_json_blocks_are_json() -> None:
    for block in blocks():
        if block.language == "json":
            json.loads(block.body)


def test_commands_and_requests_as_a_shell_reads_them() -> None:
    body = """\
.venv/bin/connect-distributed worker.properties &      # a comment
# a line of its own
curl -s -X PUT localhost:8083/connectors/c/config -H 'Content-Type: application/json' \\
     -d '{"connector.class": "VerifiableSource",
          "topic": "t # not a comment"}'
curl -s localhost:8083/connectors/c/status
"""
    found = list(commands(body))
    assert [c.words[0] for c in found] == [".venv/bin/connect-distributed", "curl", "curl"]
    assert found[0].stood_in_for and not found[1].stood_in_for
    put = curl_request(found[1].words)
    assert (put.method, put.path, put.headers) == ("PUT", "/connectors/c/config", {"Content-Type": "application/json"})
    assert put.created_connector() == ("c", {"connector.class": "VerifiableSource", "topic": "t # not a comment"})
    assert curl_request(found[2].words).method == "GET"
    assert curl_request(["curl", "-d", "{}", "http://127.0.0.1:8083/connectors"]).method == "POST"
    with pytest.raises(ValueError, match="documented worker"):
        curl_request(["curl", "localhost:8084/connectors"])
    with pytest.raises(ValueError, match="curl option -k"):
        curl_request(["curl", "-k", "localhost:8083/"])
    with pytest.raises(ValueError, match="unterminated"):
        list(commands("curl -d '{\n"))
