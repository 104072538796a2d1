"""Ancient Foes 2 on a hex map: cm per hex, terrain, units placed in hexes, bands on the field.

The source measures in cm. A campaign plays it on a hex map through one scale setting,
`cm_per_hex` (default 2: every distance in the source — moves, ranges, modifiers, the 20 cm
command range, the 30 cm between armies — is a multiple of 2 cm, so nothing is rounded). A
distance between two units is their hex distance × cm_per_hex. "Within 1 cm" (fighting range)
means base-to-base contact, which on a hex map is an adjacent hex at every scale.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType

from rules.ancient_foes.units import UnitType, derive_stats
from rules.hexgrid import Grid, Hex, distance, format_label, line, neighbors
from rules.plane import EdgeGap, Point, cuts, dist2, inside

Pos = Hex | Point
Cm = int | EdgeGap

__all__ = [
    "COMMAND_RANGE_CM",
    "DEFAULT_CM_PER_HEX",
    "FIGHTING_RANGE_HEXES",
    "MAX_UNITS_PER_BAND",
    "ROUGH",
    "BandError",
    "BandUnit",
    "Battlefield",
    "PlaneBattlefield",
    "FieldBand",
    "Terrain",
    "band_distance_cm",
    "check_apart",
    "cm_to_hexes",
    "has_gaps",
    "hexes_to_cm",
    "in_fighting_range",
]

DEFAULT_CM_PER_HEX = 2
FIGHTING_RANGE_HEXES = 1
COMMAND_RANGE_CM = 20
MAX_UNITS_PER_BAND = 8


class BandError(ValueError):
    """A band (or its placement) that the band rules do not allow."""


class Terrain(enum.StrEnum):
    OPEN = "open"
    ROAD = "road"
    WOODS = "woods"
    SWAMP = "swamp"
    HILL = "hill"
    SHALLOWS = "shallows"
    ROUGH = "rough"


# "Rough terrain (woods, swamps, hills, shallows, etc.)"; `rough` stands for the "etc.".
ROUGH = frozenset({Terrain.WOODS, Terrain.SWAMP, Terrain.HILL, Terrain.SHALLOWS, Terrain.ROUGH})


def hexes_to_cm(hexes: int, *, cm_per_hex: int = DEFAULT_CM_PER_HEX) -> int:
    """A hex distance in cm at the campaign's scale."""
    _check_scale(cm_per_hex)
    return hexes * cm_per_hex


def cm_to_hexes(cm: int, *, cm_per_hex: int = DEFAULT_CM_PER_HEX) -> int:
    """How many whole hexes a distance in cm reaches (rounded down: a move or range that does not
    reach the next hex does not enter it)."""
    _check_scale(cm_per_hex)
    return max(0, cm) // cm_per_hex


def _check_scale(cm_per_hex: int) -> None:
    if cm_per_hex < 1:
        raise ValueError(f"The map scale must be at least 1 cm per hex, not {cm_per_hex}.")


