"""GRASP unit types: attributes as die levels, design checks and the points cost."""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass, field

from rules.grasp.dielevels import DieLevel, DieSpec, GraspError, die_price, parse_die
from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    get_bool,
    get_choice,
    get_int,
    get_list,
    get_str,
    only_fields,
)

LOW_TECH_PIP_MULTIPLIER = 5
HIGH_TECH_PIP_MULTIPLIER = 10
LOW_TECH_SPAN_COST = 1
HIGH_TECH_SPAN_COST = 2
DIRECT_RANGE_COST = 1
INDIRECT_RANGE_COST = 2
FATIGUE_DOUBLERS_COST = 2
SMOKE_COST = 5
FIRES_COST = 10


class Special(enum.StrEnum):
    """Unit specials and traits that the implemented rules use."""

    CARRIER = "carrier"
    SUPPLY = "supply"
    ENGINEER = "engineer"
    SMOKE = "smoke"
    FIRES = "fires"
    HORDE = "horde"
    BIG = "big"
    SMALL = "small"
    AGILE = "agile"  # also turns up to 180° a move
    CLUMSY = "clumsy"  # turns up to 45° a move (others 90°)
    VEHICLE = "vehicle"  # may ram; its wreck stays when destroyed
    FLYER = "flyer"
    TUNNELLER = "tunneller"
    SCOUT = "scout"
    SKIRMISHER = "skirmisher"
    ASSAULT = "assault"
    ALL_ROUND = "all_round"  # all-round fire (ARF): one die less from any second arc
    AREA_FIRE = "area_fire"  # (SF) affects every unit within 1 MU of the target
    CONTINUOUS_FIRE = "continuous_fire"  # (CF) affects every unit on the line of fire
    IMPETUOUS = "impetuous"  # a free 1 MU move to contact a recoiling or fleeing enemy
    TELEPORT = "teleport"  # jumps to its marker, not within 3 MU of an enemy, every other turn
    ELITE = "elite"  # may add 1 to a roll with a reserved pip, before it is rolled
    GREEN = "green"  # a draw is a loss; its orders cost twice the pips
    AMBUSH = "ambush"  # map-marked in terrain; a free activation when an enemy comes in reach
    DENIZEN = "denizen"  # lives in light or difficult terrain; removed if forced out of it
    # The combat type whose name the source's table lost (the name is ours): destroyed by any
    # draw or loss, a win costs its enemy a fatigue die more; 2 pips for its first order, then
    # its orders are free.
    BERSERK = "berserk"
    SWIMMER = "swimmer"  # goes below the surface (a submarine), as a tunneller does


# The specials whose Fatigue is bought at double price ("X2 Fat").
DOUBLE_FATIGUE = (Special.CARRIER, Special.SUPPLY, Special.ENGINEER)


class FireKind(enum.StrEnum):
    DIRECT = "direct"
    INDIRECT = "indirect"


# A range or move: a die rolled each time, or a fixed number of MU.
Measure = DieSpec | int


def format_measure(value: Measure | None) -> str | int | None:
    if isinstance(value, DieSpec):
        return value.label
    return value


@dataclass(frozen=True, kw_only=True)
class UnitType:
    """A GRASP unit design. None means the unit lacks that attribute (it cannot fire, move …)."""

    fatigue: DieLevel
    cc: DieSpec | None = None
    fs: DieSpec | None = None
    fire_range: Measure | None = None
    fire: FireKind = FireKind.DIRECT
    move: Measure | None = None
    pips: DieSpec | None = None
    pips_high_tech: bool = False
    command_range: int = 0
    command_high_tech: bool = False
    specials: frozenset[Special] = field(default_factory=frozenset)

    def has(self, special: Special) -> bool:
        return special in self.specials


@dataclass(frozen=True, kw_only=True)
class CostItem:
    """One line of a cost: what is bought, its points and how they were worked out."""

    item: str
    points: int
    working: str

    def to_dict(self) -> dict[str, object]:
        return {"item": self.item, "points": self.points, "working": self.working}


