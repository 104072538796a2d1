"""GRASP terrain: classes rolled on a d10, levels on a d6, movement penalties, engineers, mines."""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, replace
from fractions import Fraction

from rules.dice import Dice
from rules.grasp.dielevels import (
    DieLevel,
    DieSpec,
    GraspError,
    PoolRoll,
    format_level,
    roll_pool,
    round_odd,
    step_down,
    steps_of,
)
from rules.grasp.units import Measure

MIN_PENALISED_MOVE = 1  # "½ move (min. 1 MU)", "¼ move (min. 1 MU)"
MINE_DIE_LEVELS_PER_CLASS = 2  # difficult mines d8 → light mines d4 (the mines example)


class TerrainClass(enum.IntEnum):
    """Going, easiest first (the order engineers and fire move terrain along)."""

    GOOD = 0
    LIGHT = 1
    DIFFICULT = 2
    IMPASSABLE = 3

    @property
    def label(self) -> str:
        return self.name.lower()


class TerrainLevel(enum.IntEnum):
    NONE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3

    @property
    def label(self) -> str:
        return self.name.lower()


CLASS_NAMES = tuple(c.label for c in TerrainClass)
LEVEL_NAMES = tuple(lv.label for lv in TerrainLevel)

# Combat modifier to an attacker whose enemy is defended by the terrain.
CLASS_COMBAT_MODIFIER: dict[TerrainClass, int] = {
    TerrainClass.GOOD: 0,
    TerrainClass.LIGHT: -1,
    TerrainClass.DIFFICULT: -2,
    TerrainClass.IMPASSABLE: -4,
}


def terrain_class_for_roll(roll: int) -> TerrainClass:
    """The d10 terrain table: 1–4 good going, 5–7 light, 8–9 difficult, 0 (a 10) impassable."""
    if not 1 <= roll <= 10:
        raise GraspError(f"The terrain table is rolled on a d10 (1–10), not {roll}.")
    if roll <= 4:
        return TerrainClass.GOOD
    if roll <= 7:
        return TerrainClass.LIGHT
    if roll <= 9:
        return TerrainClass.DIFFICULT
    return TerrainClass.IMPASSABLE


def terrain_level_for_roll(roll: int) -> TerrainLevel:
    """The d6 terrain level table: 1–3 low, 4–5 medium, 6 high."""
    if not 1 <= roll <= 6:
        raise GraspError(f"The terrain level table is rolled on a d6 (1–6), not {roll}.")
    if roll <= 3:
        return TerrainLevel.LOW
    if roll <= 5:
        return TerrainLevel.MEDIUM
    return TerrainLevel.HIGH


@dataclass(frozen=True, kw_only=True)
class TerrainRoll:
    class_roll: int
    terrain: TerrainClass
    level_roll: int
    level: TerrainLevel


def roll_terrain(dice: Dice) -> TerrainRoll:
    """Roll a piece of terrain's condition (d10) and its level (d6)."""
    c = dice.roll(10, "terrain class (d10)")
    lv = dice.roll(6, "terrain level (d6)")
    return TerrainRoll(class_roll=c, terrain=terrain_class_for_roll(c), level_roll=lv,
                       level=terrain_level_for_roll(lv))


def harder(terrain: TerrainClass, steps: int = 1) -> TerrainClass:
    return TerrainClass(min(terrain + steps, TerrainClass.IMPASSABLE))


def easier(terrain: TerrainClass, steps: int = 1) -> TerrainClass:
    return TerrainClass(max(terrain - steps, TerrainClass.GOOD))


# -----------------------------------------------------------------------------------------------
# Movement


@dataclass(frozen=True, kw_only=True)
class Mover:
    """What about a unit changes its movement through terrain."""

    small: bool = False
    big: bool = False
    agile: bool = False
    flyer: bool = False
    tunneller: bool = False
    # Fighting in its un-preferred conditions: all terrain one level harder to negotiate.
    unpreferred: bool = False
    # A denizen lives in light or difficult terrain and never leaves it of its own will.
    confined: bool = False

    @property
    def ignores_light(self) -> bool:
        return self.small or self.big or self.agile or self.flyer or self.tunneller

    @property
    def ignores_difficult(self) -> bool:
        return self.small or self.big or self.agile


class LevelChange(enum.StrEnum):
    NONE = "none"
    UP = "up"
    DOWN = "down"


