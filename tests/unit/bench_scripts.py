"""Loads a script of bench/ as a module for the tests of its pure helpers, leaving no trace.

The scripts put bench/ and the repository on ``sys.path`` and ``PYTHONPATH`` (for their worker child)
and some import ``eos_throughput`` by its bare name: all of that is undone once the script is loaded.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench_script(name: str) -> ModuleType:
    """``bench/<name>.py`` as the module ``bench_<name>``."""
    saved_path, saved_env = list(sys.path), os.environ.get("PYTHONPATH")
    saved_modules = set(sys.modules)
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # a dataclass of the script resolves its annotations through it
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved_path
        if saved_env is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved_env
        if "eos_throughput" not in saved_modules:
            sys.modules.pop("eos_throughput", None)
