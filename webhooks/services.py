"""Webhooks: the GM adds and removes them; each public event of a chosen topic becomes a
delivery, sent by Celery after the transaction commits, retried with backoff, logged.

Only what every member of the campaign may see goes out: events without a side (the
alliance's scouting and the opposition's secrets have one), told by their summary, with a
link to the campaign's page. A webhook that fails `DISABLE_AFTER` deliveries in a row is
switched off and the GM is told."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from campaigns.errors import NotAllowedError, RuleViolationError
from campaigns.models import Campaign, Event, EventKind, Membership, Role
from campaigns.notifications import enqueue_after_commit
from webhooks.models import Delivery, DeliveryStatus, Topic, Webhook, WebhookFormat

TOPIC_OF_KIND: dict[str, str] = {
    EventKind.PHASE_OPENED: Topic.PHASE_OPENED,
    EventKind.REMINDER: Topic.REMINDER,
    EventKind.PHASE_CLOSED: Topic.PHASE_CLOSED,
    EventKind.COMBAT: Topic.COMBAT,
    EventKind.AMBUSH: Topic.COMBAT,
    EventKind.SIEGE: Topic.COMBAT,
    EventKind.CAMPAIGN_PAUSED: Topic.PAUSE,
    EventKind.CAMPAIGN_RESUMED: Topic.PAUSE,
    EventKind.CAMPAIGN_FINISHED: Topic.VICTORY,
}
MAX_ATTEMPTS = 5
DISABLE_AFTER = 3
TIMEOUT_SECONDS = 10
# Discord allows 2,000 characters of content and 4,096 in an embed's description.
DISCORD_DESCRIPTION_MAX = 4000
# The hosts a Discord or Slack webhook URL must have.
HOSTS = {
    WebhookFormat.DISCORD: ("discord.com", "discordapp.com"),
    WebhookFormat.SLACK: ("hooks.slack.com",),
}


def _require_gm(user: User, campaign: Campaign) -> None:
    if not Membership.objects.filter(campaign=campaign, user=user, role=Role.GM).exists():
        raise NotAllowedError("Only the campaign's GM manages its webhooks.", code="gm_only")


def _check_url(fmt: str, url: str) -> str:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme != "https" and not (settings.DEBUG and parts.scheme == "http"):
        raise RuleViolationError("A webhook URL starts with https://.", code="invalid_field",
                                 field="url")
    hosts = HOSTS.get(WebhookFormat(fmt))
    if hosts and (parts.hostname or "") not in hosts:
        raise RuleViolationError(
            f"A {WebhookFormat(fmt).label} webhook URL is on {' or '.join(hosts)} (copy it "
            "from the channel's integration settings).", code="invalid_field", field="url")
    return url


def webhook_add(*, user: User, campaign: Campaign, format: str, url: str,
                topics: list[str], label: str = "") -> Webhook:
    """A new webhook of the campaign (GM only); a JSON webhook gets a signing secret."""
    _require_gm(user, campaign)
    if format not in WebhookFormat.values:
        raise RuleViolationError("Choose Discord, Slack or JSON.", code="invalid_field",
                                 field="format")
    url = _check_url(format, url)
    unknown = [t for t in topics if t not in Topic.values]
    if unknown or not topics:
        raise RuleViolationError("Choose at least one kind of event to send.",
                                 code="invalid_field", field="topics")
    return Webhook.objects.create(
        campaign=campaign, format=format, url=url, topics=sorted(set(topics)), label=label,
        secret=secrets.token_hex(32) if format == WebhookFormat.JSON else "")


def webhook_remove(*, user: User, webhook: Webhook) -> None:
    _require_gm(user, webhook.campaign)
    webhook.delete()


def webhook_enable(*, user: User, webhook: Webhook) -> Webhook:
    """Switch a webhook that was disabled after failures back on."""
    _require_gm(user, webhook.campaign)
    webhook.active = True
    webhook.failures_in_a_row = 0
    webhook.disabled_reason = ""
    webhook.save(update_fields=["active", "failures_in_a_row", "disabled_reason"])
    return webhook


def masked_url(url: str) -> str:
    """The URL as the GM page shows it: host and the first path part, the secret part hidden."""
    parts = urlsplit(url)
    first = parts.path.strip("/").split("/")[0] if parts.path.strip("/") else ""
    return f"{parts.scheme}://{parts.hostname}/{first}/…{url[-4:]}"


def campaign_url(campaign: Campaign, event: Event | None = None) -> str:
    base = settings.SITE_URL.rstrip("/")
    if event is not None and event.kind in (EventKind.COMBAT, EventKind.AMBUSH,
                                            EventKind.SIEGE):
        return base + reverse("campaigns:report", args=[campaign.pk, event.pk])
    return base + reverse("campaigns:lobby", args=[campaign.pk])


@dataclass(frozen=True, kw_only=True)
class Message:
    title: str
    text: str
    url: str
    kind: str
    event_id: int | None
    turn: int | None
    at: str
    # A closed phase carries the public picture of the map (no stack, only what all may see).
    image: str | None = None
    mentions: tuple[str, ...] = ()


def message_of(event: Event) -> Message:
    """What every member may read of a public event."""
    campaign = event.campaign
    image = None
    if event.kind == EventKind.PHASE_CLOSED:
        image = settings.SITE_URL.rstrip("/") + reverse("campaigns:map-png", args=[campaign.pk])
    return Message(
        title=f"{campaign.name}: {event.get_kind_display()}",
        text=event.summary, url=campaign_url(campaign, event), kind=event.kind,
        event_id=event.pk, turn=event.phase.turn.number if event.phase is not None else None,
        at=event.created_at.isoformat(), image=image, mentions=_pending_discord_ids(event))


def _pending_discord_ids(event: Event) -> tuple[str, ...]:
    """A reminder's players still to act who linked their Discord account: mentioned."""
    if event.kind != EventKind.REMINDER:
        return ()
    ids = event.payload.get("memberships") or []
    return tuple(sorted(
        m for m in Membership.objects.filter(pk__in=ids).exclude(user__discord_id="")
        .values_list("user__discord_id", flat=True)))


