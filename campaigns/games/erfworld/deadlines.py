"""What Erfworld does when a phase's deadline comes (`ErfworldGame.deadline_passed`).

The generic sweep (`campaigns.services.deadlines`) locks the campaign, sends the reminders and
asks the game; for Erfworld this module draws the alliance's empty draw, moves a deadline for
absences, marks the late players (the Chief Warlord's proxy), closes a phase at its hard
deadline and closes an alliance phase early once everyone is done. It keeps the sweep's
promise: idempotent under the campaign lock, one transition and one notice each.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from accounts.models import NotificationKind
from campaigns.games.erfworld.phases import phase_close
from campaigns.models import (
    Campaign,
    EventKind,
    Membership,
    Notice,
    Phase,
    PlayerPhaseStatus,
)
from campaigns.selectors.absences import covered
from campaigns.services.common import members_of, notify, record_event
from campaigns.services.deadlines import pending_players, post_notice
from campaigns.services.phase_state import ALLIANCE_PHASES, save_moved_deadline


def erfworld_deadline(campaign: Campaign, phase: Phase, now: datetime) -> list[str]:
    """What is due for an Erfworld phase at `now` once its reminders are sent (campaign
    locked): the alliance's draw drawn by the server, a deadline moved for absences, the
    deadline reached (late players, the Chief Warlord's proxy), a hard deadline's close, an
    early close. Returns the names of what it did (the Erfworld game's `deadline_passed`)."""
    actions: list[str] = []
    if phase.awaiting_draw:
        if now < phase.deadline_at:
            return actions
        phase_close(campaign=campaign, phase=phase, actor=None, now=now,
                    reason="the alliance did not draw in time")
        post_notice(campaign, phase, EventKind.PHASE_AUTO_CLOSED,
                     f"Turn {phase.turn.number}: no alliance player drew in time, so the "
                     "server drew an empty draw and the opposition phase closed.")
        return [*actions, "drawn_by_server"]
    if now >= phase.deadline_at and _extended_for_absences(campaign, phase, now):
        return [*actions, "extended_for_absence"]
    if now >= phase.deadline_at and phase.deadline_processed_at is None:
        actions.extend(_deadline_reached(campaign, phase, now))
    if now >= phase.deadline_at and campaign.hard_deadline:
        nxt = phase_close(campaign=campaign, phase=phase, actor=None, now=now,
                          reason="hard deadline reached")
        if nxt.pk == phase.pk and nxt.awaiting_draw:
            post_notice(campaign, phase, EventKind.PHASE_AUTO_CLOSED,
                         f"Turn {phase.turn.number}: the opposition's orders closed at the "
                         "hard deadline; the declared combats wait for the alliance's draw.")
            actions.append("draw_asked")
            return actions
        post_notice(campaign, phase, EventKind.PHASE_AUTO_CLOSED,
                     f"Turn {phase.turn.number}: the {phase.get_kind_display().lower()} closed "
                     "itself at its hard deadline with the orders given so far.")
        actions.append("auto_closed")
    elif campaign.early_close and phase.kind in ALLIANCE_PHASES and _everyone_done(phase):
        phase_close(campaign=campaign, phase=phase, actor=None, now=now,
                    reason="every player is done")
        post_notice(campaign, phase, EventKind.PHASE_EARLY_CLOSED,
                     f"Turn {phase.turn.number}: every player is done, so the "
                     f"{phase.get_kind_display().lower()} closed early.")
        actions.append("early_closed")
    return actions


def _extended_for_absences(campaign: Campaign, phase: Phase, now: datetime) -> bool:
    """With `absence_extends`, an alliance phase reaching its deadline while a player not
    done is away moves its deadline to the end of the last such absence (midnight after its
    last day, in that player's zone). Returns whether it did."""
    if not campaign.absence_extends or phase.kind not in ALLIANCE_PHASES:
        return False
    from campaigns.models import Absence
    pending = pending_players(phase)
    ends: list[tuple[datetime, Membership]] = []
    for a in Absence.objects.filter(membership__in=pending).select_related("membership__user"):
        if covered([a], now, a.membership):
            zone = a.membership.user.zone
            end = datetime.combine(a.ends_on + timedelta(days=1), datetime.min.time(), zone)
            ends.append((end, a.membership))
    if not ends:
        return False
    end = max(e for e, _ in ends).astimezone(UTC)
    if end <= phase.deadline_at:
        return False
    phase.deadline_at = end
    save_moved_deadline(phase, now=now, fields=["deadline_at"])
    away = sorted({m.user.public_name for _, m in ends})
    event = record_event(
        campaign=campaign, kind=EventKind.DEADLINE_EXTENDED, phase=phase,
        summary=f"Turn {phase.turn.number}'s {phase.get_kind_display().lower()} waits for "
        f"{', '.join(away)}, away: its deadline moves to {end:%Y-%m-%d %H:%M} UTC (the "
        "campaign's absences extend the phase).",
        payload={"deadline_at": end.isoformat(), "away": [m.pk for _, m in ends],
                 "absence": True})
    Notice.objects.create(campaign=campaign, phase=phase, event=event, body=event.summary)
    notify(event=event, users=[s.membership.user for s in
                               phase.player_statuses.select_related("membership__user")]
           + members_of(campaign, gm=True))
    return True


def _everyone_done(phase: Phase) -> bool:
    statuses = list(phase.player_statuses.all())
    return bool(statuses) and all(s.done_at is not None for s in statuses)


def _deadline_reached(campaign: Campaign, phase: Phase, now: datetime) -> list[str]:
    statuses = list(
        phase.player_statuses.filter(done_at__isnull=True).select_related("membership__user")
        .order_by("pk")
    )
    for s in statuses:
        s.late = True
    PlayerPhaseStatus.objects.bulk_update(statuses, ["late"])
    late = [s.membership for s in statuses]
    phase.deadline_processed_at = now
    phase.version += 1
    phase.save(update_fields=["deadline_processed_at", "version"])
    names = ", ".join(m.user.public_name for m in late)
    chief = list(
        Membership.objects.filter(campaign=campaign, is_chief_warlord=True).select_related("user")
    )
    if phase.kind in ALLIANCE_PHASES:
        who = (f"late: {names}; the Chief Warlord may now give their orders and end the phase"
               if late else "every player was done in time")
    else:
        who = "the GM ends the opposition phase"
    body = (f"Turn {phase.turn.number}: the deadline of the {phase.get_kind_display().lower()} "
            f"({campaign.hours_for(phase.kind)} hours) has passed — {who}.")
    event = record_event(
        campaign=campaign, kind=EventKind.DEADLINE_REACHED, phase=phase, summary=body,
        payload={"late": [m.pk for m in late], "deadline_at": phase.deadline_at.isoformat()},
    )
    Notice.objects.create(campaign=campaign, phase=phase, event=event, body=body)
    # One notification per recipient: a late Chief Warlord gets the proxy message only.
    chief_users = {m.user.pk for m in chief}
    notify(event=event, users=[m.user for m in late if m.user.pk not in chief_users],
           kind=NotificationKind.DEADLINE_REACHED,
           message=f"{campaign.name}: you are late for turn {phase.turn.number}; the Chief "
           "Warlord may now give your orders.")
    if late and chief and phase.kind in ALLIANCE_PHASES:
        notify(event=event, users=[m.user for m in chief], kind=NotificationKind.DEADLINE_REACHED,
               message=f"{campaign.name}: {names} late; you may act for them as proxy and end "
               "the phase.")
    gms = [u for u in members_of(campaign, gm=True)
           if u.pk not in chief_users and u.pk not in {m.user.pk for m in late}]
    notify(event=event, users=gms, kind=NotificationKind.DEADLINE_REACHED)
    return ["deadline_reached"]
