"""GRASP's JSON calculators (`python -m rules grasp …`)."""

from __future__ import annotations

import re
from fractions import Fraction

from rules import dice
from rules.grasp import combat as combats
from rules.grasp import fatigue as fatigues
from rules.grasp import terrain as terrains
from rules.grasp import units
from rules.grasp.dielevels import (
    GraspError,
    die_price,
    format_level,
    round_odd,
    step_down,
    step_up,
)
from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    child,
    get_bool,
    get_choice,
    get_int,
    get_list,
    get_str,
    only_fields,
)
from rules.registry import Calculator

DICE_FIELDS = ("rolls", "seed")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$|^-?\d+/\d+$")


# -----------------------------------------------------------------------------------------------
# Dice in, dice out


def _dice(data: JSONObject) -> tuple[dice.Dice, str | None]:
    if data.get("rolls") is not None and data.get("seed") is not None:
        raise InputError("seed", "give either rolls or a seed, not both.")
    if data.get("rolls") is not None:
        values = []
        for i, raw in enumerate(get_list(data, "rolls")):
            if isinstance(raw, bool) or not isinstance(raw, int):
                raise InputError(child("rolls", i), "must be a whole number.")
            values.append(raw)
        return dice.FixedDice(values), None
    seed = data.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise InputError("seed", "must be a string.")
    used = seed if seed else dice.new_seed()
    return dice.SeededDice(seed=used), used


def _with_dice(result: dict[str, object], source: dice.Dice, seed: str | None
               ) -> dict[str, object]:
    if isinstance(source, dice.FixedDice) and source.remaining:
        raise InputError("rolls", f"{source.remaining} given value(s) were not needed; the dice"
                                  " used are listed in order in the documentation.")
    rolls = source.rolls
    result["dice"] = dice.roll_records(rolls)
    if seed is not None and rolls:
        # The caller's own seed (or a fresh one): printing it makes the result replayable.
        result["seed"] = seed
        result["commitment"] = dice.commitment(seed)
    return result


def _fraction(obj: JSONObject, name: str, path: str = "") -> Fraction:
    value = obj.get(name)
    where = child(path, name)
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return Fraction(value.strip())
    if value is None:
        raise InputError(where, "is required.")
    raise InputError(where, 'must be a whole number or an exact number as a string ("7/2",'
                            ' "3.5").')


# -----------------------------------------------------------------------------------------------
# Units and dice


def cost(data: JSONObject) -> dict[str, object]:
    """A unit type → its points cost line by line, validity and the design rules broken."""
    unit = units.unit_type_from_dict(data)
    errors = units.validate_unit_type(unit)
    if errors:
        return {"cost": None, "items": [], "valid": False, "errors": errors}
    result = units.unit_cost(unit)
    return {"cost": result.total, "items": [i.to_dict() for i in result.items], "valid": True,
            "errors": []}


def die(data: JSONObject) -> dict[str, object]:
    """A die ("d6", ">2d6", "<2d6") → its price, ladder step and the dice one level down/up."""
    only_fields(data, {"die"}, "")
    spec = units.die_field(data, "die", required=True)
    assert spec is not None  # noqa: S101
    try:
        price: int | None = die_price(spec)
    except GraspError:
        price = None
    return {
        "die": spec.label, "level": spec.level.label, "tech": spec.tech.value,
        "step": spec.level.step, "price": price,
        "one_level_down": format_level(step_down(spec.level)),
        "one_level_up": None if spec.level == spec.level.D100 else step_up(spec.level).label,
    }


def round_value(data: JSONObject) -> dict[str, object]:
    """{"value": "7/2"} → the value rounded to the nearest odd value (3.5 → 3, 0.5 → 1)."""
    only_fields(data, {"value"}, "")
    value = _fraction(data, "value")
    return {"value": str(value), "rounded": round_odd(value)}


# -----------------------------------------------------------------------------------------------
# Fatigue, supply, carriers


def _prefer(obj: JSONObject, path: str) -> tuple[fatigues.Attribute, ...]:
    raw = obj.get("prefer")
    if raw is None:
        return (fatigues.Attribute.CC, fatigues.Attribute.FS, fatigues.Attribute.MV)
    out = []
    for i, item in enumerate(get_list(obj, "prefer", path)):
        if item not in [a.value for a in fatigues.Attribute]:
            raise InputError(child(child(path, "prefer"), i), "must be cc, fs or mv.")
        out.append(fatigues.Attribute(str(item)))
    return tuple(out)


