"""A scripted pair of Ancient Foes 2 armies for whole-battle tests.

In its command step a player goes through its leaders in band order: a leader with no band
of his within command range steps toward the nearest; then he gives up to two orders, each
to the first band in his range (band order) that has something to do: fight a band in
contact, fire at a band in front, turn to face the nearest enemy, or move ahead toward it.
By initiative a band fights or fires at the first band it may, a leader in contact flees,
and a band with gaps closes them around its largest group."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from rules.ancient_foes.battle import (
    AfBand,
    AfBattle,
    AfOrder,
    _cm_key,
    _decide,
    _go,
    _targets,
    in_front,
)
from rules.ancient_foes.battlefield import COMMAND_RANGE_CM, BandUnit, Cm, in_fighting_range
from rules.ancient_foes.units import derive_stats
from rules.hexgrid import Hex, distance, facing_towards, format_label, hex_range, neighbors
from rules.plane import Point

SCENARIO: dict[str, object] = {
    "map": {"cols": 22, "rows": 10,
            "terrain": {"K5": "woods", "K6": "woods", "L4": "hill", "J8": "swamp",
                        "F2": "road", "G2": "road", "H2": "road"}},
    "sides": [
        {"name": "Rome", "bands": [
            {"name": "consul", "facing": "SE",
             "units": [{"name": "consul", "code": "H-Sw-Ho-Leader", "at": "B5"}]},
            {"name": "legion", "facing": "SE", "units": [
                {"name": "hastati", "code": "H-Sw-Fo", "at": "C4"},
                {"name": "principes", "code": "H-Sw-Fo", "at": "C5"},
                {"name": "triarii", "code": "H-Sp-Fo-Ex", "at": "C6"}]},
            {"name": "velites", "facing": "SE", "units": [
                {"name": "velites-1", "code": "L-Ja-Fo", "at": "C1"},
                {"name": "velites-2", "code": "L-Ja-Fo", "at": "C2"}]},
            {"name": "equites", "facing": "SE", "units": [
                {"name": "equites-1", "code": "M-Sp-Ho", "at": "C8"},
                {"name": "equites-2", "code": "M-Sp-Ho", "at": "C9"}]},
        ]},
        {"name": "Carthage", "bands": [
            {"name": "hannibal", "facing": "NW",
             "units": [{"name": "hannibal", "code": "M-Sw-Ho-Leader", "at": "U5"}]},
            {"name": "libyans", "facing": "NW", "units": [
                {"name": "libyans-1", "code": "M-Sp-Fo", "at": "T4"},
                {"name": "libyans-2", "code": "M-Sp-Fo", "at": "T5"},
                {"name": "libyans-3", "code": "M-Sp-Fo", "at": "T6"}]},
            {"name": "slingers", "facing": "NW", "units": [
                {"name": "balearics-1", "code": "L-Sl-Fo-Ex", "at": "S1"},
                {"name": "balearics-2", "code": "L-Sl-Fo-Ex", "at": "S2"}]},
            {"name": "elephants", "facing": "NW", "units": [
                {"name": "elephant", "code": "M-Ja-El", "at": "T8"}]},
        ]},
    ],
}



def _enemies(state: AfBattle, side: str) -> list[AfBand]:
    return [b for b in state.bands if b.side != side]


def _gap(state: AfBattle, a: AfBand, b: AfBand) -> Cm:
    return min((state.table.gap(u.hex, v.hex) for u in a.units for v in b.units), key=_cm_key)


def _nearest(state: AfBattle, band: AfBand) -> AfBand:
    return min(_enemies(state, band.side),
               key=lambda e: (_cm_key(_gap(state, band, e)), e.name))


def _u(u: Any) -> BandUnit:  # a unit as battlefield helpers want it
    return BandUnit(name=u.name, unit_type=u.type, hex=u.hex)


def _ahead_hex(state: AfBattle, band: AfBand, aim: Hex) -> Hex | None:
    """Of the hexes ahead, the one the band gets nearest the enemy by heading for it."""
    lead = band.units[0].hex
    assert isinstance(lead, Hex)
    best = None
    for h in sorted(hex_range(lead, 8), key=lambda h: (distance(h, aim), format_label(h))
                    if state.table.contains(h) else (99, "")):
        if h == lead or not state.table.contains(h) \
                or not state.table.in_arc(band.facing, lead, h):
            continue
        moved, _ = _go(state, band, h)
        score = (min(distance(u.hex, aim) for u in moved.units), distance(h, aim))  # type: ignore[arg-type]
        if moved.units[0].hex != lead and (best is None or score < best[0]):
            best = (score, h)
    return best[1] if best else None


def _task(state: AfBattle, band: AfBand) -> AfOrder | None:
    """What the band should be ordered to do now, or None."""
    foe = _nearest(state, band)
    side = band.side
    if in_fighting_range([_u(u) for u in band.units], [_u(u) for u in foe.units],
                         state.battlefield()):
        return AfOrder(side=side, kind="order", band=band.name, order="fight", target=foe.name)
    if band.is_leader:
        return None
    reach = max((derive_stats(u.type).range or 0) for u in band.units)
    if reach and in_front(state, band, foe) and _gap(state, band, foe) <= reach:
        return AfOrder(side=side, kind="order", band=band.name, order="fire", target=foe.name)
    lead = band.units[0].hex
    aim = min(foe.units, key=lambda u: _cm_key(state.table.gap(u.hex, lead))).hex
    if not state.table.in_arc(band.facing, lead, aim):
        if band.name in state.turned:
            return None
        if isinstance(lead, Hex) and isinstance(aim, Hex):
            facing: object = facing_towards(lead, aim)
            if facing == band.facing:
                return None
        else:
            assert isinstance(lead, Point) and isinstance(aim, Point)
            facing = aim - lead
        return AfOrder(side=side, kind="order", band=band.name, order="turn", facing=facing)
    to: object = _ahead_hex(state, band, aim) if isinstance(aim, Hex) else aim
    if to is None or (isinstance(to, Point) and _go(state, band, to)[0] == band):
        return None
    return AfOrder(side=side, kind="order", band=band.name, order="move", to=to)


def _leader_step(state: AfBattle, leader: AfBand, target: AfBand) -> object:
    """Where the leader goes to bring a band of his into command range (None: nowhere)."""
    here = leader.units[0].hex
    if isinstance(here, Point):
        goal = min((u.hex for u in target.units), key=lambda p: _cm_key(state.table.gap(p, here)))
        moved, _ = _go(state, leader, goal)
        return None if moved == leader else moved.units[0].hex
    goal_hex = min((u.hex for u in target.units), key=lambda h: distance(h, here))  # type: ignore[arg-type]
    assert isinstance(goal_hex, Hex)
    steps = [n for n in neighbors(goal_hex).values()
             if state.table.contains(n) and not any(
                 u.hex == n for b in state.bands for u in b.units)]
    if not steps:
        return None
    dest = min(steps, key=lambda n: (distance(n, here), format_label(n)))
    reach = state.field_band(leader).speed // state.settings.cm_per_hex
    return dest if distance(here, dest) <= reach else None


def command_orders(state: AfBattle) -> list[AfOrder]:
    side = state.active
    for leader in [b for b in state.bands if b.side == side and b.is_leader]:
        given = dict(state.orders_given).get(leader.name, 0)
        own = [b for b in state.bands if b.side == side and not b.is_leader]
        in_range = [b for b in own if _gap(state, leader, b) <= COMMAND_RANGE_CM]
        if (not in_range and own and not given and leader.name not in state.leaders_moved):
            target = min(own, key=lambda b: (_cm_key(_gap(state, leader, b)), b.name))
            dest = _leader_step(state, leader, target)
            if dest is not None:
                return [AfOrder(side=side, kind="move_leader", leader=leader.name, to=dest)]
        if given >= 2:
            continue
        for band in [leader, *in_range]:
            task = _task(state, band)
            if task is None or (band.name, task.order) in _done(state):
                continue
            return [replace(task, leader=leader.name)]
    return [AfOrder(side=side, kind="done")]


def _done(state: AfBattle) -> set[tuple[str, str]]:
    """Orders already carried out this turn that the script does not give twice."""
    out = {(b, "move") for b in state.moved} | {(b, "turn") for b in state.turned}
    return out | {(b, "fire") for b in state.acted} | {(b, "fight") for b in state.acted}


def _close(state: AfBattle, band: AfBand) -> tuple[tuple[str, object], ...]:
    """A formation that closes the band's gaps around its largest group."""
    table = state.table
    groups: list[list[Any]] = []
    for u in band.units:
        joined = [g for g in groups if any(table.adjacent(u.hex, p) for p in g)]
        merged = [u.hex, *(p for g in joined for p in g)]
        groups = [g for g in groups if g not in joined] + [merged]
    core = max(groups, key=len)
    placed = list(core)
    others = [u.hex for b in state.bands if b.name != band.name for u in b.units]
    out: list[tuple[str, object]] = []
    for u in [u for u in band.units if u.hex not in core]:
        free = [n for p in placed for n in _around(state, p)
                if table.contains(n) and not any(table.overlap(n, o) for o in others + placed)]
        dest = min(free, key=lambda n: (_cm_key(table.travel(n, u.hex)), str(n)))
        placed.append(dest)
        out.append((u.name, dest))
    return tuple(out)


