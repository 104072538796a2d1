"""A GRASP battle on the hex adaptation (`mu_per_hex` MU a hex): its state and the turn
driver (the contract of rules/battle.py).

The state holds the map (going per hex), every unit (its design, hex, facing, fatigue die,
the attribute dice it still has, its command marker, whether it flees), each side's base edge,
pips and reserved pips, the points each side has lost, the turn, the sides' phasing order and
the step.

A turn (docs/rules/grasp.md "A whole battle"):

1. At its start, without orders: units next to a friendly supply unit are resupplied;
   fleeing units flee on; every side rolls its command units' pip dice and the highest
   total phases first.
2. `command`: in phasing order each side places command markers (`marker`: 1 pip, 2 for a
   unit beyond every command span) and is `done`; the unused pips are reserved. Then every
   unit with a marker moves toward it (its move die rolled, the going paid hex by hex).
3. `fire`: in phasing order each side fires (`fire`: a unit and up to two supporting
   firers at a target in range and in the firer's arc), then `done`.
4. `combat`: in phasing order each side fights (`fight`: a unit in contact, up to two
   supports, and a reserved pip from a command unit in contact), then `done`.

The battle ends after a turn in which no marker was placed, nobody fired and nothing moved,
when a side has no unit left that can fight on, or after `max_turns`; the side that lost
fewer points wins (equal: a draw).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from rules.battle import (
    BattleError,
    BattleEvent,
    Engine,
    Outcome,
    StepResult,
    apply_orders,
    victory_event,
)
from rules.dice import Dice
from rules.grasp.combat import (
    CloseCombat,
    CombatResult,
    Fighter,
    Fire,
    Level,
    Order,
    Ram,
    Side,
    Size,
    resolve_close_combat,
    resolve_fire,
    resolve_ram,
)
from rules.grasp.combat import (
    Outcome as CombatOutcome,
)
from rules.grasp.dielevels import (
    DieLevel,
    DieSpec,
    GraspError,
    die_price,
    format_level,
    roll_pool,
    step_down,
    step_up,
    steps_of,
)
from rules.grasp.fatigue import Attributes, SupplyRecipient, resupply
from rules.grasp.field import EDGES, GOINGS, Facing, HexField, PlaneField, Pos, field_from_json
from rules.grasp.terrain import Mover, TerrainClass
from rules.grasp.units import (
    UNIT_FIELDS,
    FireKind,
    Special,
    UnitType,
    format_measure,
    unit_cost,
    unit_type_from_dict,
    validate_unit_type,
)
from rules.grasp.weather import (
    BLOWING,
    ENVIRONMENT_MU2,
    FROM,
    TABLE,
    WIND,
    Weather,
    holds,
    move_factor,
    range_factor,
    scaled,
)
from rules.hexgrid import (
    Hex,
    distance,
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
    get_str_list,
    only_fields,
)
from rules.plane import Point, dist2, inside

DEFAULT_MAX_TURNS = 12
MAX_MAP_SIDE = 60
MAX_UNITS = 100
FLEE_SHELTER_MU = 10
Step = Literal["deploy", "command", "ambush", "fire", "combat", "over"]


@dataclass(frozen=True, kw_only=True)
class GraspSettings:
    board: Literal["hex", "continuous"] = "hex"
    mu_per_hex: int = 1
    max_turns: int = DEFAULT_MAX_TURNS
    weather: bool = False  # the weather table thrown on a side's maximum pips
    void: bool = False  # a battle in a void (space): a flyer without fatigue drifts on
    dust: bool = False  # the optional rule: moving units raise dust in dry conditions


@dataclass(frozen=True, kw_only=True)
class GraspUnit:
    """A unit on the field: its design, where it stands and faces, what it has left."""

    id: str
    side: str
    type: UnitType
    pos: Pos
    facing: Facing
    fatigue: DieLevel | None
    attributes: Attributes
    marker: Pos | None = None
    fleeing: bool = False
    teleported: int = 0  # the turn it last teleported (0: never)
    hidden: bool = False  # an ambusher not yet sprung
    level: Level = Level.SURFACE  # flying above, tunnelling below
    marker_level: Level | None = None  # the level its marker sends it to
    marker_high_tech: bool = False  # sent by high-tech command: acted on at once
    concealed: bool = False  # blind deployment: a marker to the enemy until spotted
    unleashed: bool = False  # a berserk unit that had its first order (the rest are free)

    @property
    def is_command(self) -> bool:
        return self.type.pips is not None

    @property
    def mover(self) -> Mover:
        t = self.type
        return Mover(small=t.has(Special.SMALL), big=t.has(Special.BIG),
                     agile=t.has(Special.AGILE), flyer=t.has(Special.FLYER),
                     tunneller=t.has(Special.TUNNELLER), confined=t.has(Special.DENIZEN))


@dataclass(frozen=True, kw_only=True)
class GraspSide:
    name: str
    edge: str  # the base edge it flees to: N, S, W or E
    pips: int = 0
    reserved: int = 0
    lost: int = 0  # points of destroyed, captured and fled units
    rolled: int = 0  # its pip total this turn, and the turn before
    rolled_before: int = 0
    jammed: int = 0  # pips an enemy's signals take off its next roll
    preferred: tuple[str, ...] = ()  # temperate and one other condition (or none given)
    unpreferred: str = ""


@dataclass(frozen=True, kw_only=True)
class Deployment:
    """Open deployment in progress: the sides from the lowest d6 up; the stage (terrain
    pieces, quadrants, units); whose turn; the pieces each still places and the sector rolled
    for the next; the quadrants chosen."""

    order: tuple[str, ...]
    stage: Literal["terrain", "quadrant", "units"]
    turn: int = 0
    pieces: tuple[tuple[str, int], ...] = ()
    sector: str = ""
    quadrants: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Waiting:
    """A unit not (yet) on the field: in reserve, or reallocated off-table."""

    id: str
    side: str
    type: UnitType
    facing: Facing
    off_table: bool = False
    respawn: bool = False  # a destroyed horde back at its base line for 2 pips
    worn: tuple[DieLevel | None, Attributes] | None = None  # off-table fire took its toll
    aboard: str = ""  # a boarder: the enemy unit it fights aboard of


@dataclass(frozen=True, kw_only=True)
class Cloud:
    """Smoke, a fire or dust on the field: difficult going (smoke and fire block sight),
    covering a unit's base at `at`; `was` is the ground under it, restored when it goes."""

    kind: Literal["smoke", "fire", "dust"]
    at: Pos
    was: TerrainClass


@dataclass(frozen=True, kw_only=True)
class GraspBattle:
    settings: GraspSettings
    field: HexField | PlaneField
    sides: tuple[GraspSide, ...]
    units: tuple[GraspUnit, ...]
    turn: int
    phasing: tuple[str, ...]
    acting: int
    step: Step
    acted: tuple[str, ...] = ()  # units that fired (ambush, fire steps) or fought (combat)
    ambushers: tuple[str, ...] = ()  # sprung this turn: a free activation each
    ambush_sides: tuple[str, ...] = ()
    busy: bool = False  # a marker was placed, a unit fired or moved this turn
    gone: tuple[tuple[str, str], ...] = ()  # unit → destroyed|surrendered|captured|fled
    prisoners: tuple[tuple[str, str], ...] = ()  # captured or surrendered unit → its captor
    # Signals warfare's window on a marker just placed: the enemy sides still to answer
    # (cancel it for 2 reserved pips, or let it pass), the unit, and its marker before.
    listening: tuple[str, ...] = ()
    issued: str = ""
    marker_before: Pos | None = None
    level_before: Level | None = None
    clouds: tuple[Cloud, ...] = ()  # smoke and fires
    tending: tuple[str, ...] = ()  # units putting a fire out this turn: they do nothing else
    seized: tuple[str, ...] = ()  # units captured by boarding: they fight for their captor
    recruited: tuple[str, ...] = ()  # prisoners who joined their captor after the battle
    waiting: tuple[Waiting, ...] = ()
    conditions: str = ""  # the prevailing conditions ("": no side has preferences)
    deployment: Deployment | None = None
    weather: tuple[Weather, ...] = ()  # in force, or (environmental) still to be placed
    recovered: tuple[str, ...] = ()  # sides whose unit took this turn's fair-weather bonus
    blind: bool = False  # blind deployment: units are markers until spotted or contacted

    def unit(self, unit_id: str, field: str = "unit") -> GraspUnit:
        for u in self.units:
            if u.id == unit_id:
                return u
        why = dict(self.gone).get(unit_id)
        raise BattleError(f"There is no unit {unit_id!r} on the field"
                          + (f" (it {why})." if why else "."), rule="units", field=field)

    def side(self, name: str) -> GraspSide:
        for s in self.sides:
            if s.name == name:
                return s
        raise BattleError(f"There is no side {name!r} in this battle.", rule="sides",
                          field="side")

    def others(self, unit: GraspUnit) -> list[Pos]:
        return [u.pos for u in self.units if u.id != unit.id]

    def enemies(self, unit: GraspUnit, *, same_level: bool = False) -> list[Pos]:
        """Where the enemies it knows of stand (a hidden ambusher is not one of them); with
        `same_level`, only those it can come into contact with."""
        return [u.pos for u in self.units if u.side != unit.side and not u.hidden
                and (not same_level or u.level == unit.level)]

    def label(self, p: Pos) -> str:
        return str(self.field.label(p))


# ---------------------------------------------------------------------------
# Orders


@dataclass(frozen=True, kw_only=True)
class GraspOrder:
    """Deployment: `terrain` (going, place), `quadrant`, `deploy` (positions). Command step:
    `marker` (unit, to, level), `enter` (unit, to: a reserve comes on), `off_table` (unit),
    `jam` (target, pips), `rally` (unit), `extinguish` (unit, to), `environment` (place: the
    weather's environmental terrain), `recover` (unit: perfect conditions); `cancel` or
    `pass` in a signals window. Ambush, fire and combat steps: `ambush_move` (unit, to),
    `fire` (unit, target or `to` for terrain, supports, elite_pip, lay, board), `fight` (unit,
    target or `to` for terrain, supports, command_pip, elite_pip, hold, through, ram, board).
    Every step ends with `done`."""

    side: str
    kind: Literal["terrain", "quadrant", "deploy", "marker", "enter", "off_table", "jam",
                  "rally", "extinguish", "environment", "recover", "cancel", "pass",
                  "ambush_move", "fire", "fight", "done"]
    unit: str = ""
    target: str = ""
    to: object = None  # a hex label, or a point [x, y] on the continuous board
    supports: tuple[str, ...] = ()
    command_pip: bool = False
    elite_pip: bool = False
    hold: bool = False
    through: bool = False  # fight: pass through a loose enemy after a combat not lost
    ram: bool = False  # fight: a vehicle or an assault unit rams
    board: bool = False  # fight (fire: a teleporter): board a doubled vehicle or carrier
    pips: int = 0  # jam: reserved pips traded
    going: str = ""  # terrain: the piece's going; place: its hexes or polygon
    place: object = None
    quadrant: str = ""
    positions: tuple[tuple[str, object], ...] = ()  # deploy: unit → where
    level: str = ""  # marker: the level the unit is sent to (a flyer or tunneller)
    lay: str = ""  # fire: "smoke" or "fire" at the marked place `to` instead of a shot


ORDER_KINDS = ("terrain", "quadrant", "deploy", "marker", "enter", "off_table", "jam", "rally",
               "extinguish", "environment", "recover", "cancel", "pass", "ambush_move", "fire",
               "fight", "done")


def order_from_json(data: object, path: str) -> GraspOrder:
    obj = as_object(data, path)
    only_fields(obj, ("side", "kind", "unit", "target", "to", "supports", "command_pip",
                      "elite_pip", "hold", "through", "ram", "board", "pips", "going", "place",
                      "quadrant",
                      "positions", "level", "lay"), path)
    return GraspOrder(
        side=get_str(obj, "side", path),
        kind=get_choice(obj, "kind", ORDER_KINDS, path),  # type: ignore[arg-type]
        unit=get_str(obj, "unit", path, default=""),
        target=get_str(obj, "target", path, default=""),
        to=obj.get("to"),
        supports=get_str_list(obj, "supports", path, what="a unit id"),
        command_pip=get_bool(obj, "command_pip", path),
        elite_pip=get_bool(obj, "elite_pip", path),
        hold=get_bool(obj, "hold", path),
        through=get_bool(obj, "through", path),
        ram=get_bool(obj, "ram", path),
        board=get_bool(obj, "board", path),
        pips=get_int(obj, "pips", path, minimum=0, maximum=1000, default=0),
        going=get_str(obj, "going", path, default=""),
        place=obj.get("place"),
        quadrant=get_str(obj, "quadrant", path, default=""),
        level=get_str(obj, "level", path, default=""),
        lay=get_choice(obj, "lay", ("", "smoke", "fire"), path, default=""),
        positions=tuple(as_object(obj.get("positions") or {}, child(path, "positions")).items()),
    )


# ---------------------------------------------------------------------------
# Start


def _type_json(t: UnitType) -> dict[str, object]:
    out: dict[str, object] = {"fatigue": t.fatigue.label}
    for name, spec in (("cc", t.cc), ("fs", t.fs), ("pips", t.pips)):
        if spec is not None:
            out[name] = spec.label
    for name, measure in (("fire_range", t.fire_range), ("move", t.move)):
        if measure is not None:
            out[name] = format_measure(measure)
    if t.fire_range is not None:
        out["fire"] = t.fire.value
    if t.pips_high_tech:
        out["pips_high_tech"] = True
    if t.command_range:
        out["command_range"] = t.command_range
    if t.command_high_tech:
        out["command_high_tech"] = True
    if t.specials:
        out["specials"] = sorted(s.value for s in t.specials)
    return out


def _kind_and_id(obj: JSONObject, at: str) -> tuple[UnitType, str]:
    """A unit's design (valid) and its id (not empty), as a scenario or a state gives them."""
    kind = unit_type_from_dict(as_object(obj.get("type"), child(at, "type")), child(at, "type"))
    problems = validate_unit_type(kind)
    if problems:
        raise InputError(child(at, "type"), problems[0])
    unit_id = get_str(obj, "id", at)
    if not unit_id:
        raise InputError(child(at, "id"), "must be a non-empty id.")
    return kind, unit_id


def _unit(raw: object, at: str, side: str, board: HexField | PlaneField, *, with_state: bool
          ) -> GraspUnit:
    obj = as_object(raw, at)
    only_fields(obj, ("id", "at", "facing", "type", "fatigue", "attributes", "marker",
                      "fleeing", "teleported", "hidden", "level", "marker_level",
                      "marker_high_tech", "concealed", "unleashed") if with_state
                else ("id", "at", "facing", "type", "level"), at)
    kind, unit_id = _kind_and_id(obj, at)
    place = board.pos_from_json(obj.get("at"), child(at, "at"))
    facing = board.facing_from_json(obj.get("facing"), child(at, "facing"))
    height = _level_from_json(obj, "level", at, kind) or Level.SURFACE
    if not with_state:
        return GraspUnit(id=unit_id, side=side, type=kind, pos=place, facing=facing,
                         fatigue=kind.fatigue, hidden=kind.has(Special.AMBUSH),
                         attributes=_fresh(kind), level=height)
    level, attributes = _worn_from_json(obj, at)
    return GraspUnit(id=unit_id, side=side, type=kind, pos=place, facing=facing,
                     fatigue=level, attributes=attributes, level=height,
                     marker_level=_level_from_json(obj, "marker_level", at, kind),
                     marker_high_tech=get_bool(obj, "marker_high_tech", at),
                     marker=None if obj.get("marker") is None else board.pos_from_json(
                         obj["marker"], child(at, "marker")),
                     fleeing=get_bool(obj, "fleeing", at),
                     teleported=get_int(obj, "teleported", at, minimum=0, default=0),
                     hidden=get_bool(obj, "hidden", at),
                     concealed=get_bool(obj, "concealed", at),
                     unleashed=get_bool(obj, "unleashed", at))


BATTLE_LEVELS = tuple(lv for lv in Level if Level.DISTANT_BELOW <= lv <= Level.DISTANT_FLYING)


def _level_from_json(obj: JSONObject, name: str, at: str, kind: UnitType) -> Level | None:
    """A level a unit is at or is sent to: above the surface only for flyers, below it only
    for tunnellers."""
    if obj.get(name) is None:
        return None
    label = get_choice(obj, name, [lv.label for lv in BATTLE_LEVELS], at)
    level = Level[label.upper()]
    why = _level_refused(kind, level)
    if why:
        raise InputError(child(at, name), why)
    return level


def _level_refused(kind: UnitType, level: Level) -> str:
    if level > Level.SURFACE and not kind.has(Special.FLYER):
        return f"only a flyer goes above the surface ({level.label})."
    if level < Level.SURFACE and not (kind.has(Special.TUNNELLER) or kind.has(Special.SWIMMER)):
        return f"only a tunneller or a swimmer goes below the surface ({level.label})."
    return ""


def _fresh(kind: UnitType) -> Attributes:
    """A unit's attributes as designed."""
    return Attributes(cc=kind.cc, fs=kind.fs,
                      mv=kind.move if isinstance(kind.move, DieSpec) else None)


def _worn_from_json(obj: JSONObject, at: str) -> tuple[DieLevel | None, Attributes]:
    """A unit's fatigue die and attributes as a state gives them."""
    attrs = as_object(obj.get("attributes") or {}, child(at, "attributes"))
    fatigue = obj.get("fatigue")
    level = None if fatigue in (None, "none") else unit_type_from_dict(
        {"fatigue": fatigue}, child(at, "fatigue")).fatigue
    spec = {}
    for name in ("cc", "fs", "mv"):
        value = attrs.get(name)
        spec[name] = None if value is None else unit_type_from_dict(
            {"fatigue": "d4", "cc": value}, child(child(at, "attributes"), name)).cc
    return level, Attributes(**spec)


def _attributes_json(a: Attributes) -> dict[str, str]:
    return {k: v.label for k, v in (("cc", a.cc), ("fs", a.fs), ("mv", a.mv)) if v is not None}


def _preferences(obj: JSONObject, path: str) -> tuple[tuple[str, ...], str]:
    """A side's preferred conditions (temperate and one other) and its un-preferred one."""
    preferred = get_str_list(obj, "preferred", path, what="a condition")
    unpreferred = obj.get("unpreferred")
    if not preferred and unpreferred is None:
        return (), ""
    if len(preferred) != 2 or "temperate" not in preferred or not set(preferred) <= set(
            CONDITIONS) or preferred[0] == preferred[1]:
        raise InputError(child(path, "preferred"), "is temperate and one other condition "
                         f"({', '.join(c for c in CONDITIONS if c != 'temperate')}).")
    worse = get_choice(obj, "unpreferred", CONDITIONS, path)
    if worse in preferred:
        raise InputError(child(path, "unpreferred"), "is a condition other than the preferred "
                         "ones.")
    return tuple(preferred), worse


def _waiting(raw: object, at: str, side: str, board: HexField | PlaneField) -> Waiting:
    obj = as_object(raw, at)
    only_fields(obj, ("id", "at", "facing", "type", "off_table", "respawn", "fatigue",
                      "attributes", "aboard"), at)
    kind, unit_id = _kind_and_id(obj, at)
    return Waiting(id=unit_id, side=side, type=kind,
                   facing=board.facing_from_json(obj.get("facing"), child(at, "facing")),
                   off_table=get_bool(obj, "off_table", at),
                   respawn=get_bool(obj, "respawn", at),
                   worn=_worn_from_json(obj, at) if "fatigue" in obj else None,
                   aboard=get_str(obj, "aboard", at, default=""))


