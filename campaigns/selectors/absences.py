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


def missed_in_a_row(membership: Membership) -> int:
    """How many of the player's last closed phases in a row ended without their orders (no
    proxy either, not on a declared absence)."""
    from campaigns.models import PhaseStatus, PlayerPhaseStatus

    count = 0
    statuses = (PlayerPhaseStatus.objects.filter(membership=membership,
                                                 phase__status=PhaseStatus.CLOSED)
                .select_related("phase").order_by("-phase__opened_at")[:50])
    absences = list(Absence.objects.filter(membership=membership))
    zone = membership.user.zone
    for s in statuses:
        day = s.phase.deadline_at.astimezone(zone).date()
        if s.done_at is not None or s.proxied_by_id is not None or any(
                a.starts_on <= day <= a.ends_on for a in absences):
            break
        count += 1
    return count
