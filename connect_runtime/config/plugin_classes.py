"""Which plugin classes may be imported, and importing them: the plugin allowlist.

A worker imports Python code for three reasons only: its built-in plugins, the installed plugins
(entry points of group ``connect_runtime.plugins``), and what the operator names. A class named by its
dotted path (``mypackage.module.ClassName``, in a connector config, a worker file or a REST request) is
imported only when its module is *allowed*:

- under a package listed in the worker setting ``plugin.allowed.packages`` (``mycompany.connect``
  allows ``mycompany.connect`` and every ``mycompany.connect.*`` module, not ``mycompany``);
- under a top-level module or package of a ``plugin.path`` directory (see :class:`PluginAllowlist`);
- under the module of an installed entry point of group ``connect_runtime.plugins``.

Any other name is "not found" and nothing is imported: the name is checked before any import, so a
request naming ``this.Zen`` or ``antigravity.X`` runs no code.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Final

from connect_runtime.api.config_values import InvalidValue, parse_list
from connect_runtime.api.errors import ConfigException

__all__ = [
    "ALLOWED_PACKAGES_CONFIG",
    "ENTRY_POINT_GROUP",
    "PLUGIN_PATH_CONFIG",
    "PluginAllowlist",
    "PluginSettingError",
    "plugin_directory_modules",
]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP: Final = "connect_runtime.plugins"
PLUGIN_PATH_CONFIG: Final = "plugin.path"
ALLOWED_PACKAGES_CONFIG: Final = "plugin.allowed.packages"


class PluginSettingError(ConfigException):
    """A ``plugin.path`` or ``plugin.allowed.packages`` value the worker cannot honour."""

    def __init__(self, name: str, value: object, requirement: str) -> None:
        super().__init__(name, value, requirement)
        self.requirement = requirement


def _dotted(name: str) -> list[str] | None:
    """The parts of a dotted name (Java's ``Outer$Inner`` is ``Outer.Inner``); None unless every part is
    a Python identifier (no relative names, no empty parts)."""
    parts = name.strip().replace("$", ".").split(".")
    return parts if all(p.isidentifier() for p in parts) else None


def plugin_directory_modules(directory: Path) -> list[str]:
    """The plugins of one ``plugin.path`` directory: its top-level modules (``name.py``) and packages
    (``name/__init__.py``), in name order; names starting with ``_`` or ``.`` are not plugins."""
    found: set[str] = set()
    for entry in directory.iterdir():
        if entry.name.startswith(("_", ".")):
            continue
        if entry.is_file() and entry.suffix == ".py" and entry.stem.isidentifier():
            found.add(entry.stem)
        elif entry.is_dir() and entry.name.isidentifier() and (entry / "__init__.py").is_file():
            found.add(entry.name)
    return sorted(found)


class PluginAllowlist:
    """The modules a worker may import plugin classes from, and :meth:`load` to import one.

    ``packages`` are the operator's ``plugin.allowed.packages``. ``plugin_path`` lists directories: each
    is a *Python plugin directory*, whose top-level modules (``name.py``) and packages
    (``name/__init__.py``) are plugins; the directory is put on ``sys.path`` (after the entries already
    there, so a plugin cannot shadow the standard library or an installed package). A path that is not
    a directory, and a module name that two directories both define, raise :class:`PluginSettingError`
    naming ``plugin.path``. Entry points of group ``connect_runtime.plugins`` are read (not loaded) for
    their modules.
    """

    def __init__(self, packages: Iterable[str] = (), plugin_path: Iterable[str] = ()) -> None:
        self.packages: tuple[str, ...] = tuple(packages)
        for package in self.packages:
            if _dotted(package) is None or "$" in package:
                raise PluginSettingError(ALLOWED_PACKAGES_CONFIG, package, "must be a dotted Python package name")
        #: ``plugin.path`` module name -> the directory it is in.
        self.path_modules: dict[str, Path] = {}
        paths = list(plugin_path)
        for path in paths:
            if not path.strip() or not Path(path).expanduser().is_dir():
                raise PluginSettingError(PLUGIN_PATH_CONFIG, path, "not a directory")
        self.plugin_path: tuple[Path, ...] = tuple(Path(p).expanduser().absolute() for p in paths)
        for directory in self.plugin_path:
            for module in plugin_directory_modules(directory):
                other = self.path_modules.setdefault(module, directory)
                if other != directory:
                    raise PluginSettingError(PLUGIN_PATH_CONFIG, str(directory),
                                          f"module {module} is also in {other}")
        self._entry_point_modules = tuple(sorted({ep.module for ep in entry_points(group=ENTRY_POINT_GROUP)}))
        self._roots = (*self.packages, *self.path_modules, *self._entry_point_modules)
        for directory in self.plugin_path:
            if str(directory) not in sys.path:
                sys.path.append(str(directory))

    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> PluginAllowlist:
        """The allowlist of worker properties (``plugin.allowed.packages`` and ``plugin.path``, comma
        separated); a malformed value raises :class:`PluginSettingError` naming its key."""
        lists: dict[str, list[str]] = {}
        for key in (ALLOWED_PACKAGES_CONFIG, PLUGIN_PATH_CONFIG):
            try:
                lists[key] = parse_list(props.get(key) or "")
            except InvalidValue as e:
                raise PluginSettingError(key, props.get(key), e.requirement) from None
        return cls(lists[ALLOWED_PACKAGES_CONFIG], lists[PLUGIN_PATH_CONFIG])

    def allows_module(self, module: str) -> bool:
        """Whether ``module`` (a dotted module name) may be imported."""
        return any(module == root or module.startswith(root + ".") for root in self._roots)

    def allows(self, name: str) -> bool:
        """Whether the class named ``name`` could be imported: some module prefix of it is allowed."""
        parts = _dotted(name)
        return parts is not None and any(
            self.allows_module(".".join(parts[:split])) for split in range(1, len(parts)))

    def load(self, name: str) -> type | None:
        """The class ``name`` names: ``pkg.module.Class``, or a nested ``pkg.module.Outer.Inner`` (also
        written ``pkg.module.Outer$Inner``, as Java names nested classes). None, without importing
        anything, when no module prefix of it is allowed; None too when it cannot be imported or names
        no class (a module that fails while importing is logged)."""
        parts = _dotted(name)
        if parts is None:
            return None
        # The longest allowed, importable prefix is the module; the rest are attributes (nested classes).
        for split in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:split])
            if not self.allows_module(module_name):
                continue  # checked before any import: a name outside the allowlist runs no code
            try:
                found: Any = importlib.import_module(module_name)
            except ModuleNotFoundError as e:
                if e.name is not None and (module_name + ".").startswith(e.name + "."):
                    continue  # no such module: the name may be a nested class of a shorter prefix
                logger.warning("Could not import plugin module %s: %s", module_name, e)
                return None
            except (Exception, SystemExit) as e:  # an allowed module that is broken: not found, and said so
                logger.warning("Could not import plugin module %s: %s", module_name, e)
                return None
            try:
                for attr in parts[split:]:
                    found = getattr(found, attr)
            except AttributeError:
                return None
            return found if isinstance(found, type) else None
        return None

