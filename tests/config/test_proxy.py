"""Behind a TLS proxy: the client's address comes from TRUSTED_PROXY_COUNT everywhere (the
API's throttles, the login rate limits, the Idempotency-Key), a client's own X-Forwarded-For
entries buy it nothing, and the admin's login is the site's (with its brute-force limits)."""

import pytest
from django.core.cache import cache
from django.test import RequestFactory
from django.urls import reverse
from rest_framework.settings import api_settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from config.client_ip import client_address
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CALCULATOR = "/api/v1/rules/dice/commit/"
PROXY = "10.0.0.2"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.mark.parametrize(("count", "forwarded", "expected"), [
    (0, "203.0.113.9", PROXY),                    # no proxy of ours: the header is ignored
    (1, "203.0.113.9", "203.0.113.9"),            # the proxy appended the client
    (1, "6.6.6.6, 203.0.113.9", "203.0.113.9"),   # the client's own claim is left of it
    (2, "6.6.6.6, 203.0.113.9, 10.0.0.1", "203.0.113.9"),
    (1, "", PROXY),
])
def test_the_client_address(settings, count, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = count
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = RequestFactory().get("/", REMOTE_ADDR=PROXY, **headers)
    assert client_address(request) == expected


def test_a_varied_forwarded_header_does_not_escape_the_anonymous_limit(monkeypatch):
    """Without a proxy of ours (the default) the header is not the client: 100 requests with
    100 made-up X-Forwarded-For values are one client, held to the calculator rate."""
    monkeypatch.setattr(api_settings, "NUM_PROXIES", 0)
    limit = int(SimpleRateThrottle.THROTTLE_RATES["calculator_anon"].split("/")[0])
    client = APIClient(REMOTE_ADDR=PROXY)
    codes = [client.post(CALCULATOR, {"seed": "ab"}, format="json",
                         HTTP_X_FORWARDED_FOR=f"198.51.100.{i}").status_code
             for i in range(limit + 5)]
    assert codes == [200] * limit + [429] * 5


def test_behind_one_proxy_each_client_has_its_own_limit(monkeypatch):
    monkeypatch.setattr(api_settings, "NUM_PROXIES", 1)
    limit = int(SimpleRateThrottle.THROTTLE_RATES["calculator_anon"].split("/")[0])
    client = APIClient(REMOTE_ADDR=PROXY)
    first = [client.post(CALCULATOR, {"seed": "ab"}, format="json",
                         HTTP_X_FORWARDED_FOR=f"6.6.6.{i}, 203.0.113.9").status_code
             for i in range(limit + 1)]
    other = client.post(CALCULATOR, {"seed": "ab"}, format="json",
                        HTTP_X_FORWARDED_FOR="203.0.113.10").status_code
    assert (first[-1], first[:-1] == [200] * limit, other) == (429, True, 200)


def test_failed_logins_of_one_client_do_not_lock_out_another(client, settings):
    from allauth.account.models import EmailAddress

    settings.TRUSTED_PROXY_COUNT = 1
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    user = UserFactory(username="real")
    user.set_password("the right password 7")
    user.save()
    EmailAddress.objects.update_or_create(user=user, email=user.email,
                                          defaults={"verified": True, "primary": True})
    for i in range(12):
        client.post(reverse("account_login"), {"login": f"madeup{i}", "password": "nope"},
                    REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.66")
    response = client.post(reverse("account_login"), {"login": "real",
                                                      "password": "the right password 7"},
                           REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert (response.status_code, response["Location"]) == (302, reverse("home"))


def test_the_admin_login_is_the_sites_login(client):
    response = client.get(reverse("admin:login"))
    assert (response.status_code, response["Location"]) == (
        302, f"{reverse('account_login')}?next=%2Fadmin%2Flogin%2F")


def test_a_signed_in_non_staff_user_is_refused_by_the_admin(client):
    client.force_login(UserFactory())
    assert client.get(reverse("admin:login")).status_code == 403
