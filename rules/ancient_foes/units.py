"""Ancient Foes 2 unit classification: armour, weapon, mount, experience, leader → four statistics.

Every number is the "Unit attributes" table of the source. Distances (range, movement) are in cm.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from rules.jsonio import InputError, JSONObject, child, get_bool, get_choice, get_str

__all__ = [
    "ARMOUR",
    "MODIFIERS",
    "TYPE_FIELDS",
    "WEAPON",
    "Armour",
    "Contribution",
    "Experience",
    "Mods",
    "Mount",
    "UnitError",
    "UnitStats",
    "UnitType",
    "derive_stats",
    "parse_code",
    "read_unit_type",
    "stats_breakdown",
]


class UnitError(ValueError):
    """A unit description the classification of Ancient Foes 2 does not allow."""


class Armour(enum.StrEnum):
    HEAVY = "H"
    MEDIUM = "M"
    LIGHT = "L"


class Weapon(enum.StrEnum):
    SWORD = "Sw"
    AXE = "Ax"
    SPEAR = "Sp"
    HANDS = "Ha"
    TUSKS = "Tu"
    JAVELIN = "Ja"
    SLING = "Sl"
    BOW = "Bo"
    CROSSBOW = "Cb"
    ARTILLERY = "Ar"


class Mount(enum.StrEnum):
    HORSE = "Ho"
    ELEPHANT = "El"
    CHARIOT = "Ch"
    FOOT = "Fo"
    ARTILLERY = "Ar"
    BEAST = "Ta"


class Experience(enum.StrEnum):
    INEXPERIENCED = "inexperienced"
    EXPERIENCED = "experienced"
    ELITE = "elite"

    @property
    def code(self) -> str:
        """The abbreviation of the source (Ix, Ex); experienced, the default, has none."""
        return _EXPERIENCE_CODES[self]


_EXPERIENCE_CODES = {
    Experience.INEXPERIENCED: "Ix",
    Experience.EXPERIENCED: "",
    Experience.ELITE: "Ex",
}


@dataclass(frozen=True, kw_only=True)
class Mods:
    """One modifier row of the table: a change to range, movement, attack and defence (cm, cm)."""

    range: int = 0
    movement: int = 0
    attack: int = 0
    defence: int = 0


# Armour: (movement cm, defence).
ARMOUR: Mapping[Armour, tuple[int, int]] = {
    Armour.HEAVY: (8, 6),
    Armour.MEDIUM: (10, 5),
    Armour.LIGHT: (12, 4),
}

# Weapon: (range cm or None for a hand-to-hand weapon, attack).
WEAPON: Mapping[Weapon, tuple[int | None, int]] = {
    Weapon.SWORD: (None, 4),
    Weapon.AXE: (None, 4),
    Weapon.SPEAR: (None, 3),
    Weapon.TUSKS: (None, 2),
    Weapon.HANDS: (None, 0),
    Weapon.JAVELIN: (8, 2),
    Weapon.SLING: (10, 1),
    Weapon.BOW: (12, 2),
    Weapon.CROSSBOW: (14, 2),
    Weapon.ARTILLERY: (18, 4),
}

LEADER = "Leader"

# Mount and special rows. The table has no row for Ta (tamed beast/hound): it changes nothing.
MODIFIERS: Mapping[Mount | Experience | str, Mods] = {
    Mount.HORSE: Mods(range=-2, movement=4, defence=-1),
    Mount.ELEPHANT: Mods(movement=-2, attack=-1, defence=2),
    Mount.CHARIOT: Mods(movement=4, attack=-1),
    Mount.FOOT: Mods(),
    Mount.ARTILLERY: Mods(movement=-4, defence=-1),
    Mount.BEAST: Mods(),
    LEADER: Mods(movement=2, defence=1),
    Experience.INEXPERIENCED: Mods(range=-2, attack=-1),
    Experience.EXPERIENCED: Mods(),
    Experience.ELITE: Mods(range=2, attack=1),
}

MOUNTED = frozenset({Mount.HORSE, Mount.ELEPHANT, Mount.CHARIOT})


@dataclass(frozen=True, kw_only=True)
class UnitType:
    """A unit's classification: armour – weapon – mount, experience, and whether it is a leader."""

    armour: Armour
    weapon: Weapon
    mount: Mount
    experience: Experience = Experience.EXPERIENCED
    leader: bool = False

    @property
    def code(self) -> str:
        """The record-sheet code, e.g. "M-Ja-El", "L-Sl-Fo-Ex", "H-Sw-Ho-Leader"."""
        parts = [self.armour.value, self.weapon.value, self.mount.value]
        if self.experience.code:
            parts.append(self.experience.code)
        if self.leader:
            parts.append(LEADER)
        return "-".join(parts)

    @property
    def is_ranged(self) -> bool:
        """A unit with a missile weapon (it has a firing range)."""
        return WEAPON[self.weapon][0] is not None

    @property
    def is_mounted(self) -> bool:
        """Horse/camel, elephant or chariot (tamed beasts and artillery are not mounted)."""
        return self.mount in MOUNTED

    @property
    def figures(self) -> int:
        """2 figures of the same type, or 1 for a leader or an artillery piece (with crew)."""
        return 1 if self.leader or self.mount is Mount.ARTILLERY else 2


