"""A whole QUAD battle: its state and the turn driver (the contract of rules/battle.py).

The state holds the map, every unit (where it stands, its current quality), every side's
cards (draw pile in order, hand, discard pile), the defender's standing choices, the turn and
the step the battle is in. `step` applies orders one after another, each checked against the
state as it is at that moment, and explains every roll and change in its events.

Steps (docs/rules/quad.md "A whole battle"):

- `draw`: every side says whether it draws its card for the turn (the draw is optional);
  once all have, the turn begins and the first player holds the activation.
- `steal`: a window in which each inactive side holding a tactics card may steal the
  activation (paying the card) or pass; it opens whenever a side comes to hold the
  activation and after every card played. Once every side in it has passed, or one steals,
  it closes.
- `activation`: the active side plays one unit card (the unit moves, attacks, or — a
  Charger — moves and attacks) or releases the activation.

The battle ends when one side is left with units, or at the end of the last turn
(`max_turns`): then the side with the most quality left wins (equal: a draw).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from rules.battle import (
    BattleError,
    BattleEvent,
    Engine,
    Outcome,
    StepResult,
    apply_orders,
    hex_from_json,
    map_from_json,
    standing_verdict,
    victory_event,
)
from rules.dice import Dice, DiceError
from rules.hexgrid import Grid, Hex, distance, format_label
from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    child,
    get_bool,
    get_int,
    get_list,
    get_str,
    only_fields,
)
from rules.quad import deck as decks
from rules.quad.combat import Combat, CombatError, Fighter, resolve_combat
from rules.quad.terrain import (
    DEFAULT_TERRAIN_ATTACK_DICE,
    Board,
    MoveError,
    Terrain,
    resolve_fall_back,
    resolve_move,
)
from rules.quad.units import Special, UnitType, unit_type_from_dict, unit_type_to_dict

DEFAULT_MAX_TURNS = 12
MAX_MAP_SIDE = 60

Step = Literal["draw", "steal", "activation", "over"]
Block = Literal["quality_first", "fall_back_first"]
StrikeBack = Literal["sixes_first", "others_first"]


@dataclass(frozen=True, kw_only=True)
class QuadSettings:
    """What the source leaves to the table, as settings (docs/rules/quad.md)."""

    max_turns: int = DEFAULT_MAX_TURNS
    terrain_attack_dice: int = DEFAULT_TERRAIN_ATTACK_DICE


@dataclass(frozen=True, kw_only=True)
class Policy:
    """A side's standing answer to the defender's two choices (combat.Combat): which hits its
    blocks cancel when hits outnumber blocks, and which excess blocks strike back. The
    source's Example 1 shows a defender keeping the 6 to block: `others_first`."""

    block: Block = "quality_first"
    strike_back: StrikeBack = "sixes_first"


@dataclass(frozen=True, kw_only=True)
class BattleUnit:
    id: str
    side: str
    type: UnitType
    hex: Hex
    quality: int


@dataclass(frozen=True, kw_only=True)
class QuadSide:
    name: str
    leader_level: int
    policy: Policy


@dataclass(frozen=True, kw_only=True)
class QuadBattle:
    settings: QuadSettings
    grid: Grid
    terrain: Mapping[Hex, Terrain]
    sides: tuple[QuadSide, ...]
    units: tuple[BattleUnit, ...]
    cards: decks.TurnState
    step: Step
    # draw: the sides that have answered and whether they draw; steal: the sides still to
    # answer, in side order.
    draw_answers: tuple[tuple[str, bool], ...] = ()
    waiting: tuple[str, ...] = ()
    eliminated: tuple[str, ...] = ()

    def unit(self, unit_id: str) -> BattleUnit:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise BattleError(f"There is no unit {unit_id!r} on the field.", rule="units",
                          field="unit")

    def board(self, *, without: str | None = None) -> Board:
        return Board(grid=self.grid, terrain=self.terrain,
                     occupied=frozenset(u.hex for u in self.units if u.id != without))

    def side_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sides)

    def side(self, name: str) -> QuadSide:
        for s in self.sides:
            if s.name == name:
                return s
        raise BattleError(f"There is no side {name!r} in this battle.", rule="sides",
                          field="side")


