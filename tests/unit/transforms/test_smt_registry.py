"""Every built-in SMT of this library is registered under its Java class name and is a documented plugin."""

from __future__ import annotations

import pytest

from connect_runtime.api import ConfigDef, Transformation
from connect_runtime.transforms import BUILTIN_TRANSFORMS

JAVA = "org.apache.kafka.connect.transforms."
EXPECTED = [
    "Cast$Key", "Cast$Value", "DropHeaders", "ExtractField$Key", "ExtractField$Value", "Flatten$Key", "Flatten$Value",
    "HeaderFrom$Key", "HeaderFrom$Value", "HoistField$Key", "HoistField$Value", "InsertHeader", "MaskField$Key",
    "MaskField$Value", "ReplaceField$Key", "ReplaceField$Value", "SetSchemaMetadata$Key", "SetSchemaMetadata$Value",
    "TimestampConverter$Key", "TimestampConverter$Value", "TimestampRouter", "ValueToKey",
]


@pytest.mark.parametrize("name", EXPECTED)
def test_registered_and_documented(name: str) -> None:
    cls = BUILTIN_TRANSFORMS[JAVA + name]
    assert issubclass(cls, Transformation)
    assert cls.__doc__ and cls.__module__.startswith("connect_runtime.transforms.")
    module = __import__(cls.__module__, fromlist=["_"])
    assert module.__doc__
    xf = cls()
    assert isinstance(xf.config_def(), ConfigDef)
    xf.close()


def test_key_and_value_variants_differ() -> None:
    for name in EXPECTED:
        if name.endswith("$Key"):
            base = name[: -len("$Key")]
            assert BUILTIN_TRANSFORMS[JAVA + base + "$Key"] is not BUILTIN_TRANSFORMS[JAVA + base + "$Value"]
