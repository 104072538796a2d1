"""Move/combat services (§2–§4): move, split, merge, reorder, mount, attack, siege, repair.

Each is one transaction: the campaign row is locked first (every action of a campaign is
serialised by it), then the stacks involved; the rules decide; the result is stored with an
Event holding the full report (dice with their numbers and purposes, factors, casualties).
Move and split/merge events are seen by the mover's side; combats by both sides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from django.db import transaction

from accounts.models import NotificationKind, User
from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.games.erfworld.engine import (
    Actor,
    acting,
    apply_combat_units,
    capture_fortified_hexes,
    check_victory,
    chief_warlord_unit,
    combat_payload,
    combat_side,
    combat_units,
    declare,
    declares,
    drop_empty_stacks,
    fortification_bonus_hits,
    involved_users,
    known_board,
    lock_stacks,
    phase_dice,
    require_own,
    require_running,
    rules_side,
    stack_flying,
    stack_members,
    stack_units,
    store_phase_rolls,
)
from campaigns.games.erfworld.fetch import board_for, unit_stats
from campaigns.games.erfworld.knowledge import Glimpse, alliance_witnesses
from campaigns.games.erfworld.standing import require_standing
from campaigns.models import (
    Campaign,
    DeclarationKind,
    Event,
    EventKind,
    Fortification,
    FortificationKind,
    Membership,
    PhaseKind,
    Side,
    SideKind,
    SightingSource,
    Stack,
    Unit,
)
from campaigns.services.common import (
    lock_campaign,
    notify,
    record_event,
    require_alliance_player,
    roll_payload,
)
from campaigns.services.phase_state import open_phase_locked
from rules.erfworld.board import Board, other_side
from rules.erfworld.combat import (
    AttackError,
    AttackPlan,
    Combat,
    CombatError,
    TargetStack,
    resolve_ambush,
    resolve_combat,
    validate_attack,
)
from rules.erfworld.forts import (
    FortificationError,
    SiegeUnit,
    Tower,
    WallSide,
    besiege,
    repair,
)
from rules.erfworld.movement import (
    MovementError,
    MovingStack,
    can_ride,
    movement_profile,
    stack_path,
    stacking_problems,
    step_problem,
    units_reached_by_commander,
)
from rules.erfworld.types import SideKind as RulesSideKind
from rules.erfworld.types import Special
from rules.hexgrid import (
    Direction,
    Hex,
    HexLabelError,
    distance,
    format_label,
    neighbor,
    parse_label,
)


def _hex(label: str, field: str) -> str:
    try:
        return format_label(parse_label(label.strip().upper()))
    except (HexLabelError, ValueError) as exc:
        raise RuleViolationError(str(exc), code="invalid_hex", field=field) from exc


_MOVE_CODES = (
    ("(§2 command)", "command_rule"),
    ("Garrison", "garrison"),
    ("garrison unit", "garrison"),
    ("Fliers may not stack", "stacking"),
    ("(§2 mounts)", "mount_rule"),
    ("wall", "wall"),
    ("enemy stack", "enemy_hex"),
    ("after fighting", "after_combat"),
    ("After fighting", "after_combat"),
    ("not adjacent", "not_adjacent"),
    ("not on the map", "off_map"),
)


def _move_error(exc: MovementError | str) -> RuleViolationError:
    text = str(exc)
    code = next((c for key, c in _MOVE_CODES if key in text), "out_of_reach")
    return RuleViolationError(text, code=code)


def _by(actor: Actor) -> str:
    who = actor.user.public_name
    if actor.proxy is not None and actor.player is not None:
        return f"{who} (for {actor.player.user.public_name}, by proxy)"
    return who


# ---------------------------------------------------------------------------
# Moving


@dataclass(frozen=True)
class MoveResult:
    """Where the stack went, what it cost, and the ambush that stopped it, if any."""

    stack: Stack | None
    path: list[str]
    cost: int
    ambushed: bool
    event: Event
    combat: Event | None = None


def move_boards(
    *, campaign: Campaign, actor: Actor, stack: Stack, units: list[Unit]
) -> tuple[Board, Board, MovingStack]:
    """(the real board, the board as the actor's side knows it, the stack as the rules move
    it): what a move is planned on, shared with the reachable-hexes and path reads."""
    real = board_for(campaign)
    known = known_board(real, campaign=campaign, side=actor.side, phase=actor.phase)
    moving = MovingStack(side=rules_side(actor.side), hex=parse_label(stack.hex),
                         members=stack_members(units), fought=stack.fought,
                         moved_after_fighting=stack.moved_after_fighting)
    return real, known, moving


def _own_stack(
    *, user: User, campaign: Campaign, stack: Stack, on_behalf_of: Membership | None
) -> tuple[Campaign, Actor, Stack, list[Unit]]:
    """Lock the campaign and the stack, and check the acting player commands all its units."""
    campaign = lock_campaign(campaign)
    actor = acting(user=user, campaign=campaign, on_behalf_of=on_behalf_of)
    (stack,) = lock_stacks(campaign, [stack])
    units = stack_units(stack)
    require_own(actor, stack, units)
    return campaign, actor, stack, units


def _step(current: MovingStack, nxt: Hex, known: Board, side: RulesSideKind
          ) -> tuple[MovingStack, int]:
    """The stack one hex on, entered directly from its hex; MovementError as the service's
    refusal when the rules refuse the step."""
    try:
        step = stack_path(stack=current, board=known, goal=nxt)
    except MovementError as exc:
        raise _move_error(exc) from exc
    if step.hexes != (current.hex, nxt):
        problem = step_problem(
            movement_profile(current.members[0].stats), current.hex, nxt, known,
            side=side, movement_left=0,
        ) or f"{format_label(nxt)} cannot be entered directly from {format_label(current.hex)}."
        raise _move_error(problem)
    members = tuple(
        replace(m, movement_used=m.movement_used + step.cost, all_on_road=step.all_on_road)
        for m in current.members
    )
    return replace(current, hex=nxt, members=members,
                   moved_after_fighting=current.moved_after_fighting or current.fought
                   ), step.cost


@transaction.atomic
def stack_move(
    *,
    user: User,
    campaign: Campaign,
    stack: Stack,
    path: list[str] | None = None,
    destination: str | None = None,
    on_behalf_of: Membership | None = None,
) -> MoveResult:
    """Move a stack along `path` (the hexes entered, in order) or to `destination` by the
    cheapest path (§2). Each step is checked by the rules; a refused step refuses the whole
    move. Entering an unscouted hex holding an enemy stack is an ambush: the stack stops in
    the hex it came from and the enemy attacks it (§3)."""
    campaign, actor, stack, units = _own_stack(
        user=user, campaign=campaign, stack=stack, on_behalf_of=on_behalf_of
    )
    require_standing(actor, attack=False)
    if (path is None) == (destination is None):
        raise RuleViolationError("Give either a path or a destination.", code="invalid_field",
                                 field="path")
    side = rules_side(actor.side)
    real, known, moving = move_boards(campaign=campaign, actor=actor, stack=stack, units=units)
    if destination is not None:
        goal = parse_label(_hex(destination, "destination"))
        try:
            planned = stack_path(stack=moving, board=known, goal=goal).hexes[1:]
        except MovementError as exc:
            raise _move_error(exc) from exc
    else:
        assert path is not None
        if not path:
            raise RuleViolationError("A path needs at least one hex.", code="invalid_field",
                                     field="path")
        planned = tuple(parse_label(_hex(h, "path")) for h in path)

    # The whole move is checked first on the board as the mover knows it (no movement left,
    # an intact wall, a hex it cannot enter …): a move that breaks a rule is refused before
    # any hidden stack is consulted, so a refusal never depends on what the side cannot see.
    current = moving
    for nxt in planned:
        current, _ = _step(current, nxt, known, side)
    # Then it is made, stopping where a hidden enemy stack waits (an ambush, §3).
    enemy = real.stacks.get(other_side(side), frozenset())
    current = moving
    entered: list[str] = []
    cost = 0
    ambush_hex: str | None = None
    for nxt in planned:
        if nxt in enemy and not known.has_enemy(nxt, side):
            ambush_hex = format_label(nxt)
            break
        current, step_cost = _step(current, nxt, known, side)
        cost += step_cost
        entered.append(format_label(nxt))

    start = stack.hex
    for unit, member in zip(units, current.members, strict=True):
        unit.movement_used = member.movement_used
        unit.all_on_road = member.all_on_road
    Unit.objects.bulk_update(units, ["movement_used", "all_on_road"])
    stack.hex = format_label(current.hex)
    stack.moved_after_fighting = current.moved_after_fighting
    stack.save(update_fields=["hex", "moved_after_fighting"])
    route = [start, *entered]
    if entered and any(unit_stats(u.unit_type).has(Special.COMMANDER) for u in units):
        # §2 command: every unit of the side in a hex the commander passed through may move.
        nearby = dict(
            Unit.objects.filter(campaign=campaign, side=actor.side, current_hits__gt=0,
                                stack__hex__in=route).values_list("pk", "stack__hex")
        )
        reached = units_reached_by_commander(
            path=[parse_label(h) for h in route],
            unit_hexes={pk: parse_label(h) for pk, h in nearby.items()},
        )
        Unit.objects.filter(pk__in=reached, was_commanded=False).update(was_commanded=True)
    names = ", ".join(u.name for u in units)
    summary = (
        f"{_by(actor)} moved {names} from {start} to {stack.hex} "
        f"({' → '.join(route)}, {cost} movement)." if entered
        else f"{_by(actor)}'s stack in {start} did not move."
    )
    if ambush_hex:
        summary += f" It was ambushed from {ambush_hex}."
    event = record_event(
        campaign=campaign, kind=EventKind.STACK_MOVED, actor=user, phase=actor.phase,
        side=actor.side, summary=summary,
        payload={"stack": stack.pk, "from": start, "to": stack.hex, "path": route, "cost": cost,
                 "units": [u.pk for u in units], "ambushed_from": ambush_hex,
                 "movement_used": {str(u.pk): u.movement_used for u in units},
                 "proxied_by": actor.proxy.pk if actor.proxy else None},
    )
    capture_fortified_hexes(campaign=campaign, phase=actor.phase, hexes=entered, actor=user)
    combat = None
    if ambush_hex is not None:
        combat = _ambush(campaign=campaign, actor=actor, stack=stack, units=units,
                         ambush_hex=ambush_hex)
    check_victory(campaign=campaign, phase=actor.phase, actor=user)
    alive = Stack.objects.filter(pk=stack.pk).first()
    return MoveResult(stack=alive, path=route, cost=cost, ambushed=ambush_hex is not None,
                      event=event, combat=combat)


def _ambush(
    *, campaign: Campaign, actor: Actor, stack: Stack, units: list[Unit], ambush_hex: str
) -> Event:
    """The first enemy stack in the hex attacks the stopped stack with AB = ambush value."""
    ambusher = (
        Stack.objects.select_for_update().select_related("side")
        .filter(campaign=campaign, hex=ambush_hex).exclude(side=actor.side)
        .order_by("created_seq", "pk").first()
    )
    assert ambusher is not None
    ambush_units = stack_units(ambusher)
    chief = chief_warlord_unit(campaign)
    chief_id = chief.pk if chief else None
    fort_hits, fortified = fortification_bonus_hits(
        campaign, hex_label=stack.hex, holder=actor.side, facing=ambush_hex
    )
    defender = combat_side(units, name=f"stack {stack.pk}", chief_warlord=chief_id,
                           hex_has_chief=bool(chief and chief.stack and chief.stack.hex == stack.hex
                                              and chief.stack_id != stack.pk))
    defender = replace(defender, combats_this_turn=stack.defender_combats)
    dice = phase_dice(actor.phase)
    result = resolve_ambush(
        ambusher=combat_side(ambush_units, name=f"stack {ambusher.pk}", chief_warlord=chief_id,
                             hex_has_chief=False),
        moving=defender,
        moving_hex_terrain=board_for(campaign).terrain_at(parse_label(stack.hex)),
        dice=dice, ambush_value=Fraction(campaign.ambush_value),
        fortification_hits=fort_hits, fortified=fortified,
    )
    rolls = store_phase_rolls(actor.phase, dice)
    casualties = apply_combat_units(ambush_units, result.attacker.units)
    casualties += apply_combat_units(units, result.defender.units)
    stack.fought = True
    stack.defender_combats = result.defender_combats_after
    stack.save(update_fields=["fought", "defender_combats"])
    Stack.objects.filter(pk=ambusher.pk).update(fought=True)
    gone = drop_empty_stacks([stack, ambusher])
    alliance_witnesses(campaign=campaign, phase=actor.phase, source=SightingSource.AMBUSH,
                       glimpses=[Glimpse(hex=ambush_hex, stacks=frozenset({ambusher.pk}),
                                         forts=False)])
    event = record_event(
        campaign=campaign, kind=EventKind.AMBUSH, actor=actor.user, phase=actor.phase,
        summary=f"Ambush: the stack in {ambush_hex} attacked the stack stopped in {stack.hex} "
        f"(AB {campaign.ambush_value}): {result.hits_on_defender} hits on the ambushed stack, "
        f"{result.hits_on_attacker} on the ambushers; winner {result.winner.value}.",
        payload={"hex": ambush_hex, "stopped_in": stack.hex, "ambusher": ambusher.pk,
                 "ambushed": stack.pk, "casualties": casualties, "stacks_gone": gone,
                 **combat_payload(result, rolls)},
    )
    notify(event=event, users=involved_users(campaign, [*units, *ambush_units]),
           kind=NotificationKind.COMBAT)
    return event


# ---------------------------------------------------------------------------
# Split, merge, reorder, mount


def _check_stacking(units: list[Unit], *, keep_riders: bool = True) -> None:
    problems = stacking_problems(stack_members(units))
    if problems:
        raise RuleViolationError(" ".join(problems), code="stacking")
    if keep_riders:
        ids = {u.pk for u in units}
        apart = [u.name for u in units if u.mount_id is not None and u.mount_id not in ids]
        apart += [u.name for u in units if any(
            r.mount_id == u.pk and r.pk not in ids for r in Unit.objects.filter(mount=u))]
        if apart:
            raise RuleViolationError(
                f"{', '.join(apart)}: a rider and its mount stay in one stack (§2 mounts); "
                "dismount first.", code="mount_rule",
            )


@transaction.atomic
def stack_split(
    *, user: User, campaign: Campaign, stack: Stack, units: list[Unit],
    on_behalf_of: Membership | None = None,
) -> Stack:
    """Split `units` off into a new stack in the same hex, keeping their order (§2)."""
    campaign, actor, stack, current = _own_stack(
        user=user, campaign=campaign, stack=stack, on_behalf_of=on_behalf_of
    )
    wanted = {u.pk for u in units}
    if not wanted or not wanted <= {u.pk for u in current}:
        raise RuleViolationError("Split off one or more units of this stack.",
                                 code="invalid_field", field="units")
    if wanted == {u.pk for u in current}:
        raise RuleViolationError("Splitting off every unit leaves an empty stack; move the "
                                 "stack instead.", code="invalid_field", field="units")
    leaving = [u for u in current if u.pk in wanted]
    staying = [u for u in current if u.pk not in wanted]
    _check_stacking(leaving)
    _check_stacking(staying)
    new = Stack.objects.create(
        campaign=campaign, side=stack.side, hex=stack.hex, fought=stack.fought,
        moved_after_fighting=stack.moved_after_fighting, times_attacked=stack.times_attacked,
        defender_combats=stack.defender_combats, retaliation_used=stack.retaliation_used,
    )
    for i, u in enumerate(leaving):
        u.stack, u.position = new, i
    Unit.objects.bulk_update(leaving, ["stack", "position"])
    record_event(
        campaign=campaign, kind=EventKind.STACK_SPLIT, actor=user, phase=actor.phase,
        side=actor.side,
        summary=f"{_by(actor)} split {', '.join(u.name for u in leaving)} off into a new stack "
        f"in {stack.hex}.",
        payload={"from": stack.pk, "new": new.pk, "units": [u.pk for u in leaving]},
    )
    return new


@transaction.atomic
def stacks_merge(
    *, user: User, campaign: Campaign, stacks: list[Stack],
    on_behalf_of: Membership | None = None,
) -> Stack:
    """Merge stacks of one hex into the first; the others' units follow in order (§2)."""
    campaign = lock_campaign(campaign)
    actor = acting(user=user, campaign=campaign, on_behalf_of=on_behalf_of)
    if len({s.pk for s in stacks}) < 2:
        raise RuleViolationError("Merging needs two or more stacks.", code="invalid_field",
                                 field="stacks")
    locked = lock_stacks(campaign, stacks)
    target, others = locked[0], locked[1:]
    if any(s.hex != target.hex for s in others):
        raise RuleViolationError("Only stacks in the same hex can be merged (§2).",
                                 code="not_same_hex")
    groups = [stack_units(s) for s in locked]
    for s, us in zip(locked, groups, strict=True):
        require_own(actor, s, us)
    everyone = [u for us in groups for u in us]
    _check_stacking(everyone)
    for i, u in enumerate(everyone):
        u.stack, u.position = target, 1000 + i
    Unit.objects.bulk_update(everyone, ["stack", "position"])
    for i, u in enumerate(everyone):
        u.position = i
    Unit.objects.bulk_update(everyone, ["position"])
    # The merged stack keeps the strictest combat state of its parts.
    target.fought = any(s.fought for s in locked)
    target.moved_after_fighting = any(s.moved_after_fighting for s in locked)
    target.times_attacked = max(s.times_attacked for s in locked)
    target.defender_combats = max(s.defender_combats for s in locked)
    target.retaliation_used = any(s.retaliation_used for s in locked)
    target.save()
    Stack.objects.filter(pk__in=[s.pk for s in others]).delete()
    record_event(
        campaign=campaign, kind=EventKind.STACKS_MERGED, actor=user, phase=actor.phase,
        side=actor.side,
        summary=f"{_by(actor)} merged {len(locked)} stacks in {target.hex}.",
        payload={"into": target.pk, "merged": [s.pk for s in others],
                 "order": [u.pk for u in everyone]},
    )
    return target


