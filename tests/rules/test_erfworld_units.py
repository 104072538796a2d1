"""Erfworld unit types: design rules, exact cost, armies, commander levels and experience."""

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import FixedDice
from rules.erfworld.types import Special, UnitStats
from rules.erfworld.units import (
    ArmyEntry,
    FieldError,
    UnitDesignError,
    army_cost,
    commander_level_from_d10,
    cost_breakdown,
    format_fraction,
    gain_xp,
    max_attack,
    require_valid_unit_type,
    roll_commander_level,
    unit_cost,
    unit_stats_from_dict,
    validate_army,
    validate_unit_type,
)

S = Special


def stats(h: int, a: int, d: int, m: int, *specials: Special) -> UnitStats:
    return UnitStats(hits=h, attack=a, defence=d, move=m, specials=frozenset(specials))


COST_CASES = [
    # (hits, attack, defence, move, specials, cost, why)
    (5, 5, 3, 2, (), Fraction(97, 8), "rules §1 worked example: (6.25 + 8) x 0.5 + 5 = 12.125"),
    (1, 0, 0, 0, (), Fraction(1, 8), "smallest unit: 1/4 x 0.5"),
    (3, 5, 1, 2, (), Fraction(57, 8), "a Gobwin: (2.25 + 6) x 0.5 + 3 = 7.125"),
    (3, 2, 1, 3, (S.SCOUT,), Fraction(137, 8), "scout: (2.25 + 3) x 0.5 + 4.5 + (5 + 3 + 2 x 1)"),
    (5, 3, 2, 2, (S.COMMANDER,), Fraction(245, 8), "commander: 20 on top of 10.625"),
    (4, 4, 2, 2, (S.RANGED,), Fraction(13), "ranged costs its attack: 5 + 4 + 4"),
    (10, 10, 2, 1, (S.SIEGE,), Fraction(67, 2), "siege costs its attack: 18.5 + 5 + 10"),
    (10, 10, 3, 3, (S.FLYING,), Fraction(49), "flying: H x M x 0.5 = 15 on top of 19 + 15"),
    (
        5,
        5,
        3,
        2,
        (S.WOODS, S.HILLS),
        Fraction(137, 8),
        "each terrain capability: H x M x 0.25 = 2.5",
    ),
    (5, 5, 3, 2, (S.WOODS, S.HILLS, S.SWAMP), Fraction(157, 8), "three capabilities: 3 x 2.5"),
    (20, 30, 5, 4, (S.FLYING, S.COMMANDER), Fraction(335, 2), "67.5 + 40 + flying 40 + 20"),
]


@pytest.mark.parametrize(
    ("h", "a", "d", "m", "specials", "cost", "why"), COST_CASES, ids=[c[6] for c in COST_CASES]
)
def test_unit_cost(
    h: int, a: int, d: int, m: int, specials: tuple[Special, ...], cost: Fraction, why: str
) -> None:
    assert unit_cost(stats(h, a, d, m, *specials)) == cost, why


def test_worked_example_is_12_125() -> None:
    cost = unit_cost(stats(5, 5, 3, 2))
    assert cost == Fraction(97, 8)
    assert format_fraction(cost) == "12.125"


def test_cost_breakdown_explains_each_term() -> None:
    breakdown = cost_breakdown(stats(5, 5, 3, 2, S.SCOUT))
    assert [(t.label, t.value) for t in breakdown.terms] == [
        ("body", Fraction(57, 8)),
        ("movement", Fraction(5)),
        ("scout", Fraction(25)),
    ]
    assert breakdown.total == Fraction(297, 8)
    assert breakdown.explain() == [
        "body: (H²/4 + A + D) × 0.5 = (5²/4 + 5 + 3) × 0.5 = 7.125",
        "movement: (H × M) × 0.5 = (5 × 2) × 0.5 = 5",
        "scout: 5 + (H + A × D) = 5 + (5 + 5 × 3) = 25",
        "cost = 37.125",
    ]


@given(
    h=st.integers(1, 60),
    a=st.integers(0, 90),
    d=st.integers(0, 5),
    m=st.integers(0, 5),
    specials=st.sets(st.sampled_from(list(Special))),
)
def test_cost_is_a_multiple_of_one_eighth(
    h: int, a: int, d: int, m: int, specials: set[Special]
) -> None:
    cost = unit_cost(stats(h, a, d, m, *specials))
    assert (cost * 8).denominator == 1
    assert cost == cost_breakdown(stats(h, a, d, m, *specials)).total


