"""A whole ELF ABAS battle: its state and the turn driver (the contract of rules/battle.py).

The state holds the map (terrain, each side's entry point and its camps and baggage
trains), every force (where it stands or that it waits in reserve, its figures, Leader,
Hero, Fatigue and Spent), the turn's activation order and the step the battle is in.
`step` applies orders one after another, each checked against the state as it is at that
moment, and explains every roll and change in its events.

Steps (docs/rules/elf_abas.md "A whole battle"):

- `activation`: the side whose card is drawn moves its forces and declares their attacks
  (each force once a card: its moves and at most one attack, in any order), then ends the
  activation; every attack declared on a hex is then resolved together, hex after hex in
  the order of their first declaration.
- `allocate`: an attack's dice are rolled and its Casualties could go to more than one
  member of the hex (the Unit, its Leader, its Hero) with different results: the defender
  chooses who takes them.
- `pursuit`: a Retreat with pursuit (or a Panic with pursuit) was carried out: the attacking
  side may let one of its Units follow into a hex the retreating force left, once per
  pursuit, or decline.

A turn is every card of the activation order (two a side, mixed and cut); at its end the
forces that neither moved, attacked nor retreated rest (one Fatigue off) and a Spent force
resting at a village or by its side's camp or baggage train refits. The battle ends when
one side has no force left, or after the last turn (`max_turns`): then the side with the
most figures left wins (equal: a draw).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rules.battle import (
    BattleError,
    BattleEvent,
    Engine,
    Outcome,
    StepResult,
    apply_orders,
    hex_from_json,
    map_from_json,
    on_map,
    standing_verdict,
    victory_event,
)
from rules.dice import Dice
from rules.elf_abas.activation import activation_order
from rules.elf_abas.combat import (
    Attack,
    Attacker,
    AttackResult,
    CombatError,
    TerrainRule,
    resolve_attack,
)
from rules.elf_abas.effects import DrawnEffect, Effect, Member, apply_effects
from rules.elf_abas.movement import (
    DENSE,
    EFFECT_REDUCTION,
    Board,
    Occupant,
    Terrain,
    check_plan,
    movement_cost,
    retreat_path,
)
from rules.elf_abas.units import (
    Force,
    Kind,
    UnitError,
    attack_dice,
    force_from_dict,
    force_to_dict,
    plural,
)
from rules.hexgrid import Grid, Hex, HexLabelError, distance, format_label, line
from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    child,
    get_choice,
    get_int,
    get_list,
    get_optional_int,
    get_str,
    get_str_list,
    only_fields,
)

DEFAULT_MAX_TURNS = 12
MAX_MAP_SIDE = 60
MAX_FORCES = 120

Step = Literal["activation", "allocate", "pursuit", "over"]
Sight = Literal["clear", "partial", "blocked"]


@dataclass(frozen=True, kw_only=True)
class ElfSettings:
    """What the source leaves to the table, as settings (docs/rules/elf_abas.md)."""

    max_turns: int = DEFAULT_MAX_TURNS
    terrain_rule: TerrainRule = TerrainRule.REDUCE_EFFECTS
    terrain_value: int | None = None
    # Fog of war, the GM's choice (None: none, as the source plays): a side sees the enemy
    # forces within `sight` hexes of its forces on the field, its entry point and its camps.
    sight: int | None = None


@dataclass(frozen=True, kw_only=True)
class ElfSide:
    """A side: its entry point (where reserves come on and retreats go) and its camps and
    baggage trains (where its Spent forces refit)."""

    name: str
    entry: Hex
    supplies: tuple[Hex, ...] = ()


@dataclass(frozen=True, kw_only=True)
class BattleForce:
    """A force of the battle; `hex` None: in reserve, it enters at its side's entry point."""

    id: str
    side: str
    force: Force
    hex: Hex | None


@dataclass(frozen=True, kw_only=True)
class Declared:
    """An attack declared in the activation: dice fixed where and when it was declared."""

    attacker: str
    target: str
    dice: int
    hexes: int
    partial: bool


@dataclass(frozen=True, kw_only=True)
class Pending:
    """A rolled attack waiting for the defender's choice of who takes the Casualties."""

    target: str
    rolls: tuple[tuple[int, ...], ...]
    effect_rolls: tuple[tuple[int, int], ...]
    choices: tuple[Member, ...]


@dataclass(frozen=True, kw_only=True)
class Follow:
    """A retreat the attacking side may follow: the hexes it left, how many Units may."""

    retreated: str
    hexes: tuple[Hex, ...]
    count: int
    by: str


@dataclass(frozen=True, kw_only=True)
class ElfBattle:
    settings: ElfSettings
    grid: Grid
    terrain: Mapping[Hex, Terrain]
    sides: tuple[ElfSide, ...]
    forces: tuple[BattleForce, ...]
    turn: int
    order: tuple[str, ...]
    card: int
    step: Step
    moved: tuple[tuple[str, int], ...] = ()
    attacked: tuple[str, ...] = ()
    declared: tuple[Declared, ...] = ()
    queue: tuple[str, ...] = ()
    pending: Pending | None = None
    follows: tuple[Follow, ...] = ()
    busy: tuple[str, ...] = ()
    eliminated: tuple[str, ...] = ()
    joined: tuple[tuple[str, str], ...] = ()

    @property
    def active(self) -> str | None:
        return self.order[self.card] if self.step != "over" and self.card < len(self.order) \
            else None

    def find(self, force_id: str, field: str = "force") -> BattleForce:
        for f in self.forces:
            if f.id == force_id:
                return f
        gone = " (it was eliminated)" if force_id in self.eliminated else ""
        raise BattleError(f"There is no force {force_id!r} on the field{gone}.",
                          rule="forces", field=field)

    def side(self, name: str) -> ElfSide:
        for s in self.sides:
            if s.name == name:
                return s
        raise BattleError(f"There is no side {name!r} in this battle.", rule="sides",
                          field="side")

    def at(self, h: Hex) -> BattleForce | None:
        for f in self.forces:
            if f.hex == h:
                return f
        return None

    def board(self, *, without: str | None = None) -> Board:
        return Board(grid=self.grid, terrain=self.terrain,
                     occupants={f.hex: Occupant(side=f.side, force=f.force)
                                for f in self.forces if f.hex is not None and f.id != without})

    def moved_by(self, force_id: str) -> int:
        return dict(self.moved).get(force_id, 0)


# ---------------------------------------------------------------------------
# Orders


OrderKind = Literal["move", "attack", "end", "allocate", "follow"]
ORDER_KINDS = ("move", "attack", "end", "allocate", "follow")


