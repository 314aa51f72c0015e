"""One value grammar: ConfigDef (connector configs) and WorkerConfig accept and reject the same raw
values, for the same reason, because both call :mod:`connect_runtime.api.config_values`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from connect_runtime.api.config_def import ConfigDef, ConfigType
from connect_runtime.api.config_values import (
    InvalidValue,
    parse_bool,
    parse_double,
    parse_integer,
    parse_list,
    parse_string,
)
from connect_runtime.api.errors import ConfigException
from connect_runtime.config.worker_config import WorkerConfig, WorkerConfigError

REQUIRED = {
    "bootstrap.servers": "b:9092",
    "group.id": "g",
    "config.storage.topic": "c",
    "offset.storage.topic": "o",
    "status.storage.topic": "s",
}


def _via_config_def(config_type: ConfigType, raw: Any) -> Any:
    return ConfigDef().define("k", config_type).parse({"k": raw})["k"]


def _via_worker(key: str, raw: Any) -> Any:
    return getattr(WorkerConfig.from_properties({**REQUIRED, key: raw}), key.replace(".", "_"))


def _check_same(parse: Any, config_type: ConfigType, worker_key: str, raw: Any) -> None:
    """Both front ends give the shared parser's value, or both fail with its reason."""
    try:
        expected = parse(raw)
    except InvalidValue as invalid:
        with pytest.raises(ConfigException) as from_def:
            _via_config_def(config_type, raw)
        assert str(from_def.value) == f"Invalid value {raw} for configuration k: {invalid.message}"
        with pytest.raises(WorkerConfigError) as from_worker:
            _via_worker(worker_key, raw)
        assert str(from_worker.value) == (
            f'Invalid value "{raw}" for configuration {worker_key}: {invalid.requirement}')
        return
    assert _via_config_def(config_type, raw) == expected
    assert _via_worker(worker_key, raw) == expected


@pytest.mark.parametrize("raw", ["12", " 12 ", "+7", "2147483647", "2147483648", "-2147483649", "1.5",
                                 "abc", "", "0x10", True, 3, 2.0])
def test_int_inputs(raw: Any) -> None:
    # scheduled.rebalance.max.delay.ms is an INT with a minimum of 0; every input here is invalid or >= 0.
    _check_same(lambda r: parse_integer(r, "INT"), ConfigType.INT, "scheduled.rebalance.max.delay.ms", raw)


@pytest.mark.parametrize("raw", ["9223372036854775807", "9223372036854775808", "x", " 5"])
def test_long_inputs(raw: Any) -> None:
    _check_same(lambda r: parse_integer(r, "LONG"), ConfigType.LONG, "offset.flush.interval.ms", raw)


@pytest.mark.parametrize("raw", ["true", " FALSE ", "True", "yes", "1", "", False, 0])
def test_bool_inputs(raw: Any) -> None:
    _check_same(parse_bool, ConfigType.BOOLEAN, "topic.creation.enable", raw)


@pytest.mark.parametrize("raw", ["a, b ,c", "a", "", "  ", ("x ", " y"), ["p"], 5])
def test_list_inputs(raw: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # plugin.path (relative directories, made here): config.providers would need a class for each name listed.
    monkeypatch.chdir(tmp_path)
    for d in "abcxyp":
        (tmp_path / d).mkdir()
    _check_same(parse_list, ConfigType.LIST, "plugin.path", raw)


def test_an_empty_plugin_path_entry_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _via_config_def(ConfigType.LIST, "a,,b") == ["a", "", "b"]
    with pytest.raises(WorkerConfigError, match=r"for configuration plugin\.path: not a directory"):
        _via_worker("plugin.path", "a,,b")


def test_list_items_are_trimmed_whatever_the_input() -> None:
    # ConfigDef trims list/tuple items as WorkerConfig does, whatever form the value comes in.
    assert _via_config_def(ConfigType.LIST, (" a", "b ")) == ["a", "b"]


def test_messages() -> None:
    cases: list[tuple[Any, str, str]] = [
        (lambda: parse_integer("x", "SHORT"), "Not a number of type SHORT", "must be a number of type SHORT"),
        (lambda: parse_integer("40000", "SHORT"), "Not a number of type SHORT", "must be a number of type SHORT"),
        (lambda: parse_bool("yes"), "Expected value to be either true or false", "must be true or false"),
        (lambda: parse_list(5), "Expected a comma separated list.", "must be a comma-separated list"),
        (lambda: parse_string(5), "Expected value to be a string, but it was a int", "must be a string"),
        (lambda: parse_double("x"), "Not a number of type DOUBLE", "must be a number of type DOUBLE"),
    ]
    for call, message, requirement in cases:
        with pytest.raises(InvalidValue) as info:
            call()
        assert (info.value.message, info.value.requirement) == (message, requirement)
        assert str(info.value) == message


def test_strings() -> None:
    assert parse_string("  x ") == "x"
    assert parse_string("  x ", strip=False) == "  x "
    assert _via_config_def(ConfigType.PASSWORD, " secret ") == " secret "
    assert parse_double(" 1.5 ") == 1.5
