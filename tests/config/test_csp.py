"""A Content-Security-Policy on every page, with a fresh nonce that the page's own inline
scripts carry; pages with a policy of their own keep it."""

import re

import pytest
from django.urls import reverse

from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def _policy(response):
    return response["Content-Security-Policy"]


def test_a_page_gets_the_policy_and_no_inline_script_without_its_nonce(client):
    campaign, gm, (player,) = started_campaign_factory(players=1)
    client.force_login(player.user)
    response = client.get(reverse("campaigns:map", args=[campaign.pk]))
    page = b"".join(response.streaming_content).decode()
    nonce = re.search(r"'nonce-([^']+)'", _policy(response)).group(1)
    inline = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", page)
    executable = [attrs for attrs in inline if "application/json" not in attrs]
    assert _policy(response) == (
        f"default-src 'self'; script-src 'self' 'nonce-{nonce}'; style-src 'self' "
        "'unsafe-inline'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; "
        "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
    assert executable == [f' type="module" nonce="{nonce}"']


def test_each_response_has_its_own_nonce(client):
    first, second = client.get(reverse("home")), client.get(reverse("home"))
    assert _policy(first) != _policy(second)


@pytest.mark.parametrize("name", ["home", "account_login", "account_signup"])
def test_every_page_has_a_policy(client, name):
    assert "script-src 'self' 'nonce-" in _policy(client.get(reverse(name)))


def test_the_api_viewers_keep_their_own_policy(client):
    response = client.get(reverse("api-docs"))
    assert ("Content-Security-Policy" in response,
            '<meta http-equiv="Content-Security-Policy"' in response.content.decode()) == (
        False, True)
