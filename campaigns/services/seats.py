"""Leaving, removal and open seats.

Before the start, a player who leaves (or whom the GM removes) is gone with their army. After
it, their seat opens: they become a former player (no side, so they see only what everyone
sees), their units stay theirs and hold, commanded by the Chief Warlord as a late player's
are, until someone takes the seat over through the campaign's invite link. The newcomer takes
the army, its unit types and pop points, and gets a full phase to give orders; a player who
takes back the seat they left gets their army back and no extra time. Each holder's record
(played, missed …) stays with their own membership."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from campaigns.access import is_open_seat as is_open_seat
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.models import (
    Campaign,
    CampaignStatus,
    EventKind,
    Membership,
    Phase,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    SideKind,
    Unit,
    UnitType,
)
from campaigns.services.common import (
    lock_campaign,
    members_of,
    membership_of,
    notify,
    record_event,
    require_gm,
    side_of,
)
from campaigns.services.phase_state import ALLIANCE_PHASES, save_moved_deadline


def open_seats(campaign: Campaign) -> list[Membership]:
    """The seats left open since the start, oldest first, each with `living_units` (on the
    map or waiting to pop)."""
    return list(Membership.objects.select_related("user").filter(
        campaign=campaign, role=Role.FORMER, successor__isnull=True, left_at__isnull=False)
        .annotate(living_units=Count("units", filter=Q(units__current_hits__gt=0)))
        .order_by("left_at", "pk"))


@transaction.atomic
def player_leave(*, user: User, campaign: Campaign) -> Membership | None:
    """A player leaves the campaign (the GM hands the GM role over first)."""
    campaign = lock_campaign(campaign)
    member = membership_of(user=user, campaign=campaign)
    if member.role == Role.GM:
        raise WrongStateError("The GM cannot leave: hand the GM role to another member first.",
                              code="gm_cannot_leave")
    return _vacate(campaign, member, actor=user, reason="", removed=False)


@transaction.atomic
def player_remove(*, user: User, campaign: Campaign, membership: Membership,
                  reason: str) -> Membership | None:
    """The GM removes a player, saying why (the reason is public)."""
    campaign = lock_campaign(campaign)
    require_gm(user=user, campaign=campaign)
    reason = reason.strip()
    if not reason:
        raise RuleViolationError("Say why the player is removed: everyone will read it.",
                                 code="reason_required", field="reason")
    member = Membership.objects.select_for_update().select_related("user").filter(
        pk=membership.pk, campaign=campaign).first()
    if member is None:
        raise NotAllowedError("No such member.", code="invalid_field", field="membership")
    return _vacate(campaign, member, actor=user, reason=reason, removed=True)


def _vacate(campaign: Campaign, member: Membership, *, actor: User, reason: str,
            removed: bool) -> Membership | None:
    if member.role != Role.PLAYER:
        raise WrongStateError(f"{member.user.public_name} is not a player of this campaign.",
                              code="not_a_player")
    if campaign.status == CampaignStatus.FINISHED:
        raise WrongStateError("The campaign is finished; its members stay as they were.",
                              code="campaign_finished")
    name = member.user.public_name
    why = f": {reason.rstrip('.!')}" if reason else ""
    if campaign.status == CampaignStatus.SETUP:
        # Nothing has happened yet: the player goes with their army and their vote.
        Unit.objects.filter(owner=member).delete()
        UnitType.objects.filter(owner=member).delete()
        member.delete()
        event = record_event(
            campaign=campaign, kind=EventKind.PLAYER_LEFT, actor=actor,
            summary=(f"The GM removed {name}{why}." if removed else f"{name} left the campaign."),
            payload={"membership": member.pk, "removed": removed, "reason": reason,
                     "seat_open": False})
        notify(event=event, users=members_of(campaign, gm=True))
        return None
    was_chief = member.is_chief_warlord
    member.role = Role.FORMER
    member.side = None
    member.is_chief_warlord = False
    member.is_deputy = False
    member.chief_warlord_vote = None
    member.left_at = timezone.now()
    member.left_reason = reason
    member.removed_by_gm = removed
    member.save(update_fields=["role", "side", "is_chief_warlord", "is_deputy",
                               "chief_warlord_vote", "left_at", "left_reason", "removed_by_gm"])
    # Not waited for in the open phase (a status already marked done stays on the record).
    PlayerPhaseStatus.objects.filter(membership=member, phase__status=PhaseStatus.OPEN,
                                     done_at__isnull=True).delete()
    chief = ""
    if was_chief:
        deputy = Membership.objects.select_related("user").filter(
            campaign=campaign, role=Role.PLAYER, is_deputy=True).first()
        if deputy is not None:
            deputy.is_chief_warlord, deputy.is_deputy = True, False
            deputy.save(update_fields=["is_chief_warlord", "is_deputy"])
            chief = f" The deputy, {deputy.user.public_name}, is now the Chief Warlord."
        else:
            chief = " The alliance has no Chief Warlord until the GM appoints one."
    units = Unit.objects.filter(owner=member, current_hits__gt=0).count()
    event = record_event(
        campaign=campaign, kind=EventKind.PLAYER_LEFT, actor=actor,
        summary=(f"The GM removed {name}{why}." if removed else f"{name} left the campaign.")
        + f" Their seat is open: the Chief Warlord commands their {units} "
        f"unit{'s' if units != 1 else ''} until someone takes the seat.{chief}",
        payload={"membership": member.pk, "removed": removed, "reason": reason,
                 "seat_open": True, "units": units, "was_chief_warlord": was_chief})
    notify(event=event, users=[*members_of(campaign, gm=True), member.user])
    return member


@transaction.atomic
def seat_claim(*, user: User, invite_code: str, seat: int) -> Membership:
    """Take over an open seat through the campaign's invite link. One holder per seat: the
    seat's row is locked, so of two people claiming it at once the second is refused."""
    campaign = Campaign.objects.filter(invite_code=invite_code.strip()).first()
    if campaign is None:
        raise NotAllowedError("This invite code does not belong to any campaign.",
                              code="invalid_invite", field="invite_code")
    campaign = lock_campaign(campaign)
    if campaign.status not in (CampaignStatus.RUNNING, CampaignStatus.PAUSED):
        raise WrongStateError("Seats open only in a running campaign.", code="not_running")
    former = Membership.objects.select_for_update().select_related("user").filter(
        pk=seat, campaign=campaign).first()
    if former is None or not is_open_seat(former):
        raise WrongStateError("That seat is not open (someone may just have taken it).",
                              code="seat_taken", field="seat")
    holder = Membership.objects.select_for_update().filter(campaign=campaign, user=user).first()
    retake = holder is not None and holder.pk == former.pk
    if holder is not None and not retake:
        if holder.role in (Role.PLAYER, Role.GM):
            raise WrongStateError(f"{user.public_name} is already a member of "
                                  f"{campaign.name!r}.", code="already_member")
        if is_open_seat(holder):
            raise WrongStateError("Your own seat is still open: take that one back instead.",
                                  code="own_seat_open", field="seat")
    alliance = side_of(campaign, SideKind.ALLIANCE)
    if holder is None:
        holder = Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER,
                                           side=alliance)
    holder.role, holder.side = Role.PLAYER, alliance
    holder.left_at, holder.left_reason, holder.removed_by_gm = None, "", False
    holder.army_ready_at = holder.army_ready_at or former.army_ready_at or timezone.now()
    if not retake:
        Unit.objects.filter(owner=former).update(owner=holder)
        UnitType.objects.filter(owner=former).update(owner=holder)
        holder.pop_points += former.pop_points
        former.pop_points = 0
        former.successor = holder
        former.save(update_fields=["pop_points", "successor"])
    holder.save(update_fields=["role", "side", "left_at", "left_reason", "removed_by_gm",
                               "army_ready_at", "pop_points"])
    now = timezone.now()
    phase = Phase.objects.select_for_update().filter(
        campaign=campaign, status=PhaseStatus.OPEN).select_related("turn").first()
    extra = ""
    if phase is not None and phase.kind in ALLIANCE_PHASES:
        PlayerPhaseStatus.objects.get_or_create(phase=phase, membership=holder)
        if not retake:
            extra = _full_phase(campaign, phase, now)
    units = Unit.objects.filter(owner=holder, current_hits__gt=0).count()
    name = user.public_name
    event = record_event(
        campaign=campaign, kind=EventKind.SEAT_TAKEN, actor=user, phase=phase,
        summary=(f"{name} is back and takes their seat again ({units} units)." if retake
                 else f"{name} took over {former.user.public_name}'s seat and its army "
                 f"({units} units).{extra}"),
        payload={"seat": former.pk, "membership": holder.pk, "retake": retake,
                 "units": units})
    notify(event=event, users=members_of(campaign, gm=True)
           + [m.user for m in Membership.objects.select_related("user").filter(
               campaign=campaign, is_chief_warlord=True)])
    return holder


def _full_phase(campaign: Campaign, phase: Phase, now: datetime) -> str:
    """A newcomer gets a full phase: the deadline moves so that the phase's whole length is
    left (never earlier; not counted against the GM's extension cap)."""
    length = timedelta(hours=campaign.hours_for(phase.kind))
    if campaign.status == CampaignStatus.PAUSED and phase.paused_remaining is not None:
        if phase.paused_remaining >= length:
            return ""
        phase.paused_remaining = length
        phase.version += 1
        phase.save(update_fields=["paused_remaining", "version"])
        return " The phase keeps a full length for them when it resumes."
    if phase.deadline_at >= now + length:
        return ""
    phase.deadline_at = now + length
    save_moved_deadline(phase, now=now, fields=["deadline_at"])
    return (f" The phase now closes {phase.deadline_at:%Y-%m-%d %H:%M} UTC, so that they have "
            "a full phase.")
