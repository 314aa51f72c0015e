"""docs/plugins.md cannot drift from code that runs: every code block in it is a file under
docs/examples, included between markers, and those files are imported, run and tested here (and, against
a real broker, in tests/integration/test_plugin_guide_broker.py)."""

from __future__ import annotations

import re
import runpy
import tomllib
from importlib import import_module

from plugin_guide_examples import EXAMPLES, GUIDE, INCLUDED, PLUGINS, ROOT, example_test_functions, example_tests

from connect_runtime.config.plugin_classes import ENTRY_POINT_GROUP, PluginAllowlist
from connect_runtime.plugins.registry import PluginRegistry

FENCE = re.compile(r"^```", re.M)

# The guide's example tests without a broker, collected here (the broker ones run in tests/integration).
globals().update(example_test_functions(kafka=False))


def _included() -> list[re.Match[str]]:
    return list(INCLUDED.finditer(GUIDE.read_text()))


def test_every_code_block_of_the_guide_is_its_example_file() -> None:
    included = _included()
    assert included, "docs/plugins.md includes no example"
    # Each included block opens and closes a fence: any other fence is a code block nobody runs.
    assert len(FENCE.findall(GUIDE.read_text())) == 2 * len(included), "a code block without an example file"
    for match in included:
        path = ROOT / match["path"]
        assert path.is_file(), f"docs/plugins.md includes {match['path']}, which does not exist"
        assert match["body"] == path.read_text(), (
            f"the block of {match['path']} in docs/plugins.md differs from the file: "
            "run `python tests/plugin_guide_examples.py` to copy the files into the guide")


def test_every_example_file_is_in_the_guide() -> None:
    shown = {match["path"] for match in _included()}
    files = {str(p.relative_to(ROOT)) for p in EXAMPLES.rglob("*")
             if p.is_file() and not any(part.startswith((".", "__")) for part in p.relative_to(EXAMPLES).parts)}
    assert files <= shown, f"example files the guide does not show: {sorted(files - shown)}"


def test_common_mistakes_example_runs() -> None:
    runpy.run_path(str(EXAMPLES / "mistakes.py"))


def test_schemas_example_runs() -> None:
    runpy.run_path(str(EXAMPLES / "schemas.py"))


def test_header_schemas_example_runs() -> None:
    runpy.run_path(str(EXAMPLES / "header_schemas.py"))


def test_packaging_example_names_the_example_connector() -> None:
    example_tests()  # puts the plugins directory on sys.path
    project = tomllib.loads((EXAMPLES / "pyproject-example.toml").read_text())
    entry_points = project["project"]["entry-points"][ENTRY_POINT_GROUP]
    assert entry_points
    for name, target in entry_points.items():
        module, _, attribute = target.partition(":")
        assert getattr(import_module(module), attribute).__name__ == name


def test_example_connector_is_found_by_its_aliases_on_plugin_path() -> None:
    registry = PluginRegistry(PluginAllowlist(plugin_path=[str(PLUGINS)]))
    example_tests()  # puts the plugins directory on sys.path
    connector = import_module("jsonl_source").JsonLinesSourceConnector
    for name in ("JsonLinesSource", "JsonLinesSourceConnector", "jsonl_source.JsonLinesSourceConnector"):
        assert registry.connector_class(name) is connector