def body_for(fmt: str, message: Message) -> dict[str, Any]:
    """The request body in the webhook's format (Discord's and Slack's documented shapes)."""
    if fmt == WebhookFormat.DISCORD:
        embed: dict[str, Any] = {"title": message.title[:256],
                                 "description": message.text[:DISCORD_DESCRIPTION_MAX],
                                 "url": message.url, "timestamp": message.at}
        if message.image:
            embed["image"] = {"url": message.image}
        body: dict[str, Any] = {"username": "Warcamp",
                                # Only the players named here are pinged, nobody else.
                                "allowed_mentions": {"parse": [],
                                                     "users": list(message.mentions)},
                                "embeds": [embed]}
        if message.mentions:
            body["content"] = " ".join(f"<@{m}>" for m in message.mentions)
        return body
    if fmt == WebhookFormat.SLACK:
        blocks: list[dict[str, Any]] = [{"type": "section", "text": {
            "type": "mrkdwn", "text": f"*{_slack_escape(message.title)}*\n"
            f"{_slack_escape(message.text)}\n<{message.url}|Open in Warcamp>"}}]
        if message.image:
            blocks.append({"type": "image", "image_url": message.image,
                           "alt_text": "The map as everyone may see it"})
        return {"text": f"{message.title}: {message.text}", "blocks": blocks}
    return {"event": {"id": message.event_id, "kind": message.kind, "turn": message.turn,
                      "title": message.title, "summary": message.text, "url": message.url,
                      "created_at": message.at, "map_image": message.image}}


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def on_event(event: Event) -> list[Delivery]:
    """Called for every recorded event: a delivery per active webhook whose topics cover it,
    for public events only; sent once the transaction commits."""
    topic = TOPIC_OF_KIND.get(event.kind)
    if topic is None or event.side_id is not None:
        return []
    hooks = [h for h in Webhook.objects.filter(campaign_id=event.campaign_id, active=True)
             if topic in h.topics]
    if not hooks:
        return []
    message = message_of(event)
    deliveries = [Delivery.objects.create(webhook=h, event=event, body=body_for(h.format, message))
                  for h in hooks]
    for d in deliveries:
        enqueue_after_commit("webhooks.tasks.deliver_webhook", d.pk)
    return deliveries


