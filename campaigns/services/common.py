"""Helpers every campaign service uses: locks, permission checks, events, notifications, dice."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import F
from django.dispatch import Signal
from django.utils import timezone

from accounts.models import User
from campaigns.access import membership_of as membership_of
from campaigns.access import require_alliance_player as require_alliance_player
from campaigns.access import require_gm as require_gm
from campaigns.errors import RuleViolationError
from campaigns.models import (
    Campaign,
    DiceRoll,
    Event,
    EventKind,
    Membership,
    Notification,
    NotificationKind,
    Phase,
    Role,
    Side,
)
from campaigns.notifications import deliver_notifications, enqueue_after_commit
from rules.dice import Roll, SeededDice, roll_records

# Sent for every recorded event, inside the transaction that records it (`event`: the Event).
# Its receivers are connected by the apps that answer events (CampaignsConfig.ready: the
# forum; WebhooksConfig.ready: the webhooks), so record_event imports none of them.
event_recorded = Signal()


def lock_campaign(campaign: Campaign) -> Campaign:
    """The campaign row, locked until the end of the transaction, read fresh (see
    lock_campaign_id)."""
    return lock_campaign_id(campaign.pk)


def lock_campaign_id(campaign_id: int) -> Campaign:
    """The campaign row, locked until the end of the transaction, read fresh. Every service
    that changes a campaign starts here: the lock bumps the campaign's `state_version`, which
    keys the map cache (campaigns/selectors/map_json.py), and once the change is committed a
    task builds the campaign's map JSON again for the cache (campaigns.tasks.warm_map_cache;
    robust: a broker that is down costs only the warm cache)."""
    # The UPDATE takes the row lock; the SELECT … FOR UPDATE then reads the row fresh.
    if not Campaign.objects.filter(pk=campaign_id).update(
            state_version=F("state_version") + 1):
        raise Campaign.DoesNotExist(f"There is no campaign {campaign_id}.")
    enqueue_after_commit("campaigns.tasks.warm_map_cache", campaign_id)
    return Campaign.objects.select_for_update().get(pk=campaign_id)


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


def check_creation_rate(gm: User) -> None:
    """At most CAMPAIGNS_PER_USER_PER_HOUR new campaigns an hour per user (one user once made
    18 a second). The user's row is locked, so concurrent requests are counted one by one."""
    limit = int(getattr(settings, "CAMPAIGNS_PER_USER_PER_HOUR", 10))
    User.objects.select_for_update().filter(pk=gm.pk).first()
    recent = Membership.objects.filter(
        user=gm, role=Role.GM, campaign__created_at__gte=timezone.now() - timedelta(hours=1)
    ).count()
    if recent >= limit:
        raise RuleViolationError(
            f"You have created {recent} campaigns in the last hour; at most {limit} an hour. "
            "Try again later.", code="campaign_limit")


def side_of(campaign: Campaign, kind: str) -> Side:
    return Side.objects.get(campaign=campaign, kind=kind)


def record_event(
    *,
    campaign: Campaign,
    kind: EventKind,
    summary: str,
    payload: dict[str, Any] | None = None,
    actor: User | None = None,
    phase: Phase | None = None,
    side: Side | None = None,
) -> Event:
    # Event ids are random, so the events' order is their time: strictly increasing within
    # the campaign, even for two events in the same microsecond (or under a frozen clock).
    now = timezone.now()
    last = (Event.objects.filter(campaign=campaign).order_by("-created_at")
            .values_list("created_at", flat=True).first())
    if last is not None and last >= now:
        now = last + timedelta(microseconds=1)
    event = Event.objects.create(
        created_at=now,
        campaign=campaign,
        kind=kind,
        summary=summary,
        payload=payload or {},
        actor=actor,
        phase=phase,
        side=side,
    )
    # Those who answer events (the forum's threads and system posts, the deliveries of the
    # campaign's webhooks) do so in the same transaction, as the event's receivers.
    event_recorded.send(sender=Event, event=event)
    return event


def notify(
    *,
    event: Event,
    users: Iterable[User],
    message: str | None = None,
    kind: str = NotificationKind.GENERAL,
) -> None:
    """Store a notification per user now; deliver them once the transaction has committed."""
    rows = Notification.objects.bulk_create(
        [
            Notification(user=u, campaign_id=event.campaign_id, event=event, kind=kind,
                         message=message or event.summary)
            for u in {u.pk: u for u in users}.values()
        ]
    )
    ids = [n.pk for n in rows]
    if ids:
        deliver_notifications(ids)


def members_of(campaign: Campaign, *, side: Side | None = None, gm: bool = False) -> list[User]:
    """The users of a side's players (and the GM when `gm`)."""
    qs = Membership.objects.filter(campaign=campaign).select_related("user")
    users = []
    for m in qs:
        if (side is not None and m.side_id == side.pk and m.role == Role.PLAYER) or (
            gm and m.role == Role.GM
        ):
            users.append(m.user)
    return users


def setup_dice(campaign: Campaign) -> SeededDice:
    """The campaign's setup dice, numbering on from the last recorded roll (campaign locked)."""
    return SeededDice(
        seed=campaign.setup_dice_seed, first_number=campaign.setup_dice_next_number
    )


def store_setup_rolls(campaign: Campaign, dice: SeededDice) -> list[Roll]:
    rolls = list(dice.rolls)
    DiceRoll.objects.bulk_create(
        [
            DiceRoll(campaign=campaign, phase=None, number=r.number, purpose=r.purpose,
                     sides=r.sides, value=r.value)
            for r in rolls
        ]
    )
    campaign.setup_dice_next_number = dice.next_number
    campaign.save(update_fields=["setup_dice_next_number"])
    return rolls


def roll_payload(rolls: Iterable[Roll]) -> list[dict[str, Any]]:
    return roll_records(list(rolls))
