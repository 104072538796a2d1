"""The battle contract shared by the non-Erfworld rule systems: a state, orders, a turn driver.

Every system (ELF ABAS, QUAD, Ancient Foes 2, GRASP) offers one `BattleEngine`:

- `start(scenario, settings, dice)` builds the first `BattleState` from a scenario given as
  JSON (the board, each side's units and where they deploy) and the system's settings;
- `step(state, orders, dice)` applies the orders of the side(s) acting now and returns the
  next state with the events that explain every roll and every change;
- `state_to_json` / `state_from_json` and `orders_from_json` give the JSON form used by
  `python -m rules <key> battle-start` and `battle-step` and, later, by the campaign server;
- `acting_sides(state)` says who gives orders now; `outcome(state)` is None while the battle
  goes on and the victory check's result once it is over.

The same state, orders and dice always give the same result. Nothing here imports Django.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from rules.dice import Dice, Roll
from rules.hexgrid import Grid, Hex
from rules.jsonio import JSONObject

JSONValue = object


class BattleError(ValueError):
    """An order or a state that breaks a rule; the message is a sentence a player understands."""

    def __init__(self, message: str, *, rule: str = "", field: str = "") -> None:
        super().__init__(message)
        self.rule = rule
        self.field = field


@dataclass(frozen=True, kw_only=True)
class BattleEvent:
    """One thing that happened in a step: a sentence, its facts and the dice it rolled."""

    kind: str
    text: str
    data: Mapping[str, JSONValue] = field(default_factory=dict)
    rolls: tuple[Roll, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "text": self.text,
            "data": dict(self.data),
            "rolls": [
                {"number": r.number, "purpose": r.purpose, "sides": r.sides, "value": r.value}
                for r in self.rolls
            ],
        }


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """The victory check's verdict: the winning side (None for a draw) and why."""

    winner: str | None
    reason: str
    scores: Mapping[str, int] = field(default_factory=dict)


S = TypeVar("S")
Ord = TypeVar("Ord")


@dataclass(frozen=True, kw_only=True)
class StepResult(Generic[S]):
    state: S
    events: tuple[BattleEvent, ...]


class BattleEngine(Protocol[S, Ord]):
    """What a rule system offers to referee a whole battle."""

    @property
    def key(self) -> str: ...

    def start(self, *, scenario: JSONObject, settings: JSONObject, dice: Dice) -> StepResult[S]:
        ...

    def step(self, *, state: S, orders: Sequence[Ord], dice: Dice) -> StepResult[S]:
        ...

    def acting_sides(self, state: S) -> tuple[str, ...]: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def state_to_json(self, state: S) -> dict[str, object]: ...

    def state_from_json(self, data: JSONObject) -> S: ...

    def orders_from_json(self, data: Sequence[object]) -> list[Ord]: ...


@dataclass(frozen=True, kw_only=True)
class Engine(Generic[S, Ord]):
    """A `BattleEngine` made of a system's module functions (each system's `ENGINE`)."""

    key: str
    start_battle: Callable[..., StepResult[S]]
    step_battle: Callable[..., StepResult[S]]
    acting: Callable[[S], tuple[str, ...]]
    verdict: Callable[[S], Outcome | None]
    to_json: Callable[[S], dict[str, object]]
    from_json: Callable[[JSONObject], S]
    order_from_json: Callable[[object, str], Ord]
    # The state's JSON as a side may see it (None: nothing in the system is hidden).
    viewer: Callable[[S, str], dict[str, object]] | None = None
    # The pieces a side sees under fog of war, by id (None, or answering None: no fog).
    seen: Callable[[S, str], frozenset[str] | None] | None = None

    def start(self, *, scenario: JSONObject, settings: JSONObject, dice: Dice) -> StepResult[S]:
        return self.start_battle(scenario=scenario, settings=settings, dice=dice)

    def step(self, *, state: S, orders: Sequence[Ord], dice: Dice) -> StepResult[S]:
        return self.step_battle(state=state, orders=orders, dice=dice)

    def acting_sides(self, state: S) -> tuple[str, ...]:
        return self.acting(state)

    def outcome(self, state: S) -> Outcome | None:
        return self.verdict(state)

    def state_to_json(self, state: S) -> dict[str, object]:
        return self.to_json(state)

    def state_from_json(self, data: JSONObject) -> S:
        return self.from_json(data)

    def orders_from_json(self, data: Sequence[object]) -> list[Ord]:
        return [self.order_from_json(o, f"orders[{i}]") for i, o in enumerate(data)]

    def sees(self, state: S, side: str) -> frozenset[str] | None:
        """The ids of the pieces `side` sees (None: it sees them all)."""
        return self.seen(state, side) if self.seen is not None else None

    def view(self, state: S, side: str) -> dict[str, object]:
        """What `side` may see of the state: its JSON form with what the rules hide from that
        side left out (the whole form where the system hides nothing)."""
        return self.viewer(state, side) if self.viewer is not None else self.to_json(state)


