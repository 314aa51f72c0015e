"""Loads the plugin guide's example tests (docs/examples/tests) so that the project's tests can run them.

Their plugins directory goes onto ``sys.path`` first, as an installed plugin package would be."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "plugins.md"
EXAMPLES = ROOT / "docs" / "examples"
PLUGINS = EXAMPLES / "plugins"
_MODULE = "plugin_guide_example_tests"


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
