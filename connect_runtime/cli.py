"""Console entry points: ``connect-distributed`` (a worker) and ``connect-runtime`` (tools: the local
Kafka broker, the local schema registry, the local Spark cluster and the demo). A worker is made, and
closed, by the composition root (:mod:`connect_runtime.composition`), which the demo shares."""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from confluent_kafka import KafkaError, KafkaException

from connect_runtime.api.errors import ConfigException, ConnectException
from connect_runtime.composition import LOG_FORMAT, distributed_worker, load_worker

if TYPE_CHECKING:
    from connect_runtime.distributed import DistributedWorker

logger = logging.getLogger(__name__)


def configure_logging(level: str = "INFO") -> None:
    logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stderr)


def distributed_main(argv: Sequence[str] | None = None) -> int:
    """``connect-distributed worker.properties [--override key=value]...``"""
    parser = argparse.ArgumentParser(prog="connect-distributed",
                                     description="Run a Kafka Connect distributed worker.")
    parser.add_argument("config", help="worker .properties file")
    parser.add_argument("--override", action="append", default=[], metavar="KEY=VALUE",
                        help="override a worker config value (repeatable)")
    args = parser.parse_args(argv)
    configure_logging()
    try:
        composed = load_worker(args.config, args.override)
    except ConfigException as e:
        print(f"connect-distributed: {e}", file=sys.stderr)
        return 1
    # `kill -USR1 <pid>` writes every thread's stack to stderr (like jstack for a Java worker).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    # SimpleQueue.put is reentrant, so the handlers may call it on the main thread at any point, even
    # while that thread is inside get (Event.set would take a lock Event.wait holds and deadlock there).
    stop: queue.SimpleQueue[int] = queue.SimpleQueue()
    signal.signal(signal.SIGTERM, lambda signum, _: stop.put(signum))
    signal.signal(signal.SIGINT, lambda signum, _: stop.put(signum))
    try:
        code = _run_worker(distributed_worker(composed), stop)
    finally:
        composed.close()
    if code == 0:
        logger.info("Worker stopped cleanly")
        return _exit_when_threads_end(0)
    return code


def _run_worker(worker: DistributedWorker, stop: queue.SimpleQueue[int]) -> int:
    """Start ``worker``, serve until a signal number arrives on ``stop`` (or the worker fails), stop it;
    the exit code."""
    from rest.server import RestServerError

    try:
        worker.start()
    except ConfigException as e:  # a worker setting refused at start-up: one line naming the key
        print(f"connect-distributed: {e}", file=sys.stderr)
        worker.stop()
        return 1
    except (ConnectException, KafkaException, RestServerError, OSError) as e:
        # An expected failure (Kafka unreachable, an internal topic unusable, the REST port taken): the
        # one line says it all; the stack is only for whoever debugs the runtime itself.
        print(f"connect-distributed: failed to start: {_one_line(e)}", file=sys.stderr)
        logger.debug("Worker failed to start", exc_info=True)
        worker.stop()
        return 1
    except Exception as e:  # a bug: the one line, then the traceback to report it with
        print(f"connect-distributed: failed to start: {_one_line(e)}", file=sys.stderr)
        logger.error("Worker failed to start because of an unexpected error", exc_info=True)
        worker.stop()
        return 1
    while True:
        try:
            stop.get(timeout=0.5)
            break
        except queue.Empty:
            pass
        if worker.failure is not None:  # already logged, on one line, by the worker
            worker.stop()
            return 1
        if worker.herder is not None and worker.herder.stopped:
            logger.error("The herder stopped unexpectedly; shutting down")
            worker.stop()
            return 1
    logger.info("Shutting down")
    worker.stop()
    return 0


def _one_line(error: BaseException) -> str:
    """``error``'s message on one line (a Kafka error as its text, not its repr)."""
    cause = error.args[0] if isinstance(error, KafkaException) and error.args else None
    text = cause.str() if isinstance(cause, KafkaError) else str(error) or type(error).__name__
    return " ".join(text.split())


#: After a clean stop, how long the process waits for threads still finishing (a Spark application
#: being stopped, a cancelled task blocked in a Kafka call) before it exits anyway.
_EXIT_GRACE_S = 20.0