def terrain_factor(terrain: TerrainClass, mover: Mover) -> tuple[Fraction | None, str]:
    """The share of a move allowed in this going (None: no move), and why."""
    if mover.confined and terrain == TerrainClass.GOOD:
        return None, "a denizen does not leave its terrain"
    if mover.unpreferred and terrain != TerrainClass.IMPASSABLE:
        harder_going = harder(terrain)
        factor, why = terrain_factor(harder_going, replace(mover, unpreferred=False))
        return factor, f"un-preferred conditions: {terrain.label} counts as {why}"
    if terrain == TerrainClass.IMPASSABLE:
        return None, "impassable: no move"
    if terrain == TerrainClass.DIFFICULT:
        if mover.ignores_difficult:
            return Fraction(1), "difficult going ignored (small, big or agile)"
        return Fraction(1, 4), "difficult going: ¼ move (min. 1 MU)"
    if terrain == TerrainClass.LIGHT:
        if mover.ignores_light:
            return Fraction(1), "light going ignored (small, big, agile, flyer or tunneller)"
        return Fraction(1, 2), "light going: ½ move (min. 1 MU)"
    return Fraction(1), "good going"


@dataclass(frozen=True, kw_only=True)
class MoveResult:
    base: int
    roll: PoolRoll | None
    terrain: TerrainClass
    factor: Fraction
    exact: Fraction
    distance: int
    steps: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "base_move": self.base,
            "roll": self.roll.to_dict() if self.roll else None,
            "going": self.terrain.label,
            "factor": str(self.factor),
            "exact": str(self.exact),
            "distance": self.distance,
            "explanation": list(self.steps),
        }


def move_distance(
    *,
    move: Measure,
    terrain: TerrainClass,
    mover: Mover,
    dice: Dice,
    unpreferred: bool = False,
    level_change: LevelChange = LevelChange.NONE,
    zero_fatigue: bool = False,
) -> MoveResult:
    """How far a unit moves this turn, in MU: its move (rolled when it is a die), times the
    going's share and the level change's (cumulative), rounded to the nearest odd value."""
    steps: list[str] = []
    roll: PoolRoll | None = None
    if isinstance(move, DieSpec):
        roll = roll_pool(dice, level=move.level, tech_count=move.tech_count, purpose="move",
                         average=move.average)
        base = roll.kept
        steps.append(f"move {move.label} rolled {list(roll.values)}, kept {roll.kept}")
        if zero_fatigue:
            base = max(base + ZERO_FATIGUE_MOVE_PENALTY, 0)
            steps.append(f"no fatigue die left: -1 to the roll → {base}")
    else:
        base = move
        steps.append(f"move {base} MU")
    going = terrain
    if unpreferred and terrain != TerrainClass.IMPASSABLE:
        going = harder(terrain)
        steps.append(f"un-preferred conditions: {terrain.label} going counts as {going.label}")
    factor, why = terrain_factor(going, mover)
    steps.append(why)
    if factor is None:
        return MoveResult(base=base, roll=roll, terrain=going, factor=Fraction(0),
                          exact=Fraction(0), distance=0, steps=tuple(steps))
    penalised = factor < 1
    if level_change == LevelChange.UP:
        factor *= Fraction(1, 2)
        penalised = True
        steps.append("moving up a level: ½ move (min. 1 MU)")
    elif level_change == LevelChange.DOWN:
        factor *= Fraction(3, 2)
        steps.append("moving down a level: 1.5 × move")
    exact = base * factor
    distance = round_odd(exact)
    if exact.denominator != 1:
        steps.append(f"{base} × {factor} = {exact}, rounded to the nearest odd value: {distance}")
    if penalised and base > 0 and distance < MIN_PENALISED_MOVE:
        distance = MIN_PENALISED_MOVE
        steps.append(f"minimum {MIN_PENALISED_MOVE} MU")
    return MoveResult(base=base, roll=roll, terrain=going, factor=factor, exact=exact,
                      distance=distance, steps=tuple(steps))


ZERO_FATIGUE_MOVE_PENALTY = -1


def hex_entry_cost(terrain: TerrainClass, mover: Mover, *, mu_per_hex: int) -> int | None:
    """MU of move spent to cross one hex of this going on a hex map (None: cannot enter):
    ½ move in light going costs double, ¼ move in difficult going four times."""
    factor, _ = terrain_factor(terrain, mover)
    if factor is None:
        return None
    return math.ceil(mu_per_hex / factor)


# -----------------------------------------------------------------------------------------------
# Engineers