def _around(state: AfBattle, p: Any) -> list[Any]:
    """The places right next to p: its neighbouring hexes, or bases touching it."""
    if isinstance(p, Hex):
        return list(neighbors(p).values())
    base = state.settings.base_cm
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (Fraction(3, 5), Fraction(4, 5)),
             (Fraction(-3, 5), Fraction(4, 5)), (Fraction(3, 5), Fraction(-4, 5)),
             (Fraction(-3, 5), Fraction(-4, 5))]
    return [Point(p.x + dx * base, p.y + dy * base) for dx, dy in steps]


def initiative_orders(state: AfBattle) -> list[AfOrder]:
    band = state.band(state.queue[0])
    decision = _decide(state, band)
    kinds = {a.kind for a in decision.actions}
    targets = _targets(state, band, decision)
    return [AfOrder(side=state.active, kind="initiative", band=band.name,
                    target=targets[0] if targets else "",
                    flee=band.is_leader and "fight" in kinds,
                    formation=_close(state, band) if "change_formation" in kinds else ())]


def orders_for(state: AfBattle) -> list[AfOrder]:
    if state.step == "initiative":
        return initiative_orders(state)
    return command_orders(state)


# The same armies on a continuous table, 88 × 40 cm (2 cm a hex in the hex scenario), bases
# 4 cm across, facings as vectors (east is [1, 0]).
def _u2(name: str, code: str, x: int, y: int) -> dict[str, object]:
    return {"name": name, "code": code, "at": [x, y]}