@dataclass(frozen=True, kw_only=True)
class Cost:
    total: int
    items: tuple[CostItem, ...]

    def to_dict(self) -> dict[str, object]:
        return {"total": self.total, "items": [i.to_dict() for i in self.items]}


def _die_item(name: str, spec: DieSpec, multiplier: int, why: str) -> CostItem:
    price = die_price(spec)
    points = price * multiplier
    tech = {"normal": "", "plus": " (+Tech: priced as the next higher die)",
            "minus": " (−Tech: priced as the next lower die)"}[spec.tech.value]
    times = f" × {multiplier} {why}" if multiplier != 1 else ""
    return CostItem(item=name, points=points, working=f"{spec.label}: {price}{tech}{times}")


def _measure_item(name: str, value: Measure, multiplier: int, why: str) -> CostItem:
    if isinstance(value, DieSpec):
        return _die_item(name, value, multiplier, why)
    times = f" × {multiplier} {why}" if multiplier != 1 else ""
    return CostItem(item=name, points=value * multiplier, working=f"{value} MU{times}")


def unit_cost(unit: UnitType) -> Cost:
    """The points cost: 1 × maximum die score for CC, FS and Fatigue; 1 per MU of move and direct
    fire range (2 indirect); 5 × the pip die (10 high tech); 1 per MU of command span (2 high
    tech); Fatigue doubled by each of carrier, supply, engineer; smoke +5, fires +10."""
    items: list[CostItem] = []
    if unit.cc is not None:
        items.append(_die_item("close combat", unit.cc, 1, ""))
    if unit.fs is not None:
        items.append(_die_item("fire strength", unit.fs, 1, ""))
    if unit.fire_range is not None:
        mult = INDIRECT_RANGE_COST if unit.fire == FireKind.INDIRECT else DIRECT_RANGE_COST
        items.append(_measure_item("fire range", unit.fire_range, mult, "(indirect fire)"))
    if unit.move is not None:
        items.append(_measure_item("move", unit.move, 1, ""))
    doublers = [s for s in DOUBLE_FATIGUE if unit.has(s)]
    fatigue_mult = FATIGUE_DOUBLERS_COST ** len(doublers)
    items.append(_die_item("fatigue", DieSpec(level=unit.fatigue), fatigue_mult,
                           f"({', '.join(doublers)}: X2 Fat each)"))
    if unit.pips is not None:
        mult = HIGH_TECH_PIP_MULTIPLIER if unit.pips_high_tech else LOW_TECH_PIP_MULTIPLIER
        items.append(_die_item("command pips", unit.pips, mult,
                               "(high tech)" if unit.pips_high_tech else "(low tech)"))
    if unit.command_range:
        mult = HIGH_TECH_SPAN_COST if unit.command_high_tech else LOW_TECH_SPAN_COST
        items.append(CostItem(
            item="command range", points=unit.command_range * mult,
            working=f"{unit.command_range} MU × {mult} per MU"
            + (" (high tech)" if unit.command_high_tech else ""),
        ))
    if unit.has(Special.SMOKE):
        items.append(CostItem(item="smoke", points=SMOKE_COST, working="may fire smoke"))
    if unit.has(Special.FIRES):
        items.append(CostItem(item="fires", points=FIRES_COST, working="may start fires"))
    return Cost(total=sum(i.points for i in items), items=tuple(items))


