"""Ancient Foes 2 army lists: bands of 1–8 units, 1–10 bands, at most one leader per 3 bands."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.ancient_foes.battlefield import MAX_UNITS_PER_BAND
from rules.ancient_foes.units import UnitStats, UnitType, derive_stats

__all__ = [
    "BANDS_PER_LEADER",
    "MAX_BANDS",
    "MIN_BANDS",
    "ArmyBand",
    "RecordRow",
    "army_problems",
    "band_problems",
    "band_speed",
    "max_leaders",
    "record_sheet",
]

MIN_BANDS = 1
MAX_BANDS = 10
BANDS_PER_LEADER = 3


@dataclass(frozen=True, kw_only=True)
class ArmyBand:
    """A band of an army list: its name and its units' types, each with an optional title."""

    name: str
    units: tuple[UnitType, ...]
    titles: tuple[str, ...] = ()


def band_speed(units: Sequence[UnitType]) -> int:
    """A band moves at the speed (cm) of its slowest unit."""
    if not units:
        raise ValueError("A band with no units has no speed; a band is 1 to 8 units.")
    return min(derive_stats(u).movement for u in units)


def band_problems(band: ArmyBand) -> list[str]:
    """The band rules this band breaks, as sentences."""
    out: list[str] = []
    n = len(band.units)
    if not 1 <= n <= MAX_UNITS_PER_BAND:
        out.append(f"Band {band.name!r} has {n} units; a band is 1 to {MAX_UNITS_PER_BAND} units.")
    if n > 1 and any(u.leader for u in band.units):
        out.append(
            f"Band {band.name!r} has a leader with other units; leaders must be in a single-unit"
            " band by themselves."
        )
    return out


def max_leaders(bands: int, *, leader_cap: str = "down") -> int:
    """At most one leader per 3 bands of the army (all bands, the leaders' own included),
    rounded down (the default reading) or, with `leader_cap="up"`, up (so that an army of
    1–2 bands may have its leader)."""
    if leader_cap == "up":
        return -(-bands // BANDS_PER_LEADER)
    return bands // BANDS_PER_LEADER


def army_problems(bands: Sequence[ArmyBand], *, leader_cap: str = "down") -> list[str]:
    """Every army rule the list breaks, as sentences (an empty list means it is legal)."""
    out: list[str] = []
    n = len(bands)
    if not MIN_BANDS <= n <= MAX_BANDS:
        out.append(f"The army has {n} bands; an army has {MIN_BANDS} to {MAX_BANDS} bands.")
    names = [b.name for b in bands]
    for name in sorted({x for x in names if names.count(x) > 1}):
        out.append(f"Two bands are called {name!r}; band names must differ.")
    for band in bands:
        out.extend(band_problems(band))
    leaders = sum(1 for b in bands for u in b.units if u.leader)
    if leaders > max_leaders(n, leader_cap=leader_cap):
        out.append(
            f"The army has {leaders} leaders but only {n} bands; at most one leader per"
            f" {BANDS_PER_LEADER} bands is allowed ({max_leaders(n, leader_cap=leader_cap)}"
            " here)."
        )
    return out


@dataclass(frozen=True, kw_only=True)
class RecordRow:
    """One row of the unit record sheet: code & title, the four statistics and the band number."""

    code: str
    title: str
    stats: UnitStats
    band_number: int

    def as_dict(self) -> dict[str, object]:
        return {
            "unit": self.code + (f" ({self.title})" if self.title else ""),
            **self.stats.as_dict(),
            "band": f"#{self.band_number}",
        }


def record_sheet(bands: Sequence[ArmyBand]) -> tuple[RecordRow, ...]:
    """The record sheet of an army: one row per unit, bands numbered from 1 in list order."""
    rows: list[RecordRow] = []
    for number, band in enumerate(bands, start=1):
        for i, unit in enumerate(band.units):
            title = band.titles[i] if i < len(band.titles) else ""
            rows.append(RecordRow(code=unit.code, title=title, stats=derive_stats(unit),
                                  band_number=number))
    return tuple(rows)
