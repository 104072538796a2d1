"""A scripted pair of ELF ABAS sides for whole-battle tests.

On its card a side goes through its forces in id order: a force with an enemy next to it
attacks the first of them (by id); a Missile Unit with an enemy it can see within its dice
fires at the nearest; a Spent force walks to its side's camp and waits there to refit; a
force with 2 Fatigue or more rests; every other force steps toward the nearest enemy (the
shortest free steps first) and attacks if it ends next to one. The defender always leaves
the Casualties to the default choice; the attacker follows every retreat it can with its
first Unit able to."""

from __future__ import annotations

from dataclasses import replace

from rules.elf_abas.battle import (
    BattleForce,
    ElfBattle,
    ElfOrder,
    Target,
    acting_sides,
    line_of_sight,
)
from rules.elf_abas.battle import _pursuers as pursuers
from rules.elf_abas.movement import movement_cost
from rules.elf_abas.units import Kind, attack_dice, move_allowance
from rules.hexgrid import Hex, distance, format_label, neighbors

SCENARIO: dict[str, object] = {
    "map": {"cols": 9, "rows": 7,
            "terrain": {"E4": "village", "D2": "woods", "E6": "dense_forest", "F3": "hills",
                        "E1": "deep_water", "C5": "rocky"}},
    "sides": [
        {"name": "Epping", "entry": "A4", "supplies": ["A5"], "forces": [
            {"id": "ep-foot", "unit": "foot", "hex": "C4", "leader": True},
            {"id": "ep-archers", "unit": "missile", "hex": "B3"},
            {"id": "ep-horse", "unit": "mounted", "hex": "C2"},
            {"id": "ep-scouts", "unit": "scout", "hex": "B6"},
            {"id": "ep-hero", "hero": True, "hex": "B4"},
        ]},
        {"name": "Fremont", "entry": "I4", "supplies": ["I3"], "forces": [
            {"id": "fr-foot", "unit": "foot", "hex": "G4", "hero": True},
            {"id": "fr-pikes", "unit": "foot", "hex": "G3"},
            {"id": "fr-bows", "unit": "missile", "hex": "H4"},
            {"id": "fr-riders", "unit": "mounted", "hex": "G6"},
            {"id": "fr-reserve", "unit": "foot", "figures": 4},
        ]},
    ],
}


def _enemies(state: ElfBattle, side: str) -> list[BattleForce]:
    return sorted((f for f in state.forces if f.side != side and f.hex is not None),
                  key=lambda f: f.id)


def _with(state: ElfBattle, unit: BattleForce) -> ElfBattle:
    return replace(state, forces=tuple(unit if f.id == unit.id else f for f in state.forces))


def _adjacent_foe(state: ElfBattle, unit: BattleForce) -> BattleForce | None:
    """The first enemy next to the force, when the force has dice against it."""
    assert unit.hex is not None
    near = [e for e in _enemies(state, unit.side) if e.hex and distance(e.hex, unit.hex) == 1]
    return near[0] if near and attack_dice(unit.force).total else None


def _shot(state: ElfBattle, unit: BattleForce) -> BattleForce | None:
    assert unit.hex is not None
    best = None
    for e in _enemies(state, unit.side):
        assert e.hex is not None
        gap = distance(unit.hex, e.hex)
        if gap < 2:
            continue
        sight, _ = line_of_sight(state, unit, e)
        if sight == "blocked":
            continue
        dice = attack_dice(unit.force, hexes=gap, partial_sight=sight == "partial").total
        if dice and (best is None or gap < best[0]):
            best = (gap, e)
    return best[1] if best else None


def _walk(state: ElfBattle, unit: BattleForce, goal: Hex, steps: int) -> list[Hex]:
    taken = {f.hex for f in state.forces if f.hex is not None}
    board = state.board(without=unit.id)
    here = unit.hex if unit.hex is not None else state.side(unit.side).entry
    path: list[Hex] = [] if unit.hex is not None else [here]
    if unit.hex is None and here in taken:
        return []
    for _ in range(steps - len(path)):
        options = [n for n in neighbors(here).values()
                   if n not in taken and n not in path and distance(n, goal) < distance(here, goal)
                   and movement_cost(unit.force, here, n, board, side=unit.side) is not None]
        if not options:
            break
        here = min(options, key=lambda n: (distance(n, goal), format_label(n)))
        path.append(here)
    return path


def activation_orders(state: ElfBattle) -> list[ElfOrder]:
    side = acting_sides(state)[0]
    orders: list[ElfOrder] = []
    for unit in sorted((f for f in state.forces if f.side == side), key=lambda f: f.id):
        unit = next(f for f in state.forces if f.id == unit.id)
        if unit.force.spent:
            camp = state.side(side).supplies[0]
            if unit.hex is not None and distance(unit.hex, camp) > 1:
                path = _walk(state, unit, camp, move_allowance(unit.force))
                if path:
                    orders.append(ElfOrder(side=side, kind="move", force=unit.id,
                                           path=tuple(path)))
                    state = _with(state, replace(unit, hex=path[-1]))
            continue
        if unit.force.fatigue >= 2:
            continue
        if unit.hex is not None:
            foe = _adjacent_foe(state, unit)
            if foe is None and unit.force.unit is Kind.MISSILE:
                foe = _shot(state, unit)
            if foe is not None:
                orders.append(ElfOrder(side=side, kind="attack", force=unit.id,
                                       targets=(Target(force=foe.id),)))
                continue
        enemies = _enemies(state, side)
        if not enemies:
            continue
        start = unit.hex if unit.hex is not None else state.side(side).entry
        goal = min(enemies, key=lambda e: (distance(e.hex, start), e.id)).hex  # type: ignore
        assert goal is not None
        path = _walk(state, unit, goal, move_allowance(unit.force, attacking=True))
        if not path:
            continue
        orders.append(ElfOrder(side=side, kind="move", force=unit.id, path=tuple(path)))
        unit = replace(unit, hex=path[-1])
        state = _with(state, unit)
        foe = _adjacent_foe(state, unit)
        if foe is not None and unit.force.unit is not None:
            orders.append(ElfOrder(side=side, kind="attack", force=unit.id,
                                   targets=(Target(force=foe.id),)))
    return [*orders, ElfOrder(side=side, kind="end")]


def orders_for(state: ElfBattle) -> list[ElfOrder]:
    side = acting_sides(state)[0]
    if state.step == "allocate":
        return [ElfOrder(side=side, kind="allocate")]
    if state.step == "pursuit":
        options = pursuers(state, state.follows[0])
        if not options:
            return [ElfOrder(side=side, kind="follow")]
        unit, into = options[0]
        return [ElfOrder(side=side, kind="follow", force=unit.id, into=into)]
    return activation_orders(state)
