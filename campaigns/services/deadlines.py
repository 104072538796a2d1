"""Phase deadlines of every game: the sweep, reminders, failures, pause and extensions.

The sweep finds the phases with something due, locks each one's campaign, sends the reminders
and asks the campaign's game what its deadline does (`campaigns.game.game_for(campaign)
.deadline_passed`; Erfworld's late players, hard deadlines and early closes are in
`campaigns.games.erfworld.deadlines`).

Every transition here is idempotent: it locks the campaign row, re-reads the phase, re-checks
what is due, does the work and advances the phase's version. Any number of concurrent sweeps,
retries and a person ending the phase at the same instant give one transition, one event, one
notice and one notification per recipient (unique constraints back this up).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import NotificationKind, User
from campaigns.errors import RuleViolationError, WrongStateError
from campaigns.game import game_for
from campaigns.models import (
    Campaign,
    CampaignStatus,
    DeadlineReminder,
    EventKind,
    Membership,
    Notice,
    Phase,
    PhaseStatus,
)
from campaigns.services.common import (
    lock_campaign_id,
    members_of,
    notify,
    record_event,
    require_gm,
)
from campaigns.services.phase_state import ALLIANCE_PHASES, save_moved_deadline

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepAction:
    """One thing the sweep did, as printed by `manage.py process_deadlines`."""

    campaign: int
    phase: int
    event: str
    user: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"campaign": self.campaign, "phase": self.phase, "event": self.event}
        if self.user is not None:
            out["user"] = self.user
        return out


def reminder_offsets() -> list[int]:
    return sorted({int(h) for h in settings.DEADLINE_REMINDER_OFFSETS_HOURS if int(h) > 0})


def due_phase_ids(*, now: datetime) -> list[int]:
    """Open phases of running campaigns with something due now, in three index-backed queries.

    1. a deadline not yet processed within the largest reminder offset (reminders, deadline
       reached): a range on the partial index of unprocessed open deadlines;
    2. a hard deadline passed (the few campaigns with hard deadlines, by a partial index);
    3. an alliance phase of an early-close campaign (likewise).
    Phases waiting for the Chief Warlord after their processed deadline are never re-read.
    """
    horizon = now + timedelta(hours=max(reminder_offsets(), default=0))
    live = Phase.objects.filter(
        status=PhaseStatus.OPEN,
        campaign__status=CampaignStatus.RUNNING,
        processing_flagged_at__isnull=True,
    )
    ids = set(
        live.filter(deadline_processed_at__isnull=True, deadline_at__lte=horizon)
        .values_list("pk", flat=True)
    )
    ids |= set(
        live.filter(campaign__hard_deadline=True, deadline_at__lte=now)
        .values_list("pk", flat=True)
    )
    ids |= set(
        live.filter(campaign__early_close=True, kind__in=ALLIANCE_PHASES)
        .values_list("pk", flat=True)
    )
    return sorted(ids)


def pause_cap_resume(*, campaign_id: int, now: datetime) -> list[SweepAction]:
    """A pause that has used up the campaign's pause cap ends itself."""
    with transaction.atomic():
        campaign = lock_campaign_id(campaign_id)
        if (campaign.status != CampaignStatus.PAUSED or campaign.max_pause_hours is None
                or campaign.paused_at is None):
            return []
        ends = campaign.paused_at + timedelta(
            seconds=max(campaign.max_pause_hours * 3600 - campaign.paused_seconds, 0))
        if now < ends:
            return []
        gm = Membership.objects.select_related("user").get(campaign=campaign, role="gm").user
        campaign_resume(user=gm, campaign=campaign,
                        reason=f"the pause cap of {campaign.max_pause_hours} hours is reached")
    return [SweepAction(campaign_id, 0, "pause_cap_resumed")]


