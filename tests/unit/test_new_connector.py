"""``connect-runtime new-connector``: the names it derives, the names it refuses, no overwriting, and
files that are valid Python and TOML naming the connector (the generated tests run against a broker in
tests/integration/test_scaffold_package.py)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from connect_runtime.cli import main
from connect_runtime.config.plugin_classes import ENTRY_POINT_GROUP
from connect_runtime.scaffold import Names


def test_names_derived_from_a_distribution_name() -> None:
    assert Names.of("demo") == Names("demo", "demo", "DemoSourceConnector", "DemoSourceTask", "DemoSource")
    assert Names.of("my-source") == Names("my-source", "my_source", "MySourceConnector", "MySourceTask",
                                          "MySource")
    assert Names.of("Acme_Orders").package == "acme_orders"


@pytest.mark.parametrize("name, reason", [
    ("1x", "invalid name '1x': use letters"),
    ("my source", "use letters, digits"),
    ("my--source", "use letters, digits"),
    ("demo-", "use letters, digits"),
    ("../evil", "use letters, digits"),
    ("class", "'class' is a Python keyword"),
    ("json", "'json' is a Python keyword or a module it ships"),
    ("connect_runtime", "module it ships"),
    ("pytest", "a module 'pytest' is importable already"),
])
def test_bad_names_are_refused_with_a_reason(name: str, reason: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new-connector", name, "--dir", str(tmp_path)]) == 2
    assert reason in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_directory_is_not_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "keep.txt").write_text("mine")
    assert main(["new-connector", "demo", "--dir", str(tmp_path)]) == 2
    assert f"{tmp_path / 'demo'} exists already; not overwriting it" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "demo").iterdir()] == ["keep.txt"]


def test_generated_files(tmp_path: Path) -> None:
    assert main(["new-connector", "my-source", "--dir", str(tmp_path / "new")]) == 0
    root = tmp_path / "new" / "my-source"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == ["README.md", "my_source/__init__.py", "my_source/config.py", "my_source/connector.py",
                     "my_source/task.py", "pyproject.toml", "tests/test_crash.py", "tests/test_task.py"]
    for path in root.rglob("*.py"):
        ast.parse(path.read_text(), str(path))
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["name"] == "my-source"
    assert project["project"]["entry-points"][ENTRY_POINT_GROUP] == {
        "MySourceConnector": "my_source.connector:MySourceConnector"}
    assert '"connector.class": "MySource"' in (root / "tests" / "test_crash.py").read_text()
    # Clean under this project's lint rules, run as the new package's own (connect_runtime third-party).
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--select", "E,F,W,I,B,UP,SIM,RUF",
                           "--line-length", "120", "--target-version", "py311", "."],
                          cwd=root, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_every_template_is_package_data() -> None:
    """A template pyproject.toml does not ship would be missing from an installed connect-runtime."""
    import connect_runtime.scaffold

    scaffold = Path(connect_runtime.scaffold.__file__).parent
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    shipped = {p for pattern in project["tool"]["setuptools"]["package-data"]["connect_runtime.scaffold"]
               for p in scaffold.glob(pattern)}
    templates = {p for p in (scaffold / "templates").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert len(templates) == 8 and templates <= shipped, sorted(str(p) for p in templates - shipped)