@dataclass(frozen=True, kw_only=True)
class Target:
    force: str
    dice: int | None = None


@dataclass(frozen=True, kw_only=True)
class ElfOrder:
    """One order: `move` (force, path), `attack` (force, targets with their dice), `end`
    (the activation), `allocate` (to: unit|leader|hero, None for the default choice) or
    `follow` (force and into; no force declines the pursuit)."""

    side: str
    kind: OrderKind
    force: str = ""
    path: tuple[Hex, ...] = ()
    targets: tuple[Target, ...] = ()
    to: Member | None = None
    into: Hex | None = None


_hex = hex_from_json


def order_from_json(data: object, path: str) -> ElfOrder:
    obj = as_object(data, path)
    only_fields(obj, ("side", "kind", "force", "path", "targets", "to", "into"), path)
    kind = get_choice(obj, "kind", ORDER_KINDS, path)
    targets = []
    for i, raw in enumerate(get_list(obj, "targets", path, default=True)):
        at = child(child(path, "targets"), i)
        t = as_object(raw, at)
        only_fields(t, ("force", "dice"), at)
        targets.append(Target(force=get_str(t, "force", at),
                              dice=get_optional_int(t, "dice", at, minimum=0, maximum=100)))
    to = obj.get("to")
    if to is not None and to not in {m.value for m in Member}:
        raise InputError(child(path, "to"), 'is "unit", "leader", "hero" or null.')
    return ElfOrder(
        side=get_str(obj, "side", path),
        kind=kind,  # type: ignore[arg-type]
        force=get_str(obj, "force", path, default=""),
        path=tuple(_hex(h, child(child(path, "path"), i))
                   for i, h in enumerate(get_list(obj, "path", path, default=True))),
        targets=tuple(targets),
        to=Member(to) if isinstance(to, str) else None,
        into=_hex(obj["into"], child(path, "into")) if obj.get("into") is not None else None,
    )


TERRAINS = {t.value: t for t in Terrain}


# ---------------------------------------------------------------------------
# Start


# The least sight fog of war may have: the longest move is 3 hexes (Mounted) and the longest
# shot 5 (six Missile figures, one die a hex fewer), so every hex a side's order can reach,
# and every hex between a shooter and its target, is in that side's sight. No refusal and no
# line of what its own orders do can name a force it does not see.
MIN_SIGHT = 5


def _settings(data: JSONObject, path: str, *, defaults: bool) -> ElfSettings:
    only_fields(data, ("max_turns", "terrain_rule", "terrain_value", "sight"), path)
    rule = get_choice(data, "terrain_rule", [r.value for r in TerrainRule], path,
                      default=TerrainRule.REDUCE_EFFECTS.value if defaults else None)
    return ElfSettings(
        max_turns=get_int(data, "max_turns", path, minimum=1, maximum=100,
                          default=DEFAULT_MAX_TURNS if defaults else None),
        terrain_rule=TerrainRule(rule),
        terrain_value=get_optional_int(data, "terrain_value", path, minimum=0, maximum=6),
        sight=get_optional_int(data, "sight", path, minimum=MIN_SIGHT, maximum=MAX_MAP_SIDE),
    )


def _map(data: object, path: str) -> tuple[Grid, dict[Hex, Terrain]]:
    return map_from_json(data, path, TERRAINS, min_side=2, max_side=MAX_MAP_SIDE)


_on_map = on_map


def _sides(raw_sides: list[object], path: str, grid: Grid, terrain: Mapping[Hex, Terrain],
           ) -> list[tuple[ElfSide, list[object]]]:
    out: list[tuple[ElfSide, list[object]]] = []
    for i, raw in enumerate(raw_sides):
        where = child(path, i)
        obj = as_object(raw, where)
        only_fields(obj, ("name", "entry", "supplies", "forces"), where)
        name = get_str(obj, "name", where)
        if not name or name in {s.name for s, _ in out}:
            raise InputError(child(where, "name"), "must be a distinct, non-empty name.")
        entry = _on_map(grid, _hex(obj.get("entry"), child(where, "entry")),
                        child(where, "entry"))
        if terrain.get(entry) is Terrain.DEEP_WATER:
            raise InputError(child(where, "entry"), "an entry point cannot be deep water.")
        supplies = tuple(_on_map(grid, _hex(h, child(child(where, "supplies"), j)),
                                 child(child(where, "supplies"), j))
                         for j, h in enumerate(get_list(obj, "supplies", where, default=True)))
        out.append((ElfSide(name=name, entry=entry, supplies=supplies),
                    get_list(obj, "forces", where, default=True)))
    return out


def _force(raw: object, at: str, side: str, grid: Grid) -> BattleForce:
    obj = as_object(raw, at)
    force = force_from_dict({k: v for k, v in obj.items() if k not in ("id", "hex")}, at)
    force_id = get_str(obj, "id", at)
    if not force_id:
        raise InputError(child(at, "id"), "must be a non-empty id.")
    place = None if obj.get("hex") is None else _on_map(grid, _hex(obj["hex"], child(at, "hex")),
                                                       child(at, "hex"))
    return BattleForce(id=force_id, side=side, force=replace(force, name=force_id), hex=place)


def _check_forces(forces: Sequence[BattleForce], terrain: Mapping[Hex, Terrain],
                  path: str) -> None:
    if len(forces) > MAX_FORCES:
        raise InputError(path, f"a battle has at most {MAX_FORCES} forces.")
    seen_ids: set[str] = set()
    seen_hexes: set[Hex] = set()
    for f in forces:
        if f.id in seen_ids:
            raise InputError(path, f"two forces have the id {f.id!r}; each needs its own.")
        seen_ids.add(f.id)
        if f.hex is None:
            continue
        if f.hex in seen_hexes:
            raise InputError(path, f"{format_label(f.hex)} holds two forces: one force a hex "
                             "(a Unit with up to one Leader and one Hero).")
        seen_hexes.add(f.hex)
        where = terrain.get(f.hex, Terrain.OPEN)
        if where is Terrain.DEEP_WATER or (f.force.unit is Kind.MOUNTED and where in DENSE):
            raise InputError(path, f"{f.id} cannot stand in {where.value} at "
                             f"{format_label(f.hex)}.")


