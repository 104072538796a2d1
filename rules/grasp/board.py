"""A GRASP table laid out as hexes for campaign play: the going of each hex and its size in MU."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.grasp.dielevels import GraspError
from rules.grasp.terrain import Mover, TerrainClass, hex_entry_cost
from rules.hexgrid import Hex, distance


@dataclass(frozen=True, kw_only=True)
class Board:
    """`terrain` lists the hexes on the map (good going unless said otherwise); `mu_per_hex` is
    the campaign's scale setting (how many MU one hex is across)."""

    hexes: frozenset[Hex]
    terrain: Mapping[Hex, TerrainClass] = field(default_factory=dict)
    mu_per_hex: int = 1

    def __post_init__(self) -> None:
        if self.mu_per_hex < 1:
            raise GraspError("A hex is at least 1 MU across (the campaign's scale setting).")

    def going(self, h: Hex) -> TerrainClass:
        return self.terrain.get(h, TerrainClass.GOOD)


def movement_cost(unit: Mover, from_hex: Hex, to_hex: Hex, board: Board) -> int | None:
    """MU of move to step into a neighbouring hex (None: off the map, not adjacent, impassable)."""
    if to_hex not in board.hexes or distance(from_hex, to_hex) != 1:
        return None
    return hex_entry_cost(board.going(to_hex), unit, mu_per_hex=board.mu_per_hex)