@dataclass(frozen=True, kw_only=True)
class Battlefield:
    """The hex map as Ancient Foes 2 sees it: scale, terrain (others open), optional bounds,
    and the hexes held by bands other than the one moving (`occupied`)."""

    cm_per_hex: int = DEFAULT_CM_PER_HEX
    terrain: Mapping[Hex, Terrain] = field(default_factory=dict)
    grid: Grid | None = None
    occupied: frozenset[Pos] = frozenset()

    def __post_init__(self) -> None:
        _check_scale(self.cm_per_hex)
        object.__setattr__(self, "terrain", MappingProxyType(dict(self.terrain)))
        if self.grid is not None:
            for h in self.terrain:
                if not self.grid.contains(h):
                    raise BandError(f"Terrain is given for {_name(h)}, which is off the map.")

    def terrain_at(self, h: Pos) -> Terrain:
        assert isinstance(h, Hex)
        return self.terrain.get(h, Terrain.OPEN)

    def contains(self, h: Hex) -> bool:
        return self.grid is None or self.grid.contains(h)

    def distance_cm(self, a: Pos, b: Pos) -> Cm:
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return distance(a, b) * self.cm_per_hex

    def in_contact(self, a: Pos, b: Pos) -> bool:
        """Within fighting range ("within 1 cm"): base to base, an adjacent hex."""
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return distance(a, b) <= FIGHTING_RANGE_HEXES

    def woods_on_line(self, a: Pos, b: Pos) -> bool:
        """A woods hex on the line from a to b, b's included and a's own excluded."""
        assert isinstance(a, Hex) and isinstance(b, Hex)
        return any(self.terrain_at(h) is Terrain.WOODS for h in line(a, b)[1:])

    def gaps(self, positions: frozenset[Pos]) -> bool:
        return has_gaps(frozenset(p for p in positions if isinstance(p, Hex)))


@dataclass(frozen=True, kw_only=True)
class PlaneBattlefield:
    """The continuous table in cm: each unit is a base `base_cm` across (a disc about its
    position); distances are between base edges, exactly (`EdgeGap`); terrain is polygons,
    the last listed that holds a point giving its terrain; `occupied` as on the hex map."""

    width: int
    height: int
    base_cm: int = 4
    areas: tuple[tuple[Terrain, tuple[Point, ...]], ...] = ()
    occupied: frozenset[Pos] = frozenset()
    cm_per_hex: int = 1  # unused on the table; kept so every board answers it

    def terrain_at(self, p: Pos) -> Terrain:
        assert isinstance(p, Point)
        found = Terrain.OPEN
        for terrain, polygon in self.areas:
            if inside(p, polygon):
                found = terrain
        return found

    def contains(self, p: Pos) -> bool:
        half = Fraction(self.base_cm, 2)
        return isinstance(p, Point) and half <= p.x <= self.width - half \
            and half <= p.y <= self.height - half

    def distance_cm(self, a: Pos, b: Pos) -> Cm:
        assert isinstance(a, Point) and isinstance(b, Point)
        return EdgeGap(dist2(a, b), Fraction(self.base_cm))

    def in_contact(self, a: Pos, b: Pos) -> bool:
        gap = self.distance_cm(a, b)
        return gap <= 1

    def overlap(self, a: Pos, b: Pos) -> bool:
        assert isinstance(a, Point) and isinstance(b, Point)
        return dist2(a, b) < self.base_cm ** 2

    def woods_on_line(self, a: Pos, b: Pos) -> bool:
        """The line from a to b enters a woods area the firer does not stand in (firing into
        or over woods), or the target stands in woods."""
        assert isinstance(a, Point) and isinstance(b, Point)
        for terrain, polygon in self.areas:
            if terrain is not Terrain.WOODS or inside(a, polygon):
                continue
            if inside(b, polygon) or cuts(a, b, polygon):
                return True
        return False

    def gaps(self, positions: frozenset[Pos]) -> bool:
        """Whether the bases are not one group each touching the next (within 1 cm)."""
        points = [p for p in positions if isinstance(p, Point)]
        if len(points) <= 1:
            return False
        seen = {points[0]}
        todo = [points[0]]
        while todo:
            here = todo.pop()
            for p in points:
                if p not in seen and self.in_contact(here, p):
                    seen.add(p)
                    todo.append(p)
        return len(seen) != len(points)


AnyBattlefield = Battlefield | PlaneBattlefield


def cm_json(cm: Cm) -> int | float:
    """A distance for JSON: whole cm on the hex map, cm to two decimals on the table."""
    return cm if isinstance(cm, int) else float(str(cm))


def _name(h: Pos) -> str:
    if isinstance(h, Point):
        def num(x: Fraction) -> str:
            return str(x.numerator) if x.denominator == 1 else format(float(x), "g")

        return f"{num(h.x)}, {num(h.y)}"
    try:
        return format_label(h)
    except ValueError:
        return f"(q={h.q}, r={h.r})"