def apply_orders(
    state: S, orders: Sequence[Ord], dice: Dice, *, over: Callable[[S], bool],
    check: Callable[[S, Ord], None],
    apply: Callable[[S, Ord, Dice], tuple[S, list[BattleEvent]]],
) -> StepResult[S]:
    """A step: the orders applied one after another, each checked (`check` raises when its
    side does not act now) against the state as it is then. A refusal names the order
    (`orders[2].target`) and nothing of the step is kept."""
    if not orders:
        raise BattleError("Give at least one order.", field="orders")
    events: list[BattleEvent] = []
    for index, order in enumerate(orders):
        where = f"orders[{index}]"
        if over(state):
            raise BattleError("The battle is over.", rule="victory", field=where)
        try:
            check(state, order)
            state, happened = apply(state, order, dice)
        except BattleError as exc:
            raise BattleError(str(exc), rule=exc.rule,
                              field=f"{where}.{exc.field}" if exc.field else where) from exc
        events.extend(happened)
    return StepResult(state=state, events=tuple(events))


def hex_from_json(value: object, path: str) -> Hex:
    """A hex label ("C4") of a scenario, a state or an order."""
    from rules.hexgrid import HexLabelError, parse_label
    from rules.jsonio import InputError

    if not isinstance(value, str):
        raise InputError(path, 'must be a hex label such as "C4".')
    try:
        return parse_label(value.strip().upper())
    except (HexLabelError, ValueError) as exc:
        raise InputError(path, str(exc)) from None


def on_map(grid: Grid, h: Hex, path: str) -> Hex:
    from rules.hexgrid import format_label
    from rules.jsonio import InputError

    if not grid.contains(h):
        raise InputError(path, f"{format_label(h)} is not on the {grid.cols} × {grid.rows} map.")
    return h


T = TypeVar("T")


def map_from_json(data: object, path: str, terrains: Mapping[str, T], *, plain: str = "open",
                  min_side: int, max_side: int) -> tuple[Grid, dict[Hex, T]]:
    """`{"cols", "rows", "terrain"?: {"C4": "<terrain>", …}}`: the grid and its terrain, named
    as in `terrains` (a hex not listed, or listed as `plain`, has the plain terrain and is not
    stored)."""
    from rules.jsonio import InputError, as_object, child, get_int, only_fields

    obj = as_object(data, path)
    only_fields(obj, ("cols", "rows", "terrain"), path)
    grid = Grid(cols=get_int(obj, "cols", path, minimum=min_side, maximum=max_side),
                rows=get_int(obj, "rows", path, minimum=min_side, maximum=max_side))
    raw = as_object(obj.get("terrain") or {}, child(path, "terrain"))
    terrain: dict[Hex, T] = {}
    for label, value in raw.items():
        at = child(child(path, "terrain"), label)
        h = on_map(grid, hex_from_json(label, at), at)
        if not isinstance(value, str) or value not in terrains:
            raise InputError(at, f"is one of {', '.join(terrains)}.")
        if value != plain:
            terrain[h] = terrains[value]
    return grid, terrain


def victory_event(verdict: Outcome | None, *, why: str = "") -> BattleEvent:
    """The event that closes a battle: the victory check's verdict, and why it ended."""
    assert verdict is not None
    return BattleEvent(kind="victory",
                       text=f"The battle ends: {why}. {verdict.reason}" if why
                       else verdict.reason,
                       data={"winner": verdict.winner, "scores": dict(verdict.scores)})


