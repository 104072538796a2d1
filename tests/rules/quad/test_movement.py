"""QUAD movement: difficult terrain "attacking" a moving unit, and falling back on the map."""

import pytest

from rules.dice import FixedDice
from rules.hexgrid import Grid, parse_label
from rules.quad.calculators import fall_back, move
from rules.quad.terrain import (
    Board,
    MoveError,
    Terrain,
    is_difficult,
    movement_cost,
    resolve_fall_back,
)
from rules.quad.units import Special, UnitType
from tests.rules.quad.helpers import assert_subset, ids, load

MOVES = load("move")
FALL_BACKS = load("fall_back")
UNIT = UnitType(quality=3, speed=2, attack=1, defense=1)


@pytest.mark.parametrize("case", MOVES, ids=ids(MOVES))
def test_move_case(case):
    assert_subset(move(case["input"]), case["expect"])


@pytest.mark.parametrize("case", FALL_BACKS, ids=ids(FALL_BACKS))
def test_fall_back_case(case):
    assert_subset(fall_back(case["input"]), case["expect"])


@pytest.mark.parametrize(
    ("specials", "from_terrain", "to_terrain", "difficult"),
    [
        ((), Terrain.OPEN, Terrain.OPEN, False),
        ((), Terrain.OPEN, Terrain.FOREST, True),
        ((Special.FORESTER,), Terrain.OPEN, Terrain.FOREST, False),
        ((), Terrain.OPEN, Terrain.RIVER, True),
        ((Special.AMPHIBIOUS,), Terrain.OPEN, Terrain.RIVER, False),
        ((Special.FORESTER, Special.AMPHIBIOUS), Terrain.OPEN, Terrain.FORTIFIED, True),
        ((), Terrain.OPEN, Terrain.SLOPE, True),
        ((), Terrain.FOREST, Terrain.SLOPE, True),
        ((), Terrain.SLOPE, Terrain.SLOPE, False),
        ((), Terrain.SLOPE, Terrain.OPEN, False),
    ],
)
def test_is_difficult(specials, from_terrain, to_terrain, difficult):
    unit = UnitType(quality=3, speed=1, attack=1, defense=1, specials=frozenset(specials))
    assert is_difficult(unit, from_terrain=from_terrain, to_terrain=to_terrain) is difficult


def test_movement_cost_is_one_per_hex_none_when_blocked():
    board = Board(grid=Grid(3, 3), terrain={parse_label("A2"): Terrain.FORTIFIED},
                  occupied=frozenset({parse_label("B1")}))
    a1 = parse_label("A1")
    assert movement_cost(UNIT, a1, parse_label("A2"), board) == 1
    assert movement_cost(UNIT, a1, parse_label("B1"), board) is None
    assert movement_cost(UNIT, a1, parse_label("A3"), board) is None
    assert movement_cost(UNIT, parse_label("C3"), parse_label("C4"), board) is None


def test_move_into_an_occupied_hex_names_the_path():
    data = {"map": {"cols": 5, "rows": 5, "occupied": ["A3"]},
            "unit": {"quality": 3, "speed": 3, "attack": 1, "defense": 1},
            "path": ["A1", "A2", "A3"], "rolls": []}
    with pytest.raises(ValueError) as info:
        move(data)
    assert str(info.value) == ("path: A3 cannot be entered from A2: each step goes to an adjacent"
                               " empty hex on the map.")


def test_move_too_far():
    data = {"map": {"cols": 5, "rows": 5},
            "unit": {"quality": 3, "speed": 1, "attack": 1, "defense": 1},
            "path": ["A1", "A2", "A3"], "rolls": []}
    with pytest.raises(ValueError) as info:
        move(data)
    assert str(info.value) == "path: The unit has unit speed 1, so it moves at most 1 hexes, not 2."


def test_fall_back_path_must_go_away_from_the_attacker():
    board = Board(grid=Grid(5, 5))
    with pytest.raises(MoveError, match="farther from the attacker"):
        resolve_fall_back(unit=UNIT, quality=3, start=parse_label("C3"),
                          attacker_hex=parse_label("C2"), hexes=1, board=board,
                          dice=FixedDice([]), path=[parse_label("C3"), parse_label("D2")])


def test_fall_back_path_cannot_stop_short():
    board = Board(grid=Grid(5, 5))
    with pytest.raises(MoveError, match="falls back as far as the hits require"):
        resolve_fall_back(unit=UNIT, quality=3, start=parse_label("C3"),
                          attacker_hex=parse_label("C2"), hexes=2, board=board,
                          dice=FixedDice([]), path=[parse_label("C3"), parse_label("C4")])


def test_zero_hex_fall_back_does_nothing():
    result = resolve_fall_back(unit=UNIT, quality=3, start=parse_label("C3"),
                               attacker_hex=parse_label("C2"), hexes=0,
                               board=Board(grid=Grid(5, 5)), dice=FixedDice([]))
    assert (result.moved, result.blocked, result.quality_after) == (0, 0, 3)
