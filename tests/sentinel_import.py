"""A module no worker may import: importing it writes the file named by ``$CONNECT_RUNTIME_SENTINEL_FILE``
(when set), so a test can tell that a name under it was imported. It is importable (as ``sentinel_import``
or ``tests.sentinel_import``) but under no allowed package and in no ``plugin.path`` directory."""

from __future__ import annotations

import os
from pathlib import Path

from connect_runtime.api import SourceRecord, Transformation

SENTINEL_ENV = "CONNECT_RUNTIME_SENTINEL_FILE"

_target = os.environ.get(SENTINEL_ENV)
if _target:
    Path(_target).write_text("imported\n")


class Zen(Transformation):
    """A plugin class, so that only the allowlist can keep it from being found."""

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return record
