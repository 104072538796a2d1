"""`python -m rules quad …`: JSON in and out, seeds with commitments, exit 2 naming the field."""

import json

import pytest

from rules import dice
from tests.rules.test_cli import run, run_json

UNIT = {"quality": 3, "speed": 2, "attack": 4, "defense": 2}
EXAMPLE_1 = {
    "attacker": {"unit": {"quality": 3, "speed": 1, "attack": 4, "defense": 0}},
    "defender": {"unit": {"quality": 5, "speed": 1, "attack": 0, "defense": 2}},
    "strike_back_sixes": 0,
}


def test_quad_commands_are_listed():
    code, out, _ = run(["quad", "--help"])
    assert code == 0
    for name in ("unit", "combat", "move", "fall_back", "deck"):
        assert name in out


def test_unit():
    result = run_json(["quad", "unit"], {**UNIT, "name": "Archers", "specials": ["steady"],
                                         "ranged": "2/3"})
    assert result == {
        "valid": True,
        "unit": {"name": "Archers", "quality": 3, "speed": 2, "attack": 4, "defense": 2,
                 "specials": ["steady"], "ranged": "2/3"},
        "stat_line": "Q:3 S:2 A:4 D:2 steady ranged 2/3",
        "cost": None,
    }


def test_combat_with_rolls_has_no_seed():
    result = run_json(["quad", "combat"], {**EXAMPLE_1, "rolls": [1, 3, 5, 6, 4, 6]})
    assert "seed" not in result
    assert result["attacker"]["fall_back_hexes"] == 1


def test_combat_with_a_seed_prints_seed_commitment_and_every_die():
    seed = "quad-seed"
    result = run_json(["quad", "combat"], {**EXAMPLE_1, "seed": seed})
    assert result["seed"] == seed
    assert result["commitment"] == dice.commitment(seed)
    assert [d["purpose"] for d in result["dice"]] == [
        "attack die 1", "attack die 2", "attack die 3", "attack die 4",
        "defense die 1", "defense die 2",
    ]
    replay = dice.SeededDice(seed=seed)
    assert [d["value"] for d in result["dice"]] == [
        replay.roll(6, d["purpose"]) for d in result["dice"]
    ]
    assert result["attack"]["rolls"] + result["defense"]["rolls"] == [
        d["value"] for d in result["dice"]
    ]


def test_combat_without_dice_draws_a_fresh_seed():
    result = run_json(["quad", "combat"], EXAMPLE_1)
    assert len(result["seed"]) == 64
    assert len(result["dice"]) == 6


def test_deck_with_a_seed():
    result = run_json(["quad", "deck"], {
        "players": [{"name": "Blue", "units": ["Knights", "Archers", "Pikes"], "leader_level": 1},
                    {"name": "Red", "units": ["Horde"]}],
        "actions": [{"type": "turn", "first": "Blue"}, {"type": "release", "player": "Blue"}],
        "seed": "deck",
    })
    assert result["decks"] == [
        {"player": "Blue", "cards": 11, "unit_cards": 9, "tactics_cards": 2, "starting_hand": 2},
        {"player": "Red", "cards": 3, "unit_cards": 3, "tactics_cards": 0, "starting_hand": 0},
    ]
    assert result["state"]["active"] == "Red"
    blue = result["state"]["players"][0]
    assert (len(blue["hand"]), blue["draw_pile"]) == (5, 6)
    # 10 dice shuffle Blue's 11 cards, 2 shuffle Red's 3.
    assert [d["sides"] for d in result["dice"]] == [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 3, 2]


@pytest.mark.parametrize(
    ("command", "payload", "message"),
    [
        ("unit", {**UNIT, "quality": 6}, "error: quality: must be at most 5."),
        ("unit", {**UNIT, "colour": "red"}, "error: colour: unknown field"),
        ("unit", {**UNIT, "specials": ["flying"]}, "error: specials[0]: unknown special 'flying'"),
        ("unit", {**UNIT, "ranged": "2-3"}, "error: ranged: must be \"attack/range\""),
        ("unit", {**UNIT, "specials": ["ranged"]}, "error: specials[0]: Ranged is written"),
        ("combat", {**EXAMPLE_1, "rolls": [1, 2]}, "error: rolls: Ran out of given dice"),
        ("combat", {**EXAMPLE_1, "rolls": [1, 2, 3, 4, 5, 6, 1]},
         "error: rolls: 7 value(s) were given but only 6 die/dice rolled."),
        ("combat", {**EXAMPLE_1, "rolls": [7, 2, 3, 4, 5, 6]}, "error: rolls: A d6 shows 1 to 6"),
        ("combat", {**EXAMPLE_1, "rolls": [], "seed": "x"}, "error: seed: give either"),
        ("combat", {**EXAMPLE_1, "charging": True}, "error: charging: The unit is not a Charger"),
        ("combat", {**EXAMPLE_1, "distance": 0}, "error: distance: must be at least 1."),
        ("combat", {**EXAMPLE_1, "attacker": {"unit": UNIT, "terrain": "swamp"}},
         "error: attacker.terrain: must be one of open, forest, slope, fortified, river"),
        ("combat", {**EXAMPLE_1, "attacker": {"unit": UNIT, "quality": 4}},
         "error: attacker.quality: The unit has current quality 4"),
        ("combat", {**EXAMPLE_1, "attacker": {"unit": {**UNIT, "attack": -1}}},
         "error: attacker.unit.attack: must be at least 0."),
        ("move", {"map": {"cols": 2, "rows": 2}, "unit": UNIT, "path": ["A1", "Z9"]},
         "error: path: Z9 cannot be entered from A1"),
        ("move", {"map": {"cols": 2, "rows": 2, "terrain": {"A1": "lava"}}, "unit": UNIT,
                  "path": ["A1"]}, "error: map.terrain.A1: must be one of"),
        ("fall_back", {"map": {"cols": 2, "rows": 2}, "unit": UNIT, "from": "A1",
                       "attacker": "A2"}, "error: hexes: is required."),
        ("deck", {"players": [{"name": "p", "units": ["a"]}],
                  "actions": [{"type": "play", "player": "p", "unit": "a"}], "seed": "s"},
         "error: actions[0]: No turn is going on"),
        ("deck", {"players": [{"name": "p", "units": []}], "seed": "s"},
         "error: players: An army needs at least one unit"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_field(command, payload, message):
    code, out, err = run(["quad", command], json.dumps(payload))
    assert (code, out) == (2, "")
    assert err.startswith(message), err
    assert err.count("\n") == 1