# ---------------------------------------------------------------------------
# Orders


@dataclass(frozen=True, kw_only=True)
class QuadOrder:
    """One order: `draw` (take: bool), `pass` or `steal` (a steal window), `release`, `play`
    (unit, action move|attack|charge|hold, path, target, ranged), or `policy`."""

    side: str
    kind: Literal["draw", "pass", "steal", "release", "play", "policy"]
    take: bool = True
    unit: str = ""
    action: Literal["move", "attack", "charge", "hold"] = "hold"
    path: tuple[Hex, ...] = ()
    target: str = ""
    ranged: bool | None = None
    policy: Policy | None = None


ORDER_KINDS = ("draw", "pass", "steal", "release", "play", "policy")
ACTIONS = ("move", "attack", "charge", "hold")


_hex = hex_from_json


def _policy(data: object, path: str) -> Policy:
    obj = as_object(data, path)
    only_fields(obj, ("block", "strike_back"), path)
    block = get_str(obj, "block", path, default="quality_first")
    strike = get_str(obj, "strike_back", path, default="sixes_first")
    if block not in ("quality_first", "fall_back_first"):
        raise InputError(child(path, "block"), 'is "quality_first" or "fall_back_first".')
    if strike not in ("sixes_first", "others_first"):
        raise InputError(child(path, "strike_back"), 'is "sixes_first" or "others_first".')
    return Policy(block="fall_back_first" if block == "fall_back_first" else "quality_first",
                  strike_back="others_first" if strike == "others_first" else "sixes_first")


def order_from_json(data: object, path: str) -> QuadOrder:
    obj = as_object(data, path)
    only_fields(obj, ("side", "kind", "take", "unit", "action", "path", "target", "ranged",
                      "policy"), path)
    kind = get_str(obj, "kind", path)
    if kind not in ORDER_KINDS:
        raise InputError(child(path, "kind"), f"is one of {', '.join(ORDER_KINDS)}.")
    action = get_str(obj, "action", path, default="hold")
    if action not in ACTIONS:
        raise InputError(child(path, "action"), f"is one of {', '.join(ACTIONS)}.")
    ranged = obj.get("ranged")
    if ranged is not None and not isinstance(ranged, bool):
        raise InputError(child(path, "ranged"), "is true, false or null.")
    return QuadOrder(
        side=get_str(obj, "side", path),
        kind=kind,  # type: ignore[arg-type]
        take=get_bool(obj, "take", path, default=True),
        unit=get_str(obj, "unit", path, default=""),
        action=action,  # type: ignore[arg-type]
        path=tuple(_hex(h, child(child(path, "path"), i))
                   for i, h in enumerate(get_list(obj, "path", path, default=True))),
        target=get_str(obj, "target", path, default=""),
        ranged=ranged,
        policy=_policy(obj["policy"], child(path, "policy")) if "policy" in obj else None,
    )


TERRAINS = {t.value: t for t in Terrain}


# ---------------------------------------------------------------------------
# Start


