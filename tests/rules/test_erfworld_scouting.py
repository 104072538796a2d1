"""Erfworld §5 scout orders and sightings (rules/erfworld/scouting.py)."""

from __future__ import annotations

import pytest

from rules.erfworld.board import board_from_labels
from rules.erfworld.scouting import (
    FortificationSighting,
    ObservedStack,
    ObservedUnit,
    ScoutOrderError,
    Sighting,
    scout_range,
    sighting,
    validate_scout_order,
)
from rules.erfworld.types import SideKind, Special, Terrain, UnitStats
from rules.hexgrid import Direction, format_label, parse_label


def scout(move: int, *specials: Special) -> UnitStats:
    return UnitStats(hits=3, attack=1, defence=1, move=move,
                     specials=frozenset({Special.SCOUT, *specials}))


BOARD = board_from_labels(cols=10, rows=10)


@pytest.mark.parametrize(("move", "limit"), [(0, 0), (1, 1), (2, 3), (3, 4), (4, 6), (5, 7)])
def test_scout_range(move: int, limit: int) -> None:
    assert scout_range(move) == limit


ORDERS = [
    # The seed's Figure 1: scout S (Move 3) inspects NW, SW, S; scout S2 (Move 2) SW, SE.
    (3, "E5", ["NW", "SW", "S"], ["D4", "C5", "C6"]),
    (2, "E5", ["SW", "SE"], ["D5", "E6"]),
    # Up to M + floor(M / 2) steps, given as names or Direction members, revisits allowed.
    (2, "E5", ["N", "N", "N"], ["E4", "E3", "E2"]),
    (5, "A1", [Direction.SE, Direction.NW, "S", "S", "S", "S", "S"],
     ["B1", "A1", "A2", "A3", "A4", "A5", "A6"]),
]


@pytest.mark.parametrize(("move", "at", "path", "expected"), ORDERS)
def test_valid_scout_orders(
    move: int, at: str, path: list[str | Direction], expected: list[str]
) -> None:
    got = validate_scout_order(scout=scout(move), scout_hex=parse_label(at),
                               commander_in_hex=True, directions=path, board=BOARD)
    assert [format_label(h) for h in got] == expected


BAD_ORDERS = [
    (UnitStats(hits=3, attack=1, defence=1, move=3), True, ["N"],
     "Only units with the scout special can be given scout orders (§5)."),
    (scout(3), False, ["N"],
     "The scout in E5 can take orders only while a commander of its side is in the same hex "
     "(§5)."),
    (scout(2), True, ["N", "N", "N", "N"],
     "The scout path has 4 steps, but a scout with Move 2 may inspect at most 3 hexes "
     "(M + floor(M / 2), §5)."),
    (scout(0), True, ["N"],
     "The scout path has 1 step, but a scout with Move 0 may inspect at most 0 hexes "
     "(M + floor(M / 2), §5)."),
    (scout(3), True, [], "A scout order needs at least one direction to inspect (§5)."),
    (scout(3), True, ["N", "UP"],
     "Step 2 of the scout path is 'UP'; a step must be one of the directions N, NE, SE, S, SW "
     "or NW (§5)."),
    (scout(5), True, ["N", "N", "N", "N", "N"],
     "Step 5 of the scout path (N) leaves the map; every inspected hex must be on the map (§5)."),
]


@pytest.mark.parametrize(("unit", "commander", "path", "message"), BAD_ORDERS)
def test_bad_scout_orders(unit: UnitStats, commander: bool, path: list[str], message: str) -> None:
    with pytest.raises(ScoutOrderError) as info:
        validate_scout_order(scout=unit, scout_hex=parse_label("E5"), commander_in_hex=commander,
                             directions=path, board=BOARD)
    assert str(info.value) == message


def test_scout_hex_must_be_on_the_map() -> None:
    with pytest.raises(ScoutOrderError, match="not on the map"):
        validate_scout_order(scout=scout(3), scout_hex=parse_label("K1"), commander_in_hex=True,
                             directions=["S"], board=BOARD)


def test_sighting_of_a_fortified_hex() -> None:
    board = board_from_labels(
        cols=12, rows=12, terrain={"J10": "hills", "J9": "road"},
        towers={"J10": (40, "opposition")},
        walls={"J10": {"N": 30, "NE": 30, "SE": 25, "S": 30, "SW": 0, "NW": 30}},
    )
    garrison = ObservedStack(
        side=SideKind.OPPOSITION,
        units=(ObservedUnit(name="Gobwin 1", unit_type="Gobwin", current_hits=3),
               ObservedUnit(name="Twoll", unit_type="Twoll", current_hits=7)),
        fortification="tower",
    )
    j10 = parse_label("J10")
    assert sighting(hex=j10, board=board, stacks=[garrison]) == Sighting(
        hex=j10,
        terrain=Terrain.HILLS,
        road=False,
        stacks=(garrison,),
        fortifications=(
            FortificationSighting(kind="tower", hits=40),
            FortificationSighting(kind="wall", hits=30, direction=Direction.N),
            FortificationSighting(kind="wall", hits=30, direction=Direction.NE),
            FortificationSighting(kind="wall", hits=25, direction=Direction.SE),
            FortificationSighting(kind="wall", hits=30, direction=Direction.S),
            FortificationSighting(kind="wall", hits=0, direction=Direction.SW),
            FortificationSighting(kind="wall", hits=30, direction=Direction.NW),
        ),
    )


def test_sighting_of_an_empty_road() -> None:
    board = board_from_labels(cols=12, rows=12, terrain={"J9": "road"})
    j9 = parse_label("J9")
    assert sighting(hex=j9, board=board, stacks=[]) == Sighting(
        hex=j9, terrain=Terrain.ROAD, road=True, stacks=(), fortifications=()
    )
