"""Pops: sharing pop points and buying units of existing types at cost into pop hexes."""

from fractions import Fraction

import pytest

from rules.erfworld.pops import PopError, PopOrder, buy_pops, share_pop_points
from rules.erfworld.types import Special, UnitStats
from rules.hexgrid import parse_label

GOBWIN = UnitStats(hits=5, attack=5, defence=3, move=2)  # 12.125 (rules-erfworld.md §1)
CAPTAIN = UnitStats(hits=4, attack=4, defence=2, move=2, specials=frozenset({Special.COMMANDER}))
TYPES = {"Gobwin": GOBWIN, "Captain": CAPTAIN}
POP_HEXES = {parse_label("B10"), parse_label("I10")}


@pytest.mark.parametrize(
    ("granted", "shares", "expected_shares", "kept"),
    [
        (30, {"p1": 10, "p2": 10, "p3": 10}, {"p1": 10, "p2": 10, "p3": 10}, 0),
        (30, {"p1": 25}, {"p1": 25}, 5),
        (0, {}, {}, 0),
        (Fraction(25, 2), {"p1": Fraction(25, 4), "p2": Fraction(25, 4)},
         {"p1": Fraction(25, 4), "p2": Fraction(25, 4)}, 0),
    ],
)
def test_share_pop_points(granted, shares, expected_shares, kept):
    share = share_pop_points(granted=granted, shares=shares)
    assert share.shares == expected_shares
    assert share.kept == kept


@pytest.mark.parametrize(
    ("granted", "shares", "message"),
    [
        (30, {"p1": 20, "p2": 11},
         "The shares add up to 31 pop points, but only 30 were granted (§5: the Chief Warlord "
         "shares the points the GM granted)."),
        (30, {"p1": -1}, "p1 cannot be given a negative share of pop points."),
        (-5, {}, "The GM cannot grant a negative number of pop points."),
    ],
)
def test_share_pop_points_refused(granted, shares, message):
    with pytest.raises(PopError) as info:
        share_pop_points(granted=granted, shares=shares)
    assert str(info.value) == message


def test_buy_pops_at_cost():
    purchase = buy_pops(
        orders=[PopOrder(unit_type="Gobwin", count=2, hex=parse_label("B10")),
                PopOrder(unit_type="Captain", count=1, hex=parse_label("I10"))],
        unit_types=TYPES, pop_points=60, pop_hexes=POP_HEXES,
    )
    # Captain: (16/4 + 4 + 2) × 0.5 + (4 × 2) × 0.5 + 20 = 5 + 4 + 20 = 29.
    assert [(line.unit_type, line.unit_cost, line.cost) for line in purchase.lines] == [
        ("Gobwin", Fraction(97, 8), Fraction(97, 4)), ("Captain", Fraction(29), Fraction(29)),
    ]
    assert (purchase.total, purchase.points_left) == (Fraction(213, 4), Fraction(27, 4))
    assert purchase.explain() == [
        "2 × Gobwin at 12.125 = 24.25, appearing in B10",
        "1 × Captain at 29 = 29, appearing in I10",
        "Total 53.25; 6.75 pop points left.",
    ]


def test_buy_pops_exactly_all_points():
    purchase = buy_pops(orders=[PopOrder(unit_type="Gobwin", count=4, hex=parse_label("B10"))],
                        unit_types=TYPES, pop_points=Fraction(97, 2), pop_hexes=POP_HEXES)
    assert (purchase.total, purchase.points_left) == (Fraction(97, 2), 0)
    assert purchase.explain() == [
        "4 × Gobwin at 12.125 = 48.5, appearing in B10",
        "Total 48.5; 0 pop points left.",
    ]


@pytest.mark.parametrize(
    ("orders", "points", "message"),
    [
        ([PopOrder(unit_type="Dwagon", count=1, hex=parse_label("B10"))], 100,
         "'Dwagon' is not one of your unit types (Captain, Gobwin); pops can only be of your "
         "existing types (§5)."),
        ([PopOrder(unit_type="Gobwin", count=1, hex=parse_label("A1"))], 100,
         "Pops appear only in the scenario's pop hexes (B10, I10), not in A1 (§5)."),
        ([PopOrder(unit_type="Gobwin", count=0, hex=parse_label("B10"))], 100,
         "The number of Gobwin to pop must be 1 or more."),
        ([PopOrder(unit_type="Gobwin", count=2, hex=parse_label("B10"))], 24,
         "These pops cost 24.25 pop points, but you have 24 (§5: pops are bought at cost)."),
        ([], 100, "A pop purchase needs at least one unit."),
    ],
)
def test_buy_pops_refused(orders, points, message):
    with pytest.raises(PopError) as info:
        buy_pops(orders=orders, unit_types=TYPES, pop_points=points, pop_hexes=POP_HEXES)
    assert str(info.value) == message
