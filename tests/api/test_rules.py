"""POST /api/v1/rules/<ruleset>/<command>/: the JSON of `python -m rules`."""

import json
import subprocess
import sys

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