def start(*, scenario: JSONObject, settings: JSONObject, dice: Dice) -> StepResult[ElfBattle]:
    """Deploy the scenario's forces and draw turn 1's activation order."""
    conf = _settings(settings, "settings", defaults=True)
    only_fields(scenario, ("map", "sides"), "scenario")
    grid, terrain = _map(scenario.get("map"), "scenario.map")
    raw_sides = get_list(scenario, "sides", "scenario")
    if len(raw_sides) < 2:
        raise InputError("scenario.sides", "needs at least two sides.")
    sides = _sides(raw_sides, "scenario.sides", grid, terrain)
    forces: list[BattleForce] = []
    for i, (side, raw_forces) in enumerate(sides):
        where = child(child("scenario.sides", i), "forces")
        if not raw_forces:
            raise InputError(where, "needs at least one force.")
        forces.extend(_force(raw, child(where, j), side.name, grid)
                      for j, raw in enumerate(raw_forces))
    _check_forces(forces, terrain, "scenario.sides")
    state = ElfBattle(settings=conf, grid=grid, terrain=terrain,
                      sides=tuple(s for s, _ in sides), forces=tuple(forces), turn=0,
                      order=(), card=0, step="activation")
    placed = [f for f in forces if f.hex is not None]
    events = [BattleEvent(
        kind="deployed",
        text=f"{len(placed)} forces deployed on a {grid.cols} × {grid.rows} map"
        + (f", {len(forces) - len(placed)} in reserve" if len(placed) < len(forces) else "")
        + ".",
        data={"forces": {f.id: format_label(f.hex) if f.hex else None for f in forces}})]
    state, begun = _begin_turn(state, dice)
    return StepResult(state=state, events=tuple(events + begun))


def _begin_turn(state: ElfBattle, dice: Dice) -> tuple[ElfBattle, list[BattleEvent]]:
    before = len(dice.rolls)
    names = [s.name for s in state.sides]
    try:
        drawn = activation_order(names, dice=dice)
    except UnitError as exc:
        raise BattleError(str(exc), rule="activation order") from exc
    turn = state.turn + 1
    state = replace(state, turn=turn, order=drawn.order, card=0, step="activation",
                    moved=(), attacked=(), declared=(), busy=())
    return state, [BattleEvent(
        kind="turn", text=f"Turn {turn}: " + "; ".join(drawn.explain()) + ".",
        data={"turn": turn, "order": list(drawn.order)}, rolls=tuple(dice.rolls[before:]))]


# ---------------------------------------------------------------------------
# The driver


def acting_sides(state: ElfBattle) -> tuple[str, ...]:
    if state.step == "activation":
        return (state.order[state.card],)
    if state.step == "allocate":
        assert state.pending is not None
        return (state.find(state.pending.target).side,)
    if state.step == "pursuit":
        return (state.follows[0].by,)
    return ()


def _who_acts(state: ElfBattle) -> str:
    if state.step == "activation":
        return f"{state.order[state.card]} holds card {state.card + 1} of {len(state.order)}"
    if state.step == "allocate":
        assert state.pending is not None
        return (f"{acting_sides(state)[0]} chooses who in {state.pending.target} takes the "
                "Casualties")
    return f"{acting_sides(state)[0]} may follow the retreat of {state.follows[0].retreated}"


def step(*, state: ElfBattle, orders: Sequence[ElfOrder], dice: Dice) -> StepResult[ElfBattle]:
    """Apply `orders` in order; each must come from a side that acts at that moment."""

    def check(state: ElfBattle, order: ElfOrder) -> None:
        state.side(order.side)
        if order.side not in acting_sides(state):
            raise BattleError(f"{order.side} does not act now: {_who_acts(state)}.",
                              rule="turn")

    return apply_orders(state, orders, dice, over=lambda s: s.step == "over", check=check,
                        apply=_apply)


def _apply(state: ElfBattle, order: ElfOrder, dice: Dice) -> tuple[ElfBattle, list[BattleEvent]]:
    if state.step == "allocate":
        if order.kind != "allocate":
            raise BattleError("The defender first chooses who takes the Casualties: an "
                              "allocate order.", rule="casualties", field="kind")
        return _allocated(state, order, dice)
    if state.step == "pursuit":
        if order.kind != "follow":
            raise BattleError("The attacker first follows the retreat or declines: a follow "
                              "order.", rule="pursuit", field="kind")
        return _follow(state, order, dice)
    if order.kind == "move":
        return _move(state, order)
    if order.kind == "attack":
        return _declare(state, order)
    if order.kind == "end":
        text = (f"{order.side} ends its activation"
                + (f" with {plural(len(state.declared), 'attack')} declared" if state.declared
                   else "") + ".")
        targets = tuple(dict.fromkeys(d.target for d in state.declared))
        state = replace(state, queue=targets)
        more, advanced = _advance(state, dice)
        return more, [BattleEvent(kind="end", text=text), *advanced]
    raise BattleError(f"{order.side} holds the activation: it moves, attacks or ends it.",
                      rule="activation", field="kind")


# ---------------------------------------------------------------------------
# Movement


def sight_of(state: ElfBattle, side: str) -> frozenset[str] | None:
    """The forces `side` sees under fog of war (None: no fog, it sees every force): its own,
    in reserve or not, and every enemy force on the field within `sight` hexes of one of its
    forces on the field, its entry point or one of its camps."""
    reach = state.settings.sight
    if reach is None:
        return None
    own = state.side(side)
    eyes = [f.hex for f in state.forces if f.side == side and f.hex is not None]
    eyes += [own.entry, *own.supplies]
    return frozenset(f.id for f in state.forces if f.side == side or (
        f.hex is not None and any(distance(f.hex, eye) <= reach for eye in eyes)))


def _find_seen(state: ElfBattle, side: str, force_id: str, field: str) -> BattleForce:
    """The force an order of `side` names: under fog, a force it does not see is refused in
    the very words of one that does not exist (no refusal tells what is out of sight)."""
    unit = state.find(force_id, field=field)
    seen = sight_of(state, side)
    if seen is not None and unit.id not in seen:
        raise BattleError(f"There is no force {force_id!r} on the field.", rule="forces",
                          field=field)
    return unit


def _own(state: ElfBattle, order: ElfOrder) -> BattleForce:
    unit = _find_seen(state, order.side, order.force, "force")
    if unit.side != order.side:
        raise BattleError(f"{unit.id} is not a force of {order.side}.", rule="activation",
                          field="force")
    return unit


def _plan(state: ElfBattle, unit: BattleForce, *, moves: int = 0, attack: bool = False
          ) -> None:
    """The force's activation so far plus this order, checked as one plan (check_plan)."""
    attacks = int(unit.id in state.attacked) + int(attack)
    plan = ["move"] * (state.moved_by(unit.id) + moves) + ["attack"] * attacks
    errors = check_plan(unit.force, plan)
    if errors:
        raise BattleError(" ".join(errors), rule="movement" if moves else "attack",
                          field="path" if moves else "force")


