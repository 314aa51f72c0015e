"""Fixtures of the REST unit tests: the app of ``rest/`` on a :class:`FakeHerder`, with no broker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_herder import FakeHerder
from fastapi.testclient import TestClient

from rest.app import create_app


@pytest.fixture
def herder() -> FakeHerder:
    return FakeHerder()


@pytest.fixture
def client(herder: FakeHerder) -> Iterator[TestClient]:
    """A client of the REST app on ``herder``, with a request timeout no loaded machine reaches."""
    with TestClient(create_app(herder, request_timeout_s=30.0)) as c:
        yield c


@pytest.fixture
def impatient_client(herder: FakeHerder) -> Iterator[TestClient]:
    """A client whose requests time out after half a second, for the tests of that timeout."""
    with TestClient(create_app(herder, request_timeout_s=0.5)) as c:
        yield c
