"""A whole Ancient Foes 2 battle on the hex map: its state and the turn driver (the contract
of rules/battle.py).

The state holds the map (cm per hex, terrain), every band (its units and their hexes, the
way it faces, its history: moves in a row, turns without acting, losses in the enemy's
turn), each side's leaders' record, the round, whose turn it is and the step.

A round is the first player's turn, then the other's (the first player is decided once by a
D6 roll-off). A player's turn (docs/rules/ancient_foes.md "A whole battle"):

- `command`: the player's leaders move (`move_leader`, in any direction) and give their
  orders (`order`: fire, move, fight, formation, turn; two a leader, the second on a D6 of
  3+), each leader moving before he gives orders, in the player's sequence; then `done`.
- `initiative`: every band that must take initiative does, in band order; where the rules
  leave a choice (which band to fight or fire at, whether a leader in contact flees, how a
  band closes its gaps) the player answers with an `initiative` order; the rest is applied.

The battle ends when a side has lost all its units, or all its leaders (a side that started
with leaders), or after `max_rounds`: then the side with the most units left wins (equal: a
draw).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Literal

from rules.ancient_foes.army import ArmyBand, army_problems
from rules.ancient_foes.battlefield import (
    COMMAND_RANGE_CM,
    DEFAULT_CM_PER_HEX,
    MAX_UNITS_PER_BAND,
    AnyBattlefield,
    BandError,
    BandUnit,
    Cm,
    FieldBand,
    Pos,
    in_fighting_range,
)
from rules.ancient_foes.combat import (
    FightOrder,
    FireOrder,
    OrderError,
    OrderResult,
    resolve_fight,
    resolve_fire,
)
from rules.ancient_foes.orders import (
    ORDERS_PER_TURN,
    SECOND_ORDER_TARGET,
    InitiativeDecision,
    InitiativeSituation,
    first_player,
    take_initiative,
)
from rules.ancient_foes.table import Facing, HexTable, Table, table_from_json
from rules.ancient_foes.units import UnitType, read_unit_type
from rules.battle import (
    BattleError,
    BattleEvent,
    Engine,
    Outcome,
    StepResult,
    apply_orders,
    standing_verdict,
    victory_event,
)
from rules.dice import Dice, DiceError, FixedDice, Roll
from rules.hexgrid import Direction, Hex
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
from rules.plane import EdgeGap, Point, Vec

DEFAULT_MAX_ROUNDS = 12
DEFAULT_DEPLOYMENT_CM = 30
MAX_MAP_SIDE = 80

Step = Literal["command", "initiative", "over"]
OrderName = Literal["fire", "move", "fight", "formation", "turn"]
ORDER_NAMES = ("fire", "move", "fight", "formation", "turn")


@dataclass(frozen=True, kw_only=True)
class AfSettings:
    """What the source leaves to the table (docs/rules/ancient_foes.md)."""

    board: Literal["hex", "continuous"] = "hex"
    base_cm: int = 4
    cm_per_hex: int = DEFAULT_CM_PER_HEX
    max_rounds: int = DEFAULT_MAX_ROUNDS
    leader_cap: Literal["down", "up"] = "down"
    deployment_cm: int = DEFAULT_DEPLOYMENT_CM


@dataclass(frozen=True, kw_only=True)
class AfUnit:
    name: str
    type: UnitType
    hex: Pos  # a hex, or a point on the continuous table


@dataclass(frozen=True, kw_only=True)
class AfBand:
    """A band on the field: its units, the way it faces and its history.

    `moves`: its player's turns in a row, up to now, in which it moved ("previously moved 3
    times in a row" from 3 on); `idle`: its player's turns in a row without acting; `lost`:
    it lost units in the opposing player's turn (it must close its gaps by initiative)."""

    name: str
    side: str
    facing: Facing
    units: tuple[AfUnit, ...]
    moves: int = 0
    idle: int = 0
    lost: bool = False

    @property
    def is_leader(self) -> bool:
        return len(self.units) == 1 and self.units[0].type.leader


@dataclass(frozen=True, kw_only=True)
class AfSide:
    name: str
    had_leaders: bool
    leader_fell: int = 0  # the round a leader of this side last fell (0: never)


@dataclass(frozen=True, kw_only=True)
class AfBattle:
    settings: AfSettings
    table: Table
    sides: tuple[AfSide, ...]
    bands: tuple[AfBand, ...]
    round: int
    order: tuple[str, ...]  # the players in turn order (the first player first)
    active: str
    step: Step
    orders_given: tuple[tuple[str, int], ...] = ()  # leader band → orders given this turn
    leaders_moved: tuple[str, ...] = ()
    acted: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    formed: tuple[str, ...] = ()
    turned: tuple[str, ...] = ()
    queue: tuple[str, ...] = ()
    killed: tuple[str, ...] = ()

    def band(self, name: str, field: str = "band") -> AfBand:
        for b in self.bands:
            if b.name == name:
                return b
        gone = " (it was destroyed)" if any(k.split("/")[0] == name for k in self.killed) \
            else ""
        raise BattleError(f"There is no band {name!r} on the field{gone}.", rule="bands",
                          field=field)

    def side(self, name: str) -> AfSide:
        for s in self.sides:
            if s.name == name:
                return s
        raise BattleError(f"There is no side {name!r} in this battle.", rule="sides",
                          field="side")

    def battlefield(self, *, without: str | None = None) -> AnyBattlefield:
        return self.table.battlefield(frozenset(u.hex for b in self.bands if b.name != without
                                                for u in b.units))

    def field_band(self, band: AfBand) -> FieldBand:
        fell = self.side(band.side).leader_fell
        return FieldBand(name=band.name,
                         units=tuple(BandUnit(name=u.name, unit_type=u.type, hex=u.hex)
                                     for u in band.units),
                         moved_three_times=band.moves >= 3,
                         leader_fell_last_round=fell > 0 and fell == self.round - 1)


