"""Exceptions a plugin may raise or catch."""


class ConnectException(Exception):
    """A Connect error; raised from a task or connector it fails that task or connector."""


class RetriableException(ConnectException):
    """A transient failure: the runtime may retry the operation (e.g. the next ``poll``)."""


class DataException(ConnectException):
    """Data could not be converted or is malformed."""


class ConfigException(ConnectException):
    """A configuration value is missing or invalid."""

    def __init__(self, name: str, value: object = None, message: str | None = None) -> None:
        super().__init__(name if message is None else f"Invalid value {value} for configuration {name}: {message}")
        self.name = name
        self.value = value
