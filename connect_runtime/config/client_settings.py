"""Kafka client settings written for the Java clients, translated for librdkafka.

Worker files and connector configs written for Apache Kafka Connect carry Java client settings:
``producer.*``, ``consumer.*`` and ``admin.*`` worker keys, the top-level ``security.protocol``,
``sasl.*`` and ``ssl.*`` keys every client shares, and a connector's ``producer.override.*`` (etc.).
The runtime's clients are librdkafka's, which knows some of these names, spells others differently
and has no equivalent for the rest. :func:`translate_client_settings` turns one client's settings into
librdkafka's:

* a Java name with a librdkafka equivalent is renamed, its value converted where the formats differ
  (``buffer.memory`` bytes -> ``queue.buffering.max.kbytes``; a PLAIN or SCRAM ``sasl.jaas.config``
  -> ``sasl.username`` / ``sasl.password``; a PEM truststore -> ``ssl.ca.location`` ...);
* a name both clients share, and every librdkafka-only name, passes through unchanged;
* a Java-only setting whose value is what the runtime does anyway (the ByteArray serializers Connect
  forces, ``max.block.ms`` at Connect's "block until there is room") is dropped;
* anything else is a :class:`ClientSettingProblem`: the key, why it cannot be honoured and what to use
  instead. The worker refuses to start on one; a connector override is a validation error on its key.

The mapping is documented, as a table, in ``docs/operations.md`` ("Kafka client settings").
This module is pure: no client is built and no file is read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from connect_runtime.api.errors import ConfigException
from connect_runtime.api.override_policy import ClientType

__all__ = [
    "ClientSettingError",
    "ClientSettingProblem",
    "client_setting_problems",
    "translate_client_settings",
]


@dataclass(frozen=True)
class ClientSettingProblem:
    """A client setting that cannot be honoured: ``key`` as the client sees it (no ``producer.`` prefix),
    ``message`` one sentence saying why and what to use instead (never the value: it may be a secret)."""

    key: str
    message: str

    def line(self, prefix: str = "") -> str:
        """``<prefix><key>: <message>``, the one line an operator reads."""
        return f"{prefix}{self.key}: {self.message}"


class ClientSettingError(ConfigException):
    """A client setting cannot be translated for librdkafka; ``problem`` says which and why."""

    def __init__(self, problem: ClientSettingProblem, prefix: str = "") -> None:
        super().__init__(f"Unsupported Kafka client setting {problem.line(prefix)}")
        self.problem = problem
        self.key = prefix + problem.key


# --- librdkafka's own names (CONFIGURATION.md of the librdkafka the runtime ships with) ---------------
# Callback and pointer properties (names with "_", set from code only) are left out.

_RDK_GLOBAL: Final = frozenset({
    "allow.auto.create.topics", "api.version.fallback.ms", "api.version.request",
    "api.version.request.timeout.ms", "bootstrap.servers", "broker.address.family", "broker.address.ttl",
    "broker.version.fallback", "client.dns.lookup", "client.id", "client.rack",
    "connections.max.idle.ms", "debug", "enable.metrics.push", "enable.random.seed",
    "enable.sasl.oauthbearer.unsecure.jwt", "enable.ssl.certificate.verification", "https.ca.location",
    "https.ca.pem", "log.connection.close", "log.queue", "log.thread.name", "log_level", "max.in.flight",
    "max.in.flight.requests.per.connection", "message.copy.max.bytes", "message.max.bytes",
    "metadata.broker.list", "metadata.max.age.ms", "metadata.recovery.rebootstrap.trigger.ms",
    "metadata.recovery.strategy", "plugin.library.paths", "receive.message.max.bytes",
    "reconnect.backoff.jitter.ms", "reconnect.backoff.max.ms", "reconnect.backoff.ms",
    "retry.backoff.max.ms", "retry.backoff.ms", "sasl.kerberos.keytab", "sasl.kerberos.kinit.cmd",
    "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal", "sasl.kerberos.service.name",
    "sasl.mechanism", "sasl.mechanisms", "sasl.oauthbearer.assertion.algorithm",
    "sasl.oauthbearer.assertion.claim.aud", "sasl.oauthbearer.assertion.claim.exp.seconds",
    "sasl.oauthbearer.assertion.claim.iss", "sasl.oauthbearer.assertion.claim.jti.include",
    "sasl.oauthbearer.assertion.claim.nbf.seconds", "sasl.oauthbearer.assertion.claim.sub",
    "sasl.oauthbearer.assertion.file", "sasl.oauthbearer.assertion.jwt.template.file",
    "sasl.oauthbearer.assertion.private.key.file", "sasl.oauthbearer.assertion.private.key.passphrase",
    "sasl.oauthbearer.assertion.private.key.pem", "sasl.oauthbearer.client.credentials.client.id",
    "sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.client.id",
    "sasl.oauthbearer.client.secret", "sasl.oauthbearer.config", "sasl.oauthbearer.extensions",
    "sasl.oauthbearer.grant.type", "sasl.oauthbearer.metadata.authentication.type",
    "sasl.oauthbearer.method", "sasl.oauthbearer.scope", "sasl.oauthbearer.sub.claim.name",
    "sasl.oauthbearer.token.endpoint.url", "sasl.password", "sasl.username", "security.protocol",
    "socket.blocking.max.ms", "socket.connection.setup.timeout.ms", "socket.keepalive.enable",
    "socket.max.fails", "socket.nagle.disable", "socket.receive.buffer.bytes", "socket.send.buffer.bytes",
    "socket.timeout.ms", "ssl.ca.certificate.stores", "ssl.ca.location", "ssl.ca.pem",
    "ssl.certificate.location", "ssl.certificate.pem", "ssl.cipher.suites", "ssl.crl.location",
    "ssl.curves.list", "ssl.endpoint.identification.algorithm", "ssl.engine.id", "ssl.engine.location",
    "ssl.key.location", "ssl.key.password", "ssl.key.pem", "ssl.keystore.location",
    "ssl.keystore.password", "ssl.providers", "ssl.sigalgs.list", "statistics.interval.ms",
    "topic.blacklist", "topic.metadata.propagation.max.ms", "topic.metadata.refresh.fast.cnt",
    "topic.metadata.refresh.fast.interval.ms", "topic.metadata.refresh.interval.ms",
    "topic.metadata.refresh.sparse",
})
_RDK_PRODUCER: Final = frozenset({
    "acks", "batch.num.messages", "batch.size", "compression.codec", "compression.level",
    "compression.type", "delivery.report.only.error", "delivery.timeout.ms", "enable.gapless.guarantee",
    "enable.idempotence", "linger.ms", "message.send.max.retries", "message.timeout.ms", "partitioner",
    "produce.offset.report", "queue.buffering.backpressure.threshold", "queue.buffering.max.kbytes",
    "queue.buffering.max.messages", "queue.buffering.max.ms", "queuing.strategy", "request.required.acks",
    "request.timeout.ms", "retries", "sticky.partitioning.linger.ms", "transaction.timeout.ms",
    "transactional.id",
})
_RDK_CONSUMER: Final = frozenset({
    "auto.commit.enable", "auto.commit.interval.ms", "auto.offset.reset", "check.crcs",
    "consume.callback.max.messages", "coordinator.query.interval.ms", "enable.auto.commit",
    "enable.auto.offset.store", "enable.partition.eof", "fetch.error.backoff.ms", "fetch.max.bytes",
    "fetch.message.max.bytes", "fetch.min.bytes", "fetch.queue.backoff.ms", "fetch.wait.max.ms",
    "group.id", "group.instance.id", "group.protocol", "group.protocol.type", "group.remote.assignor",
    "heartbeat.interval.ms", "isolation.level", "max.partition.fetch.bytes", "max.poll.interval.ms",
    "offset.store.method", "offset.store.path", "offset.store.sync.interval.ms",
    "partition.assignment.strategy", "queued.max.messages.kbytes", "queued.min.messages",
    "session.timeout.ms",
})

#: librdkafka aliases, folded onto the spelling the runtime itself sets (the one Java shares), so that
#: the runtime's own defaults (``setdefault("linger.ms", ...)``) never fight an operator's value spelt
#: the other way.
_RDK_ALIASES: Final[Mapping[str, str]] = {
    "queue.buffering.max.ms": "linger.ms",
    "request.required.acks": "acks",
    "message.send.max.retries": "retries",
    "message.timeout.ms": "delivery.timeout.ms",
    "compression.codec": "compression.type",
    "fetch.message.max.bytes": "max.partition.fetch.bytes",
    "max.in.flight": "max.in.flight.requests.per.connection",
    "sasl.mechanism": "sasl.mechanisms",
    "metadata.broker.list": "bootstrap.servers",
    "auto.commit.enable": "enable.auto.commit",
}

# --- Java names --------------------------------------------------------------------------------------

_P, _C, _A = ClientType.PRODUCER, ClientType.CONSUMER, ClientType.ADMIN
_ALL: Final = frozenset(ClientType)

#: Java names renamed for librdkafka, value unchanged: Java name -> (librdkafka name, kinds).
_RENAMED: Final[Mapping[str, tuple[str, frozenset[ClientType]]]] = {
    "max.request.size": ("message.max.bytes", frozenset({_P})),
    "fetch.max.wait.ms": ("fetch.wait.max.ms", frozenset({_C})),
}

#: Java-only settings: key -> what to use instead. Values are never accepted (see _DROPPED_IF for the
#: few whose value may match what the runtime does anyway).
_NO_EQUIVALENT: Final[Mapping[str, str]] = {
    "interceptor.classes": "Java client interceptors cannot run in librdkafka; remove it",
    "metric.reporters": "Java metrics reporters cannot run in librdkafka; remove it (librdkafka reports "
                        "through statistics.interval.ms)",
    "metrics.num.samples": "Java client metrics do not exist in librdkafka; remove it",
    "metrics.sample.window.ms": "Java client metrics do not exist in librdkafka; remove it",
    "metrics.recording.level": "Java client metrics do not exist in librdkafka; remove it",
    "auto.include.jmx.reporter": "there is no JMX in librdkafka; remove it",
    "partitioner.ignore.keys": "librdkafka has no such switch; choose librdkafka's partitioner "
                               "(partitioner=random spreads records regardless of the key)",
    "partitioner.adaptive.partitioning.enable": "librdkafka has no adaptive partitioning; remove it",
    "partitioner.availability.timeout.ms": "librdkafka has no adaptive partitioning; remove it",
    "default.api.timeout.ms": "librdkafka has no client-wide API timeout; use socket.timeout.ms",
    "exclude.internal.topics": "the runtime's consumers never subscribe by pattern; remove it",
    "socket.connection.setup.timeout.max.ms": "librdkafka has a single connection set-up timeout; "
                                              "use socket.connection.setup.timeout.ms",
    "metadata.max.idle.ms": "librdkafka has no such setting; use topic.metadata.refresh.interval.ms",
    "security.providers": "librdkafka uses OpenSSL; see ssl.providers",
    "max.poll.records": "the runtime's consumers take what each fetch returns (librdkafka's "
                        "max.poll.records is for share consumers only); use fetch.max.bytes or "
                        "max.partition.fetch.bytes",
    "transaction.two.phase.commit.enable": "librdkafka has no two-phase commit; remove it",
    "sasl.client.callback.handler.class": "Java callback handlers cannot run in librdkafka; use "
                                          "sasl.jaas.config with PLAIN or SCRAM, or librdkafka's "
                                          "sasl.oauthbearer.* settings",
    "sasl.login.class": "Java login classes cannot run in librdkafka; use sasl.jaas.config with PLAIN or "
                        "SCRAM, or librdkafka's sasl.oauthbearer.* settings",
    "sasl.login.callback.handler.class": "Java callback handlers cannot run in librdkafka; for OAuth use "
                                         "librdkafka's sasl.oauthbearer.method=oidc and sasl.oauthbearer.*",
    "ssl.engine.factory.class": "Java SSL engines cannot run in librdkafka; see ssl.engine.location",
    "ssl.provider": "librdkafka uses OpenSSL; see ssl.providers",
    "ssl.secure.random.implementation": "librdkafka uses OpenSSL's random generator; remove it",
}

#: Java-only prefixes with no equivalent (same shape as _NO_EQUIVALENT).
_NO_EQUIVALENT_PREFIXES: Final[Mapping[str, str]] = {
    "sasl.login.": "Java's login refresh and retry settings have no librdkafka equivalent; remove it "
                   "(for OAuth use librdkafka's sasl.oauthbearer.* settings)",
    "sasl.kerberos.ticket.": "librdkafka renews Kerberos tickets with sasl.kerberos.kinit.cmd every "
                             "sasl.kerberos.min.time.before.relogin; remove it",
    "sasl.oauthbearer.": "this Java OAuth setting has no librdkafka equivalent; use librdkafka's "
                         "sasl.oauthbearer.* settings",
    "metrics.context.": "Java client metrics do not exist in librdkafka; remove it",
}

_LONG_MAX: Final = str(2**63 - 1)
_BYTE_ARRAY_SERIALIZER: Final = "org.apache.kafka.common.serialization.ByteArraySerializer"
_BYTE_ARRAY_DESERIALIZER: Final = "org.apache.kafka.common.serialization.ByteArrayDeserializer"

#: Java-only settings accepted only with the one value the runtime honours anyway, then dropped:
#: key -> (accepted values, kinds, why other values cannot be honoured and what to use instead).
_DROPPED_IF: Final[Mapping[str, tuple[frozenset[str], frozenset[ClientType], str]]] = {
    "key.serializer": (frozenset({_BYTE_ARRAY_SERIALIZER}), frozenset({_P}),
                       "the runtime hands the producer bytes its converters made; choose the format "
                       "with key.converter"),
    "value.serializer": (frozenset({_BYTE_ARRAY_SERIALIZER}), frozenset({_P}),
                         "the runtime hands the producer bytes its converters made; choose the format "
                         "with value.converter"),
    "key.deserializer": (frozenset({_BYTE_ARRAY_DESERIALIZER}), frozenset({_C}),
                         "the runtime reads raw bytes; remove it"),
    "value.deserializer": (frozenset({_BYTE_ARRAY_DESERIALIZER}), frozenset({_C}),
                           "the runtime reads raw bytes; remove it"),
    "max.block.ms": (frozenset({_LONG_MAX}), frozenset({_P}),
                     "librdkafka never blocks a send: the runtime waits for room in the producer's queue "
                     f"as long as the task runs (Connect's default, {_LONG_MAX}); size the queue with "
                     "buffer.memory and bound delivery with delivery.timeout.ms"),
    "ssl.keymanager.algorithm": (frozenset({"SunX509", "PKIX"}), _ALL,
                                 "librdkafka uses OpenSSL, which has no key manager algorithms; remove it"),
    "ssl.trustmanager.algorithm": (frozenset({"PKIX"}), _ALL,
                                   "librdkafka uses OpenSSL, which has no trust manager algorithms; remove it"),
    "ssl.protocol": (frozenset({"TLS", "TLSv1.2", "TLSv1.3"}), _ALL,
                     "librdkafka negotiates TLS 1.2 or 1.3 with OpenSSL; remove it"),
}

#: Java partition assignors -> librdkafka's names.
_ASSIGNORS: Final[Mapping[str, str]] = {
    "org.apache.kafka.clients.consumer.RangeAssignor": "range",
    "org.apache.kafka.clients.consumer.RoundRobinAssignor": "roundrobin",
    "org.apache.kafka.clients.consumer.CooperativeStickyAssignor": "cooperative-sticky",
}

_TLS_DEFAULT_PROTOCOLS: Final = frozenset({"TLSv1.2", "TLSv1.3"})
_JAAS_PLAIN: Final = "org.apache.kafka.common.security.plain.PlainLoginModule"
_JAAS_SCRAM: Final = "org.apache.kafka.common.security.scram.ScramLoginModule"
_JAAS_HINTS: Final[Mapping[str, str]] = {
    "com.sun.security.auth.module.Krb5LoginModule":
        "set librdkafka's sasl.kerberos.keytab and sasl.kerberos.principal instead",
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule":
        "set librdkafka's sasl.oauthbearer.method=oidc, sasl.oauthbearer.client.id, "
        "sasl.oauthbearer.client.secret and sasl.oauthbearer.token.endpoint.url instead",
}
_IANA_CIPHER = re.compile(r"\b(?:TLS|SSL)_\w+_WITH_\w+")


class _Translation:
    """One pass over one client's settings: ``out`` the librdkafka settings, ``problems`` the refusals."""

    def __init__(self, settings: Mapping[str, Any], kind: ClientType) -> None:
        self.kind = kind
        self.pending = {k: v for k, v in settings.items()}
        self.out: dict[str, Any] = {}
        self.problems: list[ClientSettingProblem] = []

    def refuse(self, key: str, message: str) -> None:
        self.problems.append(ClientSettingProblem(key, message))

    def take(self, key: str) -> str | None:
        """Remove ``key`` from what is left to translate; its value as a trimmed string (None if unset)."""
        value = self.pending.pop(key, None)
        return None if value is None else str(value).strip()

    def put(self, key: str, value: Any, source: str) -> None:
        if key in self.out and str(self.out[key]) != str(value):
            self.refuse(source, f"sets {key}, which another setting of this client sets differently; "
                                "keep one of them")
            return
        self.out[key] = value

    def wrong_kind(self, key: str, kinds: frozenset[ClientType]) -> bool:
        if self.kind in kinds:
            return False
        names = " and ".join(sorted(k.value + "s" for k in kinds))
        article = "an" if self.kind is ClientType.ADMIN else "a"
        self.refuse(key, f"applies to {names} only and has no effect on {article} {self.kind.value} client; "
                         "remove it")
        return True


