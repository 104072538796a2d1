"""The QUAD ruleset object registered in rules.registry."""

from __future__ import annotations

from collections.abc import Mapping

from rules.dice import Dice
from rules.hexgrid import Hex
from rules.jsonio import JSONObject
from rules.quad import calculators, terrain
from rules.quad import combat as combats
from rules.quad.units import Special, UnitType, unit_type_from_dict
from rules.registry import Calculator, FieldSpec, PhaseSpec

TURN = (
    PhaseSpec(
        kind="draw",
        name="Draw",
        acting_side="all",
        ended_by="all_players",
        description=(
            "Every player may draw one card; an empty draw pile is refilled by shuffling the"
            " discard pile."
        ),
    ),
    PhaseSpec(
        kind="activation",
        name="Activations",
        acting_side="active_player",
        ended_by="all_players_release",
        description=(
            "The active player plays unit cards one at a time (each activates its unit) until"
            " they release the activation (drawing two cards if they played none), run out of"
            " cards, or another player steals it with a tactics card. The turn ends when every"
            " player in a row has released without playing."
        ),
    ),
)

SCHEMA = (
    FieldSpec(name="name", kind="str", description="The unit's name (its activation cards)"),
    FieldSpec(name="quality", kind="int", minimum=1, maximum=5, description="Quality Q, 1–5"),
    FieldSpec(name="speed", kind="int", minimum=0, description="Unit Speed in hexes (typ. 1–3)"),
    FieldSpec(name="attack", kind="int", minimum=0, description="Attack A: d6 rolled to attack"),
    FieldSpec(name="defense", kind="int", minimum=0, description="Defense D: d6 rolled to block"),
    FieldSpec(name="specials", kind="list", choices=tuple(s.value for s in Special),
              description="Special rules"),
    FieldSpec(name="ranged", kind="str",
              description='Ranged "#1/#2": attack #1 at up to #2 hexes (optional)'),
)


class Quad:
    """QUAD, four-stat operational hex rules (docs/rules/quad.md)."""

    @property
    def key(self) -> str:
        return "quad"

    @property
    def name(self) -> str:
        return "QUAD"

    def unit_schema(self) -> tuple[FieldSpec, ...]:
        return SCHEMA

    def validate_unit_type(self, data: JSONObject) -> list[str]:
        try:
            unit_type_from_dict(data)
        except ValueError as exc:
            return [str(exc)]
        return []

    def unit_cost(self, data: JSONObject) -> None:
        """QUAD defines no points costs."""
        return None

    def turn_structure(self) -> tuple[PhaseSpec, ...]:
        return TURN

    def movement_cost(
        self, unit: UnitType, from_hex: Hex, to_hex: Hex, board: terrain.Board, *, side: object
    ) -> int | None:
        return terrain.movement_cost(unit, from_hex, to_hex, board)

    def resolve_combat(self, combat: combats.Combat, *, dice: Dice) -> combats.CombatResult:
        return combats.resolve_combat(combat, dice=dice)

    def calculators(self) -> Mapping[str, Calculator]:
        from rules.battle import battle_calculators
        from rules.quad.battle import ENGINE

        return {**calculators.CALCULATORS, **battle_calculators(ENGINE)}


QUAD = Quad()
