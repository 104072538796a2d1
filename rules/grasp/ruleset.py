"""The GRASP ruleset object registered in rules.registry."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from rules.dice import Dice
from rules.grasp import board as boards
from rules.grasp import calculators, units
from rules.grasp import combat as combats
from rules.grasp.terrain import Mover
from rules.hexgrid import Hex
from rules.jsonio import JSONObject
from rules.registry import Calculator, FieldSpec, PhaseSpec

PHASING = "each_player_in_pip_order"
ENDED_BY = "phasing_player"

TURN = (
    PhaseSpec(kind="resupply", name="1. Resupply", acting_side=PHASING, ended_by=ENDED_BY,
              description="Units in contact with supply units are resupplied; supply units"
                          " lose the fatigue dice they give."),
    PhaseSpec(kind="flee", name="2. Fleeing units", acting_side=PHASING, ended_by=ENDED_BY,
              description="Units that fled last turn move."),
    PhaseSpec(kind="low_tech_moves", name="3. Low-tech command moves", acting_side=PHASING,
              ended_by=ENDED_BY,
              description="Units under low-tech command move towards their command marker."),
    PhaseSpec(kind="pips", name="4. Pips and commands", acting_side="all", ended_by=ENDED_BY,
              description="All roll pip dice together (the highest scorer phases first);"
                          " the weather on maximum pips (setting); command markers placed;"
                          " high-tech command and signals-warfare moves; pips reserved."),
    PhaseSpec(kind="ambush", name="5. Ambushes", acting_side=PHASING, ended_by=ENDED_BY,
              description="Triggered ambushes (mines included) may fire."),
    PhaseSpec(kind="ambush_moves", name="6. Ambusher moves", acting_side=PHASING,
              ended_by=ENDED_BY,
              description="Ambushers move with reserved pips; smoke not on destroyed units"
                          " is removed."),
    PhaseSpec(kind="fire", name="7. Fire", acting_side=PHASING, ended_by=ENDED_BY,
              description="Other units fire; losing targets and units rolling their maximum"
                          " damage lose fatigue."),
    PhaseSpec(kind="close_combat", name="8. Close combat", acting_side=PHASING,
              ended_by=ENDED_BY,
              description="Close combat (reserved pips may add 1); losers lose fatigue;"
                          " engineering."),
)

_DIE = "die: d4, d6, d8, d10, d12, d20, d100; >2dN best of two (+Tech), <2dN worst of two"

SCHEMA = (
    FieldSpec(name="fatigue", kind="die", description="Fatigue die (plain level, e.g. d8)"),
    FieldSpec(name="cc", kind="die", description=f"Close combat {_DIE}"),
    FieldSpec(name="fs", kind="die", description=f"Fire strength {_DIE}"),
    FieldSpec(name="fire_range", kind="die_or_int", minimum=0,
              description="Fire range: a die or MU"),
    FieldSpec(name="fire", kind="choice", choices=("direct", "indirect"),
              description="Direct (1 point per MU of range) or indirect (2 per MU)"),
    FieldSpec(name="move", kind="die_or_int", minimum=0, description="Move: a die or MU"),
    FieldSpec(name="pips", kind="die", description="Command pip die (command units)"),
    FieldSpec(name="pips_high_tech", kind="bool", description="Pip die at 10 × instead of 5 ×"),
    FieldSpec(name="command_range", kind="int", minimum=0, description="Command span in MU"),
    FieldSpec(name="command_high_tech", kind="bool",
              description="Command span at 2 points per MU"),
    FieldSpec(name="specials", kind="list", choices=tuple(s.value for s in units.Special),
              description="Specials and traits"),
)


class Grasp:
    """GRASP, Generic Rules for All Scales and Periods (docs/rules/grasp.md)."""

    @property
    def key(self) -> str:
        return "grasp"

    @property
    def name(self) -> str:
        return "GRASP"

    def unit_schema(self) -> tuple[FieldSpec, ...]:
        return SCHEMA

    def validate_unit_type(self, data: JSONObject) -> list[str]:
        try:
            unit = units.unit_type_from_dict(data)
        except ValueError as exc:
            return [str(exc)]
        return units.validate_unit_type(unit)

    def unit_cost(self, data: JSONObject) -> Fraction:
        return Fraction(units.unit_cost(units.unit_type_from_dict(data)).total)

    def turn_structure(self) -> tuple[PhaseSpec, ...]:
        return TURN

    def movement_cost(
        self, unit: Mover, from_hex: Hex, to_hex: Hex, board: boards.Board, *, side: object
    ) -> int | None:
        return boards.movement_cost(unit, from_hex, to_hex, board)

    def resolve_combat(
        self, combat: combats.CloseCombat | combats.Fire, *, dice: Dice
    ) -> combats.CombatResult:
        if isinstance(combat, combats.Fire):
            return combats.resolve_fire(combat, dice=dice)
        return combats.resolve_close_combat(combat, dice=dice)

    def calculators(self) -> Mapping[str, Calculator]:
        from rules.battle import battle_calculators
        from rules.grasp.battle import ENGINE

        return {**calculators.CALCULATORS, **battle_calculators(ENGINE)}


GRASP = Grasp()