# ---------------------------------------------------------------------------
# Facing: "in front" and "forwards", exactly, on either table


def in_front(state: AfBattle, band: AfBand, target: AfBand) -> bool:
    """A band is in front of another when a unit of it is within 45° of the way some unit of
    the other faces (to its side or behind is more than 45° off)."""
    return any(state.table.in_arc(band.facing, u.hex, t.hex) for u in band.units
               for t in target.units)


# ---------------------------------------------------------------------------
# Orders


@dataclass(frozen=True, kw_only=True)
class AfOrder:
    """`move_leader` (leader, to), `order` (leader, band, order, target?, to?, facing?,
    formation?), `done`, or `initiative` (band, target?, flee?, formation?)."""

    side: str
    kind: Literal["move_leader", "order", "done", "initiative"]
    leader: str = ""
    band: str = ""
    order: OrderName = "move"
    target: str = ""
    # Places and facings as given (a hex label or [x, y]; a direction name or [dx, dy]),
    # read against the battle's table when the order is applied.
    to: object = None
    facing: object = None
    formation: tuple[tuple[str, object], ...] = ()
    flee: bool = False


def _pos(state: AfBattle, value: object, field: str) -> Pos:
    if isinstance(value, Hex | Point):
        if not state.table.contains(value):
            raise BattleError(f"{state.table.label(value)} is not on the table.", rule="table",
                              field=field)
        return value
    try:
        return state.table.pos_from_json(value, field)
    except InputError as exc:
        raise BattleError(exc.message, rule="table", field=field) from exc


def _facing_of(state: AfBattle, value: object, field: str) -> Facing:
    if isinstance(value, Direction | Vec):
        return value
    try:
        return state.table.facing_from_json(value, field)
    except InputError as exc:
        raise BattleError(exc.message, rule="turn", field=field) from exc


def _facing_name(state: AfBattle, facing: Facing) -> str:
    value = state.table.facing_json(facing)
    return value if isinstance(value, str) else "[" + ", ".join(map(str, value)) + "]" \
        if isinstance(value, list) else str(value)


def order_from_json(data: object, path: str) -> AfOrder:
    obj = as_object(data, path)
    only_fields(obj, ("side", "kind", "leader", "band", "order", "target", "to", "facing",
                      "formation", "flee"), path)
    formation = as_object(obj.get("formation") or {}, child(path, "formation"))
    return AfOrder(
        side=get_str(obj, "side", path),
        kind=get_choice(obj, "kind", ("move_leader", "order", "done", "initiative"),
                        path),  # type: ignore[arg-type]
        leader=get_str(obj, "leader", path, default=""),
        band=get_str(obj, "band", path, default=""),
        order=get_choice(obj, "order", ORDER_NAMES, path, default="move"),  # type: ignore[arg-type]
        target=get_str(obj, "target", path, default=""),
        to=obj.get("to"),
        facing=obj.get("facing"),
        formation=tuple(formation.items()),
        flee=get_bool(obj, "flee", path),
    )


# ---------------------------------------------------------------------------
# Start


def _cm_key(cm: Cm) -> Fraction:
    """A distance as a number that orders like it (for min and max)."""
    if isinstance(cm, EdgeGap):
        return cm.square  # gaps of one table share its base
    return Fraction(cm) ** 2 if cm >= 0 else Fraction(-1)


def _settings(data: JSONObject, path: str, *, defaults: bool) -> AfSettings:
    only_fields(data, ("board", "base_cm", "cm_per_hex", "max_rounds", "leader_cap",
                       "deployment_cm"), path)

    def number(name: str, default: int, low: int, high: int) -> int:
        return get_int(data, name, path, minimum=low, maximum=high,
                       default=default if defaults else None)

    return AfSettings(
        board=get_choice(data, "board", ("hex", "continuous"), path,  # type: ignore[arg-type]
                         default="hex" if defaults else None),
        base_cm=number("base_cm", 4, 1, 20),
        cm_per_hex=number("cm_per_hex", DEFAULT_CM_PER_HEX, 1, 20),
        max_rounds=number("max_rounds", DEFAULT_MAX_ROUNDS, 1, 100),
        leader_cap=get_choice(data, "leader_cap", ("down", "up"), path,  # type: ignore[arg-type]
                              default="down" if defaults else None),
        deployment_cm=number("deployment_cm", DEFAULT_DEPLOYMENT_CM, 0, 200),
    )


