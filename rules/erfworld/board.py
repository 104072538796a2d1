"""What Erfworld movement needs to know about the map: terrain, towers, walls, owners, stacks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeVar

from rules.erfworld.types import SideKind, Terrain
from rules.hexgrid import Direction, Grid, Hex, direction_to, format_label, parse_label

__all__ = ["Board", "BoardError", "Tower", "board_from_labels", "other_side"]


class BoardError(ValueError):
    """A map description that does not make sense (hex off the map, unknown terrain, …)."""


def other_side(side: SideKind) -> SideKind:
    """The side opposing `side`."""
    return SideKind.OPPOSITION if side is SideKind.ALLIANCE else SideKind.ALLIANCE


@dataclass(frozen=True, kw_only=True)
class Tower:
    """A tower in a hex: its current hits (destroyed at 0) and the side holding it."""

    hits: int
    owner: SideKind

    def __post_init__(self) -> None:
        if self.hits < 0:
            raise BoardError(f"A tower's hits must be 0 or more, not {self.hits}.")


K = TypeVar("K")
V = TypeVar("V")


def _frozen(m: Mapping[K, V]) -> Mapping[K, V]:
    return MappingProxyType(dict(m))


@dataclass(frozen=True, kw_only=True)
class Board:
    """The map as movement sees it.

    - terrain: hexes not listed are open; road is a terrain.
    - towers: at most one tower per hex.
    - walls: hits of each walled hexside, keyed by (fortified hex, direction of the side).
    - fort_owners: the side holding each fortified hex (a hex with a tower or walls); a
      hex with a tower and no entry here is held by the tower's owner.
    - stacks: for each side, the hexes holding at least one of its stacks.
    """

    grid: Grid
    terrain: Mapping[Hex, Terrain] = field(default_factory=dict)
    towers: Mapping[Hex, Tower] = field(default_factory=dict)
    walls: Mapping[tuple[Hex, Direction], int] = field(default_factory=dict)
    fort_owners: Mapping[Hex, SideKind] = field(default_factory=dict)
    stacks: Mapping[SideKind, frozenset[Hex]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("terrain", "towers", "walls", "fort_owners", "stacks"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        for h in self.terrain:
            self._check_on_map(h, "terrain")
        for h, tower in self.towers.items():
            self._check_on_map(h, "a tower")
            owner = self.fort_owners.get(h)
            if owner is not None and owner is not tower.owner:
                raise BoardError(
                    f"The tower in {format_label(h)} is held by the {tower.owner} "
                    f"but the hex is listed as held by the {owner}."
                )
        for (h, d), hits in self.walls.items():
            self._check_on_map(h, "a wall")
            if hits < 0:
                raise BoardError(
                    f"The wall on the {d.name} side of {format_label(h)} has {hits} hits; "
                    "hits must be 0 or more."
                )
            if h not in self.fort_owners and h not in self.towers:
                raise BoardError(
                    f"{format_label(h)} has walls, so it is a fortified hex and needs an owner."
                )
        for h in self.fort_owners:
            self._check_on_map(h, "a fortified hex")
        for hexes in self.stacks.values():
            for h in hexes:
                self._check_on_map(h, "a stack")

    def _check_on_map(self, h: Hex, what: str) -> None:
        if not self.grid.contains(h):
            raise BoardError(
                f"Hex (q={h.q}, r={h.r}) given for {what} is not on the "
                f"{self.grid.cols} × {self.grid.rows} map."
            )

    def terrain_at(self, h: Hex) -> Terrain:
        return self.terrain.get(h, Terrain.OPEN)

    def owner_of(self, h: Hex) -> SideKind | None:
        """The side holding the fortified hex h, or None when h is not fortified."""
        owner = self.fort_owners.get(h)
        if owner is not None:
            return owner
        tower = self.towers.get(h)
        return tower.owner if tower is not None else None

    def is_fortified(self, h: Hex) -> bool:
        return self.owner_of(h) is not None

    def wall_hits(self, a: Hex, b: Hex) -> int:
        """Hits of the wall(s) on the hexside between adjacent hexes a and b (0 when none)."""
        d = direction_to(a, b)
        if d is None:
            raise BoardError(
                f"{format_label(a)} and {format_label(b)} are not adjacent, "
                "so no hexside lies between them."
            )
        return max(self.walls.get((a, d), 0), self.walls.get((b, d.opposite), 0))

    def has_stack(self, h: Hex, side: SideKind) -> bool:
        return h in self.stacks.get(side, frozenset())

    def has_enemy(self, h: Hex, side: SideKind) -> bool:
        """Whether h holds a stack of the side opposing `side`."""
        return self.has_stack(h, other_side(side))

    def counts_as_road(self, h: Hex, side: SideKind) -> bool:
        """A road hex, or a fortified hex held by `side` (which acts as a road for its holder)."""
        return self.terrain_at(h) is Terrain.ROAD or self.owner_of(h) is side

    def opposition_tower(self, h: Hex, side: SideKind) -> Tower | None:
        """The standing tower (hits > 0) in h when the side opposing `side` holds it."""
        tower = self.towers.get(h)
        if tower is None or tower.hits == 0 or self.owner_of(h) is side:
            return None
        return tower

    def walled_sides(self, h: Hex) -> dict[Direction, int]:
        """Hits of every hexside wall of the fortified hex h, in Direction order."""
        return {d: self.walls[(h, d)] for d in Direction if (h, d) in self.walls}


def _label(label: str, where: str) -> Hex:
    try:
        return parse_label(label)
    except ValueError as exc:
        raise BoardError(f"{where}: {exc}") from exc


def _terrain(name: str, where: str) -> Terrain:
    try:
        return Terrain(name)
    except ValueError:
        known = ", ".join(t.value for t in Terrain)
        raise BoardError(f"{where}: unknown terrain {name!r}; use one of {known}.") from None


def _side(name: str | SideKind, where: str) -> SideKind:
    try:
        return SideKind(name)
    except ValueError:
        raise BoardError(f"{where}: unknown side {name!r}; use alliance or opposition.") from None


def board_from_labels(
    *,
    cols: int,
    rows: int,
    terrain: Mapping[str, str] | None = None,
    towers: Mapping[str, tuple[int, str | SideKind]] | None = None,
    walls: Mapping[str, Mapping[str, int]] | None = None,
    fort_owners: Mapping[str, str | SideKind] | None = None,
    stacks: Mapping[str, list[str]] | None = None,
) -> Board:
    """A Board from plain labels (for the calculator CLI and tests).

    terrain: {"B2": "woods", …} (others open); towers: {"J10": (40, "opposition")};
    walls: {"J10": {"N": 30, "NE": 30, …}}; fort_owners: {"J10": "opposition"};
    stacks: {"opposition": ["J10", …]}. Errors name the field and the hex.
    """
    if cols < 1 or rows < 1:
        raise BoardError(f"map: cols and rows must be 1 or more, not {cols} × {rows}.")
    grid = Grid(cols=cols, rows=rows)

    def on_map(label: str, where: str) -> Hex:
        h = _label(label, where)
        if not grid.contains(h):
            raise BoardError(f"{where}: hex {label} is not on the {cols} × {rows} map.")
        return h

    terrain_map = {
        on_map(k, f"terrain[{k}]"): _terrain(v, f"terrain[{k}]") for k, v in (terrain or {}).items()
    }
    tower_map = {
        on_map(k, f"towers[{k}]"): Tower(hits=hits, owner=_side(owner, f"towers[{k}]"))
        for k, (hits, owner) in (towers or {}).items()
    }
    owner_map = {
        on_map(k, f"fort_owners[{k}]"): _side(v, f"fort_owners[{k}]")
        for k, v in (fort_owners or {}).items()
    }
    wall_map: dict[tuple[Hex, Direction], int] = {}
    for k, sides in (walls or {}).items():
        h = on_map(k, f"walls[{k}]")
        for dname, hits in sides.items():
            try:
                d = Direction[dname]
            except KeyError:
                raise BoardError(
                    f"walls[{k}]: unknown direction {dname!r}; use N, NE, SE, S, SW or NW."
                ) from None
            wall_map[(h, d)] = hits
    stack_map = {
        _side(side, f"stacks[{side}]"): frozenset(on_map(x, f"stacks[{side}]") for x in labels)
        for side, labels in (stacks or {}).items()
    }
    return Board(
        grid=grid,
        terrain=terrain_map,
        towers=tower_map,
        walls=wall_map,
        fort_owners=owner_map,
        stacks=stack_map,
    )