def _move(state: ElfBattle, order: ElfOrder) -> tuple[ElfBattle, list[BattleEvent]]:
    unit = _own(state, order)
    if not order.path:
        raise BattleError("A move gives the hexes to move through, in order.", rule="movement",
                          field="path")
    _plan(state, unit, moves=len(order.path))
    board = state.board(without=unit.id)
    side = state.side(unit.side)
    here = unit.hex
    steps = list(order.path)
    if here is None:
        first = steps[0]
        if first != side.entry:
            raise BattleError(f"{unit.id} is in reserve: it comes on at {side.name}'s entry "
                              f"point {format_label(side.entry)}, not "
                              f"{_label(first)}.", rule="entry", field="path[0]")
        if first in board.occupants:
            raise BattleError(f"The entry point {format_label(first)} is occupied; {unit.id} "
                              "cannot come on this activation.", rule="entry", field="path[0]")
        here = first
        steps = steps[1:]
    joined: BattleForce | None = None
    for i, nxt in enumerate(steps, 1 if unit.hex is None else 0):
        at = f"path[{i}]"
        if movement_cost(unit.force, here, nxt, board, side=unit.side) is None:
            raise BattleError(_refusal(state, unit, here, nxt), rule="movement", field=at)
        there = state.at(nxt)
        if there is not None and there.id != unit.id:
            if i != len(order.path) - 1:
                raise BattleError(f"{unit.id} may join {there.id} only by ending its move "
                                  "there; it cannot move through it.", rule="movement",
                                  field=at)
            joined = there
        here = nxt
    state = replace(state, moved=_bump(state.moved, unit.id, len(order.path)),
                    busy=_add(state.busy, unit.id))
    route = " → ".join(_label(h) for h in ((unit.hex,) if unit.hex else ()) + order.path)
    if joined is not None:
        host = replace(joined, force=replace(
            joined.force, leader=joined.force.leader or unit.force.leader,
            hero=joined.force.hero or unit.force.hero,
            fatigue=max(joined.force.fatigue, unit.force.fatigue),
            spent=joined.force.spent or unit.force.spent))
        state = replace(state, forces=tuple(host if f.id == host.id else f
                                            for f in state.forces if f.id != unit.id),
                        busy=_add(state.busy, host.id),
                        joined=(*state.joined, (unit.id, host.id)))
        return state, [BattleEvent(
            kind="join", text=f"{unit.id} moves {route} and joins {host.id}"
            f" ({_describe(host.force)}).",
            data={"force": unit.id, "host": host.id, "hex": format_label(here)})]
    state = _put(state, replace(unit, hex=here))
    entered = " (from reserve)" if unit.hex is None else ""
    return state, [BattleEvent(kind="move", text=f"{unit.id} moves {route}{entered}.",
                               data={"force": unit.id, "hex": format_label(here),
                                     "hexes": len(order.path)})]


def _refusal(state: ElfBattle, unit: BattleForce, here: Hex, nxt: Hex) -> str:
    if distance(here, nxt) != 1:
        return f"{_label(nxt)} is not next to {_label(here)}: a move goes hex by hex."
    if not state.grid.contains(nxt):
        return f"{_label(nxt)} is not on the map."
    where = state.terrain.get(nxt, Terrain.OPEN)
    if where is Terrain.DEEP_WATER:
        return f"No force enters deep water ({_label(nxt)})."
    if unit.force.unit is Kind.MOUNTED and where in DENSE:
        return (f"Mounted Units cannot enter built-up or dense terrain ({where.value} at "
                f"{_label(nxt)}).")
    there = state.at(nxt)
    if there is not None and there.side != unit.side:
        return f"{_label(nxt)} holds the enemy's {there.id}; no force moves into another."
    return (f"{_label(nxt)} holds {there.id if there else 'a force'}: only a lone Leader or "
            "Hero joins a friendly force lacking one, and nobody moves through another force.")


def _label(h: Hex | None) -> str:
    if h is None:
        return "reserve"
    try:
        return format_label(h)
    except HexLabelError:
        return f"(q={h.q}, r={h.r})"


def _bump(moved: tuple[tuple[str, int], ...], force_id: str, n: int
          ) -> tuple[tuple[str, int], ...]:
    counts = dict(moved)
    counts[force_id] = counts.get(force_id, 0) + n
    return tuple(counts.items())


def _add(ids: tuple[str, ...], force_id: str) -> tuple[str, ...]:
    return ids if force_id in ids else (*ids, force_id)


def _put(state: ElfBattle, unit: BattleForce) -> ElfBattle:
    return replace(state, forces=tuple(unit if f.id == unit.id else f for f in state.forces))


def _describe(force: Force) -> str:
    parts = [f"{force.figures} {force.unit.value}"] if force.unit is not None else []
    parts += ["Leader"] * force.leader + ["Hero"] * force.hero
    marks = ([f"Fatigue {force.fatigue}"] if force.fatigue else []) + (
        ["Spent"] if force.spent else [])
    return " + ".join(parts) + (f"; {', '.join(marks)}" if marks else "")


# ---------------------------------------------------------------------------
# Line of sight and declared attacks


def line_of_sight(state: ElfBattle, shooter: BattleForce, target: BattleForce
                  ) -> tuple[Sight, str]:
    """Missile fire's line of sight (docs/rules/elf_abas.md "Line of sight").

    The straight line from hex centre to hex centre, read on both sides where it runs along
    an edge. A hex between blocks it when it holds an enemy force, a friendly force that is
    not nearer the shooter than the target ("fire over friendly Units only if they are closer
    to you than the enemy"), or dense or built-up terrain; woods mask it partly. Blocked on
    one side of an edge only, or masked: partly blocked (−1D); blocked on both: no fire."""
    assert shooter.hex is not None and target.hex is not None
    readings: list[tuple[str, str]] = []  # (blocked reason or "", masked reason or "")
    for nudge in (1, -1):
        blocked = masked = ""
        for h in line(shooter.hex, target.hex, nudge=nudge)[1:-1]:
            there = state.at(h)
            where = state.terrain.get(h, Terrain.OPEN)
            if there is not None and there.side != shooter.side:
                blocked = blocked or f"the enemy's {there.id} stands between at {_label(h)}"
            elif there is not None and not (distance(shooter.hex, h) < distance(h, target.hex)):
                blocked = blocked or (f"{there.id} at {_label(h)} is not nearer the shooter "
                                      "than the target")
            elif where in DENSE:
                blocked = blocked or f"{where.value} at {_label(h)} blocks the view"
            elif where is Terrain.WOODS:
                masked = masked or f"woods at {_label(h)} mask the view"
        readings.append((blocked, masked))
    blocks = [b for b, _ in readings if b]
    if len(blocks) == 2:
        return "blocked", blocks[0]
    if blocks:
        return "partial", f"partly blocked: {blocks[0]} on one side of the line"
    masks = [m for _, m in readings if m]
    if masks:
        return "partial", f"partly blocked: {masks[0]}"
    return "clear", "clear"


