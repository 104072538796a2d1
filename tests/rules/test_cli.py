"""`python -m rules`: the JSON calculator contract (stdout JSON, exit 2 + one stderr line)."""

import io
import json
import subprocess
import sys

import pytest

from rules import dice
from rules.__main__ import main


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Run the CLI in-process (fast); one subprocess test below checks the real entry point."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    try:
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def run_json(argv: list[str], payload: object) -> object:
    code, out, err = run(argv, json.dumps(payload))
    assert (code, err) == (0, "")
    return json.loads(out)


def test_module_entry_point():
    result = subprocess.run([sys.executable, "-m", "rules", "hex", "distance", "A1", "J10"],
                            capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "14\n", "")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["hex", "distance", "A1", "J10"], 14),
        (["hex", "distance", "J10", "A1"], 14),
        (["hex", "distance", "B10", "B10"], 0),
        (["hex", "neighbors", "B10"],
         {"N": "B9", "NE": "C10", "SE": "C11", "S": "B11", "SW": "A11", "NW": "A10"}),
        (["hex", "neighbors", "A1"], {"SE": "B1", "S": "A2"}),
        (["hex", "neighbors", "C1"], {"SE": "D1", "S": "C2", "SW": "B1"}),
    ],
)
def test_hex_commands(argv, expected):
    code, out, err = run(argv)
    assert (code, err) == (0, "")
    assert json.loads(out) == expected


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hex", "distance", "", "J10"], "error: from: "),
        (["hex", "distance", "A1", "J0"], "error: to: "),
        (["hex", "neighbors", "1A"], "error: hex: "),
        (["hex", "neighbors", "a-1"], "error: hex: "),
    ],
)
def test_hex_bad_labels_exit_2_with_one_line(argv, message):
    code, out, err = run(argv)
    assert code == 2
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1


SEED = "5f" * 32


def test_dice_commit_and_verify_round_trip():
    rolled = dice.SeededDice(seed=SEED)
    values = [rolled.roll(6, "attacker RN die 1"), rolled.roll(10, "commander level")]
    commitment = run_json(["dice", "commit"], {"seed": SEED})["commitment"]
    assert commitment == dice.commitment(SEED)
    rolls = [{"number": r.number, "purpose": r.purpose, "sides": r.sides, "value": r.value}
             for r in rolled.rolls]
    result = run_json(["dice", "verify"], {"seed": SEED, "commitment": commitment, "rolls": rolls})
    assert result == {
        "commitment_ok": True,
        "all_ok": True,
        "rolls": [
            {**rolls[0], "expected": values[0], "matches": True},
            {**rolls[1], "expected": values[1], "matches": True},
        ],
    }


def test_dice_verify_flags_a_tampered_roll():
    rolled = dice.SeededDice(seed=SEED)
    value = rolled.roll(6, "x")
    forged = value % 6 + 1
    result = run_json(["dice", "verify"], {
        "seed": SEED, "commitment": dice.commitment(SEED),
        "rolls": [{"number": 1, "purpose": "x", "sides": 6, "value": forged}],
    })
    assert result["all_ok"] is False
    assert result["rolls"][0]["expected"] == value
    assert result["rolls"][0]["matches"] is False


def test_dice_verify_flags_a_wrong_commitment():
    result = run_json(["dice", "verify"], {"seed": SEED, "commitment": "00" * 32, "rolls": []})
    assert (result["commitment_ok"], result["all_ok"]) == (False, False)


def test_dice_verify_takes_a_draw_for_the_rolls_from_its_first_roll_on():
    doc_seed = "0123456789abcdef" * 4
    rolls = [
        {"number": 1, "purpose": "combat 1 attacker die 1", "sides": 6, "value": 5},
        {"number": 6, "purpose": "combat 2 attacker die 1", "sides": 6, "value": 6},
        {"number": 7, "purpose": "combat 2 attacker die 2", "sides": 6, "value": 6},
    ]
    body = {"seed": doc_seed, "commitment": dice.commitment(doc_seed), "rolls": rolls,
            "draw": {"text": "the river runs north", "first_roll": 6}}
    result = run_json(["dice", "verify"], body)
    assert (result["commitment_ok"], result["all_ok"],
            [r["expected"] for r in result["rolls"]]) == (True, True, [5, 6, 6])
    # Without the draw, rolls 6 and 7 are not what the seed alone gives.
    plain = run_json(["dice", "verify"], {k: v for k, v in body.items() if k != "draw"})
    assert (plain["all_ok"], [r["expected"] for r in plain["rolls"]]) == (False, [5, 4, 1])


