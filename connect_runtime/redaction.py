"""Keeping values that config providers resolved out of the worker's log.

A connector or task that starts with resolved ``${provider:[path:]key}`` placeholders registers them
here (so do a validation, an offsets request and the worker's own config); until its code can no longer
run, every log record the process writes has those values put back as their placeholders (message,
arguments and traceback alike; values shorter than ``MIN_REDACTED_LENGTH`` are left alone).
Status traces are redacted where they are written (see :class:`~connect_runtime.worker.worker.Worker`).

PASSWORD-typed values of a connector config (its ConfigDef's PASSWORD keys) are registered the same way
(see :func:`password_values`) and show as ``[hidden]``.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from connect_runtime.api.config_def import HIDDEN, ConfigDef, ConfigType
from connect_runtime.config.config_providers import MIN_REDACTED_LENGTH, ResolvedConfig

__all__ = ["SecretRedactor", "password_values", "redactor"]


def password_values(definition: ConfigDef, props: Mapping[str, Any]) -> ResolvedConfig:
    """What hides the values of ``props`` that ``definition`` types PASSWORD: each (at least
    ``MIN_REDACTED_LENGTH`` long) becomes ``[hidden]`` (register it with :data:`redactor`)."""
    secrets: dict[str, str] = {}
    for key in definition.keys.values():
        value = props.get(key.name)
        if key.type is ConfigType.PASSWORD and isinstance(value, str) and len(value) >= MIN_REDACTED_LENGTH:
            secrets[value] = HIDDEN
    return ResolvedConfig({}, secrets)


class SecretRedactor:
    """The resolved configs of the running connectors and tasks, and the log-record hook using them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._configs: dict[Hashable, ResolvedConfig] = {}
        self._active: tuple[ResolvedConfig, ...] = ()
        self._installed = False

    def register(self, owner: Hashable, resolved: ResolvedConfig) -> None:
        """Redact ``resolved``'s values from now on, until :meth:`unregister` of ``owner``."""
        with self._lock:
            if resolved.has_secrets:
                self._configs[owner] = resolved
            else:
                self._configs.pop(owner, None)
            self._active = tuple(self._configs.values())
            if self._active and not self._installed:
                self._install()

    def unregister(self, owner: Hashable) -> None:
        """Stop redacting what ``owner`` registered (its values may still be another's)."""
        with self._lock:
            if self._configs.pop(owner, None) is not None:
                self._active = tuple(self._configs.values())

    def redact(self, text: str) -> str:
        """``text`` with every registered resolved value put back as its placeholder."""
        for resolved in self._active:
            text = resolved.redact(text)
        return text

    def _install(self) -> None:
        # A record factory, not a handler filter: it covers every handler, including ones added later.
        previous: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            if self._active:
                self._redact_record(record)
            return record

        logging.setLogRecordFactory(factory)
        self._installed = True

    def _redact_record(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: leave it to the handler to report
            return
        redacted = self.redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
            text = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
            record.exc_text = self.redact(text)


#: The process's redactor.
redactor = SecretRedactor()