@transaction.atomic
def stack_reorder(
    *, user: User, campaign: Campaign, stack: Stack, order: list[Unit],
    on_behalf_of: Membership | None = None,
) -> Stack:
    """Put the stack's units in a new order: hits are taken in stack order (§3)."""
    campaign, actor, stack, current = _own_stack(
        user=user, campaign=campaign, stack=stack, on_behalf_of=on_behalf_of
    )
    ids = [u.pk for u in order]
    if sorted(ids) != sorted(u.pk for u in current):
        raise RuleViolationError("The new order must list every unit of the stack once.",
                                 code="invalid_field", field="order")
    by_id = {u.pk: u for u in current}
    ordered = [by_id[i] for i in ids]
    for i, u in enumerate(ordered):
        u.position = 1000 + i
    Unit.objects.bulk_update(ordered, ["position"])
    for i, u in enumerate(ordered):
        u.position = i
    Unit.objects.bulk_update(ordered, ["position"])
    summary = (f"{_by(actor)} reordered the stack in {stack.hex}: "
               f"{', '.join(u.name for u in ordered)}.")
    # Consecutive reorders of one stack by one person in a phase are one event: the last
    # event of the phase, if it is that, now says the final order.
    last = (Event.objects.filter(campaign=campaign, phase=actor.phase)
            .order_by("-created_at").first())
    if (last is not None and last.kind == EventKind.STACK_REORDERED and last.actor_id == user.pk
            and last.payload.get("stack") == stack.pk):
        last.summary = summary
        last.payload = {**last.payload, "order": ids,
                        "reorders": int(last.payload.get("reorders", 1)) + 1}
        last.save(update_fields=["summary", "payload"])
        return stack
    record_event(
        campaign=campaign, kind=EventKind.STACK_REORDERED, actor=user, phase=actor.phase,
        side=actor.side, summary=summary,
        payload={"stack": stack.pk, "order": ids, "reorders": 1},
    )
    return stack


