"""Erfworld's JSON calculators: cost, combat, odds, path (`python -m rules erfworld …`)."""

from __future__ import annotations

from rules import dice, hexgrid
from rules.erfworld import board as boards
from rules.erfworld import combat as combats
from rules.erfworld import movement, odds, units
from rules.erfworld.types import SideKind, UnitStats
from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    get_choice,
    get_int,
    get_str,
    only_fields,
)
from rules.registry import Calculator

# The largest map a campaign may have (100 × 100 hexes): the calculators take no larger one.
MAX_MAP_SIDE = 100


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


def combat(data: JSONObject) -> dict[str, object]:
    """One combat resolved with the given rolls (or dice from "seed"), with every factor."""
    fight = combats.combat_from_dict(data)
    seed = data.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise InputError("seed", "must be a string.")
    needs_dice = fight.attacker.roll is None or fight.defender.roll is None or fight.protectors
    used_seed = seed if seed is not None else (dice.new_seed() if needs_dice else None)
    source: dice.Dice = (
        dice.SeededDice(seed=used_seed) if used_seed is not None else dice.FixedDice([])
    )
    result = combats.resolve_combat(fight, dice=source).to_dict()
    if used_seed is not None:
        # The seed is the caller's own (or a fresh one): printing it makes the result replayable.
        result["seed"] = used_seed
        result["commitment"] = dice.commitment(used_seed)
        result["dice"] = dice.roll_records(source.rolls)
    return result


def combat_odds(data: JSONObject) -> dict[str, object]:
    """The exact odds of a combat: hit distributions, each unit croaked, expected hits."""
    if "seed" in data:
        raise InputError("seed", "odds enumerate every roll; a seed is not used here.")
    return odds.combat_odds(combats.combat_from_dict(data)).to_dict()


def _label(obj: JSONObject, name: str) -> hexgrid.Hex:
    try:
        return hexgrid.parse_label(get_str(obj, name))
    except hexgrid.HexLabelError as exc:
        raise InputError(name, str(exc)) from None


def _str_map(obj: JSONObject, name: str, path: str) -> dict[str, object]:
    value = obj.get(name)
    if value is None:
        return {}
    return dict(as_object(value, f"{path}.{name}"))


def path(data: JSONObject) -> dict[str, object]:
    """{"map", "unit", "from", "to"} → the cheapest legal move: reachable, cost, path."""
    only_fields(data, {"map", "unit", "from", "to", "side"}, "")
    raw_map = as_object(data.get("map"), "map")
    only_fields(raw_map, {"cols", "rows", "terrain", "towers", "walls", "fort_owners", "stacks"},
                "map")
    raw_unit = as_object(data.get("unit"), "unit")
    only_fields(raw_unit, {"move", "specials"}, "unit")
    move = get_int(raw_unit, "move", "unit", minimum=0, maximum=units.MAX_MOVE)
    specials = units.parse_specials(raw_unit.get("specials", []), field="unit.specials")
    side = SideKind(get_choice(data, "side", [s.value for s in SideKind], default="alliance"))
    try:
        towers = {
            label: (get_int(as_object(t, f"map.towers.{label}"), "hits", f"map.towers.{label}",
                            minimum=0),
                    get_str(as_object(t, f"map.towers.{label}"), "owner", f"map.towers.{label}"))
            for label, t in _str_map(raw_map, "towers", "map").items()
        }
        board = boards.board_from_labels(
            cols=get_int(raw_map, "cols", "map", minimum=1, maximum=MAX_MAP_SIDE),
            rows=get_int(raw_map, "rows", "map", minimum=1, maximum=MAX_MAP_SIDE),
            terrain={k: str(v) for k, v in _str_map(raw_map, "terrain", "map").items()},
            towers=towers,
            walls={k: {d: get_int(as_object(v, f"map.walls.{k}"), d, f"map.walls.{k}", minimum=0)
                       for d in as_object(v, f"map.walls.{k}")}
                   for k, v in _str_map(raw_map, "walls", "map").items()},
            fort_owners={k: str(v) for k, v in _str_map(raw_map, "fort_owners", "map").items()},
            stacks={k: [str(x) for x in v] if isinstance(v, list) else [str(v)]
                    for k, v in _str_map(raw_map, "stacks", "map").items()},
        )
    except boards.BoardError as exc:
        raise InputError("map", str(exc)) from None
    start, goal = _label(data, "from"), _label(data, "to")
    for name, h in (("from", start), ("to", goal)):
        if not board.grid.contains(h):
            raise InputError(name, f"{hexgrid.format_label(h)} is not on the map.")
    # Only movement matters here: hits and combat stats do not change any cost.
    stats = UnitStats(hits=1, attack=0, defence=0, move=move, specials=specials)
    stack = movement.MovingStack(
        side=side, hex=start, members=(movement.StackMember(name="unit", stats=stats),)
    )
    try:
        move_ = movement.stack_path(stack=stack, board=board, goal=goal)
    except movement.MovementError as exc:
        return {"reachable": False, "cost": None, "path": [], "reason": str(exc)}
    return {
        "reachable": True,
        "cost": move_.cost,
        "path": [hexgrid.format_label(h) for h in move_.hexes],
        "all_on_road": move_.all_on_road,
    }


CALCULATORS: dict[str, Calculator] = {
    "cost": cost,
    "combat": combat,
    "odds": combat_odds,
    "path": path,
}