def _sides(raw_sides: list[object], path: str, board: HexField | PlaneField, *,
           with_state: bool) -> tuple[list[GraspSide], list[GraspUnit], list[Waiting]]:
    sides: list[GraspSide] = []
    units: list[GraspUnit] = []
    waiting: list[Waiting] = []
    for i, raw in enumerate(raw_sides):
        where = child(path, i)
        obj = as_object(raw, where)
        only_fields(obj, ("name", "edge", "units", "waiting", "pips", "reserved", "lost",
                          "rolled", "rolled_before", "jammed", "preferred", "unpreferred")
                    if with_state else ("name", "edge", "units", "preferred", "unpreferred"),
                    where)
        name = get_str(obj, "name", where)
        if not name or name in {s.name for s in sides}:
            raise InputError(child(where, "name"), "must be a distinct, non-empty name.")
        sides.append(GraspSide(
            name=name, edge=get_choice(obj, "edge", EDGES, where),
            pips=get_int(obj, "pips", where, minimum=0, default=0),
            reserved=get_int(obj, "reserved", where, minimum=0, default=0),
            lost=get_int(obj, "lost", where, minimum=0, default=0),
            rolled=get_int(obj, "rolled", where, minimum=0, default=0),
            rolled_before=get_int(obj, "rolled_before", where, minimum=0, default=0),
            jammed=get_int(obj, "jammed", where, minimum=0, default=0),
            preferred=_preferences(obj, where)[0], unpreferred=_preferences(obj, where)[1]))
        raw_units = get_list(obj, "units", where)
        if not raw_units and not with_state:
            raise InputError(child(where, "units"), "needs at least one unit.")
        for j, u in enumerate(raw_units):
            at = child(child(where, "units"), j)
            if not with_state and as_object(u, at).get("at") is None:
                waiting.append(_waiting(u, at, name, board))  # in reserve
            else:
                units.append(_unit(u, at, name, board, with_state=with_state))
        if with_state:
            waiting.extend(_waiting(u, child(child(where, "waiting"), j), name, board)
                           for j, u in enumerate(get_list(obj, "waiting", where, default=True)))
    if len(units) + len(waiting) > MAX_UNITS:
        raise InputError(path, f"a battle has at most {MAX_UNITS} units.")
    ids = [u.id for u in units] + [w.id for w in waiting]
    if len(set(ids)) != len(ids):
        raise InputError(path, "every unit has its own id.")
    for a in units:
        for b in units:
            if a.id < b.id and board.overlap(a.pos, b.pos):
                raise InputError(path, f"{a.id} and {b.id} stand on one another: every unit "
                                 "has its own place.")
    return sides, units, waiting


def _settings(data: JSONObject, path: str, *, defaults: bool) -> GraspSettings:
    only_fields(data, ("board", "mu_per_hex", "max_turns", "weather", "void", "dust"), path)
    return GraspSettings(
        board=get_choice(data, "board", ("hex", "continuous"), path,  # type: ignore[arg-type]
                         default="hex" if defaults else None),
        mu_per_hex=get_int(data, "mu_per_hex", path, minimum=1, maximum=100,
                           default=1 if defaults else None),
        max_turns=get_int(data, "max_turns", path, minimum=1, maximum=100,
                          default=DEFAULT_MAX_TURNS if defaults else None),
        weather=get_bool(data, "weather", path, default=False),
        void=get_bool(data, "void", path, default=False),
        dust=get_bool(data, "dust", path, default=False))


def start(*, scenario: JSONObject, settings: JSONObject, dice: Dice
          ) -> StepResult[GraspBattle]:
    """Deploy the scenario's units and begin turn 1 (resupply, pips, phasing order)."""
    conf = _settings(settings, "settings", defaults=True)
    only_fields(scenario, ("map", "sides", "conditions", "deployment"), "scenario")
    how = get_choice(scenario, "deployment", ("placed", "open", "blind"), "scenario",
                     default="placed")
    open_deployment = how != "placed"
    board = field_from_json(scenario.get("map"), "scenario.map", board=conf.board,
                            mu_per_hex=conf.mu_per_hex)
    raw_sides = get_list(scenario, "sides", "scenario")
    if len(raw_sides) < 2:
        raise InputError("scenario.sides", "needs at least two sides.")
    sides, units, waiting = _sides(raw_sides, "scenario.sides", board, with_state=False)
    for u in units:
        if board.going(u.pos) is TerrainClass.IMPASSABLE:
            raise InputError("scenario.sides", f"{u.id} starts in impassable terrain at "
                             f"{board.label(u.pos)}: a unit never starts there.")
        if u.hidden and board.going(u.pos) not in AMBUSH_GOING:
            raise InputError("scenario.sides", f"{u.id} lies in ambush in "
                             f"{board.going(u.pos).label} going at {board.label(u.pos)}: an "
                             "ambush is map-marked in light or difficult terrain.")
        if u.type.has(Special.DENIZEN) and board.going(u.pos) not in AMBUSH_GOING:
            raise InputError("scenario.sides", f"{u.id} is a denizen: it is deployed in light "
                             f"or difficult terrain, not {board.going(u.pos).label} going at "
                             f"{board.label(u.pos)}.")
    events: list[BattleEvent] = []
    conditions = ""
    if scenario.get("conditions") is not None:
        conditions = get_choice(scenario, "conditions", CONDITIONS, "scenario")
    elif any(s.unpreferred for s in sides):  # it matters to somebody: roll for it
        before = len(dice.rolls)
        total = sum(dice.roll(6, f"conditions die {i}") for i in range(1, 5))
        conditions = condition_for_roll(total)
        events.append(BattleEvent(kind="conditions", text=f"The prevailing conditions: 4d6 = "
                                  f"{total}, {conditions}.", data={"conditions": conditions},
                                  rolls=tuple(dice.rolls[before:])))
    state = GraspBattle(settings=conf, field=board, sides=tuple(sides),
                        units=tuple(units), turn=0, phasing=(), acting=0, step="command",
                        waiting=tuple(waiting), conditions=conditions, blind=how == "blind")
    for side in sides:
        if side.unpreferred and side.unpreferred == conditions:
            events.append(BattleEvent(kind="conditions", text=f"{side.name} fights in its "
                                      f"un-preferred conditions: all terrain is one level "
                                      "harder for it."))
    size = (f"a {board.grid.cols} × {board.grid.rows} map ({conf.mu_per_hex} MU a hex)"
            if isinstance(board, HexField) else f"a {board.width} × {board.height} MU board")
    if open_deployment:
        if units:
            raise InputError("scenario.sides", "with open deployment the units are placed "
                             "during deployment: give them no `at`.")
        state, begun = _open_deployment(state, dice)
        return StepResult(state=state, events=tuple(events + begun))
    events[:0] = [BattleEvent(kind="deployed", text=f"{len(units)} units deployed on {size}"
                          + (f", {len(waiting)} in reserve" if waiting else "") + ".",
                          data={"units": {u.id: board.pos_json(u.pos) for u in units
                                          if not u.hidden}})]
    state, begun = _begin_turn(state, dice)
    return StepResult(state=state, events=tuple(events + begun))


# ---------------------------------------------------------------------------
# Open deployment


SECTORS = {1: "NW", 2: "NE", 3: "SW", 4: "SE"}
QUADRANTS = ("NW", "NE", "SW", "SE")
POINTS_PER_PIECE = 100
PIECE_SPAN_MU = 10
PIECE_GOINGS = ("light", "difficult", "impassable")


def _low_first(names: Sequence[str], dice: Dice) -> tuple[tuple[str, ...], list[str]]:
    """Every side rolls 1d6; the lowest goes first (sides tied roll again among
    themselves)."""
    lines: list[str] = []

    def rank(group: list[str], attempt: int) -> list[str]:
        if len(group) <= 1:
            return group
        rolls = {n: dice.roll(6, f"deployment: {n}" + (f" (roll-off {attempt})"
                                                        if attempt > 1 else ""))
                 for n in group}
        lines.append(", ".join(f"{n} {v}" for n, v in rolls.items()))
        out: list[str] = []
        for value in sorted(set(rolls.values())):
            out += rank([n for n in group if rolls[n] == value], attempt + 1)
        return out

    return tuple(rank(list(names), 1)), lines


