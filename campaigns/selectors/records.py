"""Players' records (NMR, "no move received"): for each alliance player and closed phase, one
of played (orders marked done in time), late (done after the deadline), proxied (the Chief
Warlord acted for them) and missed (the phase closed without their orders; a phase that the
campaign's victory closed is missed by nobody). A player with no closed phase yet is "new",
never unreliable."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet

from accounts.models import User
from campaigns.models import Absence, Campaign, Membership, PhaseStatus, PlayerPhaseStatus
from campaigns.selectors.absences import covered

_SELF = Q(proxied_by__isnull=True)
# Not done, in a phase that ended by its deadline or its closing, not by the victory (which
# closes the open phase at the moment the campaign finishes).
_MISSED = _SELF & Q(done_at__isnull=True) & (
    Q(phase__campaign__finished_at__isnull=True)
    | ~Q(phase__closed_at=F("phase__campaign__finished_at")))


@dataclass(frozen=True)
class Record:
    played: int = 0
    late: int = 0
    proxied: int = 0
    missed: int = 0
    excused: int = 0  # missed while on a declared absence

    @property
    def phases(self) -> int:
        return self.played + self.late + self.proxied + self.missed + self.excused

    def __str__(self) -> str:
        if not self.phases:
            return "new"
        parts = [f"{self.played} played"]
        parts += [f"{n} {what}" for n, what in ((self.late, "late"),
                                                (self.proxied, "proxied"),
                                                (self.missed, "missed"),
                                                (self.excused, "away")) if n]
        return " · ".join(parts)


def _records(statuses: QuerySet[PlayerPhaseStatus]) -> dict[int, Record]:
    rows = statuses.values("membership").annotate(
        played=Count("pk", filter=_SELF & Q(done_at__isnull=False, late=False)),
        late_n=Count("pk", filter=_SELF & Q(done_at__isnull=False, late=True)),
        proxied=Count("pk", filter=Q(proxied_by__isnull=False)),
        missed=Count("pk", filter=_MISSED),
    )
    excused = _excused(statuses)
    return {r["membership"]: Record(played=r["played"], late=r["late_n"],
                                    proxied=r["proxied"],
                                    missed=r["missed"] - excused.get(r["membership"], 0),
                                    excused=excused.get(r["membership"], 0)) for r in rows}


def _excused(statuses: QuerySet[PlayerPhaseStatus]) -> dict[int, int]:
    """Missed phases whose deadline fell on a day the player had declared themselves away."""
    missed = list(statuses.filter(_MISSED)
                  .select_related("phase", "membership__user"))
    if not missed:
        return {}
    absences: dict[int, list[Absence]] = {}
    for a in Absence.objects.filter(membership__in={s.membership_id for s in missed}):
        absences.setdefault(a.membership_id, []).append(a)
    out: dict[int, int] = {}
    for s in missed:
        if covered(absences.get(s.membership_id, []), s.phase.deadline_at, s.membership):
            out[s.membership_id] = out.get(s.membership_id, 0) + 1
    return out


def campaign_records(campaign: Campaign) -> dict[int, Record]:
    """Each player's record in this campaign, by membership id (one query)."""
    return _records(PlayerPhaseStatus.objects.filter(
        phase__campaign=campaign, phase__status=PhaseStatus.CLOSED))


def user_records(user: User) -> list[tuple[Campaign, Record]]:
    """The user's record in each campaign they play, newest campaign first (the profile)."""
    memberships = list(Membership.objects.filter(user=user, role="player")
                       .select_related("campaign").order_by("-campaign__created_at"))
    records = _records(PlayerPhaseStatus.objects.filter(
        membership__in=memberships, phase__status=PhaseStatus.CLOSED))
    return [(m.campaign, records.get(m.pk, Record())) for m in memberships]


def total_record(rows: list[tuple[Campaign, Record]]) -> Record:
    return Record(played=sum(r.played for _, r in rows), late=sum(r.late for _, r in rows),
                  proxied=sum(r.proxied for _, r in rows),
                  missed=sum(r.missed for _, r in rows),
                  excused=sum(r.excused for _, r in rows))
