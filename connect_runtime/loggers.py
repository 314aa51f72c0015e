"""Runtime logger levels, as ``/admin/loggers`` shows and changes them (Java's ``Loggers``, KIP-495).

Levels are spoken in log4j's names (what Connect clients send and expect) and applied to Python's
``logging``: TRACE is a level below DEBUG (5), WARN is WARNING, FATAL is CRITICAL, OFF is above
everything, ALL is the lowest level. Changing a namespace changes the logger of that name and every
existing logger whose name starts with it (the same plain prefix test Java makes), and records when
each logger was last changed by this worker.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

#: Log4j's name of the root logger (matched case-insensitively, as Java does).
ROOT_LOGGER_NAME = "root"

#: Python has no TRACE; this is the level a ``TRACE`` request sets (below DEBUG).
TRACE = 5
#: ``OFF``: above CRITICAL, so nothing is logged.
OFF = logging.CRITICAL + 1
#: ``ALL``: the lowest level that still counts as set on a logger (0 would mean "inherit").
ALL = 1

#: Log4j level name -> Python level (the names ``Level.toLevel`` accepts).
JAVA_LEVELS: dict[str, int] = {
    "ALL": ALL,
    "TRACE": TRACE,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARN,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "OFF": OFF,
}


def to_python_level(name: str) -> int | None:
    """The Python level for a log4j level name (any case); None if it names no level."""
    return JAVA_LEVELS.get(name.upper())


def to_java_level(level: int) -> str:
    """The log4j name of a Python level: the most verbose log4j level that still lets everything
    ``level`` lets through (a custom level between two of them reads as the lower one)."""
    if level <= ALL:
        return "ALL"
    if level <= TRACE:
        return "TRACE"
    if level <= logging.DEBUG:
        return "DEBUG"
    if level <= logging.INFO:
        return "INFO"
    if level <= logging.WARN:
        return "WARN"
    if level <= logging.ERROR:
        return "ERROR"
    if level <= logging.CRITICAL:
        return "FATAL"
    return "OFF"


class Loggers:
    """Reads and sets logger levels of this process; thread-safe."""

    def __init__(self, clock_ms: Callable[[], int] | None = None) -> None:
        self._clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        self._last_modified: dict[str, int] = {}
        self._lock = threading.Lock()
        if logging.getLevelName(TRACE) != "TRACE":
            logging.addLevelName(TRACE, "TRACE")

    @staticmethod
    def _existing() -> dict[str, logging.Logger]:
        # Placeholders (parents nobody asked for yet) are not loggers: Java does not list them either.
        return {name: lg for name, lg in logging.root.manager.loggerDict.items() if isinstance(lg, logging.Logger)}

    def _level_of(self, name: str, lg: logging.Logger) -> tuple[str, int | None]:
        level = lg.level if lg.level != logging.NOTSET else lg.getEffectiveLevel()
        return to_java_level(level), self._last_modified.get(name)

    def level(self, name: str) -> tuple[str, int | None] | None:
        """``(level, last_modified)`` of an existing logger (its effective level if none is set on it);
        None if there is no logger of that name (none is created by asking)."""
        with self._lock:
            if name.lower() == ROOT_LOGGER_NAME:
                return self._level_of(ROOT_LOGGER_NAME, logging.getLogger())
            found = self._existing().get(name)
            if found is None:
                logger.warning("Unable to find level for logger %s", name)
                return None
            return self._level_of(name, found)

    def all_levels(self) -> dict[str, tuple[str, int | None]]:
        """Every logger that has a level set on it, plus ``root``, sorted by name."""
        with self._lock:
            result = {name: self._level_of(name, lg) for name, lg in self._existing().items()
                      if lg.level != logging.NOTSET}
            root = logging.getLogger()
            if root.level != logging.NOTSET:
                result[ROOT_LOGGER_NAME] = self._level_of(ROOT_LOGGER_NAME, root)
            return dict(sorted(result.items()))

    def set_level(self, namespace: str, level_name: str) -> list[str]:
        """Set the level of the namespace's logger (created if need be) and of every logger whose name
        starts with ``namespace`` (``root``: every logger); returns, sorted, the names of those whose
        level this changed (a logger already set to that level is not, as in Java). An invalid level
        changes nothing and returns []."""
        level = to_python_level(level_name)
        if level is None:
            logger.warning("Ignoring request to set invalid level '%s' for namespace %s", level_name, namespace)
            return []
        logger.info("Setting level of namespace %s and children to %s", namespace, level_name.upper())
        with self._lock:
            existing = self._existing()
            targets: dict[str, logging.Logger]
            if namespace.lower() == ROOT_LOGGER_NAME:
                targets = dict(existing)
                targets[ROOT_LOGGER_NAME] = logging.getLogger()
            else:
                targets = {name: lg for name, lg in existing.items() if name.startswith(namespace)}
                if namespace not in targets:
                    targets[namespace] = logging.getLogger(namespace)
            now = self._clock_ms()
            changed = []
            for name, lg in targets.items():
                # A logger that only inherited its level gets one of its own: that is a change (Java
                # compares with the level configured on the logger, and an unconfigured one has none).
                if lg.level != level:
                    lg.setLevel(level)
                    self._last_modified[name] = now
                    changed.append(name)
            return sorted(changed)
