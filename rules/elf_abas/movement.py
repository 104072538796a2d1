"""ELF ABAS movement: terrain, who may enter a hex, paths, retreats and move/attack plans."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from rules import pathing
from rules.elf_abas.units import Force, Kind, UnitError, move_allowance, plural
from rules.hexgrid import Grid, Hex, distance, format_label, line, neighbors

__all__ = [
    "DENSE",
    "EFFECT_REDUCTION",
    "Board",
    "MovementError",
    "Occupant",
    "Terrain",
    "check_plan",
    "entry_refusal",
    "movement_cost",
    "move_path",
    "retreat_path",
]


class MovementError(UnitError):
    """A move the ELF ABAS rules do not allow."""


class Terrain(enum.StrEnum):
    OPEN = "open"
    WOODS = "woods"
    HILLS = "hills"
    DENSE_FOREST = "dense_forest"
    ROCKY = "rocky"
    VILLAGE = "village"
    DEEP_WATER = "deep_water"


# "Built up or dense terrain areas (dense forests, rocky terrain, and villages)".
DENSE = frozenset({Terrain.DENSE_FOREST, Terrain.ROCKY, Terrain.VILLAGE})
# Effects the terrain of the target's hex takes off: "built-up obstacles typically a −1".
EFFECT_REDUCTION: dict[Terrain, int] = {t: (1 if t in DENSE else 0) for t in Terrain}


def entry_refusal(force: Force, terrain: Terrain) -> str | None:
    """Why `force` may not enter a hex of `terrain`, or None when it may."""
    if terrain is Terrain.DEEP_WATER:
        return "No Unit may enter deep water."
    if force.unit is Kind.MOUNTED and terrain in DENSE:
        return f"Mounted Units cannot enter built-up or dense terrain ({terrain.value})."
    return None


@dataclass(frozen=True, kw_only=True)
class Occupant:
    """A force on the map and the side it belongs to."""

    side: str
    force: Force


@dataclass(frozen=True, kw_only=True)
class Board:
    """The map as movement sees it: terrain (others open) and the forces in their hexes."""

    grid: Grid
    terrain: Mapping[Hex, Terrain] = field(default_factory=dict)
    occupants: Mapping[Hex, Occupant] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "terrain", MappingProxyType(dict(self.terrain)))
        object.__setattr__(self, "occupants", MappingProxyType(dict(self.occupants)))
        for what, hexes in (("terrain", self.terrain), ("a force", self.occupants)):
            for h in hexes:
                if not self.grid.contains(h):
                    raise MovementError(
                        f"Hex (q={h.q}, r={h.r}) given for {what} is not on the"
                        f" {self.grid.cols} × {self.grid.rows} map."
                    )

    def terrain_at(self, h: Hex) -> Terrain:
        return self.terrain.get(h, Terrain.OPEN)


def _joins(force: Force, there: Occupant, side: str) -> bool:
    """A lone Leader/Hero may join a friendly force lacking that figure (one of each a hex)."""
    if force.unit is not None or there.side != side:
        return False
    other = there.force
    return not (force.leader and other.leader) and not (force.hero and other.hero)


def movement_cost(
    force: Force, from_hex: Hex, to_hex: Hex, board: Board, *, side: str
) -> int | None:
    """1 to step into an adjacent hex; None where the force may not go.

    Nobody enters deep water, Mounted Units no dense or built-up terrain, and no force moves
    into or through another Unit; a lone Leader or Hero may end its move joining a friendly
    force that has no such figure yet.
    """
    if distance(from_hex, to_hex) != 1 or not board.grid.contains(to_hex):
        return None
    if entry_refusal(force, board.terrain_at(to_hex)) is not None:
        return None
    there = board.occupants.get(to_hex)
    if there is not None and not _joins(force, there, side):
        return None
    return 1


def _friendly_stops(force: Force, board: Board, side: str) -> list[Hex]:
    return [h for h, o in board.occupants.items() if _joins(force, o, side)]


def move_path(
    force: Force, board: Board, *, start: Hex, goal: Hex, side: str, attacking: bool = True
) -> pathing.Path | None:
    """The shortest legal move from start to goal within the force's allowance, or None."""
    return pathing.cheapest_path(
        start=start,
        goal=goal,
        allowance=move_allowance(force, attacking=attacking),
        step_cost=lambda a, b, _left: movement_cost(force, a, b, board, side=side),
        grid=board.grid,
        stop_at=_friendly_stops(force, board, side),
    )


def retreat_path(
    force: Force, board: Board, *, start: Hex, entry: Hex, side: str, hexes: int
) -> tuple[Hex, ...]:
    """The hexes a retreat of `hexes` hexes moves through toward the entry point (start first).

    Each step goes to an adjacent hex one step nearer the entry point ("by the most direct
    way possible"): the next hex of the straight line when it can be entered, otherwise the
    first other such hex in direction order (N, NE, SE, S, SW, NW). The retreat stops short
    when no such hex can be entered or the entry point is reached; the steps it could not
    make become Casualties.
    """
    if hexes < 0:
        raise MovementError(f"A retreat is 0 hexes or more, not {hexes}.")
    path = [start]
    here = start
    for _ in range(hexes):
        gap = distance(here, entry)
        if gap == 0:
            break
        straight = line(here, entry)[1]
        candidates = [straight] + [n for n in neighbors(here).values() if n != straight]
        step = next(
            (
                n
                for n in candidates
                if distance(n, entry) == gap - 1
                and board.grid.contains(n)
                and entry_refusal(force, board.terrain_at(n)) is None
                and n not in board.occupants
            ),
            None,
        )
        if step is None:
            break
        path.append(step)
        here = step
    return tuple(path)


MOVE = "move"
ATTACK = "attack"


def check_plan(force: Force, plan: Sequence[str]) -> list[str]:
    """The rules an activation plan breaks; the plan lists "move" (one hex) and "attack".

    A force may attack at any point of its move (before, between two hexes or after) but
    only once; a Scout that attacks moves 1, one that does not moves 2; a Spent force
    cannot attack.
    """
    errors: list[str] = []
    unknown = [p for p in plan if p not in (MOVE, ATTACK)]
    if unknown:
        return [f"A plan lists only 'move' and 'attack' steps, not {unknown[0]!r}."]
    attacks = plan.count(ATTACK)
    moves = plan.count(MOVE)
    if attacks > 1:
        errors.append(
            "A force attacks once per activation (it may split its dice between targets)."
        )
    if attacks and force.spent:
        errors.append(f"{force.label} is Spent and cannot attack.")
    allowance = move_allowance(force, attacking=attacks > 0)
    if moves > allowance:
        extra = ""
        if force.unit is Kind.SCOUT and attacks:
            extra = " (a Scout that attacks moves 1; it moves 2 only by giving up its attack)"
        errors.append(
            f"{force.label} may move {plural(allowance, 'hex', 'hexes')}, not {moves}{extra}."
        )
    return errors


def labels(hexes: Sequence[Hex]) -> list[str]:
    return [format_label(h) for h in hexes]
