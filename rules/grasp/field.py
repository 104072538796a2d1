"""The two boards a GRASP battle can be refereed on, behind one interface.

- `HexField`: the hex adaptation. A hex is `mu_per_hex` MU across; a unit stands in a hex and
  faces one of the six hex directions; contact is a neighbouring hex; a move goes hex by hex,
  paying each hex's going.
- `PlaneField`: the continuous board. Positions are points in MU with exact rational
  coordinates, kept on a 1/100 MU grid; a unit is a base 1 MU across (a disc of radius ½
  about its position) facing along a vector; bases never overlap, and two are in contact when
  their edges are at most ¼ MU apart; terrain is polygons; a move is a straight line whose
  cost is its length, the share of it in light going counting double and in difficult going
  four times (impassable going cannot be crossed).

Both answer the same questions (within a range, in contact, in the 45° arc, walk toward a goal,
recoil, the line of fire, the base edges), so the battle's rules are written once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import ClassVar

from rules.battle import hex_from_json, on_map
from rules.boards import HexPlaces, PlanePlaces, areas_from_json, number_json, point_from_json
from rules.grasp.dielevels import GraspError, parse_die
from rules.grasp.terrain import Mines, Mover, TerrainClass, hex_entry_cost, terrain_factor
from rules.hexgrid import (
    Direction,
    Grid,
    Hex,
    distance,
    facing_towards,
    format_label,
    hex_to_offset,
    line,
    neighbor,
    neighbors,
    offset_to_hex,
    within_45,
)
from rules.jsonio import (
    InputError,
    as_object,
    child,
    get_bool,
    get_choice,
    get_list,
    only_fields,
)
from rules.plane import Point, Vec, along, cuts, dist2, farthest, in_arc, inside, segment_dist2

Pos = Hex | Point
Facing = Direction | Vec
GOINGS = {t.label: t for t in TerrainClass}
EDGES = ("N", "S", "W", "E")
MAX_MAP_SIDE = 60
BASE = Fraction(1)  # a base is 1 MU across
CONTACT_GAP = Fraction(1, 4)  # bases at most ¼ MU apart are in contact
GRID = 100  # continuous positions are kept on a 1/100 MU grid
# Which way a hex facing and a wind go, as (east, north) signs (row 1 is north).
HEX_HEADINGS = {Direction.N: (0, 1), Direction.NE: (1, 1), Direction.SE: (1, -1),
                Direction.S: (0, -1), Direction.SW: (-1, -1), Direction.NW: (-1, 1)}
WIND_HEADINGS = {"N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)}


# ---------------------------------------------------------------------------
# Hexes


@dataclass(frozen=True, kw_only=True)
class HexField(HexPlaces):
    grid: Grid
    terrain: Mapping[Hex, TerrainClass] = field(default_factory=dict)
    mines: Mapping[Hex, Mines] = field(default_factory=dict)
    mu_per_hex: int = 1
    kind: str = "hex"

    def contains(self, p: Pos) -> bool:
        return isinstance(p, Hex) and self.grid.contains(p)

    def ground(self, p: Pos) -> TerrainClass:
        """The terrain itself, under any mines."""
        assert isinstance(p, Hex)
        return self.terrain.get(p, TerrainClass.GOOD)

    def going(self, p: Pos) -> TerrainClass:
        """The going a unit meets: the terrain, or its mines when they count as harder."""
        assert isinstance(p, Hex)
        mines = self.mines_at(p)
        return max(self.ground(p), mines.going) if mines is not None else self.ground(p)

    def mines_at(self, p: Pos) -> Mines | None:
        assert isinstance(p, Hex)
        found = self.mines.get(p)
        return None if found is None or found.cleared else found

    def quadrant(self, p: Pos) -> str:
        """NW, NE, SW or SE: the quarters of a cross through the map's centre (row 1 is
        north; a middle row or column of an odd map counts as south or east)."""
        assert isinstance(p, Hex)
        col, row = hex_to_offset(p)
        rows, cols = self.grid.rows, self.grid.cols
        return ("N" if 2 * row <= rows - rows % 2 else "S") + (
            "W" if 2 * col < cols - cols % 2 else "E")

    def piece_from_json(self, value: object, path: str) -> tuple[Pos, ...]:
        """A terrain piece on the hex map: the hexes it covers."""
        if not isinstance(value, list) or not 1 <= len(value) <= 100:
            raise InputError(path, "is the list of hexes the piece covers (1 to 100).")
        return tuple(self.pos_from_json(v, child(path, i)) for i, v in enumerate(value))

    def piece_span_ok(self, piece: Sequence[Pos], mu: int) -> bool:
        hexes = [p for p in piece if isinstance(p, Hex)]
        return all(distance(a, b) * self.mu_per_hex <= mu for a in hexes for b in hexes)

    def piece_places(self, piece: Sequence[Pos]) -> list[Pos]:
        return list(piece)

    def footprint(self, p: Pos) -> tuple[Pos, ...]:
        """The ground a unit's base covers, as a terrain piece: its hex."""
        return (p,)

    def without_piece(self, piece: Sequence[Pos], was: TerrainClass) -> HexField:
        """The field with a piece laid by with_piece gone: its ground as it was."""
        terrain = dict(self.terrain)
        for p in piece:
            assert isinstance(p, Hex)
            if was is TerrainClass.GOOD:
                terrain.pop(p, None)
            else:
                terrain[p] = was
        return replace(self, terrain=terrain)

    def beside(self, pos: Pos, others: Sequence[Pos]) -> Pos | None:
        """A free place in contact with `pos` that is not impassable (None: none)."""
        assert isinstance(pos, Hex)
        taken = {h for h in others if isinstance(h, Hex)}
        return next((n for n in sorted(neighbors(pos).values(), key=format_label)
                     if self.grid.contains(n) and n not in taken
                     and self.going(n) is not TerrainClass.IMPASSABLE), None)

    def ahead(self, pos: Pos, facing: Facing) -> Pos | None:
        """The place right in front of a unit (None: off the map)."""
        assert isinstance(pos, Hex) and isinstance(facing, Direction)
        to = neighbor(pos, facing)
        return to if self.grid.contains(to) else None

    def with_piece(self, piece: Sequence[Pos], going: TerrainClass) -> HexField:
        terrain = dict(self.terrain)
        for p in piece:
            assert isinstance(p, Hex)
            terrain[p] = going
        return replace(self, terrain=terrain)

    def piece_json(self, piece: Sequence[Pos]) -> object:
        return [self.label(p) for p in piece]

    def with_ground(self, p: Pos, ground: TerrainClass, mines: Mines | None) -> HexField:
        """The field after the terrain at p (and its mines) changed."""
        assert isinstance(p, Hex)
        terrain = dict(self.terrain)
        terrain[p] = ground
        laid = dict(self.mines)
        if mines is None or mines.cleared:
            laid.pop(p, None)
        else:
            laid[p] = mines
        return replace(self, terrain=terrain, mines=laid)

    def piece_area_ok(self, piece: Sequence[Pos], mu2: int) -> bool:
        """No more than `mu2` square MU (on a map whose hex is larger, one hex)."""
        return len(piece) * self.mu_per_hex ** 2 <= max(mu2, self.mu_per_hex ** 2)

    def touches(self, piece: Sequence[Pos], goings: Sequence[TerrainClass]) -> bool:
        """Whether the piece lies next to (or over) going of one of these classes."""
        hexes = {p for p in piece if isinstance(p, Hex)}
        return any(self.grid.contains(q) and q not in hexes and self.going(q) in goings
                   for h in hexes for q in (h, *neighbors(h).values())) or any(
            self.going(h) in goings for h in hexes)

    def pieces_of(self, going: TerrainClass) -> list[tuple[Pos, ...]]:
        """The terrain pieces of this going: its connected hexes, in label order."""
        left = {h for h, t in self.terrain.items() if t is going}
        out: list[tuple[Hex, ...]] = []
        while left:
            first = min(left, key=format_label)
            group, todo = {first}, [first]
            while todo:
                for n in neighbors(todo.pop()).values():
                    if n in left and n not in group:
                        group.add(n)
                        todo.append(n)
            left -= group
            out.append(tuple(sorted(group, key=format_label)))
        return list(out)

    def harden(self, piece: Sequence[Pos], going: TerrainClass) -> HexField:
        """The field with the piece (found by pieces_of) one class harder."""
        return self.with_piece(piece, going)

    def downwind(self, blowing: str) -> Facing:
        """The hex direction a wind blowing toward `blowing` carries things (an east or west
        wind: the hexside clockwise of it, SE or NW)."""
        return {"N": Direction.N, "S": Direction.S, "E": Direction.SE,
                "W": Direction.NW}[blowing]

    def behind_of(self, facing: Facing) -> Facing:
        assert isinstance(facing, Direction)
        order = list(Direction)
        return order[(order.index(facing) + 3) % 6]

    def wind_way(self, facing: Facing, blowing: str) -> int:
        """+1 moving with a wind that blows toward `blowing`, −1 against it, 0 across it."""
        assert isinstance(facing, Direction)
        east, north = HEX_HEADINGS[facing]
        we, wn = WIND_HEADINGS[blowing]
        dot = east * we + north * wn
        return (dot > 0) - (dot < 0)

    def within(self, a: Pos, b: Pos, mu: int) -> bool:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return distance(a, b) * self.mu_per_hex <= mu

    def gap_mu(self, a: Pos, b: Pos) -> str:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return str(distance(a, b) * self.mu_per_hex)

    def in_contact(self, a: Pos, b: Pos) -> bool:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return distance(a, b) == 1

    def overlap(self, a: Pos, b: Pos) -> bool:
        return a == b

    def in_arc(self, facing: Facing, a: Pos, b: Pos) -> bool:
        assert isinstance(facing, Direction) and isinstance(a, Hex) and isinstance(b, Hex)
        return within_45(facing, a, b)

    def facing_toward(self, a: Pos, b: Pos) -> Facing:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return facing_towards(a, b)

    def aligned(self, f: Facing, g: Facing) -> bool:
        """Facing the same or the opposite way."""
        assert isinstance(f, Direction) and isinstance(g, Direction)
        return f in (g, g.opposite)

    def turn_allowed(self, degrees: int) -> int:
        """A turn limit in hexsides of 60°: 180° is three, anything less one (a hex unit
        always turns at least one hexside)."""
        return 3 if degrees >= 180 else 1

    def turn_ok(self, f: Facing, way: Facing, degrees: int) -> bool:
        assert isinstance(f, Direction) and isinstance(way, Direction)
        order = list(Direction)
        steps = abs(order.index(f) - order.index(way))
        return min(steps, 6 - steps) <= self.turn_allowed(degrees)

    def turned(self, f: Facing, way: Facing, degrees: int) -> Facing:
        """f turned as far as allowed toward way (clockwise when way is right behind)."""
        assert isinstance(f, Direction) and isinstance(way, Direction)
        order = list(Direction)
        clockwise = (order.index(way) - order.index(f)) % 6
        step = self.turn_allowed(degrees) * (1 if clockwise <= 3 else -1)
        return order[(order.index(f) + step) % 6]

    def turn_text(self, degrees: int) -> str:
        return f"{self.turn_allowed(degrees) * 60}°"

    def behind(self, a: Pos, facing: Facing, b: Pos) -> bool:
        assert isinstance(a, Hex) and isinstance(facing, Direction)
        return b == neighbor(a, facing.opposite)

    def _cost(self, mover: Mover, to: Hex, taken: set[Hex]) -> int | None:
        if not self.grid.contains(to) or to in taken:
            return None
        return hex_entry_cost(self.going(to), mover, mu_per_hex=self.mu_per_hex)

    def walk(self, mover: Mover, start: Pos, goal: Pos, budget: int, *,
             others: Sequence[Pos], enemies: Sequence[Pos], approach: bool = True,
             stop_at_contact: bool = True, passable: Sequence[Pos] = ()
             ) -> tuple[Pos, list[Pos]]:
        """Hex by hex to the neighbour nearest the goal while the budget pays for it. It may
        pass through the units at `passable` but not stop on one: it ends on the last free
        hex of its way."""
        assert isinstance(start, Hex) and isinstance(goal, Hex)
        through = {h for h in passable if isinstance(h, Hex)}
        taken = {h for h in others if isinstance(h, Hex)} - through
        foes = [e for e in enemies if isinstance(e, Hex)]
        here = start
        path: list[Pos] = []
        free = 0  # the length of the path to its last free hex
        while here != goal and budget > 0:
            if path and stop_at_contact and here not in through \
                    and any(distance(here, e) == 1 for e in foes):
                break
            options = []
            for n in neighbors(here).values():
                cost = self._cost(mover, n, taken)
                if cost is None or cost > budget or distance(n, goal) >= distance(here, goal):
                    continue
                if not approach and foes and min(distance(n, e) for e in foes) < min(
                        distance(here, e) for e in foes):
                    continue
                options.append((distance(n, goal), format_label(n), n, cost))
            if not options:
                break
            _, _, nxt, cost = min(options)
            budget -= cost
            path.append(nxt)
            here = nxt
            if here not in through:
                free = len(path)
            if self.mines_at(here) is not None:
                break  # the mines engage it there
        del path[free:]
        return (path[-1] if path else start), path

    def away(self, mover: Mover, pos: Pos, enemy: Pos, others: Sequence[Pos]) -> Pos | None:
        """One hex straight away from the enemy (or another hex farther from it)."""
        assert isinstance(pos, Hex) and isinstance(enemy, Hex)
        taken = {h for h in others if isinstance(h, Hex)}
        straight = neighbor(pos, facing_towards(enemy, pos))
        for n in (straight, *neighbors(pos).values()):
            if distance(n, enemy) > distance(pos, enemy) and self._cost(mover, n, taken) \
                    is not None:
                return n
        return None

    def close_in(self, mover: Mover, pos: Pos, enemy: Pos, others: Sequence[Pos],
                 *, mu: int) -> Pos | None:
        """A move of at most `mu` MU back into contact with the enemy (None: none fits)."""
        assert isinstance(pos, Hex) and isinstance(enemy, Hex)
        taken = {h for h in others if isinstance(h, Hex)}
        steps = [n for n in neighbors(pos).values() if distance(n, enemy) == 1
                 and (self._cost(mover, n, taken) or mu + 1) <= mu]
        return min(steps, key=lambda n: (distance(n, pos), format_label(n))) if steps else None

    def beyond(self, mover: Mover, pos: Pos, enemy: Pos, others: Sequence[Pos]) -> Pos | None:
        """Through the enemy's hex to the one beyond it, in line (None: no free hex there
        the mover may enter)."""
        assert isinstance(pos, Hex) and isinstance(enemy, Hex)
        to = neighbor(enemy, facing_towards(pos, enemy))
        taken = {h for h in others if isinstance(h, Hex)} - {enemy}
        return to if self._cost(mover, to, taken) is not None else None

    def edge_goal(self, pos: Pos, edge: str) -> Pos:
        assert isinstance(pos, Hex)
        return min(self._edge(edge), key=lambda h: (distance(h, pos), format_label(h)))

    def at_edge(self, pos: Pos, edge: str) -> bool:
        return pos in self._edge(edge)

    def corner(self) -> Pos:
        """A place on the map every battle has (where an off-table unit is put when no
        place matters)."""
        return min(self._edge("W"), key=format_label)

    def edges_apart(self, a: str, b: str) -> Fraction:
        """MU between units on two base edges: across the map when opposite, none when they
        meet at a corner."""
        if {a, b} == {"W", "E"}:
            return Fraction((self.grid.cols - 1) * self.mu_per_hex)
        if {a, b} == {"N", "S"}:
            return Fraction((self.grid.rows - 1) * self.mu_per_hex)
        return Fraction(0)

    def _edge(self, edge: str) -> list[Hex]:
        g = self.grid
        if edge in ("N", "S"):
            row = 1 if edge == "N" else g.rows
            return [offset_to_hex(col=c, row=row) for c in range(g.cols)]
        col = 0 if edge == "W" else g.cols - 1
        return [offset_to_hex(col=col, row=r) for r in range(1, g.rows + 1)]

    def on_line(self, a: Pos, b: Pos, p: Pos) -> bool:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return p in line(a, b)[1:-1]

    def crossed(self, start: Pos, path: Sequence[Pos], p: Pos) -> bool:
        """Whether a move along `path` went through the unit at p."""
        return p in path

    def map_json(self) -> dict[str, object]:
        return {"cols": self.grid.cols, "rows": self.grid.rows,
                "mines": {format_label(h): _mines_json(m) for h, m in sorted(
                    self.mines.items(), key=lambda item: format_label(item[0]))},
                "terrain": {format_label(h): t.label for h, t in sorted(
                    self.terrain.items(), key=lambda item: format_label(item[0]))}}


