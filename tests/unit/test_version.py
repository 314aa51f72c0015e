"""One runtime version and one way to ask a plugin for its version."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from connect_runtime.api import runtime_info
from connect_runtime.transforms.filter import Filter
from connect_runtime.version import UNKNOWN_VERSION, plugin_version, runtime_version
from connectors.file.source import FileStreamSourceConnector, FileStreamSourceTask


def test_the_runtime_and_its_builtin_plugins_report_one_version() -> None:
    assert runtime_version() == version("connect-runtime")
    assert FileStreamSourceConnector().version() == FileStreamSourceTask().version() == runtime_version()
    assert Filter().version() == runtime_version()


def test_without_package_metadata_the_version_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import PackageNotFoundError

    def missing(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(runtime_info, "version", missing)
    assert runtime_version() == UNKNOWN_VERSION == "unknown"
    assert Filter().version() == "unknown"


class _Failing:
    def version(self) -> str:
        raise RuntimeError("no")


class _Empty:
    def version(self) -> str:
        return ""


@pytest.mark.parametrize("plugin", [_Failing(), _Empty(), object()])
def test_a_plugin_without_a_usable_version_has_none(plugin: object) -> None:
    assert plugin_version(plugin) is None