@transaction.atomic
def units_mount(
    *, user: User, campaign: Campaign, riders: list[Unit], mount: Unit | None,
    on_behalf_of: Membership | None = None,
) -> list[Unit]:
    """Riders climb on a mount of their stack (§2 mounts), or dismount (`mount` None)."""
    campaign = lock_campaign(campaign)
    actor = acting(user=user, campaign=campaign, on_behalf_of=on_behalf_of)
    stack_ids = {u.stack_id for u in Unit.objects.filter(pk__in=[r.pk for r in riders])}
    if mount is not None:
        stack_ids.add(Unit.objects.get(pk=mount.pk).stack_id)
    if len(stack_ids) != 1 or None in stack_ids:
        raise RuleViolationError("Riders and their mount must be in one stack (§2 mounts).",
                                 code="mount_rule")
    (stack,) = lock_stacks(campaign, list(Stack.objects.filter(pk__in=[i for i in stack_ids if i])))
    units = stack_units(stack)
    require_own(actor, stack, units)
    by_id = {u.pk: u for u in units}
    chosen = [by_id[r.pk] for r in riders if r.pk in by_id]
    if not chosen:
        raise RuleViolationError("Name the riders.", code="invalid_field", field="riders")
    if mount is not None:
        carrier = by_id[mount.pk]
        if carrier.pk in {r.pk for r in chosen} or carrier.mount_id is not None:
            raise RuleViolationError("A mount cannot ride, nor ride itself (§2 mounts).",
                                     code="mount_rule")
        all_riders = [u for u in units if u.mount_id == carrier.pk] + chosen
        problems = can_ride(unit_stats(carrier.unit_type),
                            [unit_stats(u.unit_type) for u in all_riders])
        if problems:
            raise RuleViolationError(" ".join(problems), code="mount_rule")
    # Refuse a change that makes the stack mix fliers and walkers (a dismount among fliers).
    # A stack that already mixes them (a player's army is placed in one stack at the start)
    # must still let walkers climb on a flying mount: it is the only way to board one.
    mixed_before = bool(stacking_problems(stack_members(units)))
    for u in chosen:
        u.mount = by_id[mount.pk] if mount is not None else None
    problems = stacking_problems(stack_members(units))
    if problems and not mixed_before:
        raise RuleViolationError(" ".join(problems), code="stacking")
    Unit.objects.bulk_update(chosen, ["mount"])
    names = ", ".join(u.name for u in chosen)
    record_event(
        campaign=campaign, kind=EventKind.UNITS_MOUNTED, actor=user, phase=actor.phase,
        side=actor.side,
        summary=f"{_by(actor)}: {names} "
        + (f"now ride {by_id[mount.pk].name}." if mount is not None else "dismounted."),
        payload={"riders": [u.pk for u in chosen], "mount": mount.pk if mount else None},
    )
    return chosen