COST_CASES = [
    # The worked example of rules-erfworld.md §1.
    ({"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": []},
     {"cost": 12.125, "cost_exact": "12.125", "movement_class": "infantry", "valid": True,
      "errors": []}),
    ({"hits": 3, "attack": 5, "defence": 1, "move": 0},
     {"cost": 4.125, "cost_exact": "4.125", "movement_class": "garrison", "valid": True,
      "errors": []}),
]


@pytest.mark.parametrize(("payload", "expected"), COST_CASES)
def test_erfworld_cost(payload, expected):
    assert run_json(["erfworld", "cost"], payload) == expected


def test_erfworld_cost_reports_rule_errors_as_sentences():
    result = run_json(["erfworld", "cost"], {"hits": 3, "attack": 6, "defence": 1, "move": 2})
    assert result["valid"] is False
    assert len(result["errors"]) == 1
    assert "6" in result["errors"][0] and "5" in result["errors"][0]


@pytest.mark.parametrize(
    ("command", "stdin", "field"),
    [
        (["erfworld", "cost"], "{", "input"),
        (["erfworld", "cost"], "[1, 2]", "input"),
        (["erfworld", "cost"], '{"hits": 5, "attack": 5, "defence": 3}', "move"),
        (["erfworld", "cost"], '{"hits": 5, "attack": 5, "defence": 3, "move": 2, "colour": 1}',
         "colour"),
        (["erfworld", "cost"], '{"hits": "5", "attack": 5, "defence": 3, "move": 2}', "hits"),
        (["erfworld", "cost"], '{"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["x"]}',
         "specials[0]"),
        (["dice", "verify"], '{"seed": "a", "commitment": "b", "rolls": [{"number": 0}]}',
         "rolls[0].number"),
        (["dice", "verify"], '{"seed": "a", "commitment": "b"}', "rolls"),
    ],
)
def test_bad_input_exits_2_naming_the_field(command, stdin, field):
    code, out, err = run(command, stdin)
    assert code == 2
    assert out == ""
    assert err.startswith(f"error: {field}: ")
    assert err.count("\n") == 1


def test_unknown_command_is_a_usage_error():
    code, out, _ = run(["erfworld", "teleport"])
    assert code == 2
    assert out == ""


GOBWIN = {"name": "Gobwin", "hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": []}
STANLEY = {"name": "Stanley", "hits": 6, "attack": 4, "defence": 2, "move": 2,
           "specials": ["commander"], "commander_level": 2}
DWAGON = {"name": "Dwagon", "hits": 10, "attack": 6, "defence": 4, "move": 4,
          "specials": ["flying"]}


def test_erfworld_combat_with_given_rolls():
    # Attacker: TA 5+4 = 9, CB 1 + 0.1×2 = 6/5, RN (3+4+8)/20 = 3/4; the flying defender gets no
    # woods bonus: DF (8-4)/8 = 1/2 → floor(9 × 6/5 × 3/4 × 1/2) = floor(4.05) = 4, directed at
    # the Dwagon at 2× → it loses 2. Defender: TA 6, RN 1, DF (8 - 5/2)/8 = 11/16 →
    # floor(66/16) = 4, all on the Gobwin first in stack order.
    result = run_json(["erfworld", "combat"], {
        "attacker": {"units": [GOBWIN, STANLEY], "roll": [3, 4]},
        "defender": {"units": [DWAGON], "roll": [6, 6]},
        "defender_terrain": "woods", "target": 0,
    })
    assert (result["order"], result["hits_on_defender"], result["hits_on_attacker"],
            result["winner"]) == ("simultaneous", 4, 4, "none")
    assert result["attacker"]["factors"]["CB"] == {"exact": "6/5", "decimal": "1.2"}
    assert result["attacker"]["factors"]["DF"] == {"exact": "1/2", "decimal": "0.5"}
    assert result["defender"]["factors"]["DF"] == {"exact": "11/16", "decimal": "0.6875"}
    assert result["attacker"]["units"] == [
        {"name": "Gobwin", "current_hits": 1, "croaked": False},
        {"name": "Stanley", "current_hits": 6, "croaked": False},
    ]
    assert result["defender"]["units"] == [{"name": "Dwagon", "current_hits": 8, "croaked": False}]
    assert "seed" not in result


def test_erfworld_combat_from_a_seed_is_replayable_and_verifiable():
    payload = {"attacker": {"units": [GOBWIN, STANLEY]}, "defender": {"units": [DWAGON]},
               "seed": SEED}
    first = run_json(["erfworld", "combat"], payload)
    assert run_json(["erfworld", "combat"], payload) == first
    assert [d["purpose"] for d in first["dice"]] == [
        "combat: attacker die 1", "combat: attacker die 2",
        "combat: defender die 1", "combat: defender die 2",
    ]
    assert first["attacker"]["roll"] == [first["dice"][0]["value"], first["dice"][1]["value"]]
    check = run_json(["dice", "verify"], {"seed": SEED, "commitment": first["commitment"],
                                          "rolls": [{k: d[k] for k in ("number", "purpose",
                                                                       "sides", "value")}
                                                    for d in first["dice"]]})
    assert check["all_ok"] is True