# ---------------------------------------------------------------------------
# The continuous board


@dataclass(frozen=True, kw_only=True)
class Area:
    """A terrain area. Where areas overlap the hardest going counts, except under a later
    `exact` area (a square whose going was changed by combat), which sets it."""

    going: TerrainClass
    polygon: tuple[Point, ...]
    mines: Mines | None = None
    exact: bool = False


@dataclass(frozen=True, kw_only=True)
class PlaneField(PlanePlaces):
    UNIT: ClassVar[str] = "MU"
    width: int
    height: int
    areas: tuple[Area, ...] = ()
    kind: str = "continuous"

    def contains(self, p: Pos) -> bool:
        half = BASE / 2
        return isinstance(p, Point) and half <= p.x <= self.width - half \
            and half <= p.y <= self.height - half

    def ground(self, p: Pos) -> TerrainClass:
        """The terrain itself, under any mines: the hardest area it is in, or the going of a
        later exact square."""
        assert isinstance(p, Point)
        ground = TerrainClass.GOOD
        for a in self.areas:
            if inside(p, a.polygon):
                ground = a.going if a.exact else max(ground, a.going)
        return ground

    def going(self, p: Pos) -> TerrainClass:
        """The going a unit meets: the terrain, or mines, where it is."""
        assert isinstance(p, Point)
        found = [self.ground(p)]
        found += [a.mines.going for a in self.areas if a.mines is not None
                  and not a.mines.cleared and inside(p, a.polygon)]
        return max(found, default=TerrainClass.GOOD)

    def mines_at(self, p: Pos) -> Mines | None:
        assert isinstance(p, Point)
        return next((a.mines for a in self.areas if a.mines is not None
                     and not a.mines.cleared and inside(p, a.polygon)), None)

    def quadrant(self, p: Pos) -> str:
        """NW, NE, SW or SE: the quarters of a cross through the board's centre (y grows to
        the north; the centre lines count as north and east)."""
        assert isinstance(p, Point)
        return ("N" if 2 * p.y >= self.height else "S") + ("W" if 2 * p.x < self.width else "E")

    def piece_from_json(self, value: object, path: str) -> tuple[Pos, ...]:
        """A terrain piece on the continuous board: its polygon's corners."""
        if not isinstance(value, list) or not 3 <= len(value) <= 40:
            raise InputError(path, "is the polygon of the piece: 3 to 40 corners [x, y].")
        corners = tuple(point_from_json(v, child(path, i), "MU") for i, v in enumerate(value))
        for i, c in enumerate(corners):
            if not (0 <= c.x <= self.width and 0 <= c.y <= self.height):
                raise InputError(child(path, i), f"{self.label(c)} is off the board.")
        return corners

    def piece_span_ok(self, piece: Sequence[Pos], mu: int) -> bool:
        corners = [p for p in piece if isinstance(p, Point)]
        return all(dist2(a, b) <= mu * mu for a in corners for b in corners)

    def piece_places(self, piece: Sequence[Pos]) -> list[Pos]:
        return list(piece)

    def footprint(self, p: Pos) -> tuple[Pos, ...]:
        """The ground a unit's base covers, as a terrain piece: the square 1 MU across about
        its position, kept on the board."""
        assert isinstance(p, Point)
        h = BASE / 2
        lo_x, hi_x = max(Fraction(0), p.x - h), min(Fraction(self.width), p.x + h)
        lo_y, hi_y = max(Fraction(0), p.y - h), min(Fraction(self.height), p.y + h)
        return (Point(lo_x, lo_y), Point(hi_x, lo_y), Point(hi_x, hi_y), Point(lo_x, hi_y))

    def without_piece(self, piece: Sequence[Pos], was: TerrainClass) -> PlaneField:
        """The field with the last area laid as this piece gone."""
        corners = tuple(p for p in piece if isinstance(p, Point))
        keep = list(self.areas)
        for i in range(len(keep) - 1, -1, -1):
            if keep[i].polygon == corners and keep[i].mines is None:
                del keep[i]
                break
        return replace(self, areas=tuple(keep))

    def beside(self, pos: Pos, others: Sequence[Pos]) -> Pos | None:
        """A free place touching the base at `pos` (1 MU east, north, west or south of it) that
        is on the board and not impassable (None: none)."""
        assert isinstance(pos, Point)
        for d in (Vec(BASE, Fraction(0)), Vec(Fraction(0), BASE), Vec(-BASE, Fraction(0)),
                  Vec(Fraction(0), -BASE)):
            to = pos + d
            if self.contains(to) and self.going(to) is not TerrainClass.IMPASSABLE and all(
                    dist2(to, o) >= BASE ** 2 for o in others if isinstance(o, Point)):
                return to
        return None

    def ahead(self, pos: Pos, facing: Facing) -> Pos | None:
        """The place a base's width in front of a unit, on the 1/100 MU grid (None: off the
        board)."""
        assert isinstance(pos, Point) and isinstance(facing, Vec)
        if facing.norm2 == 0:
            return None
        far = pos + facing * (Fraction(2) / (abs(facing.dx) + abs(facing.dy)))

        def short(t: Fraction) -> bool:
            return dist2(along(pos, far, t), pos) < BASE ** 2

        t = farthest(short, steps=GRID * 10) + Fraction(1, GRID * 10)
        to = self._snap(far, along(pos, far, min(Fraction(1), t)))
        return to if self.contains(to) else None

    def with_piece(self, piece: Sequence[Pos], going: TerrainClass) -> PlaneField:
        corners = tuple(p for p in piece if isinstance(p, Point))
        return replace(self, areas=(*self.areas, Area(going=going, polygon=corners)))

    def piece_json(self, piece: Sequence[Pos]) -> object:
        return [self.pos_json(p) for p in piece]

    def with_ground(self, p: Pos, ground: TerrainClass, mines: Mines | None) -> PlaneField:
        """The field after the terrain at p changed: a mined area changes whole (its terrain
        and mines); otherwise the 1 MU square about p takes the new going."""
        assert isinstance(p, Point)
        areas = list(self.areas)
        for i, a in enumerate(areas):
            if a.mines is not None and not a.mines.cleared and inside(p, a.polygon):
                areas[i] = replace(a, going=ground, mines=mines)
                return replace(self, areas=tuple(areas))
        square = tuple(q for q in self.footprint(p) if isinstance(q, Point))
        return replace(self, areas=(*self.areas, Area(going=ground, polygon=square,
                                                      exact=True)))

    def piece_area_ok(self, piece: Sequence[Pos], mu2: int) -> bool:
        corners = [p for p in piece if isinstance(p, Point)]
        twice = sum((a.x * b.y - b.x * a.y
                     for a, b in zip(corners, corners[1:] + corners[:1], strict=True)),
                    Fraction(0))
        return abs(twice) <= 2 * mu2

    def touches(self, piece: Sequence[Pos], goings: Sequence[TerrainClass]) -> bool:
        """Whether the polygon touches or overlaps an area of one of these goings (or its
        mines)."""
        corners = [p for p in piece if isinstance(p, Point)]
        for a in self.areas:
            hard = a.going in goings or (a.mines is not None and not a.mines.cleared
                                         and a.mines.going in goings)
            if hard and (any(inside(c, a.polygon) for c in corners)
                         or any(inside(c, corners) for c in a.polygon)
                         or any(cuts(p, q, a.polygon) for p, q in
                                zip(corners, corners[1:] + corners[:1], strict=True))):
                return True
        return False

    def pieces_of(self, going: TerrainClass) -> list[tuple[Pos, ...]]:
        """The terrain pieces of this going: its areas (unmined), in the board's order."""
        return [a.polygon for a in self.areas
                if a.going is going and a.mines is None and not a.exact]

    def harden(self, piece: Sequence[Pos], going: TerrainClass) -> PlaneField:
        """The field with the area (found by pieces_of) of this polygon made `going`."""
        corners = tuple(p for p in piece if isinstance(p, Point))
        areas = list(self.areas)
        i = next(i for i, a in enumerate(areas)
                 if a.polygon == corners and a.mines is None and not a.exact)
        areas[i] = replace(areas[i], going=going)
        return replace(self, areas=tuple(areas))

    def downwind(self, blowing: str) -> Facing:
        east, north = WIND_HEADINGS[blowing]
        return Vec(Fraction(east), Fraction(north))

    def behind_of(self, facing: Facing) -> Facing:
        assert isinstance(facing, Vec)
        return -facing

    def wind_way(self, facing: Facing, blowing: str) -> int:
        assert isinstance(facing, Vec)
        we, wn = WIND_HEADINGS[blowing]
        dot = facing.dx * we + facing.dy * wn
        return (dot > 0) - (dot < 0)

    def within(self, a: Pos, b: Pos, mu: int) -> bool:
        assert isinstance(a, Point) and isinstance(b, Point)
        return dist2(a, b) <= Fraction(mu) ** 2

    def gap_mu(self, a: Pos, b: Pos) -> str:
        assert isinstance(a, Point) and isinstance(b, Point)
        return format(math.sqrt(dist2(a, b)), ".2f")

    def in_contact(self, a: Pos, b: Pos) -> bool:
        assert isinstance(a, Point) and isinstance(b, Point)
        return dist2(a, b) <= (BASE + CONTACT_GAP) ** 2

    def overlap(self, a: Pos, b: Pos) -> bool:
        assert isinstance(a, Point) and isinstance(b, Point)
        return dist2(a, b) < BASE ** 2

    def in_arc(self, facing: Facing, a: Pos, b: Pos) -> bool:
        assert isinstance(facing, Vec) and isinstance(a, Point) and isinstance(b, Point)
        return in_arc(facing, a, b)

    def facing_toward(self, a: Pos, b: Pos) -> Facing:
        assert isinstance(a, Point) and isinstance(b, Point)
        return b - a

    def aligned(self, f: Facing, g: Facing) -> bool:
        """Facing the same or the opposite way (parallel facing vectors)."""
        assert isinstance(f, Vec) and isinstance(g, Vec)
        return f.dx * g.dy == f.dy * g.dx

    def turn_ok(self, f: Facing, way: Facing, degrees: int) -> bool:
        """Whether `way` is within `degrees` (45, 90 or 180) of facing f, exactly."""
        assert isinstance(f, Vec) and isinstance(way, Vec)
        dot = f.dot(way)
        if degrees >= 180:
            return True
        if degrees >= 90:
            return dot >= 0
        return dot > 0 and 2 * dot * dot >= f.norm2 * way.norm2  # cos² 45° = ½

    def turned(self, f: Facing, way: Facing, degrees: int) -> Facing:
        """f turned by the limit (90° or 45°) toward way's side (clockwise when right behind);
        the vectors stay exact, unnormalised."""
        assert isinstance(f, Vec) and isinstance(way, Vec)
        cross = f.dx * way.dy - f.dy * way.dx
        left = Vec(-f.dy, f.dx) if cross > 0 else Vec(f.dy, -f.dx)
        return left if degrees >= 90 else Vec(f.dx + left.dx, f.dy + left.dy)

    def turn_text(self, degrees: int) -> str:
        return f"{degrees}°"

    def behind(self, a: Pos, facing: Facing, b: Pos) -> bool:
        assert isinstance(a, Point) and isinstance(facing, Vec) and isinstance(b, Point)
        return self.in_contact(a, b) and in_arc(-facing, a, b)

    def cost_share(self, mover: Mover, a: Point, b: Point) -> Fraction | None:
        """The move's cost over its length (1 in good going; None: it enters impassable)."""
        ts = sorted({Fraction(0), Fraction(1), *(t for area in self.areas
                                                  for t in cuts(a, b, area.polygon))})
        total = Fraction(0)
        for lo, hi in zip(ts, ts[1:], strict=False):
            going = self.going(along(a, b, (lo + hi) / 2))
            factor, _ = terrain_factor(going, mover)
            if factor is None:
                return None
            total += (hi - lo) / factor
        return total

    def _clear(self, a: Point, b: Point, others: Sequence[Pos]) -> bool:
        return all(segment_dist2(a, b, o) >= BASE ** 2 for o in others
                   if isinstance(o, Point))

    def _snap(self, start: Point, p: Point) -> Point:
        """p moved onto the 1/100 MU grid, toward the start."""
        def toward(s: Fraction, v: Fraction) -> Fraction:
            scaled = v * GRID
            n = math.floor(scaled) if v >= s else math.ceil(scaled)
            return Fraction(n, GRID)

        return Point(toward(start.x, p.x), toward(start.y, p.y))

    def _reach(self, mover: Mover, start: Point, goal: Point, budget: Fraction, *,
               others: Sequence[Pos], enemies: Sequence[Point], approach: bool,
               stop_at_contact: bool) -> Point:
        def fits(end: Point) -> bool:
            if end == start:
                return True
            share = self.cost_share(mover, start, end)
            if share is None or dist2(start, end) * share * share > budget * budget:
                return False
            if self.going(end) is TerrainClass.IMPASSABLE:
                return False  # not even onto its edge
            if not self.contains(end) or not self._clear(start, end, others):
                return False
            return approach or all(segment_dist2(start, end, e) >= dist2(start, e)
                                   for e in enemies)

        def ok(t: Fraction) -> bool:
            end = self._snap(start, along(start, goal, t))
            if not fits(end):
                return False
            if stop_at_contact and t > 0:
                before = self._snap(start, along(start, goal, t - Fraction(1, GRID * 10)))
                if before != start and any(self.in_contact(before, e) for e in enemies):
                    return False
            return True

        t = farthest(ok, steps=GRID * 10)
        return self._snap(start, along(start, goal, t))

    def walk(self, mover: Mover, start: Pos, goal: Pos, budget: int, *,
             others: Sequence[Pos], enemies: Sequence[Pos], approach: bool = True,
             stop_at_contact: bool = True, passable: Sequence[Pos] = ()
             ) -> tuple[Pos, list[Pos]]:
        """A straight move toward the goal, as far as the budget pays, the other bases allow
        and (unless fleeing) until contact with an enemy. It may pass through the bases at
        `passable` but not stop on one: it stops where it last cleared one."""
        assert isinstance(start, Point) and isinstance(goal, Point)
        through = [p for p in passable if isinstance(p, Point)]
        foes = [e for e in enemies if isinstance(e, Point)]
        if stop_at_contact and any(self.in_contact(start, e) for e in foes):
            return start, []
        goal = self._mined_stop(start, goal)
        end = self._reach(mover, start, goal, Fraction(budget),
                          others=[o for o in others if o not in through], enemies=foes,
                          approach=approach, stop_at_contact=stop_at_contact)
        end = self._cleared(start, end, through)
        return end, ([] if end == start else [end])

    def _cleared(self, start: Point, end: Point, through: Sequence[Point]) -> Point:
        """`end`, or if it stands on a base passed through, the last point of the line
        start→end clear of every such base (each base's overlap with a line is one stretch,
        and before its nearest point the gap only shrinks, so each stretch's start is found by
        halving)."""
        while True:
            on = [o for o in through if dist2(end, o) < BASE ** 2]
            if not on:
                return end
            o = on[0]
            v = end - start
            if v.norm2 == 0:
                return start
            end = self._before(start, along(start, end, min(Fraction(1), max(
                Fraction(0), (o - start).dot(v) / v.norm2))), o)

    def _before(self, start: Point, nearest: Point, o: Point) -> Point:
        """The last grid point of start→nearest (nearest: the line's closest point to o) that
        keeps a base clear of the base at o."""
        def clear(t: Fraction) -> bool:
            return dist2(self._snap(start, along(start, nearest, t)), o) >= BASE ** 2

        return self._snap(start, along(start, nearest, farthest(clear, steps=GRID * 10)))

    def _mined_stop(self, start: Point, goal: Point) -> Point:
        """A move stops as it enters a minefield (just over its edge): the mines engage it."""
        entries = [t for a in self.areas if a.mines is not None and not a.mines.cleared
                   and not inside(start, a.polygon) for t in cuts(start, goal, a.polygon)]
        if not entries:
            return goal
        v = goal - start
        step = Fraction(2, GRID) / max(abs(v.dx), abs(v.dy))
        return along(start, goal, min(Fraction(1), min(entries) + step))

    def away(self, mover: Mover, pos: Pos, enemy: Pos, others: Sequence[Pos]) -> Pos | None:
        """Up to 1 MU straight away from the enemy."""
        assert isinstance(pos, Point) and isinstance(enemy, Point)
        v = pos - enemy
        if v.norm2 == 0:
            return None
        goal = pos + v * (Fraction(2) / (abs(v.dx) + abs(v.dy)))  # beyond 1 MU away
        end = self._reach(mover, pos, goal, Fraction(1), others=others, enemies=[],
                          approach=True, stop_at_contact=False)
        return None if end == pos else end

    def close_in(self, mover: Mover, pos: Pos, enemy: Pos, others: Sequence[Pos],
                 *, mu: int) -> Pos | None:
        assert isinstance(pos, Point) and isinstance(enemy, Point)
        end = self._reach(mover, pos, enemy, Fraction(mu), others=others, enemies=[enemy],
                          approach=True, stop_at_contact=True)
        return end if end != pos and self.in_contact(end, enemy) else None

    def beyond(self, mover: Mover, pos: Pos, enemy: Pos, others: Sequence[Pos]) -> Pos | None:
        """Straight on through the enemy's base, stopping once clear of it: the first grid
        point on the line beyond it a base's width from its centre (None: off the board, in
        impassable going or on another base)."""
        assert isinstance(pos, Point) and isinstance(enemy, Point)
        v = enemy - pos
        if v.norm2 == 0:
            return None
        to = self.ahead(enemy, v)
        if not isinstance(to, Point) or self.going(to) is TerrainClass.IMPASSABLE \
                or any(dist2(to, o) < BASE ** 2 for o in others
                       if isinstance(o, Point) and o != enemy):
            return None
        return to

    def edge_goal(self, pos: Pos, edge: str) -> Pos:
        assert isinstance(pos, Point)
        half = BASE / 2
        return {"N": Point(pos.x, Fraction(self.height) - half), "S": Point(pos.x, half),
                "W": Point(half, pos.y), "E": Point(Fraction(self.width) - half, pos.y)}[edge]

    def at_edge(self, pos: Pos, edge: str) -> bool:
        assert isinstance(pos, Point)
        return pos == self.edge_goal(pos, edge)

    def corner(self) -> Pos:
        return Point(BASE / 2, BASE / 2)

    def edges_apart(self, a: str, b: str) -> Fraction:
        """MU between the centres of bases on two base edges (½ MU in from each)."""
        if {a, b} == {"W", "E"}:
            return Fraction(self.width) - BASE
        if {a, b} == {"N", "S"}:
            return Fraction(self.height) - BASE
        return Fraction(0)

    def on_line(self, a: Pos, b: Pos, p: Pos) -> bool:
        assert isinstance(a, Point) and isinstance(b, Point) and isinstance(p, Point)
        if p in (a, b):
            return False
        return segment_dist2(a, b, p) <= (BASE / 2) ** 2

    def crossed(self, start: Pos, path: Sequence[Pos], p: Pos) -> bool:
        end = path[-1] if path else start
        assert isinstance(start, Point) and isinstance(end, Point) and isinstance(p, Point)
        return segment_dist2(start, end, p) < BASE ** 2

    def map_json(self) -> dict[str, object]:
        return {"width": self.width, "height": self.height,
                "terrain": [{"going": a.going.label,
                             "polygon": [[number_json(v.x), number_json(v.y)]
                                         for v in a.polygon],
                             **({"mines": _mines_json(a.mines)} if a.mines else {}),
                             **({"exact": True} if a.exact else {})}
                            for a in self.areas]}


