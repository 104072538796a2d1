"""POST /api/v1/rules/<ruleset>/<command>/: the JSON of `python -m rules`."""

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from rest_framework.test import APIClient

from config.settings.base import BASE_DIR

pytestmark = [pytest.mark.django_db]

COST = {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": []}


def cli(*args, data):
    done = subprocess.run([sys.executable, "-m", "rules", *args], input=json.dumps(data),
                          capture_output=True, text=True, cwd=BASE_DIR, check=False)
    return done.returncode, done.stdout, done.stderr


def test_a_calculator_answers_what_the_command_line_prints():
    response = APIClient().post("/api/v1/rules/erfworld/cost/", COST, format="json")
    _, stdout, _ = cli("erfworld", "cost", data=COST)
    assert (response.status_code, response.json()) == (200, json.loads(stdout))
    assert response.json()["cost_exact"] == "12.125"


def test_dice_commit_and_verify_are_there_too():
    from rules.dice import commitment

    response = APIClient().post("/api/v1/rules/dice/commit/", {"seed": "abc"}, format="json")
    assert (response.status_code, response.json()) == (200, {"commitment": commitment("abc")})
    verify = APIClient().post("/api/v1/rules/dice/verify/", {
        "seed": "abc", "commitment": commitment("abc"), "rolls": [],
    }, format="json")
    assert (verify.status_code, verify.json()["commitment_ok"]) == (200, True)


def test_bad_input_is_400_bad_input_with_the_field_the_command_line_names():
    bad = {**COST, "hits": "five"}
    response = APIClient().post("/api/v1/rules/erfworld/cost/", bad, format="json")
    code, _, stderr = cli("erfworld", "cost", data=bad)
    body = response.json()
    assert (response.status_code, body["code"], body["field"]) == (400, "bad_input", "hits")
    assert (code, stderr.strip()) == (2, f"error: hits: {body['detail']}")


def test_an_unknown_field_is_400_naming_it():
    response = APIClient().post("/api/v1/rules/dice/commit/", {"seed": "a", "x": 1},
                                format="json")
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "bad_input", "x"
    )


def test_a_json_array_is_400_input_must_be_an_object():
    response = APIClient().post("/api/v1/rules/dice/commit/", [1], format="json")
    assert (response.status_code, response.json()) == (
        400, {"code": "bad_input", "detail": "must be a JSON object.", "field": "input"}
    )


@pytest.mark.parametrize("path", ["/api/v1/rules/chess/cost/", "/api/v1/rules/erfworld/nope/",
                                  "/api/v1/rules/dice/roll/"])
def test_an_unknown_ruleset_or_command_is_404(path):
    response = APIClient().post(path, {}, format="json")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


# --- every calculator, the same JSON as the command line -------------------------------------

DOC_EXAMPLE = re.compile(
    r"^ +\$ echo '(?P<stdin>[^']*)' \| python -m rules (?P<args>\S+ \S+)\n", re.MULTILINE)
GOBWIN = {"name": "Gobwin", "hits": 3, "attack": 4, "defence": 2, "move": 2, "specials": []}
DWAGON = {"name": "Dwagon", "hits": 10, "attack": 6, "defence": 4, "move": 4,
          "specials": ["flying"]}
# The calculators the docs show no example of.
QUAD_DUEL = {"map": {"cols": 3, "rows": 3}, "sides": [
    {"name": "red", "units": [{"id": "r", "hex": "A1", "type": {
        "quality": 3, "speed": 1, "attack": 2, "defense": 1}}]},
    {"name": "blue", "units": [{"id": "b", "hex": "B2", "type": {
        "quality": 3, "speed": 1, "attack": 2, "defense": 1}}]}]}


def _quad_duel_state() -> dict[str, Any]:
    from rules.dice import SeededDice
    from rules.quad.battle import ENGINE

    return ENGINE.state_to_json(ENGINE.start(scenario=QUAD_DUEL, settings={},
                                             dice=SeededDice(seed="duel")).state)


QUAD_DUEL_STATE = _quad_duel_state()
ELF_DUEL = {"map": {"cols": 4, "rows": 3}, "sides": [
    {"name": "red", "entry": "A2", "forces": [{"id": "r", "unit": "foot", "hex": "B2"}]},
    {"name": "blue", "entry": "D2", "forces": [{"id": "b", "unit": "missile", "hex": "C2"}]}]}


def _elf_duel_state() -> dict[str, Any]:
    from rules.dice import SeededDice
    from rules.elf_abas.battle import ENGINE

    return ENGINE.state_to_json(ENGINE.start(scenario=ELF_DUEL, settings={},
                                             dice=SeededDice(seed="duel")).state)


