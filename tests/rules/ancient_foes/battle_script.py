"""A scripted pair of Ancient Foes 2 armies for whole-battle tests.

In its command step a player goes through its leaders in band order: a leader with no band
of his within command range steps toward the nearest; then he gives up to two orders, each
to the first band in his range (band order) that has something to do: fight a band in
contact, fire at a band in front, turn to face the nearest enemy, or move ahead toward it.
By initiative a band fights or fires at the first band it may, a leader in contact flees,
and a band with gaps closes them around its largest group."""

from __future__ import annotations

from dataclasses import replace

from rules.ancient_foes.battle import (
    AfBand,
    AfBattle,
    AfOrder,
    _decide,
    _go,
    _targets,
    in_front,
    within_45,
)
from rules.ancient_foes.battlefield import COMMAND_RANGE_CM, in_fighting_range
from rules.ancient_foes.units import derive_stats
from rules.hexgrid import Hex, distance, facing_towards, format_label, hex_range, neighbors

SCENARIO: dict[str, object] = {
    "map": {"cols": 22, "rows": 10,
            "terrain": {"K5": "woods", "K6": "woods", "L4": "hill", "J8": "swamp",
                        "F2": "road", "G2": "road", "H2": "road"}},
    "sides": [
        {"name": "Rome", "bands": [
            {"name": "consul", "facing": "SE",
             "units": [{"name": "consul", "code": "H-Sw-Ho-Leader", "hex": "B5"}]},
            {"name": "legion", "facing": "SE", "units": [
                {"name": "hastati", "code": "H-Sw-Fo", "hex": "C4"},
                {"name": "principes", "code": "H-Sw-Fo", "hex": "C5"},
                {"name": "triarii", "code": "H-Sp-Fo-Ex", "hex": "C6"}]},
            {"name": "velites", "facing": "SE", "units": [
                {"name": "velites-1", "code": "L-Ja-Fo", "hex": "C1"},
                {"name": "velites-2", "code": "L-Ja-Fo", "hex": "C2"}]},
            {"name": "equites", "facing": "SE", "units": [
                {"name": "equites-1", "code": "M-Sp-Ho", "hex": "C8"},
                {"name": "equites-2", "code": "M-Sp-Ho", "hex": "C9"}]},
        ]},
        {"name": "Carthage", "bands": [
            {"name": "hannibal", "facing": "NW",
             "units": [{"name": "hannibal", "code": "M-Sw-Ho-Leader", "hex": "U5"}]},
            {"name": "libyans", "facing": "NW", "units": [
                {"name": "libyans-1", "code": "M-Sp-Fo", "hex": "T4"},
                {"name": "libyans-2", "code": "M-Sp-Fo", "hex": "T5"},
                {"name": "libyans-3", "code": "M-Sp-Fo", "hex": "T6"}]},
            {"name": "slingers", "facing": "NW", "units": [
                {"name": "balearics-1", "code": "L-Sl-Fo-Ex", "hex": "S1"},
                {"name": "balearics-2", "code": "L-Sl-Fo-Ex", "hex": "S2"}]},
            {"name": "elephants", "facing": "NW", "units": [
                {"name": "elephant", "code": "M-Ja-El", "hex": "T8"}]},
        ]},
    ],
}



def _enemies(state: AfBattle, side: str) -> list[AfBand]:
    return [b for b in state.bands if b.side != side]


def _gap(a: AfBand, b: AfBand) -> int:
    return min(distance(u.hex, v.hex) for u in a.units for v in b.units)


def _nearest(state: AfBattle, band: AfBand) -> AfBand:
    return min(_enemies(state, band.side), key=lambda e: (_gap(band, e), e.name))


def _task(state: AfBattle, band: AfBand) -> AfOrder | None:
    """What the band should be ordered to do now, or None."""
    foe = _nearest(state, band)
    side = band.side
    if in_fighting_range([_u(u) for u in band.units], [_u(u) for u in foe.units]):
        return AfOrder(side=side, kind="order", band=band.name, order="fight", target=foe.name)
    if band.is_leader:
        return None
    reach = max((derive_stats(u.type).range or 0) for u in band.units)
    if reach and in_front(band, foe) and _gap(band, foe) * state.settings.cm_per_hex <= reach:
        return AfOrder(side=side, kind="order", band=band.name, order="fire", target=foe.name)
    lead = band.units[0].hex
    aim = min(foe.units, key=lambda u: distance(u.hex, lead)).hex
    if not within_45(band.facing, lead, aim):
        facing = facing_towards(lead, aim)
        if facing != band.facing and band.name not in state.turned:
            return AfOrder(side=side, kind="order", band=band.name, order="turn",
                           facing=facing)
        return None
    # Ahead toward the enemy: of the hexes ahead, the one the band gets nearest the enemy to.
    best = None
    for h in sorted(hex_range(lead, 8), key=lambda h: (distance(h, aim), format_label(h))
                    if state.grid.contains(h) else (99, "")):
        if h == lead or not state.grid.contains(h) or not within_45(band.facing, lead, h):
            continue
        moved, _ = _go(state, band, h)
        score = (min(distance(u.hex, aim) for u in moved.units), distance(h, aim))
        if moved.units[0].hex != lead and (best is None or score < best[0]):
            best = (score, h)
    if best is None:
        return None
    return AfOrder(side=side, kind="order", band=band.name, order="move", to=best[1])


def _u(u):  # a unit as battlefield helpers want it
    from rules.ancient_foes.battlefield import BandUnit

    return BandUnit(name=u.name, unit_type=u.type, hex=u.hex)


def command_orders(state: AfBattle) -> list[AfOrder]:
    side = state.active
    for leader in [b for b in state.bands if b.side == side and b.is_leader]:
        given = dict(state.orders_given).get(leader.name, 0)
        here = leader.units[0].hex
        own = [b for b in state.bands if b.side == side and not b.is_leader]
        in_range = [b for b in own if _gap(leader, b) * state.settings.cm_per_hex
                    <= COMMAND_RANGE_CM]
        if (not in_range and own and not given and leader.name not in state.leaders_moved):
            target = min(own, key=lambda b: (_gap(leader, b), b.name))
            goal = min((u.hex for u in target.units), key=lambda h: distance(h, here))
            steps = [n for n in neighbors(goal).values()
                     if state.grid.contains(n) and not any(
                         u.hex == n for b in state.bands for u in b.units)]
            if steps:
                dest = min(steps, key=lambda n: (distance(n, here), format_label(n)))
                reach = state.field_band(leader).speed // state.settings.cm_per_hex
                if distance(here, dest) <= reach:
                    return [AfOrder(side=side, kind="move_leader", leader=leader.name,
                                    to=dest)]
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


def _close(state: AfBattle, band: AfBand) -> tuple[tuple[str, Hex], ...]:
    """A formation that closes the band's gaps around its largest group."""
    taken = {u.hex for b in state.bands if b.name != band.name for u in b.units}
    groups: list[set[Hex]] = []
    for u in band.units:
        joined = [g for g in groups if any(distance(u.hex, h) == 1 for h in g)]
        merged = {u.hex}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    core = max(groups, key=len)
    placed = set(core)
    out = []
    for u in sorted((u for u in band.units if u.hex not in core),
                    key=lambda u: min(distance(u.hex, h) for h in core)):
        free = [n for h in placed for n in neighbors(h).values()
                if state.grid.contains(n) and n not in taken and n not in placed]
        dest = min(free, key=lambda n: (distance(n, u.hex), format_label(n)))
        placed.add(dest)
        out.append((u.name, dest))
    return tuple(out)


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
