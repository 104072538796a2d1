"""`python -m rules elf_abas …`: JSON out, seeds replayable, bad input exits 2 naming the field."""

import json

import pytest

from rules import dice
from tests.rules.test_cli import run, run_json

SEED = "elf" * 10


def test_attack_with_a_seed_prints_seed_commitment_and_every_die():
    payload = {"attackers": [{"force": {"name": "Foot", "unit": "foot"}}],
               "defender": {"unit": "foot"}, "seed": SEED}
    out = run_json(["elf_abas", "attack"], payload)
    assert out["seed"] == SEED and out["commitment"] == dice.commitment(SEED)
    rolls = out["dice"]
    assert [r["purpose"] for r in rolls[:6]] == [f"Foot attack die {k}" for k in range(1, 7)]
    assert len(rolls) == 6 + 2 * out["effects_rolled"]
    assert [r["value"] for r in rolls[:6]] == out["attackers"][0]["rolls"]
    check = run_json(["dice", "verify"], {"seed": SEED, "commitment": out["commitment"],
                                          "rolls": [{k: r[k] for k in ("number", "purpose", "sides", "value")} for r in rolls]})
    assert check["all_ok"] is True
    assert run_json(["elf_abas", "attack"], payload) == out


def test_attack_with_every_die_given_uses_no_seed():
    out = run_json(["elf_abas", "attack"], {
        "attackers": [{"force": {"unit": "foot"}, "rolls": [1, 1, 1, 1, 1, 6]}],
        "defender": {"unit": "foot"}, "effect_rolls": [[1, 1]]})
    assert "seed" not in out and out["retreat_hexes"] == 1


def test_attack_without_dice_draws_a_fresh_seed():
    out = run_json(["elf_abas", "attack"], {"attackers": [{"force": {"hero": True}}],
                                             "defender": {"unit": "foot"}})
    assert len(out["seed"]) == 64 and len(out["dice"]) >= 2


def test_activation_with_a_seed():
    out = run_json(["elf_abas", "activation"], {"players": ["Gabe", "Otto"], "seed": SEED})
    assert sorted(out["order"]) == ["Gabe", "Gabe", "Otto", "Otto"]
    assert [r["sides"] for r in out["dice"]] == [4, 3, 2, 6]


@pytest.mark.parametrize(
    ("command", "payload", "message"),
    [
        ("unit", {"kind": "foot", "points": 3}, "error: points: unknown field"),
        ("unit", {"kind": "foot", "figures": "6"}, "error: figures: must be a whole number."),
        ("attack", {"attackers": [], "defender": {"unit": "foot"}}, "error: attackers: needs at least one"),
        ("attack", {"attackers": [{"force": {"unit": "orc"}}], "defender": {"unit": "foot"}},
         "error: attackers[0].force.unit: must be one of foot, missile, scout, mounted"),
        ("attack", {"attackers": [{"force": {"unit": "foot", "figures": 7}}], "defender": {"unit": "foot"}},
         "error: attackers[0].force.figures: must be at most 6."),
        ("attack", {"attackers": [{"force": {"unit": "foot"}, "rolls": [1, 2, 7]}], "defender": {"unit": "foot"}},
         "error: attackers[0].rolls[2]: must be a d6 value from 1 to 6."),
        ("attack", {"attackers": [{"force": {"unit": "foot"}, "rolls": [1, 2]}], "defender": {"unit": "foot"}},
         "error: attackers[0].rolls: attacker 1 rolls 6D here (6D (6 foot figures) = 6D), but 2 dice were given."),
        ("attack", {"attackers": [{"force": {"unit": "foot"}, "hexes": 2}], "defender": {"unit": "foot"}},
         "error: attackers[0].hexes: This force has no Missile Unit, so it can only attack an adjacent hex"),
        ("attack", {"attackers": [{"force": {"unit": "foot"}, "partial_sight": True}], "defender": {"unit": "foot"}},
         "error: attackers[0].partial_sight: A partly blocked line of sight only matters for Missile fire"),
        ("attack", {"attackers": [{"force": {"unit": "foot"}, "rolls": [6, 1, 1, 1, 1, 1]}],
                    "defender": {"unit": "foot"}, "effect_rolls": [[1, 1], [2, 2]]},
         "error: effect_rolls: The attack gives 1 effect, so 1 pair of effect dice are needed, not 2."),
        ("attack", {"attackers": [{"force": {"unit": "foot"}}], "defender": {}}, "error: defender: a force needs"),
        ("attack", {"attackers": [{"force": {"unit": "foot"}, "dice": 7}], "defender": {"unit": "foot"}},
         "error: attackers[0].dice: attacker 1 has 6D against this target, so it cannot put 7D on it."),
        ("attack", {"attackers": [{"force": {"unit": "foot"}, "rolls": [6, 1, 1, 1, 1, 1]}], "defender": {"unit": "foot"},
                    "effect_rolls": [[1, 5]], "casualties_to": "leader"},
         "error: casualties_to: The Casualties cannot go to the leader"),
        ("attack", {"attackers": [{"force": {"unit": "foot"}}], "defender": {"unit": "foot"}, "terrain": "swamp"},
         "error: terrain: must be one of open, woods"),
        ("effects", {"defender": {"unit": "foot"}, "effects": ["rout"]}, "error: effects[0]: must be one of"),
        ("effects", {"defender": {"unit": "foot"}}, "error: effects: give either effects"),
        ("effects", {"defender": {"unit": "foot"}, "rolls": [[6]]}, "error: rolls[0]: must be a pair"),
        ("effects", {"defender": {"unit": "foot"}, "effects": ["casualty"], "casualties_to": "hero"},
         "error: casualties_to: the defender has no hero."),
        ("move", {"force": {"unit": "foot"}, "plan": ["charge"]}, "error: plan[0]: must be 'move'"),
        ("path", {"map": {"cols": 3, "rows": 3, "terrain": {"Z9": "open"}}, "force": {"unit": "foot"},
                  "side": "blue", "from": "A1", "to": "B1"}, "error: map.terrain.Z9: Z9 is not on the"),
        ("path", {"map": {"cols": 3, "rows": 3}, "force": {"unit": "foot"}, "side": "blue",
                  "from": "a1", "to": "B1"}, "error: from: "),
        ("retreat", {"map": {"cols": 3, "rows": 3}, "force": {"unit": "foot"}, "side": "blue",
                     "from": "A1", "entry": "C3"}, "error: hexes: is required."),
        ("activation", {"players": ["Gabe"], "rolls": []}, "error: Activation needs at least two players."),
        ("activation", {"players": ["Gabe", "Otto"], "rolls": [1, 1, 1]}, "error: rolls: Ran out of given dice"),
        ("activation", {"players": ["Gabe", "Otto"], "rolls": [1, 1, 1, 1, 1]}, "error: rolls: 1 more value(s)"),
    ],
)
def test_bad_input_exits_2_with_one_line(command, payload, message):
    code, out, err = run(["elf_abas", command], json.dumps(payload))
    assert (code, out) == (2, "")
    assert err.startswith(message), err
    assert err.count("\n") == 1