def _translate(settings: Mapping[str, Any], kind: ClientType) -> _Translation:
    t = _Translation(settings, kind)
    _sasl_jaas(t)
    _truststore(t)
    _keystore(t)
    _compression(t)
    for key in list(t.pending):
        if key in t.pending:
            _one(t, key)
    return t


def _one(t: _Translation, key: str) -> None:
    raw = t.pending[key]
    value = t.take(key)
    assert value is not None
    if key in _RENAMED:
        name, kinds = _RENAMED[key]
        if not t.wrong_kind(key, kinds):
            t.put(name, value, key)
    elif key in _DROPPED_IF:
        accepted, kinds, why = _DROPPED_IF[key]
        if not t.wrong_kind(key, kinds) and value not in accepted:
            t.refuse(key, f"has no librdkafka equivalent: {why}")
    elif key in _NO_EQUIVALENT:
        t.refuse(key, f"is a Java client setting with no librdkafka equivalent: {_NO_EQUIVALENT[key]}")
    elif key == "buffer.memory":
        if not t.wrong_kind(key, frozenset({_P})):
            size = _non_negative_int(t, key, value)
            if size is not None:
                t.put("queue.buffering.max.kbytes", str(max(1, math.ceil(size / 1024))), key)
    elif key in ("send.buffer.bytes", "receive.buffer.bytes"):
        size = _int(t, key, value)
        if size is not None:  # Java's -1 (the OS default) is librdkafka's 0
            t.put(f"socket.{key}", str(0 if size == -1 else size), key)
    elif key == "request.timeout.ms":
        # Java's timeout of every request; librdkafka's request.timeout.ms is the producer's ack timeout
        # and socket.timeout.ms the timeout of every other request.
        t.put("request.timeout.ms" if t.kind is _P else "socket.timeout.ms", value, key)
    elif key == "auto.offset.reset":
        if not t.wrong_kind(key, frozenset({_C})):
            if value.lower() == "none":
                t.put(key, "error", key)
            elif value.lower().startswith("by_duration"):
                t.refuse(key, "by_duration has no librdkafka equivalent; use earliest or latest")
            else:
                t.put(key, value, key)
    elif key == "ssl.endpoint.identification.algorithm":
        t.put(key, "none" if value == "" else value, key)
    elif key == "ssl.enabled.protocols":
        protocols = {p.strip() for p in value.split(",") if p.strip()}
        if not protocols >= _TLS_DEFAULT_PROTOCOLS:
            t.refuse(key, "librdkafka negotiates TLS 1.2 or 1.3 with OpenSSL and cannot be restricted to "
                          "fewer protocols; remove it")
    elif key == "ssl.cipher.suites":
        if _IANA_CIPHER.search(value):
            t.refuse(key, "Java (IANA) cipher suite names are not understood by OpenSSL; use OpenSSL names "
                          "(e.g. ECDHE-RSA-AES256-GCM-SHA384, see ciphers(1)), separated by ':'")
        else:
            t.put(key, value, key)
    elif key == "sasl.kerberos.kinit.cmd":
        if " " not in value:  # Java's is the path of kinit, librdkafka's the whole command
            t.refuse(key, "librdkafka's sasl.kerberos.kinit.cmd is the whole shell command, not the path of "
                          "kinit; remove it to use librdkafka's default command, or write the full command")
        else:
            t.put(key, value, key)
    elif key == "partition.assignment.strategy":
        if not t.wrong_kind(key, frozenset({_C})):
            names = []
            for name in (n.strip() for n in value.split(",") if n.strip()):
                if "." in name and name not in _ASSIGNORS:
                    t.refuse(key, f"the partition assignor {name} has no librdkafka equivalent; use range, "
                                  "roundrobin or cooperative-sticky")
                    return
                names.append(_ASSIGNORS.get(name, name))
            t.put(key, ",".join(names), key)
    elif key.startswith(("ssl.truststore.", "ssl.keystore.")):
        t.refuse(key, "is a Java keystore setting with no librdkafka equivalent; see ssl.keystore.location "
                      "and ssl.truststore.location")
    else:
        _librdkafka_name(t, key, raw)


