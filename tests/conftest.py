"""Suite-wide fixtures: which servers this run has, and CI's refusal to run without them."""

import os

import pytest
from django.conf import settings
from hypothesis import settings as hypothesis_settings

IN_CI = os.environ.get("CI", "").lower() == "true"

# In CI the property tests draw the same examples every run (a red run is then reproducible,
# never a lucky draw); elsewhere they explore new ones and remember what failed.
hypothesis_settings.register_profile("ci", derandomize=True, database=None, deadline=None)
if IN_CI:
    hypothesis_settings.load_profile("ci")


def using_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def pytest_sessionstart(session: pytest.Session) -> None:
    if IN_CI and not using_postgres():
        pytest.exit("CI=true but the suite is not running on PostgreSQL (set DATABASE_URL).", 2)
    if IN_CI and not os.environ.get("WARCAMP_TEST_REDIS_URL"):
        pytest.exit("CI=true but no Redis was found (WARCAMP_TEST_REDIS_URL is unset).", 2)


def pytest_report_header() -> list[str]:
    db = settings.DATABASES["default"]
    redis_url = os.environ.get("WARCAMP_TEST_REDIS_URL") or "none (Redis tests skipped)"
    return [f"warcamp: database {db['ENGINE'].rsplit('.', 1)[-1]}, redis {redis_url}"]


@pytest.fixture
def redis_url() -> str:
    """The Redis server for this run; the test is skipped (never in CI) when there is none."""
    url = os.environ.get("WARCAMP_TEST_REDIS_URL")
    if not url:
        pytest.skip("Redis not reachable (set REDIS_URL or start redis on 127.0.0.1:6379)")
    return url


@pytest.fixture
def require_postgres() -> None:
    if not using_postgres():
        reason = os.environ.get("WARCAMP_TEST_FALLBACK_DB", "DATABASE_URL is not PostgreSQL")
        pytest.skip(f"needs PostgreSQL: {reason}")
