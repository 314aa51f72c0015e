"""``connect-runtime new-connector NAME``: write a source connector package to start a plugin from.

The package holds a connector, its task and config definition, a README, pyproject.toml with the
``connect_runtime.plugins`` entry point, and tests that use :mod:`connect_runtime.testing` (unit tests
and a real-broker crash test); it passes ``pytest`` as generated, once installed (``pip install -e``).

The files are templates in ``templates/`` (package data), filled with :class:`string.Template`: the
substitutions are a handful of names, which needs no templating engine, and the standard library keeps
a dependency off every worker that installs connect-runtime.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from importlib.util import find_spec
from pathlib import Path
from string import Template

from connect_runtime.version import runtime_version

__all__ = ["Names", "ScaffoldError", "new_connector"]

#: A distribution name that is also a module name once lower-cased with ``-`` turned into ``_``.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")
#: Top-level names the package must not take: the runtime's own packages and the tests directory.
_TAKEN = frozenset({"connect_runtime", "connectors", "rest", "tests", "test"})
#: Template path prefix -> where it goes: ``package/`` becomes the package's directory.
_PACKAGE_DIR = "package"
_SUFFIX = ".tmpl"


class ScaffoldError(Exception):
    """The name or the target directory cannot be used; the message says why."""


@dataclass(frozen=True)
class Names:
    """The names the templates use, derived from NAME."""

    #: The distribution name (pyproject's ``project.name``) and the directory written: NAME as given.
    distribution: str
    #: The Python package: NAME lower-cased, ``-`` as ``_``.
    package: str
    #: ``<Camel>SourceConnector``, ``<Camel>SourceTask``, and the alias users write: ``<Camel>Source``.
    connector: str
    task: str
    alias: str

    @classmethod
    def of(cls, name: str) -> Names:
        """The names for NAME; :class:`ScaffoldError` when NAME cannot name a package."""
        if not _NAME.fullmatch(name):
            raise ScaffoldError(
                f"invalid name {name!r}: use letters, digits, '-' and '_', starting with a letter "
                "(a Python package and distribution name, e.g. 'mysource' or 'my-source')")
        package = name.lower().replace("-", "_")
        if keyword.iskeyword(package) or package in sys.stdlib_module_names or package in _TAKEN:
            raise ScaffoldError(f"invalid name {name!r}: {package!r} is a Python keyword or a module it ships")
        if find_spec(package) is not None:
            raise ScaffoldError(f"invalid name {name!r}: a module {package!r} is importable already; "
                                "the new package would clash with it")
        camel = "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_]", name))
        if camel.lower().endswith("source") and len(camel) > len("source"):  # my-source: MySourceConnector
            camel = camel[: -len("source")]
        return cls(name, package, f"{camel}SourceConnector", f"{camel}SourceTask", f"{camel}Source")


def _templates(root: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """Every template under ``root``: (relative path without the suffix, the template)."""
    found: list[tuple[str, Traversable]] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            found += _templates(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(_SUFFIX):
            found.append((prefix + entry.name[: -len(_SUFFIX)], entry))
    return found


def new_connector(name: str, directory: Path) -> Path:
    """Write the package for NAME into ``directory/NAME`` (which must not exist); returns that path."""
    names = Names.of(name)
    target = directory / names.distribution
    if target.exists():
        raise ScaffoldError(f"{target} exists already; not overwriting it")
    values = {"distribution": names.distribution, "package": names.package, "connector": names.connector,
              "task": names.task, "alias": names.alias, "runtime_version": _version()}
    rendered = []
    for relative, template in _templates(files(__name__) / "templates"):
        if relative.startswith(_PACKAGE_DIR + "/"):
            relative = names.package + relative[len(_PACKAGE_DIR):]
        rendered.append((relative, Template(template.read_text(encoding="utf-8")).substitute(values)))
    try:
        target.mkdir(parents=True)
    except FileExistsError:
        raise ScaffoldError(f"{target} exists already; not overwriting it") from None
    for relative, text in rendered:
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target


def _version() -> str:
    """The running connect-runtime's version as the package's minimum (0.1.0 when unknown)."""
    version = runtime_version()
    return version if re.fullmatch(r"\d+(\.\d+)*", version) else "0.1.0"