def start(*, scenario: JSONObject, settings: JSONObject, dice: Dice) -> StepResult[QuadBattle]:
    """Deploy the scenario's units, build and shuffle every side's deck, draw the starting
    hands; the battle waits for turn 1's draw."""
    only_fields(settings, ("max_turns", "terrain_attack_dice"), "settings")
    conf = QuadSettings(
        max_turns=get_int(settings, "max_turns", "settings", minimum=1, maximum=100,
                          default=DEFAULT_MAX_TURNS),
        terrain_attack_dice=get_int(settings, "terrain_attack_dice", "settings", minimum=1,
                                    maximum=6, default=DEFAULT_TERRAIN_ATTACK_DICE),
    )
    only_fields(scenario, ("map", "sides"), "scenario")
    grid, terrain = _map(scenario.get("map"), "scenario.map")
    raw_sides = get_list(scenario, "sides", "scenario")
    if len(raw_sides) < 2:
        raise InputError("scenario.sides", "needs at least two sides.")
    sides: list[QuadSide] = []
    units: list[BattleUnit] = []
    for i, raw in enumerate(raw_sides):
        where = child("scenario.sides", i)
        obj = as_object(raw, where)
        only_fields(obj, ("name", "leader_level", "policy", "units"), where)
        name = get_str(obj, "name", where)
        if not name or name in {s.name for s in sides}:
            raise InputError(child(where, "name"), "must be a distinct, non-empty name.")
        sides.append(QuadSide(
            name=name, leader_level=get_int(obj, "leader_level", where, minimum=0, maximum=5,
                                            default=0),
            policy=_policy(obj.get("policy") or {}, child(where, "policy"))))
        raw_units = get_list(obj, "units", where)
        if not raw_units:
            raise InputError(child(where, "units"), "needs at least one unit.")
        for j, raw_unit in enumerate(raw_units):
            at = child(child(where, "units"), j)
            u = as_object(raw_unit, at)
            only_fields(u, ("id", "type", "hex"), at)
            unit_id = get_str(u, "id", at)
            if not unit_id or any(x.id == unit_id for x in units):
                raise InputError(child(at, "id"), "must be a distinct, non-empty id.")
            kind = unit_type_from_dict(u.get("type"), child(at, "type"))
            place = _hex(u.get("hex"), child(at, "hex"))
            if not grid.contains(place):
                raise InputError(child(at, "hex"), f"{format_label(place)} is not on the map.")
            if any(x.hex == place for x in units):
                raise InputError(child(at, "hex"),
                                 f"{format_label(place)} already holds a unit (one per hex).")
            units.append(BattleUnit(id=unit_id, side=name, type=kind, hex=place,
                                    quality=kind.quality))
    armies = [decks.Army(player=s.name, units=tuple(u.id for u in units if u.side == s.name),
                         leader_level=s.leader_level) for s in sides]
    cards, log = _deck_call(lambda: decks.setup(armies=armies, dice=dice))
    state = QuadBattle(settings=conf, grid=grid, terrain=terrain, sides=tuple(sides),
                       units=tuple(units), cards=cards, step="draw")
    events = [BattleEvent(kind="deployed", text=f"{len(units)} units deployed on a "
                          f"{grid.cols} × {grid.rows} map.",
                          data={"units": {u.id: format_label(u.hex) for u in units}}),
              BattleEvent(kind="decks", text="; ".join(log), rolls=tuple(dice.rolls))]
    return StepResult(state=state, events=tuple(events))


def _map(data: object, path: str) -> tuple[Grid, dict[Hex, Terrain]]:
    return map_from_json(data, path, TERRAINS, min_side=1, max_side=MAX_MAP_SIDE)


def _deck_call(call: Callable[[], decks.Step]) -> decks.Step:
    """A deck.py move, its refusal as the battle's."""
    try:
        return call()
    except decks.DeckError as exc:
        raise BattleError(str(exc), rule="activation deck") from exc


# ---------------------------------------------------------------------------
# The turn driver


def acting_sides(state: QuadBattle) -> tuple[str, ...]:
    if state.step == "draw":
        answered = {name for name, _ in state.draw_answers}
        return tuple(n for n in state.side_names() if n not in answered)
    if state.step == "steal":
        return state.waiting
    if state.step == "activation":
        assert state.cards.active is not None
        return (state.cards.active,)
    return ()


