"""Ancient Foes 2 JSON calculators (`python -m rules ancient_foes …`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rules import dice as dicemod
from rules import hexgrid
from rules.ancient_foes import army as armies
from rules.ancient_foes import combat, movement, orders
from rules.ancient_foes.battlefield import (
    DEFAULT_CM_PER_HEX,
    BandError,
    BandUnit,
    Battlefield,
    FieldBand,
    Terrain,
)
from rules.ancient_foes.units import TYPE_FIELDS, UnitType, derive_stats, read_unit_type
from rules.ancient_foes.units import stats_breakdown as breakdown
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

T = TypeVar("T")

MAX_CM_PER_HEX = 1000
DICE_FIELDS = ("rolls", "seed")


# ---------------------------------------------------------------------------
# Reading


def _hex(obj: JSONObject, name: str, path: str) -> hexgrid.Hex:
    try:
        return hexgrid.parse_label(get_str(obj, name, path))
    except hexgrid.HexLabelError as exc:
        raise InputError(child(path, name), str(exc)) from None


def _unit_type(obj: JSONObject, path: str, extra: tuple[str, ...] = ()) -> UnitType:
    only_fields(obj, (*TYPE_FIELDS, *extra), path)
    return read_unit_type(obj, path)


def _band_unit(raw: object, path: str, default_name: str) -> BandUnit:
    obj = as_object(raw, path)
    unit_type = _unit_type(obj, path, ("name", "hex"))
    return BandUnit(name=get_str(obj, "name", path, default=default_name), unit_type=unit_type,
                    hex=_hex(obj, "hex", path))


def _band(data: JSONObject, name: str) -> FieldBand:
    obj = as_object(data.get(name), name)
    only_fields(obj, {"name", "units", "moved_three_times", "leader_fell_last_round"}, name)
    band_name = get_str(obj, "name", name, default=name)
    units = tuple(
        _band_unit(raw, child(child(name, "units"), i), f"{band_name} {i + 1}")
        for i, raw in enumerate(get_list(obj, "units", name))
    )
    return _guard(child(name, "units"), lambda: FieldBand(
        name=band_name,
        units=units,
        moved_three_times=get_bool(obj, "moved_three_times", name),
        leader_fell_last_round=get_bool(obj, "leader_fell_last_round", name),
    ))


def _bands(data: JSONObject, name: str) -> tuple[FieldBand, ...]:
    return tuple(_band_at(raw, child(name, i))
                 for i, raw in enumerate(get_list(data, name, default=True)))


def _band_at(raw: object, path: str) -> FieldBand:
    wrapper = {"band": raw}
    try:
        return _band(wrapper, "band")
    except InputError as exc:
        raise InputError(path + exc.field.removeprefix("band"), exc.message) from None


def _guard(path: str, make: Callable[[], T]) -> T:
    try:
        return make()
    except (BandError, combat.OrderError) as exc:
        if isinstance(exc.__cause__, dicemod.DiceError):
            raise InputError("rolls", str(exc.__cause__)) from None
        raise InputError(path, str(exc)) from None


def _battlefield(data: JSONObject, occupied: frozenset[hexgrid.Hex] = frozenset()) -> Battlefield:
    raw = data.get("map")
    if raw is None:
        return Battlefield(occupied=occupied)
    obj = as_object(raw, "map")
    only_fields(obj, {"cm_per_hex", "terrain", "cols", "rows"}, "map")
    terrain: dict[hexgrid.Hex, Terrain] = {}
    raw_terrain = as_object(obj.get("terrain", {}), "map.terrain")
    for label in raw_terrain:
        path = f"map.terrain.{label}"
        try:
            h = hexgrid.parse_label(label)
        except hexgrid.HexLabelError as exc:
            raise InputError(path, str(exc)) from None
        kinds = [t.value for t in Terrain]
        terrain[h] = Terrain(get_choice(raw_terrain, label, kinds, "map.terrain"))
    grid = None
    if "cols" in obj or "rows" in obj:
        grid = hexgrid.Grid(cols=get_int(obj, "cols", "map", minimum=1, maximum=702),
                            rows=get_int(obj, "rows", "map", minimum=1, maximum=10_000))
    return _guard("map", lambda: Battlefield(
        cm_per_hex=get_int(obj, "cm_per_hex", "map", default=DEFAULT_CM_PER_HEX, minimum=1,
                           maximum=MAX_CM_PER_HEX),
        terrain=terrain, grid=grid, occupied=occupied))


# ---------------------------------------------------------------------------
# Dice


class _DiceUse:
    """The dice of one calculation: given "rolls", the caller's "seed", or a fresh seed."""

    def __init__(self, data: JSONObject) -> None:
        if "rolls" in data and "seed" in data:
            raise InputError("seed", "give either rolls or a seed, not both.")
        self.seed: str | None = None
        self.fixed: dicemod.FixedDice | None = None
        self.source: dicemod.Dice
        if "rolls" in data:
            values = [_d6(raw, i) for i, raw in enumerate(get_list(data, "rolls"))]
            self.fixed = dicemod.FixedDice(values)
            self.source = self.fixed
        else:
            self.seed = get_str(data, "seed", default="") or dicemod.new_seed()
            self.source = dicemod.SeededDice(seed=self.seed)

    def run(
        self, work: Callable[[dicemod.Dice], dict[str, object]], *, field: str
    ) -> dict[str, object]:
        """Do the work with these dice; a rule refusing it is reported against `field`."""
        result = _guard(field, lambda: work(self.source))
        if self.fixed is not None and self.fixed.remaining:
            used = len(self.fixed.rolls)
            raise InputError("rolls", f"{used + self.fixed.remaining} value(s) were given but only"
                             f" {used} die/dice were rolled.")
        rolls = self.source.rolls
        if self.seed is not None and rolls:
            # The caller's seed (or a fresh one): printing it makes the result replayable.
            result["seed"] = self.seed
            result["commitment"] = dicemod.commitment(self.seed)
        result["dice"] = dicemod.roll_records(rolls)
        return result


