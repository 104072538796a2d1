"""The explicit list of rulesets and `get_ruleset(key)`; the contract every ruleset offers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from rules.jsonio import JSONObject

# A JSON calculator: one JSON object in, one JSON object out (InputError on bad input).
Calculator = Callable[[JSONObject], dict[str, object]]


@dataclass(frozen=True, kw_only=True)
class PhaseSpec:
    """One phase of a turn: who acts in it and who may end it."""

    kind: str
    name: str
    acting_side: str
    ended_by: str
    description: str


@dataclass(frozen=True, kw_only=True)
class FieldSpec:
    """One field of a ruleset's unit schema."""

    name: str
    kind: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    description: str = ""


class Ruleset(Protocol):
    """What the campaign engine, the calculators and the API need from a rule system."""

    @property
    def key(self) -> str: ...

    @property
    def name(self) -> str: ...

    def unit_schema(self) -> tuple[FieldSpec, ...]:
        """The fields of a unit type design."""
        ...

    def validate_unit_type(self, data: JSONObject) -> list[str]:
        """Rule violations of a unit type given as JSON, as sentences (empty when valid)."""
        ...

    def unit_cost(self, data: JSONObject) -> object:
        """The points cost of a valid unit type (a Fraction), or None when the rules define none."""
        ...

    def turn_structure(self) -> tuple[PhaseSpec, ...]:
        """The phases of one turn, in order."""
        ...

    # The ruleset's own frozen dataclasses go in and out of these two (Any here: each rule
    # system has its own unit, map and combat types).
    def movement_cost(
        self, unit: Any, from_hex: Any, to_hex: Any, board: Any, *, side: Any
    ) -> int | None:
        """Movement points to enter to_hex from from_hex; None when it cannot be entered."""
        ...

    def resolve_combat(self, combat: Any, *, dice: Any) -> Any:
        """A combat's result with its explanation (every factor, every die)."""
        ...

    def calculators(self) -> Mapping[str, Calculator]:
        """The JSON calculators offered by `python -m rules <key> <command>` and the API."""
        ...


def _erfworld() -> Ruleset:
    from rules.erfworld.ruleset import ERFWORLD

    return ERFWORLD


def _elf_abas() -> Ruleset:
    from rules.elf_abas.ruleset import ELF_ABAS

    return ELF_ABAS


def _quad() -> Ruleset:
    from rules.quad.ruleset import QUAD

    return QUAD


def _ancient_foes() -> Ruleset:
    from rules.ancient_foes.ruleset import ANCIENT_FOES

    return ANCIENT_FOES


def _grasp() -> Ruleset:
    from rules.grasp.ruleset import GRASP

    return GRASP


# The explicit list: a ruleset exists when it is named here.
RULESETS: dict[str, Callable[[], Ruleset]] = {
    "erfworld": _erfworld,
    "elf_abas": _elf_abas,
    "quad": _quad,
    "ancient_foes": _ancient_foes,
    "grasp": _grasp,
}


def ruleset_keys() -> list[str]:
    return list(RULESETS)


def get_ruleset(key: str) -> Ruleset:
    try:
        factory = RULESETS[key]
    except KeyError:
        raise ValueError(
            f"Unknown ruleset {key!r}; known rulesets: {', '.join(RULESETS)}."
        ) from None
    return factory()