def step(*, state: QuadBattle, orders: Sequence[QuadOrder], dice: Dice) -> StepResult[QuadBattle]:
    """Apply `orders` in order; each must come from a side that acts at that moment (a
    `policy` order from any side at any moment)."""

    def check(state: QuadBattle, order: QuadOrder) -> None:
        state.side(order.side)
        if order.kind != "policy" and order.side not in acting_sides(state):
            raise BattleError(f"{order.side} does not act now: {_who_acts(state)}.",
                              rule="turn")

    def apply(state: QuadBattle, order: QuadOrder, dice: Dice
              ) -> tuple[QuadBattle, list[BattleEvent]]:
        if order.kind == "policy":
            policy = order.policy or Policy()
            state = replace(state, sides=tuple(replace(s, policy=policy)
                                               if s.name == order.side else s
                                               for s in state.sides))
            return state, [BattleEvent(kind="policy", text=f"{order.side} will block "
                                       f"{policy.block.replace('_', ' ')} and strike back "
                                       f"{policy.strike_back.replace('_', ' ')}.")]
        before = len(dice.rolls)
        state, happened = _apply(state, order, dice)
        rolls = tuple(dice.rolls[before:])
        events = [replace(happened[0], rolls=rolls), *happened[1:]] if happened else []
        state, ended = _after(state, dice)
        return state, events + ended

    return apply_orders(state, orders, dice, over=lambda s: s.step == "over", check=check,
                        apply=apply)


def _who_acts(state: QuadBattle) -> str:
    if state.step == "draw":
        return f"the turn's draw waits for {', '.join(acting_sides(state))}"
    if state.step == "steal":
        return f"the steal window waits for {', '.join(state.waiting)}"
    return f"{state.cards.active} holds the activation"


def _apply(state: QuadBattle, order: QuadOrder, dice: Dice
           ) -> tuple[QuadBattle, list[BattleEvent]]:
    if state.step == "draw":
        if order.kind != "draw":
            raise BattleError("The turn begins with the draw: answer it with a draw order "
                              "(take true or false).", rule="turn", field="kind")
        answers = (*state.draw_answers, (order.side, order.take))
        text = f"{order.side} {'draws' if order.take else 'does not draw'} for the turn."
        if len(answers) < len(state.sides):
            return replace(state, draw_answers=answers), [BattleEvent(kind="draw", text=text)]
        names = state.side_names()
        first = names[state.cards.turn % len(names)]
        cards, log = _deck_call(lambda: decks.start_turn(
            state.cards, first_player=first, drawing={n for n, take in answers if take},
            dice=dice))
        state = replace(state, cards=cards, draw_answers=())
        state = _open_window(state)
        return state, [BattleEvent(kind="turn", text=f"{text} " + "; ".join(log) + ".",
                                   data={"turn": cards.turn, "active": first})]
    if state.step == "steal":
        if order.kind == "pass":
            waiting = tuple(s for s in state.waiting if s != order.side)
            return (replace(state, waiting=waiting, step="steal" if waiting else "activation"),
                    [BattleEvent(kind="pass", text=f"{order.side} lets the activation be.")])
        if order.kind != "steal":
            raise BattleError("In a steal window a side steals the activation or passes.",
                              rule="steal", field="kind")
        cards, log = _deck_call(lambda: decks.steal(state.cards, player=order.side))
        state = _open_window(replace(state, cards=cards))
        return state, [BattleEvent(kind="steal", text="; ".join(log) + ".",
                                   data={"active": order.side})]
    if order.kind == "release":
        cards, log = _deck_call(lambda: decks.release(state.cards, player=order.side,
                                                      dice=dice))
        state = replace(state, cards=cards)
        if cards.active is not None:
            state = _open_window(state)
        return state, [BattleEvent(kind="release", text="; ".join(log) + ".")]
    if order.kind != "play":
        raise BattleError(f"{order.side} holds the activation: it plays a unit card or "
                          "releases the activation.", rule="activation", field="kind")
    unit = state.unit(order.unit)
    if unit.side != order.side:
        raise BattleError(f"{unit.id} is not {order.side}'s unit.", rule="activation",
                          field="unit")
    cards, log = _deck_call(lambda: decks.play_card(state.cards, player=order.side,
                                                    unit=unit.id))
    state = replace(state, cards=cards)
    events = [BattleEvent(kind="play", text="; ".join(log) + ".",
                          data={"unit": unit.id, "action": order.action})]
    state, acted = _act(state, unit, order, dice)
    events.extend(acted)
    if state.cards.active is not None and not _over(state):
        state = _open_window(state)
    return state, events