ELF_DUEL_STATE = _elf_duel_state()


GRASP_DUEL = {"map": {"cols": 6, "rows": 3}, "sides": [
    {"name": "West", "edge": "W", "units": [{"id": "w", "at": "A2", "facing": "SE", "type": {
        "cc": "d6", "fatigue": "d6", "move": 2, "pips": "d6", "command_range": 4}}]},
    {"name": "East", "edge": "E", "units": [{"id": "e", "at": "F2", "facing": "NW", "type": {
        "cc": "d6", "fatigue": "d6", "move": 2}}]}]}


def _grasp_duel_state() -> dict[str, Any]:
    from rules.dice import FixedDice
    from rules.grasp.battle import ENGINE

    return ENGINE.state_to_json(ENGINE.start(scenario=GRASP_DUEL, settings={},
                                             dice=FixedDice([4])).state)


def _af_duel_state() -> dict[str, Any]:
    from rules.ancient_foes.battle import ENGINE
    from rules.dice import FixedDice

    return ENGINE.state_to_json(ENGINE.start(scenario=AF_DUEL, settings={},
                                             dice=FixedDice([6, 2])).state)

AF_DUEL = {"map": {"cols": 20, "rows": 4}, "sides": [
    {"name": "red", "bands": [{"name": "r", "facing": "SE", "units": [
        {"name": "r1", "code": "H-Sw-Fo", "at": "A2"}, {"name": "r2", "code": "H-Sw-Fo",
                                                         "at": "A3"}]}]},
    {"name": "blue", "bands": [{"name": "b", "facing": "NW", "units": [
        {"name": "b1", "code": "L-Bo-Fo", "at": "T2"}]}]}]}

MORE_INPUTS = [
    ("erfworld", "combat", {"attacker": {"units": [GOBWIN], "roll": [3, 4]},
                            "defender": {"units": [DWAGON], "roll": [6, 6]},
                            "defender_terrain": "woods"}),
    ("erfworld", "combat", {"attacker": {"units": [GOBWIN]}, "defender": {"units": [DWAGON]},
                            "seed": "ab" * 32}),
    ("erfworld", "odds", {"attacker": {"units": [GOBWIN]}, "defender": {"units": [DWAGON]}}),
    ("erfworld", "path", {"map": {"cols": 5, "rows": 5, "terrain": {"B2": "woods"}},
                          "unit": {"move": 4, "specials": []}, "from": "A1", "to": "C3"}),
    ("quad", "battle-start", {"scenario": QUAD_DUEL, "seed": "duel"}),
    ("quad", "battle-step", {"state": QUAD_DUEL_STATE, "seed": "duel-2", "orders": [
        {"side": "red", "kind": "draw", "take": True},
        {"side": "blue", "kind": "draw", "take": False}]}),
    ("quad", "battle-step", {"state": QUAD_DUEL_STATE, "orders": [
        {"side": "red", "kind": "release"}]}),
    ("elf_abas", "battle-start", {"scenario": ELF_DUEL, "settings": {"max_turns": 2},
                                  "seed": "duel"}),
    ("elf_abas", "battle-step", {"state": ELF_DUEL_STATE, "seed": "duel-2", "orders": [
        {"side": ELF_DUEL_STATE["order"][0], "kind": "attack",
         "force": "r" if ELF_DUEL_STATE["order"][0] == "red" else "b",
         "targets": [{"force": "b" if ELF_DUEL_STATE["order"][0] == "red" else "r"}]},
        {"side": ELF_DUEL_STATE["order"][0], "kind": "end"}]}),
    ("ancient_foes", "battle-start", {"scenario": AF_DUEL, "rolls": [6, 2]}),
    ("ancient_foes", "battle-step", {
        "state": {**_af_duel_state(), "active": "red"}, "rolls": [],
        "orders": [{"side": "red", "kind": "done"}]}),
    ("grasp", "battle-start", {"scenario": GRASP_DUEL, "rolls": [4]}),
    ("grasp", "battle-step", {"state": _grasp_duel_state(), "rolls": [], "orders": [
        {"side": "West", "kind": "marker", "unit": "w", "to": "C2"},
        {"side": "West", "kind": "done"}]}),
    ("dice", "verify", {"seed": "abc", "commitment": "0" * 64, "rolls": [
        {"number": 1, "purpose": "combat: attacker die 1", "sides": 6, "value": 3}]}),
]


