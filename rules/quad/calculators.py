"""QUAD's JSON calculators: unit, combat, move, fall_back, deck (`python -m rules quad …`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rules import dice as dice_mod
from rules import hexgrid
from rules.hexgrid import Grid, Hex
from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    child,
    get_bool,
    get_choice,
    get_int,
    get_list,
    get_optional_int,
    get_str,
    only_fields,
)
from rules.quad import combat as combats
from rules.quad import deck as decks
from rules.quad import terrain as terrains
from rules.quad.units import UnitError, unit_type_from_dict, unit_type_to_dict
from rules.registry import Calculator

T = TypeVar("T")
DICE_FIELDS = ("rolls", "seed")
TERRAINS = [t.value for t in terrains.Terrain]


# ---------------------------------------------------------------------------
# Dice: "rolls" (given values, in order) or "seed" (verifiable); neither → a fresh seed.


def _dice_source(data: JSONObject) -> tuple[dice_mod.Dice, str | None, int | None]:
    if "rolls" in data and "seed" in data:
        raise InputError("seed", 'give either "rolls" or "seed", not both.')
    if data.get("rolls") is not None:
        values = []
        for i, raw in enumerate(get_list(data, "rolls")):
            if isinstance(raw, bool) or not isinstance(raw, int):
                raise InputError(child("rolls", i), "must be a whole number.")
            values.append(raw)
        return dice_mod.FixedDice(values), None, len(values)
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, str) or not seed):
        raise InputError("seed", "must be a non-empty string.")
    used = seed if isinstance(seed, str) else dice_mod.new_seed()
    return dice_mod.SeededDice(seed=used), used, None


def _with_dice(
    data: JSONObject, compute: Callable[[dice_mod.Dice], dict[str, object]]
) -> dict[str, object]:
    source, seed, given = _dice_source(data)
    try:
        out = compute(source)
    except (combats.CombatError, terrains.MoveError, decks.DeckError) as exc:
        if isinstance(exc.__cause__, dice_mod.DiceError):
            raise InputError("rolls" if given is not None else "seed", str(exc.__cause__)) from None
        raise
    if given is not None and len(source.rolls) != given:
        raise InputError(
            "rolls", f"{given} value(s) were given but only {len(source.rolls)} die/dice rolled."
        )
    if seed is not None and (source.rolls or "seed" in data):
        # The seed is the caller's own (or a fresh one): printing it makes the result replayable.
        out["seed"] = seed
        out["commitment"] = dice_mod.commitment(seed)
        out["dice"] = dice_mod.roll_records(source.rolls)
    return out


def _domain(field: str, action: Callable[[], T]) -> T:
    try:
        return action()
    except combats.CombatError as exc:
        raise InputError(exc.field or field, str(exc)) from None
    except (UnitError, terrains.MoveError, decks.DeckError) as exc:
        raise InputError(field, str(exc)) from None


# ---------------------------------------------------------------------------
# unit


def unit(data: JSONObject) -> dict[str, object]:
    """{"name"?, "quality", "speed", "attack", "defense", "specials"?, "ranged"?: "#/#"} → stats."""
    parsed = _domain("input", lambda: unit_type_from_dict(data))
    return {
        "valid": True,
        "unit": unit_type_to_dict(parsed),
        "stat_line": parsed.describe(),
        "cost": None,
    }


# ---------------------------------------------------------------------------
# combat

FIGHTER_FIELDS = ("unit", "quality", "terrain", "fall_back_room")
COMBAT_FIELDS = (
    "attacker", "defender", "distance", "ranged", "charging", "allies_adjacent_to_target",
    "supports_adjacent_to_defender", "quality_hits_to_block", "strike_back_sixes",
) + DICE_FIELDS


def fighter_from_dict(data: JSONObject, name: str) -> combats.Fighter:
    obj = as_object(data.get(name), name)
    only_fields(obj, FIGHTER_FIELDS, name)
    unit_type = _domain(child(name, "unit"),
                        lambda: unit_type_from_dict(obj.get("unit"), child(name, "unit")))
    quality = get_optional_int(obj, "quality", name, minimum=1)
    terrain = terrains.Terrain(get_choice(obj, "terrain", TERRAINS, name, default="open"))
    room = get_optional_int(obj, "fall_back_room", name, minimum=0)
    try:
        return combats.Fighter(unit=unit_type, quality=quality, terrain=terrain,
                               fall_back_room=room)
    except combats.CombatError as exc:
        raise InputError(child(name, exc.field), str(exc)) from None


def combat_from_dict(data: JSONObject) -> combats.Combat:
    """A Combat from the calculator's JSON (the dice fields are read by the caller)."""
    only_fields(data, COMBAT_FIELDS, "")
    attacker = fighter_from_dict(data, "attacker")
    defender = fighter_from_dict(data, "defender")
    ranged = data.get("ranged")
    if ranged is not None and not isinstance(ranged, bool):
        raise InputError("ranged", "must be true or false.")
    return _domain("input", lambda: combats.Combat(
        attacker=attacker,
        defender=defender,
        distance=get_int(data, "distance", default=1, minimum=1),
        ranged=ranged,
        charging=get_bool(data, "charging"),
        allies_adjacent_to_target=get_int(
            data, "allies_adjacent_to_target", default=0, minimum=0, maximum=6),
        supports_adjacent_to_defender=get_int(
            data, "supports_adjacent_to_defender", default=0, minimum=0, maximum=6),
        quality_hits_to_block=get_optional_int(data, "quality_hits_to_block", minimum=0),
        strike_back_sixes=get_optional_int(data, "strike_back_sixes", minimum=0),
    ))