def _bands(raw_sides: list[object], path: str, table: Table, *, with_state: bool
           ) -> tuple[list[AfSide], list[AfBand]]:
    sides: list[AfSide] = []
    bands: list[AfBand] = []
    for i, raw in enumerate(raw_sides):
        where = child(path, i)
        obj = as_object(raw, where)
        only_fields(obj, ("name", "bands", "had_leaders", "leader_fell") if with_state
                    else ("name", "bands"), where)
        name = get_str(obj, "name", where)
        if not name or name in {s.name for s in sides}:
            raise InputError(child(where, "name"), "must be a distinct, non-empty name.")
        own: list[AfBand] = []
        for j, raw_band in enumerate(get_list(obj, "bands", where)):
            at = child(child(where, "bands"), j)
            b = as_object(raw_band, at)
            only_fields(b, ("name", "facing", "units", "moves", "idle", "lost") if with_state
                        else ("name", "facing", "units"), at)
            units = []
            raw_units = get_list(b, "units", at)
            if not 1 <= len(raw_units) <= MAX_UNITS_PER_BAND:
                raise InputError(child(at, "units"),
                                 f"a band is 1 to {MAX_UNITS_PER_BAND} units.")
            for k, raw_unit in enumerate(raw_units):
                uat = child(child(at, "units"), k)
                u = as_object(raw_unit, uat)
                only_fields(u, ("name", "at", "code", "armour", "weapon", "mount",
                                "experience", "leader"), uat)
                units.append(AfUnit(name=get_str(u, "name", uat), type=read_unit_type(
                    {k2: v for k2, v in u.items() if k2 not in ("name", "at")}, uat),
                    hex=table.pos_from_json(u.get("at"), child(uat, "at"))))
            band = AfBand(name=get_str(b, "name", at), side=name,
                          facing=table.facing_from_json(b.get("facing"), child(at, "facing")),
                          units=tuple(units),
                          moves=get_int(b, "moves", at, minimum=0, maximum=1000, default=0),
                          idle=get_int(b, "idle", at, minimum=0, maximum=1000, default=0),
                          lost=get_bool(b, "lost", at))
            try:
                FieldBand(name=band.name, units=tuple(
                    BandUnit(name=u.name, unit_type=u.type, hex=u.hex) for u in band.units))
            except BandError as exc:
                raise InputError(at, str(exc)) from None
            if table.battlefield(frozenset()).gaps(frozenset(u.hex for u in band.units)) \
                    and not band.lost:
                raise InputError(child(at, "units"), f"band {band.name!r} has gaps: a band "
                                 "stands together, base to base.")
            own.append(band)
        if not own and not with_state:
            raise InputError(child(where, "bands"), "an army has 1 to 10 bands.")
        sides.append(AfSide(
            name=name,
            had_leaders=get_bool(obj, "had_leaders", where) if with_state
            else any(b.is_leader for b in own),
            leader_fell=get_int(obj, "leader_fell", where, minimum=0, default=0)
            if with_state else 0))
        bands.extend(own)
    names = [b.name for b in bands]
    unit_names = [f"{b.name}/{u.name}" for b in bands for u in b.units]
    places = [u.hex for b in bands for u in b.units]
    if len(set(names)) != len(names) or len(set(unit_names)) != len(unit_names):
        raise InputError(path, "every band has its own name, and every unit its own name "
                         "within its band.")
    if any(table.overlap(a, b) for i, a in enumerate(places) for b in places[i + 1:]):
        raise InputError(path, "two units stand on one another (one hex, or overlapping "
                         "bases); bands cannot stand on one another.")
    return sides, bands


def start(*, scenario: JSONObject, settings: JSONObject, dice: Dice) -> StepResult[AfBattle]:
    """Deploy the armies (each army legal, 30 cm apart), roll who starts."""
    conf = _settings(settings, "settings", defaults=True)
    only_fields(scenario, ("map", "sides"), "scenario")
    table = table_from_json(scenario.get("map"), "scenario.map", board=conf.board,
                            cm_per_hex=conf.cm_per_hex, base_cm=conf.base_cm,
                            max_side=MAX_MAP_SIDE)
    raw_sides = get_list(scenario, "sides", "scenario")
    if len(raw_sides) < 2:
        raise InputError("scenario.sides", "needs at least two sides.")
    sides, bands = _bands(raw_sides, "scenario.sides", table, with_state=False)
    for i, side in enumerate(sides):
        problems = army_problems([ArmyBand(name=b.name, units=tuple(u.type for u in b.units))
                                  for b in bands if b.side == side.name],
                                 leader_cap=conf.leader_cap)
        if problems:
            raise InputError(child("scenario.sides", i), problems[0])
    rank = {s.name: i for i, s in enumerate(sides)}
    for a in bands:
        for b in bands:
            if rank[a.side] >= rank[b.side]:
                continue
            gap = min((table.gap(u.hex, v.hex) for u in a.units for v in b.units),
                      key=_cm_key)
            if gap < conf.deployment_cm:
                raise InputError("scenario.sides", f"{a.name} and {b.name} deploy {gap} cm "
                                 f"apart; armies deploy at least {conf.deployment_cm} cm "
                                 "apart.")
    try:
        first = first_player([s.name for s in sides], dice=dice)
    except OrderError as exc:
        raise BattleError(str(exc), rule="who starts") from exc
    names = [s.name for s in sides]
    at = names.index(first.player)
    order = tuple(names[at:] + names[:at])
    state = AfBattle(settings=conf, table=table, sides=tuple(sides),
                     bands=tuple(bands), round=1, order=order, active=order[0],
                     step="command")
    rolls = ", ".join(f"{r.purpose.removeprefix('who starts: ')} {r.value}" for r in first.dice)
    events = [
        BattleEvent(kind="deployed", text=f"{len(bands)} bands deployed on "
                    + (f"a {table.grid.cols} × {table.grid.rows} map ({conf.cm_per_hex} cm a "
                       "hex)." if isinstance(table, HexTable)
                       else f"a {table.width} × {table.height} cm table."),
                    data={"bands": {b.name: [table.pos_json(u.hex) for u in b.units]
                                    for b in bands}}),
        BattleEvent(kind="first", text=f"Who starts: {rolls}; {first.player} starts.",
                    data={"first": first.player}, rolls=first.dice),
    ]
    return StepResult(state=state, events=tuple(events))