CONTINUOUS: dict[str, object] = {
    "map": {"width": 88, "height": 40, "terrain": [
        {"terrain": "woods", "polygon": [[40, 14], [46, 14], [46, 24], [40, 24]]},
        {"terrain": "hill", "polygon": [[46, 24], [52, 24], [52, 30], [46, 30]]},
        {"terrain": "swamp", "polygon": [[34, 4], [40, 4], [40, 10], [34, 10]]}]},
    "sides": [
        {"name": "Rome", "bands": [
            {"name": "consul", "facing": [1, 0],
             "units": [_u2("consul", "H-Sw-Ho-Leader", 4, 20)]},
            {"name": "legion", "facing": [1, 0], "units": [
                _u2("hastati", "H-Sw-Fo", 10, 16), _u2("principes", "H-Sw-Fo", 10, 20),
                _u2("triarii", "H-Sp-Fo-Ex", 10, 24)]},
            {"name": "velites", "facing": [1, 0], "units": [
                _u2("velites-1", "L-Ja-Fo", 10, 34), _u2("velites-2", "L-Ja-Fo", 14, 34)]},
            {"name": "equites", "facing": [1, 0], "units": [
                _u2("equites-1", "M-Sp-Ho", 10, 6), _u2("equites-2", "M-Sp-Ho", 14, 6)]},
        ]},
        {"name": "Carthage", "bands": [
            {"name": "hannibal", "facing": [-1, 0],
             "units": [_u2("hannibal", "M-Sw-Ho-Leader", 84, 20)]},
            {"name": "libyans", "facing": [-1, 0], "units": [
                _u2("libyans-1", "M-Sp-Fo", 76, 16), _u2("libyans-2", "M-Sp-Fo", 76, 20),
                _u2("libyans-3", "M-Sp-Fo", 76, 24)]},
            {"name": "slingers", "facing": [-1, 0], "units": [
                _u2("balearics-1", "L-Sl-Fo-Ex", 74, 34), _u2("balearics-2", "L-Sl-Fo-Ex",
                                                             78, 34)]},
            {"name": "elephants", "facing": [-1, 0], "units": [
                _u2("elephant", "M-Ja-El", 76, 6)]},
        ]},
    ],
}