def test_erfworld_odds_exact_distribution():
    # hits = floor(4 × (s + 8)/20): 2 for 2d6 = 2..6 (15/36), 3 for 7..11 (20/36), 4 for 12.
    result = run_json(["erfworld", "odds"], {
        "attacker": {"units": [{"name": "a", "hits": 4, "attack": 4, "defence": 0, "move": 1}]},
        "defender": {"units": [{"name": "d", "hits": 10, "attack": 0, "defence": 0, "move": 1}]},
    })
    assert result["hits_on_defender"] == {
        "distribution": [
            {"hits": 2, "probability": {"exact": "5/12", "decimal": "0.4167"}},
            {"hits": 3, "probability": {"exact": "5/9", "decimal": "0.5556"}},
            {"hits": 4, "probability": {"exact": "1/36", "decimal": "0.0278"}},
        ],
        "expected": {"exact": "47/18", "decimal": "2.6111"},
    }
    assert result["hits_on_attacker"]["distribution"] == [
        {"hits": 0, "probability": {"exact": "1", "decimal": "1"}}
    ]
    assert result["defender"]["units"] == [{
        "name": "d", "croaked": {"exact": "0", "decimal": "0"},
        "expected_current_hits": {"exact": "133/18", "decimal": "7.3889"},
    }]


def test_erfworld_odds_refuses_a_seed():
    code, out, err = run(["erfworld", "odds"], json.dumps({
        "attacker": {"units": [GOBWIN]}, "defender": {"units": [DWAGON]}, "seed": "x"}))
    assert (code, out) == (2, "")
    assert err.startswith("error: seed: ")


PATH_MAP = {"cols": 5, "rows": 5, "terrain": {"B2": "woods"}}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"map": PATH_MAP, "unit": {"move": 4, "specials": []}, "from": "A1", "to": "C3"},
         {"reachable": True, "cost": 3, "path": ["A1", "B1", "C2", "C3"], "all_on_road": False}),
        ({"map": {"cols": 3, "rows": 3, "terrain": {"B1": "woods"}},
          "unit": {"move": 2, "specials": ["woods"]}, "from": "A1", "to": "B1"},
         {"reachable": True, "cost": 1, "path": ["A1", "B1"], "all_on_road": False}),
        ({"map": {"cols": 3, "rows": 3, "terrain": {"B1": "woods"}},
          "unit": {"move": 2}, "from": "A1", "to": "B1"},
         {"reachable": True, "cost": 2, "path": ["A1", "B1"], "all_on_road": False}),

        ({"map": {"cols": 3, "rows": 6, "terrain": {f"A{r}": "road" for r in range(1, 6)}},
          "unit": {"move": 2}, "from": "A1", "to": "A4"},
         {"reachable": True, "cost": 3, "path": ["A1", "A2", "A3", "A4"], "all_on_road": True}),
    ],
)
def test_erfworld_path(payload, expected):
    assert run_json(["erfworld", "path"], payload) == expected


def test_erfworld_path_out_of_reach_names_the_rule():
    result = run_json(["erfworld", "path"], {"map": PATH_MAP, "unit": {"move": 2},
                                             "from": "A1", "to": "C3"})
    assert (result["reachable"], result["cost"], result["path"]) == (False, None, [])
    assert result["reason"].startswith("C3 is out of reach: getting there needs 3 movement points")


def test_erfworld_path_cavalry_cannot_afford_woods():
    result = run_json(["erfworld", "path"], {"map": {"cols": 3, "rows": 3, "terrain": {"B1": "woods"}},
                                             "unit": {"move": 3}, "from": "A1", "to": "B1"})
    assert result["reachable"] is False
    assert result["reason"].startswith("Entering B1 (woods) costs 4 movement for cavalry")


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"map": PATH_MAP, "unit": {"move": 2}, "from": "A1", "to": "F9"}, "to"),
        ({"map": PATH_MAP, "unit": {"move": 2}, "from": "a1", "to": "C3"}, "from"),
        ({"map": PATH_MAP, "unit": {"move": 6}, "from": "A1", "to": "C3"}, "unit.move"),
        ({"map": {**PATH_MAP, "terrain": {"B2": "lava"}}, "unit": {"move": 2}, "from": "A1",
          "to": "C3"}, "map"),
        ({"map": {**PATH_MAP, "size": 3}, "unit": {"move": 2}, "from": "A1", "to": "C3"},
         "map.size"),
    ],
)
def test_erfworld_path_bad_input(payload, field):
    code, out, err = run(["erfworld", "path"], json.dumps(payload))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {field}: ")
