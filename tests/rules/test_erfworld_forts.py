"""Erfworld fortifications: siege damage, towers and wall hexsides, capture and repair."""

from fractions import Fraction
from typing import Any

import pytest

from rules.dice import FixedDice
from rules.erfworld.combat import CombatUnit
from rules.erfworld.forts import (
    FortificationError,
    SiegeUnit,
    Tower,
    WallSide,
    apply_damage,
    besiege,
    fortified_hex_owner,
    repair,
    siege_damage_amount,
)
from rules.erfworld.types import SideKind, Special, UnitStats

RAM = UnitStats(hits=10, attack=10, defence=2, move=1, specials=frozenset({Special.SIEGE}))
CATAPULT = UnitStats(hits=8, attack=7, defence=0, move=1, specials=frozenset({Special.SIEGE}))
GOBWIN = UnitStats(hits=3, attack=5, defence=1, move=2)
CAPTAIN = UnitStats(hits=5, attack=3, defence=2, move=2, specials=frozenset({Special.COMMANDER}))


def at(hex_: str, stats: UnitStats, name: str = "u", **kw: Any) -> SiegeUnit:
    return SiegeUnit(unit=CombatUnit(name=name, stats=stats, **kw), hex=hex_)


TOWER = Tower(hex="J10", hits=50, starting_hits=50)
WALL = WallSide(hex="J10", direction="N", across="J9", hits=10, starting_hits=30)

SIEGE_CASES = [
    # (name, fortification, units, roll, damage, hits after, destroyed)
    (
        "two rams, level 2 commander: 20 x 6/5 x 3/4 = 18",
        TOWER,
        [
            at("J10", RAM, "Ram 1"),
            at("J10", RAM, "Ram 2"),
            at("J10", CAPTAIN, "Cap", commander_level=2),
        ],
        (3, 4),
        18,
        32,
        False,
    ),
    (
        "exact: 7 x 11/10 x 1 = 7.7 -> 7",
        TOWER,
        [at("J10", CATAPULT), at("J10", CAPTAIN, "Cap", commander_level=1)],
        (6, 6),
        7,
        43,
        False,
    ),
    ("roll 2: 10 x 1/2 = 5", TOWER, [at("J10", RAM)], (1, 1), 5, 45, False),
    (
        "only siege units count: the gobwin adds nothing",
        TOWER,
        [at("J10", RAM), at("J10", GOBWIN, "Gob")],
        (6, 6),
        10,
        40,
        False,
    ),
    (
        "wall breached at 0 (18 damage on 10 hits)",
        WALL,
        [
            at("J9", RAM, "Ram 1"),
            at("J9", RAM, "Ram 2"),
            at("J9", CAPTAIN, "Cap", commander_level=2),
        ],
        (3, 4),
        18,
        0,
        True,
    ),
    (
        "exactly enough destroys the tower",
        Tower(hex="A1", hits=10, starting_hits=20),
        [at("A1", RAM)],
        (6, 6),
        10,
        0,
        True,
    ),
]


@pytest.mark.parametrize(
    ("name", "fort", "units", "roll", "damage", "after", "destroyed"),
    SIEGE_CASES,
    ids=[c[0] for c in SIEGE_CASES],
)
def test_siege(
    name: str,
    fort: Tower | WallSide,
    units: list[SiegeUnit],
    roll: tuple[int, int],
    damage: int,
    after: int,
    destroyed: bool,
) -> None:
    result = besiege(fortification=fort, units=units, dice=FixedDice([]), roll=roll)
    assert (result.damage, result.fortification.hits, result.destroyed) == (
        damage,
        after,
        destroyed,
    )


def test_siege_draws_and_records_dice() -> None:
    dice = FixedDice([2, 5])
    result = besiege(fortification=TOWER, units=[at("J10", RAM)], dice=dice)
    assert result.roll == (2, 5)
    assert result.rn == Fraction(3, 4)
    assert [(d.purpose, d.value) for d in result.dice] == [
        ("siege: the tower in J10 die 1", 2),
        ("siege: the tower in J10 die 2", 5),
    ]
    assert "siege attack 10 × CB 1 × RN 0.75 = 7.5 → 7 damage" in result.explain()