VALIDATION_CASES = [
    # (stats, expected error fragments; empty = valid)
    (stats(3, 5, 1, 2), []),  # H 3 allows A 5
    (stats(3, 6, 1, 2), ["at most one and a half times hits rounded up (5 for 3 hits)"]),
    (stats(1, 2, 1, 0), []),  # ceil(1.5) = 2
    (stats(1, 3, 1, 0), ["(2 for 1 hits)"]),
    (stats(4, 6, 4, 5), []),
    (stats(0, 0, 0, 1), ["at least 1 hit"]),
    (stats(5, 5, 3, 6), ["move must be between 0 and 5"]),
    (stats(5, 5, 3, -1), ["move must be between 0 and 5"]),
    (stats(5, -1, 3, 2), ["attack cannot be negative"]),
    (stats(10, 5, 6, 2), ["defence must be between 0 and 5"]),
    (stats(10, 5, -1, 2), ["defence must be between 0 and 5"]),
    (stats(3, 3, 4, 2), ["defence may not be higher than hits (3)"]),
    (stats(2, 1, 1, 2, S.COMMANDER), ["commanders must have between 3 and 6 hits"]),
    (stats(7, 1, 1, 2, S.COMMANDER), ["commanders must have between 3 and 6 hits"]),
    (stats(3, 1, 1, 2, S.COMMANDER), []),
    (stats(6, 9, 5, 2, S.COMMANDER), []),
    (stats(2, 4, 3, 6), ["move must be", "(3 for 2 hits)", "defence may not be higher"]),
]


@pytest.mark.parametrize(("unit", "fragments"), VALIDATION_CASES)
def test_validate_unit_type(unit: UnitStats, fragments: list[str]) -> None:
    errors = validate_unit_type(unit, name="Test")
    assert len(errors) == len(fragments)
    for error, fragment in zip(errors, fragments, strict=True):
        assert fragment in error
        assert error.startswith("Unit type 'Test'")


def test_require_valid_unit_type_raises_a_value_error() -> None:
    with pytest.raises(UnitDesignError, match="attack 6") as info:
        require_valid_unit_type(stats(3, 6, 1, 2))
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("hits", "cap"), [(1, 2), (2, 3), (3, 5), (4, 6), (5, 8), (10, 15), (11, 17)]
)
def test_max_attack(hits: int, cap: int) -> None:
    assert max_attack(hits) == cap


# --- parsing ---------------------------------------------------------------------------------


def test_unit_stats_from_dict() -> None:
    parsed = unit_stats_from_dict(
        {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["woods", "commander"]}
    )
    assert parsed == stats(5, 5, 3, 2, S.WOODS, S.COMMANDER)
    assert (
        unit_stats_from_dict({"hits": 5, "attack": 5, "defence": 3, "move": 2}).specials
        == frozenset()
    )


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"attack": 5, "defence": 3, "move": 2}, "hits"),
        ({"hits": "5", "attack": 5, "defence": 3, "move": 2}, "hits"),
        ({"hits": 5, "attack": True, "defence": 3, "move": 2}, "attack"),
        ({"hits": 5, "attack": 5, "defence": 3.0, "move": 2}, "defence"),
        ({"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": "scout"}, "specials"),
        (
            {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["dancefighting"]},
            "specials[0]",
        ),
        (
            {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["scout", "scout"]},
            "specials[1]",
        ),
        ({"hits": 5, "attack": 5, "defence": 3, "move": 2, "speed": 9}, "speed"),
        ([5, 5, 3, 2], ""),
    ],
)
def test_unit_stats_from_dict_errors_name_the_field(data: Any, field: str) -> None:
    with pytest.raises(FieldError) as info:
        unit_stats_from_dict(data)
    assert info.value.field == field
    assert isinstance(info.value, ValueError)


def test_unknown_special_error_lists_the_known_ones() -> None:
    with pytest.raises(FieldError, match="known specials: scout, commander, ranged"):
        unit_stats_from_dict(
            {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["ditto"]}
        )


# --- armies ----------------------------------------------------------------------------------

CAPTAIN = stats(5, 3, 2, 2, S.COMMANDER)  # 30.625
GOBWIN = stats(3, 5, 1, 2)  # 7.125


def test_valid_army() -> None:
    entries = [
        ArmyEntry(name="Captain", stats=CAPTAIN, count=2),
        ArmyEntry(name="Gobwin", stats=GOBWIN, count=40),
    ]
    assert army_cost(entries) == Fraction(245, 4) + 285
    assert validate_army(entries) == []


