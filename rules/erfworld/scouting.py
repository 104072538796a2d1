"""Erfworld §5 scout phase: validating scout orders and what a sighting of a hex shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.erfworld.board import Board
from rules.erfworld.types import SideKind, Special, Terrain, UnitStats
from rules.hexgrid import Direction, Hex, format_label, neighbor

__all__ = [
    "FortificationSighting",
    "ObservedStack",
    "ObservedUnit",
    "ScoutOrderError",
    "Sighting",
    "parse_directions",
    "scout_range",
    "sighting",
    "validate_scout_order",
]


class ScoutOrderError(ValueError):
    """A scout order the §5 rules do not allow; the message says which rule."""


def scout_range(move: int) -> int:
    """How many hexes a scout with this Move may inspect: M + floor(M / 2) (§5)."""
    return move + move // 2


def parse_directions(directions: Sequence[str | Direction]) -> tuple[Direction, ...]:
    """Directions given as "N", "NE", "SE", "S", "SW", "NW" (or Direction members)."""
    out: list[Direction] = []
    for i, d in enumerate(directions, start=1):
        if isinstance(d, Direction):
            out.append(d)
            continue
        try:
            out.append(Direction[d])
        except KeyError:
            raise ScoutOrderError(
                f"Step {i} of the scout path is {d!r}; a step must be one of the directions "
                "N, NE, SE, S, SW or NW (§5)."
            ) from None
    return tuple(out)


def validate_scout_order(
    *,
    scout: UnitStats,
    scout_hex: Hex,
    commander_in_hex: bool,
    directions: Sequence[str | Direction],
    board: Board,
) -> tuple[Hex, ...]:
    """Check a scout order and return the inspected hexes, one per step, in order.

    §5: the unit has the scout special and stands in the same hex as a friendly commander;
    the path is a list of directions whose first step starts at the scout's hex; it has at
    most M + floor(M / 2) steps, and every step stays on the map. The scout itself stays put.
    """
    if not scout.has(Special.SCOUT):
        raise ScoutOrderError("Only units with the scout special can be given scout orders (§5).")
    if not board.grid.contains(scout_hex):
        raise ScoutOrderError("The scout's hex is not on the map.")
    if not commander_in_hex:
        raise ScoutOrderError(
            f"The scout in {format_label(scout_hex)} can take orders only while a commander "
            "of its side is in the same hex (§5)."
        )
    steps = parse_directions(directions)
    limit = scout_range(scout.move)
    if not steps:
        raise ScoutOrderError("A scout order needs at least one direction to inspect (§5).")
    if len(steps) > limit:
        raise ScoutOrderError(
            f"The scout path has {len(steps)} step{'' if len(steps) == 1 else 's'}, but a scout "
            f"with Move {scout.move} may "
            f"inspect at most {limit} hexes (M + floor(M / 2), §5)."
        )
    inspected: list[Hex] = []
    here = scout_hex
    for i, d in enumerate(steps, start=1):
        here = neighbor(here, d)
        if not board.grid.contains(here):
            raise ScoutOrderError(
                f"Step {i} of the scout path ({d.name}) leaves the map; every inspected hex "
                "must be on the map (§5)."
            )
        inspected.append(here)
    return tuple(inspected)


@dataclass(frozen=True, kw_only=True)
class ObservedUnit:
    """A unit as the scouted hex holds it: its name, its unit type's name and current hits."""

    name: str
    unit_type: str
    current_hits: int


@dataclass(frozen=True, kw_only=True)
class ObservedStack:
    """A stack in the scouted hex; `fortification` names the fortification it is in, if any."""

    side: SideKind
    units: tuple[ObservedUnit, ...]
    fortification: str | None = None


@dataclass(frozen=True, kw_only=True)
class FortificationSighting:
    """A tower (direction None) or one walled hexside of the hex, with its hits."""

    kind: str  # "tower" or "wall"
    hits: int
    direction: Direction | None = None


@dataclass(frozen=True, kw_only=True)
class Sighting:
    """What a side learns about one inspected hex when the scout phase closes (§5)."""

    hex: Hex
    terrain: Terrain
    road: bool
    stacks: tuple[ObservedStack, ...]
    fortifications: tuple[FortificationSighting, ...]


def sighting(*, hex: Hex, board: Board, stacks: Sequence[ObservedStack]) -> Sighting:
    """The sighting of `hex`: terrain, road, every stack with its units' names, types and
    current hits (in the order given), and the hex's tower and walled hexsides with their
    hits (tower first, then walls in direction order N, NE, SE, S, SW, NW)."""
    if not board.grid.contains(hex):
        raise ScoutOrderError("A sighting can only be made of a hex on the map.")
    forts: list[FortificationSighting] = []
    tower = board.towers.get(hex)
    if tower is not None:
        forts.append(FortificationSighting(kind="tower", hits=tower.hits))
    for d, hits in board.walled_sides(hex).items():
        forts.append(FortificationSighting(kind="wall", hits=hits, direction=d))
    terrain = board.terrain_at(hex)
    return Sighting(
        hex=hex,
        terrain=terrain,
        road=terrain is Terrain.ROAD,
        stacks=tuple(stacks),
        fortifications=tuple(forts),
    )