# ---------------------------------------------------------------------------
# Combat

_ATTACK_CODES = (
    ("already attacked this turn; each unit", "already_attacked"),
    ("attacked once before any", "attack_every_stack_first"),
    ("must attack an enemy ranged stack", "ranged_target_rule"),
    ("ranged attack needs", "ranged_rule"),
    ("attacks at range", "ranged_rule"),
    ("woods", "flier_in_woods"),
)


@dataclass(frozen=True)
class AttackSetup:
    """An attack checked against §3 and the Combat the rules resolve (or the odds enumerate):
    who fights (`fighting`, in the order of `combat.attacker.units`), the defending stack's
    units (the order of `combat.defender.units`) and the protecting stacks of its hex."""

    combat: Combat
    plan: AttackPlan
    fighting: list[Unit]
    defender_units: list[Unit]
    protectors: list[Stack]
    fortification_hits: int
    fortified: bool


def attack_setup(
    *,
    campaign: Campaign,
    side: Side,
    attacker: Stack,
    defender: Stack,
    attacker_units: list[Unit],
    withdraw: bool = False,
    directed_at: Unit | None = None,
    ranged: bool | None = None,
    lock: bool = True,
) -> AttackSetup:
    """Check an attack by `side`'s stack on an enemy stack and build its Combat; the one
    construction the attack service resolves and the attack preview computes odds for.
    `lock` locks the defender's hex's stacks (the service); a read passes False."""
    if defender.side_id == side.pk:
        raise RuleViolationError("That stack is of your own side.", code="not_enemy")
    if distance(parse_label(attacker.hex), parse_label(defender.hex)) != 1:
        raise RuleViolationError(
            f"An attack is against an enemy stack in an adjacent hex (§3); {defender.hex} is "
            f"not adjacent to {attacker.hex}.", code="not_adjacent",
        )
    board = board_for(campaign)
    chief = chief_warlord_unit(campaign)
    chief_id = chief.pk if chief else None
    chief_hex = chief.stack.hex if chief and chief.stack else None

    in_hex = Stack.objects.filter(campaign=campaign, hex=defender.hex, side=defender.side_id)
    hex_stacks = list((in_hex.select_for_update() if lock else in_hex)
                      .order_by("created_seq", "pk"))
    units_of = {s.pk: stack_units(s) for s in hex_stacks}
    targets = [
        TargetStack(units=tuple(unit_stats(u.unit_type) for u in units_of[s.pk]),
                    times_attacked=s.times_attacked, name=f"stack {s.pk}",
                    flying=stack_flying(units_of[s.pk]))
        for s in hex_stacks if units_of[s.pk]
    ]
    alive_stacks = [s for s in hex_stacks if units_of[s.pk]]
    index = next(i for i, s in enumerate(alive_stacks) if s.pk == defender.pk)
    all_att = combat_units(attacker_units, chief_warlord=chief_id)
    try:
        plan = validate_attack(
            attacking_units=all_att,
            attacked_this_turn=[i for i, u in enumerate(attacker_units) if u.has_attacked],
            target_hex_stacks=targets, target=index,
            target_hex_terrain=board.terrain_at(parse_label(defender.hex)), ranged=ranged,
        )
    except AttackError as exc:
        code = next((c for key, c in _ATTACK_CODES if key in str(exc)), "attack_rule")
        raise RuleViolationError(str(exc), code=code) from exc
    fighting = [u for u in attacker_units if not u.has_attacked]
    def_units = units_of[defender.pk]
    target_index = None
    if directed_at is not None:
        ids = [u.pk for u in def_units]
        if directed_at.pk not in ids:
            raise RuleViolationError("The directed target must be a unit of the attacked stack.",
                                     code="invalid_field", field="directed_at")
        target_index = ids.index(directed_at.pk)
    fort_hits, fortified = fortification_bonus_hits(
        campaign, hex_label=defender.hex, holder=defender.side, facing=attacker.hex
    )
    protectors = [s for s in alive_stacks if s.pk != defender.pk and not s.retaliation_used]
    try:
        combat = Combat(
            attacker=replace(
                combat_side(fighting, name=f"stack {attacker.pk}", chief_warlord=chief_id,
                            hex_has_chief=chief_hex == attacker.hex
                            and chief_id not in {u.pk for u in fighting}
                            and chief is not None and chief.side_id == side.pk),
                units=plan.units,
            ),
            defender=replace(
                combat_side(def_units, name=f"stack {defender.pk}", chief_warlord=chief_id,
                            hex_has_chief=chief_hex == defender.hex
                            and chief is not None and chief.side_id == defender.side_id
                            and chief_id not in {u.pk for u in def_units}),
                combats_this_turn=defender.defender_combats,
            ),
            defender_terrain=board.terrain_at(parse_label(defender.hex)),
            fortification_hits=fort_hits, fortified=fortified, withdraw=withdraw,
            target=target_index,
            protectors=tuple(
                combat_side(units_of[p.pk], name=f"stack {p.pk}", chief_warlord=chief_id,
                            hex_has_chief=False)
                for p in protectors
            ),
        )
    except CombatError as exc:
        raise RuleViolationError(str(exc), code="directed_needs_commander",
                                 field="directed_at") from exc
    return AttackSetup(combat=combat, plan=plan, fighting=fighting, defender_units=def_units,
                       protectors=protectors, fortification_hits=fort_hits,
                       fortified=fortified)