# ---------------------------------------------------------------------------
# The driver


def acting_sides(state: AfBattle) -> tuple[str, ...]:
    return () if state.step == "over" else (state.active,)


def step(*, state: AfBattle, orders: Sequence[AfOrder], dice: Dice) -> StepResult[AfBattle]:
    """Apply `orders` in order; each must come from the side that acts at that moment."""

    def check(state: AfBattle, order: AfOrder) -> None:
        state.side(order.side)
        if order.side != state.active:
            raise BattleError(f"{order.side} does not act now: it is {state.active}'s turn "
                              f"({state.step}).", rule="turn")

    return apply_orders(state, orders, dice, over=lambda s: s.step == "over", check=check,
                        apply=_apply)


def _apply(state: AfBattle, order: AfOrder, dice: Dice) -> tuple[AfBattle, list[BattleEvent]]:
    if state.step == "initiative":
        if order.kind != "initiative":
            raise BattleError(f"{state.queue[0]} takes initiative first: an initiative order "
                              "for it.", rule="initiative", field="kind")
        return _initiative(state, order, dice)
    if order.kind == "move_leader":
        return _move_leader(state, order)
    if order.kind == "order":
        return _order(state, order, dice)
    if order.kind == "done":
        state = replace(state, step="initiative",
                        queue=tuple(b.name for b in state.bands if b.side == state.active))
        more, events = _run_initiative(state, dice)
        return more, [BattleEvent(kind="orders_done", text=f"{order.side} has given its "
                                  "orders; its bands take initiative."), *events]
    raise BattleError("In the command step a leader moves or gives an order, or the player is "
                      "done.", rule="turn", field="kind")


def _own(state: AfBattle, name: str, side: str, field: str) -> AfBand:
    band = state.band(name, field)
    if band.side != side:
        raise BattleError(f"{band.name} is not a band of {side}.", rule="bands", field=field)
    return band


def _put(state: AfBattle, band: AfBand) -> AfBattle:
    return replace(state, bands=tuple(band if b.name == band.name else b for b in state.bands))


def _add(ids: tuple[str, ...], name: str) -> tuple[str, ...]:
    return ids if name in ids else (*ids, name)


def _labels(state: AfBattle, units: Sequence[AfUnit]) -> str:
    return ", ".join(state.table.label(u.hex) for u in units)


# ---------------------------------------------------------------------------
# Moves


def _shift(state: AfBattle, band: AfBand, lead_to: Pos) -> AfBand:
    places = state.table.shifted([u.hex for u in band.units], lead_to)
    return replace(band, units=tuple(replace(u, hex=p)
                                     for u, p in zip(band.units, places, strict=True)))


def _go(state: AfBattle, band: AfBand, goal: Pos, *, full_move: bool = False
        ) -> tuple[AfBand, str]:
    """Move the band toward `goal` in a straight line, as far as its allowance lets it and
    no farther than another band or the table's edge allow; the sentence says where it ended
    and why it stopped short (for a `full_move` — falling back, fleeing — only when
    something other than its allowance stopped it)."""
    step = state.table.go(state.field_band(band), state.battlefield(without=band.name), goal,
                          full_move=full_move)
    moved = _shift(state, band, step.lead)
    text = f"moves {step.cm} cm to {_labels(state, moved.units)}"
    if step.why and not full_move:
        goal_text = state.table.label(goal) if state.table.contains(goal) else "its goal"
        text += f", short of {goal_text} ({step.why.rstrip('.')})"
    elif step.why:
        text += f" ({step.why.rstrip('.')})"
    return moved, text


def _move_leader(state: AfBattle, order: AfOrder) -> tuple[AfBattle, list[BattleEvent]]:
    leader = _own(state, order.leader, order.side, "leader")
    if not leader.is_leader:
        raise BattleError(f"{leader.name} is not a leader.", rule="leaders", field="leader")
    if leader.name in state.leaders_moved or dict(state.orders_given).get(leader.name):
        raise BattleError(f"{leader.name} has already moved or given orders this turn: a "
                          "leader moves once, before he gives orders.", rule="leaders",
                          field="leader")
    if order.to is None:
        raise BattleError("A leader's move names the place he goes to.", rule="leaders",
                          field="to")
    to = _pos(state, order.to, "to")
    cm, problem = state.table.straight(state.field_band(leader),
                                       state.battlefield(without=leader.name), to)
    if problem:
        raise BattleError(problem, rule="leaders", field="to")
    moved = _shift(state, leader, to)
    state = _put(state, moved)
    state = replace(state, leaders_moved=(*state.leaders_moved, leader.name),
                    moved=_add(state.moved, leader.name), acted=_add(state.acted, leader.name))
    return state, [BattleEvent(kind="leader_move", text=f"{leader.name} moves "
                               f"{cm} cm to {state.table.label(to)}.",
                               data={"band": leader.name, "at": state.table.pos_json(to)})]


# ---------------------------------------------------------------------------
# Leaders' orders


