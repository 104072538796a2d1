"""Declared absences ("vacation"): a player says in advance when they will be away. Meanwhile
the Chief Warlord may give their orders (as for a late player) and the phase need not wait
for them; a phase they miss while away counts as excused, not missed. Each player has an
allowance of days per campaign (Campaign.absence_days). Everyone sees who is away."""

from __future__ import annotations

from datetime import date, timedelta

from django.db import transaction

from accounts.models import User
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.models import Absence, Campaign, CampaignStatus, EventKind
from campaigns.selectors.absences import local_today
from campaigns.services.common import lock_campaign, record_event, require_alliance_player

MAX_AHEAD_DAYS = 365


def _date(value: object, field: str, label: str) -> date:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise RuleViolationError(f"{label}: a date as YYYY-MM-DD, not {value!r}.",
                                 code="invalid_field", field=field) from None


@transaction.atomic
def absence_declare(*, user: User, campaign: Campaign, starts_on: object, ends_on: object,
                    note: str = "") -> Absence:
    campaign = lock_campaign(campaign)
    player = require_alliance_player(user=user, campaign=campaign)
    if campaign.status == CampaignStatus.FINISHED:
        raise WrongStateError("The campaign has ended.", code="finished")
    start = _date(starts_on, "starts_on", "From")
    end = _date(ends_on, "ends_on", "Until")
    today = local_today(player)
    if start < today:
        raise RuleViolationError("From: an absence is declared in advance (today at the "
                                 "earliest).", code="invalid_field", field="starts_on")
    if end < start:
        raise RuleViolationError("Until: on or after the first day away.", code="invalid_field",
                                 field="ends_on")
    if start > today + timedelta(days=MAX_AHEAD_DAYS):
        raise RuleViolationError(f"From: at most {MAX_AHEAD_DAYS} days ahead.",
                                 code="invalid_field", field="starts_on")
    note = note.strip()
    if len(note) > 200:
        raise RuleViolationError("Note: at most 200 characters.", code="invalid_field",
                                 field="note")
    mine = list(Absence.objects.filter(membership=player))
    if any(a.starts_on <= end and start <= a.ends_on for a in mine):
        raise RuleViolationError("From: it overlaps an absence you declared already.",
                                 code="invalid_field", field="starts_on")
    days = (end - start).days + 1
    used = sum(a.days for a in mine)
    if used + days > campaign.absence_days:
        raise RuleViolationError(
            f"Until: {days} days would make {used + days} days away in this campaign; the "
            f"allowance is {campaign.absence_days} ({campaign.absence_days - used} left).",
            code="absence_allowance", field="ends_on")
    absence = Absence.objects.create(membership=player, starts_on=start, ends_on=end, note=note)
    record_event(
        campaign=campaign, kind=EventKind.ABSENCE, actor=user,
        summary=f"{user.public_name} will be away from {start:%a %d %b} to {end:%a %d %b %Y}; "
        "the Chief Warlord may give their orders meanwhile.",
        payload={"absence": absence.pk, "starts_on": start.isoformat(),
                 "ends_on": end.isoformat()})
    return absence


@transaction.atomic
def absence_cancel(*, user: User, absence: Absence) -> Absence | None:
    """Cancel an absence of one's own: one not begun is deleted; one under way ends today."""
    campaign = lock_campaign(absence.membership.campaign)
    absence = Absence.objects.select_related("membership__user").get(pk=absence.pk)
    if absence.membership.user_id != user.pk:
        raise NotAllowedError("Only the player who declared an absence may cancel it.",
                              code="not_owner")
    today = local_today(absence.membership)
    if absence.ends_on < today:
        raise WrongStateError("That absence is over.", code="absence_over")
    if absence.starts_on > today:
        absence.delete()
        result = None
    else:
        absence.ends_on = today
        absence.save(update_fields=["ends_on"])
        result = absence
    record_event(campaign=campaign, kind=EventKind.ABSENCE, actor=user,
                 summary=f"{user.public_name} is back: their absence is cancelled.",
                 payload={"absence_cancelled": True})
    return result
