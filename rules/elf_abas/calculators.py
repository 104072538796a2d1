"""ELF ABAS JSON calculators (`python -m rules elf_abas …`): unit, attack, effects, move, path,
retreat, activation."""

from __future__ import annotations

from rules import dice, hexgrid
from rules.elf_abas import activation as activations
from rules.elf_abas import combat as combats
from rules.elf_abas.effects import DrawnEffect, Effect, Member, apply_effects, effect_for
from rules.elf_abas.movement import (
    EFFECT_REDUCTION,
    Board,
    Occupant,
    Terrain,
    check_plan,
    labels,
    move_path,
    retreat_path,
)
from rules.elf_abas.units import (
    PROFILES,
    Force,
    Kind,
    attack_dice,
    force_from_dict,
    move_allowance,
    profile_to_dict,
    unit_errors,
    unit_type_from_dict,
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
    get_optional_int,
    get_str,
    only_fields,
)
from rules.registry import Calculator

__all__ = ["CALCULATORS"]


def unit(data: JSONObject) -> dict[str, object]:
    """{"kind", "figures"} → the kind's move, dice, Shrug and full strength; validity."""
    kind, figures = unit_type_from_dict(data)
    errors = unit_errors(kind, figures)
    out: dict[str, object] = profile_to_dict(PROFILES[kind])
    out["figures"] = figures
    out["valid"] = not errors
    out["errors"] = errors
    if not errors:
        force = (
            Force(leader=kind is Kind.LEADER, hero=kind is Kind.HERO)
            if kind in (Kind.LEADER, Kind.HERO)
            else Force(unit=kind, figures=figures)
        )
        out["attack_dice_adjacent"] = attack_dice(force).total
        if kind is Kind.MISSILE:
            out["fire_dice_by_hexes"] = [
                attack_dice(force, hexes=h).total for h in range(1, figures + 1)
            ]
    return out


# ---------------------------------------------------------------------------
# Dice input


def _strings(data: JSONObject, name: str) -> list[str]:
    out = []
    for i, value in enumerate(get_list(data, name)):
        if not isinstance(value, str) or not value:
            raise InputError(child(name, i), "must be a non-empty string.")
        out.append(value)
    return out


def _seed(data: JSONObject) -> str | None:
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, str) or not seed):
        raise InputError("seed", "must be a non-empty string.")
    return seed