def _check_formation(state: AfBattle, band: AfBand, formation: Sequence[tuple[str, object]],
                     *, closing: bool) -> AfBand:
    """The band in its new formation, or a refusal naming the rule it breaks."""
    if len(band.units) < 2:
        raise BattleError(f"{band.name} is a single unit; only a band of more than one unit "
                          "changes formation.", rule="formation", field="formation")
    names = {u.name for u in band.units}
    wanted = {name: _pos(state, value, f"formation.{name}") for name, value in formation}
    unknown = sorted(set(wanted) - names)
    if unknown:
        raise BattleError(f"{band.name} has no unit {unknown[0]!r}.", rule="formation",
                          field="formation")
    table = state.table
    after = replace(band, units=tuple(replace(u, hex=wanted.get(u.name, u.hex))
                                      for u in band.units))
    others = [u.hex for b in state.bands if b.name != band.name for u in b.units]
    places = [u.hex for u in after.units]
    for u in after.units:
        if not table.contains(u.hex) or any(table.overlap(u.hex, o) for o in others):
            raise BattleError(f"{u.name} cannot stand at {table.label(u.hex)}: off the table or "
                              "on another band.", rule="formation", field="formation")
    if any(table.overlap(a, b) for i, a in enumerate(places) for b in places[i + 1:]):
        raise BattleError("Two units of the band would stand on one another.",
                          rule="formation", field="formation")
    if state.battlefield().gaps(frozenset(places)):
        raise BattleError(f"{band.name} would have gaps: after a formation change its units "
                          "stand together with no gaps.", rule="formation", field="formation")
    before = {u.name: u.hex for u in band.units}
    if closing:
        speed = state.field_band(band).speed
        for u in after.units:
            cm = table.travel(before[u.name], u.hex)
            if cm > speed:
                raise BattleError(f"{u.name} would go {cm} cm; closing gaps, a unit goes no "
                                  f"farther than the band's move ({speed} cm).",
                                  rule="formation", field="formation")
        return after
    for u in after.units:
        neighbours = [v.name for v in band.units if v.name != u.name
                      and table.adjacent(before[v.name], before[u.name])]
        if not any(table.adjacent(u.hex, w.hex) for w in after.units if w.name in neighbours):
            raise BattleError(f"{u.name} would no longer stand next to any unit it stood next "
                              "to before the change.", rule="formation", field="formation")
    return after


def _check_order(state: AfBattle, leader: AfBand, band: AfBand, order: AfOrder) -> None:
    """Everything the rules let a player see before the order is given (not distances)."""
    if order.order in ("fire", "fight"):
        target = state.band(order.target, "target")
        if target.side == band.side:
            raise BattleError(f"{target.name} is a band of {band.side}'s own side.",
                              rule=order.order, field="target")
        if order.order == "fire":
            if not any(u.type.is_ranged for u in band.units):
                raise BattleError(f"{band.name} has no unit with a firing range.", rule="fire",
                                  field="band")
            if not in_front(state, band, target):
                raise BattleError(f"{target.name} is not in front of {band.name} (facing "
                                  f"{_facing_name(state, band.facing)}); a band fires only at "
                                  "a band in front of it, not to its side or behind.",
                                  rule="fire", field="target")
        elif not in_fighting_range(state.field_band(band).units,
                                   state.field_band(target).units, state.battlefield()):
            contact = "an adjacent hex" if isinstance(state.table, HexTable) else "base to base"
            raise BattleError(f"No unit of {band.name} is within fighting range (1 cm: "
                              f"{contact}) of {target.name}.", rule="fight", field="target")
    elif order.order == "move":
        if band.is_leader:
            raise BattleError(f"{band.name} is a leader: he moves in his own move, before he "
                              "gives orders.", rule="move", field="band")
        if order.to is None:
            raise BattleError("A move order names the place the band's first unit heads for.",
                              rule="move", field="to")
        to = _pos(state, order.to, "to")
        if to == band.units[0].hex or not state.table.in_arc(band.facing, band.units[0].hex,
                                                             to):
            raise BattleError(f"{band.name} faces {_facing_name(state, band.facing)} and moves "
                              f"only forwards (within 45°); {state.table.label(to)} is not "
                              "ahead of it: turn it first.", rule="move", field="to")
    elif order.order == "turn":
        if order.facing is None:
            raise BattleError("A turn order names the new facing.", rule="turn",
                              field="facing")
        _facing_of(state, order.facing, "facing")
        if band.name in state.formed:
            raise BattleError(f"{band.name} changed formation this turn; a band cannot change "
                              "formation and turn.", rule="turn", field="band")
    else:
        if band.name in state.turned:
            raise BattleError(f"{band.name} turned this turn; a band cannot change formation "
                              "and turn.", rule="formation", field="band")
        _check_formation(state, band, order.formation, closing=False)
    del leader


