"""Fixtures of the API tests: clients logged in as a given user, and fresh throttles."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def fresh_throttles():
    """Throttle counters live in the cache; no test may inherit another's requests."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def client_for():
    """`client_for(user)`: an API client authenticated as `user` (None: anonymous)."""

    def make(user=None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make