def _d6_list(value: object, path: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise InputError(path, "must be a JSON array of d6 values.")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6:
            raise InputError(child(path, i), "must be a d6 value from 1 to 6.")
        out.append(v)
    return tuple(out)


def _pairs(value: object, path: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list):
        raise InputError(path, "must be a JSON array of [Fate die, effect die] pairs.")
    out = []
    for i, v in enumerate(value):
        pair = _d6_list(v, child(path, i))
        if len(pair) != 2:
            raise InputError(child(path, i), "must be a pair [Fate die, effect die].")
        out.append((pair[0], pair[1]))
    return tuple(out)


def _with_seed(
    result: dict[str, object], used_seed: str | None, source: dice.Dice
) -> dict[str, object]:
    if used_seed is not None:
        # The caller's own seed (or a fresh one): printing it makes the result replayable.
        result["seed"] = used_seed
        result["commitment"] = dice.commitment(used_seed)
        result["dice"] = dice.roll_records(source.rolls)
    return result


def _terrain(data: JSONObject, path: str = "") -> Terrain:
    return Terrain(get_choice(data, "terrain", [t.value for t in Terrain], path, default="open"))


def _member(data: JSONObject) -> Member | None:
    if data.get("casualties_to") is None:
        return None
    return Member(get_choice(data, "casualties_to", [m.value for m in Member]))


# ---------------------------------------------------------------------------
# Attack and effects

ATTACKER_FIELDS = ("force", "hexes", "partial_sight", "dice", "rolls")
ATTACK_FIELDS = (
    "attackers", "defender", "terrain", "terrain_rule", "terrain_value", "retreat_room",
    "casualties_to", "effect_rolls", "seed",
)


def attack_from_dict(data: JSONObject) -> combats.Attack:
    only_fields(data, ATTACK_FIELDS, "")
    attackers = []
    for i, raw in enumerate(get_list(data, "attackers")):
        path = child("attackers", i)
        obj = as_object(raw, path)
        only_fields(obj, ATTACKER_FIELDS, path)
        force = force_from_dict(obj.get("force"), child(path, "force"))
        hexes = get_int(obj, "hexes", path, default=1, minimum=1)
        partial_sight = get_bool(obj, "partial_sight", path)
        for name, sight in (("hexes", False), ("partial_sight", partial_sight)):
            try:
                attack_dice(force, hexes=hexes, partial_sight=sight)
            except ValueError as exc:
                raise InputError(child(path, name), str(exc)) from None
        attackers.append(
            combats.Attacker(
                force=force,
                hexes=hexes,
                partial_sight=partial_sight,
                dice=get_optional_int(obj, "dice", path, minimum=0),
                rolls=(
                    _d6_list(obj["rolls"], child(path, "rolls"))
                    if obj.get("rolls") is not None
                    else None
                ),
            )
        )
    if not attackers:
        raise InputError("attackers", "needs at least one attacking force.")
    return combats.Attack(
        attackers=tuple(attackers),
        defender=force_from_dict(data.get("defender"), "defender"),
        terrain=_terrain(data),
        terrain_rule=combats.TerrainRule(
            get_choice(data, "terrain_rule", [r.value for r in combats.TerrainRule],
                       default=combats.TerrainRule.REDUCE_EFFECTS.value)
        ),
        terrain_value=get_optional_int(data, "terrain_value", minimum=0),
        retreat_room=get_optional_int(data, "retreat_room", minimum=0),
        casualties_to=_member(data),
        effect_rolls=(
            _pairs(data["effect_rolls"], "effect_rolls")
            if data.get("effect_rolls") is not None
            else None
        ),
    )


def attack(data: JSONObject) -> dict[str, object]:
    """Every attack on one hex this turn, with given dice ("rolls") or dice from "seed"."""
    fight = attack_from_dict(data)
    seed = _seed(data)
    all_given = fight.effect_rolls is not None and all(
        a.rolls is not None for a in fight.attackers
    )
    used_seed = seed if seed is not None else (None if all_given else dice.new_seed())
    source: dice.Dice = (
        dice.SeededDice(seed=used_seed) if used_seed is not None else dice.FixedDice([])
    )
    try:
        result = combats.resolve_attack(fight, dice=source)
    except combats.CombatError as exc:
        raise InputError(exc.field, exc.message) from None
    return _with_seed(result.to_dict(), used_seed, source)


EFFECTS_FIELDS = (
    "defender", "effects", "rolls", "terrain", "terrain_rule", "terrain_value",
    "retreat_room", "casualties_to",
)


def effects(data: JSONObject) -> dict[str, object]:
    """A hex's effects for a turn, by name or as [Fate die, effect die] pairs, applied."""
    only_fields(data, EFFECTS_FIELDS, "")
    defender = force_from_dict(data.get("defender"), "defender")
    if ("effects" in data) == ("rolls" in data):
        raise InputError("effects", "give either effects (names) or rolls (dice pairs).")
    drawn: list[DrawnEffect] = []
    if "effects" in data:
        known = [e.value for e in Effect]
        for i, name in enumerate(_strings(data, "effects")):
            if name not in known:
                raise InputError(child("effects", i), f"must be one of {', '.join(known)}.")
            drawn.append(DrawnEffect(effect=Effect(name)))
    else:
        for fate, die in _pairs(data["rolls"], "rolls"):
            drawn.append(DrawnEffect(effect=effect_for(fate=fate, die=die), fate=fate, die=die))
    terrain = _terrain(data)
    rule = combats.TerrainRule(
        get_choice(data, "terrain_rule", [r.value for r in combats.TerrainRule],
                   default=combats.TerrainRule.REDUCE_EFFECTS.value)
    )
    value = get_optional_int(data, "terrain_value", minimum=0)
    shrug = 0
    if rule is combats.TerrainRule.SHRUG:
        shrug = value if value is not None else EFFECT_REDUCTION[terrain]
    member = _member(data)
    if member is not None and member.value not in [m.value for m in _present(defender)]:
        raise InputError("casualties_to", f"the defender has no {member.value}.")
    outcome = apply_effects(
        defender,
        drawn,
        retreat_room=get_optional_int(data, "retreat_room", minimum=0),
        terrain_shrug=shrug,
        casualties_to=member,
    )
    return outcome.to_dict()


def _present(force: Force) -> list[Member]:
    return [
        m
        for m, here in (
            (Member.UNIT, force.unit is not None),
            (Member.LEADER, force.leader),
            (Member.HERO, force.hero),
        )
        if here
    ]


# ---------------------------------------------------------------------------
# Movement


def move(data: JSONObject) -> dict[str, object]:
    """{"force", "plan": ["move", "attack", …]} → the allowance and the rules the plan breaks."""
    only_fields(data, {"force", "plan"}, "")
    force = force_from_dict(data.get("force"), "force")
    plan = _strings(data, "plan")
    for i, step in enumerate(plan):
        if step not in ("move", "attack"):
            raise InputError(child("plan", i), "must be 'move' (one hex) or 'attack'.")
    errors = check_plan(force, plan)
    return {
        "allowance": move_allowance(force, attacking="attack" in plan),
        "moves": plan.count("move"),
        "attacks": plan.count("attack"),
        "valid": not errors,
        "errors": errors,
    }


def _label(obj: JSONObject, name: str, path: str = "") -> hexgrid.Hex:
    try:
        return hexgrid.parse_label(get_str(obj, name, path))
    except hexgrid.HexLabelError as exc:
        raise InputError(child(path, name), str(exc)) from None


def board_from_dict(raw: object) -> Board:
    """{"cols", "rows", "terrain": {"B2": "village"}, "forces": {"C3": {"side", …force}}}."""
    obj = as_object(raw, "map")
    only_fields(obj, {"cols", "rows", "terrain", "forces"}, "map")
    grid = hexgrid.Grid(
        cols=get_int(obj, "cols", "map", minimum=1, maximum=702),
        rows=get_int(obj, "rows", "map", minimum=1, maximum=10_000),
    )
    terrain: dict[hexgrid.Hex, Terrain] = {}
    raw_terrain = as_object(obj.get("terrain") or {}, "map.terrain")
    for label in raw_terrain:
        path = child("map.terrain", label)
        h = _on_map(grid, label, path)
        terrain[h] = Terrain(get_choice(raw_terrain, label, [t.value for t in Terrain],
                                        "map.terrain"))
    occupants: dict[hexgrid.Hex, Occupant] = {}
    raw_forces = as_object(obj.get("forces") or {}, "map.forces")
    for label, value in raw_forces.items():
        path = child("map.forces", label)
        h = _on_map(grid, label, path)
        side = get_str(as_object(value, path), "side", path)
        occupants[h] = Occupant(side=side, force=force_from_dict(value, path, extra=("side",)))
    return Board(grid=grid, terrain=terrain, occupants=occupants)


def _on_map(grid: hexgrid.Grid, label: str, path: str) -> hexgrid.Hex:
    try:
        h = hexgrid.parse_label(label)
    except hexgrid.HexLabelError as exc:
        raise InputError(path, str(exc)) from None
    if not grid.contains(h):
        raise InputError(path, f"{label} is not on the {grid.cols} × {grid.rows} map.")
    return h


def _start_and_board(data: JSONObject, goal: str) -> tuple[Board, Force, str, hexgrid.Hex,
                                                             hexgrid.Hex]:
    board = board_from_dict(data.get("map"))
    force = force_from_dict(data.get("force"), "force")
    side = get_str(data, "side")
    start, end = _label(data, "from"), _label(data, goal)
    for name, h in (("from", start), (goal, end)):
        if not board.grid.contains(h):
            raise InputError(name, f"{hexgrid.format_label(h)} is not on the map.")
    if start in board.occupants:
        raise InputError("from", "list the moving force in force, not in map.forces.")
    return board, force, side, start, end


def path(data: JSONObject) -> dict[str, object]:
    """{"map", "force", "side", "from", "to", "attacking"} → the shortest legal move."""
    only_fields(data, {"map", "force", "side", "from", "to", "attacking"}, "")
    board, force, side, start, goal = _start_and_board(data, "to")
    attacking = get_bool(data, "attacking", default=True)
    allowance = move_allowance(force, attacking=attacking)
    found = move_path(force, board, start=start, goal=goal, side=side, attacking=attacking)
    if found is None:
        return {"reachable": False, "allowance": allowance, "cost": None, "path": []}
    return {
        "reachable": True,
        "allowance": allowance,
        "cost": found.cost,
        "path": labels(found.hexes),
    }


def retreat(data: JSONObject) -> dict[str, object]:
    """{"map", "force", "side", "from", "entry", "hexes"} → the retreat path and its room."""
    only_fields(data, {"map", "force", "side", "from", "entry", "hexes"}, "")
    board, force, side, start, entry = _start_and_board(data, "entry")
    hexes = get_int(data, "hexes", minimum=0, maximum=100)
    route = retreat_path(force, board, start=start, entry=entry, side=side, hexes=hexes)
    room = len(route) - 1
    return {
        "path": labels(route),
        "room": room,
        "casualties_instead": hexes - room,
    }


def activation(data: JSONObject) -> dict[str, object]:
    """{"players", "rolls" or "seed"} → the activation cards in the order they are drawn."""
    only_fields(data, {"players", "rolls", "seed"}, "")
    players = _strings(data, "players")
    seed = _seed(data)
    if seed is not None and data.get("rolls") is not None:
        raise InputError("rolls", "give rolls or a seed, not both.")
    if data.get("rolls") is not None:
        values = get_list(data, "rolls")
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, int):
                raise InputError(child("rolls", i), "must be a whole number.")
        fixed = dice.FixedDice([v for v in values if isinstance(v, int)])
        try:
            result = activations.activation_order(players, dice=fixed).to_dict()
        except dice.DiceError as exc:
            raise InputError("rolls", str(exc)) from None
        if fixed.remaining:
            raise InputError("rolls", f"{fixed.remaining} more value(s) given than needed.")
        return result
    used = seed if seed is not None else dice.new_seed()
    source = dice.SeededDice(seed=used)
    return _with_seed(activations.activation_order(players, dice=source).to_dict(), used, source)


CALCULATORS: dict[str, Calculator] = {
    "unit": unit,
    "attack": attack,
    "effects": effects,
    "move": move,
    "path": path,
    "retreat": retreat,
    "activation": activation,
}