def test_army_over_budget() -> None:
    entries = [
        ArmyEntry(name="Captain", stats=CAPTAIN, count=1),
        ArmyEntry(name="Gobwin", stats=GOBWIN, count=66),
    ]
    # 30.625 + 470.25 = 500.875
    assert validate_army(entries) == ["The army costs 500.875 points; the budget is 500 points."]
    assert validate_army(entries, budget=501) == []


def test_army_exactly_on_budget_is_allowed() -> None:
    entries = [
        ArmyEntry(name="Warden", stats=stats(4, 0, 0, 0, S.COMMANDER), count=1),  # 2 + 20
        ArmyEntry(name="Post", stats=stats(4, 0, 0, 0), count=239),  # 2 each
    ]
    assert army_cost(entries) == 500
    assert validate_army(entries) == []


def test_army_with_too_many_types_counts_the_commander_type() -> None:
    entries = [ArmyEntry(name="Captain", stats=CAPTAIN, count=1)] + [
        ArmyEntry(name=f"Type {i}", stats=stats(3, i, 1, 2), count=1) for i in range(5)
    ]
    assert validate_army(entries) == [
        "The army has 6 distinct unit types; at most 5 are allowed (a commander type counts)."
    ]
    assert validate_army(entries, max_types=6) == []


def test_army_needs_a_commander() -> None:
    assert validate_army([ArmyEntry(name="Gobwin", stats=GOBWIN, count=3)]) == [
        "The army has no commander; every player needs at least one commander."
    ]
    assert (
        "no commander"
        in validate_army(
            [
                ArmyEntry(name="Captain", stats=CAPTAIN, count=0),
                ArmyEntry(name="Gobwin", stats=GOBWIN, count=3),
            ]
        )[0]
    )


def test_army_reports_unit_type_errors_and_duplicates() -> None:
    errors = validate_army(
        [
            ArmyEntry(name="Captain", stats=CAPTAIN, count=1),
            ArmyEntry(name="Brute", stats=stats(3, 6, 1, 2), count=1),
            ArmyEntry(name="Brute", stats=GOBWIN, count=-1),
        ]
    )
    assert len(errors) == 3
    assert "attack 6" in errors[0]
    assert "listed twice" in errors[1]
    assert "counts cannot be negative" in errors[2]


# --- commanders ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d10", "level"),
    [(1, 1), (2, 1), (3, 2), (4, 2), (5, 2), (6, 3), (7, 3), (8, 4), (9, 4), (10, 5)],
)
def test_commander_level_table(d10: int, level: int) -> None:
    assert commander_level_from_d10(d10) == level


@pytest.mark.parametrize("d10", [0, 11, -3])
def test_commander_level_needs_a_d10(d10: int) -> None:
    with pytest.raises(UnitDesignError, match="d10"):
        commander_level_from_d10(d10)


def test_roll_commander_level_records_the_d10() -> None:
    dice = FixedDice([7])
    assert roll_commander_level(dice) == 3
    (roll,) = dice.rolls
    assert (roll.sides, roll.value, roll.purpose) == (10, 7, "commander level")


@pytest.mark.parametrize(
    ("level", "xp", "amount", "after"),
    [
        (1, 0, 1, (1, 1)),
        (1, 1, 1, (2, 0)),
        (2, 2, 1, (3, 0)),
        (3, 2, 1, (3, 3)),
        (3, 3, 1, (4, 0)),  # level 3 -> 4 needs 4 XP
        (5, 5, 1, (6, 0)),  # no level cap
        (12, 12, 1, (13, 0)),
        (1, 0, 0, (1, 0)),
        (1, 0, 5, (2, 0)),  # XP resets to 0 on levelling up
    ],
)
def test_gain_xp(level: int, xp: int, amount: int, after: tuple[int, int]) -> None:
    assert gain_xp(level=level, xp=xp, amount=amount) == after


@pytest.mark.parametrize(("level", "xp", "amount"), [(0, 0, 1), (1, -1, 1), (1, 0, -1)])
def test_gain_xp_rejects_nonsense(level: int, xp: int, amount: int) -> None:
    with pytest.raises(UnitDesignError):
        gain_xp(level=level, xp=xp, amount=amount)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(97, 8), "12.125"),
        (Fraction(20), "20"),
        (Fraction(1, 3), "1/3"),
        (Fraction(-1, 4), "-0.25"),
    ],
)
def test_format_fraction(value: Fraction, text: str) -> None:
    assert format_fraction(value) == text
