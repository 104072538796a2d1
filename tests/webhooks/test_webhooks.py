"""Webhooks: the GM adds them on a page; each public event of a chosen topic goes out in
Discord's, Slack's or the signed JSON shape; private events never; failures are retried, then
logged, and a webhook failing three deliveries in a row is switched off with a notice to the GM.
Deliveries go to a real HTTP server on 127.0.0.1."""

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse
from django.utils.html import escape

from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.models import Event, EventKind, Notification
from tests.factories import started_campaign_factory
from tests.web.fog import TO_D4
from webhooks import services
from webhooks.models import Delivery, Topic, Webhook

pytestmark = pytest.mark.django_db

DISCORD = "https://discord.com/api/webhooks/123/secret-token-abcd"


class Receiver:
    """An HTTP server on 127.0.0.1 that records each POST and answers `codes` in turn."""

    def __init__(self, codes):
        self.codes = list(codes)
        self.got = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.got.append((dict(self.headers), body))
                code = receiver.codes.pop(0) if receiver.codes else 204
                self.send_response(code)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def receiver():
    made = []

    def make(codes=()):
        r = Receiver(codes)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def hook_to(campaign, url, fmt="json", topics=None):
    """A webhook straight to the local server (the page only takes https:// URLs)."""
    return Webhook.objects.create(campaign=campaign, format=fmt, url=url,
                                  secret="s3cret" if fmt == "json" else "",
                                  topics=topics or [t.value for t in Topic])


def test_the_gm_adds_a_discord_webhook_on_the_page(client):
    campaign, gm, _ = started_campaign_factory(players=1)
    client.force_login(gm)
    page = reverse("webhooks:page", args=[campaign.pk])
    response = client.post(page, {"format": "discord", "url": DISCORD, "label": "Our server",
                                  "topics": ["phase_opened", "combat"]}, follow=True)
    hook = Webhook.objects.get(campaign=campaign)
    text = response.content.decode()
    assert (hook.format, hook.topics, hook.label, hook.active) == (
        "discord", ["combat", "phase_opened"], "Our server", True)
    # The URL is a secret: the page shows it masked.
    assert ("https://discord.com/api/…abcd" in text, "secret-token" in text) == (True, False)


@pytest.mark.parametrize(("body", "field", "message"), [
    ({"format": "discord", "url": "http://discord.com/api/webhooks/1/x", "topics": ["combat"]},
     "url", "A webhook URL starts with https://."),
    ({"format": "slack", "url": "https://evil.example/hook", "topics": ["combat"]}, "url",
     "A Slack webhook URL is on hooks.slack.com (copy it from the channel's integration "
     "settings)."),
    ({"format": "json", "url": "https://bot.example/in", "topics": []}, "topics",
     "Choose at least one kind of event to send."),
])
def test_a_bad_webhook_is_refused_next_to_its_field(client, body, field, message):
    campaign, gm, _ = started_campaign_factory(players=1)
    client.force_login(gm)
    response = client.post(reverse("webhooks:page", args=[campaign.pk]), body)
    text = response.content.decode()
    assert (response.status_code, f'id="{field}-error" role="alert">{escape(message)}</p>' in text,
            Webhook.objects.count()) == (400, True, 0)