@transaction.atomic
def stack_attack(
    *,
    user: User,
    campaign: Campaign,
    stack: Stack,
    target: Stack,
    withdraw: bool = False,
    directed_at: Unit | None = None,
    ranged: bool | None = None,
    on_behalf_of: Membership | None = None,
) -> Event:
    """One stack attacks an enemy stack in an adjacent hex (§3), resolved at once."""
    campaign = lock_campaign(campaign)
    actor = acting(user=user, campaign=campaign, on_behalf_of=on_behalf_of)
    attacker, defender = lock_stacks(campaign, [stack, target])
    att_units = stack_units(attacker)
    require_own(actor, attacker, att_units)
    require_standing(actor, attack=True)
    setup = attack_setup(campaign=campaign, side=actor.side, attacker=attacker,
                         defender=defender, attacker_units=att_units, withdraw=withdraw,
                         directed_at=directed_at, ranged=ranged)
    combat, plan, protectors = setup.combat, setup.plan, setup.protectors
    fighting, def_units = setup.fighting, setup.defender_units
    fort_hits, fortified = setup.fortification_hits, setup.fortified
    if declares(campaign, actor.phase):
        return declare(
            campaign=campaign, actor=actor, kind=DeclarationKind.ATTACK, stack=attacker,
            target=defender,
            summary=f"the stack in {attacker.hex} attacks the stack in {defender.hex}.",
            options={"withdraw": withdraw, "ranged": ranged,
                     "directed_at": directed_at.pk if directed_at else None})
    dice = phase_dice(actor.phase)
    result = resolve_combat(combat, dice=dice)
    rolls = store_phase_rolls(actor.phase, dice)
    casualties = apply_combat_units(fighting, result.attacker.units, attacked=True)
    casualties += apply_combat_units(def_units, result.defender.units)
    used = {r.index for r in result.special_retaliation if r.used}
    Stack.objects.filter(pk__in=[p.pk for i, p in enumerate(protectors) if i in used]).update(
        retaliation_used=True)
    attacker.fought = True
    attacker.save(update_fields=["fought"])
    defender.fought = True
    defender.times_attacked += 1
    defender.defender_combats = result.defender_combats_after
    defender.save(update_fields=["fought", "times_attacked", "defender_combats"])
    gone = drop_empty_stacks([attacker, defender])
    # The alliance saw the enemy stack it fought, or the one that attacked it, as it is now.
    if actor.side.kind == SideKind.ALLIANCE:
        seen = Glimpse(hex=defender.hex, stacks=frozenset({defender.pk}), forts=True)
    else:
        seen = Glimpse(hex=attacker.hex, stacks=frozenset({attacker.pk}), forts=False)
    alliance_witnesses(campaign=campaign, phase=actor.phase, glimpses=[seen],
                       source=SightingSource.COMBAT)
    event = record_event(
        campaign=campaign, kind=EventKind.COMBAT, actor=user, phase=actor.phase,
        summary=f"{_by(actor)}'s stack in {attacker.hex} attacked the stack in {defender.hex}: "
        f"{result.hits_on_defender} hits on the defender, {result.hits_on_attacker} on the "
        f"attacker; winner {result.winner.value}."
        + (" The attacker withdrew." if result.withdrew else ""),
        payload={"attacker": attacker.pk, "defender": defender.pk, "from": attacker.hex,
                 "hex": defender.hex, "ranged": plan.ranged, "left_out": list(plan.left_out),
                 "directed_at": directed_at.pk if directed_at else None,
                 "fortification_hits": fort_hits, "fortified": fortified,
                 "casualties": casualties, "stacks_gone": gone,
                 "proxied_by": actor.proxy.pk if actor.proxy else None,
                 **combat_payload(result, rolls)},
    )
    notify(event=event, users=involved_users(campaign, [*att_units, *def_units]),
           kind=NotificationKind.COMBAT)
    check_victory(campaign=campaign, phase=actor.phase, actor=user)
    return event


