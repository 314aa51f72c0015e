"""Kafka Connect's ``SimpleHeaderConverter``: header values as text (``Values.convertToString``).

What Java writes for a schemaless value (``Values.append``), as UTF-8:

* a string as it is; booleans ``true``/``false``; integers in decimal; floats as ``Double.toString``
  (``1.0``, ``1.0E10``, ``NaN``); a ``Decimal`` as ``BigDecimal.toString``;
* bytes as standard base64 (padded);
* a list as ``[a,b]`` and a map as ``{k:v,...}`` with no spaces, their elements *embedded*: strings
  and base64 bytes in double quotes (``\\`` and ``"`` backslash-escaped, nothing else), None as
  ``null``;
* None (the whole value) as a null header value.
"""

from __future__ import annotations

import base64
import decimal
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.config_def import ConfigDef
from connect_runtime.api.converter import HeaderConverter
from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import java_double_to_string
from connect_runtime.version import runtime_version

__all__ = ["SimpleHeaderConverter", "values_to_string"]


def values_to_string(value: Any) -> str | None:
    """Kafka's ``Values.convertToString(null, value)`` for a schemaless value (None for None)."""
    if value is None:
        return None
    if type(value) is str:
        return value
    out: list[str] = []
    _append(out, value, False)
    return "".join(out)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _append(out: list[str], value: Any, embedded: bool) -> None:
    if value is None:
        out.append("null")
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(java_double_to_string(value))
    elif isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise DataException(f"Failed to serialize unexpected value type decimal.Decimal: {value}")
        out.append(str(value))  # Python's to-sci-string is BigDecimal.toString's format
    elif isinstance(value, str):
        out.append(f'"{_escape(value)}"' if embedded else value)
    elif isinstance(value, bytes | bytearray | memoryview):
        encoded = base64.b64encode(value).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _append(out, item, True)
        out.append("]")
    elif isinstance(value, Mapping):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            _append(out, key, True)
            out.append(":")
            _append(out, item, True)
        out.append("}")
    else:
        kind = type(value)
        raise DataException(f"Failed to serialize unexpected value type {kind.__module__}.{kind.__qualname__}: "
                            f"{value!r}")


class SimpleHeaderConverter(HeaderConverter):
    """Kafka Connect's ``org.apache.kafka.connect.storage.SimpleHeaderConverter`` (the worker's default
    ``header.converter``): writes a header value as its text form (see :func:`values_to_string`) in
    UTF-8, None as a null header value. It has no settings.

    Reading (``to_connect_header``) returns the text as a str: this runtime only writes records, so it
    does not infer types from header text as Java's ``Values.parseString`` does.
    """

    def version(self) -> str:
        """The runtime's version, as Kafka's built-in converters report Kafka's."""
        return runtime_version()

    def config_def(self) -> ConfigDef:
        """No settings (Java's is an empty ConfigDef)."""
        return ConfigDef()

    def from_connect_header(self, topic: str, header_key: str, value: Any) -> bytes | None:
        """The value's text form as UTF-8; None stays None."""
        if type(value) is str:  # the common case first
            return value.encode("utf-8", "replace")
        text = values_to_string(value)
        # Java's String.getBytes(UTF_8) writes "?" for a lone surrogate, as "replace" does.
        return None if text is None else text.encode("utf-8", "replace")

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> str | None:
        """The header text (None for a null header value)."""
        if data is None:
            return None
        try:
            return bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise DataException(f"Failed to deserialize value for header '{header_key}' on topic '{topic}'") from e
