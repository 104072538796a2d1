"""Previews of play, reads that change nothing: which stacks and fortifications a user may
name, where a stack can move, and the exact odds of an attack, computed exactly as the move
and attack services would.

Nothing here changes the game or rolls a die. The permission checks are the services' own
(`acting`, `require_own`); the boards and the Combat are built by the services' functions
(`move_boards`, `attack_setup`), so a preview cannot drift from the order it previews.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.db import transaction

from accounts.models import User
from campaigns.errors import RuleViolationError
from campaigns.games.erfworld.engine import Actor, acting, known_board, require_own, stack_units
from campaigns.games.erfworld.fetch import board_for, unit_stats
from campaigns.games.erfworld.move_combat import (
    _hex,
    _move_error,
    attack_setup,
    move_boards,
    siege_error,
    siege_setup,
)
from campaigns.models import (
    Campaign,
    Fortification,
    Membership,
    Phase,
    PhaseStatus,
    Role,
    SideKind,
    Stack,
    Unit,
    UnitType,
)
from campaigns.selectors import _fortification, _stacks_with_units
from campaigns.services.phase_state import ALLIANCE_PHASES
from rules.dice import FixedDice
from rules.erfworld.combat import fraction_json
from rules.erfworld.forts import FortificationError, besiege
from rules.erfworld.movement import MovementError
from rules.erfworld.movement import stack_path as rules_stack_path
from rules.erfworld.movement import stack_reachable as rules_stack_reachable
from rules.erfworld.odds import OddsError, combat_odds
from rules.erfworld.types import SideKind as RulesSideKind
from rules.erfworld.types import Special
from rules.hexgrid import Direction, format_label, neighbor, parse_label

# --- What a user may name ------------------------------------------------------------------


def _viewer(*, user: User, campaign: Campaign) -> Membership | None:
    return Membership.objects.filter(campaign=campaign, user=user).first()


def visible_stack(*, user: User, campaign: Campaign, stack_id: int) -> Stack | None:
    """The stack if `user` may know it exists now, else None (an unknown id and a hidden
    one look the same, and cost the same work: no timing oracle). The GM knows every stack;
    a side knows its own, the other side's stacks in a hex it occupies (as on its map), and,
    while the side itself acts, those in the hexes it scouted this turn or was ambushed from
    this phase (its known board: what it may attack). Out of its own phases a side does not
    follow the other side's moves: a stack that moved into a hex it scouted stays unknown."""
    viewer = _viewer(user=user, campaign=campaign)
    stack = Stack.objects.select_related("side").filter(campaign=campaign, pk=stack_id).first()
    if viewer is None:
        return None
    if viewer.role == Role.GM:
        return stack
    if viewer.side_id is None or viewer.side is None:
        return None
    if stack is not None and stack.side_id == viewer.side_id:
        return stack
    # Another side's stack or none at all: the same queries either way.
    hex_label = stack.hex if stack is not None else ""
    occupied = Stack.objects.filter(campaign=campaign, side_id=viewer.side_id,
                                    hex=hex_label).exists()
    phase = Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).first()
    known = (known_board(board_for(campaign), campaign=campaign, side=viewer.side, phase=phase)
             if phase is not None else None)
    if stack is None:
        return None
    if occupied:
        return stack
    if phase is None or known is None:
        return None
    acting_side = SideKind.ALLIANCE if phase.kind in ALLIANCE_PHASES else SideKind.OPPOSITION
    if viewer.side.kind != acting_side:
        return None
    enemy = RulesSideKind(stack.side.kind)
    return stack if parse_label(stack.hex) in known.stacks.get(enemy, frozenset()) else None


def visible_units(*, user: User, campaign: Campaign, unit_ids: list[int]) -> list[Unit] | None:
    """The named units, in the order named, when every one is of the user's side (any unit
    for the GM); None when any is unknown or another side's."""
    viewer = _viewer(user=user, campaign=campaign)
    if viewer is None:
        return None
    units = Unit.objects.filter(campaign=campaign, pk__in=unit_ids)
    if viewer.role != Role.GM:
        units = units.filter(side_id=viewer.side_id) if viewer.side_id else units.none()
    by_id = {u.pk: u for u in units}
    if any(i not in by_id for i in unit_ids):
        return None
    return [by_id[i] for i in unit_ids]