def _open_window(state: QuadBattle) -> QuadBattle:
    """A side holds the activation: the inactive sides with a tactics card may steal it."""
    active = state.cards.active
    waiting = tuple(p.player for p in state.cards.players
                    if p.player != active and p.tactics_in_hand > 0)
    return replace(state, step="steal" if waiting else "activation", waiting=waiting)


# ---------------------------------------------------------------------------
# What a played card lets a unit do


def _act(state: QuadBattle, unit: BattleUnit, order: QuadOrder, dice: Dice
         ) -> tuple[QuadBattle, list[BattleEvent]]:
    if order.action == "hold":
        if order.path or order.target:
            raise BattleError("A unit that holds neither moves nor attacks: give no path or "
                              "target.", rule="activation", field="action")
        return state, [BattleEvent(kind="hold", text=f"{unit.id} holds its ground.")]
    if order.action == "charge" and not unit.type.has(Special.CHARGER):
        raise BattleError(f"{unit.id} is not a Charger: only a Charger may move and attack in "
                          "a single action.", rule="charger", field="action")
    events: list[BattleEvent] = []
    if order.action in ("move", "charge"):
        if order.action == "move" and order.target:
            raise BattleError("A move has no target; a Charger's charge does.",
                              rule="activation", field="target")
        if len(order.path) < 1:
            raise BattleError("A move needs the hexes entered, in order.", rule="movement",
                              field="path")
        state, unit, text = _move(state, unit, order.path, dice)
        events.append(BattleEvent(kind="move", text=text,
                                  data={"unit": unit.id, "hex": format_label(unit.hex)}))
        if order.action == "move":
            return state, events
        if unit.hex != order.path[-1]:
            events.append(BattleEvent(kind="charge_stopped", text=f"{unit.id} was stopped "
                                      "short by the terrain: its charge does not strike."))
            return state, events
    if not order.target:
        raise BattleError("An attack needs a target unit.", rule="combat", field="target")
    state, fought = _attack(state, unit, state.unit(order.target), order, dice,
                            charging=order.action == "charge")
    return state, events + fought


def _move(state: QuadBattle, unit: BattleUnit, path: Sequence[Hex], dice: Dice
          ) -> tuple[QuadBattle, BattleUnit, str]:
    route = (unit.hex, *path)
    try:
        result = resolve_move(unit=unit.type, quality=unit.quality, path=route,
                              board=state.board(without=unit.id), dice=dice,
                              terrain_attack_dice=state.settings.terrain_attack_dice)
    except MoveError as exc:
        raise BattleError(str(exc), rule="movement", field="path") from exc
    moved = replace(unit, hex=result.final_hex)
    state = _replace_unit(state, moved)
    return state, moved, f"{unit.id}: " + "; ".join(result.explain()) + "."