def fatigue(data: JSONObject) -> dict[str, object]:
    """Negative results on a unit: fatigue steps down; below d4 a d4 check (1 surrenders)."""
    only_fields(data, {"name", "fatigue", "losses", "cc", "fs", "mv", "prefer", "assault",
                       *DICE_FIELDS}, "")
    source, seed = _dice(data)
    outcome = fatigues.take_losses(
        name=get_str(data, "name", default="unit"),
        fatigue=units.level_field(data, "fatigue", allow_none=True),
        steps=get_int(data, "losses", default=1, minimum=0, maximum=20),
        dice=source,
        attributes=fatigues.Attributes(cc=units.die_field(data, "cc"),
                                       fs=units.die_field(data, "fs"),
                                       mv=units.die_field(data, "mv")),
        prefer=_prefer(data, ""),
        never_surrenders=get_bool(data, "assault"),
    )
    attrs = outcome.attributes
    result: dict[str, object] = {
        "fatigue_before": format_level(outcome.fatigue_before),
        "fatigue_after": format_level(outcome.fatigue_after),
        "surrendered": outcome.surrendered,
        "attributes": {a.value: (s.label if s else None)
                       for a in fatigues.Attribute for s in [attrs.get(a)]},
        "explanation": list(outcome.events),
    }
    return _with_dice(result, source, seed)


def supply(data: JSONObject) -> dict[str, object]:
    """One turn of resupply: fatigue dice from a supply unit to the units in contact with it."""
    only_fields(data, {"supplier", "recipients"}, "")
    raw = as_object(data.get("supplier"), "supplier")
    only_fields(raw, {"name", "fatigue", "moving"}, "supplier")
    recipients = []
    for i, item in enumerate(get_list(data, "recipients")):
        path = child("recipients", i)
        obj = as_object(item, path)
        only_fields(obj, {"name", "fatigue", "full", "moving", "wants"}, path)
        wants = obj.get("wants")
        recipients.append(fatigues.SupplyRecipient(
            name=get_str(obj, "name", path, default=f"unit {i + 1}"),
            fatigue=units.level_field(obj, "fatigue", path, allow_none=True),
            full=units.level_field(obj, "full", path) if obj.get("full") is not None else None,
            moving=get_bool(obj, "moving", path),
            wants=None if wants is None else get_int(obj, "wants", path, minimum=0),
        ))
    result = fatigues.resupply(
        supplier=units.level_field(raw, "fatigue", "supplier", allow_none=True),
        recipients=recipients, supplier_moving=get_bool(raw, "moving", "supplier"),
    )
    return result.to_dict()


def carrier(data: JSONObject) -> dict[str, object]:
    """A carrier's capacity in fatigue levels against its cargo, and the base-area limit."""
    only_fields(data, {"fatigue", "base_area", "cargo"}, "")
    cargo = []
    for i, item in enumerate(get_list(data, "cargo")):
        path = child("cargo", i)
        obj = as_object(item, path)
        only_fields(obj, {"name", "fatigue", "base_area"}, path)
        cargo.append(fatigues.Cargo(
            name=get_str(obj, "name", path, default=f"unit {i + 1}"),
            fatigue=units.level_field(obj, "fatigue", path, allow_none=True),
            base_area=_fraction(obj, "base_area", path),
        ))
    return fatigues.carrier_load(
        fatigue=units.level_field(data, "fatigue", allow_none=True),
        base_area=_fraction(data, "base_area"), cargo=cargo,
    ).to_dict()


# -----------------------------------------------------------------------------------------------
# Combat


FIGHTER_FIELDS = ("name", "fatigue", "order", "size", "draw_is_loss", "moves", "assault",
                  "engineer", "ignore_recoil", "large", "tunneller", "level", "armour", "cc",
                  "fs", "mv", "prefer", "terrain", "mines")