def visible_fortification(
    *, user: User, campaign: Campaign, fortification_id: int
) -> Fortification | None:
    """A fortification the user's map shows: every one when terrain is known to all (and
    for the GM), else those the side holds or whose hex it occupies."""
    viewer = _viewer(user=user, campaign=campaign)
    fort = Fortification.objects.filter(campaign=campaign, pk=fortification_id).first()
    if viewer is None or fort is None:
        return None
    if viewer.role == Role.GM or campaign.terrain_known_to_all:
        return fort
    if viewer.side_id is not None and (
        fort.owner_id == viewer.side_id
        or Stack.objects.filter(campaign=campaign, side_id=viewer.side_id, hex=fort.hex).exists()
    ):
        return fort
    return None


def stack_json(*, user: User, campaign: Campaign, stack_id: int) -> dict[str, Any] | None:
    """The stack exactly as it appears in the user's map JSON (`map_state`), or None when it
    is gone (merged, or every unit croaked)."""
    viewer = _viewer(user=user, campaign=campaign)
    is_gm = viewer is not None and viewer.role == Role.GM
    rows = _stacks_with_units(
        Stack.objects.filter(campaign=campaign, pk=stack_id), campaign=campaign,
        full_for_side=viewer.side_id if viewer is not None else None, everything=is_gm,
    )
    return rows[0] if rows else None


# --- Permission, as the services check it ---------------------------------------------------


def _commanding(
    *, user: User, campaign: Campaign, stack: Stack, on_behalf_of: Membership | None
) -> tuple[Actor, list[Unit]]:
    """The services' own checks that `user` may order `stack` now (phase, side, owner, the
    Chief Warlord's proxy for a late player). `acting` records a proxy on the late player's
    phase status and locks rows, which a read must not keep: it runs in a savepoint that is
    rolled back at once."""
    with transaction.atomic():
        actor = acting(user=user, campaign=campaign, on_behalf_of=on_behalf_of)
        units = stack_units(stack)
        require_own(actor, stack, units)
        transaction.set_rollback(True)
    return actor, units


# --- Movement -------------------------------------------------------------------------------


def stack_reachable(
    *, user: User, campaign: Campaign, stack: Stack, on_behalf_of: Membership | None = None
) -> dict[str, Any]:
    """Every hex the stack can enter in its next move, with the movement it costs, on the
    board its side knows (an unscouted enemy stack is no obstacle: moving into it is an
    ambush). The stack's own hex is left out."""
    actor, units = _commanding(user=user, campaign=campaign, stack=stack,
                               on_behalf_of=on_behalf_of)
    _real, known, moving = move_boards(campaign=campaign, actor=actor, stack=stack, units=units)
    try:
        reach = rules_stack_reachable(stack=moving, board=known)
    except MovementError as exc:
        raise _move_error(exc) from exc
    hexes = sorted(
        ((h, d.cost) for h, d in reach.destinations.items() if h != moving.hex),
        key=lambda item: (item[1], item[0].q, item[0].r),
    )
    return {
        "stack": stack.pk,
        "move_left": reach.allowance,
        "road_move_left": reach.road_allowance,
        "hexes": [{"hex": format_label(h), "cost": cost} for h, cost in hexes],
    }


def stack_path(
    *, user: User, campaign: Campaign, stack: Stack, to: str,
    on_behalf_of: Membership | None = None,
) -> dict[str, Any]:
    """The cheapest path the move service would take to `to`: the hexes entered (the body of
    a move order) and its cost; a RuleViolationError naming the rule when there is none."""
    actor, units = _commanding(user=user, campaign=campaign, stack=stack,
                               on_behalf_of=on_behalf_of)
    _real, known, moving = move_boards(campaign=campaign, actor=actor, stack=stack, units=units)
    goal = parse_label(_hex(to, "to"))
    try:
        found = rules_stack_path(stack=moving, board=known, goal=goal)
    except MovementError as exc:
        raise _move_error(exc) from exc
    return {"path": [format_label(h) for h in found.hexes[1:]], "cost": found.cost,
            "all_on_road": found.all_on_road}


# --- Attack preview ------------------------------------------------------------------------


def _p(value: Fraction) -> str:
    return fraction_json(value)["exact"]


def _chance(value: Fraction) -> float:
    return float(round(value, 4))


def _exact(value: Fraction) -> dict[str, Any]:
    return {"p": _p(value), "value": _chance(value)}