def _attack(state: QuadBattle, attacker: BattleUnit, defender: BattleUnit, order: QuadOrder,
            dice: Dice, *, charging: bool) -> tuple[QuadBattle, list[BattleEvent]]:
    if defender.side == attacker.side:
        raise BattleError(f"{defender.id} is a unit of {attacker.side}'s own side.",
                          rule="combat", field="target")
    gap = distance(attacker.hex, defender.hex)
    policy = state.side(defender.side).policy
    friends = [u for u in state.units if u.side == attacker.side and u.id != attacker.id]
    helpers = [u for u in state.units if u.side == defender.side and u.id != defender.id]
    try:
        combat = Combat(
            attacker=Fighter(unit=attacker.type, quality=attacker.quality,
                             terrain=state.terrain.get(attacker.hex, Terrain.OPEN)),
            defender=Fighter(unit=defender.type, quality=defender.quality,
                             terrain=state.terrain.get(defender.hex, Terrain.OPEN)),
            distance=gap, ranged=order.ranged, charging=charging,
            allies_adjacent_to_target=sum(1 for u in friends
                                          if distance(u.hex, defender.hex) == 1),
            supports_adjacent_to_defender=sum(1 for u in helpers
                                              if u.type.has(Special.SUPPORT)
                                              and distance(u.hex, defender.hex) == 1),
            quality_hits_to_block=0 if policy.block == "fall_back_first" else None,
            strike_back_sixes=0 if policy.strike_back == "others_first" else None,
        )
        result = resolve_combat(combat, dice=dice)
    except (CombatError, DiceError) as exc:
        raise BattleError(str(exc), rule="combat", field="target") from exc
    events = [BattleEvent(kind="combat",
                          text=f"{attacker.id} attacks {defender.id}: "
                          + "; ".join(result.explain()) + ".",
                          data={"attacker": attacker.id, "defender": defender.id,
                                "result": result.to_dict()})]
    # The outcome on the map: the defender first, then the attacker struck back.
    for who, outcome, away_from in ((defender, result.defender, attacker.hex),
                                    (attacker, result.attacker, defender.hex)):
        current = state.unit(who.id)
        quality = outcome.quality_after
        text = f"{who.id}: quality {outcome.quality_before} → {quality}"
        if quality > 0 and outcome.fall_back_hexes:
            fall = resolve_fall_back(unit=who.type, quality=quality, start=current.hex,
                                     attacker_hex=away_from, hexes=outcome.fall_back_hexes,
                                     board=state.board(without=who.id), dice=dice,
                                     terrain_attack_dice=state.settings.terrain_attack_dice)
            quality = fall.quality_after
            current = replace(current, hex=fall.path[-1])
            text += "; " + "; ".join(fall.explain())
            if fall.blocked:
                text += f" (quality now {quality})"
        if quality == outcome.quality_before and current.hex == who.hex:
            continue
        state, gone = _settle(state, replace(current, quality=quality))
        events.append(BattleEvent(kind="eliminated" if gone else "outcome",
                                  text=text + (": eliminated." if gone else "."),
                                  data={"unit": who.id, "quality": quality,
                                        "hex": format_label(current.hex)}))
    return state, events


def _replace_unit(state: QuadBattle, unit: BattleUnit) -> QuadBattle:
    return replace(state, units=tuple(unit if u.id == unit.id else u for u in state.units))


def _settle(state: QuadBattle, unit: BattleUnit) -> tuple[QuadBattle, bool]:
    """Store the unit; at quality 0 it leaves the field and its cards leave its deck."""
    if unit.quality > 0:
        return _replace_unit(state, unit), False
    cards, _ = _deck_call(lambda: decks.eliminate_unit(state.cards, player=unit.side,
                                                       unit=unit.id))
    return replace(state, cards=cards, units=tuple(u for u in state.units if u.id != unit.id),
                   eliminated=(*state.eliminated, unit.id)), True


# ---------------------------------------------------------------------------
# The end


def _over(state: QuadBattle) -> bool:
    return len({u.side for u in state.units}) < 2


def _after(state: QuadBattle, dice: Dice) -> tuple[QuadBattle, list[BattleEvent]]:
    """After an order: the victory check; a turn over opens the next turn's draw."""
    del dice
    if _over(state):
        return replace(state, step="over", waiting=()), [
            victory_event(outcome(replace(state, step="over")))]
    if state.step in ("activation", "steal") and state.cards.active is None:
        if state.cards.turn >= state.settings.max_turns:
            return replace(state, step="over", waiting=()), [
                victory_event(outcome(replace(state, step="over")))]
        return replace(state, step="draw", waiting=()), [
            BattleEvent(kind="turn_over", text=f"Turn {state.cards.turn} is over; turn "
                        f"{state.cards.turn + 1} begins with the draw.")]
    return state, []