def _rules_fortification(fort: Fortification) -> Tower | WallSide:
    if fort.kind == FortificationKind.TOWER:
        return Tower(hex=fort.hex, hits=fort.hits, starting_hits=fort.starting_hits)
    across = neighbor(parse_label(fort.hex), Direction[fort.direction])
    return WallSide(hex=fort.hex, direction=fort.direction, across=format_label(across),
                    hits=fort.hits, starting_hits=fort.starting_hits)


@dataclass(frozen=True)
class SiegeSetup:
    """A siege checked against §3–§4, ready for the rules' `besiege`: the fortification as
    the rules see it, the stack's units that strike (siege units not yet used this turn, with
    the commanders that lead them) and whether the Chief Warlord stands in the hex."""

    fortification: Tower | WallSide
    units: list[SiegeUnit]
    sieging: list[Unit]
    chief_warlord_in_hex: bool


def siege_setup(
    *, campaign: Campaign, actor: Actor, stack: Stack, units: list[Unit], fort: Fortification
) -> SiegeSetup:
    """The one construction the siege service resolves and the siege preview enumerates."""
    if fort.owner_id == actor.side.pk:
        raise RuleViolationError("That fortification is held by your own side.",
                                 code="not_enemy")
    fresh = [u for u in units if not u.has_attacked]
    if any(unit_stats(u.unit_type).has(Special.SIEGE) for u in units) and not any(
        unit_stats(u.unit_type).has(Special.SIEGE) for u in fresh
    ):
        raise RuleViolationError("Every siege unit of this stack has already attacked this "
                                 "turn; each unit attacks at most once per turn (§3).",
                                 code="already_attacked")
    chief = chief_warlord_unit(campaign)
    chief_id = chief.pk if chief else None
    return SiegeSetup(
        fortification=_rules_fortification(fort),
        units=[SiegeUnit(unit=cu, hex=stack.hex)
               for cu in combat_units(fresh, chief_warlord=chief_id)],
        sieging=[u for u in fresh if unit_stats(u.unit_type).has(Special.SIEGE)],
        chief_warlord_in_hex=bool(chief and chief.stack and chief.stack.hex == stack.hex
                                  and chief.side_id == actor.side.pk
                                  and chief_id not in {u.pk for u in fresh}),
    )