def attack_preview(
    *,
    user: User,
    campaign: Campaign,
    stack: Stack,
    target: Stack,
    withdraw: bool = False,
    directed_at: Unit | None = None,
    ranged: bool | None = None,
    on_behalf_of: Membership | None = None,
) -> dict[str, Any]:
    """The exact odds of the attack `stack_attack` would resolve with these arguments, over
    every roll of every side that rolls (rules.erfworld.odds). Refused exactly as the attack
    would be; no die is rolled and nothing is stored."""
    actor, units = _commanding(user=user, campaign=campaign, stack=stack,
                               on_behalf_of=on_behalf_of)
    setup = attack_setup(campaign=campaign, side=actor.side, attacker=stack, defender=target,
                         attacker_units=units, withdraw=withdraw, directed_at=directed_at,
                         ranged=ranged, lock=False)
    try:
        odds = combat_odds(setup.combat)
    except OddsError as exc:
        raise RuleViolationError(str(exc), code="odds_too_complex") from exc

    def distribution(dist: Any) -> list[dict[str, Any]]:
        return [{"hits": hits, "p": _p(p), "chance": _chance(p)} for hits, p in dist.probabilities]

    def unit_rows(role: str, rows: list[Unit], unit_odds: Any) -> list[dict[str, Any]]:
        return [
            {"id": u.pk, "name": u.name, "side": role, "current_hits": u.current_hits,
             "croak": _p(o.croaked), "croak_chance": _chance(o.croaked),
             "expected_hits_after": _exact(o.expected_current_hits)}
            for u, o in zip(rows, unit_odds, strict=True)
        ]

    return {
        "attacker": {"stack": stack.pk, "hex": stack.hex, "ranged": setup.plan.ranged,
                     "units": [u.pk for u in setup.fighting],
                     "left_out": list(setup.plan.left_out)},
        "defender": {"stack": target.pk, "hex": target.hex,
                     "units": [u.pk for u in setup.defender_units],
                     "fortification_hits": setup.fortification_hits,
                     "fortified": setup.fortified,
                     "protectors": [p.pk for p in setup.protectors]},
        "odds": {
            "order": odds.order.value,
            "hits_on_defender": distribution(odds.hits_on_defender),
            "hits_on_attacker": distribution(odds.hits_on_attacker),
            "expected_hits_on_defender": _exact(odds.expected_hits_on_defender),
            "expected_hits_on_attacker": _exact(odds.expected_hits_on_attacker),
            "winner": {"attacker": _exact(odds.attacker_wins),
                       "defender": _exact(odds.defender_wins),
                       "none": _exact(odds.nobody_wins)},
            "units": unit_rows("attacker", setup.fighting, odds.attacker_units)
            + unit_rows("defender", setup.defender_units, odds.defender_units),
            "branches": odds.branches,
        },
    }


def attack_targets(
    *, user: User, campaign: Campaign, stack: Stack, on_behalf_of: Membership | None = None
) -> list[dict[str, Any]]:
    """The enemy stacks next to `stack` that its side knows (its known board: the hexes it
    scouted this turn or was ambushed from), as its map would show them plus each unit's id:
    the ids an attack, a preview and a directed attack name. Other enemy stacks are left out."""
    actor, _units = _commanding(user=user, campaign=campaign, stack=stack,
                                on_behalf_of=on_behalf_of)
    known = known_board(board_for(campaign), campaign=campaign, side=actor.side,
                        phase=actor.phase)
    here = parse_label(stack.hex)
    around = set(known.grid.neighbors(here).values())
    mine = RulesSideKind(actor.side.kind)
    hexes = [format_label(h) for side, held in known.stacks.items() if side is not mine
             for h in held if h in around]
    targets = Stack.objects.filter(campaign=campaign, hex__in=hexes).exclude(side=actor.side)
    rows = _stacks_with_units(targets, campaign=campaign, full_for_side=actor.side.pk,
                              everything=False)
    ids: dict[int, list[int]] = {}
    for stack_id, unit_id in (
        Unit.objects.filter(stack__in=targets.values("id"), current_hits__gt=0)
        .order_by("stack_id", "position", "id").values_list("stack_id", "id")
    ):
        ids.setdefault(stack_id, []).append(unit_id)
    for row in rows:
        for unit, unit_id in zip(row["units"], ids.get(row["id"], []), strict=True):
            unit.setdefault("id", unit_id)
    return rows


