"""A scripted pair of QUAD sides for whole-battle tests: each side draws every turn, never
steals, plays the first unit card in hand and with it attacks an enemy in reach or moves
toward the nearest enemy (the shortest free step first; a Charger whose move ends next to an
enemy charges it); with no unit card it releases."""

from __future__ import annotations

from rules.hexgrid import Hex, distance, format_label, neighbors
from rules.quad.battle import QuadBattle, QuadOrder, acting_sides
from rules.quad.deck import CardKind
from rules.quad.units import Special

SCENARIO: dict[str, object] = {
    "map": {"cols": 8, "rows": 6,
            "terrain": {"D3": "forest", "E4": "slope", "E3": "slope", "C5": "river",
                        "F2": "fortified"}},
    "sides": [
        {"name": "red", "leader_level": 1, "units": [
            {"id": "red-horse", "hex": "A2",
             "type": {"name": "Horse", "quality": 3, "speed": 3, "attack": 3, "defense": 1,
                      "specials": ["charger"]}},
            {"id": "red-foot", "hex": "A3",
             "type": {"name": "Foot", "quality": 4, "speed": 1, "attack": 2, "defense": 3,
                      "specials": ["steady", "support"]}},
            {"id": "red-bows", "hex": "A4",
             "type": {"name": "Bows", "quality": 3, "speed": 1, "attack": 1, "defense": 1,
                      "ranged": "2/2"}},
        ]},
        {"name": "blue", "leader_level": 0, "policy": {"strike_back": "others_first"},
         "units": [
            {"id": "blue-guard", "hex": "H3",
             "type": {"name": "Guard", "quality": 5, "speed": 1, "attack": 3, "defense": 3,
                      "specials": ["elite"]}},
            {"id": "blue-levy", "hex": "H4",
             "type": {"name": "Levy", "quality": 2, "speed": 2, "attack": 2, "defense": 1,
                      "specials": ["green", "forester"]}},
            {"id": "blue-scouts", "hex": "H2",
             "type": {"name": "Scouts", "quality": 3, "speed": 2, "attack": 1, "defense": 1,
                      "specials": ["amphibious"]}},
        ]},
    ],
}


def _reach(unit_hex: Hex, state: QuadBattle, unit_id: str, ranged: int) -> list[str]:
    return [u.id for u in state.units if u.side != state.unit(unit_id).side
            and distance(u.hex, unit_hex) <= max(1, ranged)]


def orders_for(state: QuadBattle) -> list[QuadOrder]:
    side = acting_sides(state)[0]
    if state.step == "draw":
        return [QuadOrder(side=side, kind="draw", take=True)]
    if state.step == "steal":
        return [QuadOrder(side=side, kind="pass")]
    hand = state.cards.cards_of(side).hand
    card = next((c for c in hand if c.kind is CardKind.UNIT), None)
    if card is None:
        return [QuadOrder(side=side, kind="release")]
    unit = state.unit(card.unit)
    ranged = unit.type.ranged.range if unit.type.ranged else 1
    targets = _reach(unit.hex, state, unit.id, ranged)
    if targets:
        return [QuadOrder(side=side, kind="play", unit=unit.id, action="attack",
                          target=targets[0])]
    enemies = [u for u in state.units if u.side != side]
    goal = min(enemies, key=lambda e: (distance(e.hex, unit.hex), e.id)).hex
    taken = {u.hex for u in state.units}
    path: list[Hex] = []
    here = unit.hex
    for _ in range(unit.type.speed):
        steps = [n for n in neighbors(here).values()
                 if state.grid.contains(n) and n not in taken and n not in path
                 and distance(n, goal) < distance(here, goal)]
        if not steps:
            break
        here = min(steps, key=lambda n: (distance(n, goal), format_label(n)))
        path.append(here)
    if not path:
        return [QuadOrder(side=side, kind="play", unit=unit.id, action="hold")]
    if unit.type.has(Special.CHARGER):
        # A Charger whose move ends next to an enemy charges it.
        near = [e for e in enemies if distance(e.hex, path[-1]) == 1]
        if near:
            return [QuadOrder(side=side, kind="play", unit=unit.id, action="charge",
                              path=tuple(path), target=min(near, key=lambda e: e.id).id)]
    return [QuadOrder(side=side, kind="play", unit=unit.id, action="move", path=tuple(path))]
