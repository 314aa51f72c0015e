"""The plugin guide's examples: loads its example tests (docs/examples/tests) so that the project's tests
run them, their plugins directory on ``sys.path`` as an installed plugin package would be; and, run as
a script (``python tests/plugin_guide_examples.py``), copies every example file into its block of
docs/plugins.md after an example changed."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "plugins.md"
EXAMPLES = ROOT / "docs" / "examples"
PLUGINS = EXAMPLES / "plugins"
_MODULE = "plugin_guide_example_tests"
#: ``<!-- example: docs/examples/... -->`` then a fenced block holding that file.
INCLUDED = re.compile(r"<!-- example: (?P<path>\S+) -->\n```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.S | re.M)


def example_tests() -> ModuleType:
    """docs/examples/tests/test_jsonl_source.py, imported once."""
    if _MODULE not in sys.modules:
        if str(PLUGINS) not in sys.path:
            sys.path.insert(0, str(PLUGINS))
        spec = importlib.util.spec_from_file_location(_MODULE, EXAMPLES / "tests" / "test_jsonl_source.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[_MODULE] = module
        spec.loader.exec_module(module)
    return sys.modules[_MODULE]


def example_test_functions(kafka: bool) -> dict[str, Callable[..., Any]]:
    """The example tests marked ``kafka`` (``kafka=True``) or not, by name: every one runs somewhere."""
    module = example_tests()
    return {name: test for name, test in vars(module).items()
            if name.startswith("test_") and callable(test)
            and any(mark.name == "kafka" for mark in getattr(test, "pytestmark", [])) == kafka}


def sync_guide() -> None:
    """Rewrite each example block of docs/plugins.md with its file's current text."""
    def block(match: re.Match[str]) -> str:
        body = (ROOT / match["path"]).read_text()
        return f"<!-- example: {match['path']} -->\n```{match['lang']}\n{body}```"

    GUIDE.write_text(INCLUDED.sub(block, GUIDE.read_text()))


if __name__ == "__main__":
    sync_guide()
