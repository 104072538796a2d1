"""Reads of declared absences (campaigns.services.absences writes them) and of players who
stand down: away today, or gone quiet (the campaign's limit of phases missed in a row)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime

from django.utils import timezone

from campaigns.models import (
    Absence,
    Campaign,
    Membership,
    Phase,
    PhaseKind,
    PhaseStatus,
    PlayerPhaseStatus,
)

ALLIANCE_KINDS = (PhaseKind.SCOUT, PhaseKind.MOVE_COMBAT)


def local_today(membership: Membership, now: datetime | None = None) -> date:
    return (now or timezone.now()).astimezone(membership.user.zone).date()


def covered(absences: Iterable[Absence], moment: datetime, membership: Membership) -> bool:
    """Whether `moment` falls, in the player's zone, on a day of one of their absences."""
    day = moment.astimezone(membership.user.zone).date()
    return any(a.starts_on <= day <= a.ends_on for a in absences)


def _absences_of(members: list[Membership]) -> dict[int, list[Absence]]:
    out: dict[int, list[Absence]] = {}
    for a in Absence.objects.filter(membership__in=[m.pk for m in members]):
        out.setdefault(a.membership_id, []).append(a)
    return out


def standing_down(campaign: Campaign, memberships: Iterable[Membership],
                  now: datetime | None = None) -> set[int]:
    """The ids of the players who stand down: away today (their zone) or gone quiet, i.e.
    the last `missed_phases_limit` alliance phases closed without their orders, no proxy, not
    while away. A fixed number of queries, whatever the number of players."""
    members = list(memberships)
    if not members:
        return set()
    now = now or timezone.now()
    absences = _absences_of(members)
    # Away stands down, unless the campaign's absences extend the phase (it waits instead).
    out = (set() if campaign.absence_extends
           else {m.pk for m in members if covered(absences.get(m.pk, []), now, m)})
    limit = campaign.missed_phases_limit
    if limit is None:
        return out
    phases = list(Phase.objects.filter(campaign=campaign, status=PhaseStatus.CLOSED,
                                       kind__in=ALLIANCE_KINDS).order_by("-opened_at")[:limit])
    if len(phases) < limit:
        return out
    by_pk = {m.pk: m for m in members}
    missed: dict[int, int] = {}
    for s in PlayerPhaseStatus.objects.filter(phase__in=phases, membership__in=list(by_pk),
                                              done_at__isnull=True, proxied_by__isnull=True
                                              ).select_related("phase"):
        m = by_pk[s.membership_id]
        if not covered(absences.get(m.pk, []), s.phase.deadline_at, m):
            missed[m.pk] = missed.get(m.pk, 0) + 1
    return out | {pk for pk, n in missed.items() if n >= limit}


def missed_in_a_row(membership: Membership) -> int:
    """How many of the player's last closed phases in a row ended without their orders (no
    proxy either, not on a declared absence)."""
    count = 0
    statuses = (PlayerPhaseStatus.objects.filter(membership=membership,
                                                 phase__status=PhaseStatus.CLOSED)
                .select_related("phase").order_by("-phase__opened_at")[:50])
    absences = list(Absence.objects.filter(membership=membership))
    for s in statuses:
        if s.done_at is not None or s.proxied_by_id is not None or covered(
                absences, s.phase.deadline_at, membership):
            break
        count += 1
    return count


