"""Shared value types of the Erfworld ruleset: terrain, specials, unit stats, sides."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Terrain(enum.StrEnum):
    OPEN = "open"
    ROAD = "road"
    HILLS = "hills"
    WOODS = "woods"
    SWAMP = "swamp"


class Special(enum.StrEnum):
    SCOUT = "scout"
    COMMANDER = "commander"
    RANGED = "ranged"
    SIEGE = "siege"
    FLYING = "flying"
    WOODS = "woods"
    HILLS = "hills"
    SWAMP = "swamp"


# The terrain capabilities a unit can buy, keyed by the terrain they cover.
TERRAIN_CAPABILITIES: dict[Terrain, Special] = {
    Terrain.WOODS: Special.WOODS,
    Terrain.HILLS: Special.HILLS,
    Terrain.SWAMP: Special.SWAMP,
}


class MovementClass(enum.StrEnum):
    GARRISON = "garrison"
    INFANTRY = "infantry"
    CAVALRY = "cavalry"


class SideKind(enum.StrEnum):
    ALLIANCE = "alliance"
    OPPOSITION = "opposition"


@dataclass(frozen=True, kw_only=True)
class UnitStats:
    """A unit type's design: Hits, Attack, Defence, Move and bought specials."""

    hits: int
    attack: int
    defence: int
    move: int
    specials: frozenset[Special] = field(default_factory=frozenset)

    def has(self, special: Special) -> bool:
        return special in self.specials

    @property
    def movement_class(self) -> MovementClass:
        if self.move == 0:
            return MovementClass.GARRISON
        if self.move <= 2:
            return MovementClass.INFANTRY
        return MovementClass.CAVALRY

    @property
    def heavy(self) -> bool:
        return self.hits > 7