def _order(state: AfBattle, order: AfOrder, dice: Dice) -> tuple[AfBattle, list[BattleEvent]]:
    leader = _own(state, order.leader, order.side, "leader")
    if not leader.is_leader:
        raise BattleError(f"{leader.name} is not a leader; only leaders give orders.",
                          rule="orders", field="leader")
    given = dict(state.orders_given).get(leader.name, 0)
    if given >= ORDERS_PER_TURN:
        raise BattleError(f"{leader.name} has given his two orders this turn.", rule="orders",
                          field="leader")
    band = _own(state, order.band, order.side, "band")
    gap = min((state.table.gap(leader.units[0].hex, u.hex) for u in band.units), key=_cm_key)
    if gap > COMMAND_RANGE_CM:
        raise BattleError(f"{band.name} is {gap} cm from {leader.name}; a leader's command "
                          f"range is {COMMAND_RANGE_CM} cm.", rule="command range",
                          field="band")
    _check_order(state, leader, band, order)
    counts = dict(state.orders_given)
    counts[leader.name] = given + 1
    state = replace(state, orders_given=tuple(counts.items()))
    head = f"{leader.name} orders {band.name} to {order.order}"
    rolls: tuple[Roll, ...] = ()
    if given + 1 == ORDERS_PER_TURN:
        before = len(dice.rolls)
        try:
            value = dice.roll(6, f"second order: {leader.name} to {band.name}")
        except DiceError as exc:
            raise BattleError(str(exc), rule="dice") from exc
        rolls = tuple(dice.rolls[before:])
        if value < SECOND_ORDER_TARGET:
            return state, [BattleEvent(kind="order", text=f"{head}: second order, D6 {value} "
                                       f"(needs {SECOND_ORDER_TARGET}+): it fails.",
                                       data={"band": band.name, "order": order.order,
                                             "given": False}, rolls=rolls)]
        head += f" (second order, D6 {value}: given)"
    state = replace(state, acted=_add(state.acted, band.name))
    state, text, events = _carry_out(state, band, order, dice)
    first = BattleEvent(kind="order", text=f"{head}: {text}" if text else f"{head}.",
                        data={"band": band.name, "order": order.order, "given": True},
                        rolls=rolls)
    return state, [first, *events]


def _carry_out(state: AfBattle, band: AfBand, order: AfOrder, dice: Dice
               ) -> tuple[AfBattle, str, list[BattleEvent]]:
    if order.order == "move":
        moved, text = _go(state, band, _pos(state, order.to, "to"))
        state = replace(_put(state, moved), moved=_add(state.moved, band.name))
        return state, f"{band.name} {text}.", []
    if order.order == "turn":
        facing = _facing_of(state, order.facing, "facing")
        state = replace(_put(state, replace(band, facing=facing)),
                        turned=_add(state.turned, band.name))
        return state, f"{band.name} now faces {_facing_name(state, facing)}.", []
    if order.order == "formation":
        after = _check_formation(state, band, order.formation, closing=False)
        state = replace(_put(state, after), formed=_add(state.formed, band.name))
        return state, f"{band.name} stands at {_labels(state, after.units)}.", []
    return _combat(state, band, state.band(order.target), order.order, dice)


def _combat(state: AfBattle, band: AfBand, target: AfBand, kind: str, dice: Dice
            ) -> tuple[AfBattle, str, list[BattleEvent]]:
    before = len(dice.rolls)
    try:
        if kind == "fire":
            result = resolve_fire(FireOrder(firing=state.field_band(band),
                                            target=state.field_band(target),
                                            battlefield=state.battlefield()), dice=dice)
        else:
            result = resolve_fight(FightOrder(fighting=state.field_band(band),
                                              target=state.field_band(target),
                                              battlefield=state.battlefield()), dice=dice)
    except OrderError as exc:
        raise BattleError(str(exc), rule=kind, field="target") from exc
    rolls = tuple(dice.rolls[before:])
    state, fell = _casualties(state, target, result)
    lines = [e.explain() for e in result.events]
    verb = "fires at" if kind == "fire" else "fights"
    text = (f"{band.name} {verb} {target.name}: " + "; ".join(lines) + ". "
            + (f"{target.name} is destroyed." if result.target_destroyed
               else f"{target.name} loses {len(result.casualties)}." if result.casualties
               else "No kill."))
    events = [BattleEvent(kind=kind, text=text, data={"band": band.name,
                                                      "target": target.name,
                                                      "result": result.as_dict()},
                          rolls=rolls)]
    if fell:
        events.append(BattleEvent(kind="leader_fell", text=f"{target.side}'s leader "
                                  f"{target.name} falls: its bands fight at −1 next round."))
    state, ended = _check_victory(state)
    return state, "", events + ended


def _casualties(state: AfBattle, target: AfBand, result: OrderResult) -> tuple[AfBattle, bool]:
    dead = set(result.casualties)
    if not dead:
        return state, False
    killed = tuple(f"{target.name}/{n}" for n in result.casualties)
    left = tuple(u for u in target.units if u.name not in dead)
    fell = target.is_leader and not left
    if left:
        state = _put(state, replace(target, units=left, lost=True))
    else:
        state = replace(state, bands=tuple(b for b in state.bands if b.name != target.name))
    if fell:
        state = replace(state, sides=tuple(replace(s, leader_fell=state.round)
                                           if s.name == target.side else s
                                           for s in state.sides))
    return replace(state, killed=(*state.killed, *killed)), fell


# ---------------------------------------------------------------------------
# Initiative


def _situation(state: AfBattle, band: AfBand, *, flee: bool = False) -> InitiativeSituation:
    field_band = state.field_band(band)
    return InitiativeSituation(
        band=field_band,
        enemies=tuple(state.field_band(b) for b in state.bands if b.side != band.side),
        leaders=tuple(BandUnit(name=b.units[0].name, unit_type=b.units[0].type,
                               hex=b.units[0].hex)
                      for b in state.bands if b.side == band.side and b.is_leader),
        acted_in_last_two_turns=band.idle < 2,
        lost_units=band.lost,
        wishes_to_flee=flee,
        battlefield=state.battlefield(),
    )


def _decide(state: AfBattle, band: AfBand) -> InitiativeDecision:
    return take_initiative(_situation(state, band), dice=FixedDice([]))


def _targets(state: AfBattle, band: AfBand, decision: InitiativeDecision) -> tuple[str, ...]:
    out: list[str] = []
    for action in decision.actions:
        if action.kind == "fire":
            out.extend(t for t in action.targets if in_front(state, band, state.band(t)))
        elif action.kind == "fight":
            out.extend(action.targets)
    return tuple(out)


