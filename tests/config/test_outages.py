"""Outages degrade gracefully: with Redis down, throttles, rate limits and caches fail open
(logins, the API and the map still answer); with the broker down, a committed action still
answers its result, and the mails it could not enqueue are sent by the next sweep."""

import logging

import pytest
from django.core import mail
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import api_token_create
from config.cache import FailOpenRedisCache
from tests.factories import UserFactory, started_campaign_factory

pytestmark = pytest.mark.django_db

DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def redis_down(settings):
    settings.CACHES = {"default": {"BACKEND": "config.cache.FailOpenRedisCache",
                                   "LOCATION": DEAD_REDIS}}


def test_the_fail_open_cache_misses_and_skips_with_a_log_line(caplog):
    cache = FailOpenRedisCache(DEAD_REDIS, {})
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        got = (cache.get("k", "default"), cache.get_many(["k"]), cache.add("k", 1),
               cache.set("k", 1), cache.delete("k"), cache.has_key("k"))
    with pytest.raises(ValueError):
        cache.incr("k")
    assert got == ("default", {}, True, None, False, False)
    assert [r.message.split(":")[0] for r in caplog.records] == [
        "cache get skipped", "cache get_many skipped", "cache add skipped",
        "cache set skipped", "cache delete skipped", "cache has_key skipped",
        "cache incr skipped"]


@pytest.mark.usefixtures("redis_down")
def test_with_redis_down_a_login_and_the_api_answer(client):
    user = UserFactory(username="walker")
    user.set_password("a good password 1")
    user.save()
    from allauth.account.models import EmailAddress

    EmailAddress.objects.update_or_create(user=user, email=user.email,
                                          defaults={"verified": True, "primary": True})
    login = client.post(reverse("account_login"), {"login": "walker",
                                                   "password": "a good password 1"})
    token = api_token_create(user=user)
    api = APIClient(HTTP_AUTHORIZATION=f"Token {token}")
    answers = (api.get("/api/v1/campaigns/").status_code,
               APIClient().post("/api/v1/rules/dice/commit/", {"seed": "ab"},
                                format="json").status_code)
    assert (login.status_code, login["Location"], answers) == (302, reverse("home"), (200, 200))


@pytest.mark.usefixtures("redis_down")
def test_with_redis_down_the_map_page_streams_whole(client):
    campaign, _, (player,) = started_campaign_factory(players=1)
    client.force_login(player.user)
    response = client.get(reverse("campaigns:map", args=[campaign.pk]))
    page = b"".join(response.streaming_content).decode()
    assert (response.status_code, 'id="map-data"' in page, page.rstrip().endswith("</html>")) == (
        200, True, True)


def test_with_the_broker_down_an_action_answers_and_the_sweep_sends_its_mails(
        monkeypatch, caplog, settings):
    from datetime import timedelta

    from django.utils import timezone

    from campaigns import tasks
    from campaigns.models import Notification, Phase

    campaign, gm, (player,) = started_campaign_factory(players=1)

    def broker_down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(tasks.send_notification_emails, "delay", broker_down)
    monkeypatch.setattr(tasks.warm_map_cache, "delay", broker_down)
    token = api_token_create(user=gm)
    api = APIClient(HTTP_AUTHORIZATION=f"Token {token}")
    scout = Phase.objects.get(campaign=campaign, status="open")
    with caplog.at_level(logging.WARNING, logger="campaigns.notifications"):
        from django.test import TestCase

        with TestCase.captureOnCommitCallbacks(execute=True):
            response = api.post(f"/api/v1/campaigns/{campaign.pk}/phase/end/",
                                {"expected_phase": scout.pk}, format="json")
    unsent = list(Notification.objects.filter(emailed_at__isnull=True, email_skipped=False))
    assert (response.status_code, bool(unsent),
            any("could not enqueue" in r.message for r in caplog.records)) == (200, True, True)
    # Five minutes on, the sweep finds them and handles each once (sent or skipped by the
    # user's choices).
    Notification.objects.filter(pk__in=[n.pk for n in unsent]).update(
        created_at=timezone.now() - timedelta(minutes=6))
    tasks.sweep_deadlines()
    assert Notification.objects.filter(emailed_at__isnull=True, email_skipped=False).count() == 0
    assert len(mail.outbox) == Notification.objects.filter(emailed_at__isnull=False).count()


def test_the_tasks_services_enqueue_by_name_are_registered():
    from celery import current_app

    current_app.loader.import_default_modules()  # as enqueue_after_commit does
    assert {"campaigns.tasks.warm_map_cache", "campaigns.tasks.send_notification_emails",
            "webhooks.tasks.deliver_webhook"} <= set(current_app.tasks)