def outcome(state: QuadBattle) -> Outcome | None:
    if state.step != "over":
        return None
    return standing_verdict({s.name: sum(u.quality for u in state.units if u.side == s.name)
                             for s in state.sides}, turn=state.cards.turn, measure="quality",
                            wiped="every enemy unit is eliminated")


# ---------------------------------------------------------------------------
# JSON


def _card_json(card: decks.Card) -> dict[str, object]:
    return card.to_dict()


def _card_from(data: object, path: str) -> decks.Card:
    obj = as_object(data, path)
    kind = get_str(obj, "kind", path)
    if kind == "tactics":
        return decks.Card(kind=decks.CardKind.TACTICS, unit="",
                          copy=get_int(obj, "copy", path, minimum=1))
    if kind != "unit":
        raise InputError(child(path, "kind"), 'is "unit" or "tactics".')
    return decks.Card(kind=decks.CardKind.UNIT, unit=get_str(obj, "unit", path),
                      copy=get_int(obj, "copy", path, minimum=1,
                                   maximum=decks.UNIT_CARD_COPIES))


def state_to_json(state: QuadBattle) -> dict[str, object]:
    return {
        "system": "quad",
        "settings": {"max_turns": state.settings.max_turns,
                     "terrain_attack_dice": state.settings.terrain_attack_dice},
        "map": {"cols": state.grid.cols, "rows": state.grid.rows,
                "terrain": {format_label(h): t.value for h, t in sorted(
                    state.terrain.items(), key=lambda item: format_label(item[0]))}},
        "sides": [{"name": s.name, "leader_level": s.leader_level,
                   "policy": {"block": s.policy.block, "strike_back": s.policy.strike_back}}
                  for s in state.sides],
        "units": [{"id": u.id, "side": u.side, "type": unit_type_to_dict(u.type),
                   "hex": format_label(u.hex), "quality": u.quality} for u in state.units],
        "eliminated": list(state.eliminated),
        "cards": {
            "turn": state.cards.turn, "active": state.cards.active,
            "played": state.cards.played, "passes": state.cards.passes,
            "players": [{"player": p.player,
                         "draw_pile": [_card_json(c) for c in p.draw_pile],
                         "hand": [_card_json(c) for c in p.hand],
                         "discard": [_card_json(c) for c in p.discard]}
                        for p in state.cards.players],
        },
        "step": state.step,
        "draw_answers": [{"side": n, "take": t} for n, t in state.draw_answers],
        "waiting": list(state.waiting),
    }


