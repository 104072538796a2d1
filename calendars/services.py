"""Calendar feeds: tokens and the iCalendar documents (built with the `icalendar` library).

Each open phase is one event at its deadline, with a stable UID (`phase-<id>@<host>`) and a
SEQUENCE that follows the phase's version, so a calendar moves the event when the GM extends
the deadline and marks it tentative while the campaign is paused. Times are in UTC: the
reader's calendar shows them in its own zone, across daylight-saving changes."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar, Event

from accounts.models import User
from accounts.tokens import new_token, token_digest
from calendars.models import CalendarToken
from campaigns.models import Campaign, CampaignStatus, Membership, Phase, PhaseStatus


@transaction.atomic
def calendar_token_create(*, user: User) -> str:
    """A new private feed token (the old one stops working); returned once, stored hashed."""
    CalendarToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now())
    token, digest = new_token()
    CalendarToken.objects.create(user=user, digest=digest, prefix=token[:6])
    return token


def calendar_token_revoke(*, user: User) -> int:
    return CalendarToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now())


def calendar_token_active(*, user: User) -> CalendarToken | None:
    return CalendarToken.objects.filter(user=user, revoked_at__isnull=True).first()


def user_for_token(token: str) -> User | None:
    """The user of a live token; None for an unknown or revoked one alike."""
    row = (CalendarToken.objects.select_related("user")
           .filter(digest=token_digest(token), revoked_at__isnull=True).first())
    if row is None:
        return None
    CalendarToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
    return row.user


def _host() -> str:
    return urlsplit(settings.SITE_URL).hostname or "warcamp"


def _phase_event(phase: Phase) -> Event:
    campaign = phase.campaign
    paused = campaign.status == CampaignStatus.PAUSED
    when = (timezone.now() + phase.paused_remaining
            if paused and phase.paused_remaining is not None else phase.deadline_at
            ).replace(microsecond=0)  # iCalendar times are whole seconds
    title = f"{campaign.name}: turn {phase.turn.number}, {phase.get_kind_display()} deadline"
    event = Event()
    event.add("uid", f"phase-{phase.pk}@{_host()}")
    event.add("dtstamp", timezone.now())
    event.add("dtstart", when)
    event.add("dtend", when + timedelta(minutes=15))
    event.add("sequence", phase.version)
    event.add("summary", ("Paused: " if paused else "") + title)
    url = settings.SITE_URL.rstrip("/") + reverse("campaigns:lobby", args=[campaign.pk])
    event.add("url", url)
    event.add("description", (
        f"Paused by the GM with {_duration(phase.paused_remaining)} left; the deadline is set "
        "again when play resumes." if paused else
        "Orders are due by this time.") + f" {url}")
    event.add("status", "TENTATIVE" if paused else "CONFIRMED")
    return event


def _duration(d: timedelta | None) -> str:
    minutes = int((d or timedelta(0)).total_seconds() // 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _calendar(name: str, phases: list[Phase]) -> bytes:
    cal = Calendar()
    cal.add("prodid", "-//Warcamp//Phase deadlines//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", name)
    for phase in phases:
        cal.add_component(_phase_event(phase))
    return cal.to_ical()


def _open_phases(campaigns: list[int]) -> list[Phase]:
    return list(Phase.objects.filter(campaign_id__in=campaigns, status=PhaseStatus.OPEN)
                .select_related("campaign", "turn").order_by("deadline_at", "pk"))


def user_feed(user: User) -> bytes:
    """Every open phase's deadline of every campaign the user is a member of."""
    campaigns = list(Membership.objects.filter(user=user).values_list("campaign_id", flat=True))
    return _calendar(f"Warcamp deadlines of {user.public_name}", _open_phases(campaigns))


def campaign_feed(campaign: Campaign) -> bytes:
    """One campaign's open phase deadline (what anyone may know: when the turn is due)."""
    return _calendar(f"{campaign.name}: deadlines", _open_phases([campaign.pk]))
