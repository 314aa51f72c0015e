"""What the Java service launchers share: the fetch-once cache (lock, marker, partial directory renamed
when complete, mvn.log on failure), the registry's distribution unpacked into it, and the Java check.
``mvn`` and ``java`` are small stand-in scripts here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from connect_runtime.testing.java_service import MavenRun, cache_root, fetch_once, find_java
from connect_runtime.testing.launcher import LauncherError
from connect_runtime.testing.local_registry import APICURIO_VERSION, LocalRegistryError, ensure_registry

# Records its arguments, puts one jar into -DoutputDirectory (or, with FAKE_MVN_TARBALL, the registry's
# tar.gz), and exits with $FAKE_MVN_EXIT.
FAKE_MVN = f"""#!{sys.executable}
import io, os, sys, tarfile
from pathlib import Path
with open(os.environ["FAKE_MVN_CALLS"], "a") as calls:
    calls.write(" ".join(sys.argv[1:]) + "\\n")
out = Path(next(a.split("=", 1)[1] for a in sys.argv if a.startswith("-DoutputDirectory=")))
out.mkdir(parents=True, exist_ok=True)
print("downloading into", out)
if os.environ.get("FAKE_MVN_TARBALL"):
    with tarfile.open(out / "apicurio-registry-app-all.tar.gz", "w:gz") as tar:
        for name in os.environ["FAKE_MVN_TARBALL"].split(","):
            info = tarfile.TarInfo(name)
            info.size = 3
            tar.addfile(info, io.BytesIO(b"jar"))
else:
    (out / "thing-1.0.jar").write_bytes(b"jar")
sys.exit(int(os.environ.get("FAKE_MVN_EXIT", "0")))
"""

RUNNER = f"apicurio-registry-app-{APICURIO_VERSION}-runner.jar"


class FetchError(LauncherError):
    pass


@pytest.fixture
def fake_mvn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mvn`` on PATH is the stand-in; returns the file listing its calls."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mvn").write_text(FAKE_MVN)
    (bin_dir / "mvn").chmod(0o755)
    calls = tmp_path / "mvn-calls"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_MVN_CALLS", str(calls))
    return calls


def _fetch_jars(mvn: MavenRun, partial: Path) -> list[str]:
    mvn("dependency:copy", f"-DoutputDirectory={partial}")
    return sorted(p.name for p in partial.glob("*.jar")) if mvn.returncode == 0 else []


def test_a_fetch_happens_once_and_is_recorded(tmp_path: Path, fake_mvn: Path) -> None:
    cache = tmp_path / "cache"
    libs = fetch_once(cache, "libs", {"thing_version": "1.0"}, _fetch_jars, what="thing 1.0", error=FetchError)
    assert libs == cache.resolve() / "libs"
    assert (libs / "thing-1.0.jar").read_bytes() == b"jar"
    assert not (cache / "libs.partial").exists()
    assert json.loads((cache / ".complete").read_text()) == {"thing_version": "1.0", "jars": ["thing-1.0.jar"]}
    assert "downloading into" in (cache / "mvn.log").read_text()

    assert fetch_once(cache, "libs", {"thing_version": "1.0"}, _fetch_jars, what="thing 1.0", error=FetchError) == libs
    assert fake_mvn.read_text().count("dependency:copy") == 1  # complete: mvn is not run again

    # another version pinned: fetched again
    fetch_once(cache, "libs", {"thing_version": "2.0"}, _fetch_jars, what="thing 2.0", error=FetchError)
    assert fake_mvn.read_text().count("dependency:copy") == 2


def test_a_failed_fetch_raises_the_launchers_error_with_the_log_and_leaves_no_result(
    tmp_path: Path, fake_mvn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MVN_EXIT", "1")
    cache = tmp_path / "cache"
    with pytest.raises(FetchError) as info:
        fetch_once(cache, "libs", {"thing_version": "1.0"}, _fetch_jars, what="thing 1.0", error=FetchError)
    assert info.value.message == f"mvn could not fetch thing 1.0 (exit code 1); see {cache.resolve() / 'mvn.log'}"
    assert info.value.detail is not None and "downloading into" in info.value.detail
    assert not (cache / "libs").exists() and not (cache / ".complete").exists()


def test_mvn_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(FetchError) as info:
        fetch_once(tmp_path / "cache", "libs", {"v": "1"}, _fetch_jars, what="thing 1.0", error=FetchError)
    assert info.value.message == ("mvn was not found on PATH; it is needed once to fetch thing 1.0 from Maven "
                                  "Central (e.g. apt-get install maven)")


def test_the_registry_distribution_is_unpacked_into_the_cache(
    tmp_path: Path, fake_mvn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MVN_TARBALL", f"{RUNNER},lib/a.jar,lib/b.jar,meta/readme")
    cache = tmp_path / "cache"
    dist = ensure_registry(cache)
    assert dist == cache.resolve() / "dist"
    assert sorted(str(p.relative_to(dist)) for p in dist.rglob("*") if p.is_file()) == [
        RUNNER, "lib/a.jar", "lib/b.jar", "meta/readme"]
    assert not (cache / "download").exists()  # the tarball is not kept twice
    assert f"-Dartifact=io.apicurio:apicurio-registry-app:{APICURIO_VERSION}:tar.gz:all" in fake_mvn.read_text()
    assert json.loads((cache / ".complete").read_text()) == {
        "apicurio_version": APICURIO_VERSION, "jars": [RUNNER, "lib/a.jar", "lib/b.jar"]}
    assert ensure_registry(cache) == dist
    assert fake_mvn.read_text().count("dependency:copy") == 1


def test_a_registry_download_without_its_runner_jar_is_a_failed_fetch(
    tmp_path: Path, fake_mvn: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_MVN_TARBALL", "lib/a.jar")
    with pytest.raises(LocalRegistryError) as info:
        ensure_registry(tmp_path / "cache")
    assert info.value.message.startswith(f"mvn could not fetch Apicurio Registry {APICURIO_VERSION} (exit code 0)")
    assert not (tmp_path / "cache" / "dist").exists()


def test_the_cache_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CONNECT_RUNTIME_CACHE", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    monkeypatch.delenv("CONNECT_RUNTIME_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "connect-runtime"


@pytest.mark.parametrize(("version", "major"), [('"11.0.2" 2019-01-15', 11), ('"1.8.0_392"', 8)])
def test_an_old_java_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, major: int) -> None:
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text(f"#!/bin/sh\necho 'openjdk version {version}' >&2\n")
    java.chmod(0o755)
    monkeypatch.setenv("PATH", str(java.parent))
    with pytest.raises(FetchError) as info:
        find_java(17, "Thing 1.0", FetchError)
    assert info.value.message == (f"{java} is Java {major}; Thing 1.0 needs Java 17+ "
                                  "(e.g. apt-get install openjdk-17-jre-headless)")
    java.write_text("#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n")
    assert find_java(17, "Thing 1.0", FetchError) == str(java)


def test_java_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(FetchError) as info:
        find_java(17, "Thing 1.0", FetchError)
    assert info.value.message == ("java was not found on PATH; Thing 1.0 needs Java 17+ "
                                  "(e.g. apt-get install openjdk-17-jre-headless)")