@dataclass(frozen=True, kw_only=True)
class UnitStats:
    """Range (cm, None = cannot fire), movement (cm), attack and defence."""

    range: int | None
    movement: int
    attack: int
    defence: int

    def as_dict(self) -> dict[str, int | None]:
        return {
            "range": self.range,
            "movement": self.movement,
            "attack": self.attack,
            "defence": self.defence,
        }


@dataclass(frozen=True, kw_only=True)
class Contribution:
    """One entry of the table that went into a statistic (or was left out, with the reason)."""

    stat: str
    source: str
    value: int
    applied: bool = True
    note: str = ""


def stats_breakdown(unit: UnitType) -> tuple[Contribution, ...]:
    """Every table entry behind the unit's statistics, in table order (armour, weapon, mount, …).

    A range modifier (Ho −2, Ix −2, Ex +2) only changes a unit that has a range: the source's
    "M – Sp – Ho" example keeps range "." despite the horse's −2.
    """
    movement, defence = ARMOUR[unit.armour]
    weapon_range, attack = WEAPON[unit.weapon]
    out = [
        Contribution(stat="movement", source=f"armour {unit.armour.value}", value=movement),
        Contribution(stat="defence", source=f"armour {unit.armour.value}", value=defence),
        Contribution(stat="attack", source=f"weapon {unit.weapon.value}", value=attack),
    ]
    if weapon_range is not None:
        out.insert(0, Contribution(stat="range", source=f"weapon {unit.weapon.value}",
                                   value=weapon_range))
    rows: list[tuple[str, Mods]] = [(f"mount {unit.mount.value}", MODIFIERS[unit.mount])]
    if unit.leader:
        rows.append((LEADER, MODIFIERS[LEADER]))
    if unit.experience.code:
        rows.append((unit.experience.code, MODIFIERS[unit.experience]))
    for source, mods in rows:
        for stat in ("range", "movement", "attack", "defence"):
            value = getattr(mods, stat)
            if value == 0:
                continue
            if stat == "range" and weapon_range is None:
                out.append(Contribution(stat=stat, source=source, value=value, applied=False,
                                        note=f"{unit.weapon.value} has no range"))
            else:
                out.append(Contribution(stat=stat, source=source, value=value))
    return tuple(out)


