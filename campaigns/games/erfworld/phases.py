"""Services of a running turn: opening phases, scout orders, orders done, ending a phase."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import NotificationKind, User
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.erfworld.draw import DRAW_MAX_LENGTH, ask_draw, needs_draw, resolve_draw
from campaigns.games.erfworld.engine import require_running
from campaigns.games.erfworld.knowledge import Glimpse, check_scout_path, remember
from campaigns.games.erfworld.standing import apply_standing_scouts
from campaigns.games.erfworld.turns import close_acting_phase, reset_acting_state
from campaigns.models import (
    Campaign,
    EventKind,
    Membership,
    Phase,
    PhaseKind,
    PhaseStatus,
    PlayerPhaseStatus,
    Role,
    ScoutOrder,
    SideKind,
    SightingSource,
    Unit,
)
from campaigns.selectors.absences import standing_down
from campaigns.services.common import (
    lock_campaign,
    members_of,
    membership_of,
    notify,
    record_event,
    side_of,
)
from campaigns.services.phase_state import ALLIANCE_PHASES as ALLIANCE_PHASES
from campaigns.services.phase_state import (
    actor_in_phase,
    commands_alliance,
    is_late,
    open_phase_locked,
    record_proxy,
)
from campaigns.services.phase_state import open_phase as open_phase
from campaigns.services.phase_state import phase_deadline as phase_deadline


def _require_scout_phase(phase: Phase) -> None:
    if phase.kind != PhaseKind.SCOUT:
        raise WrongStateError(
            f"Scout orders are given in the scout phase; this is the "
            f"{phase.get_kind_display().lower()}.",
            code="not_scout_phase",
        )


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
    phase = open_phase_locked(campaign)
    _require_scout_phase(phase)
    player, proxy, status = actor_in_phase(
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
    record_proxy(status, proxy)
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
    phase = open_phase_locked(campaign)
    player, proxy, status = actor_in_phase(
        user=user, campaign=campaign, phase=phase, on_behalf_of=on_behalf_of
    )
    locked = ScoutOrder.objects.select_related("scout").filter(pk=order.pk, phase=phase).first()
    if locked is None or locked.scout.owner_id != player.pk:
        raise NotAllowedError("That is not an open scout order of yours.", code="not_your_order")
    locked.delete()
    record_proxy(status, proxy)
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
    phase = open_phase_locked(campaign)
    player, proxy, status = actor_in_phase(
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
    phase = open_phase_locked(campaign)
    player, _, status = actor_in_phase(user=user, campaign=campaign, phase=phase, on_behalf_of=None)
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
    phase = open_phase_locked(campaign)
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
    if phase.kind == PhaseKind.OPPOSITION and needs_draw(phase):
        if not phase.awaiting_draw:
            return ask_draw(campaign=campaign, phase=phase, actor=actor, now=now)
        # The draw's deadline passed with no alliance player drawing: the server draws.
        resolve_draw(campaign=campaign, phase=phase, draw="", by=None, actor=None)
        phase.refresh_from_db()
        campaign.refresh_from_db()
        if phase.status != PhaseStatus.OPEN:
            return phase
    if phase.kind != PhaseKind.SCOUT:
        return close_acting_phase(campaign=campaign, phase=phase, actor=actor, now=now)
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


@transaction.atomic
def phase_draw(
    *, user: User, campaign: Campaign, draw: str, expected_phase: Phase | None
) -> Phase:
    """An alliance player draws: the declared combats are resolved with dice mixed from the
    phase's seed and `draw`, and the opposition phase closes (the next turn opens)."""
    campaign = lock_campaign(campaign)
    require_running(campaign)
    membership = membership_of(user=user, campaign=campaign)
    if (membership.role != Role.PLAYER or membership.side is None
            or membership.side.kind != SideKind.ALLIANCE):
        raise NotAllowedError("Only an alliance player draws the opposition's dice.",
                              code="alliance_only")
    phase = open_phase_locked(campaign)
    if expected_phase is None:
        raise RuleViolationError("Name the phase you draw for (expected_phase).",
                                 code="invalid_field", field="expected_phase")
    if expected_phase.pk != phase.pk or not phase.awaiting_draw:
        raise WrongStateError("There is no draw waiting in this phase: it was made or the "
                              "phase has moved on.", code="no_draw_waiting")
    text = draw.strip()
    if not text or len(text) > DRAW_MAX_LENGTH:
        raise RuleViolationError(
            f"A draw is 1 to {DRAW_MAX_LENGTH} characters of anything you choose (the page "
            "offers a random one).", code="invalid_field", field="draw")
    now = timezone.now()
    resolve_draw(campaign=campaign, phase=phase, draw=text, by=membership, actor=user)
    phase.refresh_from_db()
    campaign.refresh_from_db()
    if phase.status != PhaseStatus.OPEN:
        return phase  # the campaign ended in one of the combats
    return phase_close(campaign=campaign, phase=phase, actor=user, now=now)
