"""Ancient Foes 2 movement: a band moves as one, straight, at its slowest unit's speed ± terrain."""

from __future__ import annotations

from dataclasses import dataclass

from rules.ancient_foes.battlefield import ROUGH, Battlefield, FieldBand, Terrain
from rules.ancient_foes.combat import Modifier
from rules.ancient_foes.units import UnitType
from rules.hexgrid import Hex, distance, format_label, line

__all__ = [
    "Allowance",
    "BandMove",
    "move_band",
    "movement_allowance",
    "movement_cost",
]


@dataclass(frozen=True, kw_only=True)
class Allowance:
    """How far a band may move (cm): its speed and every movement modifier."""

    speed: int
    modifiers: tuple[Modifier, ...]

    @property
    def total(self) -> int:
        """Speed plus modifiers, never below 0."""
        return max(0, self.speed + sum(m.value for m in self.modifiers))

    def as_dict(self) -> dict[str, object]:
        return {
            "speed": self.speed,
            "modifiers": [{"rule": m.rule, "value": m.value} for m in self.modifiers],
            "total": self.total,
        }


def movement_allowance(
    *, speed: int, on_road: bool = False, in_rough: bool = False, moved_three_times: bool = False
) -> Allowance:
    """The band movement modifiers: on road +2, in rough terrain −2, moved 3 times in a row −2."""
    mods: list[Modifier] = []
    if on_road:
        mods.append(Modifier(rule="on road", value=2))
    if in_rough:
        mods.append(Modifier(rule="in rough terrain", value=-2))
    if moved_three_times:
        mods.append(Modifier(rule="previously moved 3 times in a row", value=-2))
    return Allowance(speed=speed, modifiers=tuple(mods))


@dataclass(frozen=True, kw_only=True)
class BandMove:
    """A band's move: its allowance, the distance, whether it is legal and where units end."""

    band: str
    allowance: Allowance
    distance_cm: int
    legal: bool
    problems: tuple[str, ...]
    paths: dict[str, tuple[Hex, ...]]

    def as_dict(self) -> dict[str, object]:
        return {
            "band": self.band,
            "allowance": self.allowance.as_dict(),
            "distance_cm": self.distance_cm,
            "legal": self.legal,
            "problems": list(self.problems),
            "units": {name: format_label(path[-1]) for name, path in self.paths.items()},
        }


def move_band(band: FieldBand, *, to: Hex, battlefield: Battlefield) -> BandMove:
    """Move a band so that its first listed unit ends in `to`; the others keep their places.

    The band moves as one in a straight line: every unit shifts by the same hex vector along
    the hex line. Its allowance is its slowest unit's movement, +2 when every hex its units
    stand on or cross is road, −2 when any of them is rough, −2 when it moved 3 times in a row.
    A band cannot cross hexes held by other bands (`battlefield.occupied`) or leave the map.
    Facing (moving only forwards) is not modelled: the players turn the band first.
    """
    where: dict[str, Hex] = {}
    for u in band.units:
        assert isinstance(u.hex, Hex), "move_band plays on the hex map"
        where[u.name] = u.hex
    lead = where[band.units[0].name]
    dq, dr = to.q - lead.q, to.r - lead.r
    paths = {name: tuple(line(h, Hex(h.q + dq, h.r + dr))) for name, h in where.items()}
    crossed = {h for path in paths.values() for h in path}
    kinds = {battlefield.terrain_at(h) for h in crossed}
    allowance = movement_allowance(
        speed=band.speed,
        on_road=kinds == {Terrain.ROAD},
        in_rough=bool(kinds & ROUGH),
        moved_three_times=band.moved_three_times,
    )
    dist = distance(lead, to) * battlefield.cm_per_hex
    problems: list[str] = []
    if dist > allowance.total:
        problems.append(
            f"{band.name} may move {allowance.total} cm but this move is {dist} cm; a band moves"
            " no farther than its slowest unit allows."
        )
    off = sorted(h for h in crossed if not battlefield.contains(h))
    if off:
        problems.append(f"{band.name} would leave the map.")
    blocked = sorted(h for h in crossed if h in battlefield.occupied)
    if blocked:
        problems.append(
            f"{band.name} would cross {format_label(blocked[0])}, held by another band; bands"
            " cannot walk over other bands (change formation or go around)."
        )
    return BandMove(band=band.name, allowance=allowance, distance_cm=dist, legal=not problems,
                    problems=tuple(problems), paths=paths)


def movement_cost(
    unit: UnitType, from_hex: Hex, to_hex: Hex, battlefield: Battlefield, *, side: object = None
) -> int | None:
    """The cm a unit spends entering an adjacent hex: the map's cm per hex, whatever the terrain
    (terrain changes a whole move's allowance, see `move_band`); None off the map, into a hex
    held by another band, or for a hex that is not adjacent."""
    if distance(from_hex, to_hex) != 1:
        return None
    if not battlefield.contains(to_hex) or to_hex in battlefield.occupied:
        return None
    return battlefield.cm_per_hex
