"""The registry converter's door to confluent-kafka's ``SchemaRegistryClient``: the calls it makes, a
timeout on each, and the registry's failures turned into the exceptions the task loop acts on.

confluent-kafka's client already caches what it learns (register and lookup per subject and schema,
schemas per id, latest versions per subject for ``latest.cache.ttl.sec``); the converter adds its
own caches in front (``registry_converter``), so once a schema is known a record makes no call here.

Errors are mapped much as Java's converter maps them, and every message names the registry (its URLs,
credentials left out):

- the registry unreachable, no answer within the HTTP timeouts, or a 5xx / 408 / 429 answer:
  :class:`RetriableException`, which the task loop retries within ``errors.retry.timeout``. For a
  refused connection, a 429 or a 502 Java's converter raises Kafka's own retriable exceptions, which
  its task loop does not retry; retrying them here lets a task ride out a registry restart;
- a certificate the registry presents that is not trusted: :class:`DataException` (waiting does not
  fix it);
- 401 / 403: :class:`DataException` saying the credentials were refused (and naming the key they
  came from);
- any other answer (409 incompatible schema, 404 unknown subject or id, 422 invalid schema):
  :class:`DataException` carrying the registry's message; so is a success whose body is not the
  registry's JSON (a proxy's page, say).

Refused credentials and an untrusted certificate are also found by :meth:`RegistryClient.check_access`
at ``configure``, so they fail a task at its start rather than at its first record.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, SchemaRegistryError

# confluent-kafka talks HTTP through httpx or its successor httpx2, whichever its compat module found;
# its transport errors are that library's, so they are caught through the same module.
from confluent_kafka.schema_registry.common._httpx_compat import httpx

from connect_runtime.api.errors import ConfigException, DataException, RetriableException
from connect_runtime.converters.schema_registry.registry_config import RegistrySettings

__all__ = ["RegistryClient", "RegistrySchema"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Statuses worth retrying: the registry (or a proxy in front of it) is overloaded or restarting.
_RETRIABLE_STATUSES: Final = frozenset({408, 429})
#: The access check at configure waits at most this long: a registry that is down then is not an
#: error (records retry), and a worker must not hang on it while starting a task.
_ACCESS_CHECK_TIMEOUT_S: Final = 5.0
#: The key an untrusted registry certificate is reported on.
_TRUSTSTORE: Final = "schema.registry.ssl.truststore.location"


@dataclass(frozen=True, slots=True)
class RegistrySchema:
    """A schema as the registry holds it."""

    id: int
    text: str
    #: The registry's version of it under the subject asked for, when known.
    version: int | None = None


#: Registrations of one schema when the registry says its subject was created meanwhile.
_CREATE_RACE_ATTEMPTS: Final = 3


class RegistryClient:
    """The registry calls of one converter (one ``SchemaRegistryClient``), for one schema type."""

    def __init__(self, settings: RegistrySettings, schema_type: str) -> None:
        self._settings = settings
        self._schema_type = schema_type
        self._session: SchemaRegistryClient | None = None

    @property
    def _client(self) -> SchemaRegistryClient:
        # Made at the first call: a worker configures a task's converters to check them and drops them,
        # and those should leave no HTTP session behind.
        if self._session is None:
            self._session = _new_client(self._settings, self._settings.connect_timeout_s,
                                        self._settings.read_timeout_s, self._settings.max_retries)
        return self._session

    @property
    def urls(self) -> str:
        """The registry URLs, for messages (credentials left out)."""
        return self._settings.display_urls

    def close(self) -> None:
        """Close the HTTP session, if one was opened."""
        if self._session is not None:
            self._session.close()
            self._session = None

    def check_access(self) -> None:
        """One quick call that proves the credentials and the registry's certificate are accepted.

        Raises ``ConfigException`` naming the credentials' key when the registry refuses them, or the
        truststore's when its certificate is not trusted; a registry that cannot be reached or does not
        answer in time is only logged (the records will retry).
        """
        probe = _new_client(self._settings, min(self._settings.connect_timeout_s, _ACCESS_CHECK_TIMEOUT_S),
                            min(self._settings.read_timeout_s, _ACCESS_CHECK_TIMEOUT_S), 0)
        try:
            self._call("checking access", probe.get_schema_types)
        except DataException as e:
            if _refused_credentials(e.__cause__):
                key = self._settings.credentials_key or "basic.auth.user.info"
                raise ConfigException(key, "[hidden]", str(e)) from None
            if e.__cause__ is not None and _untrusted_certificate(e.__cause__) is not None:
                raise ConfigException(_TRUSTSTORE, None, str(e)) from None
            logger.warning("%s; records will fail or retry as the registry answers them", e)
        except RetriableException:
            pass  # logged where it was raised; the records will retry
        finally:
            probe.close()

    def register(self, subject: str, text: str) -> int:
        """The id of ``text`` under ``subject``, registered if new (``auto.register.schemas``)."""
        schema = Schema(text, self._schema_type)

        def register() -> int:
            # Two tasks registering a subject's first schema at once: Apicurio answers the one that lost
            # the race 409 "... already exists"; registering again then finds the subject.
            for _ in range(_CREATE_RACE_ATTEMPTS - 1):
                try:
                    return self._client.register_schema(subject, schema, self._settings.normalize)
                except SchemaRegistryError as e:
                    if e.http_status_code != 409 or "already exists" not in str(e.error_message):
                        raise
            return self._client.register_schema(subject, schema, self._settings.normalize)

        return self._call(f"registering a schema under subject {subject}", register)

    def lookup(self, subject: str, text: str) -> int:
        """The id of ``text`` already registered under ``subject`` (``auto.register.schemas=false``)."""
        schema = Schema(text, self._schema_type)
        registered = self._call(f"looking up a schema under subject {subject}",
                                lambda: self._client.lookup_schema(subject, schema, self._settings.normalize))
        return _id(registered.schema_id, subject)

    def lookup_version(self, subject: str, text: str) -> int | None:
        """The version ``text`` has under ``subject`` (for the Connect schema's version when reading)."""
        schema = Schema(text, self._schema_type)
        registered = self._call(f"looking up a schema under subject {subject}",
                                lambda: self._client.lookup_schema(subject, schema, self._settings.normalize))
        return None if registered.version is None else int(registered.version)

    def latest(self, subject: str) -> RegistrySchema:
        """The latest version under ``subject`` (``use.latest.version``)."""
        registered = self._call(f"reading the latest schema of subject {subject}",
                                lambda: self._client.get_latest_version(subject))
        return RegistrySchema(_id(registered.schema_id, subject), str(registered.schema.schema_str),
                              registered.version)

    def by_id(self, schema_id: int) -> RegistrySchema:
        """The schema with ``schema_id`` (for reading records)."""
        schema = self._call(f"reading schema id {schema_id}", lambda: self._client.get_schema(schema_id))
        if schema.schema_type not in (None, self._schema_type):
            raise DataException(f"Schema id {schema_id} in the schema registry at {self.urls} is a "
                                f"{schema.schema_type} schema, not {self._schema_type}")
        return RegistrySchema(schema_id, str(schema.schema_str))

    def _call(self, what: str, call: Callable[[], T]) -> T:
        try:
            return call()
        except SchemaRegistryError as e:
            raise self._error(what, e) from e
        except httpx.TimeoutException as e:
            raise _retriable(
                f"The schema registry at {self.urls} did not answer in time (http.connect.timeout.ms, "
                f"http.read.timeout.ms) while {what}: {type(e).__name__}: {e}") from e
        except httpx.TransportError as e:  # unreachable, reset
            untrusted = _untrusted_certificate(e)
            if untrusted is not None:
                # Waiting does not make a certificate trusted (Java's converter does not retry it either).
                raise DataException(f"The schema registry at {self.urls} presented a certificate that is not "
                                    f"trusted while {what}: {untrusted}") from e
            raise _retriable(
                f"The schema registry at {self.urls} could not be reached while {what}: {type(e).__name__}: {e}") \
                from e
        except (ValueError, KeyError, TypeError) as e:  # a 2xx whose body is not the registry's JSON
            raise DataException(f"The schema registry at {self.urls} answered something that is not a schema "
                                f"registry's answer while {what}: {type(e).__name__}: {e}") from e

    def _error(self, what: str, e: SchemaRegistryError) -> Exception:
        status = e.http_status_code
        if status in (401, 403):
            source = self._settings.credentials_key
            whose = f"the credentials of {source}" if source else "the request (no credentials were set)"
            return DataException(f"The schema registry at {self.urls} refused {whose} (HTTP {status}) while {what}")
        message = f"The schema registry at {self.urls} answered HTTP {status} while {what}: {e.error_message}"
        if status >= 500 or status in _RETRIABLE_STATUSES:
            return _retriable(message)
        return DataException(message)


def _id(schema_id: int | None, subject: str) -> int:
    if schema_id is None:
        raise DataException(f"The schema registry answered no schema id for subject {subject}")
    return schema_id


def _retriable(message: str) -> RetriableException:
    """A failure worth retrying, logged now: while a task retries a record it writes nothing else, and
    this line (as Java's client logs each failed request) tells an operator which registry it waits for."""
    logger.warning("%s", message)
    return RetriableException(message)


def _untrusted_certificate(error: BaseException) -> str | None:
    """Why the registry's certificate was not trusted, when that is what ``error`` (an HTTP library's
    transport error, chained to the ``ssl`` error beneath it) comes down to."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ssl.SSLCertVerificationError):
            return current.verify_message or str(current)
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _refused_credentials(cause: BaseException | None) -> bool:
    return isinstance(cause, SchemaRegistryError) and cause.http_status_code in (401, 403)


def _new_client(settings: RegistrySettings, connect_s: float, read_s: float, retries: int) -> SchemaRegistryClient:
    conf = settings.client_conf()
    conf["max.retries"] = retries
    timeout = httpx.Timeout(read_s, connect=connect_s)
    conf["timeout"] = timeout
    client = SchemaRegistryClient(conf)
    if settings.tls is not None or settings.request_headers:
        # The client takes TLS as PEM file paths only and has no header setting: its HTTP session is
        # rebuilt with the context the REST TLS code made (PEM or PKCS12, host name checks) and the
        # headers, everything else as the client configured it.
        rest = client._rest_client
        rest.session.close()
        rest.session = httpx.Client(verify=settings.tls if settings.tls is not None else rest.verify,
                                    auth=rest.auth, proxy=rest.proxy, timeout=timeout,
                                    headers=dict(settings.request_headers))
    return client