def _declare(state: ElfBattle, order: ElfOrder) -> tuple[ElfBattle, list[BattleEvent]]:
    unit = _own(state, order)
    if unit.hex is None:
        raise BattleError(f"{unit.id} is in reserve and cannot attack.", rule="attack",
                          field="force")
    _plan(state, unit, attack=True)
    if not order.targets:
        raise BattleError("An attack names at least one target force.", rule="attack",
                          field="targets")
    if len({t.force for t in order.targets}) != len(order.targets):
        raise BattleError("A target appears once in an attack; give its dice there.",
                          rule="attack", field="targets")
    if len(order.targets) > 1 and any(t.dice is None for t in order.targets):
        raise BattleError("A force that spreads its attack gives the dice it puts on each "
                          "target.", rule="attack", field="targets")
    declared: list[Declared] = []
    lines: list[str] = []
    best = 0
    for i, t in enumerate(order.targets):
        at = f"targets[{i}]"
        foe = _find_seen(state, unit.side, t.force, f"{at}.force")
        if foe.side == unit.side:
            raise BattleError(f"{foe.id} is a force of {unit.side}'s own side.", rule="attack",
                              field=f"{at}.force")
        if foe.hex is None:
            raise BattleError(f"{foe.id} is in reserve, not on the field.", rule="attack",
                              field=f"{at}.force")
        hexes = distance(unit.hex, foe.hex)
        sight: Sight = "clear"
        why = ""
        if hexes > 1:
            if unit.force.unit is not Kind.MISSILE:
                raise BattleError(f"{unit.id} has no Missile Unit: it attacks only an adjacent "
                                  f"hex, and {foe.id} is {hexes} hexes away.", rule="attack",
                                  field=f"{at}.force")
            sight, why = line_of_sight(state, unit, foe)
            if sight == "blocked":
                raise BattleError(f"{unit.id} cannot see {foe.id}: {why}.",
                                  rule="line of sight", field=f"{at}.force")
        dice = attack_dice(unit.force, hexes=hexes, partial_sight=sight == "partial")
        best = max(best, dice.total)
        share = dice.total if t.dice is None else t.dice
        if dice.total == 0 or share == 0:
            raise BattleError(f"{unit.id} rolls 0D at {foe.id} ({dice.explain()}).",
                              rule="attack", field=f"{at}.dice")
        if share > dice.total:
            raise BattleError(f"{unit.id} has {dice.total}D against {foe.id} "
                              f"({dice.explain()}), so it cannot put {share}D on it.",
                              rule="attack", field=f"{at}.dice")
        declared.append(Declared(attacker=unit.id, target=foe.id, dice=share, hexes=hexes,
                                 partial=sight == "partial"))
        lines.append(f"{share}D on {foe.id} at {format_label(foe.hex)} ({dice.explain()}"
                     + (f"; {why}" if sight == "partial" else "") + ")")
    total = sum(d.dice for d in declared)
    if total > best:
        raise BattleError(f"{unit.id} spreads {total}D, more than the {best}D it has at its "
                          "best target.", rule="attack", field="targets")
    state = replace(state, attacked=(*state.attacked, unit.id), declared=(*state.declared,
                                                                         *declared),
                    busy=_add(state.busy, unit.id))
    return state, [BattleEvent(kind="declare", text=f"{unit.id} declares an attack: "
                               + "; ".join(lines) + ".",
                               data={"force": unit.id,
                                     "targets": {d.target: d.dice for d in declared}})]


# ---------------------------------------------------------------------------
# Resolution: every attack on a hex together


def _retreat_room(state: ElfBattle, unit: BattleForce) -> tuple[Hex, ...]:
    assert unit.hex is not None
    return retreat_path(unit.force, state.board(without=unit.id), start=unit.hex,
                        entry=state.side(unit.side).entry, side=unit.side,
                        hexes=state.grid.cols + state.grid.rows)


def _attack(state: ElfBattle, target: BattleForce, *, rolls: Sequence[Sequence[int]] | None,
            effect_rolls: Sequence[tuple[int, int]] | None, to: Member | None,
            dice: Dice) -> AttackResult:
    assert target.hex is not None
    on_it = [d for d in state.declared if d.target == target.id]
    attackers = tuple(
        Attacker(force=state.find(d.attacker).force, hexes=d.hexes, partial_sight=d.partial,
                 dice=d.dice, rolls=None if rolls is None else tuple(rolls[i]))
        for i, d in enumerate(on_it))
    try:
        return resolve_attack(Attack(
            attackers=attackers, defender=target.force,
            terrain=state.terrain.get(target.hex, Terrain.OPEN),
            terrain_rule=state.settings.terrain_rule,
            terrain_value=state.settings.terrain_value,
            retreat_room=len(_retreat_room(state, target)) - 1,
            casualties_to=to,
            effect_rolls=None if effect_rolls is None else tuple(effect_rolls)), dice=dice)
    except CombatError as exc:
        raise BattleError(str(exc), rule="attack", field="force") from exc


def _members(force: Force) -> tuple[Member, ...]:
    return tuple(m for m, there in ((Member.UNIT, force.unit is not None),
                                    (Member.LEADER, force.leader), (Member.HERO, force.hero))
                 if there)


def _advance(state: ElfBattle, dice: Dice) -> tuple[ElfBattle, list[BattleEvent]]:
    """Resolve the queued hexes until one waits for a choice; then the next card."""
    events: list[BattleEvent] = []
    while state.step == "activation" and state.queue:
        target = state.find(state.queue[0])
        state = replace(state, queue=state.queue[1:])
        before = len(dice.rolls)
        result = _attack(state, target, rolls=None, effect_rolls=None, to=None, dice=dice)
        rolled = tuple(dice.rolls[before:])
        rolls = tuple(a.rolls for a in result.attackers)
        pairs = tuple((line.drawn.fate or 0, line.drawn.die or 0)
                      for line in result.outcome.lines)
        choices = _members(target.force)
        outcomes = {_attack(state, target, rolls=rolls, effect_rolls=pairs, to=m,
                            dice=dice).outcome.after for m in choices}
        head = _attack_text(target, result)
        if len(outcomes) > 1:
            events.append(BattleEvent(
                kind="attack", text=head + f" {target.side} chooses who takes the "
                f"Casualties ({', '.join(m.value for m in choices)}).",
                data={"target": target.id, "result": result.to_dict()}, rolls=rolled))
            return replace(state, step="allocate", pending=Pending(
                target=target.id, rolls=rolls, effect_rolls=pairs, choices=choices)), events
        state, applied = _outcome(state, target, result)
        events.append(BattleEvent(kind="attack", text=head + " " + applied[0],
                                  data={"target": target.id, "result": result.to_dict()},
                                  rolls=rolled))
        events.extend(BattleEvent(kind="effect", text=t) for t in applied[1:])
        state, chased = _open_follows(state)
        events.extend(chased)
    if state.step != "activation" or state.queue:
        return state, events
    state, ended = _next_card(state, dice)
    return state, events + ended