def sweep(*, now: datetime | None = None) -> list[SweepAction]:
    """Process every due phase once; a phase that fails is rolled back and counted. Pauses
    that reached the campaign's pause cap end first."""
    now = now or timezone.now()
    actions: list[SweepAction] = []
    for campaign_id in Campaign.objects.filter(status=CampaignStatus.PAUSED,
                                               max_pause_hours__isnull=False).values_list(
            "pk", flat=True):
        actions.extend(pause_cap_resume(campaign_id=campaign_id, now=now))
    for phase_id in due_phase_ids(now=now):
        try:
            actions.extend(phase_process_deadline(phase_id=phase_id, now=now))
        except Exception as exc:  # noqa: BLE001 - one bad phase must not stop the others
            phase_record_failure(phase_id=phase_id, error=exc, now=now)
    return actions


@transaction.atomic
def phase_process_deadline(*, phase_id: int, now: datetime) -> list[SweepAction]:
    """Everything due for one phase as of `now`, in one transaction under the campaign lock."""
    campaign_id = Phase.objects.values_list("campaign_id", flat=True).get(pk=phase_id)
    campaign = lock_campaign_id(campaign_id)
    phase = Phase.objects.select_for_update().select_related("turn").get(pk=phase_id)
    if phase.status != PhaseStatus.OPEN or campaign.status != CampaignStatus.RUNNING:
        return []
    if phase.processing_flagged_at is not None:
        return []
    actions = _send_reminders(campaign, phase, now)
    done = game_for(campaign).deadline_passed(campaign=campaign, phase=phase, now=now)
    return [*actions, *(SweepAction(campaign.pk, phase.pk, name) for name in done)]


def pending_players(phase: Phase) -> list[Membership]:
    """The acting players not done with the phase (reminded; a game may wait for them)."""
    return [
        s.membership
        for s in phase.player_statuses.filter(done_at__isnull=True)
        .select_related("membership__user").order_by("pk")
    ]


