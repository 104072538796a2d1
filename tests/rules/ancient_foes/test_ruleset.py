"""The Ancient Foes 2 ruleset object: registry entry, schema, validation, cost, turn, movement."""

from rules.ancient_foes.battlefield import Battlefield
from rules.ancient_foes.units import parse_code
from rules.hexgrid import Grid, parse_label
from rules.registry import RULESETS, get_ruleset


def test_registered_in_order():
    assert "ancient_foes" in RULESETS
    keys = list(RULESETS)
    assert keys.index("ancient_foes") == keys.index("quad") + 1
    ruleset = get_ruleset("ancient_foes")
    assert (ruleset.key, ruleset.name) == ("ancient_foes", "Ancient Foes 2")


def test_unit_schema():
    schema = get_ruleset("ancient_foes").unit_schema()
    assert [f.name for f in schema] == ["armour", "weapon", "mount", "experience", "leader"]
    assert schema[2].choices == ("Ho", "El", "Ch", "Fo", "Ar", "Ta")


def test_validate_unit_type_and_no_points():
    ruleset = get_ruleset("ancient_foes")
    assert ruleset.validate_unit_type({"code": "M-Ja-El"}) == []
    assert ruleset.validate_unit_type({"armour": "M", "weapon": "Ja", "mount": "El"}) == []
    assert ruleset.validate_unit_type({"armour": "Q", "weapon": "Ja", "mount": "El"}) == [
        "armour: must be one of H, M, L (got 'Q')."
    ]
    assert ruleset.unit_cost({"code": "M-Ja-El"}) is None


def test_turn_structure():
    phases = get_ruleset("ancient_foes").turn_structure()
    assert [(p.kind, p.acting_side) for p in phases] == [
        ("first_player_move_leaders", "first_player"),
        ("first_player_orders", "first_player"),
        ("first_player_initiative", "first_player"),
        ("second_player_move_leaders", "second_player"),
        ("second_player_orders", "second_player"),
        ("second_player_initiative", "second_player"),
    ]


def test_movement_cost_is_cm_per_hex():
    ruleset = get_ruleset("ancient_foes")
    unit = parse_code("H-Sw-Fo")
    a1, b1, c1 = parse_label("A1"), parse_label("B1"), parse_label("C1")
    field_ = Battlefield(grid=Grid(cols=3, rows=3), occupied=frozenset({c1}))
    assert ruleset.movement_cost(unit, a1, b1, field_, side=None) == 2
    assert ruleset.movement_cost(unit, b1, c1, field_, side=None) is None
    assert ruleset.movement_cost(unit, a1, c1, field_, side=None) is None
    scaled = Battlefield(cm_per_hex=5)
    assert ruleset.movement_cost(unit, a1, b1, scaled, side=None) == 5


def test_calculators():
    assert sorted(get_ruleset("ancient_foes").calculators()) == [
        "army", "battle-start", "battle-step", "fight", "fire", "initiative", "move",
        "orders", "start", "stats",
    ]