def webhook_test(*, user: User, webhook: Webhook) -> Delivery:
    """Send a test message now (through the same queue)."""
    _require_gm(user, webhook.campaign)
    message = Message(title=f"{webhook.campaign.name}: test", url=campaign_url(webhook.campaign),
                      text="Warcamp will post this campaign's events here.", kind="test",
                      event_id=None, turn=None, at=timezone.now().isoformat())
    delivery = Delivery.objects.create(webhook=webhook, body=body_for(webhook.format, message))
    enqueue_after_commit("webhooks.tasks.deliver_webhook", delivery.pk)
    return delivery


def attempt(delivery_id: int) -> str:
    """Post a delivery once: "delivered", "retry" (a later attempt may work) or "failed"."""
    delivery = Delivery.objects.select_related("webhook").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != DeliveryStatus.PENDING:
        return "gone"
    hook = delivery.webhook
    body = json.dumps(delivery.body).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "Warcamp-Webhook/1"}
    if hook.format == WebhookFormat.JSON:
        headers["X-Warcamp-Signature"] = signature(hook.secret, body)
    code: int | None = None
    error = ""
    try:
        request = urllib.request.Request(hook.url, data=body, headers=headers, method="POST")  # noqa: S310
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310
            code = response.status
    except urllib.error.HTTPError as exc:
        code, error = exc.code, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        error = str(getattr(exc, "reason", exc))[:300]
    return _record(delivery, code=code, error=error)


@transaction.atomic
def _record(delivery: Delivery, *, code: int | None, error: str) -> str:
    delivery = Delivery.objects.select_for_update().select_related("webhook").get(pk=delivery.pk)
    hook = Webhook.objects.select_for_update().get(pk=delivery.webhook_id)
    delivery.attempts += 1
    delivery.last_status_code = code
    delivery.last_error = error
    if code is not None and 200 <= code < 300:
        delivery.status = DeliveryStatus.DELIVERED
        delivery.finished_at = timezone.now()
        delivery.save()
        if hook.failures_in_a_row:
            hook.failures_in_a_row = 0
            hook.save(update_fields=["failures_in_a_row"])
        return "delivered"
    # A 4xx other than 429 will not get better by waiting (a deleted channel, a bad URL).
    final = delivery.attempts >= MAX_ATTEMPTS or (
        code is not None and 400 <= code < 500 and code != 429)
    if not final:
        delivery.save()
        return "retry"
    delivery.status = DeliveryStatus.FAILED
    delivery.finished_at = timezone.now()
    delivery.save()
    hook.failures_in_a_row += 1
    if hook.failures_in_a_row >= DISABLE_AFTER and hook.active:
        hook.active = False
        hook.disabled_reason = (f"Switched off after {hook.failures_in_a_row} failed deliveries "
                                f"in a row (last: {error or code}).")
        _tell_the_gm(hook)
    hook.save(update_fields=["failures_in_a_row", "active", "disabled_reason"])
    return "failed"


def _tell_the_gm(hook: Webhook) -> None:
    """An in-app notification (and mail, if wanted) for the GM only: no event, since the
    campaign's members need not know of the GM's webhooks."""
    from campaigns.models import Notification
    from campaigns.notifications import deliver_notifications

    rows = Notification.objects.bulk_create([
        Notification(user=m.user, campaign=hook.campaign,
                     message=f"The webhook “{hook}” was switched off: {hook.disabled_reason} "
                     "Check its URL on the campaign's webhooks page, then switch it back on.")
        for m in Membership.objects.filter(campaign=hook.campaign, role=Role.GM)
        .select_related("user")])
    deliver_notifications([n.pk for n in rows])


def backoff_seconds(attempts: int) -> int:
    """Seconds before the next attempt: 30 s, 2 min, 8 min, 32 min."""
    return int(30 * 4 ** max(0, attempts - 1))
