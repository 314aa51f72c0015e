"""What the launchers of Java services share: the ``java`` they run on and the Maven Central downloads
they run, fetched once into a cache outside the repository.

The cache (:func:`cache_root`) holds one directory per pinned download (``kafka-<version>``,
``apicurio-registry-<version>``, ...), so that bumping a version never reuses stale files. Each is
filled by :func:`fetch_once`: under the directory's ``.lock`` (concurrent test sessions fetch once),
into ``<result>.partial``, renamed to ``<result>`` when complete, and recorded in a ``.complete`` marker
listing the files, so that an interrupted fetch is never mistaken for a finished one. ``mvn``'s output
goes to ``mvn.log`` beside it.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from connect_runtime.testing.launcher import LauncherError, file_lock, tail

logger = logging.getLogger(__name__)

_MARKER = ".complete"


def cache_root() -> Path:
    """The directory of the downloads' caches: ``$CONNECT_RUNTIME_CACHE``, or ``connect-runtime`` under
    ``$XDG_CACHE_HOME`` (default ``~/.cache``)."""
    base = os.environ.get("CONNECT_RUNTIME_CACHE")
    if base:
        return Path(base).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "connect-runtime"


class MavenRun:
    """Runs ``mvn`` in a cache directory, its output appended to that directory's ``mvn.log``."""

    def __init__(self, mvn: str, cache_dir: Path) -> None:
        self.mvn = mvn
        self.cache_dir = cache_dir
        self.log = cache_dir / "mvn.log"
        self.returncode: int | None = None
        """The exit code of the last run (None before the first)."""

    def __call__(self, *args: str) -> int:
        """Run ``mvn -q -B <args>`` and return its exit code."""
        with self.log.open("a") as out:
            proc = subprocess.run([self.mvn, "-q", "-B", *args], cwd=self.cache_dir, stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=subprocess.STDOUT, check=False)
        self.returncode = proc.returncode
        return proc.returncode


def _complete(cache_dir: Path, result: Path, identity: Mapping[str, str]) -> bool:
    try:
        info = json.loads((cache_dir / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(info, dict) or any(info.get(key) != value for key, value in identity.items()):
        return False
    files = info.get("jars")
    if not isinstance(files, list) or not files:
        return False
    return all((result / str(name)).is_file() for name in files)


def fetch_once(cache_dir: Path, result: str, identity: Mapping[str, str], fetch: Callable[[MavenRun, Path], list[str]],
               *, what: str, error: type[LauncherError]) -> Path:
    """Make sure ``cache_dir/result`` holds what ``fetch`` puts there and return that directory.

    ``fetch(mvn, partial)`` runs ``mvn`` (``mvn("dependency:copy", ...)``) and fills the directory
    ``partial``; it returns the files it put there (relative paths), or no file when the fetch failed.
    It is called only when the cache is not complete for ``identity`` (the pinned versions, recorded in
    the marker). ``what`` names the download in messages; ``error`` is the launcher's error class,
    raised when ``mvn`` is missing or the fetch fails (with ``mvn.log``'s tail as detail).
    """
    cache_dir = cache_dir.expanduser().resolve()
    target = cache_dir / result
    if _complete(cache_dir, target, identity):
        return target
    with file_lock(cache_dir / ".lock"):
        if _complete(cache_dir, target, identity):
            return target
        mvn = shutil.which("mvn")
        if mvn is None:
            raise error(f"mvn was not found on PATH; it is needed once to fetch {what} from Maven Central "
                        "(e.g. apt-get install maven)")
        logger.info("fetching %s from Maven Central into %s", what, cache_dir)
        partial = cache_dir / f"{result}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        run = MavenRun(mvn, cache_dir)
        run.log.write_text("")
        files = fetch(run, partial)
        if not files:
            raise error(f"mvn could not fetch {what} (exit code {run.returncode}); see {run.log}", tail(run.log))
        (cache_dir / _MARKER).unlink(missing_ok=True)
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        (cache_dir / _MARKER).write_text(json.dumps({**identity, "jars": files}, indent=1))
        logger.info("fetched %d files into %s", len(files), target)
        return target


def find_java(min_version: int, needs: str, error: type[LauncherError]) -> str:
    """The ``java`` executable on PATH, checked to be Java ``min_version`` or newer; ``needs`` names what
    needs it in the message of ``error``, raised otherwise."""
    advice = "(e.g. apt-get install openjdk-17-jre-headless)"
    java = shutil.which("java")
    if java is None:
        raise error(f"java was not found on PATH; {needs} needs Java {min_version}+ {advice}")
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30, check=False).stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise error(f"could not run {java} -version: {exc}") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if match:
        major = int(match.group(1))
        if major == 1 and match.group(2):  # "1.8.0_392" is Java 8
            major = int(match.group(2))
        if major < min_version:
            raise error(f"{java} is Java {major}; {needs} needs Java {min_version}+ {advice}")
    return java
