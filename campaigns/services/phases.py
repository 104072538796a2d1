"""Services of a running turn: opening phases, scout orders, orders done, ending a phase."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import NotificationKind, User
from campaigns.deadline_clock import clock_deadline, parse_clock
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.fetch import board_for, unit_stats
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
    ScoutOrder,
    SideKind,
    SightingSource,
    Turn,
    Unit,
)
from campaigns.selectors.absences import missed_in_a_row, standing_down
from campaigns.services.common import (
    lock_campaign,
    members_of,
    membership_of,
    notify,
    record_event,
    require_alliance_player,
    side_of,
)
from campaigns.services.knowledge import Glimpse, remember
from campaigns.services.seats import is_open_seat
from rules.dice import commitment, new_seed
from rules.erfworld.scouting import (
    ScoutOrderError,
    validate_scout_order,
)
from rules.erfworld.types import Special
from rules.hexgrid import format_label, parse_label

ALLIANCE_PHASES = (PhaseKind.SCOUT, PhaseKind.MOVE_COMBAT)


def phase_deadline(campaign: Campaign, kind: str, opened_at: datetime) -> datetime:
    """When a phase of `kind` opened at `opened_at` ends, in the campaign's deadline mode."""
    hours = campaign.hours_for(kind)
    if campaign.deadline_mode == "clock":
        return clock_deadline(opened_at=opened_at, min_hours=hours,
                              clock=parse_clock(campaign.deadline_clock),
                              zone_name=campaign.deadline_zone,
                              days_off=frozenset(campaign.deadline_days_off))
    return opened_at + timedelta(hours=hours)