def calculator_cases() -> list[Any]:
    cases = []
    for doc in sorted((BASE_DIR / "docs" / "rules").glob("*.md")):
        for m in DOC_EXAMPLE.finditer(doc.read_text()):
            ruleset, command = m["args"].split()
            cases.append(pytest.param(ruleset, command, m["stdin"],
                                      id=f"{doc.stem}: {ruleset} {command}"))
    cases += [pytest.param(r, c, json.dumps(data), id=f"more: {r} {c}")
              for r, c, data in MORE_INPUTS]
    return cases


def test_every_calculator_has_a_case():
    from rules.registry import RULESETS, get_ruleset

    covered = {(p.values[0], p.values[1]) for p in calculator_cases()}
    every = {(key, command) for key in RULESETS for command in get_ruleset(key).calculators()}
    assert sorted((every | {("dice", "verify"), ("dice", "commit")}) - covered) == []


@pytest.mark.parametrize(("ruleset", "command", "stdin"), calculator_cases())
def test_the_api_answers_what_the_command_line_prints(ruleset, command, stdin):
    from tests.rules.test_cli import run

    code, out, err = run([ruleset, command], stdin)
    response = APIClient().post(f"/api/v1/rules/{ruleset}/{command}/", json.loads(stdin),
                                format="json")
    if code == 0:
        assert (response.status_code, response.json()) == (200, json.loads(out))
    else:  # the command line's one error line is the API's 400, sentence for sentence
        body = response.json()
        field = f"{body['field']}: " if body["field"] else ""
        assert (code, response.status_code, err.strip()) == (
            2, 400, f"error: {field}{body['detail']}")


# --- bounds (hardening): what a game uses, a clear 400, never a stuck worker -------------


def _calc(client, path, body):
    return client.post(f"/api/v1/rules/{path}/", body, format="json")


def test_a_map_larger_than_any_campaigns_is_400_naming_the_field():
    from rest_framework.test import APIClient

    response = _calc(APIClient(), "erfworld/path", {
        "map": {"cols": 702, "rows": 4000, "terrain": {}},
        "unit": {"move": 2}, "from": "A1", "to": "B2"})
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "bad_input", "map.cols")


def test_json_nested_a_thousand_deep_is_400_not_a_server_error():
    from rest_framework.test import APIClient

    body = "[" * 1000 + "]" * 1000
    client = APIClient()
    for url in ("/api/v1/rules/dice/commit/", "/api/v1/campaigns/join/"):
        response = client.post(url, body, content_type="application/json")
        assert (response.status_code, response.json()["code"]) in {
            (400, "parse_error"), (401, "not_authenticated")}, url
    response = client.post("/api/v1/rules/dice/commit/", body, content_type="application/json")
    assert response.json() == {"code": "parse_error", "field": None,
                               "detail": "JSON parse error - nested deeper than 16 levels."}


def test_seventeen_levels_are_refused_and_sixteen_are_read():
    from rest_framework.test import APIClient

    client = APIClient()
    deep = {"seed": "00" * 32, "x": [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}  # 17 levels in all
    shallow = {"seed": "00" * 32, "x": [[[[[[[[[[[[[[1]]]]]]]]]]]]]]}  # 15
    assert (_calc(client, "dice/commit", deep).json()["code"],
            _calc(client, "dice/commit", shallow).json()["code"]) == ("parse_error", "bad_input")


def test_too_many_values_too_long_strings_and_huge_numbers_are_400():
    from rest_framework.test import APIClient

    client = APIClient()
    many = _calc(client, "dice/verify", {"seed": "a", "commitment": "b",
                                          "rolls": [0] * 30_001})
    long = _calc(client, "dice/commit", {"seed": "a" * 2_001})
    huge = _calc(client, "erfworld/cost", {"hits": 2 ** 63, "attack": 1, "defence": 1,
                                                "move": 1})
    assert [(r.status_code, r.json()["field"], r.json()["detail"]) for r in (many, long, huge)
            ] == [
        (400, "input", "holds more than 30,000 values; the largest map a game uses is "
         "100 × 100."),
        (400, "seed", "is longer than 2,000 characters."),
        (400, "hits", "must be between -1,000,000 and 1,000,000."),
    ]


def test_a_calculation_that_uses_up_its_cpu_budget_is_400_too_complex(monkeypatch, settings):
    from rest_framework.test import APIClient

    from campaigns.api import views

    def endless(data):
        while True:
            pass

    settings.API_CALCULATOR_CPU_SECONDS = 0.2
    monkeypatch.setattr(views, "_calculator", lambda ruleset, command: endless)
    response = _calc(APIClient(), "dice/commit", {"seed": "a"})
    assert (response.status_code, response.json()["code"]) == (400, "too_complex")
