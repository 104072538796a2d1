"""Erfworld healing: when the alliance move/combat phase closes, partial hits are restored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class HealingError(ValueError):
    """A unit whose hits make no sense for healing (rules-erfworld.md §3, Healing)."""


@dataclass(frozen=True, kw_only=True)
class UnitHealth:
    """A unit's name (or id), its full hits and its current hits (0 = croaked)."""

    name: str
    hits: int
    current_hits: int

    def __post_init__(self) -> None:
        if self.hits < 1 or not 0 <= self.current_hits <= self.hits:
            raise HealingError(
                f"Unit {self.name!r} has {self.current_hits} of {self.hits} hits; current hits"
                " are between 0 and the unit's hits."
            )

    @property
    def croaked(self) -> bool:
        return self.current_hits == 0


@dataclass(frozen=True, kw_only=True)
class Healed:
    """One unit restored to full hits, and how many hits it got back."""

    name: str
    restored: int


@dataclass(frozen=True, kw_only=True)
class HealingResult:
    """Every unit after healing, in the given order, and which were healed."""

    units: tuple[UnitHealth, ...]
    healed: tuple[Healed, ...]

    def explain(self) -> list[str]:
        if not self.healed:
            return ["healing: no unit had partial hits"]
        return [f"healing: {h.name} regains {h.restored} hits" for h in self.healed]


def heal_units(units: Sequence[UnitHealth]) -> HealingResult:
    """Restore every unit of both sides with partial hits to full; croaked units stay croaked."""
    after: list[UnitHealth] = []
    healed: list[Healed] = []
    for unit in units:
        if 0 < unit.current_hits < unit.hits:
            healed.append(Healed(name=unit.name, restored=unit.hits - unit.current_hits))
            unit = UnitHealth(name=unit.name, hits=unit.hits, current_hits=unit.hits)
        after.append(unit)
    return HealingResult(units=tuple(after), healed=tuple(healed))