def open_phase(
    *, campaign: Campaign, turn: Turn, kind: PhaseKind, now: datetime, actor: User | None
) -> Phase:
    """Open a phase (campaign locked): a fresh secret seed with its published commitment,
    a status row per acting player, a snapshot of the whole game state, an event."""
    from campaigns.selectors import campaign_game_state
    from campaigns.services.settings import apply_pending_settings

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
        _flag_quiet_players(campaign, list(
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


def _open_phase_locked(campaign: Campaign) -> Phase:
    phase = (
        Phase.objects.select_for_update().select_related("turn")
        .filter(campaign=campaign, status=PhaseStatus.OPEN).first()
    )
    if campaign.status == CampaignStatus.PAUSED:
        raise WrongStateError("The campaign is paused by the GM: nothing can be done until it "
                              "is resumed.", code="paused")
    if campaign.status != CampaignStatus.RUNNING or phase is None:
        raise WrongStateError("The campaign has no open phase.", code="no_open_phase")
    return phase


def _require_scout_phase(phase: Phase) -> None:
    if phase.kind != PhaseKind.SCOUT:
        raise WrongStateError(
            f"Scout orders are given in the scout phase; this is the "
            f"{phase.get_kind_display().lower()}.",
            code="not_scout_phase",
        )


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


def _flag_quiet_players(campaign: Campaign, acting: list[Membership]) -> None:
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


def _acting_for(
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


def _record_proxy(status: PlayerPhaseStatus | None, proxy: Membership | None) -> None:
    if proxy is None or status is None:
        return
    status.late = True
    status.proxied_by = proxy
    status.save(update_fields=["late", "proxied_by"])


def check_scout_path(campaign: Campaign, unit: Unit, directions: Sequence[str]) -> list[str]:
    """The hexes `unit` would inspect along `directions` from where it stands now (§5), or
    the rule's refusal (not on the map, not a scout, no commander in its hex, a bad path)."""
    if unit.stack is None or unit.current_hits == 0:
        raise WrongStateError(f"{unit.name} is not on the map.", code="not_on_map")
    stats = unit_stats(unit.unit_type)
    scout_hex = parse_label(unit.stack.hex)
    commander_in_hex = any(
        unit_stats(u.unit_type).has(Special.COMMANDER)
        for u in Unit.objects.select_related("unit_type").filter(
            campaign=campaign, side_id=unit.side_id, stack__hex=unit.stack.hex,
            current_hits__gt=0,
        )
    )
    try:
        inspected = validate_scout_order(
            scout=stats, scout_hex=scout_hex, commander_in_hex=commander_in_hex,
            directions=list(directions), board=board_for(campaign),
        )
    except ScoutOrderError as exc:
        if not stats.has(Special.SCOUT):
            code = "not_a_scout"
        elif not commander_in_hex:
            code = "no_commander_in_hex"
        else:
            code = "invalid_scout_path"
        raise RuleViolationError(str(exc), code=code, field="directions") from exc
    return [format_label(h) for h in inspected]


@transaction.atomic
def scout_order_give(
    *,
    user: User,
    campaign: Campaign,
    scout: Unit,
    directions: list[str],
    on_behalf_of: Membership | None = None,
) -> ScoutOrder:
    """Order a scout to inspect a path (§5): one order per scout per phase, replaced when
    given again, until the phase closes. The Chief Warlord may order a late player's scouts."""
    campaign = lock_campaign(campaign)
    phase = _open_phase_locked(campaign)
    _require_scout_phase(phase)
    player, proxy, status = _acting_for(
        user=user, campaign=campaign, phase=phase, on_behalf_of=on_behalf_of
    )
    unit = Unit.objects.select_related("unit_type", "stack").filter(
        pk=scout.pk, campaign=campaign
    ).first()
    if unit is None or unit.owner_id != player.pk:
        # Never name a unit of the other side: its name is hidden by the fog of war.
        named = unit is not None and unit.unit_type.side_id == player.side_id
        raise NotAllowedError(
            f"{scout.name if named else 'That unit'} is not one of "
            f"{player.user.public_name}'s units.", code="not_your_unit"
        )
    labels = check_scout_path(campaign, unit, directions)
    assert unit.stack is not None  # checked: the scout is on the map
    order, created = ScoutOrder.objects.update_or_create(
        phase=phase, scout=unit,
        defaults={"given_by": player, "proxied_by": proxy,
                  "directions": [d.upper() for d in directions], "inspected_hexes": labels},
    )
    _record_proxy(status, proxy)
    by = f" for {player.user.public_name} (by proxy)" if proxy else ""
    record_event(
        campaign=campaign, kind=EventKind.SCOUT_ORDER_GIVEN, actor=user, phase=phase,
        side=unit.side,
        summary=f"{user.public_name}{by} {'ordered' if created else 'changed the order of'} "
        f"{unit.name} in {unit.stack.hex} to inspect {', '.join(labels)}.",
        payload={"order": order.pk, "scout": unit.pk, "directions": order.directions,
                 "inspected_hexes": labels, "proxied_by": proxy.pk if proxy else None},
    )
    return order


@transaction.atomic
def scout_order_cancel(
    *, user: User, order: ScoutOrder, on_behalf_of: Membership | None = None
) -> None:
    campaign = lock_campaign(order.phase.campaign)
    phase = _open_phase_locked(campaign)
    player, proxy, status = _acting_for(
        user=user, campaign=campaign, phase=phase, on_behalf_of=on_behalf_of
    )
    locked = ScoutOrder.objects.select_related("scout").filter(pk=order.pk, phase=phase).first()
    if locked is None or locked.scout.owner_id != player.pk:
        raise NotAllowedError("That is not an open scout order of yours.", code="not_your_order")
    locked.delete()
    _record_proxy(status, proxy)
    record_event(
        campaign=campaign, kind=EventKind.SCOUT_ORDER_CANCELLED, actor=user, phase=phase,
        side=player.side, summary=f"{user.public_name} cancelled the order of {locked.scout.name}.",
        payload={"scout": locked.scout_id, "proxied_by": proxy.pk if proxy else None},
    )


@transaction.atomic
def orders_mark_done(
    *, user: User, campaign: Campaign, on_behalf_of: Membership | None = None
) -> PlayerPhaseStatus:
    """A player's orders for the open phase are done (or the Chief Warlord's, for a late one)."""
    campaign = lock_campaign(campaign)
    phase = _open_phase_locked(campaign)
    player, proxy, status = _acting_for(
        user=user, campaign=campaign, phase=phase, on_behalf_of=on_behalf_of
    )
    if status is None:
        raise WrongStateError(f"{player.user.public_name}'s seat is open: nobody is waited for "
                              "there, so there is nothing to mark done.", code="seat_open")
    if status.done_at is not None:
        raise WrongStateError(f"{player.user.public_name}'s orders are already marked done.",
                              code="already_done")
    now = timezone.now()
    status.done_at = now
    status.late = status.late or is_late(status, phase, now)
    if proxy is not None:
        status.proxied_by = proxy
    status.save(update_fields=["done_at", "late", "proxied_by"])
    by = f" (marked by {proxy.user.public_name}, by proxy)" if proxy else ""
    event = record_event(
        campaign=campaign, kind=EventKind.ORDERS_DONE, actor=user, phase=phase,
        summary=f"{player.user.public_name}'s orders are done{by}.",
        payload={"membership": player.pk, "proxied_by": proxy.pk if proxy else None,
                 "late": status.late},
    )
    chief = Membership.objects.filter(campaign=campaign, is_chief_warlord=True).select_related(
        "user"
    )
    notify(event=event, users=[m.user for m in chief])
    return status


@transaction.atomic
def orders_mark_not_done(*, user: User, campaign: Campaign) -> PlayerPhaseStatus:
    """A player takes back their own "I'm done" while the phase is open (not one marked by
    the Chief Warlord for them: that stands)."""
    campaign = lock_campaign(campaign)
    phase = _open_phase_locked(campaign)
    player, _, status = _acting_for(user=user, campaign=campaign, phase=phase, on_behalf_of=None)
    assert status is not None  # one's own status: only an open seat has none
    if status.done_at is None:
        raise WrongStateError("Your orders are not marked done.", code="not_done")
    if status.proxied_by_id is not None:
        raise WrongStateError("The Chief Warlord marked your orders done for you; that stands.",
                              code="proxied")
    status.done_at = None
    status.save(update_fields=["done_at"])
    record_event(
        campaign=campaign, kind=EventKind.ORDERS_DONE, actor=user, phase=phase,
        summary=f"{player.user.public_name} took back their \"done\": their orders are open "
        "again.", payload={"membership": player.pk, "undone": True})
    return status


@transaction.atomic
def phase_end(
    *, user: User, campaign: Campaign, reason: str = "", expected_phase: Phase | None = None
) -> Phase:
    """End the open phase and open the next. Alliance phases: the Chief Warlord once every
    player is done or late, or the GM at any time; the opposition phase: the GM.
    Ending the scout phase resolves every scout order into the alliance's sightings."""
    campaign = lock_campaign(campaign)
    phase = _open_phase_locked(campaign)
    if expected_phase is not None and expected_phase.pk != phase.pk:
        # The phase the person saw was closed meanwhile (a deadline, another click): never
        # let that click close the next phase too.
        raise WrongStateError("That phase has already been closed.", code="phase_already_closed")
    membership = membership_of(user=user, campaign=campaign)
    now = timezone.now()
    if phase.awaiting_draw:
        raise WrongStateError("The opposition phase ends with the alliance's draw: the "
                              "declared combats wait for it.", code="awaiting_draw")
    if membership.role != Role.GM:
        if phase.kind not in ALLIANCE_PHASES:
            raise NotAllowedError("Only the GM ends the opposition phase.", code="gm_only")
        if not commands_alliance(campaign, membership):
            raise NotAllowedError(
                "Only the Chief Warlord (or the GM) ends the alliance's phases (§5).",
                code="chief_warlord_only",
            )
        pending = [s for s in phase.player_statuses.select_related("membership__user")
                   .order_by("pk") if s.done_at is None and not is_late(s, phase, now)]
        down = standing_down(campaign, [s.membership for s in pending], now)
        waiting = [s.membership.user.public_name for s in pending
                   if s.membership_id not in down]
        if waiting:
            raise WrongStateError(
                "The Chief Warlord may end the phase once every player is done or late; "
                f"waiting for {', '.join(waiting)}.",
                code="players_not_done",
            )
    return phase_close(campaign=campaign, phase=phase, actor=user, now=now, reason=reason)


def phase_close(
    *, campaign: Campaign, phase: Phase, actor: User | None, now: datetime, reason: str = ""
) -> Phase:
    """Close the open phase and open the next one; returns the new phase.

    The caller holds the campaign lock and has checked who may do this: `phase_end` for a
    person, the deadline sweep (actor None) for a hard deadline or an early close.
    """
    user = actor
    if phase.kind == PhaseKind.OPPOSITION:
        from campaigns.services.draw import ask_draw, needs_draw, resolve_draw

        if needs_draw(phase):
            if not phase.awaiting_draw:
                return ask_draw(campaign=campaign, phase=phase, actor=actor, now=now)
            # The draw's deadline passed with no alliance player drawing: the server draws.
            resolve_draw(campaign=campaign, phase=phase, draw="", by=None, actor=None)
            phase.refresh_from_db()
            campaign.refresh_from_db()
            if phase.status != PhaseStatus.OPEN:
                return phase
    if phase.kind != PhaseKind.SCOUT:
        from campaigns.services.turns import close_acting_phase

        return close_acting_phase(campaign=campaign, phase=phase, actor=actor, now=now)
    from campaigns.services.standing import apply_standing_scouts

    apply_standing_scouts(campaign, phase)
    report = _resolve_scouting(campaign, phase)
    statuses = list(phase.player_statuses.filter(done_at__isnull=True, late=False))
    for s in statuses:
        s.late = is_late(s, phase, now)
    PlayerPhaseStatus.objects.bulk_update(statuses, ["late"])
    phase.status = PhaseStatus.CLOSED
    phase.closed_at = now
    phase.version += 1
    phase.save(update_fields=["status", "closed_at", "version"])
    alliance = side_of(campaign, SideKind.ALLIANCE)
    hexes = [r["hex"] for r in report]
    scout_event = record_event(
        campaign=campaign, kind=EventKind.SCOUT_REPORT, actor=user, phase=phase, side=alliance,
        summary=f"Scout report of turn {phase.turn.number}: "
        + (f"{len(hexes)} hexes inspected ({', '.join(hexes)})." if hexes
           else "no hex was inspected."),
        payload={"turn": phase.turn.number, "sightings": report},
    )
    notify(event=scout_event, users=members_of(campaign, side=alliance),
           kind=NotificationKind.PHASE_CLOSED)
    record_event(
        campaign=campaign, kind=EventKind.PHASE_CLOSED, actor=user, phase=phase,
        summary=f"Turn {phase.turn.number}: the {phase.get_kind_display().lower()} is closed; "
        "its dice seed is revealed.",
        payload={"dice_seed": phase.dice_seed, "dice_commitment": phase.dice_commitment,
                 "reason": reason},
    )
    campaign.version += 1
    campaign.save(update_fields=["version"])
    from campaigns.services.turns import reset_acting_state

    reset_acting_state(campaign, SideKind.ALLIANCE)
    return open_phase(
        campaign=campaign, turn=phase.turn, kind=PhaseKind.MOVE_COMBAT, now=now, actor=user
    )


def _resolve_scouting(campaign: Campaign, phase: Phase) -> list[dict[str, Any]]:
    """Every inspected hex becomes a sighting for the alliance (what the rules say it shows)."""
    hexes: list[str] = []
    for order in phase.scout_orders.order_by("pk"):
        for label in order.inspected_hexes:
            if label not in hexes:
                hexes.append(label)
    seen = remember(campaign=campaign, phase=phase, side=side_of(campaign, SideKind.ALLIANCE),
                    glimpses=[Glimpse(hex=h, stacks=None, forts=True) for h in hexes],
                    source=SightingSource.SCOUT)
    return [s.seen for s in seen]
