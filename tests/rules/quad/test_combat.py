"""QUAD combat: the table of worked cases (source examples 1 and 2 first), choices and rules."""

import pytest

from rules.dice import FixedDice
from rules.quad.calculators import combat, combat_from_dict
from rules.quad.combat import (
    Combat,
    CombatError,
    Effect,
    Fighter,
    choose_quality_blocks,
    choose_strike_back_sixes,
    hit_effect,
    resolve_combat,
)
from rules.quad.terrain import Terrain
from rules.quad.units import Ranged, Special, UnitType
from tests.rules.quad.helpers import assert_subset, ids, load

CASES = load("combat")


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_combat_case(case):
    assert_subset(combat(case["input"]), case["expect"])


def test_source_examples_are_the_first_cases():
    assert [c["name"] for c in CASES[:3]] == [
        "example-1-defender-blocks-with-the-6",
        "example-1-default-policy-strikes-back-with-the-6",
        "example-2-four-hits-no-blocks",
    ]


def test_example_1_explanation_names_every_die_and_choice():
    result = combat(CASES[0]["input"])
    assert result["explanation"] == [
        "melee attack at distance 1",
        "attack dice: 4 (attack) = 4",
        "defense dice: 2 (defense) = 2",
        "attack die 1: 1 — miss (a hit needs more than the target's quality 5) (roll #1)",
        "attack die 2: 3 — miss (a hit needs more than the target's quality 5) (roll #2)",
        "attack die 3: 5 — miss (a hit needs more than the target's quality 5) (roll #3)",
        "attack die 4: 6 — hit: costs quality (roll #4)",
        "defense die 1: 4 — block (roll #5)",
        "defense die 2: 6 — block (roll #6)",
        "hits: 1 quality, 0 fall-back; blocks: 2",
        "blocked: 1 quality, 0 fall-back",
        "excess blocks strike back: 0 quality, 1 fall-back",
        "attacker: 1 fall-back hit(s)",
        "attacker: quality 3 → 3, falls back 1 hex(es)",
        "defender: unharmed, quality 5",
    ]


def test_example_2_through_the_dataclasses():
    fight = Combat(
        attacker=Fighter(unit=UnitType(quality=5, speed=1, attack=5, defense=0)),
        defender=Fighter(unit=UnitType(quality=3, speed=1, attack=0, defense=3)),
    )
    dice = FixedDice([2, 4, 5, 5, 6, 1, 4, 5])
    result = resolve_combat(fight, dice=dice)
    assert (result.defender.quality_after, result.defender.fall_back_hexes) == (2, 3)
    assert [d.purpose for d in result.dice] == [
        "attack die 1", "attack die 2", "attack die 3", "attack die 4", "attack die 5",
        "defense die 1", "defense die 2", "defense die 3",
    ]
    assert [r.purpose for r in dice.rolls] == [d.purpose for d in result.dice]


@pytest.mark.parametrize(
    ("value", "elite", "green", "effect"),
    [
        (6, False, False, Effect.QUALITY),
        (5, False, False, Effect.FALL_BACK),
        (5, True, False, Effect.QUALITY),
        (4, True, False, Effect.FALL_BACK),
        (2, False, True, Effect.QUALITY),
    ],
)
def test_hit_effect(value, elite, green, effect):
    assert hit_effect(value, elite_striker=elite, green_target=green) is effect


@pytest.mark.parametrize(
    ("quality", "fall_back", "blocks", "wanted", "expected"),
    [
        (1, 2, 1, None, (1, None)),
        (1, 2, 1, 0, (0, None)),
        (2, 1, 2, 0, (1, "the defender wanted to block 0 quality hit(s); with 2 block(s) against"
                         " 2 quality and 1 fall-back hit(s) it blocks 1")),
        (0, 3, 2, None, (0, None)),
    ],
)
def test_choose_quality_blocks(quality, fall_back, blocks, wanted, expected):
    assert choose_quality_blocks(
        quality_hits=quality, fall_back_hits=fall_back, blocks=blocks, wanted=wanted
    ) == expected