def _attack_text(target: BattleForce, result: AttackResult) -> str:
    rolled = "; ".join(
        f"{a.name} {a.used}D: {', '.join(map(str, a.rolls)) or 'no dice'}"
        for a in result.attackers)
    effects = [line.explain() for line in result.outcome.lines]
    return (f"Attack on {target.id}: {rolled}; {plural(result.sixes, 'six', 'sixes')}, "
            f"{plural(result.effects_rolled, 'effect')}"
            + (f" ({'; '.join(effects)})" if effects else "") + ".")


def _allocated(state: ElfBattle, order: ElfOrder, dice: Dice
               ) -> tuple[ElfBattle, list[BattleEvent]]:
    pending = state.pending
    assert pending is not None
    if order.to is not None and order.to not in pending.choices:
        names = ", ".join(m.value for m in pending.choices)
        raise BattleError(f"The Casualties go to one of {names} of {pending.target}, not the "
                          f"{order.to.value}.",
                          rule="casualties", field="to")
    target = state.find(pending.target)
    result = _attack(state, target, rolls=pending.rolls, effect_rolls=pending.effect_rolls,
                     to=order.to, dice=dice)
    state = replace(state, step="activation", pending=None)
    state, applied = _outcome(state, target, result)
    chosen = (f"the {order.to.value}" if order.to is not None
              else "the default choice")
    events = [BattleEvent(kind="allocate", text=f"{order.side} gives the Casualties to "
                          f"{chosen}: " + " ".join(applied[:1]),
                          data={"target": target.id, "to": result.outcome.casualties_to.value
                                if result.outcome.casualties_to else None})]
    events.extend(BattleEvent(kind="effect", text=t) for t in applied[1:])
    state, chased = _open_follows(state)
    events.extend(chased)
    more, advanced = _advance(state, dice) if state.step == "activation" else (state, [])
    return more, events + advanced


def _outcome(state: ElfBattle, target: BattleForce, result: AttackResult
             ) -> tuple[ElfBattle, list[str]]:
    """The attack's outcome on the map: the force changed, its retreat, the Panic it spreads
    and the pursuits it offers. The first sentence is the target's; then one a force moved."""
    out = result.outcome
    assert target.hex is not None
    attacker_side = state.order[state.card]
    if out.eliminated:
        state = _remove(state, target.id)
        why = "Destroyed" if out.destroyed else "nothing is left"
        return state, [f"{target.id} is eliminated ({why})."]
    path = _retreat_room(state, target)[:out.retreat_hexes + 1]
    moved = replace(target, force=out.after, hex=path[-1])
    state = _put(state, moved)
    text = f"{target.id}: {_describe(out.after)}"
    losses = [line for line in out.explain() if "Casualt" in line and ": the terrain" in line]
    if losses:
        text += f" ({losses[0]})"
    if out.retreat_hexes:
        text += f"; retreats {' → '.join(_label(h) for h in path)}"
        state = replace(state, busy=_add(state.busy, target.id))
    texts = [text + "."]
    follows: list[Follow] = []
    if out.pursuit and out.retreat_hexes:
        follows.append(Follow(retreated=target.id, hexes=path[:-1], count=out.pursuit,
                              by=attacker_side))
    if out.panic:
        for friend in [f for f in state.forces if f.side == target.side and f.id != target.id
                       and f.hex is not None and distance(f.hex, target.hex) == 1]:
            room = _retreat_room(state, friend)
            swept = apply_effects(friend.force, [DrawnEffect(effect=Effect.RETREAT)],
                                  retreat_room=len(room) - 1)
            if swept.eliminated:
                state = _remove(state, friend.id)
                texts.append(f"Panic: {friend.id} cannot retreat and takes a Casualty: it is "
                             "eliminated.")
                continue
            route = room[:swept.retreat_hexes + 1]
            state = _put(state, replace(friend, force=swept.after, hex=route[-1]))
            if swept.retreat_hexes:
                state = replace(state, busy=_add(state.busy, friend.id))
                texts.append(f"Panic: {friend.id} retreats with it "
                             f"{' → '.join(_label(h) for h in route)}.")
                if out.pursuit:
                    follows.append(Follow(retreated=friend.id, hexes=route[:-1], count=1,
                                          by=attacker_side))
            else:
                texts.append(f"Panic: {friend.id} stands ({swept.lines[0].reason}; "
                             f"{_describe(swept.after)}).")
    return replace(state, follows=(*state.follows, *follows)), texts


def _remove(state: ElfBattle, force_id: str) -> ElfBattle:
    return replace(state, forces=tuple(f for f in state.forces if f.id != force_id),
                   eliminated=(*state.eliminated, force_id),
                   queue=tuple(q for q in state.queue if q != force_id))


def _pursuers(state: ElfBattle, follow: Follow) -> list[tuple[BattleForce, Hex]]:
    """Units of the pursuing side that can step into a hex the retreat left."""
    board = state.board()
    out = []
    for f in state.forces:
        if f.side != follow.by or f.hex is None or f.force.unit is None or f.force.spent:
            continue
        for h in follow.hexes:
            if movement_cost(f.force, f.hex, h, board, side=f.side) is not None:
                out.append((f, h))
    return out


def _open_follows(state: ElfBattle) -> tuple[ElfBattle, list[BattleEvent]]:
    """Skip the pursuits nobody can follow; wait for the attacker on the first that can."""
    events: list[BattleEvent] = []
    while state.follows:
        head = state.follows[0]
        if _pursuers(state, head):
            return replace(state, step="pursuit"), events
        events.append(BattleEvent(kind="pursuit", text=f"No Unit of {head.by} can follow "
                                  f"{head.retreated}."))
        state = replace(state, follows=state.follows[1:])
    return replace(state, step="activation"), events