def test_chief_warlord_adds_to_siege_cb() -> None:
    result = besiege(
        fortification=TOWER,
        units=[at("J10", RAM)],
        dice=FixedDice([]),
        roll=(6, 6),
        chief_warlord_in_hex=True,
    )
    assert result.cb == Fraction(11, 10)
    assert result.damage == 11


def test_siege_damage_amount_is_exact() -> None:
    assert siege_damage_amount(siege_attack=7, cb=Fraction(11, 10), rn=Fraction(1)) == 7
    assert siege_damage_amount(siege_attack=10, cb=Fraction(13, 10), rn=Fraction(3, 4)) == 9


@pytest.mark.parametrize(
    ("fort", "units", "message"),
    [
        (TOWER, [at("J9", RAM)], "standing in its hex"),
        (WALL, [at("J10", RAM)], "adjacent hex across it"),
        (TOWER, [at("J10", GOBWIN)], "siege special"),
        (TOWER, [], "at least one"),
        (Tower(hex="J10", hits=0, starting_hits=50), [at("J10", RAM)], "already destroyed"),
        (
            WallSide(hex="J10", direction="S", across="J11", hits=0, starting_hits=5),
            [at("J11", RAM)],
            "already breached",
        ),
    ],
)
def test_siege_errors(fort: Tower | WallSide, units: list[SiegeUnit], message: str) -> None:
    with pytest.raises(FortificationError, match=message):
        besiege(fortification=fort, units=units, dice=FixedDice([6, 6]))


def test_fortification_hits_must_fit_its_starting_hits() -> None:
    with pytest.raises(FortificationError, match="between 0 and its starting hits"):
        Tower(hex="J10", hits=60, starting_hits=50)


def test_apply_damage_stops_at_zero() -> None:
    assert apply_damage(TOWER, damage=80).hits == 0
    assert apply_damage(TOWER, damage=0) == TOWER
    with pytest.raises(FortificationError):
        apply_damage(TOWER, damage=-1)


ALL, OPP = SideKind.ALLIANCE, SideKind.OPPOSITION


@pytest.mark.parametrize(
    ("owner", "stacks", "new_owner", "changed"),
    [
        (OPP, [ALL], ALL, True),
        (OPP, [ALL, ALL], ALL, True),
        (OPP, [ALL, OPP], OPP, False),  # an enemy stack is still in it
        (OPP, [], OPP, False),
        (OPP, [OPP], OPP, False),
        (None, [ALL], ALL, True),
        (ALL, [OPP], OPP, True),
    ],
)
def test_capture(
    owner: SideKind | None, stacks: list[SideKind], new_owner: SideKind, changed: bool
) -> None:
    capture = fortified_hex_owner(owner=owner, stacks_in_hex=stacks)
    assert (capture.owner, capture.changed) == (new_owner, changed)


def test_repair_costs_one_pop_point_per_hit() -> None:
    result = repair(WALL, hits=15, pop_points=20, owner=ALL, by=ALL)
    assert (result.fortification.hits, result.points_spent, result.points_left) == (25, 15, 5)
    full = repair(WALL, hits=20, pop_points=20, owner=ALL, by=ALL)
    assert full.fortification.hits == 30
    assert full.points_left == 0


@pytest.mark.parametrize(
    ("hits", "points", "owner", "message"),
    [
        (21, 50, ALL, "at most 20, not 21"),
        (15, 14, ALL, "only 14 are available"),
        (0, 10, ALL, "at least 1 hit"),
        (5, 10, OPP, "Only the side holding"),
    ],
)
def test_repair_errors(hits: int, points: int, owner: SideKind, message: str) -> None:
    with pytest.raises(FortificationError, match=message):
        repair(WALL, hits=hits, pop_points=points, owner=owner, by=ALL)