def _mines_json(m: Mines) -> dict[str, object]:
    return {"going": m.going.label, "cc": m.cc.label if m.cc else None}


def _mines(value: object, path: str) -> Mines:
    obj = as_object(value, path)
    only_fields(obj, ("going", "cc"), path)
    going = get_choice(obj, "going", [g for g in GOINGS if g != "impassable"], path)
    cc = obj.get("cc")
    if not isinstance(cc, str):
        raise InputError(child(path, "cc"), 'is the mines\' close combat die, such as "d8".')
    try:
        die = parse_die(cc)
    except GraspError as exc:
        raise InputError(child(path, "cc"), str(exc)) from None
    return Mines(going=GOINGS[going], cc=die)


def field_from_json(data: object, path: str, *, board: str, mu_per_hex: int
                    ) -> HexField | PlaneField:
    """The map; `mines` lays minefields: on the hex map `{"C4": {"going", "cc"}}`, on the
    continuous board a `mines` object on an area of `terrain`."""
    obj = as_object(data, path)
    if board == "hex":
        from rules.battle import map_from_json

        grid, terrain = map_from_json({k: v for k, v in obj.items() if k != "mines"}, path,
                                      GOINGS, plain="good", min_side=2,
                                      max_side=MAX_MAP_SIDE)
        laid: dict[Hex, Mines] = {}
        for label, raw in as_object(obj.get("mines") or {}, child(path, "mines")).items():
            at = child(child(path, "mines"), label)
            laid[on_map(grid, hex_from_json(label, at), at)] = _mines(raw, at)
        return HexField(grid=grid, terrain=terrain, mines=laid, mu_per_hex=mu_per_hex)
    plain = {k: v for k, v in obj.items() if k != "terrain"}
    raw_areas = get_list(obj, "terrain", path, default=True)
    stripped = [{k: v for k, v in as_object(a, child(child(path, "terrain"), i)).items()
                 if k not in ("mines", "exact")} for i, a in enumerate(raw_areas)]
    width, height, found = areas_from_json({**plain, "terrain": stripped}, path, key="going",
                                           kinds=GOINGS, unit="MU", size=(2, 1000))
    areas = []
    for i, ((going, polygon), raw) in enumerate(zip(found, raw_areas, strict=True)):
        spot = as_object(raw, child(child(path, "terrain"), i)).get("mines")
        mines = None if spot is None else _mines(spot, child(child(child(path, "terrain"), i),
                                                               "mines"))
        exact = get_bool(as_object(raw, "terrain"), "exact", child(child(path, "terrain"), i))
        areas.append(Area(going=going, polygon=polygon, mines=mines, exact=exact))
    return PlaneField(width=width, height=height, areas=tuple(areas))


__all__ = ["EDGES", "Facing", "HexField", "PlaneField", "Pos", "field_from_json"]