def _follow(state: ElfBattle, order: ElfOrder, dice: Dice) -> tuple[ElfBattle, list[BattleEvent]]:
    head = state.follows[0]
    if not order.force:
        text = f"{order.side} does not follow {head.retreated}."
        state = replace(state, follows=state.follows[1:])
    else:
        unit = _own(state, order)
        options = _pursuers(state, head)
        into = order.into
        fits = [h for f, h in options if f.id == unit.id]
        if into is None and len(fits) == 1:
            into = fits[0]
        if into is None or into not in fits:
            left = ", ".join(_label(h) for h in head.hexes)
            raise BattleError(f"{unit.id} follows into a hex {head.retreated} left ({left}) "
                              "next to it that it may enter"
                              + (f"; it can enter {', '.join(_label(h) for h in fits)}"
                                 if fits else "; it can enter none") + ".",
                              rule="pursuit", field="into")
        state = _put(state, replace(unit, hex=into))
        state = replace(state, busy=_add(state.busy, unit.id))
        text = f"{unit.id} follows {head.retreated} into {_label(into)}."
        rest = replace(head, count=head.count - 1,
                       hexes=tuple(h for h in head.hexes if h != into))
        state = replace(state, follows=((rest,) if rest.count and rest.hexes else ())
                        + state.follows[1:])
    state, skipped = _open_follows(state)
    events = [BattleEvent(kind="follow", text=text), *skipped]
    if state.step == "activation":
        state, advanced = _advance(state, dice)
        events.extend(advanced)
    return state, events


# ---------------------------------------------------------------------------
# Cards, turns, rest and the end


def _winner_known(state: ElfBattle) -> bool:
    return len({f.side for f in state.forces}) < 2


def _next_card(state: ElfBattle, dice: Dice) -> tuple[ElfBattle, list[BattleEvent]]:
    state = replace(state, moved=(), attacked=(), declared=())
    if _winner_known(state):
        return _finish(state)
    if state.card + 1 < len(state.order):
        card = state.card + 1
        return replace(state, card=card), [BattleEvent(
            kind="card", text=f"Card {card + 1} of {len(state.order)}: "
            f"{state.order[card]} activates.", data={"active": state.order[card]})]
    events = _rest(state)
    state = replace(state, forces=tuple(_rested(state, f) for f in state.forces))
    if state.turn >= state.settings.max_turns:
        state, ended = _finish(state)
        return state, events + ended
    state, begun = _begin_turn(state, dice)
    return state, events + begun


def _at_supply(state: ElfBattle, unit: BattleForce) -> bool:
    if unit.hex is None:
        return False
    if state.terrain.get(unit.hex) is Terrain.VILLAGE:
        return True
    enemy = {f.hex for f in state.forces if f.side != unit.side}
    return any(distance(unit.hex, s) <= 1 and s not in enemy
               for s in state.side(unit.side).supplies)


def _rested(state: ElfBattle, unit: BattleForce) -> BattleForce:
    if unit.id in state.busy or unit.hex is None:
        return unit
    force = replace(unit.force, fatigue=max(0, unit.force.fatigue - 1))
    if force.spent and _at_supply(state, unit):
        force = replace(force, spent=False)
    return replace(unit, force=force)


def _rest(state: ElfBattle) -> list[BattleEvent]:
    events = [BattleEvent(kind="turn_over", text=f"Turn {state.turn} is over.")]
    for unit in state.forces:
        after = _rested(state, unit).force
        if after == unit.force:
            continue
        what = []
        if after.fatigue < unit.force.fatigue:
            what.append(f"rests off a Fatigue ({after.fatigue} left)")
        if unit.force.spent and not after.spent:
            what.append("refits from its supplies and is no longer Spent")
        events.append(BattleEvent(kind="rest", text=f"{unit.id} " + " and ".join(what) + ".",
                                  data={"force": unit.id, "fatigue": after.fatigue,
                                        "spent": after.spent}))
    return events


def _finish(state: ElfBattle) -> tuple[ElfBattle, list[BattleEvent]]:
    state = replace(state, step="over", queue=(), follows=(), pending=None)
    return state, [victory_event(outcome(state))]


def outcome(state: ElfBattle) -> Outcome | None:
    if state.step != "over":
        return None
    return standing_verdict({s.name: sum(f.force.total_figures for f in state.forces
                                         if f.side == s.name) for s in state.sides},
                            turn=state.turn, measure="figures", wiped="no enemy force is left")


# ---------------------------------------------------------------------------
# JSON


def _labels(hexes: Sequence[Hex]) -> list[str]:
    return [format_label(h) for h in hexes]


def state_to_json(state: ElfBattle) -> dict[str, object]:
    return {
        "system": "elf_abas",
        "settings": {"max_turns": state.settings.max_turns,
                     "terrain_rule": state.settings.terrain_rule.value,
                     "terrain_value": state.settings.terrain_value,
                     "sight": state.settings.sight},
        "map": {"cols": state.grid.cols, "rows": state.grid.rows,
                "terrain": {format_label(h): t.value for h, t in sorted(
                    state.terrain.items(), key=lambda item: format_label(item[0]))}},
        "sides": [{"name": s.name, "entry": format_label(s.entry),
                   "supplies": _labels(s.supplies)} for s in state.sides],
        "forces": [{"id": f.id, "side": f.side,
                    "hex": format_label(f.hex) if f.hex is not None else None,
                    **{k: v for k, v in force_to_dict(f.force).items()
                       if k not in ("name", "eliminated")
                       and not (k == "figures" and f.force.unit is None)}}
                   for f in state.forces],
        "eliminated": list(state.eliminated),
        "turn": state.turn, "order": list(state.order), "card": state.card,
        "step": state.step,
        "moved": dict(state.moved),
        "attacked": list(state.attacked),
        "declared": [{"attacker": d.attacker, "target": d.target, "dice": d.dice,
                      "hexes": d.hexes, "partial": d.partial} for d in state.declared],
        "queue": list(state.queue),
        "pending": None if state.pending is None else {
            "target": state.pending.target, "rolls": [list(r) for r in state.pending.rolls],
            "effect_rolls": [list(p) for p in state.pending.effect_rolls],
            "choices": [m.value for m in state.pending.choices]},
        "follows": [{"retreated": f.retreated, "hexes": _labels(f.hexes), "count": f.count,
                     "by": f.by} for f in state.follows],
        "busy": list(state.busy),
        "joined": [{"force": f, "host": h} for f, h in state.joined],
    }


def _d6s(raw: object, path: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in raw):
        raise InputError(path, "is a list of d6 values (1 to 6).")
    return tuple(raw)


