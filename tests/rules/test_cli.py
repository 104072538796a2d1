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