def standing_verdict(scores: Mapping[str, int], *, turn: int, measure: str, wiped: str,
                     period: str = "turn") -> Outcome:
    """The victory check both systems read the same way: one side left standing wins
    (`wiped`: why); otherwise the most `measure` left wins, equal is a draw."""
    standing = [s for s, v in scores.items() if v > 0]
    if len(standing) == 1:
        return Outcome(winner=standing[0], reason=f"{standing[0]} wins: {wiped}.",
                       scores=scores)
    best = max(scores.values())
    leaders = [s for s, v in scores.items() if v == best]
    if len(leaders) == 1:
        return Outcome(winner=leaders[0], reason=f"{leaders[0]} wins at the end of {period} "
                       f"{turn} with the most {measure} left ({best}).", scores=scores)
    return Outcome(winner=None, reason=f"A draw at the end of {period} {turn}: "
                   f"{' and '.join(leaders)} have {best} {measure} left each.", scores=scores)


def dice_from_json(data: JSONObject) -> tuple[Dice, str | None]:
    """The dice of a JSON request: given values (`rolls`), a `seed`, or a fresh seed."""
    from rules import dice as dice_mod
    from rules.jsonio import InputError, child, get_list

    if data.get("rolls") is not None and data.get("seed") is not None:
        raise InputError("seed", "give either rolls or a seed, not both.")
    if data.get("rolls") is not None:
        values: list[int] = []
        for i, raw in enumerate(get_list(data, "rolls")):
            if isinstance(raw, bool) or not isinstance(raw, int):
                raise InputError(child("rolls", i), "must be a whole number.")
            values.append(raw)
        return dice_mod.FixedDice(values), None
    seed = data.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise InputError("seed", "must be a string.")
    used = seed if seed else dice_mod.new_seed()
    return dice_mod.SeededDice(seed=used), used


def _result_json(
    engine: BattleEngine[S, Ord], result: StepResult[S], source: Dice, seed: str | None
) -> dict[str, object]:
    from rules import dice as dice_mod
    from rules.jsonio import InputError

    if isinstance(source, dice_mod.FixedDice) and source.remaining:
        raise InputError("rolls", f"{source.remaining} given value(s) were not needed.")
    out: dict[str, object] = {
        "state": engine.state_to_json(result.state),
        "events": [e.to_json() for e in result.events],
        "acting_sides": list(engine.acting_sides(result.state)),
    }
    verdict = engine.outcome(result.state)
    out["outcome"] = (
        None
        if verdict is None
        else {"winner": verdict.winner, "reason": verdict.reason, "scores": dict(verdict.scores)}
    )
    if seed is not None and source.rolls:
        out["seed"] = seed
        out["commitment"] = dice_mod.commitment(seed)
    return out


def battle_calculators(
    engine: BattleEngine[S, Ord],
) -> dict[str, Callable[[JSONObject], dict[str, object]]]:
    """`battle-start` and `battle-step` for `python -m rules <key> …`, the same for every system."""
    from rules.jsonio import as_object, get_list, only_fields

    def battle_start(data: JSONObject) -> dict[str, object]:
        """Start a battle: {"scenario", "settings"?, "seed"? | "rolls"?} → state and events."""
        only_fields(data, {"scenario", "settings", "seed", "rolls"}, "")
        scenario = as_object(data.get("scenario"), "scenario")
        settings = as_object(data.get("settings") or {}, "settings")
        source, seed = dice_from_json(data)
        result = engine.start(scenario=scenario, settings=settings, dice=source)
        return _result_json(engine, result, source, seed)

    def battle_step(data: JSONObject) -> dict[str, object]:
        """One step: {"state", "orders": [...], "seed"? | "rolls"?} → the next state and events."""
        only_fields(data, {"state", "orders", "seed", "rolls"}, "")
        state = engine.state_from_json(as_object(data.get("state"), "state"))
        orders = engine.orders_from_json(get_list(data, "orders"))
        source, seed = dice_from_json(data)
        result = engine.step(state=state, orders=orders, dice=source)
        return _result_json(engine, result, source, seed)

    return {"battle-start": battle_start, "battle-step": battle_step}