def _ids(data: JSONObject, name: str) -> tuple[str, ...]:
    return get_str_list(data, name, "state", what="a force id")


def state_from_json(data: JSONObject) -> ElfBattle:
    only_fields(data, ("system", "settings", "map", "sides", "forces", "eliminated", "turn",
                       "order", "card", "step", "moved", "attacked", "declared", "queue",
                       "pending", "follows", "busy", "joined"), "state")
    if data.get("system") != "elf_abas":
        raise InputError("state.system", 'is "elf_abas" for an ELF ABAS battle.')
    settings = _settings(as_object(data.get("settings"), "state.settings"), "state.settings",
                         defaults=False)
    grid, terrain = _map(data.get("map"), "state.map")
    sides = [s for s, _ in _sides(get_list(data, "sides", "state"), "state.sides", grid,
                                  terrain)]
    names = {s.name for s in sides}
    forces = []
    for i, raw in enumerate(get_list(data, "forces", "state")):
        at = child("state.forces", i)
        obj = as_object(raw, at)
        side = get_str(obj, "side", at)
        if side not in names:
            raise InputError(child(at, "side"), f"names no side of this battle ({side!r}).")
        forces.append(_force({k: v for k, v in obj.items() if k != "side"}, at, side, grid))
    _check_forces(forces, terrain, "state.forces")
    ids = {f.id for f in forces}
    order = tuple(get_str({"v": v}, "v", "state.order") for v in get_list(data, "order", "state"))
    if any(o not in names for o in order):
        raise InputError("state.order", "names only sides of this battle.")
    step_name = get_choice(data, "step", ("activation", "allocate", "pursuit", "over"), "state")
    card = get_int(data, "card", "state", minimum=0, maximum=max(0, len(order) - 1))
    declared = []
    for i, raw in enumerate(get_list(data, "declared", "state", default=True)):
        at = child("state.declared", i)
        obj = as_object(raw, at)
        d = Declared(attacker=get_str(obj, "attacker", at), target=get_str(obj, "target", at),
                     dice=get_int(obj, "dice", at, minimum=1, maximum=100),
                     hexes=get_int(obj, "hexes", at, minimum=1, maximum=MAX_MAP_SIDE * 2),
                     partial=bool(obj.get("partial")))
        if d.attacker not in ids or d.target not in ids:
            raise InputError(at, "names forces of this battle.")
        declared.append(d)
    pending = None
    if data.get("pending") is not None:
        obj = as_object(data["pending"], "state.pending")
        pending = Pending(
            target=get_str(obj, "target", "state.pending"),
            rolls=tuple(_d6s(r, child(child("state.pending", "rolls"), i))
                        for i, r in enumerate(get_list(obj, "rolls", "state.pending"))),
            effect_rolls=tuple((lambda p: (p[0], p[1]))(_d6s(r, child(
                child("state.pending", "effect_rolls"), i)))
                for i, r in enumerate(get_list(obj, "effect_rolls", "state.pending"))),
            choices=tuple(Member(get_choice({"v": v}, "v", [m.value for m in Member],
                                            "state.pending.choices"))
                          for v in get_list(obj, "choices", "state.pending")))
        if pending.target not in ids:
            raise InputError("state.pending.target", "names a force of this battle.")
    follows = []
    for i, raw in enumerate(get_list(data, "follows", "state", default=True)):
        at = child("state.follows", i)
        obj = as_object(raw, at)
        follows.append(Follow(retreated=get_str(obj, "retreated", at),
                              hexes=tuple(_hex(h, child(child(at, "hexes"), j))
                                          for j, h in enumerate(get_list(obj, "hexes", at))),
                              count=get_int(obj, "count", at, minimum=1, maximum=12),
                              by=get_str(obj, "by", at)))
    if (step_name == "allocate") != (pending is not None) or (
            step_name == "pursuit") != bool(follows):
        raise InputError("state.step", "does not match the pending choice or pursuit.")
    moved = as_object(data.get("moved") or {}, "state.moved")
    return ElfBattle(
        settings=settings, grid=grid, terrain=terrain, sides=tuple(sides),
        forces=tuple(forces), turn=get_int(data, "turn", "state", minimum=1),
        order=order, card=card, step=step_name,  # type: ignore[arg-type]
        moved=tuple((k, get_int(moved, k, "state.moved", minimum=0)) for k in moved),
        attacked=_ids(data, "attacked"), declared=tuple(declared),
        queue=_ids(data, "queue"), pending=pending, follows=tuple(follows),
        busy=_ids(data, "busy"), eliminated=_ids(data, "eliminated"),
        joined=tuple((get_str(as_object(j, "state.joined"), "force", "state.joined"),
                      get_str(as_object(j, "state.joined"), "host", "state.joined"))
                     for j in get_list(data, "joined", "state", default=True)))


def _rows(data: Mapping[str, object], key: str) -> list[Mapping[str, object]]:
    rows = data[key]
    assert isinstance(rows, list)
    return rows


def view(state: ElfBattle, side: str) -> dict[str, object]:
    """The state as `side` sees it: under fog of war, without the enemy forces it does not
    see, nor anything that names them (moves made, attacks declared, forces joined)."""
    data = state_to_json(state)
    seen = sight_of(state, side)
    if seen is None:
        return data

    def shown(*ids: object) -> bool:
        return all(i in seen or i in state.eliminated for i in ids if isinstance(i, str))

    data["forces"] = [f for f in _rows(data, "forces") if f["id"] in seen]
    data["moved"] = {k: v for k, v in state.moved if shown(k)}
    data["attacked"] = [i for i in state.attacked if shown(i)]
    data["busy"] = [i for i in state.busy if shown(i)]
    data["queue"] = [i for i in state.queue if shown(i)]
    for key, names in (("declared", ("attacker", "target")), ("follows", ("retreated",)),
                       ("joined", ("force", "host"))):
        data[key] = [r for r in _rows(data, key) if shown(*(r[n] for n in names))]
    data["fog"] = {"sight": state.settings.sight}
    return data


ENGINE: Engine[ElfBattle, ElfOrder] = Engine(
    key="elf_abas", start_battle=start, step_battle=step, acting=acting_sides, verdict=outcome,
    to_json=state_to_json, from_json=state_from_json, order_from_json=order_from_json,
    viewer=view, seen=sight_of)

__all__ = ["ENGINE", "BattleForce", "ElfBattle", "ElfOrder", "ElfSettings", "ElfSide",
           "EFFECT_REDUCTION", "MIN_SIGHT", "line_of_sight", "sight_of", "view"]