def _exit_when_threads_end(code: int) -> int:
    """Exit with ``code`` once the remaining non-daemon threads end, or after :data:`_EXIT_GRACE_S`.

    The interpreter would otherwise wait for every thread-pool worker, and a task cancelled after the
    graceful timeout may be blocked for minutes in a call to an unreachable Kafka: the worker has
    committed and left the group already, so an operator's SIGTERM must end the process.
    """
    deadline = time.monotonic() + _EXIT_GRACE_S
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    left = [t.name for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if left:
        logger.warning("Exiting with threads still running after %.0f s: %s", _EXIT_GRACE_S, ", ".join(left))
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """``connect-runtime local-kafka|local-registry|local-spark start|stop|status``, ``demo``,
    ``hash-password`` and ``new-connector``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print("usage: connect-runtime {local-kafka,local-registry,local-spark,demo,hash-password,new-connector} "
              "...\n\n"
              "  local-kafka start|stop|status     run a single-node Apache Kafka for development and tests\n"
              "                                    (start --brokers 3: three nodes; kill|stop-node|restart NODE)\n"
              "  local-registry start|stop|status  run a schema registry (Apicurio, Confluent's API) locally\n"
              "  local-spark start|stop|status     run a Spark standalone master + workers from the installed pyspark\n"
              "  demo                              local Kafka + one worker + an exactly-once demo connector\n"
              "  hash-password [--user NAME]       print a hashed password for rest.basic.auth.credentials.file\n"
              "  new-connector NAME [--dir D]      write a source connector package with its tests into D/NAME")
        return 0 if args else 2
    if args[0] == "local-kafka":
        from connect_runtime.testing.local_kafka import cli

        return cli(args[1:])
    if args[0] == "local-registry":
        from connect_runtime.testing import local_registry

        return local_registry.cli(args[1:])
    if args[0] == "local-spark":
        from connect_runtime.testing import spark_cluster

        return spark_cluster.cli(args[1:])
    if args[0] == "demo":
        from connect_runtime.demo import demo_main

        return demo_main(args[1:])
    if args[0] == "hash-password":
        return hash_password_main(args[1:])
    if args[0] == "new-connector":
        return new_connector_main(args[1:])
    print(f"connect-runtime: unknown command {args[0]!r}", file=sys.stderr)
    return 2


def hash_password_main(argv: Sequence[str]) -> int:
    """``connect-runtime hash-password [--user NAME]``: print the scrypt hash of a password for the
    Basic authentication credentials file. The password is asked twice on a terminal, else read as
    the first line of standard input (never an argument: it would show in the process list)."""
    import getpass

    from rest.credentials import hash_password

    parser = argparse.ArgumentParser(prog="connect-runtime hash-password",
                                     description="Print a hashed password for rest.basic.auth.credentials.file.")
    parser.add_argument("--user", help="print a whole 'user: hash' line of the credentials file")
    args = parser.parse_args(argv)
    if sys.stdin.isatty():
        password = getpass.getpass("Password: ")
        if getpass.getpass("Repeat password: ") != password:
            print("connect-runtime hash-password: the passwords differ", file=sys.stderr)
            return 1
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    if not password:
        print("connect-runtime hash-password: empty password", file=sys.stderr)
        return 1
    hashed = hash_password(password)
    print(f"{args.user}: {hashed}" if args.user else hashed)
    return 0


def new_connector_main(argv: Sequence[str]) -> int:
    """``connect-runtime new-connector NAME [--dir D]``: write a source connector package (connector,
    task, config definition, README, pyproject.toml with the entry point, tests) into ``D/NAME``."""
    from connect_runtime.scaffold import ScaffoldError, new_connector

    parser = argparse.ArgumentParser(
        prog="connect-runtime new-connector",
        description="Write a source connector package, with tests that pass as generated, into D/NAME.")
    parser.add_argument("name", metavar="NAME",
                        help="distribution and package name, e.g. mysource or my-source")
    parser.add_argument("--dir", default=".", metavar="D", help="where to create NAME/ (default: here)")
    args = parser.parse_args(argv)
    try:
        target = new_connector(args.name, Path(args.dir))
    except ScaffoldError as e:
        print(f"connect-runtime new-connector: {e}", file=sys.stderr)
        return 2
    print(f"Wrote {target}. Next: cd {target} && pip install -e . && pytest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