@dataclass(frozen=True, kw_only=True)
class EngineeringPlan:
    squares: int
    class_steps: int
    level_steps: int
    modifications: int
    turns: int
    pips: int
    fatigue_before: DieLevel | None
    fatigue_after: DieLevel | None
    engineer_can_finish: bool
    stages: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "squares": self.squares, "class_steps": self.class_steps,
            "level_steps": self.level_steps, "modifications": self.modifications,
            "turns": self.turns, "pips": self.pips, "fatigue_dice": self.modifications,
            "fatigue_before": format_level(self.fatigue_before),
            "fatigue_after": format_level(self.fatigue_after),
            "engineer_can_finish": self.engineer_can_finish, "stages": list(self.stages),
        }


def engineering_plan(
    *,
    from_class: TerrainClass,
    to_class: TerrainClass,
    width: Fraction,
    fatigue: DieLevel | None,
    from_level: TerrainLevel = TerrainLevel.NONE,
    to_level: TerrainLevel = TerrainLevel.NONE,
) -> EngineeringPlan:
    """What an engineer unit spends to change terrain: one class step (or creating/removing low
    terrain) of one 1 MU square costs 1 fatigue die, 1 pip and 1 turn; a feature `width` MU
    across is ceil(width) squares deep."""
    if width <= 0:
        raise GraspError("The terrain to modify must be more than 0 MU across.")
    for level in (from_level, to_level):
        if level > TerrainLevel.LOW:
            raise GraspError(
                "Engineers create or remove low terrain only; medium and high terrain cannot"
                " be engineered."
            )
    squares = math.ceil(width)
    class_steps = abs(to_class - from_class)
    level_steps = abs(to_level - from_level)
    per_square = class_steps + level_steps
    modifications = per_square * squares
    direction = 1 if to_class >= from_class else -1
    stages: list[str] = []
    turn = 0
    for square in range(1, squares + 1):
        current = from_class
        for _ in range(class_steps):
            current = TerrainClass(current + direction)
            turn += 1
            stages.append(f"turn {turn}: square {square} becomes {current.label}")
        if level_steps:
            turn += 1
            stages.append(f"turn {turn}: square {square} becomes {to_level.label} level")
    return EngineeringPlan(
        squares=squares, class_steps=class_steps, level_steps=level_steps,
        modifications=modifications, turns=modifications, pips=modifications,
        fatigue_before=fatigue, fatigue_after=step_down(fatigue, modifications),
        engineer_can_finish=steps_of(fatigue) >= modifications, stages=tuple(stages),
    )


# -----------------------------------------------------------------------------------------------
# Mines


@dataclass(frozen=True, kw_only=True)
class Mines:
    """A minefield: the going it counts as and the close combat die of every contact."""

    going: TerrainClass
    cc: DieSpec | None

    @property
    def cleared(self) -> bool:
        return self.going == TerrainClass.GOOD or self.cc is None

    def to_dict(self) -> dict[str, object]:
        return {"going": self.going.label, "cc": self.cc.label if self.cc else None,
                "cleared": self.cleared}


def degrade_mines(mines: Mines, steps: int = 1) -> Mines:
    """Thin out mines by `steps` classes: difficult → light → good going (cleared); the CC die
    drops two levels per class (difficult mines d8 become light mines d4)."""
    if steps < 0:
        raise GraspError("Mines cannot be degraded by a negative number of steps.")
    going = easier(mines.going, steps)
    cc = mines.cc.lowered(MINE_DIE_LEVELS_PER_CLASS * steps) if mines.cc else None
    if going == TerrainClass.GOOD:
        cc = None
    if cc is None:
        going = TerrainClass.GOOD
    return Mines(going=going, cc=cc)


@dataclass(frozen=True, kw_only=True)
class TerrainDefeat:
    """Terrain engaged by fire or close combat and beaten."""

    before: TerrainClass
    after: TerrainClass
    mines_before: Mines | None
    mines_after: Mines | None
    explanation: str


def defeat_terrain(terrain: TerrainClass, *, doubled: bool, mines: Mines | None = None
                   ) -> TerrainDefeat:
    """A beaten piece of terrain: its nearest 1 MU square goes one class easier, or one class
    harder when doubled; mines laid on it degrade one class whenever it changes."""
    after = harder(terrain) if doubled else easier(terrain)
    how = "doubled: one class harder" if doubled else "lost: one class easier"
    text = f"terrain {how}, {terrain.label} → {after.label}"
    mines_after = mines
    if mines is not None and after != terrain:
        mines_after = degrade_mines(mines, 1)
        text += (f"; mines degrade with it: {mines.going.label} "
                 f"({mines.cc.label if mines.cc else 'no CC'}) → {mines_after.going.label} "
                 f"({mines_after.cc.label if mines_after.cc else 'cleared'})")
    return TerrainDefeat(before=terrain, after=after, mines_before=mines,
                         mines_after=mines_after, explanation=text)

