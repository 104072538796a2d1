"""The open phase and who acts in it: the phases' deadlines, opening a phase, the lock on the
open phase, who is late, who commands for whom and the proxy's record. Below the services that
act in a phase (phases, turns, engine, draw, seats …), which all ask here."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.models import NotificationKind, User
from campaigns.access import is_open_seat, require_alliance_player
from campaigns.deadline_clock import phase_deadline as phase_deadline
from campaigns.errors import NotAllowedError, WrongStateError
from campaigns.models import (
    Campaign,
    CampaignStatus,
    EventKind,
    Membership,
    Phase,
    PhaseKind,
    PhaseSnapshot,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    SideKind,
    Turn,
    Unit,
)
from campaigns.selectors import campaign_game_state
from campaigns.selectors.absences import missed_in_a_row, standing_down
from campaigns.services.common import (
    members_of,
    notify,
    record_event,
)
from campaigns.services.settings import apply_pending_settings
from rules.dice import commitment, new_seed

ALLIANCE_PHASES = (PhaseKind.SCOUT, PhaseKind.MOVE_COMBAT)


def open_phase(
    *, campaign: Campaign, turn: Turn, kind: PhaseKind, now: datetime, actor: User | None
) -> Phase:
    """Open a phase (campaign locked): a fresh secret seed with its published commitment,
    a status row per acting player, a snapshot of the whole game state, an event."""
    apply_pending_settings(campaign)
    seed = new_seed()
    phase = Phase.objects.create(
        campaign=campaign, turn=turn, kind=kind, status=PhaseStatus.OPEN, opened_at=now,
        deadline_at=phase_deadline(campaign, kind, now), dice_seed=seed,
        dice_commitment=commitment(seed),
    )
    acting = SideKind.ALLIANCE if kind in ALLIANCE_PHASES else SideKind.OPPOSITION
    players = list(
        Membership.objects.filter(campaign=campaign, role=Role.PLAYER, side__kind=acting)
        .select_related("user", "side").order_by("pk")
    )
    if kind != PhaseKind.SCOUT:  # an alliance phase has just closed
        flag_quiet_players(campaign, list(
            Membership.objects.filter(campaign=campaign, role=Role.PLAYER,
                                      side__kind=SideKind.ALLIANCE)
            .select_related("user", "side").order_by("pk")))
    PlayerPhaseStatus.objects.bulk_create(
        [PlayerPhaseStatus(phase=phase, membership=p) for p in players]
    )
    PhaseSnapshot.objects.create(phase=phase, state=campaign_game_state(campaign=campaign))
    event = record_event(
        campaign=campaign, kind=EventKind.PHASE_OPENED, actor=actor, phase=phase,
        summary=f"Turn {turn.number}: the {phase.get_kind_display().lower()} is open until "
        f"{phase.deadline_at:%Y-%m-%d %H:%M} UTC.",
        payload={"turn": turn.number, "kind": kind.value,
                 "deadline_at": phase.deadline_at.isoformat(),
                 "dice_commitment": phase.dice_commitment},
    )
    notify(event=event, users=[p.user for p in players] + members_of(campaign, gm=True),
           kind=NotificationKind.PHASE_OPENED)
    return phase


def open_phase_locked(campaign: Campaign) -> Phase:
    phase = (
        Phase.objects.select_for_update().select_related("turn")
        .filter(campaign=campaign, status=PhaseStatus.OPEN).first()
    )
    if campaign.status == CampaignStatus.PAUSED:
        raise WrongStateError("The campaign is paused by the GM: nothing can be done until it "
                              "is resumed.", code="paused")
    if campaign.status != CampaignStatus.RUNNING or phase is None:
        raise WrongStateError("The campaign has no open phase.", code="no_open_phase")
    if phase.kind == PhaseKind.BATTLE:
        # Erfworld's phase services (orders done, end phase, scouting, moves) on a battle of
        # another rule system: its orders go through the battle page and the game API.
        raise WrongStateError("This is a battle step: orders are given on the battle page (or "
                              "POST …/game/orders/), and the step closes when its sides have "
                              "acted or the proxy acts for them.", code="battle_step")
    return phase


def is_late(status: PlayerPhaseStatus, phase: Phase, now: datetime) -> bool:
    """Late: not done when the phase's time (phase hours from opening) ran out (§5)."""
    if status.done_at is not None:
        return status.done_at > phase.deadline_at
    return now >= phase.deadline_at


