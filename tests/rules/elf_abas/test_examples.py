"""The worked examples A–F of the ELF ABAS source, each with its dice given."""

from typing import Any

import pytest

from tests.rules.elf_abas.casetable import ids, load, project, run_case

EXAMPLES = load("examples.json")


def test_every_example_is_covered():
    assert sorted({c["example"] for c in EXAMPLES}) == ["A", "B", "C", "D", "E", "F"]


@pytest.mark.parametrize("case", EXAMPLES, ids=ids(EXAMPLES))
def test_example(case: dict[str, Any]) -> None:
    assert project(run_case(case), case["expect"]) == case["expect"]
