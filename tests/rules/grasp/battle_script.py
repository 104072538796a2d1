"""A scripted pair of GRASP armies for whole-battle tests.

Command: each unit that can move and has no marker gets one on the nearest enemy, in id order,
while the side's pips last (one pip is kept back for close combat). Fire: every unit that can
shoot an enemy fires at the nearest. Close combat: every unit in contact fights the first enemy
next to it (by id), with its side's reserved pip when a command unit stands next to it."""

from __future__ import annotations

from rules.grasp.battle import (
    GraspBattle,
    GraspOrder,
    _can_shoot,
    _command_cost,
    _nearer,
    acting_sides,
)

FOOT = {"cc": "d6", "fatigue": "d6", "move": 3}
ARCHERS = {"cc": "d4", "fs": "d6", "fire_range": 6, "move": 3, "fatigue": "d6"}
KNIGHTS = {"cc": ">2d6", "fatigue": "d8", "move": "d8", "specials": ["big"]}
GENERAL = {"cc": "d6", "fatigue": "d6", "move": 4, "pips": "d6", "command_range": 8}
WAGON = {"cc": "d4", "fatigue": "d10", "move": 2, "specials": ["supply"]}
SCOUTS = {"cc": "d4", "fatigue": "d4", "move": 6, "specials": ["scout", "small"]}

SCENARIO: dict[str, object] = {
    "map": {"cols": 14, "rows": 9,
            "terrain": {"G4": "light", "G5": "light", "H6": "difficult", "F2": "impassable"}},
    "sides": [
        {"name": "West", "edge": "W", "units": [
            {"id": "w-general", "at": "B5", "facing": "SE", "type": GENERAL},
            {"id": "w-foot-1", "at": "C4", "facing": "SE", "type": FOOT},
            {"id": "w-foot-2", "at": "C5", "facing": "SE", "type": FOOT},
            {"id": "w-archers", "at": "C6", "facing": "SE", "type": ARCHERS},
            {"id": "w-knights", "at": "C8", "facing": "SE", "type": KNIGHTS},
            {"id": "w-wagon", "at": "A5", "facing": "SE", "type": WAGON},
        ]},
        {"name": "East", "edge": "E", "units": [
            {"id": "e-general", "at": "M5", "facing": "NW", "type": GENERAL},
            {"id": "e-foot-1", "at": "L4", "facing": "NW", "type": FOOT},
            {"id": "e-foot-2", "at": "L5", "facing": "NW", "type": FOOT},
            {"id": "e-archers", "at": "L6", "facing": "NW", "type": ARCHERS},
            {"id": "e-scouts", "at": "L2", "facing": "NW", "type": SCOUTS},
            {"id": "e-wagon", "at": "N5", "facing": "NW", "type": WAGON},
        ]},
    ],
}


# The same armies on the continuous board, 14 × 9 MU (positions in MU, facings as vectors).
CONTINUOUS: dict[str, object] = {
    "map": {"width": 14, "height": 9, "terrain": [
        {"going": "light", "polygon": [[6, 3], [8, 3], [8, 5], [6, 5]]},
        {"going": "difficult", "polygon": [[7, 1], [9, 1], [9, 2], [7, 2]]},
        {"going": "impassable", "polygon": [[5, 7], [6, 7], [6, 8], [5, 8]]}]},
    "sides": [
        {"name": "West", "edge": "W", "units": [
            {"id": "w-general", "at": [2, 4], "facing": [1, 0], "type": GENERAL},
            {"id": "w-foot-1", "at": [3, 5], "facing": [1, 0], "type": FOOT},
            {"id": "w-foot-2", "at": [3, 4], "facing": [1, 0], "type": FOOT},
            {"id": "w-archers", "at": [3, 3], "facing": [1, 0], "type": ARCHERS},
            {"id": "w-knights", "at": [3, 1], "facing": [1, 0], "type": KNIGHTS},
            {"id": "w-wagon", "at": [1, 4], "facing": [1, 0], "type": WAGON},
        ]},
        {"name": "East", "edge": "E", "units": [
            {"id": "e-general", "at": [12, 4], "facing": [-1, 0], "type": GENERAL},
            {"id": "e-foot-1", "at": [11, 5], "facing": [-1, 0], "type": FOOT},
            {"id": "e-foot-2", "at": [11, 4], "facing": [-1, 0], "type": FOOT},
            {"id": "e-archers", "at": [11, 3], "facing": [-1, 0], "type": ARCHERS},
            {"id": "e-scouts", "at": [11, 7], "facing": [-1, 0], "type": SCOUTS},
            {"id": "e-wagon", "at": [13, 4], "facing": [-1, 0], "type": WAGON},
        ]},
    ],
}


def _nearest_enemy(state: GraspBattle, unit_id: str) -> str:
    unit = state.unit(unit_id)
    foes = [u for u in state.units if u.side != unit.side]
    return min(foes, key=lambda u: (_nearer(state, unit, u), u.id)).id


def orders_for(state: GraspBattle) -> list[GraspOrder]:
    """The side's next order (fire and close combat one at a time: a shot may remove the next
    unit's target), or done."""
    side = acting_sides(state)[0]
    own = sorted((u for u in state.units if u.side == side and not u.fleeing),
                 key=lambda u: u.id)
    done = [GraspOrder(side=side, kind="done")]
    if state.step == "command":
        orders: list[GraspOrder] = []
        pips = state.side(side).pips
        for u in own:
            if u.type.move is None or u.marker is not None:
                continue
            cost, _ = _command_cost(state, u)
            if pips - cost < 1:
                break
            target = state.unit(_nearest_enemy(state, u.id))
            orders.append(GraspOrder(side=side, kind="marker", unit=u.id, to=target.pos))
            pips -= cost
        return orders + done
    for u in own:
        if u.id in state.acted:
            continue
        foes = sorted((f for f in state.units if f.side != side),
                      key=lambda f: (_nearer(state, u, f), f.id))
        if state.step == "fire":
            target = next((f for f in foes if _can_shoot(state, u, f.pos)[0]), None)
            if target is not None:
                return [GraspOrder(side=side, kind="fire", unit=u.id, target=target.id)]
            continue
        near = [f for f in foes if state.field.in_contact(f.pos, u.pos)]
        if u.attributes.cc is None or not near:
            continue
        pip = state.side(side).reserved > 0 and any(
            c.is_command and state.field.in_contact(c.pos, u.pos) for c in own if c.id != u.id)
        return [GraspOrder(side=side, kind="fight", unit=u.id,
                           target=min(near, key=lambda f: f.id).id, command_pip=pip)]
    return done