@pytest.mark.parametrize(
    ("sixes", "others", "excess", "wanted", "expected"),
    [
        (1, 1, 1, None, 1),
        (1, 1, 1, 0, 0),
        (2, 0, 1, 0, 1),  # only 6s among the blocks: one of them must strike back
        (0, 3, 2, None, 0),
    ],
)
def test_choose_strike_back_sixes(sixes, others, excess, wanted, expected):
    chosen, _ = choose_strike_back_sixes(sixes=sixes, others=others, excess=excess, wanted=wanted)
    assert chosen == expected


def test_an_impossible_choice_is_noted_in_the_explanation():
    data = {**CASES[0]["input"], "strike_back_sixes": 3}
    result = combat(data)
    assert result["strike_back"] == {"quality": 1, "fall_back": 0}
    assert ("the defender wanted to strike back with 3 6(s); with 1 6(s) among the blocks and 1"
            " excess block(s) it strikes back with 1") in result["explanation"]


def test_ranged_attack_with_no_strike_back_is_noted():
    result = combat(next(c for c in CASES if c["name"].startswith("ranged-at-range"))["input"])
    assert ("1 excess block(s) do not strike back: the attacker shoots from 3 hexes away"
            in result["explanation"])


def _fighter(**kw):
    return Fighter(unit=UnitType(quality=3, speed=1, attack=2, defense=1, **kw))


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"charging": True}, "charging",
         "The unit is not a Charger: only a Charger may move and attack in a single action."),
        ({"distance": 2}, "distance",
         "The unit has no Ranged #/# special, so it attacks adjacent units only."),
        ({"distance": 2, "ranged": False}, "distance",
         "The unit attacks in melee, so the target must be adjacent (distance 1, not 2)."),
        ({"ranged": True}, "ranged",
         "The unit has no Ranged #/# special, so it attacks adjacent units only."),
        ({"allies_adjacent_to_target": 7}, "allies_adjacent_to_target",
         "A hex has six neighbours, so allies_adjacent_to_target is 0 to 6, not 7."),
    ],
)
def test_combat_rules_refuse(kwargs, field, message):
    with pytest.raises(CombatError) as info:
        Combat(attacker=_fighter(), defender=_fighter(), **kwargs)
    assert (info.value.field, str(info.value)) == (field, message)


def test_ranged_out_of_range():
    archer = Fighter(unit=UnitType(quality=3, speed=1, attack=1, defense=1,
                                   ranged=Ranged(attack=2, range=3), name="Archers"))
    with pytest.raises(CombatError, match="reaches up to 3 hexes, not 4"):
        Combat(attacker=archer, defender=_fighter(), distance=4)


def test_charger_cannot_charge_at_range():
    unit = UnitType(quality=3, speed=2, attack=1, defense=1, specials=frozenset({Special.CHARGER}),
                    ranged=Ranged(attack=1, range=2))
    with pytest.raises(CombatError, match="melee attack"):
        Combat(attacker=Fighter(unit=unit), defender=_fighter(), distance=2, charging=True)


def test_eliminated_unit_cannot_fight():
    with pytest.raises(CombatError, match="at 0 it is eliminated"):
        Fighter(unit=UnitType(quality=3, speed=1, attack=1, defense=1), quality=0)


def test_terrain_of_the_attacker_gives_no_defense():
    fight = combat_from_dict({
        "attacker": {"unit": {"quality": 3, "speed": 1, "attack": 0, "defense": 0},
                     "terrain": "fortified"},
        "defender": {"unit": {"quality": 3, "speed": 1, "attack": 0, "defense": 0}},
    })
    assert fight.attacker.terrain is Terrain.FORTIFIED
    result = resolve_combat(fight, dice=FixedDice([]))
    assert (result.attack_dice, result.defense_dice) == (0, 0)