def siege_targets(
    *, user: User, campaign: Campaign, stack: Stack, on_behalf_of: Membership | None = None
) -> dict[str, Any]:
    """What `stack`'s siege units may strike now (§4): an enemy tower in its own hex, an
    enemy wall hexside whose adjacent hex across it is the stack's hex, each not yet at 0;
    and the exact odds of the damage, over the 36 rolls of the 2d6, computed by the rules'
    own `besiege` from the same setup the siege service resolves. A fortification's hits are
    given only when the side sees them now (it holds the fortification or stands in its
    hex); elsewhere the map's knowledge (the last sighting) is what the side has. Refused
    exactly as the siege would be; no die is rolled."""
    actor, units = _commanding(user=user, campaign=campaign, stack=stack,
                               on_behalf_of=on_behalf_of)
    here = parse_label(stack.hex)
    candidates = []
    for fort in (Fortification.objects.filter(campaign=campaign, hits__gt=0)
                 .exclude(owner=actor.side).select_related("owner")
                 .order_by("hex", "kind", "direction")):
        if fort.kind == "tower":
            if fort.hex != stack.hex:
                continue
        elif neighbor(parse_label(fort.hex), Direction[fort.direction]) != here:
            continue
        candidates.append(fort)
    if not any(unit_stats(u.unit_type).has(Special.SIEGE) for u in units):
        raise RuleViolationError(
            "Only units with the siege special can attack fortifications, and this stack "
            "has none (§4).", code="no_siege_units")
    targets = []
    odds: dict[str, Any] | None = None
    for fort in candidates:
        setup = siege_setup(campaign=campaign, actor=actor, stack=stack, units=units, fort=fort)
        if odds is None:
            odds = _siege_odds(setup)
        sees = fort.hex == stack.hex
        targets.append({
            "id": fort.pk, "hex": fort.hex, "kind": fort.kind,
            "direction": fort.direction or None,
            "description": setup.fortification.description,
            "owner": fort.owner.kind if fort.owner is not None else None,
            "hits": fort.hits if sees else None,
            "starting_hits": fort.starting_hits if sees else None,
        })
    return {"stack": stack.pk, "hex": stack.hex, "targets": targets, "odds": odds}


def _siege_odds(setup: Any) -> dict[str, Any]:
    """The damage of a siege over the 36 equally likely rolls of the 2d6 (§4: RN)."""
    counts: dict[int, int] = {}
    first = None
    for a in range(1, 7):
        for b in range(1, 7):
            try:
                result = besiege(fortification=setup.fortification, units=setup.units,
                                 dice=FixedDice([]), roll=(a, b),
                                 chief_warlord_in_hex=setup.chief_warlord_in_hex)
            except FortificationError as exc:
                raise siege_error(exc) from exc
            first = first or result
            counts[result.damage] = counts.get(result.damage, 0) + 1
    assert first is not None
    expected = sum((Fraction(d * n, 36) for d, n in counts.items()), Fraction(0))
    return {
        "siege_attack": first.siege_attack,
        "cb": _p(first.cb),
        "units": [u.pk for u in setup.sieging],
        "damage": [{"damage": d, "p": _p(Fraction(n, 36)), "chance": _chance(Fraction(n, 36))}
                   for d, n in sorted(counts.items())],
        "expected_damage": _exact(expected),
    }


def fortification_json(fortification: Fortification) -> dict[str, Any]:
    """A fortification as in the map JSON, with its id and hits (shown to whoever just
    repaired, besieged or adjusted it)."""
    row = (Fortification.objects.filter(pk=fortification.pk)
           .values("id", "hex", "kind", "direction", "hits", "starting_hits", "owner__kind")
           .get())
    return {"id": row["id"], **_fortification(dict(row), hits_visible=True)}


def own_unit_type(*, user: User, campaign: Campaign, unit_type_id: int) -> UnitType | None:
    """A unit type of the user's side (any for the GM); another side's designs are unknown."""
    viewer = _viewer(user=user, campaign=campaign)
    types = UnitType.objects.filter(campaign=campaign, pk=unit_type_id)
    if viewer is None:
        return None
    if viewer.role != Role.GM:
        types = types.filter(side_id=viewer.side_id) if viewer.side_id else types.none()
    return types.first()
