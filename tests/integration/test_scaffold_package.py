"""``connect-runtime new-connector demo`` writes a package that, installed (``pip install -e``) into a
fresh virtual environment, passes its own tests, the real-broker crash test included, as generated."""

from __future__ import annotations

import os
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest

import connect_runtime
from connect_runtime.cli import main
from connect_runtime.testing.pytest_plugin import BOOTSTRAP_ENV

#: The source tree of the connect_runtime under test: put first on the generated tests' sys.path.
SOURCE_ROOT = Path(connect_runtime.__file__).resolve().parents[1]


def _throwaway_venv(path: Path) -> Path:
    """A virtual environment that also sees this interpreter's packages (connect-runtime, pytest, pip):
    ``--system-site-packages`` reaches the base interpreter only, so a .pth file adds ours."""
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(path)
    python = path / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "outer_site.pth").write_text(
        f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    return python


@pytest.mark.kafka
def test_generated_package_passes_its_tests(kafka_bootstrap: str, tmp_path: Path) -> None:
    assert main(["new-connector", "demo", "--dir", str(tmp_path)]) == 0
    package = tmp_path / "demo"
    python = _throwaway_venv(tmp_path / "venv")
    env = {**os.environ, BOOTSTRAP_ENV: kafka_bootstrap,
           "PYTHONPATH": os.pathsep.join([str(SOURCE_ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    install = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                              "-q", "-e", str(package)], capture_output=True, text=True, env=env, timeout=300)
    assert install.returncode == 0, install.stdout + install.stderr
    run = subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "--timeout=300"],
                         cwd=package, capture_output=True, text=True, env=env, timeout=400)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "4 passed" in run.stdout, run.stdout[-3000:]
    assert "PASSED tests/test_crash.py::test_exactly_once_through_a_worker_crash" in run.stdout
