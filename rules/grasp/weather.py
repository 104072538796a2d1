"""GRASP's climate: the weather table a side throws on its maximum pips, the wind that comes
with it and what weather in force does to ranges and moves.

The source's table lost its layout (its cells run one under another). It is read here as
eleven rows for the 2d6 totals 2–12, in the order the cells come, which the two rules under
the table confirm (2 is the fatigue bonus, 8 and 9 make a terrain piece one level more
severe); the wind column's six cells are read as the dice's difference 1–5 in the order they
come, then 0 ("No wind / tide"). docs/rules/grasp.md lists these readings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from rules.grasp.combat import Level
from rules.grasp.dielevels import DieLevel
from rules.grasp.field import Pos
from rules.grasp.terrain import TerrainClass

Kind = Literal["fair", "environment", "wind", "harder", "double", "strike", "catastrophe"]


@dataclass(frozen=True, kw_only=True)
class Row:
    """One row of the weather table: what it does and how long it holds (`turns` None: 1d6
    turns are rolled; 0: until a side rolls its maximum pips)."""

    kind: Kind
    turns: int | None
    text: str
    strike: DieLevel | None = None  # the close combat die that strikes the units it hits
    harden: TerrainClass | None = None  # the going of the terrain piece made more severe


TABLE: dict[int, Row] = {
    2: Row(kind="fair", turns=None, text="perfect conditions: +1 fatigue to one unit a side "
           "a turn (not in close combat)"),
    3: Row(kind="environment", turns=2, text="environmental terrain for 2 turns"),
    4: Row(kind="environment", turns=1, text="environmental terrain for 1 turn"),
    5: Row(kind="wind", turns=1, text="the wind alone, for 1 turn"),
    6: Row(kind="wind", turns=2, text="the wind alone, for 2 turns"),
    7: Row(kind="wind", turns=3, text="the wind alone, for 3 turns"),
    8: Row(kind="harder", turns=1, text="a random light terrain piece becomes difficult",
           harden=TerrainClass.LIGHT),
    9: Row(kind="harder", turns=1, text="a random difficult terrain piece becomes impassable",
           harden=TerrainClass.DIFFICULT),
    10: Row(kind="double", turns=0, text="double all fatigue on losses, until a side rolls its "
            "maximum pips"),
    11: Row(kind="strike", turns=1, text="all units in difficult terrain are struck at d4, for "
            "1 turn", strike=DieLevel.D4),
    12: Row(kind="catastrophe", turns=2, text="a catastrophic event: all units are struck at "
            "d6, for 2 turns", strike=DieLevel.D6),
}

# The dice's difference → the wind's effect while the weather holds.
WIND: dict[int, str] = {
    0: "no wind",
    1: "½ command and fire range (unless advanced command or a +Tech range)",
    2: "½ move for flyers and swimmers moving against the wind, +½ moving with it",
    3: "½ move for flyers and tunnellers",
    4: "½ move on the ground",
    5: "¼ command and fire range",
}
# The direction d4: where the wind blows to (1 north to south, 2 east to west …).
BLOWING = {1: "S", 2: "W", 3: "N", 4: "E"}
FROM = {"S": "north", "W": "east", "N": "south", "E": "west"}
ENVIRONMENT_MU2 = 4  # an environmental terrain event covers at most 4 MU²


@dataclass(frozen=True, kw_only=True)
class Weather:
    """A weather event in force: its row (2d6 total), the wind (the dice's difference) and
    where it blows, the side that threw it, the turn it came and the last turn it holds (0:
    until a side rolls its maximum pips). An environmental event also has its quarter of the
    field and, once its side placed it, its piece and the ground under each place."""

    total: int
    wind: int
    blowing: str
    side: str
    thrown: int
    until: int
    sector: str = ""
    piece: tuple[Pos, ...] = ()
    was: tuple[TerrainClass, ...] = ()

    @property
    def row(self) -> Row:
        return TABLE[self.total]


def holds(w: Weather, turn: int) -> bool:
    return w.until == 0 or w.until >= turn


def range_factor(weather: Sequence[Weather], *, advanced: bool) -> Fraction:
    """What the wind leaves of a command or fire range: ½ (not for advanced command or a
    +Tech range) and ¼ (for all), each wind in force counting."""
    f = Fraction(1)
    for w in weather:
        if w.wind == 1 and not advanced:
            f /= 2
        elif w.wind == 5:
            f /= 4
    return f


def move_factor(weather: Sequence[Weather], *, level: Level, way: int,
                swimmer: bool = False) -> Fraction:
    """What the wind does to a move at `level` (below the surface a swimmer swims, anyone
    else tunnels); `way` is +1 going with the wind, −1 against it, 0 across it."""
    flying, below = level > Level.SURFACE, level < Level.SURFACE
    f = Fraction(1)
    for w in weather:
        if w.wind == 2 and (flying or below and swimmer) and way:
            f *= Fraction(1, 2) if way < 0 else Fraction(3, 2)
        elif (w.wind == 3 and (flying or below and not swimmer)) or (
                w.wind == 4 and level == Level.SURFACE):
            f /= 2  # flyers and tunnellers (3), units on the ground (4)
    return f


def scaled(value: int, factor: Fraction) -> int:
    """A range or move after the weather: rounded down, never below 1 MU (0 stays 0)."""
    if factor == 1 or value <= 0:
        return value
    return max(1, int(value * factor))