def validate_unit_type(unit: UnitType) -> list[str]:
    """The design rules the unit type breaks, as sentences (empty when valid)."""
    errors: list[str] = []
    if unit.has(Special.HORDE) and unit.fatigue != DieLevel.D4:
        errors.append(f"A horde unit has a d4 fatigue die, not {unit.fatigue.label}.")
    if unit.has(Special.BIG) and unit.has(Special.SMALL):
        errors.append("A unit cannot be both big and small.")
    if unit.fs is not None and unit.fire_range is None:
        errors.append("A unit with a fire strength needs a fire range.")
    if unit.fire_range is not None and unit.fs is None:
        errors.append("A unit with a fire range needs a fire strength.")
    if unit.command_high_tech and not unit.command_range:
        errors.append("A high-tech command unit needs a command range (MU of command span).")
    if unit.pips is not None and not unit.command_range:
        errors.append("Only a command unit (one with a command range) rolls a pip die.")
    for name, spec in (("close combat", unit.cc), ("fire strength", unit.fs),
                       ("command pips", unit.pips)):
        if spec is not None:
            try:
                die_price(spec)
            except GraspError as exc:
                errors.append(f"{name}: {exc}")
    for name, measure in (("fire range", unit.fire_range), ("move", unit.move)):
        if isinstance(measure, DieSpec):
            try:
                die_price(measure)
            except GraspError as exc:
                errors.append(f"{name}: {exc}")
    return errors


# -----------------------------------------------------------------------------------------------
# JSON


UNIT_FIELDS = ("cc", "fs", "fire_range", "fire", "move", "fatigue", "pips", "pips_high_tech",
               "command_range", "command_high_tech", "specials")


def die_field(obj: JSONObject, name: str, path: str = "", *, required: bool = False
              ) -> DieSpec | None:
    where = f"{path}.{name}" if path else name
    if obj.get(name) is None:
        if required:
            raise InputError(where, "is required.")
        return None
    try:
        return parse_die(get_str(obj, name, path))
    except GraspError as exc:
        raise InputError(where, str(exc)) from None


def level_field(obj: JSONObject, name: str, path: str = "", *, allow_none: bool = False,
                default: str | None = None) -> DieLevel | None:
    """A plain die level such as a fatigue die: "d8" ("none" for no die left when allowed)."""
    where = f"{path}.{name}" if path else name
    text = get_str(obj, name, path, default=default)
    if text == "none":
        if allow_none:
            return None
        raise InputError(where, "must be a die (d4 … d100), not none.")
    try:
        spec = parse_die(text)
    except GraspError as exc:
        raise InputError(where, str(exc)) from None
    if spec.tech.value != "normal" or spec.average:
        raise InputError(where, "is a plain die level (d4 … d100) without +Tech, −Tech or "
                         "avg.")
    return spec.level


def measure_field(obj: JSONObject, name: str, path: str = "") -> Measure | None:
    where = f"{path}.{name}" if path else name
    value = obj.get(name)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return get_int(obj, name, path, minimum=0)
    if isinstance(value, str):
        return die_field(obj, name, path)
    raise InputError(where, "must be a die such as \"d6\" or a whole number of MU.")


def specials_field(obj: JSONObject, name: str, path: str = "",
                   allowed: Collection[Special] = tuple(Special)) -> frozenset[Special]:
    out: set[Special] = set()
    where = f"{path}.{name}" if path else name
    choices = [s.value for s in allowed]
    for i, raw in enumerate(get_list(obj, name, path, default=True)):
        if not isinstance(raw, str) or raw not in choices:
            raise InputError(f"{where}[{i}]", f"must be one of {', '.join(choices)}.")
        out.add(Special(raw))
    return frozenset(out)


def unit_type_from_dict(data: JSONObject, path: str = "") -> UnitType:
    obj = as_object(data, path)
    only_fields(obj, UNIT_FIELDS, path)
    fatigue = level_field(obj, "fatigue", path)
    assert fatigue is not None  # noqa: S101 - allow_none is False
    return UnitType(
        fatigue=fatigue,
        cc=die_field(obj, "cc", path),
        fs=die_field(obj, "fs", path),
        fire_range=measure_field(obj, "fire_range", path),
        fire=FireKind(get_choice(obj, "fire", [k.value for k in FireKind], path,
                                 default=FireKind.DIRECT.value)),
        move=measure_field(obj, "move", path),
        pips=die_field(obj, "pips", path),
        pips_high_tech=get_bool(obj, "pips_high_tech", path),
        command_range=get_int(obj, "command_range", path, default=0, minimum=0),
        command_high_tech=get_bool(obj, "command_high_tech", path),
        specials=specials_field(obj, "specials", path),
    )