def combat(data: JSONObject) -> dict[str, object]:
    """One attack resolved with the given "rolls" (attack dice, then defense dice) or a "seed"."""
    fight = combat_from_dict(data)
    return _with_dice(data, lambda d: combats.resolve_combat(fight, dice=d).to_dict())


# ---------------------------------------------------------------------------
# move and fall_back

MAP_FIELDS = ("cols", "rows", "terrain", "occupied")


def _hex(value: object, field: str) -> Hex:
    if not isinstance(value, str):
        raise InputError(field, "must be a hex label such as 'J10'.")
    try:
        return hexgrid.parse_label(value)
    except hexgrid.HexLabelError as exc:
        raise InputError(field, str(exc)) from None


def board_from_dict(data: JSONObject) -> terrains.Board:
    obj = as_object(data.get("map"), "map")
    only_fields(obj, MAP_FIELDS, "map")
    grid = Grid(get_int(obj, "cols", "map", minimum=1, maximum=702),
                get_int(obj, "rows", "map", minimum=1, maximum=10_000))
    terrain: dict[Hex, terrains.Terrain] = {}
    raw_terrain = as_object(obj.get("terrain", {}), "map.terrain")
    for label, value in raw_terrain.items():
        where = f"map.terrain.{label}"
        h = _hex(label, where)
        if not grid.contains(h):
            raise InputError(where, f"{label} is not on the map.")
        if not isinstance(value, str) or value not in TERRAINS:
            raise InputError(where, f"must be one of {', '.join(TERRAINS)} (got {value!r}).")
        terrain[h] = terrains.Terrain(value)
    occupied = frozenset(
        _hex(v, child("map.occupied", i))
        for i, v in enumerate(get_list(obj, "occupied", "map", default=True))
    )
    return terrains.Board(grid=grid, terrain=terrain, occupied=occupied)


def _path(data: JSONObject, name: str) -> list[Hex]:
    return [_hex(v, child(name, i)) for i, v in enumerate(get_list(data, name))]


def _labels(hexes: tuple[Hex, ...]) -> list[str]:
    return [hexgrid.format_label(h) for h in hexes]


def _attacks(attacks: tuple[terrains.TerrainAttack, ...]) -> list[dict[str, object]]:
    return [
        {"hex": hexgrid.format_label(a.hex), "terrain": a.terrain.value, "quality": a.quality,
         "rolls": list(a.rolls), "hit": a.hit}
        for a in attacks
    ]


def move(data: JSONObject) -> dict[str, object]:
    """{"map", "unit", "quality"?, "path": [hexes from the start]} → where the move ends."""
    only_fields(data, ("map", "unit", "quality", "path", "terrain_attack_dice") + DICE_FIELDS, "")
    board = board_from_dict(data)
    unit_type = _domain("unit", lambda: unit_type_from_dict(data.get("unit"), "unit"))
    quality = get_int(data, "quality", default=unit_type.quality, minimum=1,
                      maximum=unit_type.quality)
    path = _path(data, "path")
    count = get_int(data, "terrain_attack_dice", default=terrains.DEFAULT_TERRAIN_ATTACK_DICE,
                    minimum=1)
    _domain("path", lambda: terrains.check_path(unit_type, path, board))

    def compute(d: dice_mod.Dice) -> dict[str, object]:
        result = _domain("path", lambda: terrains.resolve_move(
            unit=unit_type, quality=quality, path=path, board=board, dice=d,
            terrain_attack_dice=count))
        return {
            "final_hex": hexgrid.format_label(result.final_hex),
            "entered": _labels(result.entered),
            "stopped_before": (hexgrid.format_label(result.stopped_before)
                               if result.stopped_before is not None else None),
            "terrain_attacks": _attacks(result.terrain_attacks),
            "explanation": result.explain(),
        }

    return _with_dice(data, compute)


