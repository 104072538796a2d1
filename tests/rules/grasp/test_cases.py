"""GRASP: every worked example of the source and every rule, as table-driven calculator cases."""

import json
from pathlib import Path
from typing import Any

import pytest

from tests.rules.test_cli import run

CASES_DIR = Path(__file__).parent / "cases"
EXAMPLES = json.loads((CASES_DIR / "examples.json").read_text())
RULES = json.loads((CASES_DIR / "rules.json").read_text())


def project(actual: Any, expected: Any) -> Any:
    """The part of `actual` that `expected` names (lists element by element)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {k: project(actual.get(k, "<missing>"), v) for k, v in expected.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [project(a, e) for a, e in zip(actual, expected, strict=True)]
    return actual


def check(case: dict[str, Any]) -> None:
    code, out, err = run(["grasp", case["command"]], json.dumps(case["input"]))
    if "error" in case:
        assert (code, out) == (2, "")
        assert err.startswith(case["error"]), err
        assert err.count("\n") == 1
        return
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert project(result, case["expect"]) == case["expect"], case.get("source", case["name"])


@pytest.mark.parametrize("case", EXAMPLES, ids=[c["name"] for c in EXAMPLES])
def test_source_example(case: dict[str, Any]) -> None:
    check(case)


@pytest.mark.parametrize("case", RULES, ids=[c["name"] for c in RULES])
def test_rule_case(case: dict[str, Any]) -> None:
    check(case)
