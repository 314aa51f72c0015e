"""No dead code: ``vulture`` with the settings of ``[tool.vulture]`` in pyproject.toml (and its whitelist)
finds nothing, run here too so that pytest alone fails on a finding (``./dev test`` also runs it), and
it does report an unused function added to a copy of the tree."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("connect_runtime", "rest", "connectors")


def _vulture(tree: Path) -> subprocess.CompletedProcess[str]:
    # No arguments: vulture reads its paths and settings from the pyproject.toml of its working directory.
    return subprocess.run([sys.executable, "-m", "vulture"], cwd=tree, capture_output=True, text=True, timeout=120)


def test_vulture_finds_nothing() -> None:
    result = _vulture(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_an_unused_function_is_reported(tmp_path: Path) -> None:
    for package in SCANNED:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copy(ROOT / "vulture_whitelist.py", tmp_path)
    with open(tmp_path / "connect_runtime" / "futures.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef never_called_anywhere() -> None:\n    pass\n")

    result = _vulture(tmp_path)

    assert result.returncode != 0
    assert "unused function 'never_called_anywhere'" in result.stdout
