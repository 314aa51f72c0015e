"""Built-in HTTP Basic authentication for the REST API: our counterpart of Kafka's
``BasicAuthSecurityRestExtension`` (with its ``JaasBasicAuthFilter`` and ``PropertyFileLoginModule``).

Enable it with ``rest.extension.classes=`` Kafka's class name,
``org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension`` (or this class's Python name),
and name the credentials in the worker file, one of:

- ``rest.basic.auth.credentials.file``: the credentials file (see :mod:`rest.credentials`: Java
  properties, ``user: password``, plain or scrypt-hashed passwords);
- ``rest.basic.auth.jaas.config.file``: a JAAS file written for a Java worker (what Java reads from
  ``-Djava.security.auth.login.config``): its ``KafkaConnect`` entry must use Kafka's
  ``PropertyFileLoginModule`` with a ``file`` option, whose file is then read as above.

Every request a resource serves then needs ``Authorization: Basic <base64(user:password)>``; a missing,
malformed or wrong one is answered 401 with Java's body ``User cannot access the resource.`` (labelled
as the resource's answers are, ``application/json`` but ``text/plain`` for ``OPTIONS``, and without a
``WWW-Authenticate`` challenge, as Java's). A request no resource serves gets its 404 or 405 first, as
on Java, whose filter runs after Jersey matched one. The internal worker-to-worker endpoints (``POST
/connectors/{c}/tasks``, ``PUT /connectors/{c}/fence``) are exempt, as in Java: they are authenticated
by their KIP-507 signatures. Unlike Java, an empty credentials file refuses start-up (Java then lets
every request in).
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from collections.abc import Mapping
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from connect_runtime.api.errors import ConfigException
from connect_runtime.api.rest_extension import ConnectRestExtension, ConnectRestExtensionContext
from connect_runtime.config.properties import PropertiesError, load_properties
from rest.credentials import CredentialsError, CredentialStore
from rest.jersey_rules import is_served, response_media_type
from rest.middleware import HttpMiddleware

logger = logging.getLogger(__name__)

__all__ = [
    "CREDENTIALS_FILE_CONFIG",
    "JAAS_CONFIG_FILE_CONFIG",
    "JAVA_CLASS_NAME",
    "BasicAuthMiddleware",
    "BasicAuthSecurityRestExtension",
]

JAVA_CLASS_NAME = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
CREDENTIALS_FILE_CONFIG = "rest.basic.auth.credentials.file"
JAAS_CONFIG_FILE_CONFIG = "rest.basic.auth.jaas.config.file"
#: Every worker key of this extension (refused when the extension is not enabled).
CONFIG_KEYS = (CREDENTIALS_FILE_CONFIG, JAAS_CONFIG_FILE_CONFIG)

#: Java's ``JaasBasicAuthFilter`` body for a refused request.
UNAUTHORIZED_BODY = b"User cannot access the resource."
#: Java's login context name and the login module we can stand in for.
JAAS_ENTRY = "KafkaConnect"
PROPERTY_FILE_LOGIN_MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"

#: Requests exempt from authentication: the KIP-507-signed internal endpoints (JaasBasicAuthFilter's
#: INTERNAL_REQUEST_MATCHERS, on the decoded path).
_INTERNAL_REQUESTS = (
    ("POST", re.compile(r"/?connectors/([^/]+)/tasks/?")),
    ("PUT", re.compile(r"/?connectors/[^/]+/fence/?")),
)


def is_internal_request(method: str, path: str) -> bool:
    """Whether ``method path`` is a worker-to-worker request that signatures authenticate."""
    relative = path[1:] if path.startswith("/") else path
    return any(method == m and pattern.fullmatch(relative) for m, pattern in _INTERNAL_REQUESTS)


def parse_basic_credentials(header: str | None) -> tuple[str, str] | None:
    """``(user, password)`` from an ``Authorization`` header, or None when it is missing or not
    well-formed Basic credentials (JaasBasicAuthFilter's ``BasicAuthCredentials`` rules; a value
    that is not base64 is refused too, where Java answers 500)."""
    if header is None:
        return None
    space = header.find(" ")
    if space <= 0 or header[:space].lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(header[space + 1:], validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    colon = decoded.find(":")
    if colon <= 0:
        return None
    return decoded[:colon], decoded[colon + 1:]


class BasicAuthMiddleware(HttpMiddleware):
    """ASGI middleware: refuse (401) requests without valid Basic credentials, except internal ones.

    An authenticated request carries its user name in ``request.state.principal``.
    """

    def __init__(self, app: ASGIApp, store: CredentialStore) -> None:
        super().__init__(app)
        self.store = store

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if is_internal_request(scope["method"], scope["path"]) or not is_served(scope):
            # Java authenticates once Jersey has matched a resource: an unknown path or a method the
            # path does not serve gets its 404 or 405 first.
            await self.app(scope, receive, send)
            return
        headers = {name: bytes(value).decode("latin-1") for name, value in scope.get("headers", ())
                   if name in (b"authorization", b"accept")}
        credentials = parse_basic_credentials(headers.get(b"authorization"))
        if credentials is not None and await self._check(*credentials):
            scope.setdefault("state", {})["principal"] = credentials[0]
            await self.app(scope, receive, send)
            return
        # Debug only: a mistyped password must not flood the log (as Java); never log the password.
        logger.debug("Request %s %s failed authentication", scope["method"], scope["path"])
        # Labelled as the resource's answers would be (JSON, though it is not), as Java's.
        media_type = response_media_type(scope["method"], headers.get(b"accept")).encode("latin-1")
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", media_type), (b"content-length", str(len(UNAUTHORIZED_BODY)).encode())]})
        await send({"type": "http.response.body", "body": UNAUTHORIZED_BODY})


    async def _check(self, user: str, password: str) -> bool:
        known = self.store.quick_check(user, password)
        if known is not None:
            return known
        # Key derivation off the event loop: wrong passwords must not stall every other request.
        return await run_in_threadpool(self.store.check, user, password)


class BasicAuthSecurityRestExtension(ConnectRestExtension):
    """HTTP Basic authentication of every REST request (see the module docstring for the settings)."""

    def __init__(self) -> None:
        self._store: CredentialStore | None = None

    def configure(self, configs: Mapping[str, str]) -> None:
        """Read the credentials named by ``rest.basic.auth.credentials.file`` or
        ``rest.basic.auth.jaas.config.file``; raise :class:`ConfigException` naming the key if they
        cannot be used."""
        credentials_file = configs.get(CREDENTIALS_FILE_CONFIG, "").strip()
        jaas_file = configs.get(JAAS_CONFIG_FILE_CONFIG, "").strip()
        if credentials_file and jaas_file:
            raise ConfigException(f"Set only one of {CREDENTIALS_FILE_CONFIG} and {JAAS_CONFIG_FILE_CONFIG}")
        if jaas_file:
            key = JAAS_CONFIG_FILE_CONFIG
            credentials_file = _credentials_file_from_jaas(jaas_file)
        elif credentials_file:
            key = CREDENTIALS_FILE_CONFIG
        else:
            raise ConfigException(f"Basic authentication needs {CREDENTIALS_FILE_CONFIG} (or "
                                  f"{JAAS_CONFIG_FILE_CONFIG}) in the worker config")
        try:
            entries = load_properties(credentials_file)
        except (OSError, PropertiesError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise ConfigException(f"{key}: cannot read the credentials file {credentials_file}: {reason}") from None
        if not entries:
            raise ConfigException(f"{key}: the credentials file {credentials_file} lists no users")
        try:
            self._store = CredentialStore(entries)
        except CredentialsError as e:
            raise ConfigException(f"{key}: {credentials_file}: {e}") from None
        logger.info("Basic authentication of the REST API enabled for %d user(s)", len(self._store))

    def register(self, context: ConnectRestExtensionContext) -> None:
        """Put the authentication filter in front of the REST API."""
        if self._store is None:
            raise ConfigException("BasicAuthSecurityRestExtension was registered before it was configured")
        context.add_middleware(BasicAuthMiddleware, store=self._store)


# --- JAAS files ---------------------------------------------------------------------------------------

_JAAS_TOKEN = re.compile(r'\s+|//[^\n]*|/\*.*?\*/|"((?:[^"\\]|\\.)*)"|([{};=])|([^\s{};="]+)', re.S)


def _jaas_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        match = _JAAS_TOKEN.match(text, pos)
        if match is None:
            raise ConfigException(f"{JAAS_CONFIG_FILE_CONFIG}: cannot parse the JAAS file near: {text[pos:pos + 20]!r}")
        pos = match.end()
        quoted, punct, word = match.groups()
        if quoted is not None:
            tokens.append('"' + re.sub(r"\\(.)", r"\1", quoted))  # a leading '"' marks a quoted value
        elif punct is not None:
            tokens.append(punct)
        elif word is not None:
            tokens.append(word)
    return tokens


def _credentials_file_from_jaas(path: str) -> str:
    """The ``file`` option of the ``KafkaConnect`` entry's ``PropertyFileLoginModule`` in a JAAS file.

    Entries are ``Name { module.Class flag key=value ...; ... };``. Anything we cannot stand in for
    (another login module, more than one module, no ``file``) raises :class:`ConfigException`.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ConfigException(f"{JAAS_CONFIG_FILE_CONFIG}: cannot read the JAAS file {path}: {reason}") from None
    tokens = _jaas_tokens(text)
    entries: dict[str, list[tuple[str, dict[str, str]]]] = {}
    i = 0
    try:
        while i < len(tokens):
            name, brace = tokens[i], tokens[i + 1]
            if brace != "{":
                raise IndexError
            i += 2
            modules: list[tuple[str, dict[str, str]]] = []
            while tokens[i] != "}":
                module, _flag = tokens[i], tokens[i + 1]
                i += 2
                options: dict[str, str] = {}
                while tokens[i] != ";":
                    key, equals, value = tokens[i], tokens[i + 1], tokens[i + 2]
                    if equals != "=":
                        raise IndexError
                    options[key] = value.removeprefix('"')
                    i += 3
                i += 1
                modules.append((module, options))
            i += 1
            if i < len(tokens) and tokens[i] == ";":
                i += 1
            entries[name] = modules
    except IndexError:
        raise ConfigException(f"{JAAS_CONFIG_FILE_CONFIG}: {path} is not a valid JAAS file") from None
    found = entries.get(JAAS_ENTRY)
    if found is None:
        raise ConfigException(f"{JAAS_CONFIG_FILE_CONFIG}: {path} has no {JAAS_ENTRY} entry")
    if len(found) != 1 or found[0][0] != PROPERTY_FILE_LOGIN_MODULE:
        raise ConfigException(f"{JAAS_CONFIG_FILE_CONFIG}: the {JAAS_ENTRY} entry of {path} must name exactly one "
                              f"login module, {PROPERTY_FILE_LOGIN_MODULE}")
    file = found[0][1].get("file", "").strip()
    if not file:
        raise ConfigException(f"{JAAS_CONFIG_FILE_CONFIG}: the {JAAS_ENTRY} entry of {path} has no file option")
    return file