def commands_alliance(campaign: Campaign, member: Membership) -> bool:
    """The Chief Warlord, or the deputy while the Chief Warlord is away or has gone quiet."""
    if member.is_chief_warlord:
        return True
    if not member.is_deputy:
        return False
    chief = (Membership.objects.select_related("user").filter(campaign=campaign,
                                                              is_chief_warlord=True).first())
    return chief is not None and stands_down(campaign, chief)


def stands_down(campaign: Campaign, player: Membership) -> bool:
    """Away on a declared absence, or gone quiet: acted for as if late, and not waited for
    (campaigns.selectors.absences.standing_down)."""
    return player.pk in standing_down(campaign, [player])


def flag_quiet_players(campaign: Campaign, acting: list[Membership]) -> None:
    """A player who just reached the campaign's limit of phases missed in a row: the GM and
    the Chief Warlord are told that the Chief Warlord now commands their stacks."""
    limit = campaign.missed_phases_limit
    if limit is None:
        return
    for player in acting:
        if missed_in_a_row(player) != limit:
            continue
        event = record_event(
            campaign=campaign, kind=EventKind.DEADLINE_REACHED, phase=None,
            side=player.side,
            summary=f"{player.user.public_name} has missed {limit} phases in a row: the Chief "
            "Warlord commands their stacks until they give orders again.",
            payload={"missed_in_a_row": limit, "membership": player.pk})
        chief = Membership.objects.filter(campaign=campaign, is_chief_warlord=True).first()
        notify(event=event, users=[*members_of(campaign, gm=True),
                                   *([chief.user] if chief is not None else [])])


def actor_in_phase(
    *, user: User, campaign: Campaign, phase: Phase, on_behalf_of: Membership | None
) -> tuple[Membership, Membership | None, PlayerPhaseStatus | None]:
    """(the player whose orders these are, the Chief Warlord acting by proxy or None, and
    that player's status row, locked; None for an open seat). Proxy needs the Chief Warlord
    and a late player, or an open seat."""
    actor = require_alliance_player(user=user, campaign=campaign)
    player, proxy = actor, None
    if on_behalf_of is not None and on_behalf_of.pk != actor.pk:
        if not commands_alliance(campaign, actor):
            raise NotAllowedError(
                "Only the Chief Warlord may give orders for another player, and only once "
                "that player is late (§5).",
                code="chief_warlord_only",
            )
        target = Membership.objects.select_related("user", "side").filter(
            pk=on_behalf_of.pk, campaign=campaign
        ).first()
        seat = target is not None and is_open_seat(target) and Unit.objects.filter(
            owner=target, side=actor.side).exists()
        if target is None or not seat and (target.role != Role.PLAYER
                                           or target.side_id != actor.side_id):
            raise NotAllowedError("That player is not in the alliance.", code="wrong_side")
        player, proxy = target, actor
        if seat:
            # An open seat's units hold under the Chief Warlord, on the alliance's side; the
            # seat has no status in the phase (it is not waited for) and is never "late".
            player.side, player.side_id = actor.side, actor.side_id
            return player, proxy, None
    status = PlayerPhaseStatus.objects.select_for_update().filter(
        phase=phase, membership=player
    ).first()
    if status is None:
        raise NotAllowedError("That player takes no part in this phase.", code="not_acting")
    # Late: the sweep marked it at the deadline, or the deadline has passed anyway.
    if proxy is not None and not (status.late or is_late(status, phase, timezone.now())
                                  or stands_down(campaign, player)):
        raise NotAllowedError(
            f"{player.user.public_name} is not late: the Chief Warlord may act for a player "
            f"only after {campaign.hours_for(phase.kind)} hours from the phase opening without "
            f"their orders being marked done (§5); that is {phase.deadline_at:%Y-%m-%d %H:%M} UTC.",
            code="not_late",
        )
    return player, proxy, status


def record_proxy(status: PlayerPhaseStatus | None, proxy: Membership | None) -> None:
    if proxy is None or status is None:
        return
    status.late = True
    status.proxied_by = proxy
    status.save(update_fields=["late", "proxied_by"])


def save_moved_deadline(phase: Phase, *, now: datetime, fields: list[str]) -> None:
    """Save a phase whose deadline (or paused time) moved: a deadline that had passed and been
    processed and now lies ahead gives the players the extra time, so nobody is late any more."""
    fields = [*fields, "version"]
    if phase.deadline_processed_at is not None and phase.deadline_at > now:
        phase.deadline_processed_at = None
        fields.append("deadline_processed_at")
        phase.player_statuses.filter(done_at__isnull=True).update(late=False, proxied_by=None)
    phase.version += 1
    phase.save(update_fields=fields)
