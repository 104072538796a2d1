"""QUAD unit types: the four stats, the specials, Ranged #/#, and reading them from JSON."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from rules.jsonio import (
    InputError,
    JSONObject,
    as_object,
    child,
    get_int,
    get_list,
    get_str,
    only_fields,
)

MIN_QUALITY = 1
MAX_QUALITY = 5


class UnitError(ValueError):
    """A unit type or unit state that breaks a QUAD stat rule."""


class Special(enum.StrEnum):
    """The special rules a unit type may have (Ranged is written separately as #/#)."""

    AMPHIBIOUS = "amphibious"
    CHARGER = "charger"
    ELITE = "elite"
    FORESTER = "forester"
    GREEN = "green"
    STEADY = "steady"
    SUPPORT = "support"


@dataclass(frozen=True, kw_only=True)
class Ranged:
    """Ranged #1/#2: an attack value of #1 at a range of up to #2 hexes."""

    attack: int
    range: int

    def __post_init__(self) -> None:
        if self.attack < 0:
            raise UnitError(
                f"Ranged {self.attack}/{self.range}: the ranged attack cannot be negative."
            )
        if self.range < 1:
            raise UnitError(f"Ranged {self.attack}/{self.range}: the range must be at least 1 hex.")

    def __str__(self) -> str:
        return f"{self.attack}/{self.range}"


@dataclass(frozen=True, kw_only=True)
class UnitType:
    """A unit's four stats (Quality 1–5, Unit Speed in hexes, Attack, Defense) and specials."""

    quality: int
    speed: int
    attack: int
    defense: int
    specials: frozenset[Special] = field(default_factory=frozenset)
    ranged: Ranged | None = None
    name: str = ""

    def __post_init__(self) -> None:
        who = f"Unit {self.name!r}" if self.name else "This unit"
        if not MIN_QUALITY <= self.quality <= MAX_QUALITY:
            raise UnitError(
                f"{who} has quality {self.quality}; quality takes values {MIN_QUALITY} to"
                f" {MAX_QUALITY}."
            )
        if self.speed < 0:
            raise UnitError(f"{who} has unit speed {self.speed}; speed cannot be negative.")
        if self.attack < 0:
            raise UnitError(f"{who} has attack {self.attack}; attack is zero or greater.")
        if self.defense < 0:
            raise UnitError(f"{who} has defense {self.defense}; defense is zero or greater.")

    def has(self, special: Special) -> bool:
        return special in self.specials

    @property
    def label(self) -> str:
        return self.name or "The unit"

    def describe(self) -> str:
        """The stat line, like "Q:3 S:2 A:4 D:2 charger ranged 2/3"."""
        parts = [f"Q:{self.quality} S:{self.speed} A:{self.attack} D:{self.defense}"]
        parts.extend(s.value for s in Special if s in self.specials)
        if self.ranged is not None:
            parts.append(f"ranged {self.ranged}")
        return " ".join(parts)


UNIT_FIELDS = ("name", "quality", "speed", "attack", "defense", "specials", "ranged")


def parse_ranged(value: object, field_name: str) -> Ranged:
    """Ranged written as the source writes it, "#1/#2" (e.g. "2/3")."""
    if not isinstance(value, str):
        raise InputError(field_name, 'must be a string "attack/range" such as "2/3".')
    attack_text, slash, range_text = value.partition("/")
    if not slash or not attack_text.strip().isdigit() or not range_text.strip().isdigit():
        raise InputError(field_name, f'must be "attack/range" such as "2/3", not {value!r}.')
    try:
        return Ranged(attack=int(attack_text), range=int(range_text))
    except UnitError as exc:
        raise InputError(field_name, str(exc)) from None


def parse_specials(obj: JSONObject, path: str) -> frozenset[Special]:
    out: set[Special] = set()
    for i, raw in enumerate(get_list(obj, "specials", path, default=True)):
        where = child(child(path, "specials"), i)
        if raw == "ranged":
            raise InputError(where, 'Ranged is written as the field "ranged": "#1/#2".')
        if not isinstance(raw, str) or raw not in Special._value2member_map_:
            raise InputError(
                where, f"unknown special {raw!r}; known: {', '.join(s.value for s in Special)}."
            )
        special = Special(raw)
        if special in out:
            raise InputError(where, f"special {raw!r} is listed twice.")
        out.add(special)
    return frozenset(out)


def unit_type_from_dict(
    data: object, path: str = "", *, extra_fields: tuple[str, ...] = ()
) -> UnitType:
    """A UnitType from JSON {"name"?, "quality", "speed", "attack", "defense", "specials"?,
    "ranged"?}; errors name the field."""
    obj = as_object(data, path)
    only_fields(obj, UNIT_FIELDS + extra_fields, path)
    ranged = None
    if obj.get("ranged") is not None:
        ranged = parse_ranged(obj["ranged"], child(path, "ranged"))
    return UnitType(
        name=get_str(obj, "name", path, default=""),
        quality=get_int(obj, "quality", path, minimum=MIN_QUALITY, maximum=MAX_QUALITY),
        speed=get_int(obj, "speed", path, minimum=0),
        attack=get_int(obj, "attack", path, minimum=0),
        defense=get_int(obj, "defense", path, minimum=0),
        specials=parse_specials(obj, path),
        ranged=ranged,
    )


def unit_type_to_dict(unit: UnitType) -> dict[str, object]:
    return {
        "name": unit.name,
        "quality": unit.quality,
        "speed": unit.speed,
        "attack": unit.attack,
        "defense": unit.defense,
        "specials": [s.value for s in Special if s in unit.specials],
        "ranged": str(unit.ranged) if unit.ranged is not None else None,
    }