def _d6(raw: object, i: int) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= 6:
        raise InputError(child("rolls", i), "must be a whole number from 1 to 6 (a D6).")
    return raw


# ---------------------------------------------------------------------------
# Calculators


def stats(data: JSONObject) -> dict[str, object]:
    """{"code": "M-Ja-El"} or {"armour", "weapon", "mount", "experience"?, "leader"?} → stats."""
    unit = _unit_type(data, "")
    s = derive_stats(unit)
    return {
        "code": unit.code,
        "figures": unit.figures,
        "ranged": unit.is_ranged,
        "mounted": unit.is_mounted,
        **s.as_dict(),
        "breakdown": [
            {"stat": c.stat, "source": c.source, "value": c.value, "applied": c.applied,
             **({"note": c.note} if c.note else {})}
            for c in breakdown(unit)
        ],
    }


def army(data: JSONObject) -> dict[str, object]:
    """{"bands": [{"name", "units": [unit + "title"?]}]} → legality, band speeds, record sheet."""
    only_fields(data, {"bands"}, "")
    bands: list[armies.ArmyBand] = []
    for i, raw in enumerate(get_list(data, "bands")):
        path = child("bands", i)
        obj = as_object(raw, path)
        only_fields(obj, {"name", "units"}, path)
        units: list[UnitType] = []
        titles: list[str] = []
        for j, raw_unit in enumerate(get_list(obj, "units", path)):
            upath = child(child(path, "units"), j)
            uobj = as_object(raw_unit, upath)
            units.append(_unit_type(uobj, upath, ("title",)))
            titles.append(get_str(uobj, "title", upath, default=""))
        bands.append(armies.ArmyBand(name=get_str(obj, "name", path, default=f"band {i + 1}"),
                                     units=tuple(units), titles=tuple(titles)))
    errors = armies.army_problems(bands)
    leaders = sum(1 for b in bands for u in b.units if u.leader)
    return {
        "valid": not errors,
        "errors": errors,
        "bands": [
            {"number": n, "name": b.name, "units": len(b.units),
             "speed": armies.band_speed(b.units) if b.units else None}
            for n, b in enumerate(bands, start=1)
        ],
        "leaders": leaders,
        "max_leaders": armies.max_leaders(len(bands)),
        "record_sheet": [row.as_dict() for row in armies.record_sheet(bands)],
    }


def fire(data: JSONObject) -> dict[str, object]:
    """A fire order resolved with the given "rolls" (or dice from "seed"), every die explained."""
    only_fields(data, {"band", "target", "map", "target_in_front", *DICE_FIELDS}, "")
    firing, target = _band(data, "band"), _band(data, "target")
    order = _guard("target", lambda: combat.FireOrder(
        firing=firing, target=target, battlefield=_battlefield(data),
        target_in_front=get_bool(data, "target_in_front", default=True)))
    return _DiceUse(data).run(lambda d: combat.resolve_fire(order, dice=d).as_dict(),
                              field="target")


