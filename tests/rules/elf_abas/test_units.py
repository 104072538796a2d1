"""ELF ABAS units, the effect table and the ruleset's contract through the registry."""

import pytest

from rules.dice import FixedDice
from rules.elf_abas.effects import Effect, EffectError, effect_for, refit, rest
from rules.elf_abas.movement import Board, Terrain
from rules.elf_abas.units import Force, Kind, UnitError
from rules.hexgrid import Grid, parse_label
from rules.registry import RULESETS, get_ruleset
from tests.rules.elf_abas.casetable import run_case

UNITS = [
    # kind, full figures, move, dice per figure, shrug
    ("leader", 1, 1, 1, 2),
    ("hero", 1, 1, 2, 4),
    ("foot", 6, 1, 1, 0),
    ("missile", 6, 1, 1, 0),
    ("scout", 4, 1, 1, 0),
    ("mounted", 6, 3, 1, 0),
]


@pytest.mark.parametrize(("kind", "figures", "move", "per", "shrug"), UNITS)
def test_unit_profile(kind, figures, move, per, shrug):
    out = run_case({"command": "unit", "input": {"kind": kind}})
    assert (out["full_figures"], out["move"], out["dice_per_figure"], out["shrug"]) == (
        figures, move, per, shrug)
    assert (out["figures"], out["valid"], out["errors"]) == (figures, True, [])


def test_unit_attack_dice_adjacent_and_missile_ranges():
    assert run_case({"command": "unit", "input": {"kind": "hero"}})["attack_dice_adjacent"] == 2
    out = run_case({"command": "unit", "input": {"kind": "missile", "figures": 5}})
    assert (out["attack_dice_adjacent"], out["fire_dice_by_hexes"]) == (4, [4, 3, 2, 1, 0])


@pytest.mark.parametrize(
    ("design", "errors"),
    [
        ({"kind": "scout", "figures": 5}, ["A scout Unit has 1 to 4 figures (4 at full strength), not 5."]),
        ({"kind": "hero", "figures": 2}, ["A hero is a single figure, not 2."]),
        ({"kind": "foot", "figures": 0}, ["A foot Unit has 1 to 6 figures (6 at full strength), not 0."]),
        ({"kind": "foot", "figures": 3}, []),
        ({"kind": "elf"}, ["kind: must be one of leader, hero, foot, missile, scout, mounted (got 'elf')."]),
    ],
)
def test_validate_unit_type(design, errors):
    assert get_ruleset("elf_abas").validate_unit_type(design) == errors


def test_registered_with_no_points():
    ruleset = get_ruleset("elf_abas")
    assert (ruleset.key, ruleset.name) == ("elf_abas", "ELF ABAS")
    assert list(RULESETS)[:2] == ["erfworld", "elf_abas"]
    assert ruleset.unit_cost({"kind": "foot"}) is None
    assert [f.name for f in ruleset.unit_schema()] == ["kind", "figures"]


def test_turn_structure():
    phases = get_ruleset("elf_abas").turn_structure()
    assert [(p.kind, p.acting_side, p.ended_by) for p in phases] == [
        ("activation_draw", "gm", "gm"),
        ("activation", "card_holder", "card_holder"),
        ("rest", "all", "gm"),
    ]


def test_calculators():
    assert sorted(get_ruleset("elf_abas").calculators()) == [
        "activation", "attack", "battle-start", "battle-step", "effects", "move", "path",
        "retreat", "unit"]


def test_movement_cost_through_the_ruleset():
    ruleset = get_ruleset("elf_abas")
    board = Board(grid=Grid(cols=3, rows=3),
                  terrain={parse_label("B1"): Terrain.VILLAGE, parse_label("B2"): Terrain.DEEP_WATER})
    a1, b1, b2, a3 = (parse_label(x) for x in ("A1", "B1", "B2", "A3"))
    foot, horse = Force(unit=Kind.FOOT, figures=6), Force(unit=Kind.MOUNTED, figures=6)
    assert ruleset.movement_cost(foot, a1, b1, board, side="blue") == 1
    assert ruleset.movement_cost(horse, a1, b1, board, side="blue") is None
    assert ruleset.movement_cost(foot, a1, b2, board, side="blue") is None
    assert ruleset.movement_cost(foot, a1, a3, board, side="blue") is None  # not adjacent


def test_resolve_combat_through_the_ruleset():
    from rules.elf_abas.combat import Attack, Attacker

    fight = Attack(attackers=(Attacker(force=Force(unit=Kind.SCOUT, figures=4)),),
                   defender=Force(leader=True))
    result = get_ruleset("elf_abas").resolve_combat(fight, dice=FixedDice([6, 1, 1, 1, 6, 6]))
    assert (result.sixes, result.outcome.destroyed, result.outcome.eliminated) == (1, True, True)
    assert [d.purpose for d in result.dice][-2:] == ["effect 1 Fate die", "effect 1 effect die"]


@pytest.mark.parametrize("fate", [1, 2, 3, 4, 5])
def test_normal_effects(fate):
    assert [effect_for(fate=fate, die=d) for d in range(1, 7)] == [
        Effect.RETREAT, Effect.RETREAT, Effect.FATIGUE, Effect.FATIGUE,
        Effect.CASUALTY, Effect.CASUALTY]


def test_critical_effects():
    assert [effect_for(fate=6, die=d) for d in range(1, 7)] == [
        Effect.BOSS_LOSS, Effect.SPENT, Effect.PURSUIT, Effect.PANIC,
        Effect.HEROIC_STAND, Effect.DESTROYED]


def test_effect_dice_are_d6():
    with pytest.raises(EffectError, match="Fate die is a d6"):
        effect_for(fate=7, die=1)


def test_rest_removes_one_fatigue():
    assert rest(Force(unit=Kind.FOOT, figures=6, fatigue=2)).fatigue == 1
    assert rest(Force(unit=Kind.FOOT, figures=6)).fatigue == 0


def test_refit_only_at_a_camp_baggage_train_or_village():
    spent = Force(unit=Kind.FOOT, figures=6, spent=True)
    assert refit(spent, at_supply=True).spent is False
    with pytest.raises(EffectError, match="Camp, Baggage Train or Village"):
        refit(spent, at_supply=False)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"unit": Kind.LEADER, "figures": 1}, "a leader is a figure attached to a Unit"),
        ({"unit": Kind.SCOUT, "figures": 5}, "a scout Unit has 1 to 4 figures, not 5"),
        ({"figures": 2}, "has 2 figures but no Unit"),
        ({"leader": True, "fatigue": -1}, "Fatigue is 0 or more"),
    ],
)
def test_force_rules(kwargs, message):
    with pytest.raises(UnitError, match=message):
        Force(**kwargs)
