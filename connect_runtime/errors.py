"""Errors that carry the HTTP status the REST API answers with (Kafka Connect's mapping).

Raised by the herder API (``cluster``) and ``rest`` only, which the import contracts check: storage,
worker and plugin code raise plain ``ConnectException``s, which the herder or the REST layer maps.
"""

from __future__ import annotations

from connect_runtime.api.errors import ConnectException


class HttpStatusError(ConnectException):
    """An error with an HTTP status; the REST layer renders ``{"error_code": status, "message": ...}``."""

    status: int = 500

    def __init__(self, message: str, status: int | None = None, log_message: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: What the log shows instead of ``message`` when that echoes values that may be secret.
        self.log_message = log_message if log_message is not None else message
        if status is not None:
            self.status = status


class NotFoundHttpError(HttpStatusError):
    """The connector, task or plugin does not exist (404)."""

    status = 404


class AlreadyExistsHttpError(HttpStatusError):
    """The connector already exists (409)."""

    status = 409


class BadRequestHttpError(HttpStatusError):
    """The request is invalid (400)."""

    status = 400


class ConflictHttpError(HttpStatusError):
    """A conflicting operation (e.g. a rebalance) prevents the request now (409)."""

    status = 409


class NotLeaderHttpError(HttpStatusError):
    """This worker is not the leader; ``leader_url`` (if known) is where to forward."""

    status = 409

    def __init__(self, message: str, leader_url: str | None) -> None:
        super().__init__(message)
        self.leader_url = leader_url


class RequestTimeoutHttpError(HttpStatusError):
    """The herder did not complete the request within the REST timeout (500, as the reference)."""

    status = 500


class NotAssignedHttpError(HttpStatusError):
    """The connector or task runs on another worker; ``owner_url`` (if known) is where to forward."""

    status = 409

    def __init__(self, message: str, owner_url: str | None) -> None:
        super().__init__(message)
        self.owner_url = owner_url


class ServiceUnavailableHttpError(HttpStatusError):
    """The worker cannot serve the request yet (e.g. no session key read yet: 503)."""

    status = 503


class ForbiddenHttpError(HttpStatusError):
    """An internal request's signature does not verify (403)."""

    status = 403
