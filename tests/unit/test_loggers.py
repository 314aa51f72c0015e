"""Logger levels as ``/admin/loggers`` reads and sets them (Java's ``Loggers`` over Python logging)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator

import pytest

from connect_runtime.loggers import ALL, OFF, TRACE, Loggers, to_java_level, to_python_level


@pytest.fixture
def namespace() -> Iterator[str]:
    name = f"loggers_test_{uuid.uuid4().hex[:8]}"
    yield name
    for lg_name in [n for n in logging.root.manager.loggerDict if n.startswith(name)]:
        logging.getLogger(lg_name).setLevel(logging.NOTSET)


@pytest.mark.parametrize(
    ("java", "python"),
    [("ALL", ALL), ("TRACE", TRACE), ("DEBUG", logging.DEBUG), ("INFO", logging.INFO), ("WARN", logging.WARNING),
     ("ERROR", logging.ERROR), ("FATAL", logging.CRITICAL), ("OFF", OFF)],
)
def test_level_mapping_round_trips(java: str, python: int) -> None:
    assert to_python_level(java) == python
    assert to_python_level(java.lower()) == python  # Java upper-cases the request's level
    assert to_java_level(python) == java


def test_unknown_levels_and_in_between_levels() -> None:
    assert to_python_level("LOUD") is None
    assert to_python_level("WARNING") is None  # Python's name is not a log4j level
    assert to_java_level(25) == "WARN"  # a custom level reads as the next log4j level up
    assert to_java_level(logging.CRITICAL + 10) == "OFF"


def test_off_silences_a_logger(namespace: str) -> None:
    loggers = Loggers()
    loggers.set_level(namespace, "OFF")
    assert not logging.getLogger(namespace).isEnabledFor(logging.CRITICAL)
    loggers.set_level(namespace, "TRACE")
    assert logging.getLogger(namespace).isEnabledFor(TRACE)


def test_set_level_changes_the_namespace_and_every_logger_under_it(namespace: str) -> None:
    child = logging.getLogger(f"{namespace}.child")
    child.setLevel(logging.ERROR)
    sibling = logging.getLogger(f"{namespace}x.other")  # plain prefix match, as Java's startsWith
    loggers = Loggers(clock_ms=lambda: 1234)
    affected = loggers.set_level(namespace, "debug")
    assert affected == sorted([namespace, f"{namespace}.child", f"{namespace}x.other"])
    assert child.level == logging.DEBUG and sibling.level == logging.DEBUG
    assert loggers.level(f"{namespace}.child") == ("DEBUG", 1234)


def test_level_of_unknown_and_unset_loggers(namespace: str) -> None:
    loggers = Loggers(clock_ms=lambda: 99)
    assert loggers.level(namespace) is None  # asking creates nothing
    assert namespace not in logging.root.manager.loggerDict
    lg = logging.getLogger(namespace)
    effective = to_java_level(lg.getEffectiveLevel())
    assert loggers.level(namespace) == (effective, None)
    assert namespace not in loggers.all_levels()  # only loggers with a level set on them are listed
    assert "root" in loggers.all_levels()
    assert loggers.level("ROOT") == (to_java_level(logging.getLogger().level), None)


def test_setting_the_current_level_is_not_a_modification(namespace: str) -> None:
    lg = logging.getLogger(namespace)
    lg.setLevel(logging.INFO)
    loggers = Loggers(clock_ms=lambda: 5)
    assert loggers.set_level(namespace, "INFO") == []  # only the loggers it changed, as Java 4.x answers
    assert loggers.level(namespace) == ("INFO", None)
    child = logging.getLogger(f"{namespace}.child")  # inherits INFO: setting INFO on it is a change
    assert loggers.set_level(namespace, "INFO") == [f"{namespace}.child"]
    assert child.level == logging.INFO and loggers.level(f"{namespace}.child") == ("INFO", 5)
    assert loggers.set_level(namespace, "INFO") == []
    assert loggers.set_level(namespace, "LOUD") == []
    assert lg.level == logging.INFO


def test_all_levels_is_sorted(namespace: str) -> None:
    loggers = Loggers(clock_ms=lambda: 7)
    loggers.set_level(f"{namespace}.b", "DEBUG")
    loggers.set_level(f"{namespace}.a", "ERROR")
    levels = loggers.all_levels()
    assert list(levels) == sorted(levels)
    assert levels[f"{namespace}.a"] == ("ERROR", 7) and levels[f"{namespace}.b"] == ("DEBUG", 7)