def _send_reminders(campaign: Campaign, phase: Phase, now: datetime) -> list[SweepAction]:
    """Remind players not done, once per offset, never after the deadline.

    Only the closest offset that has come is sent (a sweep that was down for hours does not
    send a stale "24 hours left" next to the 1-hour one), and offsets longer than the phase
    itself are skipped.
    """
    if now >= phase.deadline_at:
        return []
    due = [
        h for h in reminder_offsets()
        if phase.deadline_at - timedelta(hours=h) <= now
        and phase.deadline_at - timedelta(hours=h) >= phase.opened_at
    ]
    if not due:
        return []
    offset = min(due)
    pending = pending_players(phase)
    already = set(
        DeadlineReminder.objects.filter(phase=phase, offset_hours__lte=offset)
        .values_list("membership_id", flat=True)
    )
    to_remind = [m for m in pending if m.pk not in already]
    if not to_remind:
        return []
    DeadlineReminder.objects.bulk_create(
        [DeadlineReminder(phase=phase, membership=m, offset_hours=offset, sent_at=now)
         for m in to_remind]
    )
    left = phase.deadline_at - now
    hours = int(left.total_seconds() // 3600)
    minutes = int(left.total_seconds() % 3600 // 60)
    event = record_event(
        campaign=campaign, kind=EventKind.REMINDER, phase=phase,
        summary=f"Turn {phase.turn.number}: {hours} h {minutes:02d} min left in the "
        f"{phase.get_kind_display().lower()}; waiting for "
        + ", ".join(m.user.public_name for m in to_remind) + ".",
        payload={"offset_hours": offset, "deadline_at": phase.deadline_at.isoformat(),
                 "memberships": [m.pk for m in to_remind]},
    )
    notify(event=event, users=[m.user for m in to_remind], kind=NotificationKind.REMINDER,
           message=f"{campaign.name}: your orders for turn {phase.turn.number} are due in "
           f"{hours} h {minutes:02d} min (the {phase.get_kind_display().lower()}).")
    Phase.objects.filter(pk=phase.pk).update(reminders_sent=F("reminders_sent") + len(to_remind))
    return [SweepAction(campaign.pk, phase.pk, "reminder", m.user.username) for m in to_remind]


def post_notice(campaign: Campaign, phase: Phase, kind: EventKind, body: str,
                actor: User | None = None, reason: str = "") -> None:
    """A notice on the campaign's pages, with its event."""
    event = record_event(campaign=campaign, kind=kind, phase=phase, summary=body, actor=actor,
                         payload={"reason": reason} if reason else None)
    Notice.objects.create(campaign=campaign, phase=phase, event=event, body=body)


def phase_record_failure(*, phase_id: int, error: Exception, now: datetime) -> None:
    """Count a failed attempt (the work itself was rolled back); flag the phase for the GM
    after DEADLINE_MAX_FAILURES attempts instead of retrying it forever."""
    logger.exception("deadline processing of phase %s failed", phase_id, exc_info=error)
    with transaction.atomic():
        phase = Phase.objects.select_for_update().select_related("campaign", "turn").get(
            pk=phase_id
        )
        phase.processing_failures += 1
        phase.processing_error = f"{type(error).__name__}: {error}"[:2000]
        fields = ["processing_failures", "processing_error"]
        if phase.processing_failures >= settings.DEADLINE_MAX_FAILURES:
            phase.processing_flagged_at = now
            fields.append("processing_flagged_at")
            logger.error("deadline processing of phase %s flagged after %s failures",
                         phase_id, phase.processing_failures)
            event = record_event(
                campaign=phase.campaign, kind=EventKind.PROCESSING_FLAGGED, phase=phase,
                summary=f"Deadline processing of turn {phase.turn.number}'s "
                f"{phase.get_kind_display().lower()} failed {phase.processing_failures} times "
                f"and is stopped until the GM looks at it: {phase.processing_error}",
                payload={"error": phase.processing_error},
            )
            notify(event=event, users=members_of(phase.campaign, gm=True))
        phase.save(update_fields=fields)


# --- GM controls -------------------------------------------------------------------------


def _open_phase(campaign: Campaign) -> Phase:
    phase = (
        Phase.objects.select_for_update().select_related("turn")
        .filter(campaign=campaign, status=PhaseStatus.OPEN).first()
    )
    if phase is None:
        raise WrongStateError("The campaign has no open phase.", code="no_open_phase")
    return phase


def _require_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise RuleViolationError("Give a reason: GM decisions are recorded with why.",
                                 code="reason_required", field="reason")
    return reason


@transaction.atomic
def deadline_extend(*, user: User, campaign: Campaign, hours: int, reason: str) -> Phase:
    """Move the open phase's deadline later, within the campaign's cap of extensions."""
    campaign = lock_campaign_id(campaign.pk)
    require_gm(user=user, campaign=campaign)
    reason = _require_reason(reason)
    if campaign.status not in (CampaignStatus.RUNNING, CampaignStatus.PAUSED):
        raise WrongStateError("Only a running or paused campaign has a deadline to extend.",
                              code="not_running")
    phase = _open_phase(campaign)
    if hours < 1:
        raise RuleViolationError("An extension is at least 1 hour.", code="bad_extension",
                                 field="hours")
    if phase.extended_hours + hours > campaign.max_extension_hours:
        left = campaign.max_extension_hours - phase.extended_hours
        raise RuleViolationError(
            f"Extensions are capped at {campaign.max_extension_hours} hours in total per phase; "
            f"this phase has had {phase.extended_hours}, so at most {left} more.",
            code="extension_cap", field="hours",
        )
    now = timezone.now()
    phase.extended_hours += hours
    if campaign.status == CampaignStatus.PAUSED and phase.paused_remaining is not None:
        phase.paused_remaining += timedelta(hours=hours)
    else:
        phase.deadline_at += timedelta(hours=hours)
    save_moved_deadline(phase, now=now,
                        fields=["extended_hours", "deadline_at", "paused_remaining"])
    event = record_event(
        campaign=campaign, kind=EventKind.DEADLINE_EXTENDED, actor=user, phase=phase,
        summary=f"The GM extended turn {phase.turn.number}'s "
        f"{phase.get_kind_display().lower()} by {hours} hours (new deadline "
        f"{phase.deadline_at:%Y-%m-%d %H:%M} UTC): {reason}",
        payload={"hours": hours, "reason": reason, "deadline_at": phase.deadline_at.isoformat(),
                 "extended_hours": phase.extended_hours},
    )
    Notice.objects.create(campaign=campaign, phase=phase, event=event, body=event.summary)
    notify(event=event, users=[s.membership.user for s in
                               phase.player_statuses.select_related("membership__user")])
    return phase


@transaction.atomic
def campaign_pause(*, user: User, campaign: Campaign, reason: str) -> Campaign:
    """Stop the clock: the open phase keeps its remaining time and nothing fires."""
    campaign = lock_campaign_id(campaign.pk)
    require_gm(user=user, campaign=campaign)
    reason = _require_reason(reason)
    if campaign.status != CampaignStatus.RUNNING:
        raise WrongStateError("Only a running campaign can be paused.", code="not_running")
    if (campaign.max_pause_hours is not None
            and campaign.paused_seconds >= campaign.max_pause_hours * 3600):
        raise RuleViolationError(
            f"The campaign's pause cap ({campaign.max_pause_hours} hours in all) is used up: "
            "extend the deadline instead, or raise the cap in the settings.",
            code="pause_cap_reached")
    now = timezone.now()
    phase = _open_phase(campaign)
    phase.paused_remaining = max(phase.deadline_at - now, timedelta(0))
    phase.version += 1
    phase.save(update_fields=["paused_remaining", "version"])
    campaign.status = CampaignStatus.PAUSED
    campaign.paused_at = now
    campaign.version += 1
    campaign.save(update_fields=["status", "paused_at", "version"])
    post_notice(campaign, phase, EventKind.CAMPAIGN_PAUSED,
                 f"The GM paused the campaign: {reason}", actor=user, reason=reason)
    return campaign


@transaction.atomic
def campaign_resume(*, user: User, campaign: Campaign, reason: str) -> Campaign:
    """Restart the clock with the time that was left when the campaign was paused."""
    campaign = lock_campaign_id(campaign.pk)
    require_gm(user=user, campaign=campaign)
    reason = _require_reason(reason)
    if campaign.status != CampaignStatus.PAUSED:
        raise WrongStateError("Only a paused campaign can be resumed.", code="not_paused")
    now = timezone.now()
    phase = _open_phase(campaign)
    remaining = phase.paused_remaining or timedelta(0)
    if remaining > timedelta(0):
        phase.deadline_at = now + remaining
    phase.paused_remaining = None
    phase.version += 1
    phase.save(update_fields=["deadline_at", "paused_remaining", "version"])
    campaign.status = CampaignStatus.RUNNING
    if campaign.paused_at is not None:
        campaign.paused_seconds += int((now - campaign.paused_at).total_seconds())
    campaign.paused_at = None
    campaign.version += 1
    campaign.save(update_fields=["status", "paused_at", "paused_seconds", "version"])
    post_notice(campaign, phase, EventKind.CAMPAIGN_RESUMED,
                 f"The GM resumed the campaign; the deadline is now "
                 f"{phase.deadline_at:%Y-%m-%d %H:%M} UTC: {reason}", actor=user,
                 reason=reason)
    return campaign


@transaction.atomic
def phase_processing_unflag(*, user: User, campaign: Campaign) -> Phase:
    """The GM has looked at a flagged phase: the sweep may try it again."""
    campaign = lock_campaign_id(campaign.pk)
    require_gm(user=user, campaign=campaign)
    phase = _open_phase(campaign)
    phase.processing_flagged_at = None
    phase.processing_failures = 0
    phase.save(update_fields=["processing_flagged_at", "processing_failures"])
    return phase


def notifications_mark_read(*, user: User, notification_ids: list[int]) -> int:
    """Mark the user's own notifications read; returns how many changed."""
    from campaigns.models import Notification

    return Notification.objects.filter(
        user=user, pk__in=notification_ids, read_at__isnull=True
    ).update(read_at=timezone.now())
