"""GRASP through the registry: schema, cost, turn structure, movement, combat, calculators."""

import json
from fractions import Fraction

import pytest

from rules.dice import FixedDice, commitment
from rules.grasp.board import Board
from rules.grasp.combat import CloseCombat, Fighter, Fire, Side
from rules.grasp.dielevels import DieLevel, DieSpec, GraspError, parse_die, round_odd
from rules.grasp.terrain import Mover, TerrainClass
from rules.hexgrid import Hex
from rules.registry import get_ruleset
from tests.rules.test_cli import run


def test_registered() -> None:
    ruleset = get_ruleset("grasp")
    assert (ruleset.key, ruleset.name) == ("grasp", "GRASP")


def test_calculators() -> None:
    assert sorted(get_ruleset("grasp").calculators()) == [
        "battle-start", "battle-step", "carrier", "close_combat", "cost", "die", "engineer",
        "fatigue", "fire", "mines", "move", "round", "supply", "terrain"]


def test_turn_structure_is_the_eight_steps() -> None:
    kinds = [p.kind for p in get_ruleset("grasp").turn_structure()]
    assert kinds == ["resupply", "flee", "low_tech_moves", "pips", "ambush", "ambush_moves",
                     "fire", "close_combat"]


def test_validate_and_cost() -> None:
    ruleset = get_ruleset("grasp")
    design = {"cc": "<2d6", "fatigue": "d6"}
    assert ruleset.validate_unit_type(design) == []
    assert ruleset.unit_cost(design) == Fraction(10)
    assert ruleset.validate_unit_type({"cc": "d6"}) == ["fatigue: is required."]
    assert ruleset.validate_unit_type({"fs": "d6", "fatigue": "d4"}) == [
        "A unit with a fire strength needs a fire range."]


def test_movement_cost_on_hexes() -> None:
    ruleset = get_ruleset("grasp")
    a, b, c = Hex(0, 0), Hex(1, 0), Hex(2, 0)
    board = Board(hexes=frozenset({a, b, c}),
                  terrain={b: TerrainClass.DIFFICULT, c: TerrainClass.IMPASSABLE}, mu_per_hex=2)
    assert ruleset.movement_cost(Mover(), a, b, board, side=None) == 8
    assert ruleset.movement_cost(Mover(agile=True), a, b, board, side=None) == 2
    assert ruleset.movement_cost(Mover(), b, c, board, side=None) is None
    assert ruleset.movement_cost(Mover(), b, a, board, side=None) == 2
    assert ruleset.movement_cost(Mover(), a, c, board, side=None) is None


def test_resolve_combat_dispatches() -> None:
    ruleset = get_ruleset("grasp")
    a = Fighter(name="A", die=parse_die("d6"), fatigue=DieLevel.D6)
    d = Fighter(name="D", die=parse_die("d6"), fatigue=DieLevel.D6)
    melee = ruleset.resolve_combat(CloseCombat(attacker=Side(unit=a), defender=Side(unit=d)),
                                   dice=FixedDice([5, 2]))
    assert (melee.kind, melee.winner, melee.doubled) == ("close_combat", "first", True)
    shot = ruleset.resolve_combat(Fire(firer=Side(unit=a), target=d, fire_range=6),
                                  dice=FixedDice([2, 5]))
    assert (shot.kind, shot.winner) == ("fire", "second")


def test_seed_output_is_replayable() -> None:
    payload = {"attacker": {"name": "A", "cc": "d6", "fatigue": "d6"},
               "defender": {"name": "D", "cc": "d6", "fatigue": "d6"}, "seed": "s1"}
    code, out, err = run(["grasp", "close_combat"], json.dumps(payload))
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["seed"] == "s1"
    assert result["commitment"] == commitment("s1")
    assert [d["purpose"] for d in result["dice"]] == ["A attacker CC", "D defender CC"]
    values = [d["value"] for d in result["dice"]]
    replay = json.loads(run(["grasp", "close_combat"],
                            json.dumps({**payload, "seed": None, "rolls": values}))[1])
    assert replay["outcomes"] == result["outcomes"]


def test_no_seed_without_dice() -> None:
    code, out, _ = run(["grasp", "move"], json.dumps({"move": 4}))
    assert code == 0
    assert "seed" not in json.loads(out)


@pytest.mark.parametrize("text", ["d5", "3d6", ">3d6", "x", "2d6"])
def test_bad_dice(text: str) -> None:
    with pytest.raises(GraspError):
        parse_die(text)


def test_parse_die_forms() -> None:
    assert parse_die("1d6") == DieSpec(level=DieLevel.D6)
    assert parse_die(">2d20").label == ">2d20"
    assert parse_die("<2d100").label == "<2d100"


def test_round_odd_examples() -> None:
    assert [round_odd(Fraction(n, 2)) for n in (1, 3, 5, 7, 21)] == [1, 1, 3, 3, 11]


def test_out_of_dice_is_one_line_error() -> None:
    code, out, err = run(["grasp", "terrain"], json.dumps({"rolls": [4]}))
    assert (code, out) == (2, "")
    assert err.startswith("error: Ran out of given dice") or err.startswith("error: rolls:")