def fight(data: JSONObject) -> dict[str, object]:
    """A fight order resolved with the given "rolls" (or dice from "seed"), every die explained."""
    only_fields(data, {"band", "target", "map", *DICE_FIELDS}, "")
    fighting, target = _band(data, "band"), _band(data, "target")
    order = _guard("target", lambda: combat.FightOrder(
        fighting=fighting, target=target, battlefield=_battlefield(data)))
    return _DiceUse(data).run(lambda d: combat.resolve_fight(order, dice=d).as_dict(),
                              field="target")


def give_orders(data: JSONObject) -> dict[str, object]:
    """A leader's orders of a turn: command range (20 cm) and the second order's D6 (3+)."""
    only_fields(data, {"leader", "orders", "map", *DICE_FIELDS}, "")
    leader = _band_unit(data.get("leader"), "leader", "leader")
    requests = []
    for i, raw in enumerate(get_list(data, "orders")):
        path = child("orders", i)
        obj = as_object(raw, path)
        only_fields(obj, {"band", "order"}, path)
        band = _band_at(obj.get("band"), child(path, "band"))
        kind = orders.OrderKind(get_choice(obj, "order", [k.value for k in orders.OrderKind], path))
        requests.append(orders.OrderRequest(band=band, order=kind))
    field_ = _battlefield(data)

    def work(d: dicemod.Dice) -> dict[str, object]:
        outcomes = orders.give_orders(leader=leader, orders=requests, battlefield=field_, dice=d)
        return {"leader": leader.name, "orders": [o.as_dict() for o in outcomes]}

    return _DiceUse(data).run(work, field="orders")


def initiative(data: JSONObject) -> dict[str, object]:
    """What a band must do by initiative: eligibility, fight, fall back, fire, reform, flee."""
    only_fields(data, {"band", "enemies", "leaders", "acted_in_last_two_turns", "lost_units",
                       "wishes_to_flee", "map", *DICE_FIELDS}, "")
    band = _band(data, "band")
    enemies = _bands(data, "enemies")
    leaders = tuple(_band_unit(raw, child("leaders", i), f"leader {i + 1}")
                    for i, raw in enumerate(get_list(data, "leaders", default=True)))
    situation = _guard("enemies", lambda: orders.InitiativeSituation(
        band=band, enemies=enemies, leaders=leaders,
        acted_in_last_two_turns=get_bool(data, "acted_in_last_two_turns"),
        lost_units=get_bool(data, "lost_units"),
        wishes_to_flee=get_bool(data, "wishes_to_flee"),
        battlefield=_battlefield(data)))
    return _DiceUse(data).run(lambda d: orders.take_initiative(situation, dice=d).as_dict(),
                              field="band")


def move(data: JSONObject) -> dict[str, object]:
    """A band's move: allowance (slowest unit ± road/rough/tired), distance, legality, new hexes."""
    only_fields(data, {"band", "to", "occupied", "map"}, "")
    band = _band(data, "band")
    occupied = frozenset(
        _hex({"hex": raw}, "hex", "") if isinstance(raw, str) else _not_label(child("occupied", i))
        for i, raw in enumerate(get_list(data, "occupied", default=True))
    )
    field_ = _battlefield(data, occupied)
    return movement.move_band(band, to=_hex(data, "to", ""), battlefield=field_).as_dict()


def _not_label(path: str) -> hexgrid.Hex:
    raise InputError(path, "must be a hex label such as 'J10'.")


def start(data: JSONObject) -> dict[str, object]:
    """Who starts the battle: each player rolls a D6, the highest starts (ties roll again)."""
    only_fields(data, {"players", *DICE_FIELDS}, "")
    players = [get_str({"p": raw}, "p") if isinstance(raw, str) else _not_name(i)
               for i, raw in enumerate(get_list(data, "players"))]
    return _DiceUse(data).run(lambda d: orders.first_player(players, dice=d).as_dict(),
                              field="players")


def _not_name(i: int) -> str:
    raise InputError(child("players", i), "must be a string.")


CALCULATORS: dict[str, Calculator] = {
    "stats": stats,
    "army": army,
    "fire": fire,
    "fight": fight,
    "orders": give_orders,
    "initiative": initiative,
    "move": move,
    "start": start,
}