@dataclass(frozen=True, kw_only=True)
class BandUnit:
    """A unit on the field: its name, classification and hex."""

    name: str
    unit_type: UnitType
    hex: Pos  # a hex, or a point on the continuous table

    @property
    def label(self) -> str:
        return _name(self.hex)


@dataclass(frozen=True, kw_only=True)
class FieldBand:
    """A band of 1–8 units on the field, in the order they were listed, with its circumstances.

    `moved_three_times`: the band moved in each of its last three orders/turns ("previously
    moved 3 times in a row"). `leader_fell_last_round`: a leader of its army fell in the last round.
    """

    name: str
    units: tuple[BandUnit, ...]
    moved_three_times: bool = False
    leader_fell_last_round: bool = False

    def __post_init__(self) -> None:
        if not self.units:
            raise BandError(f"Band {self.name!r} has no units; a band is 1 to 8 units.")
        if len(self.units) > MAX_UNITS_PER_BAND:
            raise BandError(
                f"Band {self.name!r} has {len(self.units)} units; a band is 1 to"
                f" {MAX_UNITS_PER_BAND} units."
            )
        if len(self.units) > 1 and any(u.unit_type.leader for u in self.units):
            raise BandError(
                f"Band {self.name!r} has a leader with other units; leaders must be in a"
                " single-unit band by themselves."
            )
        names = [u.name for u in self.units]
        if len(set(names)) != len(names):
            raise BandError(f"Band {self.name!r} names a unit twice; unit names must differ.")
        hexes = [u.hex for u in self.units]
        if len(set(hexes)) != len(hexes):
            raise BandError(f"Band {self.name!r} has two units in one hex; each unit has its own.")

    @property
    def is_leader(self) -> bool:
        return len(self.units) == 1 and self.units[0].unit_type.leader

    @property
    def speed(self) -> int:
        """The band's speed in cm: the movement of its slowest unit."""
        return min(derive_stats(u.unit_type).movement for u in self.units)

    def hexes(self) -> frozenset[Pos]:
        return frozenset(u.hex for u in self.units)


def band_distance_cm(unit: BandUnit, band: Sequence[BandUnit], field_: AnyBattlefield) -> Cm:
    """The distance from a unit to the nearest unit of a band (the band must have units)."""
    if not band:
        raise BandError("A band with no units left has no distance.")
    return min(field_.distance_cm(unit.hex, u.hex) for u in band)


def in_fighting_range(a: Sequence[BandUnit], b: Sequence[BandUnit],
                      field_: AnyBattlefield | None = None) -> bool:
    """Whether any unit of a is within fighting range of any unit of b (on the hex map an
    adjacent hex; on the table base edges at most 1 cm apart)."""
    board = field_ if field_ is not None else Battlefield()
    return any(board.in_contact(x.hex, y.hex) for x in a for y in b)


def has_gaps(hexes: frozenset[Hex]) -> bool:  # the hex map's test (PlaneBattlefield.gaps)
    """Whether a band's hexes are not one connected group (bands stay base-to-base, no gaps)."""
    if len(hexes) <= 1:
        return False
    start = min(hexes)
    seen = {start}
    todo = [start]
    while todo:
        h = todo.pop()
        for n in neighbors(h).values():
            if n in hexes and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) != len(hexes)


def check_apart(bands: Sequence[FieldBand]) -> None:
    """Bands cannot stand on one another: every unit of these bands has its own hex."""
    seen: dict[Pos, str] = {}
    for band in bands:
        for u in band.units:
            if u.hex in seen:
                raise BandError(
                    f"{u.name!r} of {band.name!r} and {seen[u.hex]!r} are both in {u.label};"
                    " bands cannot walk over other bands."
                )
            seen[u.hex] = u.name



