"""ELF ABAS rule cases: effects, attack dice and terrain, movement and retreats, activation."""

from typing import Any

import pytest

from tests.rules.elf_abas.casetable import ids, load, project, run_case

EFFECTS = load("effects.json")
ATTACK = load("attack.json")
MOVEMENT = load("movement.json")
ACTIVATION = load("activation.json")


@pytest.mark.parametrize("case", EFFECTS, ids=ids(EFFECTS))
def test_effects(case: dict[str, Any]) -> None:
    assert project(run_case(case), case["expect"]) == case["expect"]


@pytest.mark.parametrize("case", ATTACK, ids=ids(ATTACK))
def test_attack(case: dict[str, Any]) -> None:
    assert project(run_case(case), case["expect"]) == case["expect"]


@pytest.mark.parametrize("case", MOVEMENT, ids=ids(MOVEMENT))
def test_movement(case: dict[str, Any]) -> None:
    assert project(run_case(case), case["expect"]) == case["expect"]


@pytest.mark.parametrize("case", ACTIVATION, ids=ids(ACTIVATION))
def test_activation(case: dict[str, Any]) -> None:
    assert project(run_case(case), case["expect"]) == case["expect"]
