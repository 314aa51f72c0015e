"""The layers of docs/architecture.md hold: the import contracts of ``[tool.importlinter]`` in
pyproject.toml, run here too so that pytest alone fails on a violation (``./dev test`` also runs
``lint-imports``), and shown to fail on a tree that breaks each of them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("connect_runtime", "rest", "connectors")

# One import per contract, appended to a copy of the tree: each breaks exactly the contracts it names.
BAD_IMPORTS = {
    "connect_runtime/api/record.py": "from connect_runtime.storage import formats",
    "connect_runtime/config/properties.py": "from connect_runtime.worker import task_spec",
    "connect_runtime/plugins/registry.py": "import connectors.file",
    "connect_runtime/storage/offset_backing_store.py": "from connect_runtime.converters import json_converter",
    "connect_runtime/worker/task_spec.py": "from connect_runtime import errors",
    "connectors/verifiable/connector.py": "from connect_runtime import version",
    "connect_runtime/config/java_regex.py": "from connect_runtime import redaction",
    "connect_runtime/demo.py": "from connect_runtime import cli",
}


def _contracts() -> list[dict[str, Any]]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        contracts: list[dict[str, Any]] = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    return contracts


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    # A fresh interpreter whose path starts at ``tree``: the graph is built from what ``import`` finds.
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")
    env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "400"}
    return subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=120)


def test_every_contract_is_kept() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for contract in _contracts():
        assert f"{contract['name']} KEPT" in result.stdout


def test_a_tree_that_breaks_every_contract_is_reported(tmp_path: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for path, line in BAD_IMPORTS.items():
        with open(tmp_path / path, "a", encoding="utf-8") as f:
            f.write(f"\n{line}\n")

    result = _lint(tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    for contract in _contracts():
        assert f"{contract['name']} BROKEN" in result.stdout
    assert "connect_runtime.api.record -> connect_runtime.storage.formats" in result.stdout


def test_every_top_level_module_has_a_layer() -> None:
    # A new module must be placed in a layer, or the contracts would silently say nothing about it.
    modules = {f"connect_runtime.{p.stem}" for p in (ROOT / "connect_runtime").iterdir()
               if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    contracts = _contracts()
    layered = {name.strip() for contract in contracts if contract["type"] == "layers"
               for layer in contract["layers"] for name in layer.replace(":", "|").split("|")}
    assert modules - layered == set()
    # What the plugin API and the built-in connectors may import; every other module is forbidden by name.
    may_import = {"connect_runtime.api": {"connect_runtime.api"},
                  "connectors": {"connect_runtime.api", "connect_runtime.testing"}}
    for contract in contracts:
        if contract["type"] == "forbidden" and len(contract["source_modules"]) == 1:
            allowed = may_import.get(contract["source_modules"][0])
            if allowed is not None:
                assert modules - set(contract["forbidden_modules"]) == allowed, contract["name"]
