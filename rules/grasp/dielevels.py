"""GRASP die levels (d4 … d12, d20, d100), +Tech / −Tech dice, their prices, odd rounding."""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass
from fractions import Fraction

from rules.dice import Dice


class GraspError(ValueError):
    """Input that breaks a GRASP rule; the message names the rule."""


class DieLevel(enum.IntEnum):
    """The die levels in order; the value is the number of sides (the die's maximum score)."""

    D4 = 4
    D6 = 6
    D8 = 8
    D10 = 10
    D12 = 12
    D20 = 20
    D100 = 100

    @property
    def label(self) -> str:
        return f"d{self.value}"

    @property
    def step(self) -> int:
        """Position on the ladder: d4 is 1, d6 2, … d100 7 (a carrier's capacity in levels)."""
        return LADDER.index(self) + 1


LADDER: tuple[DieLevel, ...] = tuple(DieLevel)


class Tech(enum.StrEnum):
    """Normal (one die), +Tech (best of two dice, ">2d6") or −Tech (worst of two, "<2d6")."""

    NORMAL = "normal"
    PLUS = "plus"
    MINUS = "minus"


def level_from_sides(sides: int) -> DieLevel:
    try:
        return DieLevel(sides)
    except ValueError:
        raise GraspError(
            f"GRASP dice are d4, d6, d8, d10, d12, d20 and d100; there is no d{sides}."
        ) from None


def step_down(level: DieLevel | None, steps: int = 1) -> DieLevel | None:
    """`steps` die levels lower; None once below d4 (no die left)."""
    if level is None:
        return None
    index = LADDER.index(level) - steps
    return LADDER[index] if index >= 0 else None


def step_up(level: DieLevel | None, steps: int = 1, *, limit: DieLevel = DieLevel.D100) -> DieLevel:
    """`steps` die levels higher (from no die, the first step is d4), never above `limit`."""
    index = -1 if level is None else LADDER.index(level)
    index = min(index + steps, LADDER.index(limit))
    return LADDER[index]


def steps_of(level: DieLevel | None) -> int:
    """How many die levels a fatigue die holds: none 0, d4 1, d6 2 … d100 7."""
    return 0 if level is None else level.step


def format_level(level: DieLevel | None) -> str:
    return "none" if level is None else level.label


_SPEC = re.compile(r"^(?P<tech>[<>]2)?d(?P<sides>\d+)$|^(?:1)?d(?P<plain>\d+)$")


def average_face(face: int, sides: int) -> int:
    """An average die's face for a plain die's `face`: one nearer the mean unless already
    within one of it (the average d6 reads 2, 3, 3, 4, 4, 5; the average d4 2, 2, 3, 3)."""
    twice_mean = sides + 1
    if 2 * face < twice_mean - 2:
        return face + 1
    if 2 * face > twice_mean + 2:
        return face - 1
    return face


@dataclass(frozen=True, kw_only=True)
class DieSpec:
    """An attribute's die: a level and its Tech ("d6", ">2d6" best of two, "<2d6" worst of two),
    or the average version of it ("avg d6")."""

    level: DieLevel
    tech: Tech = Tech.NORMAL
    average: bool = False

    @property
    def label(self) -> str:
        prefix = {Tech.NORMAL: "", Tech.PLUS: ">2", Tech.MINUS: "<2"}[self.tech]
        return f"{'avg ' if self.average else ''}{prefix}{self.level.label}"

    @property
    def top(self) -> int:
        """Its maximum score (an average die's is one less than the plain die's)."""
        return self.level.value - (1 if self.average else 0)

    @property
    def tech_count(self) -> int:
        return {Tech.NORMAL: 0, Tech.PLUS: 1, Tech.MINUS: -1}[self.tech]

    def lowered(self, steps: int) -> DieSpec | None:
        """The same Tech `steps` die levels lower (None when that falls below d4)."""
        level = step_down(self.level, steps)
        return None if level is None else DieSpec(level=level, tech=self.tech,
                                                  average=self.average)


