"""The Ancient Foes 2 ruleset object registered in rules.registry."""

from __future__ import annotations

from collections.abc import Mapping

from rules.ancient_foes import calculators, combat, movement
from rules.ancient_foes.battlefield import Battlefield
from rules.ancient_foes.units import (
    TYPE_FIELDS,
    Armour,
    Experience,
    Mount,
    UnitType,
    Weapon,
    read_unit_type,
)
from rules.dice import Dice
from rules.hexgrid import Hex
from rules.jsonio import InputError, JSONObject, only_fields
from rules.registry import Calculator, FieldSpec, PhaseSpec

# One round: each player in turn (who goes first is rolled on a D6 at the start, see `start`).
_PLAYER_TURN = (
    ("move_leaders", "Moving leaders",
     "Leaders move (up to their movement, any direction) to gain command range or to flee."),
    ("orders", "Giving orders",
     "Each leader gives up to two orders to bands with a unit within 20 cm; the second on 3+."),
    ("initiative", "Taking initiative",
     "Bands out of command range or idle for two turns must fight, fall back, fire or close gaps."),
)

TURN = tuple(
    PhaseSpec(kind=f"{player}_{kind}", name=f"{title} ({player.replace('_', ' ')})",
              acting_side=player, ended_by=player, description=description)
    for player in ("first_player", "second_player")
    for kind, title, description in _PLAYER_TURN
)

SCHEMA = (
    FieldSpec(name="armour", kind="choice", choices=tuple(a.value for a in Armour),
              description="Armour: H heavy, M medium, L light"),
    FieldSpec(name="weapon", kind="choice", choices=tuple(w.value for w in Weapon),
              description="Weapon: Sw, Ax, Sp, Ha, Tu hand-to-hand; Ja, Sl, Bo, Cb, Ar missile"),
    FieldSpec(name="mount", kind="choice", choices=tuple(m.value for m in Mount),
              description="Mount: Ho horse/camel, El elephant, Ch chariot, Fo foot, Ar artillery,"
                          " Ta tamed beast/hound"),
    FieldSpec(name="experience", kind="choice", choices=tuple(e.value for e in Experience),
              description="Ix inexperienced, experienced (default), Ex elite"),
    FieldSpec(name="leader", kind="bool", description="A leader (alone in his band)"),
)


class AncientFoes:
    """Ancient Foes 2, fast-play 15mm ancients (docs/rules/ancient_foes.md)."""

    @property
    def key(self) -> str:
        return "ancient_foes"

    @property
    def name(self) -> str:
        return "Ancient Foes 2"

    def unit_schema(self) -> tuple[FieldSpec, ...]:
        return SCHEMA

    def _unit_type(self, data: JSONObject) -> UnitType:
        only_fields(data, TYPE_FIELDS, "")
        return read_unit_type(data, "")

    def validate_unit_type(self, data: JSONObject) -> list[str]:
        try:
            self._unit_type(data)
        except InputError as exc:
            return [str(exc)]
        return []

    def unit_cost(self, data: JSONObject) -> None:
        """Ancient Foes 2 has no points: armies are limited by bands and leaders only."""
        self._unit_type(data)
        return None

    def turn_structure(self) -> tuple[PhaseSpec, ...]:
        return TURN

    def movement_cost(
        self, unit: UnitType, from_hex: Hex, to_hex: Hex, board: Battlefield, *, side: object
    ) -> int | None:
        return movement.movement_cost(unit, from_hex, to_hex, board, side=side)

    def resolve_combat(
        self, combat_: combat.FireOrder | combat.FightOrder, *, dice: Dice
    ) -> combat.OrderResult:
        return combat.resolve(combat_, dice=dice)

    def calculators(self) -> Mapping[str, Calculator]:
        from rules.ancient_foes.battle import ENGINE
        from rules.battle import battle_calculators

        return {**calculators.CALCULATORS, **battle_calculators(ENGINE)}


ANCIENT_FOES = AncientFoes()