def siege_error(exc: FortificationError) -> RuleViolationError:
    """The rules' refusal of a siege as the services' error, with its machine code."""
    text = str(exc)
    code = ("siege_position" if " in " in text and "not" in text and "attacked" in text
            else "already_destroyed" if "already" in text else "no_siege_units")
    return RuleViolationError(text, code=code, field="fortification")


@transaction.atomic
def fortification_besiege(
    *, user: User, campaign: Campaign, stack: Stack, fortification: Fortification,
    on_behalf_of: Membership | None = None,
) -> Event:
    """Siege units of a stack attack an enemy tower (from its hex) or wall hexside (from the
    hex across it): damage = floor(siege attack × CB × RN) (§4). Siege units that attack
    have attacked for the turn, and the stack has fought."""
    campaign, actor, stack, units = _own_stack(
        user=user, campaign=campaign, stack=stack, on_behalf_of=on_behalf_of
    )
    require_standing(actor, attack=True)
    fort = Fortification.objects.select_for_update().select_related("owner").filter(
        pk=fortification.pk, campaign=campaign).first()
    if fort is None:
        raise RuleViolationError("No such fortification.", code="invalid_field",
                                 field="fortification")
    setup = siege_setup(campaign=campaign, actor=actor, stack=stack, units=units, fort=fort)
    if declares(campaign, actor.phase):
        return declare(
            campaign=campaign, actor=actor, kind=DeclarationKind.SIEGE, stack=stack,
            fortification=fort,
            summary=f"the stack in {stack.hex} besieges the {fort.get_kind_display().lower()} "
            f"of {fort.hex}.")
    dice = phase_dice(actor.phase)
    try:
        result = besiege(fortification=setup.fortification, units=setup.units, dice=dice,
                         chief_warlord_in_hex=setup.chief_warlord_in_hex)
    except FortificationError as exc:
        raise siege_error(exc) from exc
    rolls = store_phase_rolls(actor.phase, dice)
    fort.hits = result.fortification.hits
    fort.save(update_fields=["hits"])
    sieging = setup.sieging
    Unit.objects.filter(pk__in=[u.pk for u in sieging]).update(has_attacked=True)
    Stack.objects.filter(pk=stack.pk).update(fought=True)
    if actor.side.kind == SideKind.ALLIANCE:
        alliance_witnesses(campaign=campaign, phase=actor.phase, source=SightingSource.SIEGE,
                           glimpses=[Glimpse(hex=fort.hex, stacks=frozenset(), forts=True)])
    event = record_event(
        campaign=campaign, kind=EventKind.SIEGE, actor=user, phase=actor.phase,
        summary=f"{_by(actor)}'s siege units in {stack.hex} struck "
        f"{result.fortification.description}: {result.damage} damage, "
        f"{result.hits_before} → {result.fortification.hits} hits.",
        payload={"stack": stack.pk, "fortification": fort.pk, "damage": result.damage,
                 "hits_before": result.hits_before, "hits_after": result.fortification.hits,
                 "siege_attack": result.siege_attack, "CB": str(result.cb),
                 "RN": str(result.rn), "roll": list(result.roll),
                 "explanation": result.explain(), "dice": roll_payload(rolls),
                 "siege_units": [u.pk for u in sieging]},
    )
    notify(event=event, users=involved_users(campaign, units), kind=NotificationKind.COMBAT)
    return event


