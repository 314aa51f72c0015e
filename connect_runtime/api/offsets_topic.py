"""The offsets topic's records, byte for byte as Apache Kafka Connect writes and reads them.

Keys are ``["<connector>",{partition}]`` and values the offset map, both JSON as Java's
``JsonConverter`` writes them with ``schemas.enable=false``. Part of the plugin API because
:class:`~connect_runtime.api.DelegatedDelivery` deliverers write these records themselves; the
runtime's stores use the same functions (through ``connect_runtime.storage.formats``, which holds
every other internal-topic format).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from connect_runtime.api.errors import DataException
from connect_runtime.api.java_json import json_dumps_compact, json_loads

log = logging.getLogger(__name__)

__all__ = [
    "RecordFormatError",
    "offset_key",
    "offset_record",
    "offset_value",
    "parse_offset_key",
    "parse_offset_value",
    "validate_offset_format",
]


class RecordFormatError(DataException):
    """An internal-topic record with a known key but a value (or key) Java would skip."""


def _class_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def validate_offset_format(data: Any) -> None:
    """Java's ``OffsetUtils.validateFormat``: None, or a map of str keys to primitive values.

    Primitive = str, int, float, bool, bytes (or None). Raises :class:`DataException` with Java's
    messages otherwise.
    """
    if data is None:
        return
    if not isinstance(data, Mapping):
        raise DataException("Offsets must be specified as a Map")
    for key, value in data.items():
        if not isinstance(key, str):
            raise DataException("Offsets may only use String keys")
        if value is None or isinstance(value, str | int | float | bytes | bytearray | memoryview):
            continue
        if isinstance(value, list | tuple):
            kind = "ARRAY"
        elif isinstance(value, Mapping):
            kind = "MAP"
        else:
            kind = str(type(value))
        raise DataException(
            f"Offsets may only contain primitive types as values, but field {key} contains {kind}"
        )


def offset_key(connector: str, partition: Mapping[str, Any] | None) -> bytes:
    """The offsets-topic key ``["<connector>",{partition}]``, byte for byte as Java writes it.

    Field order is the mapping's iteration order. Note that a Java connector whose partition map is
    a ``HashMap`` with several entries gets Java's hash order, so the bytes (which Java's stores
    key by) depend on the writer; compare parsed keys when that matters.
    """
    validate_offset_format(partition)
    return json_dumps_compact([connector, partition])


def offset_value(offset: Mapping[str, Any] | None) -> bytes | None:
    """The offsets-topic value: the JSON offset map, or None (a tombstone) for None."""
    if offset is None:
        return None
    validate_offset_format(offset)
    return json_dumps_compact(offset)


def offset_record(
    connector: str, partition: Mapping[str, Any] | None, offset: Mapping[str, Any] | None
) -> tuple[bytes, bytes | None]:
    """``(offset_key(connector, partition), offset_value(offset))``."""
    return offset_key(connector, partition), offset_value(offset)


def parse_offset_key(data: bytes | None) -> tuple[str, dict[str, Any]] | None:
    """Parse ``["<connector>",{partition}]``; None (after logging Java's warning) if malformed.

    A key whose partition is JSON null is valid but names no partition: None, without a warning
    (as in ``OffsetUtils.processPartitionKey``).
    """
    if data is None:
        log.warning("Ignoring offset partition key with an unexpected null value")
        return None
    try:
        key = json_loads(data)
    except ValueError:
        log.warning("Ignoring offset partition key with unknown serialization. Expected json.")
        return None
    if not isinstance(key, list):
        log.warning(
            "Ignoring offset partition key with an unexpected format. "
            "Expected type: java.util.List, actual type: %s",
            _class_name(key),
        )
        return None
    if len(key) != 2:
        log.warning(
            "Ignoring offset partition key with an unexpected number of elements. Expected: 2, actual: %d",
            len(key),
        )
        return None
    connector, partition = key
    if not isinstance(connector, str):
        log.warning(
            "Ignoring offset partition key with an unexpected format for the first element in the "
            "partition key list. Expected type: java.lang.String, actual type: %s",
            _class_name(connector),
        )
        return None
    if not isinstance(partition, dict):
        if partition is not None:
            log.warning(
                "Ignoring offset partition key with an unexpected format for the second element in the "
                "partition key list. Expected type: java.util.Map, actual type: %s",
                _class_name(partition),
            )
        return None
    return connector, partition


def parse_offset_value(data: bytes | None) -> dict[str, Any] | None:
    """Parse an offsets-topic value: a map, or None for a tombstone (or JSON null).

    Raises :class:`RecordFormatError` for anything Java's ``OffsetStorageReaderImpl`` would refuse
    (invalid JSON, not a map, non-primitive values); Java then returns no offset for that key.
    """
    if data is None:
        return None
    try:
        offset = json_loads(data)
    except ValueError as exc:
        raise RecordFormatError(f"Failed to convert offset data to Kafka Connect format: {exc}") from exc
    try:
        validate_offset_format(offset)
    except DataException as exc:
        raise RecordFormatError(str(exc)) from exc
    return offset  # type: ignore[no-any-return]  # validated: None or a dict
