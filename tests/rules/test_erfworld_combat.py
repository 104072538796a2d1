"""Erfworld combat: the table of worked cases, factors, order, allocation, XP, ambush, retaliation."""

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import FixedDice, SeededDice
from rules.erfworld.combat import (
    AttackError,
    Combat,
    CombatError,
    CombatSide,
    CombatUnit,
    Order,
    TargetStack,
    Winner,
    allocate_hits,
    combat_from_dict,
    command_bonus,
    defence_factor,
    fortification_bonus,
    fraction_json,
    hits_inflicted,
    random_number,
    resolve_ambush,
    resolve_combat,
    special_bonus,
    validate_attack,
)
from rules.erfworld.types import Special, Terrain, UnitStats
from rules.erfworld.units import FieldError

CASES = json.loads((Path(__file__).parent / "cases" / "erfworld_combat.json").read_text())


def project(actual: Any, expected: Any) -> Any:
    """The part of `actual` that `expected` names (factors compared by their exact string)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = {}
        for key, value in expected.items():
            got = actual.get(key, "<missing>")
            if isinstance(got, dict) and set(got) == {"exact", "decimal"}:
                out[key] = got["exact"]
            else:
                out[key] = project(got, value)
        return out
    return actual


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_combat_case(case: dict[str, Any]) -> None:
    combat = combat_from_dict(case["input"])
    result = resolve_combat(combat, dice=FixedDice([]))
    assert project(result.to_dict(), case["expect"]) == case["expect"], case["why"]


# --- helpers ---------------------------------------------------------------------------------


def unit(
    name: str,
    hits: int,
    attack: int,
    defence: int,
    move: int = 2,
    *specials: Special,
    **kw: Any,
) -> CombatUnit:
    stats = UnitStats(
        hits=hits, attack=attack, defence=defence, move=move, specials=frozenset(specials)
    )
    return CombatUnit(name=name, stats=stats, **kw)


def side(*units: CombatUnit, **kw: Any) -> CombatSide:
    return CombatSide(units=units, **kw)


def captain(level: int = 1, xp: int = 0, **kw: Any) -> CombatUnit:
    return unit("Captain", 5, 5, 0, 2, Special.COMMANDER, commander_level=level, xp=xp, **kw)


GOLEM = unit("Golem", 20, 0, 0, 1)


# --- factors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "rn"),
    [(2, Fraction(1, 2)), (7, Fraction(3, 4)), (12, Fraction(1)), (5, Fraction(13, 20))],
)
def test_random_number(total: int, rn: Fraction) -> None:
    assert random_number((total - 1, 1) if total <= 7 else (6, total - 6)) == rn


@pytest.mark.parametrize(
    ("level", "chief", "cb"),
    [
        (None, False, Fraction(1)),
        (None, True, Fraction(11, 10)),
        (1, False, Fraction(11, 10)),
        (3, False, Fraction(13, 10)),
        (5, True, Fraction(16, 10)),
    ],
)
def test_command_bonus(level: int | None, chief: bool, cb: Fraction) -> None:
    assert command_bonus(highest_level=level, chief_warlord_in_hex=chief) == cb


@pytest.mark.parametrize(
    ("count", "sb"), [(0, 1), (1, Fraction(1, 2)), (2, Fraction(1, 4)), (3, Fraction(1, 8))]
)
def test_special_bonus_halves_per_defence(count: int, sb: Fraction) -> None:
    assert special_bonus(combats_as_defender=count) == sb


def test_average_defence_4_and_terrain_1_negate_5_of_8() -> None:
    assert defence_factor(avg_defence=Fraction(4), tb=Fraction(1)) == Fraction(3, 8)


@pytest.mark.parametrize(
    ("hits", "bonus"), [(0, 0), (25, Fraction(1, 2)), (50, 1), (100, 2), (150, 3)]
)
def test_fortification_bonus_is_one_per_50_hits(hits: int, bonus: Fraction) -> None:
    assert fortification_bonus(hits) == bonus


def test_hits_are_zero_when_defence_factor_is_not_positive() -> None:
    args = {"cb": Fraction(1), "sb": Fraction(1), "ab": Fraction(1), "rn": Fraction(1)}
    assert hits_inflicted(ta=100, avg_defence=Fraction(5), tb=Fraction(3), **args) == 0
    assert hits_inflicted(ta=100, avg_defence=Fraction(5), tb=Fraction(4), **args) == 0


@pytest.mark.parametrize(
    ("ta", "cb", "rn", "df", "hits"),
    [
        (7, Fraction(11, 10), Fraction(1), Fraction(1), 7),  # float: 7.700000000000001 -> 7 too
        (10, Fraction(13, 10), Fraction(1), Fraction(3, 8), 4),  # 4.875
        (6, Fraction(7, 5), Fraction(1), Fraction(5, 6), 7),  # float gives 6.999999999999999
        (12, Fraction(1), Fraction(7, 10), Fraction(5, 6), 7),  # float gives 6.999999999999999
        (8, Fraction(7, 5), Fraction(3, 4), Fraction(5, 6), 7),  # float gives 6.999999999999999
    ],
)
def test_hits_are_exact_where_floats_would_floor_wrongly(
    ta: int, cb: Fraction, rn: Fraction, df: Fraction, hits: int
) -> None:
    avg_defence = 8 - 8 * df
    one = Fraction(1)
    assert (
        hits_inflicted(ta=ta, cb=cb, sb=one, ab=one, rn=rn, avg_defence=avg_defence, tb=Fraction(0))
        == hits
    )


def test_fraction_json_renders_exact_and_decimal() -> None:
    assert fraction_json(Fraction(3, 4)) == {"exact": "3/4", "decimal": "0.75"}
    assert fraction_json(Fraction(4, 3)) == {"exact": "4/3", "decimal": "1.3333"}
    assert fraction_json(Fraction(-1, 4)) == {"exact": "-1/4", "decimal": "-0.25"}
    assert fraction_json(Fraction(10)) == {"exact": "10", "decimal": "10"}


# --- allocation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hits", "current", "commanders", "target", "after"),
    [
        (0, [3, 3], [False, False], None, (3, 3)),
        (4, [3, 3], [False, False], None, (0, 2)),
        (9, [3, 3], [False, False], None, (0, 0)),
        (1, [0, 3], [False, False], None, (0, 2)),  # an already croaked unit takes nothing
        (10, [5, 5], [False, False], 1, (5, 0)),  # 2x: exactly enough
        (9, [5, 5], [False, False], 1, (5, 1)),  # floor(9 / 2) = 4
        (19, [5, 5], [False, True], 1, (5, 1)),  # 4x commander: floor(19 / 4) = 4
        (20, [5, 5], [False, True], 1, (5, 0)),
        (23, [5, 5], [False, True], 1, (2, 0)),  # overflow in stack order
        (12, [5, 5, 5], [False, False, False], 0, (0, 3, 5)),  # overflow skips the target
    ],
)
def test_allocate_hits(
    hits: int,
    current: list[int],
    commanders: list[bool],
    target: int | None,
    after: tuple[int, ...],
) -> None:
    assert allocate_hits(hits=hits, current=current, commanders=commanders, target=target) == after


# --- whole combats ---------------------------------------------------------------------------


def test_winning_commander_gains_xp_and_levels_up() -> None:
    combat = Combat(
        attacker=side(captain(level=1, xp=1), roll=(6, 6)),
        defender=side(GOLEM, roll=(1, 1)),
    )
    result = resolve_combat(combat, dice=FixedDice([]))
    assert result.winner is Winner.ATTACKER
    (cap,) = result.attacker.units
    assert (cap.commander_level, cap.xp, cap.levelled_up) == (2, 0, True)


def test_level_3_commander_needs_4_xp() -> None:
    def fight(xp: int) -> tuple[int | None, int]:
        combat = Combat(
            attacker=side(captain(level=3, xp=xp), roll=(6, 6)), defender=side(GOLEM, roll=(1, 1))
        )
        (cap,) = resolve_combat(combat, dice=FixedDice([])).attacker.units
        return cap.commander_level, cap.xp

    assert fight(2) == (3, 3)
    assert fight(3) == (4, 0)


def test_a_winning_defender_commander_gains_xp_and_the_loser_none() -> None:
    combat = Combat(
        attacker=side(captain(level=1), unit("Golem", 20, 0, 0, 1), roll=(1, 1)),
        defender=side(unit("Lord", 5, 8, 0, 2, Special.COMMANDER, commander_level=2), roll=(6, 6)),
    )
    result = resolve_combat(combat, dice=FixedDice([]))
    # Attacker: 5 x 11/10 x 1/2 = 2.75 -> 2; defender: 8 x 6/5 x 1 = 9.6 -> 9.
    assert (result.hits_on_defender, result.hits_on_attacker) == (2, 9)
    assert result.winner is Winner.DEFENDER
    assert result.defender.units[0].xp == 1
    assert result.attacker.units[0].xp == 0


def test_nobody_gains_xp_on_a_draw() -> None:
    nothing = resolve_combat(
        Combat(
            attacker=side(GOLEM, roll=(1, 1)),
            defender=side(unit("Rock", 5, 0, 5, 0, Special.COMMANDER, commander_level=1)),
        ),
        dice=FixedDice([1, 1]),
    )
    assert nothing.winner is Winner.NONE
    assert nothing.defender.units[0].xp == 0


def test_dice_are_drawn_in_order_of_striking_and_recorded_with_purpose() -> None:
    archers = side(
        unit("Archer 1", 4, 4, 2, 2, Special.RANGED), unit("Archer 2", 4, 4, 2, 2, Special.RANGED)
    )
    gobwins = side(unit("Gobwin 1", 3, 5, 1), unit("Gobwin 2", 3, 5, 1))
    dice = FixedDice([1, 1, 6, 6])
    result = resolve_combat(Combat(attacker=gobwins, defender=archers), dice=dice)
    assert result.order is Order.DEFENDER_FIRST
    assert result.defender.roll == (1, 1)
    assert result.attacker.roll == (6, 6)
    assert [(d.purpose, d.value, d.number) for d in result.dice] == [
        ("combat: defender die 1", 1, 1),
        ("combat: defender die 2", 1, 2),
        ("combat: attacker die 1", 6, 3),
        ("combat: attacker die 2", 6, 4),
    ]


def test_given_rolls_do_not_consume_dice() -> None:
    dice = FixedDice([2, 3])
    result = resolve_combat(
        Combat(attacker=side(GOLEM, roll=(6, 6)), defender=side(unit("Ox", 10, 1, 0, 1))), dice=dice
    )
    assert result.attacker.roll == (6, 6)
    assert result.defender.roll == (2, 3)
    assert [d.number for d in result.dice] == [None, None, 1, 2]


def test_seeded_combat_is_reproducible() -> None:
    combat = Combat(
        attacker=side(unit("Twoll", 10, 10, 0, 1)), defender=side(unit("Ox", 10, 5, 2, 1))
    )
    first = resolve_combat(combat, dice=SeededDice(seed="phase-7"))
    again = resolve_combat(combat, dice=SeededDice(seed="phase-7"))
    assert first == again
    assert len(first.dice) == 4


def test_defender_that_wipes_out_the_attacker_keeps_its_count() -> None:
    combat = Combat(
        attacker=side(unit("Gobwin", 3, 5, 1), roll=(1, 1)),
        defender=side(unit("Twoll", 10, 10, 0, 1), roll=(6, 6), combats_this_turn=1),
    )
    result = resolve_combat(combat, dice=FixedDice([]))
    assert result.attacker.wiped_out
    assert result.counts_for_defender is False
    assert result.defender_combats_after == 1


def test_a_survived_combat_counts_for_the_defender() -> None:
    combat = Combat(
        attacker=side(unit("Ogre", 20, 5, 1, 1), roll=(1, 1)),
        defender=side(unit("Twoll", 10, 10, 0, 1), roll=(6, 6), combats_this_turn=1),
    )
    result = resolve_combat(combat, dice=FixedDice([]))
    assert result.counts_for_defender is True
    assert result.defender_combats_after == 2


def test_directed_hits_fall_back_to_stack_order_when_the_commander_croaks_first() -> None:
    attacker = side(captain(level=1), unit("Gobwin", 3, 5, 1), roll=(6, 6))
    defender = side(
        unit("Archer 1", 4, 4, 0, 2, Special.RANGED),
        unit("Archer 2", 4, 4, 0, 2, Special.RANGED),
        roll=(3, 4),
    )
    # Defender first: 8 x 3/4 x (8 - 1/2)/8 = 5.625 -> 5 croaks the captain (5 hits).
    result = resolve_combat(
        Combat(attacker=attacker, defender=defender, target=1), dice=FixedDice([])
    )
    assert [u.current_hits for u in result.attacker.units] == [0, 3]
    assert result.strikes[1].directed_target is None
    # The gobwin alone: 5 x 1 x 1 = 5 in stack order.
    assert [u.current_hits for u in result.defender.units] == [0, 3]
    assert result.attacker.factors is not None and result.attacker.factors.cb == 1


def test_target_needs_a_commander_in_the_attacking_stack() -> None:
    with pytest.raises(CombatError, match="commander"):
        Combat(attacker=side(GOLEM), defender=side(GOLEM, GOLEM), target=1)


def test_target_must_be_in_the_defending_stack() -> None:
    with pytest.raises(CombatError, match="not a unit"):
        Combat(attacker=side(captain()), defender=side(GOLEM), target=3)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: unit("Ox", 10, 1, 0, current_hits=0), "croaked"),
        (lambda: unit("Ox", 10, 1, 0, current_hits=11), "between 1 and"),
        (lambda: unit("Cap", 5, 1, 0, 2, Special.COMMANDER), "commander level"),
        (lambda: unit("Ox", 10, 1, 0, commander_level=2), "not a commander"),
        (lambda: side(GOLEM, roll=(0, 7)), "two d6"),
        (lambda: side(GOLEM, ambush_bonus=Fraction(1, 2)), "never below 1"),
        (lambda: side(), "at least one unit"),
    ],
)
def test_bad_combat_inputs_are_refused(make: Any, message: str) -> None:
    with pytest.raises(CombatError, match=message):
        make()


def test_ambush_gives_the_ambusher_the_campaign_value_and_the_mover_its_terrain() -> None:
    result = resolve_ambush(
        ambusher=side(unit("Gobwin", 3, 5, 1), roll=(3, 4)),
        moving=side(unit("Knight", 10, 5, 3), roll=(6, 6)),
        moving_hex_terrain=Terrain.HILLS,
        dice=FixedDice([]),
    )
    assert result.attacker.factors is not None and result.defender.factors is not None
    assert result.attacker.factors.ab == 2
    assert result.attacker.factors.tb == 1
    # 5 x 2 x 3/4 x (8 - 3 - 1)/8 = 3.75 -> 3; the mover strikes back 5 x 1 x 7/8 = 4.375 -> 4.
    assert (result.hits_on_defender, result.hits_on_attacker) == (3, 4)
    assert result.defender.factors.ab == 1


def test_ambush_value_is_a_campaign_setting() -> None:
    result = resolve_ambush(
        ambusher=side(unit("Gobwin", 3, 5, 1), roll=(6, 6)),
        moving=side(GOLEM, roll=(1, 1)),
        moving_hex_terrain=Terrain.OPEN,
        ambush_value=Fraction(3, 2),
        dice=FixedDice([]),
    )
    assert result.hits_on_defender == 7  # 5 x 3/2 = 7.5


# --- special retaliation ---------------------------------------------------------------------


def test_melee_infantry_cannot_retaliate_against_a_ranged_attack() -> None:
    combat = Combat(
        attacker=side(unit("Archer", 4, 4, 2, 2, Special.RANGED), roll=(1, 1)),
        defender=side(GOLEM, roll=(1, 1)),
        protectors=(side(captain(level=1), unit("Gobwin", 3, 5, 1), name="Foot"),),
    )
    result = resolve_combat(combat, dice=FixedDice([]))
    (r,) = result.special_retaliation
    assert not r.used
    assert "melee infantry" in r.reason
    assert len(result.dice) == 4


def test_melee_cavalry_may_retaliate_against_a_ranged_attack() -> None:
    combat = Combat(
        attacker=side(unit("Archer", 4, 4, 2, 2, Special.RANGED), roll=(1, 1)),
        defender=side(GOLEM, roll=(1, 1)),
        protectors=(
            side(
                captain(level=1, move_left=3), unit("Rider", 5, 5, 1, 4), name="Horse", roll=(6, 6)
            ),
        ),
    )
    # Captain has move 2, so the stack is not all cavalry: still infantry.
    assert not resolve_combat(combat, dice=FixedDice([])).special_retaliation[0].used
    cavalry = Combat(
        attacker=side(unit("Archer", 4, 4, 2, 2, Special.RANGED), roll=(1, 1)),
        defender=side(GOLEM, roll=(1, 1)),
        protectors=(side(unit("Rider", 5, 5, 1, 4), name="Horse", roll=(6, 6)),),
        defender_commander_in_hex=True,
    )
    (r,) = resolve_combat(cavalry, dice=FixedDice([])).special_retaliation
    assert r.used
    assert r.on_attacker is not None
    # 5 x 1 x 1/2 x 1 x (8 - 2)/8 = 1.875 -> 1
    assert r.on_attacker.hits == 1


def test_melee_infantry_may_retaliate_against_melee_fliers() -> None:
    combat = Combat(
        attacker=side(unit("Bat", 5, 5, 0, 3, Special.FLYING), roll=(1, 1)),
        defender=side(GOLEM, roll=(1, 1)),
        protectors=(side(captain(level=1), unit("Gobwin", 3, 5, 1), name="Foot", roll=(6, 6)),),
    )
    (r,) = resolve_combat(combat, dice=FixedDice([])).special_retaliation
    assert r.used
    assert r.on_attacker is not None
    # TA 10 x CB 11/10 x SB 1/2 x RN 1 x DF 1 = 5.5 -> 5: the bat (5 hits) is croaked.
    assert r.on_attacker.hits == 5
    assert r.on_protected is None


def test_ranged_protector_in_ranged_combat_strikes_at_one_half_only() -> None:
    combat = Combat(
        attacker=side(unit("Archer", 10, 8, 0, 2, Special.RANGED), roll=(1, 1)),
        defender=side(unit("Bow", 20, 0, 0, 2, Special.RANGED), roll=(1, 1)),
        protectors=(side(unit("Sling", 8, 8, 0, 2, Special.RANGED), name="Slings", roll=(6, 6)),),
        defender_commander_in_hex=True,
    )
    (r,) = resolve_combat(combat, dice=FixedDice([])).special_retaliation
    assert r.on_attacker is not None
    assert r.on_attacker.factors.sb == Fraction(1, 2)
    assert r.on_attacker.hits == 4
    assert r.on_protected is None


def test_no_special_retaliation_without_a_commander_in_the_hex() -> None:
    combat = Combat(
        attacker=side(unit("Gobwin", 3, 5, 1), roll=(1, 1)),
        defender=side(GOLEM, roll=(1, 1)),
        protectors=(side(unit("Twoll", 10, 10, 0), name="Guard", roll=(6, 6)),),
    )
    (r,) = resolve_combat(combat, dice=FixedDice([])).special_retaliation
    assert not r.used
    assert "no commander" in r.reason


def test_no_special_retaliation_after_a_withdrawal() -> None:
    combat = Combat(
        attacker=side(unit("Archer", 4, 4, 2, 2, Special.RANGED), roll=(1, 1)),
        defender=side(GOLEM, roll=(1, 1)),
        protectors=(side(unit("Sling", 8, 8, 0, 2, Special.RANGED), name="Slings"),),
        defender_commander_in_hex=True,
        withdraw=True,
    )
    result = resolve_combat(combat, dice=FixedDice([]))
    assert result.withdrew
    assert not result.special_retaliation[0].used
    assert result.defender.roll is None


# --- who may attack what ---------------------------------------------------------------------

GOB = UnitStats(hits=3, attack=5, defence=1, move=2)
ARCHER = UnitStats(hits=4, attack=4, defence=2, move=2, specials=frozenset({Special.RANGED}))
BAT = UnitStats(hits=3, attack=3, defence=1, move=3, specials=frozenset({Special.FLYING}))
WOODSMAN = UnitStats(hits=3, attack=3, defence=1, move=2, specials=frozenset({Special.WOODS}))


def cu(name: str, stats: UnitStats) -> CombatUnit:
    return CombatUnit(name=name, stats=stats)


def test_units_that_attacked_are_left_out() -> None:
    plan = validate_attack(
        attacking_units=[cu("a", GOB), cu("b", GOB)],
        attacked_this_turn={0},
        target_hex_stacks=[TargetStack(units=(GOB,))],
        target=0,
        target_hex_terrain=Terrain.OPEN,
    )
    assert [u.name for u in plan.units] == ["b"]
    assert plan.left_out == ("a",)
    assert plan.ranged is False


def test_a_stack_whose_units_all_attacked_cannot_attack() -> None:
    with pytest.raises(AttackError, match="at most once per turn"):
        validate_attack(
            attacking_units=[cu("a", GOB)],
            attacked_this_turn={0},
            target_hex_stacks=[TargetStack(units=(GOB,))],
            target=0,
            target_hex_terrain=Terrain.OPEN,
        )


def test_every_stack_in_the_hex_is_attacked_once_before_any_twice() -> None:
    # Seed example: stack A of 8 gobwins, stack B of 6; A twice needs B once.
    a = TargetStack(units=(GOB,) * 8, name="Stack A", times_attacked=1)
    b = TargetStack(units=(GOB,) * 6, name="Stack B")
    args: dict[str, Any] = {"attacking_units": [cu("x", GOB)], "target_hex_terrain": Terrain.OPEN}
    with pytest.raises(AttackError, match="attacked once before any is attacked a second time"):
        validate_attack(target_hex_stacks=[a, b], target=0, **args)
    validate_attack(target_hex_stacks=[a, b], target=1, **args)
    b_done = TargetStack(units=(GOB,) * 6, name="Stack B", times_attacked=1)
    validate_attack(target_hex_stacks=[a, b_done], target=0, **args)


def test_a_ranged_attack_needs_every_unit_ranged_but_a_commander_may_ride() -> None:
    cmd = UnitStats(hits=5, attack=3, defence=2, move=2, specials=frozenset({Special.COMMANDER}))
    stacks = [TargetStack(units=(GOB,))]
    with pytest.raises(AttackError, match="every attacking unit to be ranged"):
        validate_attack(
            attacking_units=[cu("a", ARCHER), cu("g", GOB)],
            target_hex_stacks=stacks,
            target=0,
            target_hex_terrain=Terrain.OPEN,
            ranged=True,
        )
    plan = validate_attack(
        attacking_units=[CombatUnit(name="c", stats=cmd, commander_level=2), cu("a", ARCHER)],
        target_hex_stacks=stacks,
        target=0,
        target_hex_terrain=Terrain.OPEN,
    )
    assert plan.ranged is True


def test_a_stack_of_ranged_units_cannot_declare_a_melee_attack() -> None:
    with pytest.raises(AttackError, match="attacks at range"):
        validate_attack(
            attacking_units=[cu("a", ARCHER)],
            target_hex_stacks=[TargetStack(units=(GOB,))],
            target=0,
            target_hex_terrain=Terrain.OPEN,
            ranged=False,
        )


def test_a_ranged_stack_must_target_an_enemy_ranged_stack() -> None:
    stacks = [TargetStack(units=(GOB,)), TargetStack(units=(ARCHER,))]
    args: dict[str, Any] = {
        "attacking_units": [cu("a", ARCHER)],
        "target_hex_terrain": Terrain.OPEN,
    }
    with pytest.raises(AttackError, match="enemy ranged stack"):
        validate_attack(target_hex_stacks=stacks, target=0, **args)
    validate_attack(target_hex_stacks=stacks, target=1, **args)
    # Melee stacks choose freely.
    validate_attack(
        attacking_units=[cu("g", GOB)],
        target_hex_stacks=stacks,
        target=0,
        target_hex_terrain=Terrain.OPEN,
    )
    # Once the ranged stack has been attacked and the melee one not, the melee one is fair game.
    after = [TargetStack(units=(GOB,)), TargetStack(units=(ARCHER,), times_attacked=1)]
    validate_attack(target_hex_stacks=after, target=0, **args)


def test_a_flying_stack_in_woods_needs_woods_capable_ground_attackers() -> None:
    fliers = [TargetStack(units=(BAT,))]
    with pytest.raises(AttackError, match="woods capability"):
        validate_attack(
            attacking_units=[cu("w", WOODSMAN), cu("g", GOB)],
            target_hex_stacks=fliers,
            target=0,
            target_hex_terrain=Terrain.WOODS,
        )
    validate_attack(
        attacking_units=[cu("w", WOODSMAN)],
        target_hex_stacks=fliers,
        target=0,
        target_hex_terrain=Terrain.WOODS,
    )
    validate_attack(
        attacking_units=[cu("b", BAT)],
        target_hex_stacks=fliers,
        target=0,
        target_hex_terrain=Terrain.WOODS,
    )
    validate_attack(
        attacking_units=[cu("g", GOB)],
        target_hex_stacks=fliers,
        target=0,
        target_hex_terrain=Terrain.HILLS,
    )


# --- parsing and output ----------------------------------------------------------------------


def test_to_dict_has_exactly_the_calculator_shape() -> None:
    out = resolve_combat(combat_from_dict(CASES[0]["input"]), dice=FixedDice([])).to_dict()
    assert set(out) == {
        "order",
        "hits_on_defender",
        "hits_on_attacker",
        "winner",
        "attacker",
        "defender",
    }
    attacker = out["attacker"]
    assert isinstance(attacker, dict)
    assert set(attacker) == {"roll", "factors", "units"}
    assert set(attacker["factors"]) == {"TA", "CB", "SB", "AB", "RN", "DF", "avgD", "TB"}
    assert attacker["factors"]["RN"] == {"exact": "3/4", "decimal": "0.75"}
    assert attacker["units"] == [{"name": "Twoll", "current_hits": 10, "croaked": False}]
    json.dumps(out)


def test_explanation_names_every_factor_and_die() -> None:
    result = resolve_combat(combat_from_dict(CASES[0]["input"]), dice=FixedDice([]))
    text = "\n".join(result.explain())
    assert "TA 10 × CB 1 × SB 1 × AB 1 × RN 0.75 × DF 0.375 = 2.8125 → 2 hits" in text
    assert "DF = (8 − avgD 4 − TB 1) / 8" in text
    assert "die combat: attacker die 1: 3 (given)" in text
    assert "Knight: loses 2 (3 hits left)" in text


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"bogus": 1}, "bogus"),
        ({"defender_terrain": "lava"}, "defender_terrain"),
        ({"target": 5}, "target"),
        ({"fortification_hits": -1}, "fortification_hits"),
        ({"fortification_hits": "10"}, "fortification_hits"),
        ({"attacker": {"units": []}}, "attacker.units"),
        (
            {
                "attacker": {
                    "units": [
                        {
                            "name": "X",
                            "hits": 3,
                            "attack": 1,
                            "defence": 0,
                            "move": 1,
                            "specials": ["dancefighting"],
                        }
                    ]
                }
            },
            "attacker.units[0].specials[0]",
        ),
        (
            {
                "attacker": {
                    "units": [{"name": "X", "hits": 3, "attack": 1.5, "defence": 0, "move": 1}]
                }
            },
            "attacker.units[0].attack",
        ),
        (
            {
                "attacker": {
                    "units": [
                        {
                            "name": "X",
                            "hits": 3,
                            "attack": 1,
                            "defence": 0,
                            "move": 1,
                            "colour": "red",
                        }
                    ]
                }
            },
            "attacker.units[0].colour",
        ),
        (
            {"attacker": {"units": [{"hits": 3, "attack": 1, "defence": 0, "move": 1}]}},
            "attacker.units[0].name",
        ),
        (
            {
                "attacker": {
                    "units": [{"name": "X", "hits": 3, "attack": 1, "defence": 0, "move": 1}],
                    "roll": [7, 1],
                }
            },
            "attacker.roll",
        ),
        (
            {
                "attacker": {
                    "units": [{"name": "X", "hits": 3, "attack": 1, "defence": 0, "move": 1}],
                    "ambush_bonus": "lots",
                }
            },
            "attacker.ambush_bonus",
        ),
    ],
)
def test_combat_from_dict_errors_name_the_field(patch: dict[str, Any], field: str) -> None:
    data = {**CASES[0]["input"], **patch}
    with pytest.raises(FieldError) as info:
        combat_from_dict(data)
    assert info.value.field == field


def test_combat_from_dict_reads_ambush_bonus_exactly() -> None:
    data = {**CASES[0]["input"]}
    data["attacker"] = {**data["attacker"], "ambush_bonus": 1.1}
    assert combat_from_dict(data).attacker.ambush_bonus == Fraction(11, 10)


# --- properties ------------------------------------------------------------------------------

stats_strategy = st.builds(
    lambda h, a, d, m, specials: UnitStats(
        hits=h,
        attack=min(a, (3 * h + 1) // 2),
        defence=min(d, h),
        move=m,
        specials=frozenset(specials),
    ),
    st.integers(1, 12),
    st.integers(0, 18),
    st.integers(0, 5),
    st.integers(0, 5),
    st.sets(st.sampled_from([Special.RANGED, Special.FLYING])),
)


@st.composite
def combat_units(draw: st.DrawFn, prefix: str) -> tuple[CombatUnit, ...]:
    n = draw(st.integers(1, 4))
    units = []
    for i in range(n):
        stats = draw(stats_strategy)
        if draw(st.booleans()) and 3 <= stats.hits <= 6:
            stats = UnitStats(
                hits=stats.hits,
                attack=stats.attack,
                defence=stats.defence,
                move=stats.move,
                specials=stats.specials | {Special.COMMANDER},
            )
            level: int | None = draw(st.integers(1, 5))
        else:
            level = None
        current = draw(st.integers(1, stats.hits))
        units.append(
            CombatUnit(
                name=f"{prefix}{i}", stats=stats, current_hits=current, commander_level=level
            )
        )
    return tuple(units)


@st.composite
def combats(draw: st.DrawFn) -> Combat:
    attackers = draw(combat_units("a"))
    defenders = draw(combat_units("d"))
    has_commander = any(u.is_commander for u in attackers)
    target = draw(st.none() | st.integers(0, len(defenders) - 1)) if has_commander else None
    protectors = tuple(
        CombatSide(units=draw(combat_units(f"p{i}")), name=f"p{i}")
        for i in range(draw(st.integers(0, 1)))
    )
    return Combat(
        attacker=CombatSide(
            units=attackers,
            chief_warlord_in_hex=draw(st.booleans()),
            ambush_bonus=draw(st.sampled_from([Fraction(1), Fraction(2)])),
        ),
        defender=CombatSide(units=defenders, combats_this_turn=draw(st.integers(0, 3))),
        defender_terrain=draw(st.sampled_from(list(Terrain))),
        fortification_hits=draw(st.integers(0, 400)),
        withdraw=draw(st.booleans()),
        target=target,
        protectors=protectors,
    )


@settings(max_examples=300, deadline=None)
@given(combat=combats(), seed=st.text(min_size=1, max_size=8))
def test_hits_are_never_negative_and_croaked_units_never_come_back(
    combat: Combat, seed: str
) -> None:
    result = resolve_combat(combat, dice=SeededDice(seed=seed))
    assert result.hits_on_defender >= 0
    assert result.hits_on_attacker >= 0
    strikes = list(result.strikes)
    for r in result.special_retaliation:
        strikes += [s for s in (r.on_attacker, r.on_protected) if s is not None]
    for strike in strikes:
        assert strike.hits >= 0
        for before, after in zip(strike.hits_before, strike.hits_after, strict=True):
            assert 0 <= after <= before
    for outcome, original in (
        (result.attacker, combat.attacker),
        (result.defender, combat.defender),
    ):
        for u, cu_ in zip(outcome.units, original.units, strict=True):
            assert 0 <= u.current_hits <= cu_.hits_now
            assert u.croaked == (u.current_hits == 0)
