"""The grammar of config values, shared by worker files and connector configs.

Values arrive as strings (a properties file, a REST body) and are parsed the way Kafka's
``ConfigDef.parseType`` parses them: surrounding whitespace trimmed, ``true``/``false`` in any case,
integers range-checked for their Java type, comma-separated lists. :class:`ConfigDef` (connector and
plugin configs) and the worker's :class:`WorkerConfig` both call these functions, so a value one
accepts the other accepts too, and both reject it for the same reason.

Each failure is an :class:`InvalidValue` carrying two wordings of the same reason: Kafka's (which
``PUT .../config/validate`` must report verbatim for Java tools) and a "must be ..." phrase (which
the worker's one-line start-up errors use).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "INTEGER_TYPES",
    "InvalidValue",
    "parse_bool",
    "parse_double",
    "parse_integer",
    "parse_list",
    "parse_string",
]

#: The Java integer types and their inclusive ranges.
INTEGER_TYPES: Final = {
    "SHORT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "LONG": (-(2**63), 2**63 - 1),
}


class InvalidValue(ValueError):
    """A raw value is not of the expected type.

    ``message`` is Kafka's ``ConfigDef`` wording ("Not a number of type INT"); ``requirement`` says
    the same as what the value must be ("must be a number of type INT").
    """

    def __init__(self, message: str, requirement: str) -> None:
        super().__init__(message)
        self.message = message
        self.requirement = requirement


def parse_string(raw: object, *, strip: bool = True) -> str:
    """A string, trimmed unless ``strip`` is False (passwords keep their spaces)."""
    if not isinstance(raw, str):
        raise InvalidValue(f"Expected value to be a string, but it was a {type(raw).__name__}", "must be a string")
    return raw.strip() if strip else raw


def parse_bool(raw: object) -> bool:
    """``true`` or ``false`` in any case, surrounding whitespace allowed; or a bool."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        s = raw.strip().lower()
        if s in ("true", "false"):
            return s == "true"
    raise InvalidValue("Expected value to be either true or false", "must be true or false")


def parse_integer(raw: object, type_name: str) -> int:
    """An integer within the range of the Java type ``type_name`` (``SHORT``, ``INT``, ``LONG``).

    A string is trimmed first; a bool is not a number (although Python's bool is an int).
    """
    lo, hi = INTEGER_TYPES[type_name]
    invalid = InvalidValue(f"Not a number of type {type_name}", f"must be a number of type {type_name}")
    if isinstance(raw, bool):
        raise invalid
    if isinstance(raw, int):
        number = raw
    elif isinstance(raw, str):
        try:
            number = int(raw.strip())
        except ValueError:
            raise invalid from None
    else:
        raise invalid
    if not lo <= number <= hi:
        raise invalid
    return number


def parse_double(raw: object) -> float:
    """A floating-point number (Java's DOUBLE); a string is trimmed first."""
    invalid = InvalidValue("Not a number of type DOUBLE", "must be a number of type DOUBLE")
    if isinstance(raw, bool):
        raise invalid
    try:
        return float(raw.strip()) if isinstance(raw, str) else float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise invalid from None


def parse_list(raw: object) -> list[str]:
    """Comma-separated items, each trimmed; an empty or blank string is the empty list.

    A list or tuple is taken item by item (each turned into a trimmed string).
    """
    if isinstance(raw, list | tuple):
        return [str(v).strip() for v in raw]
    if not isinstance(raw, str):
        raise InvalidValue("Expected a comma separated list.", "must be a comma-separated list")
    s = raw.strip()
    return [item.strip() for item in s.split(",")] if s else []
