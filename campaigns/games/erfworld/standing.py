"""Standing orders: what a player files in advance for when they are late.

- `hold`: whoever gives their orders meanwhile (the Chief Warlord, the deputy) may neither
  move nor fight with their stacks; `no_attacks`: may move them but not attack or besiege.
  Without either the Chief Warlord decides.
- a scout path: when the scout phase closes and the player has not given that scout an order,
  the engine gives it (checked then, from where the scout stands; if the rules refuse it, the
  alliance is told why and nothing is ordered).
- a note for the Chief Warlord, shown wherever they act for the player.
"""

from __future__ import annotations

from django.db import transaction

from accounts.models import User
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.erfworld.engine import Actor
from campaigns.games.erfworld.knowledge import check_scout_path
from campaigns.models import (
    Campaign,
    CampaignStatus,
    EventKind,
    Membership,
    Phase,
    PlayerPhaseStatus,
    ScoutOrder,
    Unit,
)
from campaigns.selectors.standing import MODES, describe
from campaigns.services.common import lock_campaign, record_event, require_alliance_player
from rules.erfworld.types import Special
from rules.hexgrid import Direction


@transaction.atomic
def standing_orders_set(*, user: User, campaign: Campaign, mode: str, note: str = "",
                        scout: Unit | None = None,
                        directions: list[str] | None = None) -> Membership:
    """File (or replace) the player's standing orders; empty values clear them."""
    campaign = lock_campaign(campaign)
    player = require_alliance_player(user=user, campaign=campaign)
    if campaign.status == CampaignStatus.FINISHED:
        raise WrongStateError("The campaign is finished.", code="campaign_finished")
    if mode not in MODES:
        raise RuleViolationError(
            f"Standing orders are one of: {', '.join(repr(m) for m in MODES if m)} or none.",
            code="invalid_field", field="mode")
    steps = [str(d).strip().upper() for d in directions or [] if str(d).strip()]
    bad = [d for d in steps if d not in Direction.__members__]
    if bad:
        raise RuleViolationError(
            f"A scout path is a list of directions (N, NE, SE, S, SW, NW); {bad[0]!r} is not "
            "one (§5).", code="invalid_field", field="directions")
    if steps and scout is None:
        raise RuleViolationError("Choose the scout that follows the path.",
                                 code="invalid_field", field="scout")
    if scout is not None:
        unit = Unit.objects.select_related("unit_type").filter(
            pk=scout.pk, owner=player, current_hits__gt=0).first()
        if unit is None or Special.SCOUT.value not in unit.unit_type.specials:
            raise RuleViolationError("Only one of your own living scouts can have a standing "
                                     "scout path.", code="not_a_scout", field="scout")
        limit = unit.unit_type.move + unit.unit_type.move // 2
        if not steps or len(steps) > limit:
            raise RuleViolationError(
                f"{unit.name} inspects 1 to {limit} hexes (M + floor(M / 2), §5); the path has "
                f"{len(steps)}.", code="invalid_scout_path", field="directions")
    player.standing_orders = mode
    player.standing_note = note.strip()[:300]
    player.standing_scout = scout if steps else None
    player.standing_directions = steps
    player.save(update_fields=["standing_orders", "standing_note", "standing_scout",
                               "standing_directions"])
    record_event(
        campaign=campaign, kind=EventKind.STANDING_ORDERS, actor=user, side=player.side,
        summary=f"{user.public_name}'s standing orders: "
        + (describe(player) or "none (the Chief Warlord decides)."),
        payload={"membership": player.pk, "mode": mode, "scout": player.standing_scout_id,
                 "directions": steps})
    return player


def require_standing(actor: Actor, *, attack: bool) -> None:
    """An order given for someone else (by proxy) must keep to that player's standing orders."""
    if actor.proxy is None or actor.player is None:
        return
    mode = actor.player.standing_orders
    name = actor.player.user.public_name
    if mode == "hold":
        raise NotAllowedError(f"{name}'s standing orders say hold: their stacks neither move "
                              "nor fight while someone else gives their orders.",
                              code="standing_orders")
    if mode == "no_attacks" and attack:
        raise NotAllowedError(f"{name}'s standing orders say no attacks: their stacks may "
                              "move but not attack or besiege while someone else gives their "
                              "orders.", code="standing_orders")


def apply_standing_scouts(campaign: Campaign, phase: Phase) -> None:
    """At the scout phase's close: each player not done whose standing scout has no order in
    this phase gets the standing path ordered, if the rules allow it from where it stands."""
    pending = PlayerPhaseStatus.objects.filter(
        phase=phase, done_at__isnull=True, membership__standing_scout__isnull=False
    ).select_related("membership__user", "membership__side")
    for status in pending:
        player = status.membership
        scout_id = player.standing_scout_id
        if scout_id is None:
            continue
        unit = Unit.objects.select_related("unit_type", "stack").filter(
            pk=scout_id, owner=player).first()
        if unit is None or ScoutOrder.objects.filter(phase=phase, scout=unit).exists():
            continue
        try:
            labels = check_scout_path(campaign, unit, player.standing_directions)
        except (RuleViolationError, WrongStateError) as exc:
            record_event(
                campaign=campaign, kind=EventKind.STANDING_ORDERS, phase=phase,
                side=player.side,
                summary=f"{player.user.public_name}'s standing scout path for {unit.name} was "
                f"not ordered: {exc}", payload={"membership": player.pk, "applied": False})
            continue
        ScoutOrder.objects.create(phase=phase, scout=unit, given_by=player,
                                  directions=list(player.standing_directions),
                                  inspected_hexes=labels)
        record_event(
            campaign=campaign, kind=EventKind.STANDING_ORDERS, phase=phase, side=player.side,
            summary=f"{player.user.public_name} was late: by their standing orders "
            f"{unit.name} inspects {', '.join(labels)}.",
            payload={"membership": player.pk, "applied": True, "scout": unit.pk,
                     "inspected_hexes": labels})
