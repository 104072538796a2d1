"""The explicit ruleset registry and the Erfworld ruleset's contract."""

from fractions import Fraction

import pytest

from rules.registry import RULESETS, get_ruleset


def test_erfworld_is_registered():
    ruleset = get_ruleset("erfworld")
    assert (ruleset.key, ruleset.name) == ("erfworld", "Erfworld")
    assert "erfworld" in RULESETS


def test_unknown_ruleset_names_the_known_keys():
    with pytest.raises(ValueError) as info:
        get_ruleset("chess")
    assert str(info.value) == f"Unknown ruleset 'chess'; known rulesets: {', '.join(RULESETS)}."


def test_every_registered_ruleset_keeps_its_key():
    assert all(get_ruleset(key).key == key for key in RULESETS)


def test_erfworld_turn_structure():
    phases = get_ruleset("erfworld").turn_structure()
    assert [(p.kind, p.acting_side, p.ended_by) for p in phases] == [
        ("scout", "alliance", "chief_warlord"),
        ("move_combat", "alliance", "chief_warlord"),
        ("opposition", "opposition", "gm"),
    ]


def test_erfworld_unit_schema_fields():
    schema = get_ruleset("erfworld").unit_schema()
    assert [f.name for f in schema] == ["hits", "attack", "defence", "move", "specials"]
    assert schema[-1].choices == (
        "scout", "commander", "ranged", "siege", "flying", "woods", "hills", "swamp",
    )


def test_erfworld_validate_and_cost_from_json():
    ruleset = get_ruleset("erfworld")
    design = {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": []}
    assert ruleset.validate_unit_type(design) == []
    assert ruleset.unit_cost(design) == Fraction(97, 8)
    errors = ruleset.validate_unit_type({"hits": 5, "attack": 5, "defence": 3})
    assert errors == ["move: is required."]


def test_erfworld_calculators():
    assert sorted(get_ruleset("erfworld").calculators()) == ["combat", "cost", "odds", "path"]


def test_erfworld_movement_cost_and_combat_through_the_ruleset():
    from rules.dice import FixedDice
    from rules.erfworld.board import board_from_labels
    from rules.erfworld.combat import combat_from_dict
    from rules.erfworld.types import SideKind, UnitStats
    from rules.hexgrid import parse_label

    ruleset = get_ruleset("erfworld")
    board = board_from_labels(cols=3, rows=3, terrain={"B1": "woods"})
    infantry = UnitStats(hits=5, attack=5, defence=3, move=2)
    cavalry = UnitStats(hits=5, attack=5, defence=3, move=3)
    a1, b1 = parse_label("A1"), parse_label("B1")
    assert ruleset.movement_cost(infantry, a1, b1, board, side=SideKind.ALLIANCE) == 2
    assert ruleset.movement_cost(cavalry, a1, b1, board, side=SideKind.ALLIANCE) == 4
    fight = combat_from_dict({
        "attacker": {"units": [{"name": "a", "hits": 4, "attack": 4, "defence": 0, "move": 1}]},
        "defender": {"units": [{"name": "d", "hits": 10, "attack": 0, "defence": 0, "move": 1}]},
    })
    # 2d6 = 12 → RN 1 → floor(4 × 1 × 1) = 4 hits on the defender.
    result = ruleset.resolve_combat(fight, dice=FixedDice([6, 6, 1, 1]))
    assert (result.hits_on_defender, result.hits_on_attacker) == (4, 0)