@transaction.atomic
def fortification_repair(
    *, user: User, campaign: Campaign, fortification: Fortification, hits: int
) -> Fortification:
    """An alliance player repairs a fortification their side holds with their pop points,
    1 point per hit, up to its starting hits (§4). Not in the opposition phase."""
    campaign = lock_campaign(campaign)
    require_running(campaign)
    phase = open_phase_locked(campaign)
    player = require_alliance_player(user=user, campaign=campaign)
    if phase.kind == PhaseKind.OPPOSITION:
        raise WrongStateError("Repairs are made in the alliance's phases, not in the "
                              "opposition phase.", code="not_alliance_phase")
    fort = Fortification.objects.select_for_update().select_related("owner").filter(
        pk=fortification.pk, campaign=campaign).first()
    if fort is None:
        raise NotAllowedError("No such fortification.", code="invalid_field")
    membership = Membership.objects.select_for_update().get(pk=player.pk)
    points = Fraction(membership.pop_points)
    try:
        done = repair(_rules_fortification(fort), hits=hits, pop_points=math.floor(points),
                      owner=rules_side(fort.owner), by=rules_side(membership.side))  # type: ignore[arg-type]
    except FortificationError as exc:
        text = str(exc)
        code = ("not_holder" if "holding" in text else "not_enough_pop_points"
                if "pop points" in text else "over_repair" if "at most" in text
                else "invalid_field")
        raise RuleViolationError(text, code=code, field="hits") from exc
    fort.hits = done.fortification.hits
    fort.save(update_fields=["hits"])
    membership.pop_points = membership.pop_points - done.points_spent
    membership.save(update_fields=["pop_points"])
    record_event(
        campaign=campaign, kind=EventKind.FORTIFICATION_REPAIRED, actor=user, phase=phase,
        side=membership.side,
        summary=f"{user.public_name} repaired {done.fortification.description} by {hits} hits "
        f"for {done.points_spent} pop points (now {fort.hits} of {fort.starting_hits}).",
        payload={"fortification": fort.pk, "hits": hits, "points_spent": done.points_spent},
    )
    return fort
