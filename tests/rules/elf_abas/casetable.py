"""Loading the JSON case tables and comparing a calculator's output with a case's expectation."""

import json
from pathlib import Path
from typing import Any

from rules.elf_abas.calculators import CALCULATORS

CASES = Path(__file__).parent / "cases"


def load(name: str) -> list[dict[str, Any]]:
    return json.loads((CASES / name).read_text())


def ids(cases: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in cases]


def project(actual: Any, expected: Any) -> Any:
    """The part of `actual` that `expected` names: dict keys it lists, lists item by item."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {k: project(actual.get(k, "<missing>"), v) for k, v in expected.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(actual) == len(expected):
        return [project(a, e) for a, e in zip(actual, expected, strict=True)]
    return actual


def run_case(case: dict[str, Any]) -> Any:
    return CALCULATORS[case["command"]](case["input"])
