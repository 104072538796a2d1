"""Shared helpers of the QUAD tests: loading case tables and matching expected subsets."""

import json
from pathlib import Path
from typing import Any

CASES = Path(__file__).parent / "cases"


def load(name: str) -> list[dict[str, Any]]:
    return json.loads((CASES / f"{name}.json").read_text())


def ids(cases: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in cases]


def assert_subset(actual: Any, expected: Any, path: str = "") -> None:
    """Every key of `expected` (recursively, dicts only) has exactly that value in `actual`."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{path}.{key} missing"
            assert_subset(actual[key], value, f"{path}.{key}")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"
