"""Throttling: anonymous callers are counted by address, logged-in ones by user, each at the
rate of its settings; one over the rate is 429 with the error body and a Retry-After. The
rules calculators (open to anyone, and they take CPU) have rates of their own."""

import pytest
from django.conf import settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db]

CALCULATOR = "/api/v1/rules/dice/commit/"  # open to anyone, so anonymous calls count
SEED = {"seed": "00" * 32}


def allowed(rate: str) -> int:
    """How many requests a rate such as "60/minute" lets through."""
    return int(rate.split("/")[0])


def statuses(client: APIClient, count: int, url: str = CALCULATOR) -> list[int]:
    return [client.post(url, SEED, format="json").status_code for _ in range(count)]


@pytest.fixture
def small_user_rate(monkeypatch):
    """A user rate of 5 a minute, so the authenticated tests send few requests (DRF reads
    the rates once, into the throttle class, not from the settings at each request)."""
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES",
                        {**SimpleRateThrottle.THROTTLE_RATES, "user": "5/minute"})


def test_the_rates_come_from_the_settings():
    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] == SimpleRateThrottle.THROTTLE_RATES
    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] == {
        "anon": "60/minute", "user": "600/minute", "calculator_anon": "20/minute",
        "calculator_user": "120/minute",
    }


def test_an_anonymous_caller_gets_429_one_over_the_calculator_anon_rate(monkeypatch):
    # A stopped clock: the wait is then the whole minute.
    monkeypatch.setattr(SimpleRateThrottle, "timer", staticmethod(lambda: 1_000_000.0))
    limit = allowed(SimpleRateThrottle.THROTTLE_RATES["calculator_anon"])
    client = APIClient()
    assert statuses(client, limit) == [200] * limit
    response = client.post(CALCULATOR, SEED, format="json")
    assert (response.status_code, response.json(), response["Retry-After"]) == (
        429, {"code": "throttled", "detail": "Request was throttled. Expected available in 60 "
              "seconds.", "field": None}, "60")


def test_the_calculator_anon_rate_counts_per_address():
    limit = allowed(SimpleRateThrottle.THROTTLE_RATES["calculator_anon"])
    first = APIClient(REMOTE_ADDR="192.0.2.1")
    statuses(first, limit)
    assert (first.post(CALCULATOR, SEED, format="json").status_code,
            APIClient(REMOTE_ADDR="192.0.2.2").post(CALCULATOR, SEED, format="json").status_code
            ) == (429, 200)


def test_a_logged_in_user_is_not_held_to_the_anon_rate():
    limit = allowed(SimpleRateThrottle.THROTTLE_RATES["calculator_anon"])
    statuses(APIClient(), limit + 1)  # the address is now throttled for anonymous calls
    client = APIClient()
    client.force_authenticate(UserFactory())
    assert statuses(client, limit + 1) == [200] * (limit + 1)


@pytest.mark.usefixtures("small_user_rate")
def test_a_user_gets_429_one_over_the_user_rate_on_any_endpoint():
    client = APIClient()
    client.force_authenticate(UserFactory())
    got = [client.get("/api/v1/notifications/unread-count/").status_code for _ in range(3)]
    got += statuses(client, 2)  # the calculators count towards the user's rate too
    response = client.get("/api/v1/campaigns/")
    assert (got, response.status_code, response.json()["code"]) == (
        [200] * 5, 429, "throttled"
    )


@pytest.mark.usefixtures("small_user_rate")
def test_the_user_rate_counts_per_user_whatever_the_token_or_address():
    from accounts.services import api_token_create

    user = UserFactory()
    key = api_token_create(user=user)
    for address in ("192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "192.0.2.5"):
        APIClient(REMOTE_ADDR=address).get("/api/v1/campaigns/",
                                           HTTP_AUTHORIZATION=f"Token {key}")
    by_token = APIClient(REMOTE_ADDR="192.0.2.6").get("/api/v1/campaigns/",
                                                      HTTP_AUTHORIZATION=f"Token {key}")
    other = APIClient(REMOTE_ADDR="192.0.2.6")
    other.force_authenticate(UserFactory())
    assert (by_token.status_code, other.get("/api/v1/campaigns/").status_code) == (429, 200)


SHOW_CACHE = ("import django; from django.conf import settings as s; django.setup(); "
              "c = s.CACHES['default']; print(c['BACKEND'], c.get('LOCATION', ''))")


@pytest.mark.parametrize(("redis_url", "expected"), [
    # Under docker compose: one Redis cache, so every gunicorn worker counts the same calls
    # (Django's Redis cache that fails open: see tests/config/test_outages.py).
    ("redis://redis:6379/0", "config.cache.FailOpenRedisCache redis://redis:6379/0"),
    # Without Redis (one process, the embedded mode and the benchmarks): the process's memory.
    ("", "django.core.cache.backends.locmem.LocMemCache"),
])
def test_production_counts_throttles_in_one_cache_for_all_workers(redis_url, expected):
    from tests.config.test_settings_modes import PRODUCTION_ENV, run_python

    result = run_python(SHOW_CACHE, {**PRODUCTION_ENV, "REDIS_URL": redis_url})
    assert (result.returncode, result.stdout.strip()) == (0, expected), result.stderr


def test_the_calculator_rate_is_below_the_general_anonymous_rate():
    rates = SimpleRateThrottle.THROTTLE_RATES
    assert (allowed(rates["calculator_anon"]), allowed(rates["anon"])) == (20, 60)
