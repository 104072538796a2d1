"""Erfworld §2 movement: terrain costs, walls, towers, roads, mounts, stacks, command rule."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from rules.erfworld.board import Board, other_side
from rules.erfworld.types import (
    TERRAIN_CAPABILITIES,
    MovementClass,
    SideKind,
    Special,
    Terrain,
    UnitStats,
)
from rules.hexgrid import Grid, Hex, direction_to, distance, format_label
from rules.pathing import StepCost, cheapest_path, reachable

__all__ = [
    "TERRAIN_COST",
    "Destination",
    "MovementError",
    "MovementProfile",
    "MovingStack",
    "StackMember",
    "StackMove",
    "StackReach",
    "after_combat_reachable",
    "can_ride",
    "commanded_hexes",
    "hex_was_commanded",
    "may_move",
    "movement_cost",
    "movement_profile",
    "stack_movers",
    "stack_path",
    "stack_problems",
    "stack_reachable",
    "stack_step_cost",
    "stacking_problems",
    "step_problem",
    "terrain_cost",
    "units_reached_by_commander",
]

UnitId = TypeVar("UnitId", bound=Hashable)


class MovementError(ValueError):
    """A move the rules do not allow; the message says which rule and why."""


# §2 cost to ENTER a hex, for ground units (fliers always pay 1).
TERRAIN_COST: Mapping[tuple[Terrain, MovementClass], int] = {
    (Terrain.OPEN, MovementClass.INFANTRY): 1,
    (Terrain.OPEN, MovementClass.CAVALRY): 1,
    (Terrain.ROAD, MovementClass.INFANTRY): 1,
    (Terrain.ROAD, MovementClass.CAVALRY): 1,
    (Terrain.HILLS, MovementClass.INFANTRY): 2,
    (Terrain.HILLS, MovementClass.CAVALRY): 2,
    (Terrain.WOODS, MovementClass.INFANTRY): 2,
    (Terrain.WOODS, MovementClass.CAVALRY): 4,
    (Terrain.SWAMP, MovementClass.INFANTRY): 2,
    (Terrain.SWAMP, MovementClass.CAVALRY): 4,
}


@dataclass(frozen=True, kw_only=True)
class MovementProfile:
    """The stats that decide how a unit moves (a rider takes its mount's)."""

    move: int
    movement_class: MovementClass
    flying: bool
    capabilities: frozenset[Terrain] = frozenset()


def movement_profile(stats: UnitStats, *, mount: UnitStats | None = None) -> MovementProfile:
    """How a unit moves: on its own, or riding `mount` (then with the mount's move, class,
    flying and terrain capabilities, since the mount does the walking). A garrison unit
    keeps its garrison profile even on a mount: it never moves (§2)."""
    if stats.movement_class is MovementClass.GARRISON:
        return MovementProfile(move=0, movement_class=MovementClass.GARRISON, flying=False)
    carrier = mount if mount is not None else stats
    return MovementProfile(
        move=carrier.move,
        movement_class=carrier.movement_class,
        flying=carrier.has(Special.FLYING),
        capabilities=frozenset(t for t, sp in TERRAIN_CAPABILITIES.items() if carrier.has(sp)),
    )


def _profile(unit: UnitStats | MovementProfile) -> MovementProfile:
    return unit if isinstance(unit, MovementProfile) else movement_profile(unit)


def terrain_cost(unit: UnitStats | MovementProfile, terrain: Terrain) -> int | None:
    """Movement points to enter a hex of this terrain (None for garrison units: they never move)."""
    p = _profile(unit)
    if p.movement_class is MovementClass.GARRISON:
        return None
    if p.flying or terrain in p.capabilities:
        return 1
    return TERRAIN_COST[(terrain, p.movement_class)]


def movement_cost(
    unit: UnitStats | MovementProfile,
    from_hex: Hex,
    to_hex: Hex,
    board: Board,
    *,
    side: SideKind,
    movement_left: int | None = None,
) -> int | None:
    """Movement points for `unit` of `side` to step from `from_hex` into the adjacent `to_hex`.

    None = cannot enter. An opposition tower costs all remaining movement for non-fliers
    (at least 1 must remain); without `movement_left` that is reported as the unit's Move.
    """
    p = _profile(unit)
    base = _entry_cost(p, to_hex, board, side)
    if base is None or not _side_open(from_hex, to_hex, board):
        return None
    if base == _ALL_REMAINING:
        left = p.move if movement_left is None else movement_left
        return left if left >= 1 else None
    return base


_ALL_REMAINING = -1


def _entry_cost(p: MovementProfile, to_hex: Hex, board: Board, side: SideKind) -> int | None:
    """Cost of entering to_hex, ignoring hexsides; _ALL_REMAINING for an opposition tower."""
    if p.movement_class is MovementClass.GARRISON or not board.grid.contains(to_hex):
        return None
    if board.has_enemy(to_hex, side):
        return None
    if not p.flying and board.opposition_tower(to_hex, side) is not None:
        return _ALL_REMAINING
    if board.counts_as_road(to_hex, side):
        return 1
    return terrain_cost(p, board.terrain_at(to_hex))


def _side_open(from_hex: Hex, to_hex: Hex, board: Board) -> bool:
    return direction_to(from_hex, to_hex) is not None and board.wall_hits(from_hex, to_hex) == 0


def step_problem(
    unit: UnitStats | MovementProfile,
    from_hex: Hex,
    to_hex: Hex,
    board: Board,
    *,
    side: SideKind,
    movement_left: int,
) -> str | None:
    """Why `unit` cannot step from `from_hex` into `to_hex` with `movement_left` points, or None."""
    p = _profile(unit)
    if p.movement_class is MovementClass.GARRISON:
        return "Garrison units (Move 0) never move, not even on a mount (§2)."
    if not board.grid.contains(to_hex):
        return "That hex is not on the map."
    there = format_label(to_hex)
    if direction_to(from_hex, to_hex) is None:
        return f"{there} is not adjacent to {format_label(from_hex)}."
    wall = board.wall_hits(from_hex, to_hex)
    if wall > 0:
        return (
            f"The wall between {format_label(from_hex)} and {there} still has {wall} hits; "
            "a wall can be crossed only once that hexside is breached (§2 walls)."
        )
    if board.has_enemy(to_hex, side):
        return (
            f"{there} holds an enemy stack; a hex holding an enemy stack cannot be entered, "
            "attack it instead (§2)."
        )
    cost = movement_cost(p, from_hex, to_hex, board, side=side, movement_left=movement_left)
    if cost is None:
        return (
            f"Entering the opposition tower in {there} costs all remaining movement and at "
            "least 1 point must remain, but none is left (§2 towers)."
        )
    if cost > movement_left:
        terrain = "road" if board.counts_as_road(to_hex, side) else board.terrain_at(to_hex).value
        who = "a flier" if p.flying else p.movement_class.value
        return (
            f"Entering {there} ({terrain}) costs {cost} movement for {who}, "
            f"but only {movement_left} is left (§2 terrain costs)."
        )
    return None


# --- mounts -------------------------------------------------------------------------------


def can_ride(mount: UnitStats, riders: Sequence[UnitStats]) -> list[str]:
    """The §2 mount rules these riders break on this mount; an empty list means they may ride.

    The mount needs H ≥ 2 × the sum of the riders' starting hits; heavy units (H > 7) and
    garrison units (M = 0, which never move) cannot ride.
    """
    problems: list[str] = []
    if not riders:
        problems.append("A mount needs at least one rider.")
        return problems
    total = sum(r.hits for r in riders)
    if mount.hits < 2 * total:
        problems.append(
            f"A mount must have at least twice the riders' starting hits (§2 mounts): "
            f"riders with {total} hits need a mount of {2 * total} hits or more, "
            f"this one has {mount.hits}."
        )
    for i, r in enumerate(riders, start=1):
        if r.heavy:
            problems.append(
                f"Rider {i} has {r.hits} hits; heavy units (more than 7 hits) cannot ride "
                "(§2 mounts)."
            )
        if r.movement_class is MovementClass.GARRISON:
            problems.append(
                f"Rider {i} is a garrison unit (Move 0); garrison units never move, "
                "not even on a mount (§2)."
            )
    return problems


# --- command rule ------------------------------------------------------------------------


def commanded_hexes(
    *, commander_starts: Iterable[Hex], commander_paths: Iterable[Sequence[Hex]]
) -> frozenset[Hex]:
    """Every hex a commander of the side has been in this turn: where commanders started
    the turn and every hex on the paths they moved along (start and end included)."""
    hexes = set(commander_starts)
    for path in commander_paths:
        hexes.update(path)
    return frozenset(hexes)


def hex_was_commanded(
    h: Hex, *, commander_starts: Iterable[Hex], commander_paths: Iterable[Sequence[Hex]]
) -> bool:
    """Whether a commander of the side was in h at some moment of this turn (§2 command)."""
    return h in commanded_hexes(commander_starts=commander_starts, commander_paths=commander_paths)


def units_reached_by_commander(
    *, path: Sequence[Hex], unit_hexes: Mapping[UnitId, Hex]
) -> frozenset[UnitId]:
    """The units (of the commander's side) standing in a hex the commander passes through or
    stops in along `path`: they may move this turn (§2 command)."""
    on_path = set(path)
    return frozenset(u for u, h in unit_hexes.items() if h in on_path)


def may_move(stats: UnitStats, *, commanded: bool) -> bool:
    """Commanders always may move; other units only when a commander reached their hex."""
    return commanded or stats.has(Special.COMMANDER)


# --- stacks ------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class StackMember:
    """One unit of a moving stack and its movement so far this turn.

    movement_used: points spent this turn; all_on_road: its move so far (start hex and every
    hex entered) was on road hexes; commanded: a commander of its side has been in its hex
    this turn; rides: the name of the stack member it rides as a mount, if any.
    """

    name: str
    stats: UnitStats
    movement_used: int = 0
    all_on_road: bool = True
    commanded: bool = True
    rides: str | None = None


@dataclass(frozen=True, kw_only=True)
class MovingStack:
    """A stack about to move: its side, hex, units in stack order and combat state this turn.

    fought: it has fought this turn, so it may move only into one adjacent hex;
    moved_after_fighting: it has already made that one-hex move.
    """

    side: SideKind
    hex: Hex
    members: tuple[StackMember, ...]
    fought: bool = False
    moved_after_fighting: bool = False


def _mount_of(member: StackMember, by_name: Mapping[str, StackMember]) -> StackMember | None:
    return by_name.get(member.rides) if member.rides is not None else None


def _effective_flying(member: StackMember, by_name: Mapping[str, StackMember]) -> bool:
    mount = _mount_of(member, by_name)
    carrier = mount if mount is not None else member
    return carrier.stats.has(Special.FLYING)


def stacking_problems(members: Sequence[StackMember]) -> list[str]:
    """§2 stacking: fliers may not stack with non-fliers, except non-fliers riding a flying mount.

    A rider counts as flying exactly when its mount flies."""
    by_name = {m.name: m for m in members}
    fliers = [m.name for m in members if _effective_flying(m, by_name)]
    walkers = [m.name for m in members if not _effective_flying(m, by_name)]
    if fliers and walkers:
        return [
            "Fliers may not stack with non-fliers unless the non-fliers ride a flying mount "
            f"(§2 stacks): {', '.join(fliers)} fly, {', '.join(walkers)} do not."
        ]
    return []


def stack_problems(stack: MovingStack, board: Board) -> list[str]:
    """Every reason this stack cannot move at all right now, as sentences (empty = it may move)."""
    problems: list[str] = []
    members = stack.members
    if not members:
        return ["A stack needs at least one unit."]
    if not board.grid.contains(stack.hex):
        problems.append("The stack's hex is not on the map.")
    by_name: dict[str, StackMember] = {}
    for m in members:
        if m.name in by_name:
            problems.append(f"Two units of the stack are both named {m.name!r}.")
        by_name[m.name] = m
    riders_of: dict[str, list[StackMember]] = {}
    for m in members:
        if m.rides is None:
            continue
        mount = by_name.get(m.rides)
        if mount is None or mount is m:
            problems.append(f"{m.name} rides {m.rides!r}, which is not another unit of this stack.")
            continue
        if mount.rides is not None:
            problems.append(f"{m.name} rides {mount.name}, which itself rides another unit.")
            continue
        riders_of.setdefault(mount.name, []).append(m)
    for mount_name, riders in riders_of.items():
        for p in can_ride(by_name[mount_name].stats, [r.stats for r in riders]):
            problems.append(f"{', '.join(r.name for r in riders)} on {mount_name}: {p}")
    problems.extend(stacking_problems(members))
    garrison = [m.name for m in stack_movers(members)
                if m.stats.movement_class is MovementClass.GARRISON]
    if len(garrison) == 1:
        problems.append(f"{garrison[0]} is a garrison unit (Move 0) and never moves (§2).")
    elif garrison:
        problems.append(f"{len(garrison)} units of this stack are garrison units (Move 0) and "
                        f"never move ({_names(garrison)}): split them off to move the rest "
                        "(§2).")
    # One sentence for the cause, not one per unit (a stack of 14 has one problem).
    stuck = [m.name for m in members if not may_move(m.stats, commanded=m.commanded)]
    if len(stuck) == 1:
        problems.append(
            f"{stuck[0]} may not move this turn: no commander of its side has been in its hex "
            "(§2 command)."
        )
    elif stuck:
        here = format_label(stack.hex)
        problems.append(
            f"{len(stuck)} units in {here} may not move this turn ({_names(stuck)}): no "
            f"commander of their side has been in {here}; bring one through {here} first "
            "(§2 command)."
        )
    return problems


def _names(names: Sequence[str], shown: int = 3) -> str:
    """'A, B, C and 11 more': a long list of units named in a sentence."""
    if len(names) <= shown + 1:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


def stack_movers(members: Sequence[StackMember]) -> list[StackMember]:
    """The members that move on their own feet or wings (riders are carried by their mounts)."""
    return [m for m in members if m.rides is None]


@dataclass(frozen=True, kw_only=True)
class Destination:
    """The best way to a hex: movement points it costs now, and whether the whole move this
    turn is still on road (so the road bonus stays available for a later action)."""

    cost: int
    all_on_road: bool


@dataclass(frozen=True, kw_only=True)
class StackReach:
    """Where a stack can go in this action.

    allowance: the smallest remaining Move among its movers; road_allowance: the same plus the
    road bonus when the stack can still use it (None otherwise).
    """

    start: Hex
    allowance: int
    road_allowance: int | None
    destinations: Mapping[Hex, Destination] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class StackMove:
    """A legal move: the hexes from start to goal, its cost (add it to every member's
    movement_used) and whether the whole move this turn is still on road."""

    hexes: tuple[Hex, ...]
    cost: int
    all_on_road: bool


def stack_step_cost(
    profiles: Sequence[MovementProfile],
    board: Board,
    *,
    side: SideKind,
    road_only: bool = False,
) -> StepCost:
    """A pathing step cost for a stack: the dearest of its movers' costs for each hex (the
    slowest unit through a terrain sets the pace); `road_only` keeps to road hexes."""
    # Entry costs are worked out the first time a search looks at a hex, so a short move on
    # a big map only pays for the hexes it reaches; the lookups are hoisted for speed, and
    # test_stack_step_cost_is_the_dearest_movement_cost checks them against movement_cost.
    entry: dict[Hex, int | None] = {}
    by_terrain: dict[Terrain, int | None] = {}
    for t in Terrain:
        costs = [terrain_cost(p, t) for p in profiles]
        by_terrain[t] = None if None in costs else max(c for c in costs if c is not None)
    garrison = any(p.movement_class is MovementClass.GARRISON for p in profiles)
    walks = any(not p.flying for p in profiles)
    enemies = board.stacks.get(other_side(side), frozenset())
    terrain, towers, owners, grid = board.terrain, board.towers, board.fort_owners, board.grid
    road, open_ = Terrain.ROAD, Terrain.OPEN

    def entry_cost(h: Hex) -> int | None:
        if garrison or h in enemies or not grid.contains(h):
            return None
        tower = towers.get(h)
        owner = owners.get(h) or (tower.owner if tower is not None else None)
        here = terrain.get(h, open_)
        as_road = here is road or owner is side
        if road_only and not as_road:
            return None
        if walks and tower is not None and tower.hits > 0 and owner is not side:
            return _ALL_REMAINING
        return 1 if as_road else by_terrain[here]

    walled = {
        h
        for (fortified, d), hits in board.walls.items()
        if hits > 0
        for h in (fortified, Hex(fortified.q + d.dq, fortified.r + d.dr))
    }

    def step(from_hex: Hex, to_hex: Hex, movement_left: int, /) -> int | None:
        try:
            cost = entry[to_hex]
        except KeyError:
            cost = entry[to_hex] = entry_cost(to_hex)
        if cost is None:
            return None
        if to_hex in walled and from_hex in walled and board.wall_hits(from_hex, to_hex) > 0:
            return None
        if cost == _ALL_REMAINING:
            return movement_left if movement_left >= 1 else None
        return cost

    return step


def after_combat_reachable(
    *, start: Hex, allowance: int, step_cost: StepCost, grid: Grid
) -> dict[Hex, int]:
    """After fighting, a stack may move only into one adjacent hex (§2): start and the
    neighbours it can step into directly → movement left (no detours through other hexes)."""
    out = {start: allowance}
    for n in grid.neighbors(start).values():
        cost = step_cost(start, n, allowance)
        if cost is not None and cost <= allowance:
            out[n] = allowance - cost
    return out


@dataclass(frozen=True)
class _Plan:
    profiles: tuple[MovementProfile, ...]
    allowance: int
    road_allowance: int | None
    normal: StepCost
    road: StepCost | None


def _plan(stack: MovingStack, board: Board) -> _Plan:
    problems = stack_problems(stack, board)
    if problems:
        raise MovementError(" ".join(problems))
    movers = stack_movers(stack.members)
    profiles = tuple(movement_profile(m.stats) for m in movers)
    allowance = max(0, min(m.stats.move - m.movement_used for m in movers))
    ground = not any(p.flying for p in profiles)
    road_ok = (
        ground
        and all(m.all_on_road for m in movers)
        and board.counts_as_road(stack.hex, stack.side)
    )
    road_allowance = (
        max(0, min(m.stats.move + 1 - m.movement_used for m in movers)) if road_ok else None
    )
    if stack.moved_after_fighting:
        allowance = 0
        road_allowance = 0 if road_ok else None
    normal = stack_step_cost(profiles, board, side=stack.side)
    road = stack_step_cost(profiles, board, side=stack.side, road_only=True) if road_ok else None
    return _Plan(
        profiles=profiles,
        allowance=allowance,
        road_allowance=road_allowance,
        normal=normal,
        road=road,
    )


def _search(
    stack: MovingStack, board: Board, *, allowance: int, step_cost: StepCost
) -> dict[Hex, int]:
    if stack.fought:
        return after_combat_reachable(
            start=stack.hex, allowance=allowance, step_cost=step_cost, grid=board.grid
        )
    return reachable(start=stack.hex, allowance=allowance, step_cost=step_cost, grid=board.grid)


def stack_reachable(*, stack: MovingStack, board: Board) -> StackReach:
    """Every hex the stack can reach in this action (start included) and the best way there.

    Combines the normal search with the road search (allowance M + 1, road hexes only) and
    keeps the road result where it costs no more, since it keeps the road bonus available.
    Raises MovementError when the stack cannot move at all.
    """
    plan = _plan(stack, board)
    normal = _search(stack, board, allowance=plan.allowance, step_cost=plan.normal)
    dest = {
        h: Destination(cost=plan.allowance - left, all_on_road=False) for h, left in normal.items()
    }
    if plan.road is not None and plan.road_allowance is not None:
        road = _search(stack, board, allowance=plan.road_allowance, step_cost=plan.road)
        for h, left in road.items():
            cost = plan.road_allowance - left
            best = dest.get(h)
            if best is None or cost <= best.cost:
                dest[h] = Destination(cost=cost, all_on_road=True)
    return StackReach(
        start=stack.hex,
        allowance=plan.allowance,
        road_allowance=plan.road_allowance,
        destinations=dest,
    )


def _path(
    stack: MovingStack, board: Board, *, goal: Hex, allowance: int, step_cost: StepCost
) -> tuple[tuple[Hex, ...], int] | None:
    if stack.fought:
        if goal != stack.hex and distance(stack.hex, goal) != 1:
            return None
        reach = after_combat_reachable(
            start=stack.hex, allowance=allowance, step_cost=step_cost, grid=board.grid
        )
        if goal not in reach:
            return None
        hexes = (stack.hex,) if goal == stack.hex else (stack.hex, goal)
        return hexes, allowance - reach[goal]
    path = cheapest_path(
        start=stack.hex, goal=goal, allowance=allowance, step_cost=step_cost, grid=board.grid
    )
    return None if path is None else (path.hexes, path.cost)


def stack_path(*, stack: MovingStack, board: Board, goal: Hex) -> StackMove:
    """The cheapest legal move of the stack to `goal` in this action.

    Raises MovementError with a sentence naming the rule when the stack cannot get there.
    """
    plan = _plan(stack, board)
    if not board.grid.contains(goal):
        raise MovementError("The destination is not on the map.")
    start_on_road = plan.road is not None
    if goal == stack.hex:
        return StackMove(hexes=(goal,), cost=0, all_on_road=start_on_road)
    normal = _path(stack, board, goal=goal, allowance=plan.allowance, step_cost=plan.normal)
    road = None
    if plan.road is not None and plan.road_allowance is not None:
        road = _path(stack, board, goal=goal, allowance=plan.road_allowance, step_cost=plan.road)
    if road is not None and (normal is None or road[1] <= normal[1]):
        return StackMove(hexes=road[0], cost=road[1], all_on_road=True)
    if normal is not None:
        return StackMove(hexes=normal[0], cost=normal[1], all_on_road=False)
    raise MovementError(_why_not(stack, board, goal=goal, plan=plan))


def _why_not(stack: MovingStack, board: Board, *, goal: Hex, plan: _Plan) -> str:
    there = format_label(goal)
    side = stack.side
    if board.has_enemy(goal, side):
        return (
            f"{there} holds an enemy stack; a hex holding an enemy stack cannot be entered, "
            "attack it instead (§2)."
        )
    if stack.moved_after_fighting:
        return "This stack has already made its one-hex move after fighting this turn (§2)."
    best_allowance = max(plan.allowance, plan.road_allowance or 0)
    if best_allowance == 0:
        return (
            "The stack has no movement left this turn "
            "(a stack moves at the smallest remaining allowance among its units, §2)."
        )
    if stack.fought and distance(stack.hex, goal) > 1:
        return (
            f"After fighting this turn a stack may move only into one adjacent hex (§2); "
            f"{there} is {distance(stack.hex, goal)} hexes away."
        )
    if distance(stack.hex, goal) == 1:
        for p in plan.profiles:
            problem = step_problem(
                p, stack.hex, goal, board, side=side, movement_left=plan.allowance
            )
            if problem is not None:
                return problem
    needed = _cheapest_needed(stack, board, goal=goal, plan=plan)
    if needed is None:
        return (
            f"There is no way into {there}: walls that still have hits or enemy stacks block "
            "every route (§2)."
        )
    return (
        f"{there} is out of reach: getting there needs {needed} movement points, but the stack "
        f"has only {plan.allowance} left (a stack moves at the smallest remaining allowance "
        "among its units; the road bonus of 1 applies only to a move wholly on road, §2)."
    )


def _cheapest_needed(stack: MovingStack, board: Board, *, goal: Hex, plan: _Plan) -> int | None:
    """Fewest movement points any route to goal needs (an opposition tower needs 1, then stops)."""
    towers = [h for h in board.towers if board.opposition_tower(h, stack.side) is not None]

    def needed(from_hex: Hex, to_hex: Hex, movement_left: int, /) -> int | None:
        cost = plan.normal(from_hex, to_hex, movement_left)
        if cost is not None and to_hex in tower_set:
            return 1
        return cost

    tower_set = frozenset(towers)
    unlimited = board.grid.cols * board.grid.rows * 4 + 1
    path = cheapest_path(
        start=stack.hex,
        goal=goal,
        allowance=unlimited,
        step_cost=needed,
        grid=board.grid,
        stop_at=tower_set,
    )
    return None if path is None else path.cost