def state_from_json(data: JSONObject) -> QuadBattle:
    only_fields(data, ("system", "settings", "map", "sides", "units", "eliminated", "cards",
                       "step", "draw_answers", "waiting"), "state")
    if data.get("system") != "quad":
        raise InputError("state.system", 'is "quad" for a QUAD battle.')
    conf = as_object(data.get("settings"), "state.settings")
    settings = QuadSettings(
        max_turns=get_int(conf, "max_turns", "state.settings", minimum=1, maximum=100),
        terrain_attack_dice=get_int(conf, "terrain_attack_dice", "state.settings", minimum=1,
                                    maximum=6))
    grid, terrain = _map(data.get("map"), "state.map")
    sides = []
    for i, raw in enumerate(get_list(data, "sides", "state")):
        at = child("state.sides", i)
        obj = as_object(raw, at)
        sides.append(QuadSide(name=get_str(obj, "name", at),
                              leader_level=get_int(obj, "leader_level", at, minimum=0),
                              policy=_policy(obj.get("policy") or {}, child(at, "policy"))))
    names = {s.name for s in sides}
    units = []
    for i, raw in enumerate(get_list(data, "units", "state")):
        at = child("state.units", i)
        obj = as_object(raw, at)
        kind = unit_type_from_dict(obj.get("type"), child(at, "type"))
        side = get_str(obj, "side", at)
        if side not in names:
            raise InputError(child(at, "side"), f"names no side of this battle ({side!r}).")
        units.append(BattleUnit(id=get_str(obj, "id", at), side=side, type=kind,
                                hex=_hex(obj.get("hex"), child(at, "hex")),
                                quality=get_int(obj, "quality", at, minimum=1,
                                                maximum=kind.quality)))
    if len({u.hex for u in units}) != len(units) or len({u.id for u in units}) != len(units):
        raise InputError("state.units", "one unit per hex, each with its own id.")
    raw_cards = as_object(data.get("cards"), "state.cards")
    players = []
    for i, raw in enumerate(get_list(raw_cards, "players", "state.cards")):
        at = child("state.cards.players", i)
        obj = as_object(raw, at)
        players.append(decks.PlayerCards(
            player=get_str(obj, "player", at),
            **{pile: tuple(_card_from(c, child(child(at, pile), j))
                           for j, c in enumerate(get_list(obj, pile, at)))
               for pile in ("draw_pile", "hand", "discard")}))
    active = raw_cards.get("active")
    if active is not None and active not in names:
        raise InputError("state.cards.active", "names no side of this battle.")
    cards = decks.TurnState(players=tuple(players),
                            turn=get_int(raw_cards, "turn", "state.cards", minimum=0),
                            active=active if isinstance(active, str) else None,
                            played=get_int(raw_cards, "played", "state.cards", minimum=0),
                            passes=get_int(raw_cards, "passes", "state.cards", minimum=0))
    step_name = get_str(data, "step", "state")
    if step_name not in ("draw", "steal", "activation", "over"):
        raise InputError("state.step", "is draw, steal, activation or over.")
    answers = tuple((get_str(as_object(a, "state.draw_answers"), "side", "state.draw_answers"),
                     get_bool(as_object(a, "state.draw_answers"), "take",
                              "state.draw_answers"))
                    for a in get_list(data, "draw_answers", "state", default=True))
    waiting = tuple(str(w) for w in get_list(data, "waiting", "state", default=True))
    return QuadBattle(settings=settings, grid=grid, terrain=terrain, sides=tuple(sides),
                      units=tuple(units), cards=cards, step=step_name,  # type: ignore[arg-type]
                      draw_answers=answers, waiting=waiting,
                      eliminated=tuple(str(e) for e in get_list(data, "eliminated", "state",
                                                                default=True)))


def view_for(state: QuadBattle, side: str) -> dict[str, object]:
    """The state's JSON as `side` may see it: the other sides' hands as their sizes, every
    draw pile (its own too) as the number of cards left, never their order; the discards and
    the rest are on the table."""
    if side not in {s.name for s in state.sides}:
        raise BattleError(f"There is no side {side!r} in this battle.", rule="sides",
                          field="side")
    data = state_to_json(state)
    cards: dict[str, Any] = data["cards"]  # type: ignore[assignment]
    cards["players"] = [{**p, "draw_pile": len(p["draw_pile"]),
                         "hand": p["hand"] if p["player"] == side else len(p["hand"])}
                        for p in cards["players"]]
    return data


ENGINE: Engine[QuadBattle, QuadOrder] = Engine(
    key="quad", start_battle=start, step_battle=step, acting=acting_sides, verdict=outcome,
    to_json=state_to_json, from_json=state_from_json, order_from_json=order_from_json,
    viewer=view_for)

__all__ = ["ENGINE", "BattleUnit", "Policy", "QuadBattle", "QuadOrder", "QuadSettings",
           "view_for"]
