"""Shared steps of the move/combat services: who acts, locks, fetching stacks into the rules'
dataclasses, the phase's dice, applying combat results, captures and victory."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from django.utils import timezone

from accounts.models import User
from campaigns.errors import NotAllowedError, WrongStateError
from campaigns.games.erfworld.fetch import unit_stats
from campaigns.games.erfworld.knowledge import Glimpse, remember
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Declaration,
    DeclarationStatus,
    DiceRoll,
    Event,
    EventKind,
    Fortification,
    Membership,
    Phase,
    PhaseKind,
    PhaseStatus,
    Side,
    SideKind,
    Sighting,
    SightingSource,
    Stack,
    Unit,
)
from campaigns.services.common import (
    members_of,
    membership_of,
    notify,
    record_event,
    require_gm,
    roll_payload,
    side_of,
)
from campaigns.services.phase_state import actor_in_phase, open_phase_locked, record_proxy
from rules.dice import Roll, SeededDice, mix_draw
from rules.erfworld.board import Board
from rules.erfworld.combat import CombatResult, CombatSide, CombatUnit
from rules.erfworld.forts import fortified_hex_owner
from rules.erfworld.movement import StackMember
from rules.erfworld.types import SideKind as RulesSideKind
from rules.erfworld.types import Special, UnitStats
from rules.hexgrid import Direction, format_label, neighbor, parse_label


@dataclass(frozen=True)
class Actor:
    """Who gives an order in the open phase: the user, the player whose units these are
    (None for the GM's opposition), the Chief Warlord acting by proxy, and the side."""

    user: User
    player: Membership | None
    proxy: Membership | None
    side: Side
    phase: Phase
    # The GM's opposition under the alliance's draw (Campaign.alliance_draw): its combats are
    # declared and its declared stacks wait.
    alliance_draw: bool = False


def require_running(campaign: Campaign) -> None:
    if campaign.status == CampaignStatus.FINISHED:
        raise WrongStateError(
            f"The campaign is finished ({campaign.winner} victory); it is read-only.",
            code="campaign_finished",
        )


def acting(
    *, user: User, campaign: Campaign, on_behalf_of: Membership | None = None
) -> Actor:
    """The actor of a move/combat order (campaign locked): alliance players (or the Chief
    Warlord for a late player) in the move/combat phase, the GM in the opposition phase."""
    require_running(campaign)
    phase = open_phase_locked(campaign)
    if phase.kind == PhaseKind.MOVE_COMBAT:
        player, proxy, status = actor_in_phase(
            user=user, campaign=campaign, phase=phase, on_behalf_of=on_behalf_of
        )
        record_proxy(status, proxy)
        assert player.side is not None
        return Actor(user=user, player=player, proxy=proxy, side=player.side, phase=phase)
    if phase.kind == PhaseKind.OPPOSITION:
        membership = membership_of(user=user, campaign=campaign)
        if membership.side is not None:
            raise NotAllowedError(
                "The opposition phase belongs to the GM, who plays the opposition (§5).",
                code="wrong_side",
            )
        require_gm(user=user, campaign=campaign)
        if phase.awaiting_draw and not RESOLVING_DRAW.get():
            raise WrongStateError(
                "The opposition's orders are closed: the declared combats wait for the "
                "alliance's draw.", code="awaiting_draw")
        return Actor(user=user, player=None, proxy=None,
                     side=side_of(campaign, SideKind.OPPOSITION), phase=phase,
                     alliance_draw=campaign.alliance_draw)
    raise WrongStateError(
        f"Stacks move and fight in the move/combat and opposition phases; this is the "
        f"{phase.get_kind_display().lower()}.",
        code="not_move_phase",
    )


def lock_stacks(campaign: Campaign, stacks: Sequence[Stack]) -> list[Stack]:
    """The stacks, locked in id order (no deadlock between two actions), in the given order."""
    ids = [s.pk for s in stacks]
    locked = {
        s.pk: s
        for s in Stack.objects.select_for_update().select_related("side")
        .filter(pk__in=ids, campaign=campaign).order_by("pk")
    }
    missing = [i for i in ids if i not in locked]
    if missing:
        raise WrongStateError(
            "That stack no longer exists (it was merged or croaked).", code="no_such_stack"
        )
    return [locked[i] for i in ids]


def stack_units(stack: Stack) -> list[Unit]:
    return list(
        Unit.objects.filter(stack=stack, current_hits__gt=0)
        .select_related("unit_type").order_by("position", "created_seq", "pk")
    )


def require_own(actor: Actor, stack: Stack, units: Sequence[Unit]) -> None:
    """The actor commands every unit of the stack: its own (or the late player's)."""
    if stack.side_id != actor.side.pk:
        raise NotAllowedError(f"The stack in {stack.hex} is not of your side.", code="wrong_side")
    if (actor.alliance_draw and not RESOLVING_DRAW.get()
            and Declaration.objects.filter(phase=actor.phase, stack=stack,
                                           status=DeclarationStatus.PENDING).exists()):
        raise WrongStateError(
            f"The stack in {stack.hex} has a combat declared for the alliance's draw; it "
            "waits for the draw (withdraw the declaration to give it other orders).",
            code="declared")
    if actor.player is not None:
        foreign = [u.name for u in units if u.owner_id != actor.player.pk]
        if foreign:
            raise NotAllowedError(
                f"{', '.join(foreign)} {'is' if len(foreign) == 1 else 'are'} not "
                f"{actor.player.user.public_name}'s; a player orders only their own units.",
                code="not_your_unit",
            )


def member_names(units: Sequence[Unit]) -> dict[int, str]:
    """Names for the rules (unique in a stack: a unit name repeated gets its id)."""
    counts: dict[str, int] = {}
    for u in units:
        counts[u.name] = counts.get(u.name, 0) + 1
    return {u.pk: u.name if counts[u.name] == 1 else f"{u.name} #{u.pk}" for u in units}


def stack_members(units: Sequence[Unit]) -> tuple[StackMember, ...]:
    names = member_names(units)
    return tuple(
        StackMember(
            name=names[u.pk], stats=unit_stats(u.unit_type), movement_used=u.movement_used,
            all_on_road=u.all_on_road, commanded=u.was_commanded,
            rides=names.get(u.mount_id) if u.mount_id is not None else None,
        )
        for u in units
    )


def carrier_stats(unit: Unit, by_id: dict[int, Unit]) -> UnitStats:
    """The stats that move a unit: its mount's when it rides one in the same stack."""
    mount = by_id.get(unit.mount_id) if unit.mount_id is not None else None
    return unit_stats((mount or unit).unit_type)


def stack_flying(units: Sequence[Unit]) -> bool:
    by_id = {u.pk: u for u in units}
    return all(carrier_stats(u, by_id).has(Special.FLYING) for u in units)


def combat_units(units: Sequence[Unit], *, chief_warlord: int | None) -> tuple[CombatUnit, ...]:
    by_id = {u.pk: u for u in units}
    names = member_names(units)
    out = []
    for u in units:
        stats = unit_stats(u.unit_type)
        carrier = carrier_stats(u, by_id)
        out.append(CombatUnit(
            name=names[u.pk], stats=stats, current_hits=u.current_hits,
            commander_level=u.commander_level if stats.has(Special.COMMANDER) else None,
            xp=u.commander_xp, move_left=max(0, carrier.move - u.movement_used),
            is_chief_warlord=u.pk == chief_warlord,
        ))
    return tuple(out)


def combat_side(
    units: Sequence[Unit], *, name: str, chief_warlord: int | None, hex_has_chief: bool
) -> CombatSide:
    return CombatSide(
        units=combat_units(units, chief_warlord=chief_warlord), name=name,
        chief_warlord_in_hex=hex_has_chief, flying=stack_flying(units),
    )


def chief_warlord_unit(campaign: Campaign) -> Unit | None:
    """The Chief Warlord on the map: the Chief Warlord player's first living commander."""
    return (
        Unit.objects.filter(
            campaign=campaign, owner__is_chief_warlord=True, current_hits__gt=0,
            stack__isnull=False, commander_level__isnull=False,
        ).select_related("stack").order_by("pk").first()
    )


def rules_side(side: Side) -> RulesSideKind:
    return RulesSideKind(side.kind)


def known_board(board: Board, *, campaign: Campaign, side: Side, phase: Phase) -> Board:
    """The board as the side knows it: the alliance knows enemy stacks only in the hexes it
    scouted this turn or was ambushed from this phase (the rest are for ambushes); the
    opposition is played by the GM, who sees everything."""
    if side.kind == SideKind.OPPOSITION:
        return board
    enemy = RulesSideKind.OPPOSITION
    scouted = set(
        Sighting.objects.filter(side=side, turn=phase.turn_id, source=SightingSource.SCOUT)
        .values_list("hex", flat=True)
    )
    scouted |= {h for h in Event.objects.filter(phase=phase, kind=EventKind.AMBUSH)
                .values_list("payload__hex", flat=True) if isinstance(h, str)}
    known = frozenset(h for h in board.stacks.get(enemy, frozenset())
                      if format_label(h) in scouted)
    stacks = dict(board.stacks)
    stacks[enemy] = known
    return replace(board, stacks=stacks)


# Set while draw.py resolves the opposition's declared combats after the alliance's
# draw: the services then roll instead of declaring, and the declared stacks may act.
RESOLVING_DRAW: ContextVar[bool] = ContextVar("resolving_draw", default=False)


def declares(campaign: Campaign, phase: Phase) -> bool:
    """With the alliance's draw, the opposition phase's combats are declared, not rolled."""
    return (campaign.alliance_draw and phase.kind == PhaseKind.OPPOSITION
            and not RESOLVING_DRAW.get())


def declare(
    *, campaign: Campaign, actor: Actor, kind: str, stack: Stack, summary: str,
    target: Stack | None = None, fortification: Fortification | None = None,
    options: dict[str, Any] | None = None,
) -> Event:
    """Store an opposition combat for the alliance's draw (the checks are done) and tell the
    GM; nothing is rolled and nothing changes on the map until the draw."""
    seq = Declaration.objects.filter(phase=actor.phase).count() + 1
    declaration = Declaration.objects.create(
        campaign=campaign, phase=actor.phase, seq=seq, kind=kind, stack=stack, target=target,
        fortification=fortification, options=options or {}, declared_by=actor.user)
    return record_event(
        campaign=campaign, kind=EventKind.COMBAT_DECLARED, actor=actor.user, phase=actor.phase,
        side=actor.side,
        summary=f"Declared for the alliance's draw (#{seq}): {summary}",
        payload={"declaration": declaration.pk, "seq": seq, "kind": kind, "stack": stack.pk,
                 "target": target.pk if target else None,
                 "fortification": fortification.pk if fortification else None,
                 **(options or {})},
    )


def phase_dice(phase: Phase) -> SeededDice:
    """The phase's dice, numbering on; from the alliance's draw on, the seed mixed with it."""
    seed = phase.dice_seed
    if phase.drawn_from_number is not None and phase.dice_next_number >= phase.drawn_from_number:
        seed = mix_draw(seed, phase.alliance_draw)
    return SeededDice(seed=seed, first_number=phase.dice_next_number)


def store_phase_rolls(phase: Phase, dice: SeededDice) -> list[Roll]:
    rolls = list(dice.rolls)
    DiceRoll.objects.bulk_create([
        DiceRoll(campaign_id=phase.campaign_id, phase=phase, number=r.number,
                 purpose=r.purpose, sides=r.sides, value=r.value)
        for r in rolls
    ])
    if rolls:
        phase.dice_next_number = dice.next_number
        phase.save(update_fields=["dice_next_number"])
    return rolls


def fortification_bonus_hits(
    campaign: Campaign, *, hex_label: str, holder: Side, facing: str | None
) -> tuple[int, bool]:
    """(tower + wall on the hexside facing `facing`, fortified) of a hex held by `holder`."""
    forts = list(Fortification.objects.filter(campaign=campaign, hex=hex_label))
    if not forts or any(f.owner_id != holder.pk for f in forts):
        return 0, False
    direction = None
    if facing is not None:
        d = _direction(hex_label, facing)
        direction = d.name if d is not None else None
    hits = sum(f.hits for f in forts if f.kind == "tower" or f.direction == direction)
    return hits, any(f.hits > 0 for f in forts)


def _direction(a: str, b: str) -> Direction | None:
    ha, hb = parse_label(a), parse_label(b)
    for d in Direction:
        if neighbor(ha, d) == hb:
            return d
    return None


def apply_combat_units(
    units: Sequence[Unit], outcome: Iterable[Any], *, attacked: bool = False
) -> list[dict[str, Any]]:
    """Store the units' hits, levels and XP after a combat; croaked units leave the map."""
    casualties = []
    changed = []
    for unit, after in zip(units, outcome, strict=True):
        if after.current_hits != unit.current_hits:
            casualties.append({"unit": unit.pk, "name": unit.name,
                               "hits_before": unit.current_hits,
                               "hits_after": after.current_hits,
                               "croaked": after.current_hits == 0})
        unit.current_hits = after.current_hits
        unit.commander_level = after.commander_level
        unit.commander_xp = after.xp
        if attacked:
            unit.has_attacked = True
        if after.current_hits == 0:
            unit.stack = None
            unit.mount = None
        changed.append(unit)
    Unit.objects.bulk_update(
        changed, ["current_hits", "commander_level", "commander_xp", "has_attacked", "stack",
                  "mount"]
    )
    croaked = [u.pk for u in changed if u.current_hits == 0]
    if croaked:
        Unit.objects.filter(mount_id__in=croaked).update(mount=None)
    return casualties


def drop_empty_stacks(stacks: Iterable[Stack]) -> list[int]:
    gone = []
    for s in stacks:
        if not Unit.objects.filter(stack=s).exists():
            gone.append(s.pk)
    if gone:
        Stack.objects.filter(pk__in=gone).delete()
    return gone


def level_ups(result: CombatResult) -> list[str]:
    return [
        f"{u.name} reaches commander level {u.commander_level}"
        for side in (result.attacker, result.defender) for u in side.units if u.levelled_up
    ]


def combat_payload(result: CombatResult, rolls: Sequence[Roll]) -> dict[str, Any]:
    return {
        "result": result.to_dict(),
        "explanation": result.explain(),
        "dice": roll_payload(rolls),
        "withdrew": result.withdrew,
        "counts_for_defender": result.counts_for_defender,
        "special_retaliation": [
            {"protector": r.protector, "used": r.used, "reason": r.reason,
             "roll": list(r.roll) if r.roll else None}
            for r in result.special_retaliation
        ],
        "level_ups": level_ups(result),
    }


def involved_users(campaign: Campaign, units: Iterable[Unit]) -> list[User]:
    owners = {u.owner_id for u in units if u.owner_id is not None}
    users = [m.user for m in Membership.objects.filter(pk__in=owners).select_related("user")]
    return users + members_of(campaign, gm=True)


def capture_fortified_hexes(
    *, campaign: Campaign, phase: Phase, hexes: Iterable[str], actor: User | None
) -> list[str]:
    """Fortified hexes now occupied by one side only change hands (§4); returns them."""
    labels = list(dict.fromkeys(hexes))
    forts = list(Fortification.objects.filter(campaign=campaign, hex__in=labels)
                 .select_related("owner"))
    if not forts:
        return []
    sides = {s.pk: s for s in Side.objects.filter(campaign=campaign)}
    by_kind = {s.kind: s for s in sides.values()}
    in_hex: dict[str, list[RulesSideKind]] = {}
    for hex_label, side_kind in (
        Stack.objects.filter(campaign=campaign, hex__in=labels, units__current_hits__gt=0)
        .values_list("hex", "side__kind").distinct()
    ):
        in_hex.setdefault(hex_label, []).append(RulesSideKind(side_kind))
    captured = []
    for hex_label in labels:
        here = [f for f in forts if f.hex == hex_label]
        if not here:
            continue
        owner = RulesSideKind(here[0].owner.kind)
        capture = fortified_hex_owner(owner=owner, stacks_in_hex=in_hex.get(hex_label, []))
        if not capture.changed or capture.owner is None:
            continue
        new_owner = by_kind[capture.owner.value]
        Fortification.objects.filter(campaign=campaign, hex=hex_label).update(owner=new_owner)
        captured.append(hex_label)
        event = record_event(
            campaign=campaign, kind=EventKind.FORTIFICATION_CAPTURED, actor=actor, phase=phase,
            summary=f"The {new_owner.name} captured the fortified hex {hex_label} (§4).",
            payload={"hex": hex_label, "owner": new_owner.kind, "previous": owner.value},
        )
        notify(event=event, users=members_of(campaign, side=by_kind[SideKind.ALLIANCE], gm=True))
    if captured and phase is not None:
        # The alliance learns the new holder of each fortified hex that changed hands.
        remember(campaign=campaign, phase=phase, side=by_kind[SideKind.ALLIANCE],
                 source=SightingSource.CAPTURE,
                 glimpses=[Glimpse(hex=h, stacks=frozenset(), forts=True) for h in captured])
    return captured


def check_victory(*, campaign: Campaign, phase: Phase | None, actor: User | None) -> str | None:
    """The alliance wins holding the victory hex's fortification; the opposition when no
    alliance unit is left (on the map or waiting to pop). The campaign is then finished."""
    winner = None
    if campaign.victory_hex and Fortification.objects.filter(
        campaign=campaign, hex=campaign.victory_hex, owner__kind=SideKind.ALLIANCE
    ).exists():
        winner = SideKind.ALLIANCE
    elif not Unit.objects.filter(
        campaign=campaign, side__kind=SideKind.ALLIANCE, current_hits__gt=0
    ).exclude(stack__isnull=True, pop_hex="").exists():
        winner = SideKind.OPPOSITION
    if winner is None:
        return None
    now = timezone.now()
    campaign.status = CampaignStatus.FINISHED
    campaign.winner = winner
    campaign.finished_at = now
    campaign.setup_dice_revealed_at = now
    campaign.version += 1
    campaign.save(update_fields=["status", "winner", "finished_at", "setup_dice_revealed_at",
                                 "version"])
    open_phase = Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).first()
    if open_phase is not None:
        open_phase.status = PhaseStatus.CLOSED
        open_phase.closed_at = now
        open_phase.version += 1
        open_phase.save(update_fields=["status", "closed_at", "version"])
        record_event(
            campaign=campaign, kind=EventKind.PHASE_CLOSED, actor=actor, phase=open_phase,
            summary=f"Turn {open_phase.turn.number}: the "
            f"{open_phase.get_kind_display().lower()} is closed; its dice seed is revealed.",
            payload={"dice_seed": open_phase.dice_seed,
                     "dice_commitment": open_phase.dice_commitment},
        )
    why = (f"it holds the fortification of {campaign.victory_hex}"
           if winner == SideKind.ALLIANCE else "no alliance unit is left")
    side = side_of(campaign, winner)
    event = record_event(
        campaign=campaign, kind=EventKind.CAMPAIGN_FINISHED, actor=actor, phase=phase,
        summary=f"{side.name} win{'s' if not side.name.endswith('s') else ''}: {why}. "
        "The campaign is finished; its setup dice are revealed.",
        payload={"winner": winner, "reason": why,
                 "setup_dice_seed": campaign.setup_dice_seed,
                 "setup_dice_commitment": campaign.setup_dice_commitment},
    )
    notify(event=event, users=[m.user for m in Membership.objects.filter(campaign=campaign)
                               .select_related("user")])
    return winner
