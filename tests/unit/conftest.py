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
    """A client of the REST app on ``herder``; requests time out after half a second."""
    with TestClient(create_app(herder, request_timeout_s=0.5)) as c:
        yield c
