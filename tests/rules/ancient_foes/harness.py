"""Shared helpers of the Ancient Foes 2 tests: run a calculator in-process, load and match cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.rules.test_cli import run

CASES = Path(__file__).parent / "cases"


def load(topic: str) -> list[object]:
    """The cases of cases/<topic>.json as pytest params, each with its name as id."""
    cases = json.loads((CASES / f"{topic}.json").read_text())
    return [pytest.param(case, id=case["name"]) for case in cases]


def calculate(command: str, payload: object) -> tuple[int, object, str]:
    code, out, err = run(["ancient_foes", command], json.dumps(payload))
    return code, (json.loads(out) if out else None), err


def matches(expected: object, actual: object, where: str = "") -> None:
    """Every value given in `expected` is in `actual` (objects may have more keys; lists match
    item by item and have the same length)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} is missing in {actual!r}"
            matches(value, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: expected a list, got {actual!r}"
        assert len(expected) == len(actual), f"{where}: {len(actual)} items, not {len(expected)}: {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            matches(e, a, f"{where}[{i}]")
    else:
        assert expected == actual, f"{where}: {actual!r} != {expected!r}"


def check_case(command: str, case: dict[str, object]) -> None:
    """A case is {"name", "why", "input", "expect"} or {…, "error": "<field>: <start of message>"}."""
    code, out, err = calculate(command, case["input"])
    if "error" in case:
        assert (code, out) == (2, None), err
        assert err.startswith(f"error: {case['error']}"), err
        assert err.count("\n") == 1
        return
    assert (code, err) == (0, ""), err
    matches(case["expect"], out)
