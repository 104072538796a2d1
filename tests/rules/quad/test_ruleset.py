"""The QUAD ruleset object: registry entry, schema, validation, no cost, turn structure."""

from rules.dice import FixedDice
from rules.hexgrid import Grid, parse_label
from rules.quad.calculators import combat_from_dict
from rules.quad.terrain import Board
from rules.quad.units import UnitType
from rules.registry import get_ruleset


def test_quad_is_registered():
    ruleset = get_ruleset("quad")
    assert (ruleset.key, ruleset.name) == ("quad", "QUAD")


def test_schema():
    schema = get_ruleset("quad").unit_schema()
    assert [f.name for f in schema] == [
        "name", "quality", "speed", "attack", "defense", "specials", "ranged"
    ]
    assert schema[5].choices == (
        "amphibious", "charger", "elite", "forester", "green", "steady", "support"
    )


def test_validate_and_cost():
    ruleset = get_ruleset("quad")
    assert ruleset.validate_unit_type({"quality": 3, "speed": 2, "attack": 4, "defense": 2}) == []
    assert ruleset.validate_unit_type({"quality": 0, "speed": 2, "attack": 4, "defense": 2}) == [
        "quality: must be at least 1."
    ]
    assert ruleset.unit_cost({"quality": 3, "speed": 2, "attack": 4, "defense": 2}) is None


def test_turn_structure():
    phases = get_ruleset("quad").turn_structure()
    assert [(p.kind, p.acting_side, p.ended_by) for p in phases] == [
        ("draw", "all", "all_players"),
        ("activation", "active_player", "all_players_release"),
    ]


def test_calculators():
    assert sorted(get_ruleset("quad").calculators()) == [
        "battle-start", "battle-step", "combat", "deck", "fall_back", "move", "unit"
    ]


def test_movement_cost_and_combat_through_the_ruleset():
    ruleset = get_ruleset("quad")
    unit = UnitType(quality=3, speed=2, attack=1, defense=1)
    board = Board(grid=Grid(2, 2))
    assert ruleset.movement_cost(unit, parse_label("A1"), parse_label("A2"), board,
                                 side=None) == 1
    fight = combat_from_dict({
        "attacker": {"unit": {"quality": 5, "speed": 1, "attack": 5, "defense": 0}},
        "defender": {"unit": {"quality": 3, "speed": 1, "attack": 0, "defense": 3}},
    })
    result = ruleset.resolve_combat(fight, dice=FixedDice([2, 4, 5, 5, 6, 1, 4, 5]))
    assert (result.defender.quality_after, result.defender.fall_back_hexes) == (2, 3)