def test_a_player_cannot_see_or_use_the_webhooks_page(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    hook = hook_to(campaign, "https://bot.example/in")
    client.force_login(p1.user)
    assert (client.get(reverse("webhooks:page", args=[campaign.pk])).status_code,
            client.post(reverse("webhooks:action", args=[campaign.pk, hook.pk, "remove"]))
            .status_code, Webhook.objects.count()) == (404, 404, 1)


def test_a_phase_opening_goes_out_as_signed_json(receiver, django_capture_on_commit_callbacks):
    campaign, gm, _ = started_campaign_factory(players=1)
    r = receiver()
    hook = hook_to(campaign, r.url, "json", topics=["phase_opened"])
    with django_capture_on_commit_callbacks(execute=True):
        phase_end(user=gm, campaign=campaign)
    opened = Event.objects.filter(campaign=campaign, kind=EventKind.PHASE_OPENED).last()
    [(headers, body)] = r.got
    assert json.loads(body) == {"event": {
        "id": opened.pk, "kind": "phase_opened", "turn": 1,
        "title": f"{campaign.name}: Phase opened", "summary": opened.summary,
        "url": f"http://localhost:8000/campaigns/{campaign.pk}/",
        "created_at": opened.created_at.isoformat(), "map_image": None}}
    assert headers["X-Warcamp-Signature"] == "sha256=" + hmac.new(
        b"s3cret", body, hashlib.sha256).hexdigest()
    assert list(Delivery.objects.values_list("status", "attempts")) == [("delivered", 1)]
    assert hook.deliveries.count() == 1


def test_discord_and_slack_bodies_have_their_documented_shapes():
    campaign, _, _ = started_campaign_factory(players=1)
    event = Event.objects.filter(campaign=campaign).last()
    message = services.message_of(event)
    discord = services.body_for("discord", message)
    slack = services.body_for("slack", message)
    assert discord == {"username": "Warcamp", "allowed_mentions": {"parse": [], "users": []},
                       "embeds": [{
        "title": message.title, "description": event.summary, "url": message.url,
        "timestamp": event.created_at.isoformat()}]}
    assert slack == {"text": f"{message.title}: {event.summary}", "blocks": [{
        "type": "section", "text": {"type": "mrkdwn", "text":
                                    f"*{message.title}*\n{event.summary}\n<{message.url}|Open in Warcamp>"}}]}


def test_private_events_never_go_out(receiver, django_capture_on_commit_callbacks):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    r = receiver()
    hook_to(campaign, r.url, "json")
    from campaigns.models import Unit

    with django_capture_on_commit_callbacks(execute=True):
        scout_order_give(user=p1.user, campaign=campaign,
                         scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=TO_D4)
        phase_end(user=gm, campaign=campaign)
    kinds = [json.loads(body)["event"]["kind"] for _, body in r.got]
    # The scout report (the alliance's) is not among them; the phase's closing and opening are.
    assert (kinds, Event.objects.filter(kind="scout_report").exists()) == (
        ["phase_closed", "phase_opened"], True)
    sent = " ".join(body.decode() for _, body in r.got)
    assert "Spearman" not in sent


def test_failures_are_retried_then_the_webhook_is_switched_off(receiver):
    campaign, gm, _ = started_campaign_factory(players=1)
    r = receiver(codes=[500] * 20)
    hook = hook_to(campaign, r.url, "json")
    outcomes = []
    for _ in range(3):
        delivery = Delivery.objects.create(webhook=hook, body={"n": 1})
        outcomes.append([services.attempt(delivery.pk) for _ in range(services.MAX_ATTEMPTS)])
    hook.refresh_from_db()
    assert outcomes == [["retry"] * 4 + ["failed"]] * 3
    assert (hook.active, hook.failures_in_a_row, len(r.got)) == (False, 3, 15)
    assert hook.disabled_reason == "Switched off after 3 failed deliveries in a row (last: HTTP 500)."
    assert list(Notification.objects.filter(user=gm, event__isnull=True)
                .values_list("message", flat=True)) == [
        f"The webhook “{hook}” was switched off: {hook.disabled_reason} Check its URL on the "
        "campaign's webhooks page, then switch it back on."]


def test_a_gone_channel_fails_at_once_and_a_success_resets_the_count(receiver):
    campaign, _, _ = started_campaign_factory(players=1)
    r = receiver(codes=[404, 204])
    hook = hook_to(campaign, r.url, "json")
    first = Delivery.objects.create(webhook=hook, body={})
    second = Delivery.objects.create(webhook=hook, body={})
    assert (services.attempt(first.pk), services.attempt(second.pk)) == ("failed", "delivered")
    hook.refresh_from_db()
    assert hook.failures_in_a_row == 0


def test_the_backoff_grows_fourfold():
    assert [services.backoff_seconds(n) for n in range(1, 5)] == [30, 120, 480, 1920]


@pytest.mark.parametrize("kind", sorted(services.TOPIC_OF_KIND))
def test_an_event_of_any_kind_for_one_side_only_never_goes_out(kind):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    hook_to(campaign, "https://bot.example/in", "json")
    secret = Event.objects.create(campaign=campaign, kind=kind, summary="Zorblax in G7",
                                  side=p1.side)
    public = Event.objects.create(campaign=campaign, kind=kind, summary="Turn 1 opened")
    assert ([d.body["event"]["summary"] for d in services.on_event(secret)],
            [d.body["event"]["summary"] for d in services.on_event(public)]) == (
        [], ["Turn 1 opened"])


def test_a_reminder_mentions_the_pending_players_who_linked_discord():
    from campaigns.models import Membership

    campaign, _, (p1,) = started_campaign_factory(players=1)
    p1.user.discord_id = "123456789012345678"
    p1.user.save(update_fields=["discord_id"])
    hook = hook_to(campaign, "https://discord.com/api/webhooks/1/x", "discord")
    reminder = Event.objects.create(
        campaign=campaign, kind=EventKind.REMINDER, summary="Turn 1: 1 h 00 min left.",
        payload={"memberships": [p1.pk, Membership.objects.get(campaign=campaign,
                                                               role="gm").pk]})
    [delivery] = services.on_event(reminder)
    assert (delivery.webhook, delivery.body["content"], delivery.body["allowed_mentions"]) == (
        hook, "<@123456789012345678>", {"parse": [], "users": ["123456789012345678"]})


def test_a_closed_phase_carries_the_public_map_picture():
    campaign, _, _ = started_campaign_factory(players=1)
    closed = Event.objects.create(campaign=campaign, kind=EventKind.PHASE_CLOSED,
                                  summary="Turn 1: the scout phase is closed.")
    message = services.message_of(closed)
    picture = f"http://localhost:8000/campaigns/{campaign.pk}/map.png"
    assert (services.body_for("discord", message)["embeds"][0]["image"],
            services.body_for("slack", message)["blocks"][1],
            services.body_for("json", message)["event"]["map_image"]) == (
        {"url": picture},
        {"type": "image", "image_url": picture, "alt_text": "The map as everyone may see it"},
        picture)