def parse_die(text: str) -> DieSpec:
    """Parse "d6", "1d6", ">2d6" (+Tech) or "<2d6" (−Tech), each with "avg " before it for the
    average version of the die."""
    body = text.strip().lower()
    average = body.startswith("avg")
    match = _SPEC.match(body.removeprefix("avg").strip())
    if match is None:
        raise GraspError(
            f"{text!r} is not a GRASP die: write d6, >2d6 (best of two, +Tech) or <2d6"
            " (worst of two, −Tech), with avg before it for an average die (avg d6)."
        )
    if match["plain"] is not None:
        return DieSpec(level=level_from_sides(int(match["plain"])), average=average)
    tech = Tech.PLUS if match["tech"] == ">2" else Tech.MINUS if match["tech"] else Tech.NORMAL
    return DieSpec(level=level_from_sides(int(match["sides"])), tech=tech, average=average)


# -----------------------------------------------------------------------------------------------
# Prices


BELOW_D4_PRICE = 2  # interpretation: "<2d4" is priced as the die below d4 would be, a d2


def die_price(spec: DieSpec) -> int:
    """The points a die is worth: its maximum score; −Tech pays the next lower die, +Tech the next
    higher ("<2d6" pays 4 like a d4, ">2d4" pays 6 like a d6); an average die one less than
    the plain die it is priced as (its maximum score: "avg d6" 5)."""
    index = LADDER.index(spec.level) + spec.tech_count
    less = 1 if spec.average else 0
    if index < 0:
        return BELOW_D4_PRICE - less
    if index >= len(LADDER):
        raise GraspError(
            "A +Tech d100 has no higher die to be priced at; d100 is the top die level."
        )
    return LADDER[index].value - less


# -----------------------------------------------------------------------------------------------
# Rolling


@dataclass(frozen=True, kw_only=True)
class PoolRoll:
    """Dice rolled for one score: all values, the kept one and how it was chosen."""

    sides: int
    values: tuple[int, ...]
    keep: str  # "single", "best" or "worst"
    kept: int
    average: bool = False  # the values are an average die's faces for the dice rolled

    def to_dict(self) -> dict[str, object]:
        return {"die": f"{'avg ' if self.average else ''}d{self.sides}",
                "values": list(self.values), "keep": self.keep, "kept": self.kept}


def roll_pool(dice: Dice, *, level: DieLevel, tech_count: int, purpose: str,
              average: bool = False) -> PoolRoll:
    """Roll a die with a net Tech count: +n rolls n+1 dice and keeps the best, −n keeps the worst.

    Big targets, small targets, Tech and "use the highest/lowest of two dice" all add up into
    the one count, so a +Tech firer shooting at a big target rolls three dice and keeps the best.
    """
    count = 1 + abs(tech_count)
    if count == 1:
        values: tuple[int, ...] = (dice.roll(level.value, purpose),)
    else:
        values = tuple(
            dice.roll(level.value, f"{purpose} die {i}") for i in range(1, count + 1)
        )
    if average:
        values = tuple(average_face(v, level.value) for v in values)
    keep = "single" if tech_count == 0 else "best" if tech_count > 0 else "worst"
    kept = max(values) if tech_count >= 0 else min(values)
    return PoolRoll(sides=level.value, values=values, keep=keep, kept=kept, average=average)


# -----------------------------------------------------------------------------------------------
# Rounding


def round_odd(value: Fraction) -> int:
    """Round to the nearest odd value, as GRASP rounds: 3.5 → 3, 0.5 → 1, 10.5 → 11.

    Whole numbers need no rounding and stay as they are. A fraction is never exactly halfway
    between two odd numbers (that point is an even whole number), so the result is unique.
    """
    if value.denominator == 1:
        return int(value)
    below = math.floor(value)
    odd_below = below if below % 2 else below - 1
    odd_above = odd_below + 2
    return odd_below if value - odd_below < odd_above - value else odd_above