def _needs_choice(state: AfBattle, band: AfBand, decision: InitiativeDecision) -> bool:
    kinds = {a.kind for a in decision.actions}
    contact = band.is_leader and "fight" in kinds
    return "change_formation" in kinds or contact or len(_targets(state, band, decision)) > 1


def _run_initiative(state: AfBattle, dice: Dice) -> tuple[AfBattle, list[BattleEvent]]:
    """Apply the initiative of the queued bands until one needs the player's choice; then
    the turn ends."""
    events: list[BattleEvent] = []
    while state.step == "initiative" and state.queue:
        band = next((b for b in state.bands if b.name == state.queue[0]), None)
        if band is None:
            state = replace(state, queue=state.queue[1:])
            continue
        decision = _decide(state, band)
        if not (decision.eligible and decision.actions):
            state = replace(state, queue=state.queue[1:])
            continue
        if _needs_choice(state, band, decision):
            return state, events
        state, done = _take(state, band, decision, target="", formation=(), dice=dice)
        events.extend(done)
        state = replace(state, queue=state.queue[1:])
    if state.step != "initiative":
        return state, events
    state, ended = _end_turn(state, dice)
    return state, events + ended


def _initiative(state: AfBattle, order: AfOrder, dice: Dice
                ) -> tuple[AfBattle, list[BattleEvent]]:
    band = state.band(state.queue[0])
    if order.band != band.name:
        raise BattleError(f"{band.name} takes initiative now, not {order.band or 'another'}.",
                          rule="initiative", field="band")
    decision = _decide(state, band)
    in_contact = band.is_leader and any(a.kind == "fight" for a in decision.actions)
    if order.flee and not in_contact:
        raise BattleError(f"Only a leader in fighting range may flee; {band.name} cannot.",
                          rule="initiative", field="flee")
    events: list[BattleEvent] = []
    if order.flee:
        before = len(dice.rolls)
        decision = take_initiative(_situation(state, band, flee=True), dice=dice)
        events.append(BattleEvent(kind="flee_roll", text=f"{band.name} tries to flee: "
                                  f"{decision.actions[-1].detail}.",
                                  rolls=tuple(dice.rolls[before:])))
    state, done = _take(state, band, decision, target=order.target, formation=order.formation,
                        dice=dice)
    events.extend(done)
    if state.step == "initiative":
        state, after = _run_initiative(replace(state, queue=state.queue[1:]), dice)
        events.extend(after)
    return state, events


def _take(state: AfBattle, band: AfBand, decision: InitiativeDecision, *, target: str,
          formation: Sequence[tuple[str, object]], dice: Dice
          ) -> tuple[AfBattle, list[BattleEvent]]:
    """Carry out what initiative obliges the band to do (with the player's choices)."""
    events = [BattleEvent(kind="initiative", text=f"{band.name} takes initiative: "
                          f"{decision.reason}.", data={"band": band.name})]
    state = replace(state, acted=_add(state.acted, band.name))
    for action in decision.actions:
        band = state.band(band.name)
        if action.kind == "change_formation":
            if not formation:
                raise BattleError(f"{band.name} lost units and has gaps: give the formation "
                                  "that closes them.", rule="initiative", field="formation")
            after = _check_formation(state, band, formation, closing=True)
            state = replace(_put(state, replace(after, lost=False)),
                            formed=_add(state.formed, band.name))
            events.append(BattleEvent(kind="formation", text=f"{band.name} closes its gaps: "
                                      f"{_labels(state, after.units)}."))
        elif action.kind in ("fall_back", "flee"):
            far = state.table.far_back(band.units[0].hex, band.facing)
            if action.kind == "flee":
                band = replace(band, facing=state.table.opposite(band.facing))
            moved, text = _go(state, band, far, full_move=True)
            state = replace(_put(state, moved), moved=_add(state.moved, band.name))
            what = "falls back" if action.kind == "fall_back" else "turns and flees"
            events.append(BattleEvent(kind=action.kind, text=f"{band.name} {what}: {text}."))
        elif action.kind in ("fight", "fire"):
            choices = _targets(state, band, replace(decision, actions=(action,)))
            if not choices:
                continue
            if target and target not in choices:
                raise BattleError(f"{band.name} must {action.kind} at one of "
                                  f"{', '.join(choices)}, not {target}.", rule="initiative",
                                  field="target")
            if not target and len(choices) > 1:
                raise BattleError(f"{band.name} must {action.kind}: choose the target among "
                                  f"{', '.join(choices)}.", rule="initiative", field="target")
            state, _, fought = _combat(state, band, state.band(target or choices[0]),
                                       action.kind, dice)
            events.extend(fought)
            if state.step == "over":
                break
    return state, events


# ---------------------------------------------------------------------------
# Turns and the end


def _end_turn(state: AfBattle, dice: Dice) -> tuple[AfBattle, list[BattleEvent]]:
    del dice
    side = state.active
    bands = tuple(
        replace(b, moves=b.moves + 1 if b.name in state.moved else 0,
                idle=0 if b.name in state.acted else b.idle + 1, lost=False)
        if b.side == side else b for b in state.bands)
    state = replace(state, bands=bands, orders_given=(), leaders_moved=(), acted=(), moved=(),
                    formed=(), turned=(), queue=())
    at = state.order.index(side)
    if at + 1 < len(state.order):
        nxt = state.order[at + 1]
        return replace(state, active=nxt, step="command"), [BattleEvent(
            kind="turn", text=f"{side}'s turn is over; {nxt}'s turn.", data={"active": nxt})]
    if state.round >= state.settings.max_rounds:
        return _finish(state)
    state = replace(state, round=state.round + 1, active=state.order[0], step="command")
    return state, [BattleEvent(kind="round", text=f"Round {state.round}: {state.order[0]} "
                               "begins.", data={"round": state.round})]