def _librdkafka_name(t: _Translation, key: str, raw: Any) -> None:
    """A name librdkafka knows passes through (aliases folded); any other is refused."""
    name = _RDK_ALIASES.get(key, key)
    if name in _RDK_GLOBAL:
        t.put(name, raw, key)
        return
    if name in _RDK_PRODUCER or name in _RDK_CONSUMER:
        kinds = frozenset({_P}) if name in _RDK_PRODUCER else frozenset({_C})
        if not t.wrong_kind(key, kinds):
            t.put(name, raw, key)
        return
    for prefix, hint in _NO_EQUIVALENT_PREFIXES.items():
        if key.startswith(prefix):
            t.refuse(key, f"is a Java client setting with no librdkafka equivalent: {hint}")
            return
    t.refuse(key, "is neither a Kafka client setting the runtime translates nor a librdkafka setting; "
                  "remove it, or use the librdkafka setting that does what you need "
                  "(see \"Kafka client settings\" in the operations guide)")


def _int(t: _Translation, key: str, value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        t.refuse(key, "must be an integer")
        return None


def _non_negative_int(t: _Translation, key: str, value: str) -> int | None:
    number = _int(t, key, value)
    if number is not None and number < 0:
        t.refuse(key, "must be at least 0")
        return None
    return number


# --- settings translated together ------------------------------------------------------------------------


def _sasl_jaas(t: _Translation) -> None:
    jaas = t.take("sasl.jaas.config")
    if jaas is None:
        return
    try:
        module, options = parse_jaas_config(jaas)
    except ValueError as e:
        t.refuse("sasl.jaas.config", f"{e}")
        return
    if module in (_JAAS_PLAIN, _JAAS_SCRAM):
        extra = sorted(set(options) - {"username", "password"})
        if "username" not in options or "password" not in options:
            t.refuse("sasl.jaas.config", f"{module.rsplit('.', 1)[-1]} needs username and password options")
        elif extra:
            t.refuse("sasl.jaas.config", f"the {module.rsplit('.', 1)[-1]} option(s) {', '.join(extra)} have no "
                                         "librdkafka equivalent (only username and password are translated)")
        else:
            t.put("sasl.username", options["username"], "sasl.jaas.config")
            t.put("sasl.password", options["password"], "sasl.jaas.config")
        return
    hint = _JAAS_HINTS.get(module, "only PlainLoginModule and ScramLoginModule are translated")
    t.refuse("sasl.jaas.config", f"the login module {module} cannot run in librdkafka: {hint}")


_JAAS_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s=;"]+)|(=)|(;))', re.DOTALL)


def parse_jaas_config(text: str) -> tuple[str, dict[str, str]]:
    """Parse a ``sasl.jaas.config`` value: exactly one login module, as Kafka's ``JaasConfig`` reads it.

    ``<LoginModuleClass> <required|requisite|sufficient|optional> [name=value ...];`` where a value is a
    word or a double-quoted string (backslash escapes the next character). Returns the login module's
    class name and its options. Raises :class:`ValueError` (a message without any option value).
    """
    tokens: list[tuple[str, str]] = []  # (kind, text): kind is "word", "quoted", "=", ";"
    pos = 0
    while pos < len(text):
        if not text[pos:].strip():
            break
        m = _JAAS_TOKEN.match(text, pos)
        if m is None:
            raise ValueError("is not a valid JAAS configuration (unbalanced quotes?)")
        quoted, word, equals, semi = m.groups()
        if quoted is not None:
            tokens.append(("quoted", re.sub(r"\\(.)", r"\1", quoted, flags=re.DOTALL)))
        elif word is not None:
            tokens.append(("word", word))
        elif equals is not None:
            tokens.append(("=", "="))
        elif semi is not None:
            tokens.append((";", ";"))
        pos = m.end()
    if len(tokens) < 3 or tokens[0][0] != "word" or tokens[1][0] != "word":
        raise ValueError("is not a valid JAAS configuration: expected '<LoginModule> required ... ;'")
    module, flag = tokens[0][1], tokens[1][1]
    if flag.lower() not in ("required", "requisite", "sufficient", "optional"):
        raise ValueError(f"is not a valid JAAS configuration: invalid control flag {flag}")
    options: dict[str, str] = {}
    i = 2
    while i < len(tokens) and tokens[i][0] != ";":
        if i + 2 >= len(tokens) or tokens[i][0] != "word" or tokens[i + 1][0] != "=" \
                or tokens[i + 2][0] not in ("word", "quoted"):
            raise ValueError("is not a valid JAAS configuration: expected name=value options")
        options[tokens[i][1]] = tokens[i + 2][1]
        i += 3
    if i >= len(tokens):
        raise ValueError("is not a valid JAAS configuration: it must end with ';'")
    if i != len(tokens) - 1:
        raise ValueError("must contain exactly one login module")
    return module, options


def _truststore(t: _Translation) -> None:
    store_type = (t.take("ssl.truststore.type") or "JKS").upper()
    location = t.take("ssl.truststore.location")
    certificates = t.take("ssl.truststore.certificates")
    password = t.take("ssl.truststore.password")
    if location is None and certificates is None:
        if password:
            t.refuse("ssl.truststore.password", "is set without ssl.truststore.location; remove it")
        return
    key = "ssl.truststore.location" if location is not None else "ssl.truststore.certificates"
    if store_type != "PEM":
        t.refuse(key, f"a {store_type} truststore cannot be read by librdkafka; convert it to PEM "
                      "(e.g. keytool -exportcert -rfc) and set ssl.truststore.type=PEM, or set ssl.ca.location")
        return
    if password:
        t.refuse("ssl.truststore.password", "a PEM truststore has no password; remove it")
        return
    if location is not None:
        t.put("ssl.ca.location", location, key)
    if certificates is not None:
        t.put("ssl.ca.pem", certificates, key)


def _keystore(t: _Translation) -> None:
    if "ssl.keystore.location" in t.pending or "ssl.keystore.certificate.chain" in t.pending \
            or "ssl.keystore.key" in t.pending or "ssl.keystore.type" in t.pending:
        store_type = (t.take("ssl.keystore.type") or "JKS").upper()
    else:
        return
    location = t.take("ssl.keystore.location")
    chain = t.take("ssl.keystore.certificate.chain")
    pem_key = t.take("ssl.keystore.key")
    password = t.take("ssl.keystore.password")
    if location is None and chain is None and pem_key is None:
        if password:
            t.refuse("ssl.keystore.password", "is set without ssl.keystore.location; remove it")
        return
    if store_type == "PKCS12":
        if location is None:
            t.refuse("ssl.keystore.type", "a PKCS12 keystore needs ssl.keystore.location")
            return
        key_password = t.pending.get("ssl.key.password")
        if key_password is not None and str(key_password).strip() != (password or ""):
            t.refuse("ssl.key.password", "librdkafka reads a PKCS12 keystore with ssl.keystore.password alone; "
                                         "re-export the keystore with one password")
            return
        t.pending.pop("ssl.key.password", None)
        t.put("ssl.keystore.location", location, "ssl.keystore.location")
        if password:
            t.put("ssl.keystore.password", password, "ssl.keystore.password")
        return
    if store_type != "PEM":
        t.refuse("ssl.keystore.location", f"a {store_type} keystore cannot be read by librdkafka; convert it to "
                                          "PKCS12 (keytool -importkeystore -deststoretype PKCS12) and set "
                                          "ssl.keystore.type=PKCS12, or to PEM")
        return
    if password:
        t.refuse("ssl.keystore.password", "a PEM keystore has no store password (use ssl.key.password for an "
                                          "encrypted key); remove it")
        return
    if location is not None:
        # One PEM file holding the private key and the certificate chain: librdkafka reads each part.
        t.put("ssl.certificate.location", location, "ssl.keystore.location")
        t.put("ssl.key.location", location, "ssl.keystore.location")
    else:
        if chain is None or pem_key is None:
            t.refuse("ssl.keystore.key" if pem_key is None else "ssl.keystore.certificate.chain",
                     "a PEM keystore needs both ssl.keystore.certificate.chain and ssl.keystore.key")
            return
        t.put("ssl.certificate.pem", chain, "ssl.keystore.certificate.chain")
        t.put("ssl.key.pem", pem_key, "ssl.keystore.key")


def _compression(t: _Translation) -> None:
    """``compression.<codec>.level`` (Java 3.8+) -> librdkafka's single ``compression.level``.

    Only the level of the codec in use applies (as in Java); the others are dropped."""
    level_keys = [k for k in t.pending if re.fullmatch(r"compression\.(gzip|lz4|zstd)\.level", k)]
    if not level_keys:
        return
    codec = str(t.pending.get("compression.type", t.pending.get("compression.codec", "none"))).strip().lower()
    for key in level_keys:
        value = t.take(key)
        if t.wrong_kind(key, frozenset({_P})) or value is None:
            continue
        if key == f"compression.{codec}.level":
            t.put("compression.level", value, key)


# --- public API ------------------------------------------------------------------------------------------


def translate_client_settings(settings: Mapping[str, Any], kind: ClientType | str,
                              prefix: str = "") -> dict[str, Any]:
    """``settings`` (Java or librdkafka names) for a ``kind`` client, as librdkafka settings.

    Raises :class:`ClientSettingError` about the first setting that cannot be honoured; ``prefix`` is
    put before its key in the message (``"producer."`` when the settings came from ``producer.*``
    worker keys).
    """
    t = _translate(settings, ClientType(kind))
    if t.problems:
        raise ClientSettingError(t.problems[0], prefix)
    return t.out


def client_setting_problems(settings: Mapping[str, Any], kind: ClientType | str) -> list[ClientSettingProblem]:
    """Every setting of ``settings`` that cannot be honoured by a ``kind`` client (empty: all fine)."""
    return _translate(settings, ClientType(kind)).problems
