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
    acting_sides,
)
from rules.hexgrid import distance

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
            {"id": "w-general", "hex": "B5", "facing": "SE", "type": GENERAL},
            {"id": "w-foot-1", "hex": "C4", "facing": "SE", "type": FOOT},
            {"id": "w-foot-2", "hex": "C5", "facing": "SE", "type": FOOT},
            {"id": "w-archers", "hex": "C6", "facing": "SE", "type": ARCHERS},
            {"id": "w-knights", "hex": "C8", "facing": "SE", "type": KNIGHTS},
            {"id": "w-wagon", "hex": "A5", "facing": "SE", "type": WAGON},
        ]},
        {"name": "East", "edge": "E", "units": [
            {"id": "e-general", "hex": "M5", "facing": "NW", "type": GENERAL},
            {"id": "e-foot-1", "hex": "L4", "facing": "NW", "type": FOOT},
            {"id": "e-foot-2", "hex": "L5", "facing": "NW", "type": FOOT},
            {"id": "e-archers", "hex": "L6", "facing": "NW", "type": ARCHERS},
            {"id": "e-scouts", "hex": "L2", "facing": "NW", "type": SCOUTS},
            {"id": "e-wagon", "hex": "N5", "facing": "NW", "type": WAGON},
        ]},
    ],
}


def _nearest_enemy(state: GraspBattle, unit_id: str) -> str:
    unit = state.unit(unit_id)
    foes = [u for u in state.units if u.side != unit.side]
    return min(foes, key=lambda u: (distance(u.hex, unit.hex), u.id)).id


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
            cost = _command_cost(state, u)
            if pips - cost < 1:
                break
            target = state.unit(_nearest_enemy(state, u.id))
            orders.append(GraspOrder(side=side, kind="marker", unit=u.id, to=target.hex))
            pips -= cost
        return orders + done
    for u in own:
        if u.id in state.acted:
            continue
        foes = sorted((f for f in state.units if f.side != side),
                      key=lambda f: (distance(f.hex, u.hex), f.id))
        if state.step == "fire":
            target = next((f for f in foes if _can_shoot(state, u, f)[0]), None)
            if target is not None:
                return [GraspOrder(side=side, kind="fire", unit=u.id, target=target.id)]
            continue
        near = [f for f in foes if distance(f.hex, u.hex) == 1]
        if u.attributes.cc is None or not near:
            continue
        pip = state.side(side).reserved > 0 and any(
            c.is_command and distance(c.hex, u.hex) <= 1 for c in own if c.id != u.id)
        return [GraspOrder(side=side, kind="fight", unit=u.id,
                           target=min(near, key=lambda f: f.id).id, command_pip=pip)]
    return done
