"""Erfworld's JSON calculators: cost, combat, odds, path (`python -m rules erfworld …`)."""

from __future__ import annotations

from rules.erfworld import units
from rules.jsonio import JSONObject
from rules.registry import Calculator


def cost(data: JSONObject) -> dict[str, object]:
    """{"hits", "attack", "defence", "move", "specials"} → cost, class, validity, errors."""
    stats = units.unit_stats_from_dict(data)
    errors = units.validate_unit_type(stats)
    value = units.unit_cost(stats)
    return {
        "cost": float(value) if value.denominator != 1 else value.numerator,
        "cost_exact": units.format_fraction(value),
        "movement_class": stats.movement_class.value,
        "valid": not errors,
        "errors": errors,
    }


CALCULATORS: dict[str, Calculator] = {
    "cost": cost,
}