def fall_back(data: JSONObject) -> dict[str, object]:
    """{"map", "unit", "quality"?, "from", "attacker", "hexes", "path"?} → the fall-back made."""
    only_fields(data, ("map", "unit", "quality", "from", "attacker", "hexes", "path",
                       "terrain_attack_dice") + DICE_FIELDS, "")
    board = board_from_dict(data)
    unit_type = _domain("unit", lambda: unit_type_from_dict(data.get("unit"), "unit"))
    quality = get_int(data, "quality", default=unit_type.quality, minimum=1,
                      maximum=unit_type.quality)
    start = _hex(get_str(data, "from"), "from")
    attacker = _hex(get_str(data, "attacker"), "attacker")
    if not board.grid.contains(start):
        raise InputError("from", f"{hexgrid.format_label(start)} is not on the map.")
    hexes = get_int(data, "hexes", minimum=0)
    path = _path(data, "path") if data.get("path") is not None else None
    count = get_int(data, "terrain_attack_dice", default=terrains.DEFAULT_TERRAIN_ATTACK_DICE,
                    minimum=1)

    def compute(d: dice_mod.Dice) -> dict[str, object]:
        result = _domain("path", lambda: terrains.resolve_fall_back(
            unit=unit_type, quality=quality, start=start, attacker_hex=attacker, hexes=hexes,
            board=board, dice=d, path=path, terrain_attack_dice=count))
        return {
            "path": _labels(result.path),
            "moved": result.moved,
            "blocked": result.blocked,
            "quality_before": result.quality_before,
            "quality_after": result.quality_after,
            "eliminated": result.eliminated,
            "terrain_attacks": _attacks(result.terrain_attacks),
            "explanation": result.explain(),
        }

    return _with_dice(data, compute)


# ---------------------------------------------------------------------------
# deck

ACTIONS = ("turn", "play", "release", "steal", "eliminate")


def _armies(data: JSONObject) -> list[decks.Army]:
    out = []
    for i, raw in enumerate(get_list(data, "players")):
        path = child("players", i)
        obj = as_object(raw, path)
        only_fields(obj, ("name", "units", "leader_level"), path)
        units = []
        for j, u in enumerate(get_list(obj, "units", path)):
            if not isinstance(u, str) or not u:
                raise InputError(child(child(path, "units"), j), "must be a unit name.")
            units.append(u)
        out.append(decks.Army(player=get_str(obj, "name", path), units=tuple(units),
                              leader_level=get_int(obj, "leader_level", path, default=0,
                                                   minimum=0)))
    return out


def _apply(state: decks.TurnState, action: JSONObject, path: str,
           d: dice_mod.Dice) -> decks.Step:
    kind = get_choice(action, "type", ACTIONS, path)
    if kind == "turn":
        only_fields(action, ("type", "first", "draw"), path)
        drawing = None
        if action.get("draw") is not None:
            drawing = [str(p) for p in get_list(action, "draw", path)]
        first = get_str(action, "first", path)
        return decks.start_turn(state, first_player=first, drawing=drawing, dice=d)
    if kind in ("play", "eliminate"):
        only_fields(action, ("type", "player", "unit"), path)
        player, unit_name = get_str(action, "player", path), get_str(action, "unit", path)
        if kind == "play":
            return decks.play_card(state, player=player, unit=unit_name)
        return decks.eliminate_unit(state, player=player, unit=unit_name)
    only_fields(action, ("type", "player"), path)
    player = get_str(action, "player", path)
    if kind == "release":
        return decks.release(state, player=player, dice=d)
    return decks.steal(state, player=player)


def deck(data: JSONObject) -> dict[str, object]:
    """Build, shuffle and deal the activation decks, then play "actions" (turn/play/release/…)."""
    only_fields(data, ("players", "actions") + DICE_FIELDS, "")
    armies = _armies(data)
    actions = [as_object(a, child("actions", i))
               for i, a in enumerate(get_list(data, "actions", default=True))]

    def compute(d: dice_mod.Dice) -> dict[str, object]:
        state, log = _domain("players", lambda: decks.setup(armies=armies, dice=d))
        lines = list(log)
        decks_out = [
            {"player": a.player,
             "cards": len(a.units) * decks.UNIT_CARD_COPIES
             + decks.tactics_card_count(units=len(a.units), leader_level=a.leader_level),
             "unit_cards": len(a.units) * decks.UNIT_CARD_COPIES,
             "tactics_cards": decks.tactics_card_count(units=len(a.units),
                                                       leader_level=a.leader_level),
             "starting_hand": decks.starting_hand_size(units=len(a.units),
                                                       leader_level=a.leader_level)}
            for a in armies
        ]
        for i, action in enumerate(actions):
            path = child("actions", i)
            state, log = _domain(path, lambda: _apply(state, action, path, d))  # noqa: B023
            lines.extend(log)
        return {"decks": decks_out, "state": state.to_dict(), "log": lines}

    return _with_dice(data, compute)


CALCULATORS: dict[str, Calculator] = {
    "unit": unit,
    "combat": combat,
    "move": move,
    "fall_back": fall_back,
    "deck": deck,
}
