"""The two tables an Ancient Foes 2 battle can be played on, behind one interface.

- `HexTable`: the hex map (`cm_per_hex`); a unit in a hex, a band faces a hex direction, a
  band moves as one along the hex line (`movement.move_band`).
- `PlaneTable`: the continuous table in cm (`battlefield.PlaneBattlefield`): a unit is a
  base `base_cm` across at a point with exact rational coordinates (kept on a 1/100 cm
  grid), a band faces along a vector, distances are between base edges, terrain is polygons,
  a band moves as one by the same straight shift, paid and blocked exactly.

The battle (battle.py) asks only these questions, so its rules are written once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from rules.ancient_foes.battlefield import (
    ROUGH,
    Battlefield,
    Cm,
    FieldBand,
    PlaneBattlefield,
    Pos,
    Terrain,
)
from rules.ancient_foes.movement import move_band, movement_allowance
from rules.boards import HexPlaces, PlanePlaces, areas_from_json, number_json
from rules.hexgrid import Direction, Grid, Hex, distance, format_label, line, within_45
from rules.jsonio import as_object
from rules.plane import EdgeGap, Point, Vec, cuts, dist2, farthest, in_arc, inside, segment_dist2

Facing = Direction | Vec
GRID = 100  # table positions are kept on a 1/100 cm grid


@dataclass(frozen=True, kw_only=True)
class Step:
    """Where a band's move toward a goal ends: the lead unit's place, the cm moved, and why
    it stopped short ("" when it did not, or when only its allowance stopped a full move)."""

    lead: Pos
    cm: Cm
    why: str


# ---------------------------------------------------------------------------
# The hex map


@dataclass(frozen=True, kw_only=True)
class HexTable(HexPlaces):
    grid: Grid
    terrain: Mapping[Hex, Terrain] = field(default_factory=dict)
    cm_per_hex: int = 2

    def battlefield(self, occupied: frozenset[Pos]) -> Battlefield:
        return Battlefield(cm_per_hex=self.cm_per_hex, terrain=self.terrain, grid=self.grid,
                           occupied=occupied)

    def contains(self, p: Pos) -> bool:
        return isinstance(p, Hex) and self.grid.contains(p)

    def gap(self, a: Pos, b: Pos) -> Cm:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return distance(a, b) * self.cm_per_hex

    def travel(self, a: Pos, b: Pos) -> Cm:
        return self.gap(a, b)

    def adjacent(self, a: Pos, b: Pos) -> bool:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return distance(a, b) == 1

    def overlap(self, a: Pos, b: Pos) -> bool:
        return a == b

    def in_arc(self, facing: Facing, a: Pos, b: Pos) -> bool:
        assert isinstance(facing, Direction) and isinstance(a, Hex) and isinstance(b, Hex)
        return within_45(facing, a, b)

    def opposite(self, facing: Facing) -> Facing:
        assert isinstance(facing, Direction)
        return facing.opposite

    def shifted(self, positions: Sequence[Pos], lead_to: Pos) -> list[Pos]:
        lead = positions[0]
        assert isinstance(lead, Hex) and isinstance(lead_to, Hex)
        dq, dr = lead_to.q - lead.q, lead_to.r - lead.r
        out: list[Pos] = []
        for p in positions:
            assert isinstance(p, Hex)
            out.append(Hex(p.q + dq, p.r + dr))
        return out

    def go(self, band: FieldBand, field_: Battlefield | PlaneBattlefield, goal: Pos, *,
           full_move: bool) -> Step:
        """Along the hex line toward the goal, hex after hex while `move_band` allows it."""
        assert isinstance(field_, Battlefield)
        lead = band.units[0].hex
        assert isinstance(lead, Hex) and isinstance(goal, Hex)
        reached: Hex = lead
        why = ""
        for h in line(lead, goal)[1:]:
            trial = move_band(band, to=h, battlefield=field_)
            if not trial.legal:
                allowance = trial.distance_cm > trial.allowance.total
                why = "" if full_move and allowance else trial.problems[-1 if full_move else 0]
                break
            reached = h
        return Step(lead=reached, cm=distance(lead, reached) * self.cm_per_hex, why=why)

    def straight(self, band: FieldBand, field_: Battlefield | PlaneBattlefield, to: Pos
                 ) -> tuple[Cm, str]:
        """A move of the whole band to `to` in one go: its cm, and the first rule it breaks."""
        assert isinstance(field_, Battlefield) and isinstance(to, Hex)
        trial = move_band(band, to=to, battlefield=field_)
        return trial.distance_cm, "" if trial.legal else trial.problems[0]

    def far_back(self, lead: Pos, facing: Facing) -> Pos:
        assert isinstance(lead, Hex) and isinstance(facing, Direction)
        away = facing.opposite
        return Hex(lead.q + away.dq * 50, lead.r + away.dr * 50)

    def map_json(self) -> dict[str, object]:
        return {"cols": self.grid.cols, "rows": self.grid.rows,
                "terrain": {format_label(h): t.value for h, t in sorted(
                    self.terrain.items(), key=lambda item: format_label(item[0]))}}


# ---------------------------------------------------------------------------
# The continuous table


@dataclass(frozen=True, kw_only=True)
class PlaneTable(PlanePlaces):
    UNIT: ClassVar[str] = "cm"
    width: int
    height: int
    base_cm: int = 4
    areas: tuple[tuple[Terrain, tuple[Point, ...]], ...] = ()

    def battlefield(self, occupied: frozenset[Pos]) -> PlaneBattlefield:
        return PlaneBattlefield(width=self.width, height=self.height, base_cm=self.base_cm,
                                areas=self.areas, occupied=occupied)

    def contains(self, p: Pos) -> bool:
        return self.battlefield(frozenset()).contains(p)

    def gap(self, a: Pos, b: Pos) -> Cm:
        return self.battlefield(frozenset()).distance_cm(a, b)

    def travel(self, a: Pos, b: Pos) -> Cm:
        """How far a unit goes from a to b (centre to centre)."""
        assert isinstance(a, Point) and isinstance(b, Point)
        return EdgeGap(dist2(a, b))

    def adjacent(self, a: Pos, b: Pos) -> bool:
        return self.battlefield(frozenset()).in_contact(a, b)

    def overlap(self, a: Pos, b: Pos) -> bool:
        return self.battlefield(frozenset()).overlap(a, b)

    def in_arc(self, facing: Facing, a: Pos, b: Pos) -> bool:
        assert isinstance(facing, Vec) and isinstance(a, Point) and isinstance(b, Point)
        return in_arc(facing, a, b)

    def opposite(self, facing: Facing) -> Facing:
        assert isinstance(facing, Vec)
        return -facing

    def shifted(self, positions: Sequence[Pos], lead_to: Pos) -> list[Pos]:
        lead = positions[0]
        assert isinstance(lead, Point) and isinstance(lead_to, Point)
        v = lead_to - lead
        out: list[Pos] = []
        for p in positions:
            assert isinstance(p, Point)
            out.append(p + v)
        return out

    def _terrain_crossed(self, a: Point, b: Point) -> set[Terrain]:
        """Every terrain the segment from a to b stands on or crosses."""
        found = {self._at(a), self._at(b)}
        for terrain, polygon in self.areas:
            if cuts(a, b, polygon):
                found.add(terrain)
        ts = sorted({Fraction(0), Fraction(1), *(t for _, polygon in self.areas
                                                  for t in cuts(a, b, polygon))})
        for lo, hi in zip(ts, ts[1:], strict=False):
            mid = (lo + hi) / 2
            found.add(self._at(a + (b - a) * mid))
        return found

    def _at(self, p: Point) -> Terrain:
        found = Terrain.OPEN
        for terrain, polygon in self.areas:
            if inside(p, polygon):
                found = terrain
        return found

    def _trial(self, band: FieldBand, field_: PlaneBattlefield, v: Vec) -> str:
        """The first rule the band's straight shift by v breaks ("" when none)."""
        kinds: set[Terrain] = set()
        for u in band.units:
            assert isinstance(u.hex, Point)
            kinds |= self._terrain_crossed(u.hex, u.hex + v)
        allowance = movement_allowance(speed=band.speed, on_road=kinds == {Terrain.ROAD},
                                       in_rough=bool(kinds & ROUGH),
                                       moved_three_times=band.moved_three_times)
        if v.norm2 > allowance.total ** 2:
            return (f"{band.name} may move {allowance.total} cm but this move is "
                    f"{EdgeGap(v.norm2)} cm; a band moves no farther than its slowest unit "
                    "allows.")
        for u in band.units:
            assert isinstance(u.hex, Point)
            end = u.hex + v
            if not field_.contains(end):
                return f"{band.name} would leave the table."
            for o in field_.occupied:
                if isinstance(o, Point) and segment_dist2(u.hex, end, o) < self.base_cm ** 2:
                    return (f"{band.name} would cross {self.label(o)}, held by another band; "
                            "bands cannot walk over other bands (change formation or go "
                            "around).")
        return ""

    def _snap(self, v: Vec) -> Vec:
        def toward_zero(x: Fraction) -> Fraction:
            n = math.floor(x * GRID) if x >= 0 else math.ceil(x * GRID)
            return Fraction(n, GRID)

        return Vec(toward_zero(v.dx), toward_zero(v.dy))

    def go(self, band: FieldBand, field_: Battlefield | PlaneBattlefield, goal: Pos, *,
           full_move: bool) -> Step:
        """The band shifts straight toward the goal as far as its allowance pays and no base
        passes within a base of another band's (the shift kept on the 1/100 cm grid)."""
        assert isinstance(field_, PlaneBattlefield)
        lead = band.units[0].hex
        assert isinstance(lead, Point) and isinstance(goal, Point)
        whole = goal - lead

        def ok(t: Fraction) -> bool:
            return self._trial(band, field_, self._snap(whole * t)) == ""

        t = farthest(ok, steps=GRID * 10)
        v = self._snap(whole * t)
        why = ""
        if t < 1:
            why = self._trial(band, field_, self._snap(whole * min(Fraction(1),
                                                                   t + Fraction(1, GRID * 10))))
            if full_move and "may move" in why:
                why = ""
        return Step(lead=lead + v, cm=EdgeGap(v.norm2), why=why)

    def straight(self, band: FieldBand, field_: Battlefield | PlaneBattlefield, to: Pos
                 ) -> tuple[Cm, str]:
        assert isinstance(field_, PlaneBattlefield) and isinstance(to, Point)
        lead = band.units[0].hex
        assert isinstance(lead, Point)
        v = to - lead
        return EdgeGap(v.norm2), self._trial(band, field_, v)

    def far_back(self, lead: Pos, facing: Facing) -> Pos:
        assert isinstance(lead, Point) and isinstance(facing, Vec)
        scale = Fraction(4 * (self.width + self.height)) / (abs(facing.dx) + abs(facing.dy))
        return lead + (-facing) * scale

    def map_json(self) -> dict[str, object]:
        return {"width": self.width, "height": self.height,
                "terrain": [{"terrain": t.value,
                             "polygon": [[number_json(v.x), number_json(v.y)]
                                         for v in polygon]} for t, polygon in self.areas]}


Table = HexTable | PlaneTable
TERRAINS = {t.value: t for t in Terrain}


def table_from_json(data: object, path: str, *, board: str, cm_per_hex: int, base_cm: int,
                    max_side: int) -> Table:
    obj = as_object(data, path)
    if board == "hex":
        from rules.battle import map_from_json

        grid, terrain = map_from_json(obj, path, TERRAINS, min_side=2, max_side=max_side)
        return HexTable(grid=grid, terrain=terrain, cm_per_hex=cm_per_hex)
    width, height, areas = areas_from_json(obj, path, key="terrain", kinds=TERRAINS,
                                           unit="cm", size=(10, 2000))
    return PlaneTable(width=width, height=height, base_cm=base_cm, areas=tuple(areas))


__all__ = ["Facing", "HexTable", "PlaneTable", "Step", "Table", "table_from_json"]
