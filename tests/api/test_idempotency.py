"""`Idempotency-Key`: a retried API write with the same key answers the first result and acts
once; the same key with another body is 422; a request still running is 409; without a cache
the key is ignored and the services' own checks still hold."""

import pytest
from django.core.cache import cache

from campaigns.models import Event, EventKind, Phase
from tests.api.play_setup import url
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


@pytest.fixture
def client_for():
    """A client that signs its requests with the user's token, as a bot would (the key is
    kept per caller, whom the middleware knows by the token or the session)."""
    from rest_framework.test import APIClient

    from accounts.services import api_token_create

    keys: dict[int, str] = {}

    def make(user):
        if user.pk not in keys:  # a second client of the same user keeps the same key
            keys[user.pk] = api_token_create(user=user)
        return APIClient(HTTP_AUTHORIZATION=f"Token {keys[user.pk]}")

    return make


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


def _end(client, campaign, phase, key, reason="Done."):
    return client.post(url(campaign, "phase/end/"), {"expected_phase": phase.pk,
                                                     "reason": reason},
                       format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_retried_end_phase_answers_the_first_result_and_acts_once(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    scout = Phase.objects.get(campaign=campaign, status="open")
    client = client_for(gm)
    first = _end(client, campaign, scout, "k-1")
    again = _end(client, campaign, scout, "k-1")
    assert (first.status_code, again.status_code, again.json() == first.json(),
            again["Idempotent-Replayed"], Event.objects.filter(
                campaign=campaign, kind=EventKind.PHASE_OPENED).count(),
            Phase.objects.get(campaign=campaign, status="open").kind) == (
        200, 200, True, "true", 2, "move_combat")


def test_without_the_key_the_named_phase_still_stops_a_double(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    scout = Phase.objects.get(campaign=campaign, status="open")
    client = client_for(gm)
    client.post(url(campaign, "phase/end/"), {"expected_phase": scout.pk}, format="json")
    second = client.post(url(campaign, "phase/end/"), {"expected_phase": scout.pk},
                         format="json")
    assert (second.status_code, second.json()["code"]) == (400, "phase_already_closed")


def test_the_same_key_with_another_body_is_422(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    scout = Phase.objects.get(campaign=campaign, status="open")
    client = client_for(gm)
    _end(client, campaign, scout, "k-2")
    other = _end(client, campaign, scout, "k-2", reason="Something else")
    assert (other.status_code, other.json()["code"]) == (422, "idempotency_key_reused")


def test_a_key_of_another_caller_is_another_key(client_for):
    campaign, gm, (player,) = started_campaign_factory(players=1)
    scout = Phase.objects.get(campaign=campaign, status="open")
    _end(client_for(gm), campaign, scout, "shared")
    theirs = _end(client_for(player.user), campaign, scout, "shared")
    # Not a replay of the GM's answer: the player's own request, refused by the service.
    assert (theirs.status_code, theirs.json()["code"], theirs.has_header(
        "Idempotent-Replayed")) == (400, "phase_already_closed", False)


def test_a_request_still_running_with_the_key_is_409(client_for, monkeypatch):
    campaign, gm, _ = started_campaign_factory(players=1)
    scout = Phase.objects.get(campaign=campaign, status="open")
    monkeypatch.setattr(cache, "add", lambda *args, **kwargs: False)  # the first one runs
    response = _end(client_for(gm), campaign, scout, "k-3")
    assert (response.status_code, response.json()["code"],
            Phase.objects.get(pk=scout.pk).status) == (409, "request_in_progress", "open")


def test_with_the_cache_down_the_key_is_ignored_and_the_action_answers(client_for, settings):
    # Production's cache on a port where no Redis answers: reads miss, writes are skipped.
    settings.CACHES = {"default": {"BACKEND": "config.cache.FailOpenRedisCache",
                                   "LOCATION": "redis://127.0.0.1:1/0"}}
    campaign, gm, _ = started_campaign_factory(players=1)
    scout = Phase.objects.get(campaign=campaign, status="open")
    response = _end(client_for(gm), campaign, scout, "k-4")
    assert (response.status_code, Phase.objects.get(pk=scout.pk).status) == (200, "closed")