def _defeated(state: AfBattle) -> list[str]:
    out = []
    for s in state.sides:
        own = [b for b in state.bands if b.side == s.name]
        if not own or (s.had_leaders and not any(b.is_leader for b in own)):
            out.append(s.name)
    return out


def _check_victory(state: AfBattle) -> tuple[AfBattle, list[BattleEvent]]:
    if _defeated(state):
        return _finish(state)
    return state, []


def _finish(state: AfBattle) -> tuple[AfBattle, list[BattleEvent]]:
    state = replace(state, step="over", queue=())
    return state, [victory_event(outcome(state))]


def outcome(state: AfBattle) -> Outcome | None:
    if state.step != "over":
        return None
    scores = {s.name: sum(len(b.units) for b in state.bands if b.side == s.name)
              for s in state.sides}
    beaten = _defeated(state)
    standing = [s.name for s in state.sides if s.name not in beaten]
    if beaten and len(standing) == 1:
        lost = beaten[0]
        why = ("every unit of " if not any(b.side == lost for b in state.bands)
               else "every leader of ") + lost
        return Outcome(winner=standing[0], reason=f"{standing[0]} wins: {why} is defeated.",
                       scores=scores)
    return standing_verdict(scores, turn=state.round, measure="units",
                            wiped="every enemy unit is defeated", period="round")


# ---------------------------------------------------------------------------
# JSON


def _type_json(t: UnitType) -> dict[str, object]:
    return {"code": t.code}


def state_to_json(state: AfBattle) -> dict[str, object]:
    conf = state.settings
    return {
        "system": "ancient_foes",
        "settings": {"board": conf.board, "base_cm": conf.base_cm,
                     "cm_per_hex": conf.cm_per_hex, "max_rounds": conf.max_rounds,
                     "leader_cap": conf.leader_cap, "deployment_cm": conf.deployment_cm},
        "map": state.table.map_json(),
        "sides": [{"name": s.name, "had_leaders": s.had_leaders, "leader_fell": s.leader_fell,
                   "bands": [{"name": b.name, "facing": state.table.facing_json(b.facing),
                              "moves": b.moves, "idle": b.idle, "lost": b.lost,
                              "units": [{"name": u.name, "at": state.table.pos_json(u.hex),
                                         **_type_json(u.type)} for u in b.units]}
                             for b in state.bands if b.side == s.name]}
                  for s in state.sides],
        "round": state.round, "order": list(state.order), "active": state.active,
        "step": state.step,
        "orders_given": dict(state.orders_given),
        "leaders_moved": list(state.leaders_moved), "acted": list(state.acted),
        "moved": list(state.moved), "formed": list(state.formed),
        "turned": list(state.turned), "queue": list(state.queue),
        "killed": list(state.killed),
    }


def _names(data: JSONObject, name: str) -> tuple[str, ...]:
    return get_str_list(data, name, "state", what="a name")


def state_from_json(data: JSONObject) -> AfBattle:
    only_fields(data, ("system", "settings", "map", "sides", "round", "order", "active",
                       "step", "orders_given", "leaders_moved", "acted", "moved", "formed",
                       "turned", "queue", "killed"), "state")
    if data.get("system") != "ancient_foes":
        raise InputError("state.system", 'is "ancient_foes" for an Ancient Foes 2 battle.')
    conf = _settings(as_object(data.get("settings"), "state.settings"), "state.settings",
                     defaults=False)
    table = table_from_json(data.get("map"), "state.map", board=conf.board,
                            cm_per_hex=conf.cm_per_hex, base_cm=conf.base_cm,
                            max_side=MAX_MAP_SIDE)
    sides, bands = _bands(get_list(data, "sides", "state"), "state.sides", table,
                          with_state=True)
    names = [s.name for s in sides]
    order = _names(data, "order")
    if sorted(order) != sorted(names):
        raise InputError("state.order", "lists every side once.")
    active = get_choice(data, "active", names, "state")
    given = as_object(data.get("orders_given") or {}, "state.orders_given")
    return AfBattle(
        settings=conf, table=table, sides=tuple(sides), bands=tuple(bands),
        round=get_int(data, "round", "state", minimum=1, maximum=1000), order=order,
        active=active,
        step=get_choice(data, "step", ("command", "initiative", "over"),  # type: ignore[arg-type]
                        "state"),
        orders_given=tuple((k, get_int(given, k, "state.orders_given", minimum=0,
                                       maximum=ORDERS_PER_TURN)) for k in given),
        leaders_moved=_names(data, "leaders_moved"), acted=_names(data, "acted"),
        moved=_names(data, "moved"), formed=_names(data, "formed"),
        turned=_names(data, "turned"), queue=_names(data, "queue"),
        killed=_names(data, "killed"))


ENGINE: Engine[AfBattle, AfOrder] = Engine(
    key="ancient_foes", start_battle=start, step_battle=step, acting=acting_sides,
    verdict=outcome, to_json=state_to_json, from_json=state_from_json,
    order_from_json=order_from_json)

__all__ = ["ENGINE", "AfBand", "AfBattle", "AfOrder", "AfSettings", "in_front"]
