"""The ELF ABAS ruleset object registered in rules.registry."""

from __future__ import annotations

from collections.abc import Mapping

from rules.dice import Dice
from rules.elf_abas import calculators, units
from rules.elf_abas import combat as combats
from rules.elf_abas.movement import Board
from rules.elf_abas.movement import movement_cost as _movement_cost
from rules.elf_abas.units import Force, Kind
from rules.hexgrid import Hex
from rules.jsonio import JSONObject
from rules.registry import Calculator, FieldSpec, PhaseSpec

TURN = (
    PhaseSpec(
        kind="activation_draw",
        name="Activation draw",
        acting_side="gm",
        ended_by="gm",
        description=(
            "Two cards per player go into a pile and are mixed; a D6 is rolled and that many"
            " cards go from the top to the bottom. The cards are drawn from the top."
        ),
    ),
    PhaseSpec(
        kind="activation",
        name="Activations",
        acting_side="card_holder",
        ended_by="card_holder",
        description=(
            "For each card drawn its player moves and attacks, attacking at any point of a"
            " move; every attack on one hex is declared and resolved at once and the defender"
            " rolls the effects."
        ),
    ),
    PhaseSpec(
        kind="rest",
        name="Rest and refit",
        acting_side="all",
        ended_by="gm",
        description=(
            "Each force that spent the turn at rest removes one Fatigue; Spent forces at a"
            " Camp, Baggage Train or Village refit."
        ),
    ),
)

SCHEMA = (
    FieldSpec(name="kind", kind="choice", choices=tuple(k.value for k in Kind),
              description="Leader, Hero (single figures) or a Unit: foot, missile, scout, mounted"),
    FieldSpec(name="figures", kind="int", minimum=1, maximum=6,
              description="Figures: 1 for Leader and Hero, up to 6 (Scout 4); default full"),
)


class ElfAbas:
    """ELF ABAS, the Epping/Lee/Fremont "Anything But A Six" rules (seed 000)."""

    @property
    def key(self) -> str:
        return "elf_abas"

    @property
    def name(self) -> str:
        return "ELF ABAS"

    def unit_schema(self) -> tuple[FieldSpec, ...]:
        return SCHEMA

    def validate_unit_type(self, data: JSONObject) -> list[str]:
        try:
            kind, figures = units.unit_type_from_dict(data)
        except ValueError as exc:
            return [str(exc)]
        return units.unit_errors(kind, figures)

    def unit_cost(self, data: JSONObject) -> None:
        """ELF ABAS defines no points: forces are agreed between the players."""
        return None

    def turn_structure(self) -> tuple[PhaseSpec, ...]:
        return TURN

    def movement_cost(
        self, unit: Force, from_hex: Hex, to_hex: Hex, board: Board, *, side: str
    ) -> int | None:
        return _movement_cost(unit, from_hex, to_hex, board, side=side)

    def resolve_combat(self, combat: combats.Attack, *, dice: Dice) -> combats.AttackResult:
        return combats.resolve_attack(combat, dice=dice)

    def calculators(self) -> Mapping[str, Calculator]:
        from rules.battle import battle_calculators
        from rules.elf_abas.battle import ENGINE

        return {**calculators.CALCULATORS, **battle_calculators(ENGINE)}


ELF_ABAS = ElfAbas()