def _open_deployment(state: GraspBattle, dice: Dice) -> tuple[GraspBattle, list[BattleEvent]]:
    before = len(dice.rolls)
    order, lines = _low_first([s.name for s in state.sides], dice)
    pieces = tuple((s.name, sum(unit_cost(w.type).total for w in state.waiting
                                if w.side == s.name) // POINTS_PER_PIECE)
                   for s in state.sides)
    deployment = Deployment(order=order, stage="terrain", pieces=pieces)
    events = [BattleEvent(kind="deployment", text="Open deployment: " + "; ".join(lines)
                          + f". {' then '.join(order)}; terrain pieces: "
                          + ", ".join(f"{n} {k}" for n, k in pieces) + ".",
                          data={"order": list(order), "pieces": dict(pieces)},
                          rolls=tuple(dice.rolls[before:]))]
    state, more = _next_placer(replace(state, step="deploy", deployment=deployment), dice,
                               start=0)
    return state, events + more


def _next_placer(state: GraspBattle, dice: Dice, *, start: int
                 ) -> tuple[GraspBattle, list[BattleEvent]]:
    """The next side (round the order from `start`) with a terrain piece to place rolls its
    sector; with none left, the quadrants are chosen."""
    deployment = state.deployment
    assert deployment is not None
    left = dict(deployment.pieces)
    n = len(deployment.order)
    for k in range(n):
        turn = (start + k) % n
        side = deployment.order[turn]
        if left.get(side, 0):
            before = len(dice.rolls)
            sector = SECTORS[dice.roll(4, f"terrain sector: {side}")]
            state = replace(state, deployment=replace(deployment, stage="terrain", turn=turn,
                                                      sector=sector))
            return state, [BattleEvent(kind="sector", text=f"{side} places a terrain piece in "
                                       f"the {sector} quarter.", data={"side": side,
                                                                        "sector": sector},
                                       rolls=tuple(dice.rolls[before:]))]
    return replace(state, deployment=replace(deployment, stage="quadrant", turn=0,
                                             sector="")), []


def _deploy_order(state: GraspBattle, order: GraspOrder, dice: Dice
                  ) -> tuple[GraspBattle, list[BattleEvent]]:
    deployment = state.deployment
    assert deployment is not None
    wanted = {"terrain": "terrain", "quadrant": "quadrant", "units": "deploy"}[deployment.stage]
    if order.kind != wanted:
        raise BattleError(f"Deployment is at its {deployment.stage} stage: a {wanted} order.",
                          rule="deployment", field="kind")
    board = state.field
    if deployment.stage == "terrain":
        going = order.going
        if going not in PIECE_GOINGS:
            raise BattleError(f"A terrain piece is {', '.join(PIECE_GOINGS)} going.",
                              rule="deployment", field="going")
        piece = _piece_in(state, order, deployment.sector, rule="deployment",
                          what="The piece", die="sector die")
        if not board.piece_span_ok(piece, PIECE_SPAN_MU):
            raise BattleError(f"A terrain piece measures no more than {PIECE_SPAN_MU} MU in "
                              "any direction.", rule="deployment", field="place")
        left = dict(deployment.pieces)
        left[order.side] -= 1
        state = replace(state, field=board.with_piece(piece, GOINGS[going]),
                        deployment=replace(deployment, pieces=tuple(left.items())))
        event = BattleEvent(kind="terrain", text=f"{order.side} places {going} terrain in the "
                            f"{deployment.sector} quarter.",
                            data={"side": order.side, "going": going,
                                  "place": board.piece_json(piece)})
        state, more = _next_placer(state, dice, start=deployment.turn + 1)
        return state, [event, *more]
    if deployment.stage == "quadrant":
        taken = dict(deployment.quadrants)
        if order.quadrant not in QUADRANTS or order.quadrant in taken.values():
            free = [q for q in QUADRANTS if q not in taken.values()]
            raise BattleError(f"{order.side} chooses a free quarter: {', '.join(free)}.",
                              rule="deployment", field="quadrant")
        quadrants = (*deployment.quadrants, (order.side, order.quadrant))
        turn = deployment.turn + 1
        stage: Literal["quadrant", "units"] = "quadrant"
        if turn == len(deployment.order):
            turn, stage = 0, "units"
        state = replace(state, deployment=replace(deployment, quadrants=quadrants, turn=turn,
                                                  stage=stage))
        return state, [BattleEvent(kind="quadrant", text=f"{order.side} takes the "
                                   f"{order.quadrant} quarter.")]
    return _deploy_units(state, order, dice)


def _piece_in(state: GraspBattle, order: GraspOrder, sector: str, *, rule: str, what: str,
              die: str) -> tuple[Pos, ...]:
    """The terrain piece an order places (`place`), inside the quarter a die gave."""
    board = state.field
    try:
        piece = board.piece_from_json(order.place, "place")
    except InputError as exc:
        raise BattleError(exc.message, rule=rule, field="place") from exc
    if any(board.quadrant(p) != sector for p in board.piece_places(piece)):
        raise BattleError(f"{what} lies in the {sector} quarter its {die} gave.", rule=rule,
                          field="place")
    return piece


def _deploy_units(state: GraspBattle, order: GraspOrder, dice: Dice
                  ) -> tuple[GraspBattle, list[BattleEvent]]:
    """The side places the units it wants in its quarter; the rest stay in reserve."""
    deployment = state.deployment
    assert deployment is not None
    board = state.field
    quarter = dict(deployment.quadrants)[order.side]
    mine = {w.id: w for w in state.waiting if w.side == order.side and not w.off_table}
    placed: list[GraspUnit] = []
    for name, where in order.positions:
        at = f"positions.{name}"
        if name not in mine:
            raise BattleError(f"{order.side} has no unit {name!r} to deploy.",
                              rule="deployment", field=at)
        try:
            p = board.pos_from_json(where, at)
        except InputError as exc:
            raise BattleError(exc.message, rule="deployment", field=at) from exc
        w = mine[name]
        if board.quadrant(p) != quarter or board.going(p) is TerrainClass.IMPASSABLE \
                or any(board.overlap(p, u.pos) for u in (*state.units, *placed)):
            raise BattleError(f"{name} deploys on a free place of {order.side}'s {quarter} "
                              f"quarter that is not impassable, not {board.label(p)}.",
                              rule="deployment", field=at)
        if w.type.has(Special.AMBUSH) and board.going(p) not in AMBUSH_GOING:
            raise BattleError(f"{name} lies in ambush: it deploys in light or difficult "
                              "terrain.", rule="deployment", field=at)
        hidden = w.type.has(Special.AMBUSH)
        placed.append(GraspUnit(id=w.id, side=w.side, type=w.type, pos=p, facing=w.facing,
                                fatigue=w.type.fatigue, hidden=hidden,
                                concealed=state.blind and not hidden,
                                attributes=_fresh(w.type)))
    ids = {u.id for u in placed}
    state = replace(state, units=(*state.units, *placed),
                    waiting=tuple(w for w in state.waiting if w.id not in ids))
    left = len(mine) - len(placed)
    events = [BattleEvent(kind="deploy", text=f"{order.side} deploys {len(placed)} unit"
                          f"{'' if len(placed) == 1 else 's'} in the {quarter} quarter"
                          + (f", {left} in reserve" if left else "") + ".",
                          data={"side": order.side,
                                "units": {u.id: board.pos_json(u.pos) for u in placed
                                          if not u.hidden}})]
    turn = deployment.turn + 1
    if turn < len(deployment.order):
        return replace(state, deployment=replace(deployment, turn=turn)), events
    state = replace(state, deployment=None, step="command")
    state, begun = _begin_turn(state, dice)
    return state, events + begun


# ---------------------------------------------------------------------------
# The turn's automatic parts


def _rolled(dice: Dice, before: int) -> tuple[object, ...]:
    return tuple(dice.rolls[before:])


def _put(state: GraspBattle, unit: GraspUnit) -> GraspBattle:
    return replace(state, units=tuple(unit if u.id == unit.id else u for u in state.units))


def _begin_turn(state: GraspBattle, dice: Dice) -> tuple[GraspBattle, list[BattleEvent]]:
    state = replace(state, turn=state.turn + 1, acted=(), busy=False, tending=(), recovered=())
    events: list[BattleEvent] = [BattleEvent(kind="turn", text=f"Turn {state.turn}.",
                                             data={"turn": state.turn})]
    state, settled = _settle(state, "dust", "The dust settles at ")
    events.extend(settled)
    state, supplied = _resupply(state)
    events.extend(supplied)
    for unit in [u for u in state.units if u.fleeing]:
        if any(u.id == unit.id for u in state.units):
            state, fled = _flee(state, state.unit(unit.id), dice, away_from=None)
            events.extend(fled)
    state, drifted = _drift(state)
    events.extend(drifted)
    state, moved = _move_to_markers(state, dice, high_tech=False)
    events.extend(moved)
    state, ended = _check_end(state, dice)
    if ended:
        return state, events + ended
    totals: dict[str, int] = {}
    maxed: list[str] = []  # the sides that rolled their maximum pips (a weather throw each)
    sides = []
    for side in state.sides:
        before = len(dice.rolls)
        total = 0
        for cmd in [u for u in state.units if u.side == side.name and u.is_command]:
            spec = cmd.type.pips
            assert spec is not None
            total += roll_pool(dice, level=spec.level, tech_count=spec.tech_count,
                               average=spec.average,
                               purpose=f"pips: {cmd.id}").kept
        top = _max_pips(state, side.name)
        if top and total == top:
            maxed.append(side.name)
        jam = min(side.jammed, total)
        total -= jam
        totals[side.name] = total
        sides.append(replace(side, pips=total, rolled=total, rolled_before=side.rolled,
                             jammed=0))
        events.append(BattleEvent(kind="pips", text=f"{side.name} rolls {total} "
                                  f"pip{'' if total == 1 else 's'}"
                                  + (f" ({jam} jammed by enemy signals)" if jam else "") + ".",
                                  data={"side": side.name, "pips": total},
                                  rolls=tuple(dice.rolls[before:])))
    order = [s.name for s in state.sides]
    phasing = tuple(sorted(order, key=lambda n: (-totals[n], order.index(n))))
    state = replace(state, sides=tuple(sides), phasing=phasing, acting=0, step="command")
    events.append(BattleEvent(kind="phasing", text="Phasing order: " + ", ".join(phasing)
                              + ".", data={"phasing": list(phasing)}))
    if state.settings.weather:
        state, climate = _climate(state, maxed, dice)
        events.extend(climate)
    return state, events


def _resupply(state: GraspBattle) -> tuple[GraspBattle, list[BattleEvent]]:
    events: list[BattleEvent] = []
    for supplier in [u for u in state.units if u.type.has(Special.SUPPLY)]:
        supplier = state.unit(supplier.id)
        if supplier.fatigue is None:
            continue
        friends = [u for u in state.units if u.side == supplier.side and u.id != supplier.id
                   and state.field.in_contact(u.pos, supplier.pos)
                   and u.fatigue != u.type.fatigue
                   and not u.fleeing]
        if not friends:
            continue
        try:
            result = resupply(
                supplier=supplier.fatigue, supplier_moving=False,
                recipients=[SupplyRecipient(name=f.id, fatigue=f.fatigue, full=f.type.fatigue)
                            for f in friends])
        except GraspError:
            continue
        for given in result.recipients:
            if given.dice:
                state = _put(state, replace(state.unit(given.name),
                                            fatigue=given.fatigue_after))
        state = _put(state, replace(supplier, fatigue=result.supplier_after))
        if any(g.dice for g in result.recipients):
            events.append(BattleEvent(kind="resupply", text=f"{supplier.id} resupplies "
                                      + ", ".join(f"{g.name} to {format_level(g.fatigue_after)}"
                                                  for g in result.recipients if g.dice)
                                      + f"; it is down to {format_level(result.supplier_after)}."))
    return state, events


def _move_roll(state: GraspBattle, unit: GraspUnit, dice: Dice, purpose: str, *,
               toward: Pos | None = None) -> int:
    """Its move in MU (a move die rolled, −1 without fatigue), after the wind in force for
    a unit going toward `toward` (its marker unless given)."""
    move = unit.attributes.mv if isinstance(unit.type.move, DieSpec) else unit.type.move
    if move is None:
        return 0
    if isinstance(move, DieSpec):
        kept = roll_pool(dice, level=move.level, tech_count=move.tech_count,
                         average=move.average,
                         purpose=f"{purpose}: {unit.id}").kept
        move = max(0, kept - (1 if unit.fatigue is None else 0))
    goal = toward if toward is not None else unit.marker
    winds = [w for w in state.weather if w.blowing]
    way = 0
    if winds and goal is not None and goal != unit.pos:
        facing = state.field.facing_toward(unit.pos, goal)
        way = state.field.wind_way(facing, winds[-1].blowing)
    return scaled(move, move_factor(state.weather, level=unit.level, way=way,
                                    swimmer=unit.type.has(Special.SWIMMER)))


def _walk(state: GraspBattle, unit: GraspUnit, goal: Pos, budget: int, *,
          approach: bool = True, fleeing: bool = False) -> tuple[GraspUnit, list[Pos]]:
    """Toward `goal` while the MU budget pays (the board says how): a unit stops on coming
    into contact with an enemy (a fleeing one runs on), and one without a fatigue die never
    closes in on an enemy. It turns to face its way."""
    end, path = state.field.walk(_mover(state, unit), unit.pos, goal, budget,
                                 others=state.others(unit),
                                 enemies=state.enemies(unit, same_level=True),
                                 approach=approach,
                                 stop_at_contact=not fleeing,
                                 passable=[u.pos for u in state.units if u.id != unit.id
                                           and _passes(state, unit, u, goal)])
    if not path:
        return unit, path
    return replace(unit, pos=end, facing=state.field.facing_toward(unit.pos, end)), path


def _unshaken(unit: GraspUnit) -> bool:
    """It has suffered no adverse combat result: its fatigue die is still its full one."""
    return unit.fatigue is not None and unit.fatigue >= unit.type.fatigue


def _passes(state: GraspBattle, mover: GraspUnit, other: GraspUnit, goal: Pos) -> bool:
    """Passing through: a friend facing the way the mover goes (it turns to face its way)
    or the opposite way; a small unit, by any friend or an unshaken enemy; an unshaken small
    unit passes through any unit."""
    if mover.type.has(Special.SMALL) and _unshaken(mover) or other.level != mover.level:
        return True  # (a unit at another level is flown over or tunnelled under)
    if other.type.has(Special.SMALL):
        return other.side == mover.side or _unshaken(mover)
    return other.side == mover.side and goal != mover.pos and state.field.aligned(
        state.field.facing_toward(mover.pos, goal), other.facing)


TELEPORT_CLEAR_MU = 3


def _teleport(state: GraspBattle, unit: GraspUnit) -> tuple[GraspBattle, BattleEvent] | None:
    """A teleporting unit jumps to its marker when the place is free, not within 3 MU of an
    enemy, and it did not teleport last turn (it moves every other turn at most)."""
    if not unit.type.has(Special.TELEPORT) or unit.marker is None \
            or (unit.teleported and unit.teleported >= state.turn - 1):
        return None
    to = unit.marker
    board = state.field
    if board.going(to) is TerrainClass.IMPASSABLE \
            or any(board.overlap(to, p) for p in state.others(unit)) \
            or any(board.within(to, e, TELEPORT_CLEAR_MU) for e in state.enemies(unit)):
        return None
    moved = replace(unit, pos=to, marker=None, teleported=state.turn)
    state = replace(_put(state, moved), busy=True)
    return state, BattleEvent(kind="teleport", text=f"{unit.id} teleports from "
                              f"{state.label(unit.pos)} to {state.label(to)}.",
                              data={"unit": unit.id, "at": board.pos_json(to)})


CONDITIONS = ("wet-cold", "wet", "wet-hot", "temperate", "dry-cold", "dry", "dry-hot")
# 4d6 → the prevailing conditions (the source's table read without its overlaps at 5 and 9).
CONDITION_BANDS = ((5, "wet-cold"), (7, "wet"), (9, "wet-hot"), (17, "temperate"),
                   (19, "dry-cold"), (22, "dry"), (24, "dry-hot"))


def condition_for_roll(total: int) -> str:
    return next(name for top, name in CONDITION_BANDS if total <= top)


def _mover(state: GraspBattle, unit: GraspUnit) -> Mover:
    """How the unit moves through terrain, un-preferred conditions included."""
    side = state.side(unit.side)
    return replace(unit.mover, unpreferred=bool(side.unpreferred)
                   and side.unpreferred == state.conditions)


def _route(state: GraspBattle, mover: GraspUnit, start: Pos, path: Sequence[Pos]) -> str:
    """The way a unit went, and whom it passed through (or over, or under) on it."""
    crossed = [u for u in state.units if u.pos != start and u.pos not in path[-1:]
               and state.field.crossed(start, path, u.pos)]
    through = [u.id for u in crossed if u.level == mover.level]
    over = [u.id for u in crossed if u.level < mover.level]
    under = [u.id for u in crossed if u.level > mover.level]
    notes = [f"{how} {', '.join(ids)}" for how, ids in (
        ("passing through", through), ("passing over", over), ("passing under", under)) if ids]
    return " → ".join(state.label(p) for p in (start, *path)) + (
        f" ({'; '.join(notes)})" if notes else "")


def _drifting(state: GraspBattle, unit: GraspUnit) -> bool:
    """A flyer without fatigue in a void: it goes on in a straight line, out of command."""
    return state.settings.void and unit.fatigue is None and unit.level > Level.SURFACE


def _drift(state: GraspBattle) -> tuple[GraspBattle, list[BattleEvent]]:
    """In a void a flyer without fatigue moves on straight ahead at its speed (its move, a
    die's maximum) each turn until it is boarded, captured, destroyed or leaves the field;
    it stops short of a unit at its level."""
    events: list[BattleEvent] = []
    board = state.field
    for unit in [u for u in state.units if _drifting(state, u)]:
        speed = _move_top(unit)
        steps = max(1, speed // state.settings.mu_per_hex) if isinstance(board, HexField) \
            else speed
        at: Pos | None = unit.pos
        path: list[Pos] = []
        for _ in range(steps if speed else 0):
            assert at is not None
            nxt = board.ahead(at, unit.facing)
            if nxt is not None and any(board.overlap(nxt, u.pos) for u in state.units
                                       if u.id != unit.id and u.level == unit.level):
                break
            at = nxt
            if at is None:
                break
            path.append(at)
        if at is None:
            state = replace(_gone(state, unit, "drifted off the field"), busy=True)
            events.append(BattleEvent(kind="drift", text=f"{unit.id}, without fatigue in the "
                                      "void, drifts off the field.", data={"unit": unit.id}))
        elif path:
            state = replace(_put(state, replace(unit, pos=at)), busy=True)
            events.append(BattleEvent(kind="drift", text=f"{unit.id}, without fatigue in the "
                                      f"void, drifts on to {state.label(at)}.",
                                      data={"unit": unit.id, "at": board.pos_json(at)}))
    return state, events


def _next_level(unit: GraspUnit) -> Level:
    """One level a move: a flyer without fatigue must go down; otherwise toward the level its
    marker sends it to."""
    if unit.fatigue is None and unit.level > Level.SURFACE:
        return Level(unit.level - 1)
    goal = unit.marker_level if unit.marker_level is not None else unit.level
    return Level(unit.level + (goal > unit.level) - (goal < unit.level))


def _level_text(unit: GraspUnit, to: Level) -> str:
    if to == unit.level:
        return ""
    return f"; it {'climbs' if to > unit.level else 'descends'} to {to.label}"


def _descend_unordered(state: GraspBattle) -> tuple[GraspBattle, list[BattleEvent]]:
    """A flyer without fatigue and without a marker still goes down a level each turn."""
    events: list[BattleEvent] = []
    for unit in [u for u in state.units if u.marker is None and u.fatigue is None
                 and u.level > Level.SURFACE and not u.fleeing and not _drifting(state, u)]:
        to = _next_level(unit)
        state = replace(_put(state, replace(unit, level=to)), busy=True)
        events.append(BattleEvent(kind="level", text=f"{unit.id}, without fatigue, descends "
                                  f"to {to.label}.", data={"unit": unit.id,
                                                           "level": to.label}))
    return state, events


def _move_to_markers(state: GraspBattle, dice: Dice, *, high_tech: bool
                     ) -> tuple[GraspBattle, list[BattleEvent]]:
    """Units move toward their markers: at the turn's step 3 those under low-tech command
    (their orders arrive a turn late), after the markers are placed those under high-tech
    command (and tired flyers without a marker go down a level)."""
    state, events = _descend_unordered(state) if high_tech else (state, [])
    for unit in [u for u in state.units if u.marker is not None and not u.fleeing
                 and u.marker_high_tech == high_tech and not _drifting(state, u)]:
        unit = state.unit(unit.id)
        assert unit.marker is not None
        if any(state.field.in_contact(e, unit.pos)
               for e in state.enemies(unit, same_level=True)):
            continue  # in close combat: it holds
        jumped = _teleport(state, unit)
        if jumped is not None:
            state, event = jumped
            events.append(event)
            continue
        board = state.field
        limit = 180 if unit.type.has(Special.AGILE) else 45 if unit.type.has(
            Special.CLUMSY) else 90
        way = board.facing_toward(unit.pos, unit.marker) if unit.marker != unit.pos else None
        if way is not None and not board.turn_ok(unit.facing, way, limit):
            facing = board.turned(unit.facing, way, limit)
            state = replace(_put(state, replace(unit, facing=facing)), busy=True)
            events.append(BattleEvent(
                kind="turn", text=f"{unit.id} spends its move turning toward its marker at "
                f"{state.label(unit.marker)}, to face {_facing_text(state, facing)} (it turns "
                f"at most {board.turn_text(limit)} a move).",
                data={"unit": unit.id, "facing": board.facing_json(facing)}))
            continue
        before = len(dice.rolls)
        budget = _move_roll(state, unit, dice, "move")
        to_level = _next_level(unit)
        down = to_level < unit.level and state.field.going(unit.pos) is TerrainClass.GOOD
        if down:
            budget = budget * 3 // 2  # going down a level in good going: 1.5 × its move
        moved, path = _walk(state, unit, unit.marker, budget,
                            approach=unit.fatigue is not None)
        moved = replace(moved, level=to_level)
        if moved.pos == unit.marker and (moved.marker_level in (None, to_level)):
            moved = replace(moved, marker=None, marker_level=None)
        state = _put(state, moved)
        if path or to_level != unit.level:
            state = replace(state, busy=True)
        events.append(BattleEvent(
            kind="move", text=f"{unit.id} moves {budget} MU"
            + (" (1.5 × going down)" if down else "") + " toward its marker at "
            f"{state.label(unit.marker)}: "
            f"{_route(state, unit, unit.pos, path) if path else 'it cannot get closer'}"
            + _level_text(unit, to_level)
            + (" (reached)." if moved.marker is None else "."),
            data={"unit": unit.id, "at": state.field.pos_json(moved.pos),
                  "level": to_level.label},
            rolls=tuple(dice.rolls[before:])))
        if path:
            state, dusty = _dust(state, unit, state.unit(unit.id))
            events.extend(dusty)
            state, struck = _into_mines(state, unit, path, dice)
            events.extend(struck)
    return state, events


def _dust(state: GraspBattle, was: GraspUnit, unit: GraspUnit
          ) -> tuple[GraspBattle, list[BattleEvent]]:
    """(The setting `dust`.) A unit that moved on the ground in dry conditions, or along the
    seabed (a swimmer at the deepest level) in good going, leaves 1 MU of dust next to it,
    down-wind (with no wind, behind it): difficult going until the next turn begins."""
    board = state.field
    ground = unit.level == Level.SURFACE and state.conditions.startswith("dry")
    seabed = unit.type.has(Special.SWIMMER) and unit.level == Level.DISTANT_BELOW \
        and board.going(was.pos) is TerrainClass.GOOD
    if not state.settings.dust or not (ground or seabed):
        return state, []
    winds = [w.blowing for w in state.weather if w.blowing]
    way = board.downwind(winds[-1]) if winds else board.behind_of(unit.facing)
    at = board.ahead(unit.pos, way)
    if at is None or any(board.overlap(at, c.at) for c in state.clouds):
        return state, []
    state, event = _cloud(state, "dust", at)
    return state, [replace(event, text=f"{unit.id} raises dust: it covers "
                           f"{state.label(at)}" + (", down-wind" if winds else ", behind it")
                           + ".")]


def _into_mines(state: GraspBattle, unit: GraspUnit, path: Sequence[Pos], dice: Dice
                ) -> tuple[GraspBattle, list[BattleEvent]]:
    """After a move along `path` from where `unit` stood: mines where it ended engage it."""
    came_from = path[-2] if len(path) > 1 else unit.pos
    return _minefield(state, state.unit(unit.id), came_from, dice)


def _minefield(state: GraspBattle, unit: GraspUnit, came_from: Pos, dice: Dice
               ) -> tuple[GraspBattle, list[BattleEvent]]:
    """A unit that enters mines fights them at once: the mines are going of their class with
    a close combat die. A beaten unit loses as in any combat and recoils the way it came;
    beaten mines make the terrain one class easier and thin out with it (doubled: harder)."""
    board = state.field
    mines = board.mines_at(unit.pos)
    if mines is None or mines.cc is None:
        return state, []
    where = state.label(unit.pos)
    before = len(dice.rolls)
    try:
        result = resolve_close_combat(CloseCombat(
            attacker=Side(unit=_fighter(state, unit,
                                        unit.attributes.cc or DieSpec(level=DieLevel.D4))),
            defender=Side(unit=Fighter(name=f"the mines at {where}", die=mines.cc,
                                       terrain=board.ground(unit.pos), mines=mines,
                                       moves=False)),
            defender_terrain=mines.going), dice=dice)
    except GraspError as exc:
        raise BattleError(str(exc), rule="mines") from exc
    events = [BattleEvent(kind="mines", text=f"{unit.id} runs into the mines at {where}: "
                          + "; ".join(result.explanation) + ".",
                          data={"result": result.to_dict()}, rolls=tuple(dice.rolls[before:]))]
    for out in result.outcomes:
        if out.name != unit.id:
            if out.terrain_after is not None:
                state = replace(state, field=board.with_ground(unit.pos, out.terrain_after,
                                                               out.mines_after))
            continue
        state, hurt, lost = _suffer(state, unit, out, captor="")
        events.extend(lost)
        if hurt is not None and out.recoils and came_from != unit.pos and not any(
                board.overlap(came_from, p) for p in state.others(unit)):
            state = _put(state, replace(hurt, pos=came_from))
            events.append(BattleEvent(kind="recoil", text=f"{unit.id} recoils to "
                                      f"{state.label(came_from)}."))
    state, ended = _check_end(state, dice)
    return state, events + ended


def _flee(state: GraspBattle, unit: GraspUnit, dice: Dice, *, away_from: Pos | None
          ) -> tuple[GraspBattle, list[BattleEvent]]:
    """A full flee move: captured if enemies are already in contact; otherwise toward a
    friendly supply unit, then a command unit, within 10 MU, else the side's base edge,
    where it leaves the field."""
    board = state.field
    if unit.type.has(Special.DENIZEN):
        state = _gone(state, unit, "was forced from its terrain")
        return state, [BattleEvent(kind="eliminated", text=f"{unit.id}, a denizen driven to "
                                   "flee its terrain, is removed.")]
    holding = [e for e in state.units if e.side != unit.side and not e.hidden
               and e.level == unit.level and board.in_contact(e.pos, unit.pos)]
    if away_from is not None and len(holding) > 1:
        captor = next((e.side for e in holding if e.pos == away_from), holding[0].side)
        state = _gone(state, unit, "was captured", captor=captor)
        return state, [BattleEvent(kind="captured", text=f"{unit.id} tries to flee but enemies "
                                   "are already in contact: it is captured.")]
    shelters = [u for u in state.units if u.side == unit.side and u.id != unit.id
                and board.within(u.pos, unit.pos, FLEE_SHELTER_MU)]
    goal_unit = next((u for u in shelters if u.type.has(Special.SUPPLY)), None) or next(
        (u for u in shelters if u.is_command), None)
    edge = state.side(unit.side).edge
    goal = goal_unit.pos if goal_unit else board.edge_goal(unit.pos, edge)
    before = len(dice.rolls)
    budget = _move_roll(state, unit, dice, "flee", toward=goal)
    moved, path = _walk(state, unit, goal, budget, fleeing=True)
    fleeing = replace(moved, fleeing=True, marker=None)
    rolls = tuple(dice.rolls[before:])
    toward = f"{goal_unit.id}" if goal_unit else f"its {edge} edge"
    if goal_unit is None and board.at_edge(moved.pos, edge):
        state = _gone(state, unit, "fled the field")
        return state, [BattleEvent(kind="fled", text=f"{unit.id} flees {budget} MU toward "
                                   f"{toward} and leaves the field.", rolls=rolls)]
    if goal_unit is not None and board.in_contact(moved.pos, goal_unit.pos):
        fleeing = replace(fleeing, fleeing=False)
    state = _put(state, fleeing)
    where = _route(state, unit, unit.pos, path) if path else "nowhere"
    events = [BattleEvent(kind="flee", text=f"{unit.id} flees {budget} MU toward "
                          f"{toward}: {where}"
                          + ("; it rallies there." if not fleeing.fleeing else "."),
                          data={"unit": unit.id, "at": board.pos_json(moved.pos)},
                          rolls=rolls)]
    if path:
        state, spread = _rout(state, fleeing, dice)
        events.extend(spread)
        if any(u.id == unit.id for u in state.units):
            state, struck = _into_mines(state, unit, path, dice)
            events.extend(struck)
    return state, events


def _rout(state: GraspBattle, runner: GraspUnit, dice: Dice
          ) -> tuple[GraspBattle, list[BattleEvent]]:
    """Each friend the fleeing unit comes into contact with rolls a d6: less than its fatigue
    die's value and it holds, otherwise it joins the rout (it flees in the next move)."""
    events: list[BattleEvent] = []
    for friend in [u for u in state.units if u.side == runner.side and u.id != runner.id
                   and not u.fleeing and state.field.in_contact(u.pos, runner.pos)]:
        before = len(dice.rolls)
        roll = dice.roll(6, f"rout: {friend.id} contacted by {runner.id}")
        need = friend.fatigue.value if friend.fatigue is not None else 0
        joins = roll >= need
        if joins:
            state = _put(state, replace(friend, fleeing=True, marker=None))
        against = (f"against its {format_level(friend.fatigue)}" if friend.fatigue is not None
                   else "but has no fatigue die")
        events.append(BattleEvent(
            kind="rout", text=f"{friend.id}, contacted by the fleeing {runner.id}, rolls "
            f"{roll} {against}: " + ("it joins the rout." if joins else "it holds."),
            data={"unit": friend.id, "joins": joins}, rolls=tuple(dice.rolls[before:])))
    return state, events


def _rally(state: GraspBattle, order: GraspOrder) -> tuple[GraspBattle, list[BattleEvent]]:
    """A reserved pip holds a fleeing unit in contact with a command unit of its side."""
    unit = _own(state, order, order.unit, "unit")
    if not unit.fleeing:
        raise BattleError(f"{unit.id} is not fleeing.", rule="rally", field="unit")
    if not any(c.is_command and c.id != unit.id and state.field.in_contact(c.pos, unit.pos)
               for c in state.units if c.side == unit.side):
        raise BattleError(f"{unit.id} is held only in contact with a command unit of its "
                          "side.", rule="rally", field="unit")
    side = state.side(order.side)
    if side.reserved < 1:
        raise BattleError(f"{side.name} has no reserved pip to hold {unit.id}.", rule="pips",
                          field="unit")
    state = replace(_put(state, replace(unit, fleeing=False)),
                    sides=tuple(replace(s, reserved=s.reserved - 1) if s.name == side.name
                                else s for s in state.sides))
    return state, [BattleEvent(kind="rally", text=f"{side.name} holds the fleeing {unit.id} "
                               "with a reserved pip.")]


def _gone(state: GraspBattle, unit: GraspUnit, why: str, *, captor: str = ""
          ) -> GraspBattle:
    """The unit leaves the field and its side loses its points; a destroyed horde goes back
    to its base line, where it may re-spawn (its points are lost each time); a captured or
    surrendered unit is the `captor`'s prisoner."""
    cost = unit_cost(unit.type).total
    sides = tuple(replace(s, lost=s.lost + cost) if s.name == unit.side else s
                  for s in state.sides)
    units = tuple(u for u in state.units if u.id != unit.id)
    if (unit.type.has(Special.HORDE) or unit.type.has(Special.DENIZEN)) \
            and why == "was destroyed":
        back = Waiting(id=unit.id, side=unit.side, type=unit.type, facing=unit.facing,
                       respawn=True)
        return replace(state, units=units, sides=sides, waiting=(*state.waiting, back))
    prisoners = (*state.prisoners, (unit.id, captor)) if captor else state.prisoners
    return replace(state, units=units, gone=(*state.gone, (unit.id, why)), sides=sides,
                   prisoners=prisoners)


# ---------------------------------------------------------------------------
# The driver


def acting_sides(state: GraspBattle) -> tuple[str, ...]:
    if state.step == "over":
        return ()
    if state.step == "deploy":
        assert state.deployment is not None
        return (state.deployment.order[state.deployment.turn],)
    if state.step == "ambush":
        return (state.ambush_sides[state.acting],)
    if state.listening:
        return (state.listening[0],)
    return (state.phasing[state.acting],)


def step(*, state: GraspBattle, orders: Sequence[GraspOrder], dice: Dice
         ) -> StepResult[GraspBattle]:
    """Apply `orders` in order; each must come from the side that acts at that moment."""

    def check(state: GraspBattle, order: GraspOrder) -> None:
        state.side(order.side)
        if order.side not in acting_sides(state):
            now = (f"{state.listening[0]} may cancel the order to {state.issued} as it is "
                   "issued" if state.listening
                   else f"{acting_sides(state)[0]} phases in the {state.step} step")
            raise BattleError(f"{order.side} does not act now: {now}.", rule="turn")

    def apply(state: GraspBattle, order: GraspOrder, dice: Dice
              ) -> tuple[GraspBattle, list[BattleEvent]]:
        state, events = _apply(state, order, dice)
        state, seen = _reveal(state)
        return state, events + seen

    return apply_orders(state, orders, dice, over=lambda s: s.step == "over", check=check,
                        apply=apply)


def _apply(state: GraspBattle, order: GraspOrder, dice: Dice
           ) -> tuple[GraspBattle, list[BattleEvent]]:
    if state.step == "deploy":
        return _deploy_order(state, order, dice)
    if state.listening:
        return _answer(state, order)
    if order.kind == "done":
        return _done(state, order, dice)
    expected = {"command": ("marker", "enter", "off_table", "jam", "rally", "extinguish",
                            "environment", "recover"),
                "ambush": ("fire", "ambush_move"), "fire": ("fire",),
                "combat": ("fight",)}[state.step]
    if order.kind not in expected:
        kinds = ", ".join(expected[:-1]) + (" or " if len(expected) > 1 else "") + expected[-1]
        raise BattleError(f"In the {state.step} step a side gives {kinds} orders or is done.",
                          rule="turn", field="kind")
    if order.kind == "marker":
        was = state.unit(order.unit, "unit")
        state, events = _marker(state, order)
        return _listen(state, events, order, was)
    if order.kind in ("enter", "off_table"):
        return _reserve(state, order)
    if order.kind == "jam":
        return _jam(state, order)
    if order.kind == "rally":
        return _rally(state, order)
    if order.kind == "extinguish":
        return _extinguish(state, order, dice)
    if order.kind == "environment":
        return _environment(state, order, dice)
    if order.kind == "recover":
        return _recover(state, order)
    if order.kind == "fire" and order.lay:
        return _lay(state, order, dice)
    if order.kind == "ambush_move":
        return _ambush_move(state, order, dice)
    if order.kind == "fire":
        return _fire(state, order, dice)
    return _fight(state, order, dice)


def _place(state: GraspBattle, order: GraspOrder, *, rule: str) -> Pos:
    """The place an order names (`to`): a position of the board, or a refusal naming it."""
    if isinstance(order.to, Hex | Point):
        return order.to
    try:
        return state.field.pos_from_json(order.to, "to")
    except InputError as exc:
        raise BattleError(exc.message, rule=rule, field="to") from exc


def _fire_reach(state: GraspBattle, unit: GraspUnit) -> int | None:
    """Its fire range in MU (a range die: its maximum), after the wind in force (a +Tech
    range is spared the ½); None when it has none."""
    r = unit.type.fire_range
    if r is None:
        return None
    advanced = isinstance(r, DieSpec) and r.tech_count > 0
    return scaled(r.top if isinstance(r, DieSpec) else r,
                  range_factor(state.weather, advanced=advanced))


def _firing(state: GraspBattle, unit: GraspUnit) -> tuple[DieSpec, int]:
    """A unit about to fire: its fire strength and reach, or a refusal saying why not."""
    fs, reach = unit.attributes.fs, _fire_reach(state, unit)
    if fs is None or reach is None or unit.fleeing:
        raise BattleError(f"{unit.id} cannot fire: it has no fire strength left, no fire range "
                          "or is fleeing.", rule="fire", field="unit")
    return fs, reach


def _own(state: GraspBattle, order: GraspOrder, name: str, field: str) -> GraspUnit:
    unit = state.unit(name, field)
    if unit.side != order.side:
        raise BattleError(f"{unit.id} is not a unit of {order.side}.", rule="units",
                          field=field)
    return unit


def _done(state: GraspBattle, order: GraspOrder, dice: Dice
          ) -> tuple[GraspBattle, list[BattleEvent]]:
    events: list[BattleEvent] = []
    if state.step == "command":
        side = state.side(order.side)
        state = replace(state, sides=tuple(replace(s, reserved=s.pips, pips=0)
                                           if s.name == side.name else s
                                           for s in state.sides))
        events.append(BattleEvent(kind="done", text=f"{order.side} reserves {side.pips} "
                                  f"pip{'' if side.pips == 1 else 's'}."))
        unplaced = [w for w in state.weather if w.side == order.side and _unplaced(w)]
        if unplaced:
            state = replace(state, weather=tuple(replace(w, sector="") if w in unplaced else w
                                                 for w in state.weather))
            events.append(BattleEvent(kind="weather", text=f"{order.side} placed no "
                                      "environmental terrain: the event passes."))
    else:
        events.append(BattleEvent(kind="done", text=f"{order.side} is done with the "
                                  f"{state.step} step."))
    if state.step == "ambush":
        if state.acting + 1 < len(state.ambush_sides):
            return replace(state, acting=state.acting + 1), events
        state, cleared = _clear_smoke(state)
        return replace(state, step="fire", acting=0, ambush_sides=()), events + cleared
    if state.acting + 1 < len(state.phasing):
        return replace(state, acting=state.acting + 1), events
    if state.step == "command":
        state, moved = _move_to_markers(state, dice, high_tech=True)
        state, sprung = _spring_ambushes(replace(state, acted=(), ambushers=()))
        if state.ambushers:
            return replace(state, step="ambush", acting=0), events + moved + sprung
        state, cleared = _clear_smoke(state)
        return replace(state, step="fire", acting=0), events + moved + cleared
    if state.step == "fire":
        return replace(state, step="combat", acting=0, acted=()), events
    state, aboard = _boarding_actions(state, dice)
    events.extend(aboard)
    if state.step == "over":
        return state, events
    state, ended = _end_turn(state, dice)
    return state, events + ended


def _span(state: GraspBattle, command: GraspUnit) -> int:
    """A command unit's command range in MU, after the wind in force (advanced, high-tech,
    command is spared the ½)."""
    return scaled(command.type.command_range,
                  range_factor(state.weather, advanced=command.type.command_high_tech))


def _in_span(state: GraspBattle, command: GraspUnit, unit: GraspUnit) -> bool:
    """Within the command unit's span; halved when smoke or a fire hides the unit from a
    low-tech command unit and neither flies above it (high tech ignores what intervenes)."""
    span = _span(state, command)
    if not command.type.command_high_tech and command.level <= Level.SURFACE \
            and unit.level <= Level.SURFACE and _blocked(state, command.pos, unit.pos):
        span = max(1, span // 2)
    return state.field.within(command.pos, unit.pos, span)


def _command_cost(state: GraspBattle, unit: GraspUnit) -> tuple[int, str]:
    """1 pip within a command span, 2 beyond; a green unit's orders cost twice that; a
    berserk unit's first order 2, the others nothing. With why, when it is not 1."""
    green = 2 if unit.type.has(Special.GREEN) else 1
    if unit.type.has(Special.BERSERK):
        return (0, " (berserk: free after its first order)") if unit.unleashed else (
            2 * green, " (berserk: its first order)")
    spans = [c for c in state.units if c.side == unit.side and c.is_command
             and _in_span(state, c, unit)]
    return (1 if spans else 2) * green, "" if spans else " (beyond every command span)"


RESERVE_PIPS = 6


def _max_pips(state: GraspBattle, side: str) -> int:
    return sum(u.type.pips.top for u in state.units
               if u.side == side and u.type.pips is not None)


def _pip_score_ok(state: GraspBattle, side: GraspSide) -> bool:
    """A pip score of 6 or more this turn (reserves, off-table fire); a side whose pip dice
    cannot reach 6 needs their maximum last turn and 3 or more now."""
    top = _max_pips(state, side.name)
    return side.rolled >= RESERVE_PIPS or (
        0 < top < RESERVE_PIPS and side.rolled_before == top and side.rolled >= 3)


def _reserve(state: GraspBattle, order: GraspOrder) -> tuple[GraspBattle, list[BattleEvent]]:
    """A reserve comes on at its side's base edge (a pip score of 6 or more this turn; a side
    whose pip dice cannot reach 6 needs its maximum last turn and 3 or more now), or is
    reallocated off-table; either costs 1 pip (2 for green troops)."""
    side = state.side(order.side)
    unit = next((w for w in state.waiting if w.id == order.unit and w.side == side.name
                 and not w.off_table and not w.aboard), None)
    if unit is None:
        raise BattleError(f"{side.name} has no unit {order.unit!r} in reserve.",
                          rule="reserves", field="unit")
    cost = (2 if unit.type.has(Special.GREEN) else 1) * (2 if unit.respawn else 1)
    if side.pips < cost:
        raise BattleError(f"{side.name} has {side.pips} pips left; this costs {cost}.",
                          rule="pips", field="unit")
    rest = tuple(w for w in state.waiting if w.id != unit.id)
    spend = tuple(replace(s, pips=s.pips - cost) if s.name == side.name else s
                  for s in state.sides)
    if order.kind == "off_table" and unit.respawn:
        raise BattleError(f"{unit.id} is a horde waiting to re-spawn, not a reserve.",
                          rule="reserves", field="unit")
    if order.kind == "off_table":
        state = replace(state, sides=spend, busy=True,
                        waiting=(*rest, replace(unit, off_table=True)))
        return state, [BattleEvent(kind="off_table", text=f"{side.name} reallocates "
                                   f"{unit.id} off-table ({cost} pip{'s' if cost > 1 else ''}).")]
    if not unit.respawn and not _pip_score_ok(state, side):
        raise BattleError(f"{side.name} rolled {side.rolled} pips: reserves come on with a "
                          f"pip score of {RESERVE_PIPS} or more (with pip dice that cannot "
                          "reach it, their maximum last turn and 3 or more now).",
                          rule="reserves", field="unit")
    if order.to is None:
        raise BattleError("A reserve comes on at a place on its side's base edge.",
                          rule="reserves", field="to")
    to = _place(state, order, rule="reserves")
    board = state.field
    free = board.contains(to) and not any(board.overlap(to, u.pos) for u in state.units)
    if unit.type.has(Special.DENIZEN) and unit.respawn:
        if not free or board.going(to) not in AMBUSH_GOING:
            raise BattleError(f"{unit.id}, a denizen, re-spawns at a free place of light or "
                              f"difficult terrain, not {board.label(to)}.", rule="reserves",
                              field="to")
    elif not free or not board.at_edge(to, side.edge) \
            or board.going(to) is TerrainClass.IMPASSABLE:
        raise BattleError(f"{unit.id} comes on at a free place of {side.name}'s {side.edge} "
                          f"edge, not {board.label(to)}.", rule="reserves", field="to")
    entered = GraspUnit(id=unit.id, side=unit.side, type=unit.type, pos=to,
                        facing=unit.facing, fatigue=unit.type.fatigue, concealed=state.blind,
                        attributes=_fresh(unit.type))
    state = replace(state, sides=spend, busy=True, waiting=rest,
                    units=(*state.units, entered))
    how = (f"re-spawns at {board.label(to)} ({cost} pips)" if unit.respawn
           else f"comes on at {board.label(to)} ({side.name} rolled {side.rolled} pips; "
           f"{cost} pip{'s' if cost > 1 else ''})")
    return state, [BattleEvent(kind="enter", text=f"{unit.id} {how}.",
                               data={"unit": unit.id, "at": board.pos_json(to)})]


SIGNALS_ORDER_PIPS = 4


def _signals(state: GraspBattle, side: str) -> list[GraspUnit]:
    """The side's command units that paid for high-tech command (2 points per MU of span):
    only they may intercept and disrupt, and only an enemy that paid as much."""
    return [u for u in state.units if u.side == side and u.is_command
            and u.type.command_high_tech]


def _enemy_marker(state: GraspBattle, order: GraspOrder, unit: GraspUnit
                  ) -> tuple[int, str]:
    """Signals warfare: an order to an enemy unit within the command range of one of the
    side's high-tech command units, when the enemy's command is high tech too (4 pips)."""
    mine = [c for c in _signals(state, order.side)
            if state.field.within(c.pos, unit.pos, _span(state, c))]
    if not mine or not _signals(state, unit.side):
        raise BattleError(f"{unit.id} is an enemy unit: {order.side} may order it only with a "
                          "high-tech command unit within command range, against an enemy "
                          "whose command is high tech too.", rule="signals", field="unit")
    return SIGNALS_ORDER_PIPS, f" (signals warfare: {mine[0].id} orders an enemy unit)"


CANCEL_PIPS = 2


def _listen(state: GraspBattle, events: list[BattleEvent], order: GraspOrder,
            was: GraspUnit) -> tuple[GraspBattle, list[BattleEvent]]:
    """A marker just issued by a high-tech command opens a window for every enemy side whose
    command is high tech too and holds 2 reserved pips: it may cancel the order as issued."""
    if not _signals(state, order.side):
        return state, events
    listeners = tuple(s.name for s in state.sides if s.name != order.side
                      and s.reserved >= CANCEL_PIPS and _signals(state, s.name))
    if not listeners:
        return state, events
    return replace(state, listening=listeners, issued=order.unit, marker_before=was.marker,
                   level_before=was.marker_level), events


def _answer(state: GraspBattle, order: GraspOrder) -> tuple[GraspBattle, list[BattleEvent]]:
    """In the window: `cancel` (2 reserved pips: the marker goes back to what it was; the
    pips paid for it stay spent) or `pass`."""
    if order.kind not in ("cancel", "pass"):
        raise BattleError(f"{order.side} may cancel {state.issued}'s order as it is issued, "
                          f"for {CANCEL_PIPS} reserved pips, or let it pass.",
                          rule="signals", field="kind")
    if order.kind == "pass":
        event = BattleEvent(kind="pass", text=f"{order.side} lets the order to {state.issued} "
                            "pass.")
        rest = state.listening[1:]
        return (replace(state, listening=rest) if rest else _close(state)), [event]
    unit = state.unit(state.issued)
    side = state.side(order.side)
    state = replace(_close(_put(state, replace(unit, marker=state.marker_before,
                                               marker_level=state.level_before))),
                    sides=tuple(replace(s, reserved=s.reserved - CANCEL_PIPS)
                                if s.name == side.name else s for s in state.sides))
    return state, [BattleEvent(kind="cancel", text=f"{side.name}'s signals cancel the order to "
                               f"{unit.id} as it is issued ({CANCEL_PIPS} reserved pips).",
                               data={"unit": unit.id})]


def _close(state: GraspBattle) -> GraspBattle:
    return replace(state, listening=(), issued="", marker_before=None, level_before=None)


def _jam(state: GraspBattle, order: GraspOrder) -> tuple[GraspBattle, list[BattleEvent]]:
    """Signals warfare: reserved pips traded one for one off the enemy's next pip roll."""
    side = state.side(order.side)
    enemy = state.side(order.target)
    if enemy.name == side.name:
        raise BattleError("A side jams an enemy's command, not its own.", rule="signals",
                          field="target")
    if not _signals(state, side.name) or not _signals(state, enemy.name):
        raise BattleError("Only a high-tech command (2 points per MU of span) intercepts, and "
                          "only an enemy command that is high tech too.", rule="signals",
                          field="target")
    if not 1 <= order.pips <= side.reserved:
        raise BattleError(f"{side.name} has {side.reserved} reserved pips; it trades 1 or "
                          f"more of them, not {order.pips}.", rule="pips", field="pips")
    state = replace(state, sides=tuple(
        replace(s, reserved=s.reserved - order.pips) if s.name == side.name
        else replace(s, jammed=s.jammed + order.pips) if s.name == enemy.name else s
        for s in state.sides))
    return state, [BattleEvent(kind="jam", text=f"{side.name} trades {order.pips} reserved pip"
                               f"{'s' if order.pips > 1 else ''} to take as many off "
                               f"{enemy.name}'s next pip roll.")]


def _marker(state: GraspBattle, order: GraspOrder) -> tuple[GraspBattle, list[BattleEvent]]:
    unit = state.unit(order.unit, "unit")
    signals, enemy_cost = "", 0
    if unit.side != order.side:
        if unit.hidden:
            raise BattleError(f"There is no unit {order.unit!r} on the field.", rule="units",
                              field="unit")
        enemy_cost, signals = _enemy_marker(state, order, unit)
    if _drifting(state, unit):
        raise BattleError(f"{unit.id} has no fatigue die and drifts in the void: no order "
                          "reaches it.", rule="void", field="unit")
    if isinstance(order.to, Hex | Point):
        to: Pos = order.to
        if not state.field.contains(to):
            raise BattleError("A command marker is placed on the board.", rule="command",
                              field="to")
    else:
        try:
            to = state.field.pos_from_json(order.to, "to")
        except InputError as exc:
            raise BattleError(f"A command marker is placed on the board: {exc.message}",
                              rule="command", field="to") from exc
    if unit.fleeing:
        raise BattleError(f"{unit.id} is fleeing and takes no orders.", rule="command",
                          field="unit")
    _not_tending(state, unit)
    if unit.type.move is None:
        raise BattleError(f"{unit.id} cannot move; a marker would be wasted.", rule="command",
                          field="unit")
    height: Level | None = None
    if order.level:
        names = [lv.label for lv in BATTLE_LEVELS]
        if order.level not in names:
            raise BattleError(f"A level is one of {', '.join(names)}, not {order.level!r}.",
                              rule="levels", field="level")
        height = Level[order.level.upper()]
        why = _level_refused(unit.type, height)
        if why:
            raise BattleError(f"{unit.id}: {why}", rule="levels", field="level")
    cost, why = (enemy_cost, signals) if signals else _command_cost(state, unit)
    side = state.side(order.side)
    if not any(u.is_command for u in state.units if u.side == side.name):
        raise BattleError(f"{side.name} has no command unit left to place markers.",
                          rule="command", field="unit")
    if side.pips < cost:
        raise BattleError(f"{side.name} has {side.pips} pips left; this marker costs {cost}"
                          f"{why}.", rule="pips", field="unit")
    # A high-tech command's order takes effect at once; a low-tech one next turn (step 3).
    high = bool(signals) or _sent_high_tech(state, order.side, unit)
    group = _horde_group(state, unit)
    for mate in group:
        state = _put(state, replace(mate, marker=to, marker_level=height,
                                    marker_high_tech=high))
    state = replace(_put(state, replace(unit, marker=to, marker_level=height,
                                        marker_high_tech=high,
                                        unleashed=unit.unleashed or not signals)), busy=True,
                    sides=tuple(replace(s, pips=s.pips - cost) if s.name == side.name else s
                                for s in state.sides))
    return state, [BattleEvent(kind="marker", text=f"{side.name} places {unit.id}'s marker at "
                               f"{state.label(to)}"
                               + (f", {height.label}" if height is not None else "")
                               + f" ({cost} pip{'' if cost == 1 else 's'}){signals}"
                               + (f"; the hordes with it follow: "
                                  f"{', '.join(m.id for m in group)}" if group else "") + ".",
                               data={"unit": unit.id, "to": state.field.pos_json(to)})]


# ---------------------------------------------------------------------------
# Fire and close combat


def _horde_group(state: GraspBattle, unit: GraspUnit) -> list[GraspUnit]:
    """The other hordes grouped with a horde (friends in contact with it, or with one in
    contact with it, …): they may not separate, so an order to one is an order to all."""
    if not unit.type.has(Special.HORDE):
        return []
    hordes = [u for u in state.units if u.side == unit.side and u.type.has(Special.HORDE)
              and u.level == unit.level and not u.fleeing]
    group, edge = {unit.id}, [unit]
    while edge:
        here = edge.pop()
        for h in hordes:
            if h.id not in group and state.field.in_contact(h.pos, here.pos):
                group.add(h.id)
                edge.append(h)
    return [h for h in hordes if h.id in group and h.id != unit.id]


def _sent_high_tech(state: GraspBattle, side: str, unit: GraspUnit) -> bool:
    """Whether an order to the unit goes by high-tech command: a high-tech command unit of
    the side has it within its span (beyond every span: the side has one)."""
    commands = [c for c in state.units if c.side == side and c.is_command]
    spans = [c for c in commands if _in_span(state, c, unit)]
    return any(c.type.command_high_tech for c in (spans or commands))


def _order_of(state: GraspBattle, unit: GraspUnit) -> Order:
    """Loose for scouts and skirmishers; close when a friend stands right behind."""
    if unit.type.has(Special.SCOUT) or unit.type.has(Special.SKIRMISHER):
        return Order.LOOSE
    rear = any(state.field.behind(unit.pos, unit.facing, u.pos) for u in state.units
               if u.side == unit.side and u.id != unit.id)
    return Order.CLOSE if rear else Order.LOOSE


def _facing_text(state: GraspBattle, facing: Facing) -> str:
    value = state.field.facing_json(facing)
    return value if isinstance(value, str) else f"[{', '.join(map(str, value))}]" \
        if isinstance(value, list) else str(value)


def _fighter(state: GraspBattle, unit: GraspUnit, die: DieSpec) -> Fighter:
    t = unit.type
    return Fighter(
        name=unit.id, die=die, fatigue=unit.fatigue, order=_order_of(state, unit),
        size=Size.BIG if t.has(Special.BIG) else Size.SMALL if t.has(Special.SMALL)
        else Size.NORMAL,
        draw_is_loss=t.has(Special.SUPPLY) or t.has(Special.ENGINEER) or t.has(Special.GREEN),
        moves=t.move is not None, assault=t.has(Special.ASSAULT),
        engineer=t.has(Special.ENGINEER), attributes=unit.attributes,
        horde=t.has(Special.HORDE), large=t.has(Special.BIG) or t.has(Special.VEHICLE),
        tunneller=t.has(Special.TUNNELLER), level=unit.level,
    )


def _elite_pip(state: GraspBattle, order: GraspOrder, unit: GraspUnit) -> GraspBattle:
    """An elite unit adds 1 to its roll with a reserved pip (given before the roll)."""
    if not order.elite_pip:
        return state
    if not unit.type.has(Special.ELITE):
        raise BattleError(f"{unit.id} is not elite; only elite units add a reserved pip to "
                          "their own roll.", rule="pips", field="elite_pip")
    side = state.side(order.side)
    if side.reserved < 1:
        raise BattleError(f"{side.name} has no reserved pip left.", rule="pips",
                          field="elite_pip")
    return replace(state, sides=tuple(replace(s, reserved=s.reserved - 1)
                                      if s.name == side.name else s for s in state.sides))


def _supports(state: GraspBattle, order: GraspOrder, unit: GraspUnit, target: GraspUnit,
              *, fire: bool) -> list[GraspUnit]:
    out = []
    for i, name in enumerate(order.supports):
        helper = _own(state, order, name, f"supports[{i}]")
        if helper.id == unit.id or helper.id in state.acted:
            raise BattleError(f"{helper.id} has already acted this step or is the unit itself.",
                              rule="support", field=f"supports[{i}]")
        if fire:
            ok, why = _can_shoot(state, helper, target.pos)
            if not ok:
                raise BattleError(f"{helper.id} cannot fire at {target.id}: {why}.",
                                  rule="support", field=f"supports[{i}]")
        elif not state.field.in_contact(helper.pos, target.pos) \
                or helper.level != target.level:
            raise BattleError(f"{helper.id} is not in contact with {target.id}"
                              + ("" if helper.level == target.level
                                 else f" (it is at {helper.level.label})") + ".",
                              rule="support", field=f"supports[{i}]")
        out.append(helper)
    if len(out) > 2:
        raise BattleError("Up to 2 additional units may support.", rule="support",
                          field="supports")
    return out


def _can_shoot(state: GraspBattle, unit: GraspUnit, at: Pos) -> tuple[bool, str]:
    """Whether the unit may fire at the place `at` (a unit's, or terrain's), and why not."""
    t = unit.type
    if unit.attributes.fs is None or t.fire_range is None:
        return False, "it has no fire strength left or no fire range"
    if unit.fleeing:
        return False, "it is fleeing"
    reach = _fire_reach(state, unit) or 0
    if not state.field.within(unit.pos, at, reach):
        return False, (f"it is {state.field.gap_mu(unit.pos, at)} MU away, beyond "
                       f"its range of {reach} MU")
    if not state.field.in_arc(unit.facing, unit.pos, at) \
            and not t.has(Special.ALL_ROUND):
        return False, (f"it is outside the 45° arc ahead of {unit.id} (facing "
                       f"{_facing_text(state, unit.facing)}); only all-round fire reaches "
                       "another arc")
    cloud = _blocked(state, unit.pos, at)
    if cloud is not None and t.fire is not FireKind.INDIRECT:
        return False, (f"the {cloud.kind} at {state.label(cloud.at)} blocks the line of "
                       "sight (only indirect fire shoots over it)")
    if unit.id in state.tending:
        return False, f"{unit.id} is putting out a fire this turn"
    return True, ""


def _target(state: GraspBattle, order: GraspOrder) -> GraspUnit:
    """The order's target; an enemy ambusher not yet sprung is, to the orders, not there."""
    target = state.unit(order.target, "target")
    if target.hidden and target.side != order.side:
        raise BattleError(f"There is no unit {order.target!r} on the field.", rule="units",
                          field="target")
    return target


AMBUSH_GOING = (TerrainClass.LIGHT, TerrainClass.DIFFICULT)


def _reach_mu(state: GraspBattle, unit: GraspUnit) -> int:
    """How far an ambusher watches: its fire range, else its move (a die: its maximum)."""
    if unit.attributes.fs is not None and unit.type.fire_range is not None:
        return _fire_reach(state, unit) or 0
    return _move_top(unit)


def _move_top(unit: GraspUnit) -> int:
    """Its move in MU at most (a move die: its maximum)."""
    move = unit.type.move
    return 0 if move is None else move.top if isinstance(move, DieSpec) else move


def _spring_ambushes(state: GraspBattle) -> tuple[GraspBattle, list[BattleEvent]]:
    """Step 5: a hidden ambusher with a (known) enemy within its fire range, or its move if
    it cannot fire, is revealed and has one free activation."""
    events: list[BattleEvent] = []
    sprung: list[GraspUnit] = []
    for u in state.units:
        if not u.hidden:
            continue
        reach = _reach_mu(state, u)
        if any(state.field.within(u.pos, e, reach) for e in state.enemies(u)):
            sprung.append(u)
    for u in sprung:
        state = _put(state, replace(state.unit(u.id), hidden=False))
        events.append(BattleEvent(kind="ambush", text=f"Ambush! {u.id} is revealed at "
                                  f"{state.label(u.pos)} and acts at once.",
                                  data={"unit": u.id, "at": state.field.pos_json(u.pos)}))
    sides = tuple(s for s in state.phasing if any(u.side == s for u in sprung))
    return replace(state, ambushers=tuple(u.id for u in sprung), ambush_sides=sides), events


def _ambush_move(state: GraspBattle, order: GraspOrder, dice: Dice
                 ) -> tuple[GraspBattle, list[BattleEvent]]:
    """Step 6: an ambusher moves toward a place, paying a reserved pip."""
    unit = _own(state, order, order.unit, "unit")
    if unit.id not in state.ambushers or unit.id in state.acted:
        raise BattleError(f"{unit.id} has no ambush activation left.", rule="ambush",
                          field="unit")
    side = state.side(order.side)
    if side.reserved < 1:
        raise BattleError(f"{side.name} has no reserved pip to move {unit.id}.", rule="pips",
                          field="unit")
    goal = _place(state, order, rule="ambush")
    before = len(dice.rolls)
    budget = _move_roll(state, unit, dice, "ambush move", toward=goal)
    moved, path = _walk(state, unit, goal, budget)
    state = replace(_put(state, moved), acted=(*state.acted, unit.id), busy=True,
                    sides=tuple(replace(s, reserved=s.reserved - 1) if s.name == side.name
                                else s for s in state.sides))
    events = [BattleEvent(kind="ambush_move", text=f"{unit.id} moves {budget} MU from "
                          "ambush (1 reserved pip): "
                          + (_route(state, unit, unit.pos, path) if path else "it stays put")
                          + ".", rolls=tuple(dice.rolls[before:]))]
    if path:
        state, struck = _into_mines(state, unit, path, dice)
        events.extend(struck)
    return state, events


def _fire(state: GraspBattle, order: GraspOrder, dice: Dice
          ) -> tuple[GraspBattle, list[BattleEvent]]:
    if not order.target and order.to is not None:
        return _engage_terrain(state, order, dice)
    if _off_table(state, order.unit, side=order.side) or _off_table(state, order.target):
        return _fire_off_table(state, order, dice)
    unit = _own(state, order, order.unit, "unit")
    target = _target(state, order)
    if state.step == "ambush" and unit.id not in state.ambushers:
        raise BattleError(f"{unit.id} did not spring an ambush: only ambushers act now.",
                          rule="ambush", field="unit")
    if target.side == unit.side:
        raise BattleError(f"{target.id} is a unit of {unit.side}'s own side.", rule="fire",
                          field="target")
    if unit.id in state.acted:
        raise BattleError(f"{unit.id} has already fired this turn.", rule="fire", field="unit")
    ok, why = _can_shoot(state, unit, target.pos)
    if not ok:
        raise BattleError(f"{unit.id} cannot fire at {target.id}: {why}.", rule="fire",
                          field="target")
    helpers = _supports(state, order, unit, target, fire=True)
    fs = unit.attributes.fs
    assert fs is not None
    arc_penalty = not state.field.in_arc(unit.facing, unit.pos, target.pos)
    die = fs.lowered(1) if arc_penalty else fs
    if die is None:
        raise BattleError(f"{unit.id} fires from its second arc one die less, and has none "
                          "below d4.", rule="fire", field="target")
    state = _elite_pip(state, order, unit)
    firer = Side(unit=_fighter(state, unit, die), supports=tuple(
        _fighter(state, h, h.attributes.fs or die) for h in helpers),
        elite_pip=order.elite_pip)
    state = replace(state, acted=(*state.acted, unit.id, *(h.id for h in helpers)), busy=True)
    events: list[BattleEvent] = []
    shot: CombatResult | None = None
    for victim_id in _affected(state, unit, target):
        victim = next((u for u in state.units if u.id == victim_id), None)
        if victim is None or state.step == "over":
            continue
        cc = victim.attributes.cc or DieSpec(level=DieLevel.D4)
        before = len(dice.rolls)
        try:
            result = resolve_fire(Fire(firer=firer, target=_fighter(state, victim, cc),
                                       fire_range=unit.type.fire_range,
                                       indirect=unit.type.fire is FireKind.INDIRECT,
                                       spotted=_spotted(state, unit.side, victim.pos)),
                                  dice=dice)
        except GraspError as exc:
            raise BattleError(str(exc), rule="fire", field="target") from exc
        if not result.resolved and len(dice.rolls) == before and victim.id == target.id \
                and not any(o.surrendered for o in result.outcomes):
            raise BattleError(f"{unit.id} cannot fire at {target.id}: {result.reason}.",
                              rule="levels", field="target")
        how = ("" if victim.id == target.id else
               " (area fire)" if unit.type.has(Special.AREA_FIRE) else " (continuous fire)")
        head = f"{unit.id} fires at {victim.id}{how}" + (
            " from its second arc (one die less)" if arc_penalty else "")
        state, happened = _apply_result(state, result, head, dice, before, attacker=unit)
        events.extend(happened)
        if victim.id == target.id:
            shot = result
    state, after = _after_shot(state, unit, target, shot, dice)
    if order.board and shot is not None:
        if not unit.type.has(Special.TELEPORT):
            raise BattleError(f"{unit.id} boards after doubling by fire only if it teleports.",
                              rule="boarding", field="board")
        state, events = _board(state, order, shot, events)
    return state, events + after


def _spotted(state: GraspBattle, side: str, at: Pos) -> bool:
    """Indirect fire hits on even scores only unless its target is spotted: in the 45° arc
    ahead of one of the side's command units, or of one of its scouts within the command
    span of one of them, with no smoke or fire between (an off-table target is never
    spotted)."""
    board = state.field
    commands = [u for u in state.units if u.side == side and u.is_command]
    return any(board.in_arc(u.facing, u.pos, at) and _blocked(state, u.pos, at) is None and (
        u.is_command or (u.type.has(Special.SCOUT) and any(
            board.within(c.pos, u.pos, _span(state, c)) for c in commands)))
        for u in state.units if u.side == side and not u.fleeing and u.pos != at)


def _off_table(state: GraspBattle, unit_id: str, *, side: str = "") -> Waiting | None:
    """The off-table unit of that id (of that side, if given)."""
    return next((w for w in state.waiting if w.off_table and w.id == unit_id
                 and (not side or w.side == side)), None)


def _as_unit(w: Waiting, at: Pos) -> GraspUnit:
    """An off-table unit, as it fights, standing at `at` (a place on its base edge)."""
    fatigue, attributes = w.worn if w.worn is not None else (w.type.fatigue, _fresh(w.type))
    return GraspUnit(id=w.id, side=w.side, type=w.type, pos=at, facing=w.facing,
                     fatigue=fatigue, attributes=attributes)


def _fire_off_table(state: GraspBattle, order: GraspOrder, dice: Dice
                    ) -> tuple[GraspBattle, list[BattleEvent]]:
    """Off-table support: indirect fire measured from the side's base edge, called for with
    a pip score of 6 (as reserves come on); it may itself be engaged by enemy units whose
    range reaches its base edge. No arc, no line of fire, no supporting firers."""
    board = state.field
    own = _off_table(state, order.unit, side=order.side)
    theirs = _off_table(state, order.target)
    side = state.side(order.side)
    if order.supports:
        raise BattleError("Off-table fire is called for alone, without supporting firers.",
                          rule="off-table", field="supports")
    if own is not None:
        if state.step != "fire":
            raise BattleError(f"{own.id} is off-table: it fires in the fire step.",
                              rule="off-table", field="unit")
        if own.type.fire is not FireKind.INDIRECT:
            raise BattleError(f"{own.id} fires from off-table only with indirect fire (the "
                              "source treats and costs off-table fire as indirect).",
                              rule="off-table", field="unit")
        if not _pip_score_ok(state, side):
            raise BattleError(f"{side.name} rolled {side.rolled} pips: calling for off-table "
                              f"fire needs a pip score of {RESERVE_PIPS} or more (with pip "
                              "dice that cannot reach it, their maximum last turn and 3 or "
                              "more now).", rule="off-table", field="unit")
    if theirs is not None and theirs.side == order.side:
        raise BattleError(f"{theirs.id} is a unit of {order.side}'s own side.", rule="fire",
                          field="target")
    # Where each stands: an off-table unit on its base edge, facing its mark.
    if own is not None and theirs is not None:
        unit = _as_unit(own, board.corner())
        target = _as_unit(theirs, board.corner())
        gap = board.edges_apart(side.edge, state.side(theirs.side).edge)
    elif own is not None:
        target = _target(state, order)
        if target.side == order.side:
            raise BattleError(f"{target.id} is a unit of {order.side}'s own side.",
                              rule="fire", field="target")
        unit = _as_unit(own, board.edge_goal(target.pos, side.edge))
        gap = Fraction(-1)
    else:
        assert theirs is not None
        unit = _own(state, order, order.unit, "unit")
        if state.step == "ambush" and unit.id not in state.ambushers:
            raise BattleError(f"{unit.id} did not spring an ambush: only ambushers act now.",
                              rule="ambush", field="unit")
        target = _as_unit(theirs, board.edge_goal(unit.pos, state.side(theirs.side).edge))
        gap = Fraction(-1)
    if unit.id in state.acted:
        raise BattleError(f"{unit.id} has already fired this turn.", rule="fire", field="unit")
    fs, reach = _firing(state, unit)
    if not (gap <= reach if gap >= 0 else board.within(unit.pos, target.pos, reach)):
        far = f"{gap}" if gap >= 0 else board.gap_mu(unit.pos, target.pos)
        edge = (f"{side.name}'s {side.edge} edge" if own is not None and theirs is None
                else f"{state.side(theirs.side).name}'s base edge" if theirs is not None
                else "")
        raise BattleError(f"{unit.id} cannot fire at {target.id}: it is {far} MU from "
                          f"{edge}, beyond its range of {reach} MU.", rule="fire",
                          field="target")
    state = _elite_pip(state, order, unit)
    state = replace(state, acted=(*state.acted, unit.id), busy=True)
    cc = target.attributes.cc or DieSpec(level=DieLevel.D4)
    before = len(dice.rolls)
    try:
        result = resolve_fire(Fire(firer=Side(unit=_fighter(state, unit, fs),
                                              elite_pip=order.elite_pip),
                                   target=_fighter(state, target, cc),
                                   fire_range=unit.type.fire_range,
                                   indirect=unit.type.fire is FireKind.INDIRECT,
                                   spotted=theirs is None
                                   and _spotted(state, unit.side, target.pos)),
                              dice=dice)
    except GraspError as exc:
        raise BattleError(str(exc), rule="fire", field="target") from exc
    head = (f"{unit.id} fires from off-table at {target.id}" if own is not None
            else f"{unit.id} fires at {target.id}, off-table")
    return _apply_result(state, result, head, dice, before, attacker=unit)


def _affected(state: GraspBattle, unit: GraspUnit, target: GraspUnit) -> list[str]:
    """The units a shot strikes, each in its own resolution: the target; with area fire every
    other unit within 1 MU of it; with continuous (direct) fire every unit on the line of
    fire before it (friends included: the source says "all units")."""
    out = [target.id]
    if unit.type.has(Special.AREA_FIRE):
        out += [u.id for u in state.units if u.id not in (target.id, unit.id)
                and not u.hidden and state.field.within(u.pos, target.pos, 1)]
    if unit.type.has(Special.CONTINUOUS_FIRE) and unit.type.fire == FireKind.DIRECT:
        on_line = [u for u in state.units if u.id not in (target.id, unit.id)
                   and state.field.on_line(unit.pos, target.pos, u.pos)]
        on_line.sort(key=lambda u: (u.pos.q, u.pos.r) if isinstance(u.pos, Hex) else (0, 0))
        out = [u.id for u in sorted(on_line, key=lambda u: _nearer(state, unit, u))] + out
    return list(dict.fromkeys(out))


def _nearer(state: GraspBattle, unit: GraspUnit, other: GraspUnit) -> Fraction:
    """How far `other` is from `unit` (squared, comparable on both boards)."""
    a, b = unit.pos, other.pos
    if isinstance(a, Hex) and isinstance(b, Hex):
        return Fraction(distance(a, b))
    assert isinstance(a, Point) and isinstance(b, Point)
    return dist2(a, b)


def _fight(state: GraspBattle, order: GraspOrder, dice: Dice
           ) -> tuple[GraspBattle, list[BattleEvent]]:
    if not order.target and order.to is not None:
        return _engage_terrain(state, order, dice)
    unit = _own(state, order, order.unit, "unit")
    target = _target(state, order)
    if target.side == unit.side:
        raise BattleError(f"{target.id} is a unit of {unit.side}'s own side.", rule="combat",
                          field="target")
    if not state.field.in_contact(unit.pos, target.pos):
        raise BattleError(f"{unit.id} is not in contact with {target.id}.", rule="combat",
                          field="target")
    if unit.level != target.level:
        raise BattleError(f"{unit.id} ({unit.level.label}) and {target.id} "
                          f"({target.level.label}) are at different levels: close combat is "
                          "between units at one level.", rule="levels", field="target")
    if unit.id in state.acted:
        raise BattleError(f"{unit.id} has already fought this turn.", rule="combat",
                          field="unit")
    _not_tending(state, unit)
    if unit.attributes.cc is None:
        raise BattleError(f"{unit.id} has no close combat die left.", rule="combat",
                          field="unit")
    if order.ram:
        return _ram(state, order, unit, target, dice)
    helpers = _supports(state, order, unit, target, fire=False)
    side = state.side(order.side)
    if order.command_pip:
        commands = [c for c in state.units if c.side == unit.side and c.is_command and (
            (c.type.pips_high_tech and state.field.within(c.pos, unit.pos, _span(state, c)))
            or state.field.in_contact(c.pos, unit.pos))]
        if not commands:
            raise BattleError("A reserved pip modifies the roll only of a unit in contact "
                              "with a command unit (in its command range if high tech).",
                              rule="pips", field="command_pip")
        if side.reserved < 1:
            raise BattleError(f"{side.name} has no reserved pip left.", rule="pips",
                              field="command_pip")
        state = replace(state, sides=tuple(replace(s, reserved=s.reserved - 1)
                                           if s.name == side.name else s for s in state.sides))
    state = _elite_pip(state, order, unit)
    before = len(dice.rolls)
    try:
        result = resolve_close_combat(_melee(
            state, unit, helpers, target, command_pip=order.command_pip,
            elite_pip=order.elite_pip,
            defender_terrain=state.field.going(target.pos)), dice=dice)
    except GraspError as exc:
        raise BattleError(str(exc), rule="combat", field="target") from exc
    state = replace(state, acted=(*state.acted, unit.id, *(h.id for h in helpers)))
    state, events = _apply_result(state, result, f"{unit.id} fights {target.id}", dice, before,
                                  attacker=unit)
    state, events = _impetuous(state, order, result, events)
    state, events = _pass_through(state, order, result, events)
    return _board(state, order, result, events)


def _melee(state: GraspBattle, unit: GraspUnit, helpers: Sequence[GraspUnit],
           target: GraspUnit, *, command_pip: bool = False, elite_pip: bool = False,
           defender_terrain: TerrainClass = TerrainClass.GOOD) -> CloseCombat:
    """A close combat of `unit` (with its CC) and its supporting `helpers` against `target`
    (a unit without a CC die left defends with a d4; a helper without one with the target's)."""
    assert unit.attributes.cc is not None
    cc = target.attributes.cc or DieSpec(level=DieLevel.D4)
    return CloseCombat(
        attacker=Side(unit=_fighter(state, unit, unit.attributes.cc),
                      supports=tuple(_fighter(state, h, h.attributes.cc or cc) for h in helpers),
                      command_pip=command_pip, elite_pip=elite_pip),
        defender=Side(unit=_fighter(state, target, cc)), defender_terrain=defender_terrain)


def _ram(state: GraspBattle, order: GraspOrder, unit: GraspUnit, target: GraspUnit,
         dice: Dice) -> tuple[GraspBattle, list[BattleEvent]]:
    """A vehicle or an assault unit rams an enemy in contact (no supports, no pips)."""
    if not (unit.type.has(Special.VEHICLE) or unit.type.has(Special.ASSAULT)):
        raise BattleError(f"{unit.id} is neither a vehicle nor an assault unit: it cannot "
                          "ram.", rule="ram", field="ram")
    if order.supports or order.command_pip or order.elite_pip or order.through:
        raise BattleError("A ram is the rammer's alone: no supports, pips or passing "
                          "through.", rule="ram", field="ram")
    front = state.field.in_arc(target.facing, target.pos, unit.pos)
    cc = target.attributes.cc or DieSpec(level=DieLevel.D4)
    before = len(dice.rolls)
    try:
        result = resolve_ram(Ram(rammer=_fighter(state, unit, unit.attributes.cc or cc),
                                 target=_fighter(state, target, cc), front=front), dice=dice)
    except GraspError as exc:
        raise BattleError(str(exc), rule="ram", field="target") from exc
    state = replace(state, acted=(*state.acted, unit.id))
    return _apply_result(state, result, f"{unit.id} rams {target.id}"
                         + (" in front" if front else " in the side or rear"), dice, before,
                         attacker=unit)


# Terrain engaged without mines fights with the die its class gives mines (the source's mines
# example: difficult d8, light d4, two die levels a class).
TERRAIN_DIE = {TerrainClass.LIGHT: DieLevel.D4, TerrainClass.DIFFICULT: DieLevel.D8,
               TerrainClass.IMPASSABLE: DieLevel.D12}


def _engage_terrain(state: GraspBattle, order: GraspOrder, dice: Dice
                    ) -> tuple[GraspBattle, list[BattleEvent]]:
    """A unit engages the terrain at `to`: in close combat when the place is in contact with
    it (a vehicle may ram it), by fire in range and in its arc. Beaten, the terrain's 1 MU
    square goes one class easier (doubled: harder), with its mines; a unit the terrain beats
    loses as in any combat and recoils away from it."""
    fire = order.kind == "fire"
    rule = "fire" if fire else "combat"
    unit = _own(state, order, order.unit, "unit")
    if unit.id in state.acted:
        raise BattleError(f"{unit.id} has already {'fired' if fire else 'fought'} this turn.",
                          rule=rule, field="unit")
    if state.step == "ambush" and unit.id not in state.ambushers:
        raise BattleError(f"{unit.id} did not spring an ambush: only ambushers act now.",
                          rule="ambush", field="unit")
    if order.supports or order.command_pip or order.through or order.board or order.lay:
        raise BattleError("A unit engages terrain alone: no supports, pips, passing through "
                          "or boarding.", rule=rule, field="to")
    _not_tending(state, unit)
    at = _place(state, order, rule=rule)
    board = state.field
    mines = board.mines_at(at)
    ground = board.ground(at)
    if mines is None and ground is TerrainClass.GOOD:
        raise BattleError(f"There is no terrain to engage at {state.label(at)}: it is good "
                          "going.", rule=rule, field="to")
    name = f"the {(mines.going if mines else ground).label} " + (
        "mines" if mines else "terrain") + f" at {state.label(at)}"
    die = mines.cc if mines is not None and mines.cc is not None else DieSpec(
        level=TERRAIN_DIE[ground])
    terrain = Fighter(name=name, die=die, terrain=ground, mines=mines, moves=False)
    before = len(dice.rolls)
    if fire:
        fs, _ = _firing(state, unit)
        ok, why = _can_shoot(state, unit, at)
        if not ok:
            raise BattleError(f"{unit.id} cannot fire at {state.label(at)}: {why}.",
                              rule="fire", field="to")
        state = _elite_pip(state, order, unit)
        try:
            result = resolve_fire(Fire(firer=Side(unit=_fighter(state, unit, fs),
                                                  elite_pip=order.elite_pip),
                                       target=terrain, fire_range=unit.type.fire_range,
                                       indirect=unit.type.fire is FireKind.INDIRECT,
                                       spotted=_spotted(state, unit.side, at)), dice=dice)
        except GraspError as exc:
            raise BattleError(str(exc), rule="fire", field="to") from exc
        head = f"{unit.id} fires at {name}"
    else:
        if not (board.in_contact(unit.pos, at) or board.overlap(unit.pos, at)):
            raise BattleError(f"{unit.id} is not in contact with {state.label(at)}.",
                              rule="combat", field="to")
        cc = unit.attributes.cc
        if cc is None:
            raise BattleError(f"{unit.id} has no close combat die left.", rule="combat",
                              field="unit")
        if order.ram and not unit.type.has(Special.VEHICLE):
            raise BattleError(f"{unit.id} is no vehicle: only a vehicle rams a terrain piece.",
                              rule="ram", field="ram")
        state = _elite_pip(state, order, unit)
        try:
            result = resolve_ram(Ram(rammer=_fighter(state, unit, cc), target=terrain,
                                     front=True), dice=dice) if order.ram else \
                resolve_close_combat(CloseCombat(
                    attacker=Side(unit=_fighter(state, unit, cc), elite_pip=order.elite_pip),
                    defender=Side(unit=terrain)), dice=dice)
        except GraspError as exc:
            raise BattleError(str(exc), rule=rule, field="to") from exc
        head = f"{unit.id} {'rams' if order.ram else 'fights'} {name}"
    state = replace(state, acted=(*state.acted, unit.id), busy=state.busy or fire)
    events = [BattleEvent(kind=result.kind, text=f"{head}: " + "; ".join(result.explanation)
                          + ".", data={"result": result.to_dict()},
                          rolls=tuple(dice.rolls[before:]))]
    for out in result.outcomes:
        if out.name == name:
            if out.terrain_after is not None:
                state = replace(state, field=state.field.with_ground(at, out.terrain_after,
                                                                     out.mines_after))
            continue
        state, hurt, lost = _suffer(state, unit, out, captor="")
        events.extend(lost)
        if hurt is not None and out.recoils:
            state, moved = _recoil(state, hurt, replace(hurt, pos=at))
            events.extend(moved)
    state, ended = _check_end(state, dice)
    return state, events + ended


def _boardable(unit: GraspUnit) -> bool:
    return (unit.type.has(Special.VEHICLE) or unit.type.has(Special.CARRIER)) \
        and not unit.type.has(Special.SMALL)


def _board(state: GraspBattle, order: GraspOrder, result: CombatResult,
           events: list[BattleEvent]) -> tuple[GraspBattle, list[BattleEvent]]:
    """`board`: a vehicle or carrier (not small) doubled and still on the field is boarded by
    the winner and the (up to two) units that supported it: they leave the field to fight
    aboard it."""
    if not order.board or state.step == "over":
        return state, events
    unit = next((u for u in state.units if u.id == order.unit), None)
    target = next((u for u in state.units if u.id == order.target), None)
    mine = next((o for o in result.outcomes if o.name == order.unit), None)
    won = result.doubled and result.winner == "first" and mine is not None \
        and not mine.eliminated
    if unit is None or target is None or not won or not _boardable(target):
        why = ("only a vehicle or carrier that is not small is boarded"
               if target is not None and not _boardable(target)
               else "boarding needs a doubled enemy still on the field")
        return state, [*events, BattleEvent(kind="boarding", text=f"{order.unit} does not "
                                            f"board: {why}.")]
    crew = [unit, *(u for u in state.units if u.id in order.supports)]
    boarders = tuple(Waiting(id=u.id, side=u.side, type=u.type, facing=u.facing,
                             worn=(u.fatigue, u.attributes), aboard=target.id) for u in crew)
    ids = {u.id for u in crew}
    state = replace(state, units=tuple(u for u in state.units if u.id not in ids),
                    waiting=(*state.waiting, *boarders), busy=True)
    return state, [*events, BattleEvent(kind="boarding", text=f"{' and '.join(sorted(ids))} "
                                        f"board{'s' if len(ids) == 1 else ''} {target.id}: "
                                        "the fight goes on aboard, wherever it goes.",
                                        data={"units": [u.id for u in crew],
                                              "aboard": target.id})]


def _boarding_actions(state: GraspBattle, dice: Dice) -> tuple[GraspBattle, list[BattleEvent]]:
    """Once a turn (at the end of the combat step) the boarders of each boarded unit fight
    its crew, the first to board leading and the others supporting. The boarded unit is
    captured when it has no fatigue die left (it then fights for the boarders' side); the
    action ends then or when the crew wins, and the boarders come back next to it."""
    events: list[BattleEvent] = []
    for ship_id in list(dict.fromkeys(w.aboard for w in state.waiting if w.aboard)):
        crew = [w for w in state.waiting if w.aboard == ship_id]
        ship = next((u for u in state.units if u.id == ship_id), None)
        if state.step == "over" or not crew:
            continue
        if ship is None or ship.side == crew[0].side:
            state, back = _disembark(state, crew, ship)
            events.extend(back)
            continue
        lead = _as_unit(crew[0], ship.pos)
        helpers = [_as_unit(w, ship.pos) for w in crew[1:]]
        if lead.attributes.cc is None:
            continue
        before = len(dice.rolls)
        try:
            result = resolve_close_combat(_melee(state, lead, helpers, ship), dice=dice)
        except GraspError as exc:
            raise BattleError(str(exc), rule="boarding") from exc
        said = [line for line in result.explanation if not line.endswith("recoils 1 MU")]
        names = " and ".join(w.id for w in crew)
        events.append(BattleEvent(kind="boarding", text=f"Aboard {ship.id}: {names} "
                                  f"fight{'s' if len(crew) == 1 else ''} its crew (nobody "
                                  "recoils aboard): "
                                  + "; ".join(said) + ".",
                                  data={"result": result.to_dict()},
                                  rolls=tuple(dice.rolls[before:])))
        for out in result.outcomes:
            if out.name == lead.id:
                if out.destroyed or out.surrendered:
                    rest = replace(state, waiting=tuple(x for x in state.waiting
                                                        if x.id != lead.id))
                    state, _, lost = _suffer(rest, lead, out, captor=ship.side)
                    events.extend(lost)
                else:  # worn in its place, so that it leads again next turn
                    worn = (out.fatigue_after, out.attributes or lead.attributes)
                    state = replace(state, waiting=tuple(
                        replace(x, worn=worn) if x.id == lead.id else x
                        for x in state.waiting))
            elif out.name == ship.id:
                hurt = replace(ship, fatigue=out.fatigue_after,
                               attributes=out.attributes or ship.attributes)
                if out.destroyed:
                    state, _, lost = _suffer(state, ship, out, captor=lead.side)
                    events.extend(lost)
                elif out.surrendered or hurt.fatigue is None:
                    cost = unit_cost(ship.type).total
                    state = replace(_put(state, replace(hurt, side=lead.side, marker=None,
                                                        marker_level=None, fleeing=False)),
                                    seized=(*state.seized, ship.id), sides=tuple(
                                        replace(s, lost=s.lost + cost) if s.name == ship.side
                                        else s for s in state.sides))
                    events.append(BattleEvent(kind="captured", text=f"{ship.id}, without "
                                              f"fatigue, is captured by {lead.side}'s "
                                              f"boarders: it now fights for {lead.side}.",
                                              data={"unit": ship.id, "side": lead.side}))
                else:
                    state = _put(state, hurt)
        ship_now = next((u for u in state.units if u.id == ship.id), None)
        left = [w for w in state.waiting if w.aboard == ship_id]
        if left and (ship_now is None or ship_now.side == lead.side
                     or result.winner == "second"):
            state, back = _disembark(state, left, ship_now)
            events.extend(back)
    state, ended = _check_end(state, dice)
    return state, events + ended


def _disembark(state: GraspBattle, crew: Sequence[Waiting], ship: GraspUnit | None
               ) -> tuple[GraspBattle, list[BattleEvent]]:
    """The boarding action is over: the boarders come back next to the unit they boarded;
    one with no room there is lost to the enemy."""
    events: list[BattleEvent] = []
    for boarder in crew:
        state = replace(state, waiting=tuple(x for x in state.waiting if x.id != boarder.id))
        spot = None if ship is None else state.field.beside(ship.pos,
                                                             [u.pos for u in state.units])
        unit = _as_unit(boarder, spot if spot is not None else state.field.corner())
        if spot is None:
            captor = ship.side if ship is not None and ship.side != boarder.side else ""
            state = _gone(state, unit, "was lost aboard", captor=captor)
            events.append(BattleEvent(kind="boarding", text=f"{boarder.id} finds no room to "
                                      "come back and is lost."))
            continue
        state = replace(state, units=(*state.units, unit))
        events.append(BattleEvent(kind="boarding", text=f"The boarding action ends: "
                                  f"{boarder.id} comes back at {state.label(spot)}.",
                                  data={"unit": boarder.id,
                                        "at": state.field.pos_json(spot)}))
    return state, events


def _pass_through(state: GraspBattle, order: GraspOrder, result: CombatResult,
                  events: list[BattleEvent]) -> tuple[GraspBattle, list[BattleEvent]]:
    """`through`: after a combat it did not lose, the attacker passes through a loose enemy
    still in contact, stopping once clear of its base."""
    if not order.through or state.step == "over":
        return state, events
    unit = next((u for u in state.units if u.id == order.unit), None)
    enemy = next((u for u in state.units if u.id == order.target), None)
    mine = next((o for o in result.outcomes if o.name == order.unit), None)
    if unit is None or mine is None or mine.result not in ("won", "draw"):
        return state, [*events, BattleEvent(kind="through", text=f"{order.unit} lost the "
                                            "combat: it does not pass through.")]
    if enemy is None or not state.field.in_contact(unit.pos, enemy.pos):
        return state, events  # nothing left in its way
    if _order_of(state, enemy) is not Order.LOOSE:
        return state, [*events, BattleEvent(kind="through", text=f"{enemy.id} is in close "
                                            "order: nobody passes through it.")]
    to = state.field.beyond(_mover(state, unit), unit.pos, enemy.pos, state.others(unit))
    if to is None:
        return state, [*events, BattleEvent(kind="through", text=f"{unit.id} finds no room "
                                            f"beyond {enemy.id} and stays.")]
    state = replace(_put(state, replace(unit, pos=to)), busy=True)
    return state, [*events, BattleEvent(
        kind="through", text=f"{unit.id} passes through the loose {enemy.id} to "
        f"{state.label(to)}.", data={"unit": unit.id, "at": state.field.pos_json(to)})]


def _impetuous(state: GraspBattle, order: GraspOrder, result: CombatResult,
               events: list[BattleEvent]) -> tuple[GraspBattle, list[BattleEvent]]:
    """An impetuous winner takes a free 1 MU move to contact the enemy that recoiled or fled,
    unless its side pays a reserved pip to hold it (`hold`)."""
    for out in result.outcomes:
        loser = next((u for u in state.units if u.id == out.name), None)
        if loser is None or not (out.recoils or out.flees) or state.step == "over":
            continue
        winner_id = next((o.name for o in result.outcomes if o.name != out.name), "")
        winner = next((u for u in state.units if u.id == winner_id), None)
        if winner is None or not winner.type.has(Special.IMPETUOUS) \
                or state.field.in_contact(winner.pos, loser.pos):
            continue
        if order.hold and winner.side == order.side:
            side = state.side(order.side)
            if side.reserved < 1:
                raise BattleError(f"{side.name} has no reserved pip to hold {winner.id}.",
                                  rule="pips", field="hold")
            state = replace(state, sides=tuple(replace(s, reserved=s.reserved - 1)
                                               if s.name == side.name else s
                                               for s in state.sides))
            events.append(BattleEvent(kind="hold", text=f"{side.name} holds {winner.id} "
                                      "with a reserved pip."))
            continue
        to = state.field.close_in(_mover(state, winner), winner.pos, loser.pos,
                                  state.others(winner),
                                  mu=1)
        if to is None:
            continue
        state = _put(state, replace(winner, pos=to,
                                    facing=state.field.facing_toward(to, loser.pos)))
        events.append(BattleEvent(kind="impetuous", text=f"{winner.id} follows impetuously "
                                  f"into {state.label(to)}, in contact with {loser.id} again.",
                                  data={"unit": winner.id, "at": state.field.pos_json(to)}))
    return state, events


def _apply_result(state: GraspBattle, result: CombatResult, head: str, dice: Dice,
                  before: int, *, attacker: GraspUnit
                  ) -> tuple[GraspBattle, list[BattleEvent]]:
    events = [BattleEvent(kind=result.kind, text=f"{head}: " + "; ".join(result.explanation)
                          + ".", data={"result": result.to_dict()},
                          rolls=tuple(dice.rolls[before:]))]
    sides_of = {u.id: u.side for u in (*state.units, attacker)}
    sides_of.update((w.id, w.side) for w in state.waiting if w.off_table)
    outcomes, notes = _berserk(state, result)
    events += notes
    for out in outcomes:
        unit = next((u for u in state.units if u.id == out.name), None)
        away = _off_table(state, out.name)
        if unit is None and away is None:
            continue
        side = unit.side if unit is not None else sides_of[out.name]
        # Who takes it prisoner, should it give up: the side it fought.
        captor = attacker.side if side != attacker.side else next(
            (sides_of[o.name] for o in result.outcomes
             if sides_of.get(o.name, side) != side), "")
        if away is not None:
            state, lost = _suffer_off_table(state, away, out, captor=captor)
            events.extend(lost)
            continue
        assert unit is not None
        state, hurt, lost = _suffer(state, unit, out, captor=captor)
        events.extend(lost)
        if hurt is None:
            continue
        unit = hurt
        horde_breaks = unit.type.has(Special.HORDE) and out.result in ("draw", "lost")
        if horde_breaks and _kept_roll(result, unit.id) == 1:
            state = _gone(state, unit, "surrendered", captor=captor)
            events.append(BattleEvent(kind="eliminated", text=f"{unit.id} (a horde) rolled a 1 "
                                      "and surrendered."))
            continue
        if out.flees or horde_breaks:
            state, fled = _flee(state, unit, dice, away_from=attacker.pos)
            events.extend(fled)
        elif out.recoils:
            state, moved = _recoil(state, unit, attacker if unit.id != attacker.id
                                   else _opponent(state, result, attacker))
            events.extend(moved)
    state, ended = _check_end(state, dice)
    return state, events + ended


def _berserk(state: GraspBattle, result: CombatResult
             ) -> tuple[list[CombatOutcome], list[BattleEvent]]:
    """A berserk unit is destroyed by any draw or loss; its win costs the loser a fatigue die
    more."""
    kinds = {u.id: u.type for u in state.units}
    wild = {o.name for o in result.outcomes
            if (t := kinds.get(o.name)) is not None and t.has(Special.BERSERK)}
    if not wild:
        return list(result.outcomes), []
    won = any(o.result == "won" and o.name in wild for o in result.outcomes)
    out: list[CombatOutcome] = []
    notes: list[BattleEvent] = []
    for o in result.outcomes:
        if o.name in wild and o.result in ("draw", "lost") and not o.eliminated:
            o = replace(o, destroyed=True, recoils=False, flees=False)
            what = "a draw" if o.result == "draw" else "a loss"
            notes.append(BattleEvent(kind="berserk", text=f"{o.name} is berserk: {what} "
                                     "destroys it."))
        elif won and o.result == "lost" and not o.eliminated and o.name not in wild:
            o = replace(o, fatigue_after=step_down(o.fatigue_after))
            notes.append(BattleEvent(kind="berserk", text=f"A berserk win: {o.name} loses a "
                                     f"fatigue die more, down to {format_level(o.fatigue_after)}."))
        out.append(o)
    return out, notes


def _suffer(state: GraspBattle, unit: GraspUnit, out: CombatOutcome, *, captor: str
            ) -> tuple[GraspBattle, GraspUnit | None, list[BattleEvent]]:
    """What a combat did to a unit: gone (destroyed, or surrendered to `captor`), or its
    fatigue die and attributes as they are now."""
    if out.destroyed:
        events = [BattleEvent(kind="eliminated", text=f"{unit.id} was destroyed.")]
        board = state.field
        if out.wreck_level is not None and board.ground(unit.pos) < TerrainClass.DIFFICULT:
            # A big unit's wreck stays: difficult going where it stood.
            state = replace(state, field=board.with_piece(board.footprint(unit.pos),
                                                          TerrainClass.DIFFICULT))
            events.append(BattleEvent(
                kind="wreck", text=f"The wreck of {unit.id} is left at "
                f"{state.label(unit.pos)}: difficult going from now on.",
                data={"unit": unit.id, "piece": [board.pos_json(p)
                                                 for p in board.footprint(unit.pos)]}))
        return _gone(state, unit, "was destroyed"), None, events
    if out.surrendered:
        return _gone(state, unit, "surrendered", captor=captor), None, [BattleEvent(
            kind="eliminated", text=f"{unit.id} surrendered"
            + (f" to {captor}." if captor else "."))]
    fatigue, events = out.fatigue_after, []
    lost = steps_of(unit.fatigue) - steps_of(fatigue)
    if lost > 0 and any(w.row.kind == "double" for w in state.weather):
        fatigue = step_down(fatigue, lost)
        events.append(BattleEvent(kind="weather", text=f"The weather doubles {unit.id}'s "
                                  f"fatigue loss: {lost} more, down to {format_level(fatigue)}.",
                                  data={"unit": unit.id, "fatigue": format_level(fatigue)}))
    hurt = replace(unit, fatigue=fatigue,
                   attributes=out.attributes if out.attributes is not None
                   else unit.attributes)
    return _put(state, hurt), hurt, events


def _suffer_off_table(state: GraspBattle, unit: Waiting, out: CombatOutcome, *, captor: str
                      ) -> tuple[GraspBattle, list[BattleEvent]]:
    """An off-table unit takes the result where it is: gone, or worn; it neither recoils
    nor flees (it is not on the table)."""
    rest = replace(state, waiting=tuple(w for w in state.waiting if w.id != unit.id))
    if out.destroyed or out.surrendered:
        state, _, lost = _suffer(rest, _as_unit(unit, state.field.corner()), out,
                                 captor=captor)
        return state, lost
    worn = unit.worn[1] if unit.worn is not None else _fresh(unit.type)
    kept = replace(unit, worn=(out.fatigue_after,
                               out.attributes if out.attributes is not None else worn))
    state = replace(rest, waiting=(*rest.waiting, kept))
    if out.flees or out.recoils:
        return state, [BattleEvent(kind="off_table", text=f"{unit.id} is off-table: it stays "
                                   "there.")]
    return state, []


def _kept_roll(result: CombatResult, name: str) -> int | None:
    for score in (result.first, result.second):
        for r in (score.rolls if score else ()):
            if r.name == name:
                return r.roll.kept
    return None


def _opponent(state: GraspBattle, result: CombatResult, attacker: GraspUnit) -> GraspUnit:
    other = next((o.name for o in result.outcomes if o.name != attacker.id), None)
    found = next((u for u in state.units if u.id == other), None)
    return found if found is not None else attacker


def _recoil(state: GraspBattle, unit: GraspUnit, enemy: GraspUnit
            ) -> tuple[GraspBattle, list[BattleEvent]]:
    """1 MU straight back from the enemy (one hex on the hex map), where the unit may go; a
    unit that cannot recoil stands."""
    mover = _mover(state, unit)
    to = state.field.away(mover, unit.pos, enemy.pos, state.others(unit))
    if unit.type.has(Special.DENIZEN):
        # Where the recoil would take it, its terrain or not: out of it, it is removed.
        forced = state.field.away(replace(mover, confined=False), unit.pos, enemy.pos,
                                  state.others(unit))
        if forced is not None and state.field.going(forced) not in AMBUSH_GOING:
            state = _gone(state, unit, "was forced from its terrain")
            return state, [BattleEvent(kind="eliminated", text=f"{unit.id}, a denizen forced "
                                       "from its terrain, is removed.")]
    if to is None:
        return state, [BattleEvent(kind="recoil", text=f"{unit.id} cannot recoil and stands.")]
    state = _put(state, replace(unit, pos=to))
    return state, [BattleEvent(kind="recoil", text=f"{unit.id} recoils to {state.label(to)}.",
                               data={"unit": unit.id, "at": state.field.pos_json(to)})]


# ---------------------------------------------------------------------------
# Smoke and fires


def _blocked(state: GraspBattle, a: Pos, b: Pos) -> Cloud | None:
    """Smoke or a fire on the line from a to b, or over b, blocks the sight between them."""
    board = state.field
    return next((c for c in state.clouds if c.kind != "dust" and (
        board.on_line(a, b, c.at) or board.overlap(b, c.at))), None)


def _cloud(state: GraspBattle, kind: Literal["smoke", "fire", "dust"], at: Pos
           ) -> tuple[GraspBattle, BattleEvent]:
    """Smoke or a fire laid over the place of a unit's base: difficult going from now on."""
    board = state.field
    was = board.ground(at)
    field = board.with_piece(board.footprint(at), TerrainClass.DIFFICULT) \
        if was < TerrainClass.DIFFICULT else board
    state = replace(state, field=field, clouds=(*state.clouds, Cloud(kind=kind, at=at, was=was)))
    return state, BattleEvent(kind=kind, text=f"{'Smoke' if kind == 'smoke' else 'A fire'} "
                              f"covers {state.label(at)}.",
                              data={"at": board.pos_json(at)})


def _lift(state: GraspBattle, cloud: Cloud) -> GraspBattle:
    board = state.field
    field = board.without_piece(board.footprint(cloud.at), cloud.was) \
        if cloud.was < TerrainClass.DIFFICULT else board
    return replace(state, field=field, clouds=tuple(c for c in state.clouds if c != cloud))


def _clear_smoke(state: GraspBattle) -> tuple[GraspBattle, list[BattleEvent]]:
    """Step 6: smoke goes (fires burn on until put out)."""
    return _settle(state, "smoke", "The smoke clears from ")


def _settle(state: GraspBattle, kind: Literal["smoke", "dust"], text: str
            ) -> tuple[GraspBattle, list[BattleEvent]]:
    gone = [c for c in state.clouds if c.kind == kind]
    for c in gone:
        state = _lift(state, c)
    return state, ([BattleEvent(kind=kind, text=text + ", ".join(state.label(c.at)
                                                                for c in gone) + ".")]
                   if gone else [])


def _burn(state: GraspBattle, at: Pos, die: DieLevel, dice: Dice, *, why: str,
          victim: GraspUnit | None = None) -> tuple[GraspBattle, list[BattleEvent]]:
    """A fire's close combat (a d6 where it starts, against the unit whose base it covers;
    a d4 against the `victim` putting it out)."""
    board = state.field
    if victim is None:
        victim = next((u for u in state.units if board.overlap(u.pos, at)), None)
    if victim is None:
        return state, []
    return _strike(state, f"the fire at {state.label(at)}", die, victim, at, dice, why=why,
                   rule="fires")


def _strike(state: GraspBattle, name: str, die: DieLevel, victim: GraspUnit, at: Pos,
            dice: Dice, *, why: str, rule: str) -> tuple[GraspBattle, list[BattleEvent]]:
    """Something that is no unit (a fire, the weather) engages a unit in close combat with
    `die`: what the combat would do to the striker is no part of the rule."""
    before = len(dice.rolls)
    try:
        result = resolve_close_combat(CloseCombat(
            attacker=Side(unit=Fighter(name=name, die=DieSpec(level=die),
                                       terrain=TerrainClass.DIFFICULT, moves=False)),
            defender=Side(unit=_fighter(state, victim, victim.attributes.cc
                                        or DieSpec(level=DieLevel.D4)))), dice=dice)
    except GraspError as exc:
        raise BattleError(str(exc), rule=rule) from exc
    # Whatever the combat would do to the striker itself is no part of the rule: a fire burns
    # until it is put out, the weather holds its turns.
    result = replace(result, explanation=tuple(line for line in result.explanation
                                               if not line.startswith(f"{name}:")))
    # It fights from where it is, on no side: whoever gives up there is nobody's.
    flames = replace(victim, id=name, side="", pos=at)
    return _apply_result(state, result, f"{why}: {name} engages {victim.id}", dice, before,
                         attacker=flames)


def _lay(state: GraspBattle, order: GraspOrder, dice: Dice
         ) -> tuple[GraspBattle, list[BattleEvent]]:
    """Smoke (a unit with `smoke`) or a fire (with `fires`) fired at a place a command marker
    of the side marks: it lands there on a hit (direct fire always hits; unspotted indirect
    fire only on an even score), otherwise right in front of the firer."""
    unit = _own(state, order, order.unit, "unit")
    need = Special.SMOKE if order.lay == "smoke" else Special.FIRES
    if not unit.type.has(need):
        raise BattleError(f"{unit.id} has no {need.value} special: it cannot lay "
                          f"{order.lay}.", rule="fires", field="lay")
    if state.step != "fire" or unit.id in state.acted or unit.id in state.tending:
        raise BattleError(f"{unit.id} lays {order.lay} in the fire step, instead of its one "
                          "shot of the turn.", rule="fires", field="unit")
    fs, reach = _firing(state, unit)
    board = state.field
    to = _place(state, order, rule="fires")
    if not any(u.marker == to for u in state.units if u.side == order.side):
        raise BattleError(f"{order.lay.capitalize()} is fired at a place one of "
                          f"{order.side}'s command markers marks, not {board.label(to)}.",
                          rule="fires", field="to")
    indirect = unit.type.fire is FireKind.INDIRECT
    if not board.within(unit.pos, to, reach) or not board.in_arc(unit.facing, unit.pos, to) \
            or (not indirect and _blocked(state, unit.pos, to) is not None):
        raise BattleError(f"{unit.id} cannot reach {board.label(to)}: it must be within its "
                          f"range of {reach} MU, in the 45° arc ahead and (direct fire) in "
                          "sight.", rule="fires", field="to")
    before = len(dice.rolls)
    hit, how = True, ""
    if indirect and not _spotted(state, order.side, to):
        roll = roll_pool(dice, level=fs.level, tech_count=fs.tech_count, average=fs.average,
                         purpose=f"{order.lay}: {unit.id}").kept
        hit = roll % 2 == 0
        how = f" (unspotted: {roll}, {'even, a hit' if hit else 'odd, a miss'})"
    where = to if hit else board.ahead(unit.pos, unit.facing)
    state = replace(state, acted=(*state.acted, unit.id), busy=True)
    what = "smoke" if order.lay == "smoke" else "to start a fire"
    events = [BattleEvent(kind="lay", text=f"{unit.id} fires {what} at {board.label(to)}{how}"
                          + ("." if hit else ": it falls in front of the firer."),
                          rolls=tuple(dice.rolls[before:]))]
    if where is None:
        return state, events
    state, laid = _cloud(state, "smoke" if order.lay == "smoke" else "fire", where)
    events.append(laid)
    if order.lay == "fire":
        state, burnt = _burn(state, where, DieLevel.D6, dice, why="The fire starts")
        events.extend(burnt)
    return state, events


def _after_shot(state: GraspBattle, unit: GraspUnit, target: GraspUnit,
                result: CombatResult | None, dice: Dice
                ) -> tuple[GraspBattle, list[BattleEvent]]:
    """A −Tech firer leaves smoke right in front of it; in dry conditions a firer's maximal
    damage roll starts a fire: on a d6 of 1–3 at the firer, 4–6 at the target."""
    events: list[BattleEvent] = []
    fs = unit.attributes.fs
    board = state.field
    kept = _kept_roll(result, unit.id) if result is not None else None
    if state.step != "over" and fs is not None and kept is not None \
            and kept == fs.top and state.conditions.startswith("dry"):
        before = len(dice.rolls)
        roll = dice.roll(6, f"accidental fire: {unit.id}")
        struck = unit if roll <= 3 else target  # on the unit, wherever the shot left it
        at = next((u.pos for u in state.units if u.id == struck.id), struck.pos)
        events.append(BattleEvent(kind="fire", text=f"{unit.id} rolled its damage die's "
                                  f"maximum in {state.conditions} conditions: an accidental "
                                  f"fire (d6 = {roll}) at {state.label(at)}.",
                                  rolls=tuple(dice.rolls[before:])))
        state, laid = _cloud(state, "fire", at)
        events.append(laid)
        state, burnt = _burn(state, at, DieLevel.D6, dice, why="The fire starts")
        events.extend(burnt)
    if state.step != "over" and fs is not None and fs.tech_count < 0 \
            and any(u.id == unit.id for u in state.units):
        front = board.ahead(state.unit(unit.id).pos, state.unit(unit.id).facing)
        if front is not None:
            state, laid = _cloud(state, "smoke", front)
            events.append(replace(laid, text=f"{unit.id} fires −Tech: " + laid.text[0].lower()
                                  + laid.text[1:]))
    return state, events


def _not_tending(state: GraspBattle, unit: GraspUnit) -> None:
    """A unit putting out a fire does nothing else that turn."""
    if unit.id in state.tending:
        raise BattleError(f"{unit.id} is putting out a fire this turn and does nothing else.",
                          rule="fires", field="unit")


def _extinguish(state: GraspBattle, order: GraspOrder, dice: Dice
                ) -> tuple[GraspBattle, list[BattleEvent]]:
    """A unit on or next to a fire puts it out: it does nothing else this turn (no marker, no
    shot, no fight) and takes a d4 close combat."""
    unit = _own(state, order, order.unit, "unit")
    board = state.field
    fire = next((c for c in state.clouds if c.kind == "fire" and (
        board.overlap(unit.pos, c.at) or board.in_contact(unit.pos, c.at))), None)
    if fire is None:
        raise BattleError(f"{unit.id} is not on or next to a fire.", rule="fires",
                          field="unit")
    if unit.id in state.tending or unit.fleeing:
        raise BattleError(f"{unit.id} cannot put a fire out now.", rule="fires", field="unit")
    state = replace(_put(state, replace(unit, marker=None, marker_level=None)), busy=True,
                    tending=(*state.tending, unit.id))
    state, burnt = _burn(state, fire.at, DieLevel.D4, dice, victim=state.unit(unit.id),
                         why=f"{unit.id} fights the fire at {state.label(fire.at)}")
    state = _lift(state, fire)
    return state, [*burnt, BattleEvent(kind="extinguish", text=f"{unit.id} puts out the fire "
                                       f"at {state.label(fire.at)}.")]


# ---------------------------------------------------------------------------
# The end


def _spent(state: GraspBattle, side: str) -> bool:
    return not any(u.side == side and u.fatigue is not None and not u.fleeing
                   for u in state.units)


def _check_end(state: GraspBattle, dice: Dice) -> tuple[GraspBattle, list[BattleEvent]]:
    if any(_spent(state, s.name) for s in state.sides):
        return _finish(state, "a side has no unit left that can fight on", dice)
    return state, []


def _end_turn(state: GraspBattle, dice: Dice) -> tuple[GraspBattle, list[BattleEvent]]:
    if not state.busy:
        return _finish(state, f"turn {state.turn} passed without an order, a shot or a move",
                       dice)
    if state.turn >= state.settings.max_turns:
        return _finish(state, f"turn {state.turn} was the last", dice)
    return _begin_turn(state, dice)


def points_lost(state: GraspBattle, side: str) -> int:
    """Points of the side's destroyed, captured and fled units, plus what its surviving
    units lost: fatigue dice (at the design's fatigue price) and attribute dice."""
    lost = state.side(side).lost
    worn = [_as_unit(w, state.field.corner()) for w in state.waiting if w.worn is not None]
    for u in (*state.units, *worn):
        if u.side != side or u.id in state.seized:
            continue  # (a seized unit came damaged: only its loss would count)
        t = u.type
        mult = 2 ** sum(1 for s in (Special.CARRIER, Special.SUPPLY, Special.ENGINEER)
                        if t.has(s))
        now = 0 if u.fatigue is None else die_price(DieSpec(level=u.fatigue))
        lost += (die_price(DieSpec(level=t.fatigue)) - now) * mult
        for full, left in ((t.cc, u.attributes.cc), (t.fs, u.attributes.fs)):
            if full is not None:
                lost += die_price(full) - (0 if left is None else die_price(left))
    return lost


def _finish(state: GraspBattle, why: str, dice: Dice
            ) -> tuple[GraspBattle, list[BattleEvent]]:
    """The victory check; then each prisoner rolls 2d6: doubles, and it joins its captor
    (its points stay lost to its old side: the recruit is the campaign's gain)."""
    state = replace(state, step="over")
    events = [victory_event(outcome(state), why=why)]
    recruited: list[str] = []
    for unit, captor in state.prisoners:
        before = len(dice.rolls)
        a, b = dice.roll(6, f"recruiting {unit}"), dice.roll(6, f"recruiting {unit}")
        joins = a == b
        if joins:
            recruited.append(unit)
        events.append(BattleEvent(
            kind="recruit", text=f"{unit}, held by {captor}, rolls {a} and {b}: "
            + (f"doubles, it joins {captor}." if joins else "no doubles, it stays a prisoner."),
            data={"unit": unit, "captor": captor, "joins": joins},
            rolls=tuple(dice.rolls[before:])))
    return replace(state, recruited=tuple(recruited)), events


def outcome(state: GraspBattle) -> Outcome | None:
    if state.step != "over":
        return None
    lost = {s.name: points_lost(state, s.name) for s in state.sides}
    least = min(lost.values())
    best = [s for s, v in lost.items() if v == least]
    if len(best) == 1:
        return Outcome(winner=best[0], reason=f"{best[0]} wins, having lost the fewest points "
                       f"({least}).", scores=lost)
    return Outcome(winner=None, reason=f"A draw: {' and '.join(best)} lost {least} points "
                   "each.", scores=lost)


# ---------------------------------------------------------------------------
# The weather (the setting `weather`)


HARD_GOING = (TerrainClass.DIFFICULT, TerrainClass.IMPASSABLE)


def _unplaced(w: Weather) -> bool:
    """Environmental terrain its side may still place (its quarter is cleared once placed or
    passed; its wind holds on either way)."""
    return w.row.kind == "environment" and bool(w.sector)


def _climate(state: GraspBattle, maxed: Sequence[str], dice: Dice
             ) -> tuple[GraspBattle, list[BattleEvent]]:
    """After the pips: the weather past its last turn ends (and the weather that holds until
    a side rolls its maximum pips, when one did); a catastrophe strikes again; then each side
    that rolled its maximum pips throws the weather, in phasing order."""
    events: list[BattleEvent] = []
    for w in state.weather:
        if not holds(w, state.turn) or (w.until == 0 and maxed):
            state = _weather_ends(state, w)
            events.append(BattleEvent(kind="weather", text=f"The weather {w.side} threw on "
                                      f"turn {w.thrown} ({w.row.text}) ends.",
                                      data={"ends": w.total, "side": w.side}))
    for w in state.weather:
        if w.row.strike is not None and w.thrown < state.turn:
            state, struck = _weather_strikes(state, w, dice)
            events.extend(struck)
    for name in [n for n in state.phasing if n in maxed]:
        if state.step == "over":  # the weather ended the battle
            break
        state, thrown = _throw_weather(state, name, dice)
        events.extend(thrown)
    return state, events


def _weather_ends(state: GraspBattle, w: Weather) -> GraspBattle:
    board = state.field
    if isinstance(board, HexField):
        for p, was in zip(w.piece, w.was, strict=True):
            board = board.without_piece((p,), was)
    elif w.piece:
        board = board.without_piece(w.piece, TerrainClass.DIFFICULT)
    return replace(state, field=board, weather=tuple(x for x in state.weather if x != w))


def _throw_weather(state: GraspBattle, side: str, dice: Dice
                   ) -> tuple[GraspBattle, list[BattleEvent]]:
    """2d6: the total gives the event and its duration, the difference the wind (a d4 for
    where it blows from when there is one)."""
    before = len(dice.rolls)
    a, b = dice.roll(6, f"weather: {side}"), dice.roll(6, f"weather: {side}")
    total, wind = a + b, abs(a - b)
    row = TABLE[total]
    blowing = BLOWING[dice.roll(4, "wind direction")] if wind else ""
    turns = row.turns if row.turns is not None else dice.roll(6, "fair weather: turns")
    sector = SECTORS[dice.roll(4, "environmental terrain: sector")] \
        if row.kind == "environment" else ""
    w = Weather(total=total, wind=wind, blowing=blowing, side=side, thrown=state.turn,
                until=0 if turns == 0 else state.turn + turns - 1, sector=sector)
    lasting = ("" if row.turns is not None else f" for {turns} turn{'' if turns == 1 else 's'}")
    text = (f"{side} rolled its maximum pips and throws the weather: {a} + {b} = {total}, "
            f"{row.text}{lasting}. "
            + (f"The wind ({wind}) blows from the {FROM[blowing]}: {WIND[wind]}."
               if wind else "No wind."))
    if sector:
        text += (f" {side} may place it, at most {ENVIRONMENT_MU2} MU² next to difficult or "
                 f"impassable going, in the {sector} quarter before it is done with its "
                 "commands.")
    state = replace(state, weather=(*state.weather, w))
    events = [BattleEvent(kind="weather", text=text,
                          data={"side": side, "total": total, "wind": wind,
                                "blowing": blowing or None, "until": w.until,
                                "sector": sector or None},
                          rolls=tuple(dice.rolls[before:]))]
    if row.harden is not None:
        state, hardened = _harden(state, row.harden, dice)
        events.extend(hardened)
    if row.strike is not None:
        state, struck = _weather_strikes(state, w, dice)
        events.extend(struck)
    return state, events


def _harden(state: GraspBattle, going: TerrainClass, dice: Dice
            ) -> tuple[GraspBattle, list[BattleEvent]]:
    """A random piece of the going becomes one class more severe (a die as large as the
    number of pieces picks it, in the board's order)."""
    board = state.field
    pieces = board.pieces_of(going)
    if not pieces:
        return state, [BattleEvent(kind="weather", text=f"There is no {going.label} terrain "
                                   "to make more severe.")]
    before = len(dice.rolls)
    pick = dice.roll(len(pieces), "weather: terrain piece") if len(pieces) > 1 else 1
    piece, worse = pieces[pick - 1], TerrainClass(going + 1)
    state = replace(state, field=board.harden(piece, worse))
    return state, [BattleEvent(
        kind="weather", text=f"The {going.label} terrain at {state.label(piece[0])} "
        f"(piece {pick} of {len(pieces)}) becomes {worse.label}.",
        data={"piece": board.piece_json(piece), "going": worse.label},
        rolls=tuple(dice.rolls[before:]))]


def _weather_strikes(state: GraspBattle, w: Weather, dice: Dice
                     ) -> tuple[GraspBattle, list[BattleEvent]]:
    """The weather strikes at its die: a catastrophe every unit on the field, the other row
    the units in difficult going."""
    die = w.row.strike
    assert die is not None
    events: list[BattleEvent] = []
    for victim in list(state.units):
        if victim.id not in {u.id for u in state.units} or state.step == "over":
            continue
        victim = state.unit(victim.id)
        if w.row.kind == "strike" and state.field.going(victim.pos) is not TerrainClass.DIFFICULT:
            continue
        state, struck = _strike(state, f"the weather ({die.label})", die, victim,
                                _front(state, victim), dice, why="The weather strikes",
                                rule="weather")
        events.extend(struck)
    return state, events


def _front(state: GraspBattle, unit: GraspUnit) -> Pos:
    """Where the weather strikes a unit from: its front (a unit it beats recoils straight
    back)."""
    return state.field.ahead(unit.pos, unit.facing) or unit.pos


def _covers(piece: Sequence[Pos], at: Pos) -> bool:
    if isinstance(at, Hex):
        return at in piece
    return inside(at, [p for p in piece if isinstance(p, Point)])


def _environment(state: GraspBattle, order: GraspOrder, dice: Dice
                 ) -> tuple[GraspBattle, list[BattleEvent]]:
    """Environmental terrain (a landslide, an avalanche, a flood, an eruption): at most 4 MU²
    of difficult going next to difficult or impassable going, in the quarter its die gave;
    every unit caught in it is struck at d6. It goes when its turns are over."""
    w = next((x for x in state.weather if x.side == order.side and _unplaced(x)), None)
    if w is None:
        raise BattleError(f"{order.side} has no environmental terrain to place: it comes with "
                          "a weather throw of 3 or 4 by the side.", rule="weather",
                          field="kind")
    board = state.field
    piece = _piece_in(state, order, w.sector, rule="weather",
                      what="The environmental terrain", die="die")
    if not board.piece_area_ok(piece, ENVIRONMENT_MU2):
        raise BattleError(f"Environmental terrain covers at most {ENVIRONMENT_MU2} MU².",
                          rule="weather", field="place")
    if not board.touches(piece, HARD_GOING):
        raise BattleError("Environmental terrain is placed next to difficult or impassable "
                          "going.", rule="weather", field="place")
    if isinstance(board, HexField):
        laid = tuple(p for p in piece if board.ground(p) < TerrainClass.DIFFICULT)
        was = tuple(board.ground(p) for p in laid)
    else:
        laid, was = piece, ()
    placed = replace(w, piece=laid, was=was, sector="")
    state = replace(state, field=board.with_piece(laid, TerrainClass.DIFFICULT),
                    weather=tuple(placed if x == w else x for x in state.weather))
    events = [BattleEvent(kind="environment", text=f"{order.side} places environmental "
                          f"terrain at {', '.join(state.label(p) for p in piece)}: difficult "
                          f"going until the end of turn {w.until}.",
                          data={"side": order.side, "place": board.piece_json(piece),
                                "until": w.until})]
    for victim in [u for u in state.units if _covers(piece, u.pos)]:
        if state.step == "over" or victim.id not in {u.id for u in state.units}:
            continue
        victim = state.unit(victim.id)
        state, struck = _strike(state, "the environmental terrain", DieLevel.D6, victim,
                                _front(state, victim), dice,
                                why="Caught in environmental terrain", rule="weather")
        events.extend(struck)
    return state, events


def _recover(state: GraspBattle, order: GraspOrder) -> tuple[GraspBattle, list[BattleEvent]]:
    """Perfect conditions: one unit of each side a turn, not in close combat, gains a
    fatigue die level (up to its design's)."""
    if not any(w.row.kind == "fair" for w in state.weather):
        raise BattleError("Only perfect conditions (a weather throw of 2) give a unit +1 "
                          "fatigue.", rule="weather", field="kind")
    if order.side in state.recovered:
        raise BattleError(f"{order.side} has given its one unit this turn +1 fatigue.",
                          rule="weather", field="unit")
    unit = _own(state, order, order.unit, "unit")
    if any(state.field.in_contact(e, unit.pos) for e in state.enemies(unit, same_level=True)):
        raise BattleError(f"{unit.id} is in close combat: the fatigue bonus goes to a unit "
                          "that is not.", rule="weather", field="unit")
    if unit.fatigue is not None and unit.fatigue >= unit.type.fatigue:
        raise BattleError(f"{unit.id} has its full fatigue die ({unit.type.fatigue.label}).",
                          rule="weather", field="unit")
    fatigue = step_up(unit.fatigue, limit=unit.type.fatigue)
    state = replace(_put(state, replace(unit, fatigue=fatigue)),
                    recovered=(*state.recovered, order.side))
    return state, [BattleEvent(kind="recover", text=f"Perfect conditions: {unit.id} gains a "
                               f"fatigue die level, {format_level(unit.fatigue)} → "
                               f"{fatigue.label}.", data={"unit": unit.id,
                                                          "fatigue": fatigue.label})]


# ---------------------------------------------------------------------------
# Blind deployment


def _sees(state: GraspBattle, viewer: GraspUnit, unit: GraspUnit) -> str:
    """How an enemy unit finds a concealed one: contact, or a scout identifying it within its
    fire range (in its arc, unless it fires all round; no smoke or fire between). "" when it
    does not."""
    board = state.field
    if viewer.level == unit.level and board.in_contact(viewer.pos, unit.pos):
        return f"contacted by {viewer.id}"
    reach = _fire_reach(state, viewer) if viewer.type.has(Special.SCOUT) else None
    if reach and board.within(viewer.pos, unit.pos, reach) and (
            viewer.type.has(Special.ALL_ROUND) or board.in_arc(viewer.facing, viewer.pos,
                                                                unit.pos)) \
            and _blocked(state, viewer.pos, unit.pos) is None:
        return f"identified by the scout {viewer.id}"
    return ""


def _reveal(state: GraspBattle) -> tuple[GraspBattle, list[BattleEvent]]:
    """Blind deployment: a marker becomes its unit once spotted or contacted."""
    events: list[BattleEvent] = []
    for unit in [u for u in state.units if u.concealed]:
        how = next((h for v in state.units if v.side != unit.side
                    for h in [_sees(state, v, unit)] if h), "")
        if how:
            state = _put(state, replace(unit, concealed=False))
            events.append(BattleEvent(kind="spotted", text=f"The marker at "
                                      f"{state.label(unit.pos)} is {how}: it is {unit.id}.",
                                      data={"unit": unit.id,
                                            "at": state.field.pos_json(unit.pos)}))
    return state, events


CONCEALED_FIELDS = ("id", "at", "facing", "level", "concealed")


def view_for(state: GraspBattle, side: str) -> dict[str, object]:
    """The state's JSON form as `side` may see it: an enemy ambusher not yet sprung is not
    there, a concealed enemy unit is a marker (its id, place, facing and level); the rest is
    public. (Ids are seen: a blind battle names its units neutrally.)"""
    state.side(side)
    data = state_to_json(state)
    sides: list[dict[str, Any]] = data["sides"]  # type: ignore[assignment]
    for s in sides:
        if s["name"] == side:
            continue
        s["units"] = [{k: v for k, v in u.items() if k in CONCEALED_FIELDS}
                      if u["concealed"] else u for u in s["units"] if not u["hidden"]]
        s["waiting"] = [{"id": w["id"], "off_table": w["off_table"]} for w in s["waiting"]]
    return data


# ---------------------------------------------------------------------------
# JSON


def state_to_json(state: GraspBattle) -> dict[str, object]:
    board = state.field
    return {
        "system": "grasp",
        "settings": {"board": state.settings.board, "mu_per_hex": state.settings.mu_per_hex,
                     "max_turns": state.settings.max_turns,
                     "weather": state.settings.weather, "void": state.settings.void,
                     "dust": state.settings.dust},
        "map": board.map_json(),
        "sides": [{"name": s.name, "edge": s.edge, "pips": s.pips, "reserved": s.reserved,
                   "lost": s.lost, "rolled": s.rolled, "rolled_before": s.rolled_before,
                   "jammed": s.jammed, "preferred": list(s.preferred),
                   "unpreferred": s.unpreferred or None,
                   "waiting": [{"id": w.id, "facing": board.facing_json(w.facing),
                                "type": _type_json(w.type), "off_table": w.off_table,
                                "respawn": w.respawn,
                                **({"aboard": w.aboard} if w.aboard else {}),
                                **({} if w.worn is None else {
                                    "fatigue": format_level(w.worn[0]),
                                    "attributes": _attributes_json(w.worn[1])})}
                               for w in state.waiting if w.side == s.name],
                   "units": [{"id": u.id, "at": board.pos_json(u.pos),
                              "facing": board.facing_json(u.facing),
                              "type": _type_json(u.type),
                              "fatigue": format_level(u.fatigue),
                              "attributes": _attributes_json(u.attributes),
                              "marker": board.pos_json(u.marker) if u.marker else None,
                              "fleeing": u.fleeing, "teleported": u.teleported,
                              "hidden": u.hidden, "level": u.level.label,
                              "marker_level": u.marker_level.label if u.marker_level is not None
                              else None, "marker_high_tech": u.marker_high_tech,
                              "concealed": u.concealed, "unleashed": u.unleashed}
                             for u in state.units if u.side == s.name]}
                  for s in state.sides],
        "turn": state.turn, "phasing": list(state.phasing), "acting": state.acting,
        "step": state.step, "acted": list(state.acted), "busy": state.busy,
        "ambushers": list(state.ambushers), "ambush_sides": list(state.ambush_sides),
        "conditions": state.conditions,
        "deployment": None if state.deployment is None else {
            "order": list(state.deployment.order), "stage": state.deployment.stage,
            "turn": state.deployment.turn, "pieces": dict(state.deployment.pieces),
            "sector": state.deployment.sector,
            "quadrants": dict(state.deployment.quadrants)},
        "gone": [{"unit": u, "why": w} for u, w in state.gone],
        "listening": list(state.listening), "issued": state.issued or None,
        "marker_before": board.pos_json(state.marker_before) if state.marker_before else None,
        "level_before": state.level_before.label if state.level_before is not None else None,
        "clouds": [{"kind": c.kind, "at": board.pos_json(c.at), "was": c.was.label}
                   for c in state.clouds],
        "tending": list(state.tending), "seized": list(state.seized),
        "prisoners": [{"unit": u, "captor": c, "recruited": u in state.recruited}
                      for u, c in state.prisoners],
        "weather": [{"total": w.total, "wind": w.wind, "blowing": w.blowing or None,
                     "side": w.side, "thrown": w.thrown, "until": w.until,
                     "sector": w.sector or None, "piece": board.piece_json(w.piece),
                     "was": [t.label for t in w.was]} for w in state.weather],
        "recovered": list(state.recovered), "blind": state.blind,
    }


def _deployment_from_json(raw: object, names: Sequence[str]) -> Deployment | None:
    if raw is None:
        return None
    path = "state.deployment"
    obj = as_object(raw, path)
    only_fields(obj, ("order", "stage", "turn", "pieces", "sector", "quadrants"), path)
    order = get_str_list(obj, "order", path, what="a side")
    if sorted(order) != sorted(names):
        raise InputError(child(path, "order"), "lists every side once.")
    pieces = as_object(obj.get("pieces") or {}, child(path, "pieces"))
    quadrants = as_object(obj.get("quadrants") or {}, child(path, "quadrants"))
    return Deployment(
        order=order,
        stage=get_choice(obj, "stage", ("terrain", "quadrant", "units"), path),  # type: ignore[arg-type]
        turn=get_int(obj, "turn", path, minimum=0, maximum=len(order) - 1),
        pieces=tuple((k, get_int(pieces, k, child(path, "pieces"), minimum=0)) for k in pieces),
        sector=get_choice(obj, "sector", ("", *QUADRANTS), path, default=""),
        quadrants=tuple((k, get_choice(quadrants, k, QUADRANTS, child(path, "quadrants")))
                        for k in quadrants))


def _cloud_from_json(raw: object, path: str, board: HexField | PlaneField) -> Cloud:
    obj = as_object(raw, path)
    only_fields(obj, ("kind", "at", "was"), path)
    goings = {t.label: t for t in TerrainClass}
    return Cloud(kind=get_choice(obj, "kind", ("smoke", "fire", "dust"), path),  # type: ignore[arg-type]
                 at=board.pos_from_json(obj.get("at"), child(path, "at")),
                 was=goings[get_choice(obj, "was", list(goings), path)])


def _weather_from_json(raw: object, path: str, board: HexField | PlaneField,
                       names: Sequence[str]) -> Weather:
    obj = as_object(raw, path)
    only_fields(obj, ("total", "wind", "blowing", "side", "thrown", "until", "sector", "piece",
                      "was"), path)
    piece = board.piece_from_json(obj["piece"], child(path, "piece")) if obj.get("piece") \
        else ()
    was = tuple(GOINGS[get_choice({"was": v}, "was", list(GOINGS), child(path, "was"))]
                for v in get_list(obj, "was", path, default=True))
    if isinstance(board, HexField) and len(was) != len(piece):
        raise InputError(child(path, "was"), "gives the ground under each hex of the piece.")
    return Weather(total=get_int(obj, "total", path, minimum=2, maximum=12),
                   wind=get_int(obj, "wind", path, minimum=0, maximum=5),
                   blowing=get_choice(obj, "blowing", EDGES, path) if obj.get("blowing")
                   else "",
                   side=get_choice(obj, "side", names, path),
                   thrown=get_int(obj, "thrown", path, minimum=1, maximum=1000),
                   until=get_int(obj, "until", path, minimum=0, maximum=1000),
                   sector=get_choice(obj, "sector", QUADRANTS, path) if obj.get("sector")
                   else "",
                   piece=piece, was=was)


def state_from_json(data: JSONObject) -> GraspBattle:
    only_fields(data, ("system", "settings", "map", "sides", "turn", "phasing", "acting",
                       "step", "acted", "busy", "gone", "ambushers", "ambush_sides",
                       "conditions", "deployment", "prisoners", "listening", "issued",
                       "marker_before", "level_before", "clouds", "tending", "seized",
                       "weather", "recovered", "blind"),
                "state")
    if data.get("system") != "grasp":
        raise InputError("state.system", 'is "grasp" for a GRASP battle.')
    settings = _settings(as_object(data.get("settings"), "state.settings"), "state.settings",
                         defaults=False)
    board = field_from_json(data.get("map"), "state.map", board=settings.board,
                            mu_per_hex=settings.mu_per_hex)
    sides, units, waiting = _sides(get_list(data, "sides", "state"), "state.sides", board,
                                   with_state=True)
    names = [s.name for s in sides]
    phasing = get_str_list(data, "phasing", "state", what="a side")
    if sorted(phasing) != sorted(names) and (phasing or data.get("step") != "deploy"):
        raise InputError("state.phasing", "lists every side once.")
    gone = tuple((get_str(as_object(g, "state.gone"), "unit", "state.gone"),
                  get_str(as_object(g, "state.gone"), "why", "state.gone"))
                 for g in get_list(data, "gone", "state", default=True))
    listening = get_str_list(data, "listening", "state", what="a side")
    if any(n not in names for n in listening):
        raise InputError("state.listening", "names sides of the battle.")
    issued = get_str(data, "issued", "state", default="") if data.get("issued") else ""
    if listening and not issued:
        raise InputError("state.issued", "names the unit whose order the window is about.")
    prisoners: list[tuple[str, str, bool]] = []
    for raw in get_list(data, "prisoners", "state", default=True):
        obj = as_object(raw, "state.prisoners")
        only_fields(obj, ("unit", "captor", "recruited"), "state.prisoners")
        captor = get_choice(obj, "captor", names, "state.prisoners")
        prisoners.append((get_str(obj, "unit", "state.prisoners"), captor,
                          get_bool(obj, "recruited", "state.prisoners", default=False)))
    return GraspBattle(
        settings=settings, field=board, sides=tuple(sides), units=tuple(units),
        turn=get_int(data, "turn", "state", minimum=0, maximum=1000), phasing=phasing,
        acting=get_int(data, "acting", "state", minimum=0, maximum=max(0, len(phasing) - 1)),
        step=get_choice(data, "step", ("deploy", "command", "ambush", "fire",  # type: ignore[arg-type]
                                       "combat", "over"), "state"),
        ambushers=get_str_list(data, "ambushers", "state", what="a unit id"),
        ambush_sides=get_str_list(data, "ambush_sides", "state", what="a side"),
        conditions=get_choice(data, "conditions", ("", *CONDITIONS), "state", default=""),
        deployment=_deployment_from_json(data.get("deployment"), names),
        acted=get_str_list(data, "acted", "state", what="a unit id"),
        busy=get_bool(data, "busy", "state"), gone=gone, waiting=tuple(waiting),
        prisoners=tuple((u, c) for u, c, _ in prisoners),
        listening=listening, issued=issued,
        marker_before=None if data.get("marker_before") is None
        else board.pos_from_json(data.get("marker_before"), "state.marker_before"),
        level_before=None if data.get("level_before") is None else Level[get_choice(
            data, "level_before", [lv.label for lv in BATTLE_LEVELS], "state").upper()],
        clouds=tuple(_cloud_from_json(c, child("state.clouds", i), board)
                     for i, c in enumerate(get_list(data, "clouds", "state", default=True))),
        tending=get_str_list(data, "tending", "state", what="a unit id"),
        seized=get_str_list(data, "seized", "state", what="a unit id"),
        recruited=tuple(u for u, _, r in prisoners if r),
        weather=tuple(_weather_from_json(w, child("state.weather", i), board, names)
                      for i, w in enumerate(get_list(data, "weather", "state", default=True))),
        recovered=get_str_list(data, "recovered", "state", what="a side"),
        blind=get_bool(data, "blind", "state"))


ENGINE: Engine[GraspBattle, GraspOrder] = Engine(
    key="grasp", start_battle=start, step_battle=step, acting=acting_sides, verdict=outcome,
    to_json=state_to_json, from_json=state_from_json, order_from_json=order_from_json,
    viewer=view_for)

__all__ = ["ENGINE", "GraspBattle", "GraspOrder", "GraspSettings", "GraspUnit", "UNIT_FIELDS",
           "points_lost", "view_for"]