def _fighter(obj: JSONObject, path: str, *, die_name: str, extra: tuple[str, ...] = ()
             ) -> combats.Fighter:
    only_fields(obj, (*FIGHTER_FIELDS, *extra), path)
    die_spec = units.die_field(obj, die_name, path, required=True)
    assert die_spec is not None  # noqa: S101
    terrain_name = obj.get("terrain")
    terrain = None
    if terrain_name is not None:
        terrain = terrains.TerrainClass[
            get_choice(obj, "terrain", terrains.CLASS_NAMES, path).upper()]
    mines = None
    if obj.get("mines") is not None:
        mines = _mines(as_object(obj.get("mines"), child(path, "mines")), child(path, "mines"))
    armour = get_choice(obj, "armour", ["normal", "superior", "inferior"], path,
                        default="normal")
    try:
        return combats.Fighter(
            name=get_str(obj, "name", path, default=path),
            die=die_spec,
            fatigue=(None if terrain is not None and obj.get("fatigue") is None
                     else units.level_field(obj, "fatigue", path, allow_none=True)),
            order=combats.Order(get_choice(obj, "order", [o.value for o in combats.Order], path,
                                           default="loose")),
            size=combats.Size(get_choice(obj, "size", [s.value for s in combats.Size], path,
                                         default="normal")),
            draw_is_loss=get_bool(obj, "draw_is_loss", path),
            moves=get_bool(obj, "moves", path, default=terrain is None),
            assault=get_bool(obj, "assault", path),
            engineer=get_bool(obj, "engineer", path),
            ignore_recoil=get_bool(obj, "ignore_recoil", path),
            large=get_bool(obj, "large", path),
            tunneller=get_bool(obj, "tunneller", path),
            level=combats.Level[get_choice(obj, "level", combats.LEVEL_NAMES, path,
                                           default="surface").upper()],
            armour={"normal": 0, "superior": 1, "inferior": -1}[armour],
            attributes=fatigues.Attributes(
                cc=units.die_field(obj, "cc", path), fs=units.die_field(obj, "fs", path),
                mv=units.die_field(obj, "mv", path)),
            prefer=_prefer(obj, path),
            terrain=terrain,
            mines=mines,
        )
    except GraspError as exc:
        raise InputError(path, str(exc)) from None


def _side(obj: JSONObject, path: str, *, die_name: str, extra: tuple[str, ...] = ()
          ) -> combats.Side:
    unit = _fighter(obj, path, die_name=die_name, extra=(*extra, "supports", "command_pip"))
    supports = tuple(
        _fighter(as_object(item, child(child(path, "supports"), i)),
                 child(child(path, "supports"), i), die_name=die_name)
        for i, item in enumerate(get_list(obj, "supports", path, default=True))
    )
    try:
        return combats.Side(unit=unit, supports=supports,
                            command_pip=get_bool(obj, "command_pip", path))
    except GraspError as exc:
        raise InputError(child(path, "supports"), str(exc)) from None


def close_combat(data: JSONObject) -> dict[str, object]:
    """Close combat between an attacker and a defender (with supports) from rolls or a seed."""
    only_fields(data, {"attacker", "defender", "defender_terrain", *DICE_FIELDS}, "")
    fight = combats.CloseCombat(
        attacker=_side(as_object(data.get("attacker"), "attacker"), "attacker", die_name="cc"),
        defender=_side(as_object(data.get("defender"), "defender"), "defender", die_name="cc"),
        defender_terrain=terrains.TerrainClass[get_choice(
            data, "defender_terrain", terrains.CLASS_NAMES, default="good").upper()],
    )
    source, seed = _dice(data)
    return _with_dice(combats.resolve_close_combat(fight, dice=source).to_dict(), source, seed)


def fire(data: JSONObject) -> dict[str, object]:
    """Fire from a firer (with supporting firers) at a target, from rolls or a seed."""
    only_fields(data, {"firer", "target", "spotted", "line_of_sight", "terrain_level",
                       "target_at_edge", "firer_higher", "range_test_all_levels",
                       *DICE_FIELDS}, "")
    raw_firer = as_object(data.get("firer"), "firer")
    shot = combats.Fire(
        firer=_side(raw_firer, "firer", die_name="fs", extra=("fire_range", "fire")),
        target=_fighter(as_object(data.get("target"), "target"), "target", die_name="cc"),
        fire_range=units.measure_field(raw_firer, "fire_range", "firer"),
        indirect=get_choice(raw_firer, "fire", ["direct", "indirect"], "firer",
                            default="direct") == "indirect",
        spotted=get_bool(data, "spotted", default=True),
        line_of_sight=get_bool(data, "line_of_sight", default=True),
        terrain_level=terrains.TerrainLevel[get_choice(
            data, "terrain_level", terrains.LEVEL_NAMES, default="none").upper()],
        target_at_edge=get_bool(data, "target_at_edge"),
        firer_higher=get_bool(data, "firer_higher"),
        range_test_all_levels=get_bool(data, "range_test_all_levels"),
    )
    source, seed = _dice(data)
    return _with_dice(combats.resolve_fire(shot, dice=source).to_dict(), source, seed)


# -----------------------------------------------------------------------------------------------
# Terrain, movement, engineers, mines


def _class(obj: JSONObject, name: str, path: str = "", default: str | None = None
           ) -> terrains.TerrainClass:
    return terrains.TerrainClass[
        get_choice(obj, name, terrains.CLASS_NAMES, path, default=default).upper()]


