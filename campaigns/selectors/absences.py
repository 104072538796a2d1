"""Reads of declared absences (campaigns.services.absences writes them)."""

from __future__ import annotations

from datetime import date, datetime

from django.utils import timezone

from campaigns.models import Absence, Membership


def local_today(membership: Membership, now: datetime | None = None) -> date:
    return (now or timezone.now()).astimezone(membership.user.zone).date()


def is_away(membership: Membership, now: datetime | None = None) -> bool:
    """Whether the player has declared themselves away on today's date in their zone."""
    today = local_today(membership, now)
    return Absence.objects.filter(membership=membership, starts_on__lte=today,
                                  ends_on__gte=today).exists()
