"""Reads for the notification centre: the user's notifications with a link to where each leads."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from accounts.models import NotificationKind, User
from campaigns.models import Campaign, Membership, Notification
from campaigns.selectors.reports import REPORT_KINDS

PAGE_SIZE = 50

_REPORTS = set(REPORT_KINDS.values())
_MAP_KINDS = {NotificationKind.PHASE_OPENED, NotificationKind.REMINDER,
              NotificationKind.DEADLINE_REACHED}


def _link(note: Notification) -> tuple[str, str]:
    """(address, what it opens): the post of a mention; the report of a combat, siege,
    ambush or scouting; the map for a phase to play; else the campaign's overview."""
    campaign = note.campaign_id
    if note.kind == NotificationKind.MENTION and note.link:
        return note.link, "Open the post"
    if note.event is not None and note.event.kind in _REPORTS:
        return reverse("campaigns:report", args=[campaign, note.event_id]), "Open the report"
    if note.kind in _MAP_KINDS:
        return reverse("campaigns:map", args=[campaign]), "Open the map"
    if note.kind == NotificationKind.MENTION:
        return reverse("campaigns:forum", args=[campaign]), "Open the forum"
    return reverse("campaigns:lobby", args=[campaign]), "Open the campaign"


def notification_centre(
    *, user: User, campaign_id: int | None = None, unread_only: bool = False
) -> dict[str, Any]:
    """The user's latest notifications (newest first), optionally of one campaign or only
    the unread ones, each with its link; the campaigns to filter by (those the user is a
    member of and has notifications from) and the unread count."""
    notes = Notification.objects.filter(user=user).select_related("campaign", "event")
    if campaign_id is not None:
        notes = notes.filter(campaign_id=campaign_id)
    if unread_only:
        notes = notes.filter(read_at__isnull=True)
    rows = []
    for note in notes.order_by("-created_at", "-pk")[:PAGE_SIZE]:
        href, label = _link(note)
        rows.append({"id": note.pk, "campaign": note.campaign.name,
                     "campaign_id": note.campaign_id, "kind": note.get_kind_display(),
                     "message": note.message, "created_at": note.created_at,
                     "read": note.read_at is not None, "href": href, "link_label": label})
    member_of = Membership.objects.filter(user=user).values("campaign_id")
    campaigns = [
        {"id": c.pk, "name": c.name}
        for c in Campaign.objects.filter(pk__in=member_of,
                                         notifications__user=user).distinct().order_by("name")
    ]
    return {
        "rows": rows,
        "campaigns": campaigns,
        "campaign_id": campaign_id,
        "unread_only": unread_only,
        "unread": Notification.objects.filter(user=user, read_at__isnull=True).count(),
    }