def _mines(obj: JSONObject, path: str) -> terrains.Mines:
    only_fields(obj, {"going", "cc"}, path)
    return terrains.Mines(going=_class(obj, "going", path), cc=units.die_field(obj, "cc", path))


def terrain(data: JSONObject) -> dict[str, object]:
    """Roll a terrain piece's going (d10: 1–4 good, 5–7 light, 8–9 difficult, 10 impassable) and
    level (d6: 1–3 low, 4–5 medium, 6 high)."""
    only_fields(data, DICE_FIELDS, "")
    source, seed = _dice(data)
    try:
        rolled = terrains.roll_terrain(source)
    except dice.DiceError as exc:
        raise InputError("rolls", str(exc)) from None
    return _with_dice({"going": rolled.terrain.label, "level": rolled.level.label},
                      source, seed)


MOVER_FIELDS = ("small", "big", "agile", "flyer", "tunneller")


def move(data: JSONObject) -> dict[str, object]:
    """How far a unit moves through one kind of going, rolled when its move is a die."""
    only_fields(data, {"move", "going", "mover", "unpreferred", "level_change", "zero_fatigue",
                       *DICE_FIELDS}, "")
    measure = units.measure_field(data, "move")
    if measure is None:
        raise InputError("move", "is required.")
    raw = as_object(data.get("mover", {}), "mover")
    only_fields(raw, MOVER_FIELDS, "mover")
    mover = terrains.Mover(**{name: get_bool(raw, name, "mover") for name in MOVER_FIELDS})
    if mover.small and mover.big:
        raise InputError("mover", "a unit cannot be both big and small.")
    source, seed = _dice(data)
    result = terrains.move_distance(
        move=measure, terrain=_class(data, "going", default="good"), mover=mover, dice=source,
        unpreferred=get_bool(data, "unpreferred"),
        level_change=terrains.LevelChange(get_choice(
            data, "level_change", [c.value for c in terrains.LevelChange], default="none")),
        zero_fatigue=get_bool(data, "zero_fatigue"),
    )
    return _with_dice(result.to_dict(), source, seed)


def engineer(data: JSONObject) -> dict[str, object]:
    """Turns, pips and fatigue an engineer spends to change terrain 1 MU square at a time."""
    only_fields(data, {"from", "to", "from_level", "to_level", "width", "fatigue"}, "")
    width = _fraction(data, "width") if data.get("width") is not None else Fraction(1)
    try:
        plan = terrains.engineering_plan(
            from_class=_class(data, "from"), to_class=_class(data, "to"), width=width,
            fatigue=units.level_field(data, "fatigue", allow_none=True, default="none"),
            from_level=terrains.TerrainLevel[get_choice(
                data, "from_level", terrains.LEVEL_NAMES, default="none").upper()],
            to_level=terrains.TerrainLevel[get_choice(
                data, "to_level", terrains.LEVEL_NAMES, default="none").upper()],
        )
    except GraspError as exc:
        raise InputError("width" if "across" in str(exc) else "to_level", str(exc)) from None
    return plan.to_dict()


def mines(data: JSONObject) -> dict[str, object]:
    """Mines degraded by engineers, or laid on terrain that is beaten (lost or doubled)."""
    only_fields(data, {"mines", "steps", "terrain", "terrain_result"}, "")
    field = _mines(as_object(data.get("mines"), "mines"), "mines")
    if data.get("terrain") is not None:
        if data.get("steps") is not None:
            raise InputError("steps", "give steps (engineers) or terrain (terrain beaten), not"
                                      " both.")
        result = get_choice(data, "terrain_result", ["lost", "doubled"])
        beaten = terrains.defeat_terrain(_class(data, "terrain"), doubled=result == "doubled",
                                         mines=field)
        assert beaten.mines_after is not None  # noqa: S101
        return {"terrain_after": beaten.after.label, "mines_after": beaten.mines_after.to_dict(),
                "explanation": beaten.explanation}
    steps = get_int(data, "steps", default=1, minimum=0, maximum=3)
    after = terrains.degrade_mines(field, steps)
    return {"mines_after": after.to_dict(),
            "explanation": f"mines degraded {steps} class(es): {field.going.label} "
                           f"({field.cc.label if field.cc else 'no CC'}) → {after.going.label}"
                           f" ({after.cc.label if after.cc else 'cleared'})"}


CALCULATORS: dict[str, Calculator] = {
    "cost": cost,
    "die": die,
    "round": round_value,
    "fatigue": fatigue,
    "supply": supply,
    "carrier": carrier,
    "close_combat": close_combat,
    "fire": fire,
    "terrain": terrain,
    "move": move,
    "engineer": engineer,
    "mines": mines,
}
