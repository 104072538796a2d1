"""The Erfworld ruleset object registered in rules.registry."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from rules.dice import Dice
from rules.erfworld import calculators, movement, units
from rules.erfworld import combat as combats
from rules.erfworld.board import Board
from rules.erfworld.types import SideKind, Special, UnitStats
from rules.hexgrid import Hex
from rules.jsonio import JSONObject
from rules.registry import Calculator, FieldSpec, PhaseSpec

TURN = (
    PhaseSpec(
        kind="scout",
        name="Alliance scout phase",
        acting_side="alliance",
        ended_by="chief_warlord",
        description="Pops appear; scouts with a commander in their hex inspect paths of hexes.",
    ),
    PhaseSpec(
        kind="move_combat",
        name="Alliance move/combat phase",
        acting_side="alliance",
        ended_by="chief_warlord",
        description="Players move and fight, each action resolved at once; healing at the end.",
    ),
    PhaseSpec(
        kind="opposition",
        name="Opposition phase",
        acting_side="opposition",
        ended_by="gm",
        description="The GM moves and fights with the opposition.",
    ),
)

SCHEMA = (
    FieldSpec(name="hits", kind="int", minimum=1, description="Hits H"),
    FieldSpec(name="attack", kind="int", minimum=0, description="Attack A, at most ceil(1.5 × H)"),
    FieldSpec(name="defence", kind="int", minimum=0, maximum=units.MAX_DEFENCE,
              description="Defence D, at most H"),
    FieldSpec(name="move", kind="int", minimum=0, maximum=units.MAX_MOVE,
              description="Move M: 0 garrison, 1–2 infantry, 3–5 cavalry"),
    FieldSpec(name="specials", kind="list", choices=tuple(s.value for s in Special),
              description="Bought specials"),
)


class Erfworld:
    """Erfworld-style campaign rules (rules-erfworld.md)."""

    @property
    def key(self) -> str:
        return "erfworld"

    @property
    def name(self) -> str:
        return "Erfworld"

    def unit_schema(self) -> tuple[FieldSpec, ...]:
        return SCHEMA

    def validate_unit_type(self, data: JSONObject) -> list[str]:
        try:
            stats = units.unit_stats_from_dict(data)
        except ValueError as exc:
            return [str(exc)]
        return units.validate_unit_type(stats)

    def unit_cost(self, data: JSONObject) -> Fraction:
        return units.unit_cost(units.unit_stats_from_dict(data))

    def turn_structure(self) -> tuple[PhaseSpec, ...]:
        return TURN

    def movement_cost(
        self, unit: UnitStats, from_hex: Hex, to_hex: Hex, board: Board, *, side: SideKind
    ) -> int | None:
        return movement.movement_cost(unit, from_hex, to_hex, board, side=side)

    def resolve_combat(self, combat: combats.Combat, *, dice: Dice) -> combats.CombatResult:
        return combats.resolve_combat(combat, dice=dice)

    def calculators(self) -> Mapping[str, Calculator]:
        return calculators.CALCULATORS


ERFWORLD = Erfworld()
