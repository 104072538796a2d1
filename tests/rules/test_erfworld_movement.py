"""Erfworld §2 movement: costs, walls, towers, roads, mounts, stacks, command (rules/erfworld)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.erfworld.board import Board, BoardError, Tower, board_from_labels
from rules.erfworld.movement import (
    Destination,
    MovementError,
    MovementProfile,
    MovingStack,
    StackMember,
    StackMove,
    after_combat_reachable,
    can_ride,
    commanded_hexes,
    hex_was_commanded,
    may_move,
    movement_cost,
    movement_profile,
    stack_path,
    stack_reachable,
    stack_step_cost,
    stacking_problems,
    step_problem,
    units_reached_by_commander,
)
from rules.erfworld.types import MovementClass, SideKind, Special, Terrain, UnitStats
from rules.hexgrid import Direction, Grid, Hex, format_label, parse_label

ALLIANCE = SideKind.ALLIANCE
OPPOSITION = SideKind.OPPOSITION


def stats(hits: int, move: int, *specials: Special, attack: int = 1, defence: int = 1) -> UnitStats:
    return UnitStats(hits=hits, attack=attack, defence=defence, move=move,
                     specials=frozenset(specials))


UNITS: dict[str, UnitStats] = {
    "infantry": stats(5, 2),
    "cavalry": stats(10, 4),
    "flier": stats(3, 3, Special.FLYING),
    "garrison": stats(20, 0),
    "woods infantry": stats(5, 2, Special.WOODS),
    "hills cavalry": stats(10, 4, Special.HILLS),
    "swamp cavalry": stats(10, 4, Special.SWAMP),
    "commander": stats(5, 2, Special.COMMANDER),
    "gobwin": stats(3, 1),
    "flying mount": stats(18, 4, Special.FLYING, Special.WOODS),
    "small mount": stats(17, 4, Special.FLYING),
}

# On every board below A1 and B1 are adjacent: B1 is A1's SE neighbour, A1 is B1's NW one.
COSTS: list[tuple[str, dict[str, Any], str, int | None, int | None]] = [
    # (unit, board keywords, side, movement left, expected cost A1 -> B1)
    ("infantry", {"terrain": {"B1": "open"}}, "alliance", 2, 1),
    ("cavalry", {"terrain": {"B1": "open"}}, "alliance", 4, 1),
    ("flier", {"terrain": {"B1": "open"}}, "alliance", 3, 1),
    ("infantry", {"terrain": {"B1": "road"}}, "alliance", 2, 1),
    ("cavalry", {"terrain": {"B1": "road"}}, "alliance", 4, 1),
    ("flier", {"terrain": {"B1": "road"}}, "alliance", 3, 1),
    ("infantry", {"terrain": {"B1": "hills"}}, "alliance", 2, 2),
    ("cavalry", {"terrain": {"B1": "hills"}}, "alliance", 4, 2),
    ("flier", {"terrain": {"B1": "hills"}}, "alliance", 3, 1),
    ("infantry", {"terrain": {"B1": "woods"}}, "alliance", 2, 2),
    ("cavalry", {"terrain": {"B1": "woods"}}, "alliance", 4, 4),
    ("flier", {"terrain": {"B1": "woods"}}, "alliance", 3, 1),
    ("infantry", {"terrain": {"B1": "swamp"}}, "alliance", 2, 2),
    ("cavalry", {"terrain": {"B1": "swamp"}}, "alliance", 4, 4),
    ("flier", {"terrain": {"B1": "swamp"}}, "alliance", 3, 1),
    # A terrain capability pays 1 for that terrain only.
    ("woods infantry", {"terrain": {"B1": "woods"}}, "alliance", 2, 1),
    ("woods infantry", {"terrain": {"B1": "swamp"}}, "alliance", 2, 2),
    ("hills cavalry", {"terrain": {"B1": "hills"}}, "alliance", 4, 1),
    ("swamp cavalry", {"terrain": {"B1": "swamp"}}, "alliance", 4, 1),
    ("swamp cavalry", {"terrain": {"B1": "woods"}}, "alliance", 4, 4),
    # Garrison units never move.
    ("garrison", {}, "alliance", 5, None),
    # A fortified hex held by the mover's side counts as road; the other side's does not.
    ("cavalry", {"terrain": {"B1": "woods"}, "fort_owners": {"B1": "alliance"},
                 "walls": {"B1": {"N": 10}}}, "alliance", 4, 1),
    ("cavalry", {"terrain": {"B1": "woods"}, "fort_owners": {"B1": "opposition"},
                 "walls": {"B1": {"N": 10}}}, "alliance", 4, 4),
    ("cavalry", {"terrain": {"B1": "woods"}, "towers": {"B1": (10, "alliance")}}, "alliance",
     4, 1),
    # An opposition tower costs all remaining movement (at least 1) for non-fliers.
    ("infantry", {"towers": {"B1": (20, "opposition")}}, "alliance", 2, 2),
    ("infantry", {"towers": {"B1": (20, "opposition")}}, "alliance", 1, 1),
    ("infantry", {"towers": {"B1": (20, "opposition")}}, "alliance", 0, None),
    ("infantry", {"towers": {"B1": (20, "opposition")}}, "alliance", None, 2),
    ("cavalry", {"towers": {"B1": (20, "opposition")}}, "alliance", 3, 3),
    ("flier", {"towers": {"B1": (20, "opposition")}, "terrain": {"B1": "woods"}}, "alliance",
     3, 1),
    # ... from the mover's point of view: the opposition's own tower is a road to it.
    ("cavalry", {"towers": {"B1": (20, "opposition")}, "terrain": {"B1": "woods"}},
     "opposition", 4, 1),
    # A destroyed tower (0 hits) no longer costs everything.
    ("infantry", {"towers": {"B1": (0, "opposition")}, "terrain": {"B1": "hills"}}, "alliance",
     2, 2),
    # Enemy stacks block; friendly ones do not; a tower with an enemy stack cannot be entered.
    ("infantry", {"stacks": {"opposition": ["B1"]}}, "alliance", 2, None),
    ("infantry", {"stacks": {"alliance": ["B1"]}}, "alliance", 2, 1),
    ("flier", {"stacks": {"alliance": ["B1"]}}, "opposition", 3, None),
    ("infantry", {"towers": {"B1": (20, "opposition")}, "stacks": {"opposition": ["B1"]}},
     "alliance", 2, None),
    # Walls block their hexside both ways while they have hits, for everyone.
    ("infantry", {"walls": {"B1": {"NW": 10}}, "fort_owners": {"B1": "opposition"}},
     "alliance", 2, None),
    ("flier", {"walls": {"B1": {"NW": 10}}, "fort_owners": {"B1": "opposition"}},
     "alliance", 3, None),
    ("infantry", {"walls": {"B1": {"NW": 10}}, "fort_owners": {"B1": "alliance"}},
     "alliance", 2, None),
    ("infantry", {"walls": {"A1": {"SE": 10}}, "fort_owners": {"A1": "opposition"}},
     "alliance", 2, None),
    ("infantry", {"walls": {"B1": {"NW": 0}}, "fort_owners": {"B1": "opposition"}},
     "alliance", 2, 1),
    ("infantry", {"walls": {"B1": {"N": 10, "S": 10}}, "fort_owners": {"B1": "opposition"}},
     "alliance", 2, 1),
]


@pytest.mark.parametrize(("unit", "board", "side", "left", "expected"), COSTS)
def test_movement_cost(
    unit: str, board: dict[str, Any], side: str, left: int | None, expected: int | None
) -> None:
    b = board_from_labels(cols=3, rows=3, **board)
    a1, b1 = parse_label("A1"), parse_label("B1")
    got = movement_cost(UNITS[unit], a1, b1, b, side=SideKind(side), movement_left=left)
    assert got == expected
    if board.get("walls"):  # walls work the same in the other direction
        back = movement_cost(UNITS[unit], b1, a1, b, side=SideKind(side), movement_left=left)
        assert (back is None) == (got is None)


def test_movement_cost_needs_adjacent_hexes_on_the_map() -> None:
    b = board_from_labels(cols=3, rows=3)
    inf = UNITS["infantry"]
    assert movement_cost(inf, parse_label("A1"), parse_label("C3"), b, side=ALLIANCE) is None
    assert movement_cost(inf, parse_label("C1"), parse_label("D1"), b, side=ALLIANCE) is None


STEP_PROBLEMS = [
    ("garrison", {}, 2, "Garrison units (Move 0) never move, not even on a mount (§2)."),
    ("infantry", {"walls": {"B1": {"NW": 7}}, "fort_owners": {"B1": "opposition"}}, 2,
     "The wall between A1 and B1 still has 7 hits; a wall can be crossed only once that "
     "hexside is breached (§2 walls)."),
    ("infantry", {"stacks": {"opposition": ["B1"]}}, 2,
     "B1 holds an enemy stack; a hex holding an enemy stack cannot be entered, attack it "
     "instead (§2)."),
    ("infantry", {"towers": {"B1": (20, "opposition")}}, 0,
     "Entering the opposition tower in B1 costs all remaining movement and at least 1 point "
     "must remain, but none is left (§2 towers)."),
    ("cavalry", {"terrain": {"B1": "woods"}}, 3,
     "Entering B1 (woods) costs 4 movement for cavalry, but only 3 is left (§2 terrain costs)."),
    ("infantry", {"terrain": {"B1": "woods"}}, 2, None),
]


@pytest.mark.parametrize(("unit", "board", "left", "expected"), STEP_PROBLEMS)
def test_step_problem(unit: str, board: dict[str, Any], left: int, expected: str | None) -> None:
    b = board_from_labels(cols=3, rows=3, **board)
    got = step_problem(UNITS[unit], parse_label("A1"), parse_label("B1"), b, side=ALLIANCE,
                       movement_left=left)
    assert got == expected


PROFILES = [
    ("infantry", None, MovementProfile(move=2, movement_class=MovementClass.INFANTRY,
                                       flying=False)),
    ("woods infantry", None, MovementProfile(move=2, movement_class=MovementClass.INFANTRY,
                                             flying=False, capabilities=frozenset({Terrain.WOODS}))),
    # Riders move with the mount's move, class and flying (and the mount's capabilities).
    ("gobwin", "flying mount", MovementProfile(move=4, movement_class=MovementClass.CAVALRY,
                                               flying=True,
                                               capabilities=frozenset({Terrain.WOODS}))),
    # Garrison units never move, not even on a mount.
    ("garrison", "flying mount", MovementProfile(move=0, movement_class=MovementClass.GARRISON,
                                                 flying=False)),
]


@pytest.mark.parametrize(("unit", "mount", "expected"), PROFILES)
def test_movement_profile(unit: str, mount: str | None, expected: MovementProfile) -> None:
    got = movement_profile(UNITS[unit], mount=UNITS[mount] if mount else None)
    assert got == expected


RIDING = [
    # (mount hits, riders' hits (move 1 each unless "heavy"/"garrison" noted), problems)
    (18, [3, 3, 3], []),  # 3 Gobwins of H 3 on a mount of H 18 (the seed's example)
    (17, [3, 3, 3], ["A mount must have at least twice the riders' starting hits (§2 mounts): "
                     "riders with 9 hits need a mount of 18 hits or more, this one has 17."]),
    (6, [3], []),  # a Gobwin with 3 hits may use a creature with 6 or more hits
    (5, [3], ["A mount must have at least twice the riders' starting hits (§2 mounts): "
              "riders with 3 hits need a mount of 6 hits or more, this one has 5."]),
    (40, [8], ["Rider 1 has 8 hits; heavy units (more than 7 hits) cannot ride (§2 mounts)."]),
    (16, [7], []),
    (30, [], ["A mount needs at least one rider."]),
]


@pytest.mark.parametrize(("mount_hits", "rider_hits", "expected"), RIDING)
def test_can_ride(mount_hits: int, rider_hits: list[int], expected: list[str]) -> None:
    riders = [stats(h, 1) for h in rider_hits]
    assert can_ride(stats(mount_hits, 4), riders) == expected


def test_garrison_cannot_ride() -> None:
    assert can_ride(stats(40, 4), [stats(3, 0)]) == [
        "Rider 1 is a garrison unit (Move 0); garrison units never move, not even on a mount (§2)."
    ]


def test_riders_count_starting_hits() -> None:
    # can_ride takes unit types, so wounded riders still count at their starting hits.
    assert can_ride(stats(11, 4), [stats(3, 1), stats(3, 1)]) != []


# --- stacks -------------------------------------------------------------------------------

# A 5 × 2 map: row 1 is a road (A1-B1-C1-D1-E1 is a chain), B2 is woods, the rest open.
ROAD_MAP: dict[str, Any] = {
    "cols": 5,
    "rows": 2,
    "terrain": {"A1": "road", "B1": "road", "C1": "road", "D1": "road", "E1": "road",
                "B2": "woods"},
}


def member(name: str, unit: str, **kw: Any) -> StackMember:
    return StackMember(name=name, stats=UNITS[unit], **kw)


def moving(*members: StackMember, at: str = "A1", side: SideKind = ALLIANCE,
           **kw: Any) -> MovingStack:
    return MovingStack(side=side, hex=parse_label(at), members=members, **kw)


def labelled(dest: dict[Hex, Destination] | Any) -> dict[str, tuple[int, bool]]:
    return {format_label(h): (d.cost, d.all_on_road) for h, d in dest.items()}


REACH: list[tuple[str, dict[str, Any], MovingStack, dict[str, tuple[int, bool]]]] = [
    (
        "road bonus: an infantry M2 wholly on road reaches D1 (M + 1 = 3 road hexes)",
        {},
        moving(member("Jillian", "infantry")),
        {"A1": (0, True), "B1": (1, True), "C1": (2, True), "D1": (3, True),
         "A2": (1, False), "C2": (2, False)},
    ),
    (
        "no road bonus once the move has left the road",
        {},
        moving(member("Jillian", "infantry", all_on_road=False)),
        {"A1": (0, False), "B1": (1, False), "C1": (2, False), "A2": (1, False),
         "C2": (2, False)},
    ),
    (
        "partial move: 1 used on road, the road bonus still gives 2 more road hexes",
        {},
        moving(member("Jillian", "infantry", movement_used=1), at="B1"),
        {"B1": (0, True), "A1": (1, True), "C1": (1, True), "D1": (2, True), "A2": (1, False),
         "C2": (1, False), "B2": None},
    ),
    (
        "partial move: the bonus hex itself used up everything",
        {},
        moving(member("Jillian", "infantry", movement_used=3), at="D1"),
        {"D1": (0, True)},
    ),
    (
        "no road bonus when the start hex is not a road",
        {},
        moving(member("Jillian", "infantry"), at="A2"),
        {"A2": (0, False), "A1": (1, False), "B1": (1, False), "B2": (2, False),
         "C1": (2, False), "C2": (2, False)},
    ),
    (
        "fliers get no road bonus",
        {},
        moving(member("Bat", "flier")),
        {"A1": (0, False), "B1": (1, False), "A2": (1, False), "B2": (2, False),
         "C1": (2, False), "C2": (2, False), "D1": (3, False), "D2": (3, False)},
    ),
    (
        "a stack moves at the smallest allowance and pays its slowest unit's cost",
        {"terrain": {"A1": "road", "B1": "woods", "A2": "woods"}},
        moving(member("Cav", "cavalry"), member("Inf", "infantry", movement_used=0)),
        {"A1": (0, True)},
    ),
    (
        "cavalry alone pays 4 for woods",
        {"terrain": {"A1": "road", "B1": "woods", "A2": "woods"}},
        moving(member("Cav", "cavalry")),
        {"A1": (0, True), "A2": (4, False), "B1": (4, False)},
    ),
    (
        "Gobwins ride a flying mount: the stack flies with Move 4",
        {},
        moving(member("Mount", "flying mount"), member("G1", "gobwin", rides="Mount"),
               member("G2", "gobwin", rides="Mount"), member("G3", "gobwin", rides="Mount")),
        {"A1": (0, False), "B1": (1, False), "A2": (1, False), "B2": (2, False),
         "C1": (2, False), "C2": (2, False), "D1": (3, False), "D2": (3, False),
         "E1": (4, False), "E2": (4, False)},
    ),
    (
        "an opposition tower costs all remaining movement; the stack stops there",
        {"towers": {"C1": (20, "opposition")}},
        moving(member("Jillian", "infantry")),
        {"A1": (0, True), "B1": (1, True), "C1": (2, False), "A2": (1, False),
         "C2": (2, False)},
    ),
    (
        "an enemy stack's hex cannot be entered",
        {"stacks": {"opposition": ["B1"]}},
        moving(member("Jillian", "infantry")),
        {"A1": (0, True), "A2": (1, False), "B2": None},
    ),
    (
        "an alliance-held fortified hex counts as road (woods B2 costs 1, bonus kept)",
        {"towers": {"B2": (20, "alliance")}},
        moving(member("Jillian", "infantry"), at="B1"),
        {"B1": (0, True), "B2": (1, True), "A1": (1, True), "C1": (1, True), "D1": (2, True),
         "E1": (3, True), "A2": (1, False), "C2": (1, False), "D2": (2, False),
         "E2": None},
    ),
    (
        "after fighting, only one adjacent hex (no road-bonus detours)",
        {},
        moving(member("Jillian", "infantry"), fought=True),
        {"A1": (0, True), "B1": (1, True), "A2": (1, False)},
    ),
    (
        "after fighting, a wall still blocks and there is no way round",
        {"walls": {"B1": {"NW": 5}}, "fort_owners": {"B1": "opposition"}},
        moving(member("Jillian", "infantry"), fought=True),
        {"A1": (0, True), "A2": (1, False)},
    ),
    (
        "after the one-hex move after fighting, no more movement",
        {},
        moving(member("Jillian", "infantry"), fought=True, moved_after_fighting=True),
        {"A1": (0, True)},
    ),
]


@pytest.mark.parametrize(("title", "board", "stack", "expected"), REACH, ids=[r[0] for r in REACH])
def test_stack_reachable(
    title: str, board: dict[str, Any], stack: MovingStack,
    expected: dict[str, tuple[int, bool] | None],
) -> None:
    b = board_from_labels(**{**ROAD_MAP, **board})
    got = labelled(stack_reachable(stack=stack, board=b).destinations)
    assert got == {k: v for k, v in expected.items() if v is not None}


def test_stack_reach_reports_allowances() -> None:
    b = board_from_labels(**ROAD_MAP)
    reach = stack_reachable(
        stack=moving(member("Cav", "cavalry", movement_used=1), member("Inf", "infantry")),
        board=b,
    )
    assert (reach.start, reach.allowance, reach.road_allowance) == (parse_label("A1"), 2, 3)


PATHS: list[tuple[str, dict[str, Any], MovingStack, str, StackMove]] = [
    (
        "the road bonus path to D1",
        {},
        moving(member("Jillian", "infantry")),
        "D1",
        StackMove(hexes=tuple(map(parse_label, ["A1", "B1", "C1", "D1"])), cost=3,
                  all_on_road=True),
    ),
    (
        "a normal path off the road",
        {},
        moving(member("Jillian", "infantry")),
        "C2",
        StackMove(hexes=tuple(map(parse_label, ["A1", "B1", "C2"])), cost=2, all_on_road=False),
    ),
    (
        "staying put",
        {},
        moving(member("Jillian", "infantry")),
        "A1",
        StackMove(hexes=(parse_label("A1"),), cost=0, all_on_road=True),
    ),
    (
        "into an opposition tower with the movement that is left",
        {"towers": {"C1": (20, "opposition")}},
        moving(member("Jillian", "infantry")),
        "C1",
        StackMove(hexes=tuple(map(parse_label, ["A1", "B1", "C1"])), cost=2, all_on_road=False),
    ),
    (
        "through a breached hexside",
        {"walls": {"B1": {"NW": 0, "SW": 9}}, "fort_owners": {"B1": "opposition"}},
        moving(member("Jillian", "infantry")),
        "B1",
        StackMove(hexes=tuple(map(parse_label, ["A1", "B1"])), cost=1, all_on_road=True),
    ),
]


@pytest.mark.parametrize(("title", "board", "stack", "goal", "expected"), PATHS,
                         ids=[p[0] for p in PATHS])
def test_stack_path(
    title: str, board: dict[str, Any], stack: MovingStack, goal: str, expected: StackMove
) -> None:
    b = board_from_labels(**{**ROAD_MAP, **board})
    assert stack_path(stack=stack, board=b, goal=parse_label(goal)) == expected


REFUSALS: list[tuple[dict[str, Any], MovingStack, str, str]] = [
    (
        {},
        moving(member("Jillian", "infantry")),
        "E1",
        "E1 is out of reach: getting there needs 4 movement points, but the stack has only 2 "
        "left (a stack moves at the smallest remaining allowance among its units; the road "
        "bonus of 1 applies only to a move wholly on road, §2).",
    ),
    (
        {"stacks": {"opposition": ["C2"]}},
        moving(member("Jillian", "infantry")),
        "C2",
        "C2 holds an enemy stack; a hex holding an enemy stack cannot be entered, attack it "
        "instead (§2).",
    ),
    (
        {"walls": {"B1": {"NW": 5}}, "fort_owners": {"B1": "opposition"}},
        moving(member("Jillian", "infantry"), fought=True),
        "B1",
        "The wall between A1 and B1 still has 5 hits; a wall can be crossed only once that "
        "hexside is breached (§2 walls).",
    ),
    (
        {"walls": {"B1": {d.name: 5 for d in Direction}}, "fort_owners": {"B1": "opposition"}},
        moving(member("Jillian", "infantry")),
        "B1",
        "The wall between A1 and B1 still has 5 hits; a wall can be crossed only once that "
        "hexside is breached (§2 walls).",
    ),
    (
        {"walls": {"C2": {d.name: 5 for d in Direction}}, "fort_owners": {"C2": "opposition"}},
        moving(member("Jillian", "infantry")),
        "C2",
        "There is no way into C2: walls that still have hits or enemy stacks block every "
        "route (§2).",
    ),
    (
        {},
        moving(member("Jillian", "infantry"), fought=True),
        "C1",
        "After fighting this turn a stack may move only into one adjacent hex (§2); C1 is 2 "
        "hexes away.",
    ),
    (
        {},
        moving(member("Jillian", "infantry"), fought=True, moved_after_fighting=True),
        "B1",
        "This stack has already made its one-hex move after fighting this turn (§2).",
    ),
    (
        {},
        moving(member("Jillian", "infantry", movement_used=2, all_on_road=False)),
        "B1",
        "The stack has no movement left this turn (a stack moves at the smallest remaining "
        "allowance among its units, §2).",
    ),
    (
        {"terrain": {"A1": "road", "B1": "woods"}},
        moving(member("Cav", "cavalry", movement_used=1)),
        "B1",
        "Entering B1 (woods) costs 4 movement for cavalry, but only 3 is left (§2 terrain "
        "costs).",
    ),
    (
        {"towers": {"C1": (20, "opposition")}},
        moving(member("Jillian", "infantry")),
        "D1",
        "D1 is out of reach: getting there needs 3 movement points, but the stack has only 2 "
        "left (a stack moves at the smallest remaining allowance among its units; the road "
        "bonus of 1 applies only to a move wholly on road, §2).",
    ),
    (
        {},
        moving(member("Jillian", "infantry")),
        "F1",
        "The destination is not on the map.",
    ),
    # Stacks that cannot move at all.
    (
        {},
        moving(member("Wall", "garrison")),
        "B1",
        "Wall is a garrison unit (Move 0) and never moves (§2).",
    ),
    (
        {},
        moving(member("Jillian", "infantry", commanded=False)),
        "B1",
        "Jillian may not move this turn: no commander of its side has been in its hex "
        "(§2 command).",
    ),
    (
        {},
        moving(*(member(f"Spear {i}", "infantry", commanded=False) for i in range(1, 15))),
        "B1",
        "14 units in A1 may not move this turn (Spear 1, Spear 2, Spear 3 and 11 more): no "
        "commander of their side has been in A1; bring one through A1 first (§2 command).",
    ),
    (
        {},
        moving(member("Wall", "garrison"), member("Gate", "garrison"),
               member("Jillian", "infantry")),
        "B1",
        "2 units of this stack are garrison units (Move 0) and never move (Wall, Gate): split "
        "them off to move the rest (§2).",
    ),
    (
        {},
        moving(member("Ann", "infantry", commanded=False),
               member("Bob", "infantry", commanded=False)),
        "B1",
        "2 units in A1 may not move this turn (Ann, Bob): no commander of their side has "
        "been in A1; bring one through A1 first (§2 command).",
    ),
    (
        {},
        moving(member("Bat", "flier"), member("Jillian", "infantry")),
        "B1",
        "Fliers may not stack with non-fliers unless the non-fliers ride a flying mount "
        "(§2 stacks): Bat fly, Jillian do not.",
    ),
    (
        {},
        moving(member("Mount", "small mount"), member("G1", "gobwin", rides="Mount"),
               member("G2", "gobwin", rides="Mount"), member("G3", "gobwin", rides="Mount")),
        "B1",
        "G1, G2, G3 on Mount: A mount must have at least twice the riders' starting hits "
        "(§2 mounts): riders with 9 hits need a mount of 18 hits or more, this one has 17.",
    ),
    (
        {},
        moving(member("G1", "gobwin", rides="Nobody")),
        "B1",
        "G1 rides 'Nobody', which is not another unit of this stack.",
    ),
    (
        {},
        moving(),
        "B1",
        "A stack needs at least one unit.",
    ),
]


@pytest.mark.parametrize(("board", "stack", "goal", "message"), REFUSALS)
def test_stack_path_refusals(
    board: dict[str, Any], stack: MovingStack, goal: str, message: str
) -> None:
    b = board_from_labels(**{**ROAD_MAP, **board})
    goal_hex = parse_label(goal)
    with pytest.raises(MovementError) as info:
        stack_path(stack=stack, board=b, goal=goal_hex)
    assert str(info.value) == message


def test_commanders_always_may_move() -> None:
    b = board_from_labels(**ROAD_MAP)
    move = stack_path(stack=moving(member("Ansom", "commander", commanded=False)), board=b,
                      goal=parse_label("B1"))
    assert move.cost == 1


def test_stacking_allows_riders_on_a_flying_mount() -> None:
    members = [member("Mount", "flying mount"), member("G1", "gobwin", rides="Mount"),
               member("Bat", "flier")]
    assert stacking_problems(members) == []


def test_after_combat_reachable_takes_no_detours() -> None:
    grid = Grid(cols=3, rows=3)
    blocked = {(parse_label("A1"), parse_label("B1"))}

    def step(a: Hex, b: Hex, left: int, /) -> int | None:
        return None if (a, b) in blocked else 1

    got = after_combat_reachable(start=parse_label("A1"), allowance=5, step_cost=step, grid=grid)
    assert {format_label(h): left for h, left in got.items()} == {"A1": 5, "A2": 4}


# --- command rule ---------------------------------------------------------------------------


def test_commanded_hexes() -> None:
    starts = [parse_label("A1")]
    paths = [[parse_label(x) for x in ("C3", "C4", "D4")]]
    assert commanded_hexes(commander_starts=starts, commander_paths=paths) == frozenset(
        parse_label(x) for x in ("A1", "C3", "C4", "D4")
    )


@pytest.mark.parametrize(
    ("label", "expected"),
    [("A1", True), ("C3", True), ("C4", True), ("D4", True), ("B2", False)],
)
def test_hex_was_commanded(label: str, expected: bool) -> None:
    starts = [parse_label("A1")]
    paths = [[parse_label(x) for x in ("C3", "C4", "D4")]]
    assert hex_was_commanded(parse_label(label), commander_starts=starts,
                             commander_paths=paths) is expected


def test_units_reached_by_commander() -> None:
    units = {"archers": parse_label("C4"), "pikes": parse_label("B2"), "scout": parse_label("D4")}
    path = [parse_label(x) for x in ("C3", "C4", "D4")]
    assert units_reached_by_commander(path=path, unit_hexes=units) == {"archers", "scout"}


@pytest.mark.parametrize(
    ("unit", "commanded", "expected"),
    [("infantry", True, True), ("infantry", False, False), ("commander", False, True)],
)
def test_may_move(unit: str, commanded: bool, expected: bool) -> None:
    assert may_move(UNITS[unit], commanded=commanded) is expected


# --- board --------------------------------------------------------------------------------

BOARD_ERRORS = [
    ({"terrain": {"B2": "lava"}},
     "terrain[B2]: unknown terrain 'lava'; use one of open, road, hills, woods, swamp."),
    ({"terrain": {"Z9": "woods"}}, "terrain[Z9]: hex Z9 is not on the 3 × 3 map."),
    ({"terrain": {"b2": "woods"}}, "terrain[b2]: Column letters must be uppercase in hex "
                                   "label 'b2'."),
    ({"walls": {"B2": {"UP": 3}}, "fort_owners": {"B2": "alliance"}},
     "walls[B2]: unknown direction 'UP'; use N, NE, SE, S, SW or NW."),
    ({"walls": {"B2": {"N": 3}}}, "B2 has walls, so it is a fortified hex and needs an owner."),
    ({"walls": {"B2": {"N": -1}}, "fort_owners": {"B2": "alliance"}},
     "The wall on the N side of B2 has -1 hits; hits must be 0 or more."),
    ({"towers": {"B2": (5, "gobwins")}},
     "towers[B2]: unknown side 'gobwins'; use alliance or opposition."),
    ({"towers": {"B2": (5, "alliance")}, "fort_owners": {"B2": "opposition"}},
     "The tower in B2 is held by the alliance but the hex is listed as held by the opposition."),
]


@pytest.mark.parametrize(("kwargs", "message"), BOARD_ERRORS)
def test_board_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardError) as info:
        board_from_labels(cols=3, rows=3, **kwargs)
    assert str(info.value) == message


def test_board_queries() -> None:
    b = board_from_labels(
        cols=3, rows=3, terrain={"B2": "woods"}, towers={"B2": (30, "opposition")},
        walls={"B2": {"N": 10, "S": 0}}, stacks={"alliance": ["A1"]},
    )
    b2 = parse_label("B2")
    assert b.terrain_at(b2) is Terrain.WOODS
    assert b.terrain_at(parse_label("A1")) is Terrain.OPEN
    assert b.owner_of(b2) is OPPOSITION
    assert b.is_fortified(b2)
    assert b.wall_hits(b2, parse_label("B1")) == 10
    assert b.wall_hits(parse_label("B1"), b2) == 10
    assert b.wall_hits(b2, parse_label("B3")) == 0
    assert b.walled_sides(b2) == {Direction.N: 10, Direction.S: 0}
    assert b.opposition_tower(b2, ALLIANCE) == Tower(hits=30, owner=OPPOSITION)
    assert b.opposition_tower(b2, OPPOSITION) is None
    assert b.has_enemy(parse_label("A1"), OPPOSITION)
    assert not b.has_enemy(parse_label("A1"), ALLIANCE)
    assert b.counts_as_road(b2, OPPOSITION)
    assert not b.counts_as_road(b2, ALLIANCE)


def test_board_is_read_only() -> None:
    terrain = {parse_label("A1"): Terrain.WOODS}
    b = Board(grid=Grid(cols=2, rows=2), terrain=terrain)
    terrain[parse_label("A1")] = Terrain.SWAMP
    assert b.terrain_at(parse_label("A1")) is Terrain.WOODS


# --- the stack step cost agrees with movement_cost ------------------------------------------

terrains = st.sampled_from(list(Terrain))
unit_names = st.sampled_from(["infantry", "cavalry", "flier", "woods infantry", "hills cavalry"])


@settings(max_examples=200)
@given(
    terrain=st.lists(terrains, min_size=16, max_size=16),
    tower_at=st.integers(0, 15),
    tower_hits=st.integers(0, 2),
    tower_owner=st.sampled_from(list(SideKind)),
    wall_at=st.integers(0, 15),
    wall_dir=st.sampled_from(list(Direction)),
    wall_hits=st.integers(0, 1),
    enemy_at=st.integers(0, 15),
    units=st.lists(unit_names, min_size=1, max_size=3),
    left=st.integers(0, 5),
)
def test_stack_step_cost_is_the_dearest_movement_cost(
    terrain: list[Terrain], tower_at: int, tower_hits: int, tower_owner: SideKind, wall_at: int,
    wall_dir: Direction, wall_hits: int, enemy_at: int, units: list[str], left: int,
) -> None:
    grid = Grid(cols=4, rows=4)
    hexes = list(grid.hexes())
    board = Board(
        grid=grid,
        terrain=dict(zip(hexes, terrain, strict=True)),
        towers={hexes[tower_at]: Tower(hits=tower_hits, owner=tower_owner)},
        walls={(hexes[wall_at], wall_dir): wall_hits},
        fort_owners={hexes[wall_at]: OPPOSITION} if wall_at != tower_at else {},
        stacks={OPPOSITION: frozenset({hexes[enemy_at]})},
    )
    profiles = [movement_profile(UNITS[u]) for u in units]
    step = stack_step_cost(profiles, board, side=ALLIANCE)
    for a in hexes:
        for b in grid.neighbors(a).values():
            costs = [movement_cost(p, a, b, board, side=ALLIANCE, movement_left=left)
                     for p in profiles]
            expected = None if None in costs else max(c for c in costs if c is not None)
            assert step(a, b, left) == expected