def derive_stats(unit: UnitType) -> UnitStats:
    """The unit's range, movement, attack and defence: the sums of its table entries.

    Range, movement and defence never go below 0 (no combination of the table gets there).
    """
    totals: dict[str, int] = {"range": 0, "movement": 0, "attack": 0, "defence": 0}
    for c in stats_breakdown(unit):
        if c.applied:
            totals[c.stat] += c.value
    return UnitStats(
        range=max(0, totals["range"]) if unit.is_ranged else None,
        movement=max(0, totals["movement"]),
        attack=totals["attack"],
        defence=max(0, totals["defence"]),
    )


# ---------------------------------------------------------------------------
# Reading unit types

_DASHES = re.compile(r"\s*[-\u2013\u2014]\s*")
_EXTRA_CODES: Mapping[str, Experience | str] = {
    "Ix": Experience.INEXPERIENCED,
    "Ex": Experience.ELITE,
    LEADER: LEADER,
}


def parse_code(code: str) -> UnitType:
    """A unit type from its record-sheet code: "M-Ja-El", "L – Sl – Fo – Ex", "H-Sw-Ho-Leader".

    Armour, weapon and mount come first, in that order; then optionally Ix or Ex, and Leader.
    """
    parts = [p for p in _DASHES.split(code.strip()) if p]
    if len(parts) < 3:
        raise UnitError(
            f"Unit code {code!r} needs armour, weapon and mount separated by dashes,"
            " like 'M-Ja-El'."
        )
    armour = _member(Armour, parts[0], "armour", code)
    weapon = _member(Weapon, parts[1], "weapon", code)
    mount = _member(Mount, parts[2], "mount", code)
    experience = Experience.EXPERIENCED
    leader = False
    for extra in parts[3:]:
        meaning = _EXTRA_CODES.get(extra)
        if meaning is None:
            raise UnitError(
                f"Unit code {code!r}: after the mount only Ix, Ex and Leader may follow,"
                f" not {extra!r}."
            )
        if meaning == LEADER:
            if leader:
                raise UnitError(f"Unit code {code!r} names Leader twice.")
            leader = True
        else:
            if experience is not Experience.EXPERIENCED:
                raise UnitError(f"Unit code {code!r} gives more than one experience.")
            experience = Experience(meaning)
    return UnitType(armour=armour, weapon=weapon, mount=mount, experience=experience,
                    leader=leader)


_Code = TypeVar("_Code", Armour, Weapon, Mount)


def _member(kind: type[_Code], value: str, what: str, code: str) -> _Code:
    try:
        return kind(value)
    except ValueError:
        known = ", ".join(m.value for m in kind)
        raise UnitError(
            f"Unit code {code!r}: unknown {what} {value!r}; use one of {known}."
        ) from None


TYPE_FIELDS = ("code", "armour", "weapon", "mount", "experience", "leader")
_FIELD_NAMES = ("armour", "weapon", "mount", "experience", "leader")


def read_unit_type(obj: JSONObject, path: str = "") -> UnitType:
    """A unit type from JSON: {"code": "M-Ja-El"} or {"armour", "weapon", "mount",
    "experience"?, "leader"?}. The caller rejects unknown fields (units carry other fields too).
    """
    if "code" in obj:
        given = [name for name in _FIELD_NAMES if name in obj]
        if given:
            raise InputError(child(path, given[0]),
                             "give either a unit code or its armour, weapon and mount, not both.")
        try:
            return parse_code(get_str(obj, "code", path))
        except UnitError as exc:
            raise InputError(child(path, "code"), str(exc)) from None
    return UnitType(
        armour=Armour(get_choice(obj, "armour", [a.value for a in Armour], path)),
        weapon=Weapon(get_choice(obj, "weapon", [w.value for w in Weapon], path)),
        mount=Mount(get_choice(obj, "mount", [m.value for m in Mount], path)),
        experience=Experience(get_choice(obj, "experience", [e.value for e in Experience], path,
                                         default=Experience.EXPERIENCED.value)),
        leader=get_bool(obj, "leader", path),
    )
