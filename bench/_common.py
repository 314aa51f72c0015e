"""What the benchmark scripts share: this tree on the import path, the ``--bootstrap`` flag, logging,
and the broker (the given one, else a LocalKafka started for the run and stopped after it).

A script puts ``bench/`` on ``sys.path`` and imports this module first: importing it makes this tree's
code the one that runs, in the script and in the worker child processes it starts (``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)

from connect_runtime.testing.local_kafka import KAFKA_VERSION, LocalKafka  # noqa: E402

log = logging.getLogger("bench")


def add_bootstrap_argument(parser: argparse.ArgumentParser) -> None:
    """``--bootstrap``: the broker to use; without it ``$KAFKA_BOOTSTRAP_SERVERS``, else a local one."""
    parser.add_argument("--bootstrap", default=os.environ.get("KAFKA_BOOTSTRAP_SERVERS"),
                        help="bootstrap.servers (default $KAFKA_BOOTSTRAP_SERVERS, else a local broker)")


def configure_logging() -> None:
    """Logs go to stderr (stdout carries the one JSON result)."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # httpx logs one line per request, and the scripts poll the REST API every few milliseconds.
    logging.getLogger("httpx").setLevel(logging.WARNING)


@dataclass(frozen=True)
class Broker:
    """The broker of a run."""

    bootstrap: str
    #: True when the run started it (a LocalKafka), False for a given one.
    local: bool

    @property
    def version_label(self) -> str:
        """The ``kafka`` field of a result: the local broker's version, or ``external``."""
        return KAFKA_VERSION if self.local else "external"

    @property
    def bootstrap_label(self) -> str:
        """The ``bootstrap`` field of a result: ``local``, or the given bootstrap servers."""
        return "local" if self.local else self.bootstrap


@contextlib.contextmanager
def broker(workdir: Path, bootstrap: str | None) -> Iterator[Broker]:
    """``bootstrap`` when given, else a LocalKafka in ``workdir / "kafka"``, stopped on the way out."""
    if bootstrap:
        yield Broker(bootstrap, local=False)
        return
    kafka = LocalKafka(workdir / "kafka")
    log.info("starting a local Kafka %s in %s", KAFKA_VERSION, kafka.data_dir)
    started = kafka.start()
    try:
        yield Broker(started, local=True)
    finally:
        kafka.stop()
