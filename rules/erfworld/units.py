"""Erfworld unit types: design validation, exact cost, army limits, commander levels and XP."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.dice import Dice
from rules.erfworld.types import Special, UnitStats
from rules.jsonio import InputError

MAX_MOVE = 5
MAX_DEFENCE = 5
COMMANDER_MIN_HITS = 3
COMMANDER_MAX_HITS = 6
DEFAULT_BUDGET = 500
DEFAULT_MAX_TYPES = 5
COMMANDER_COST = 20

STAT_FIELDS = ("hits", "attack", "defence", "move")


class UnitDesignError(ValueError):
    """A unit type or army breaks a design rule (rules-erfworld.md §1)."""


# A field of a calculator/API input that is missing, of the wrong type or out of range.
FieldError = InputError


# ---------------------------------------------------------------------------
# Validation


def max_attack(hits: int) -> int:
    """The highest Attack a unit with these Hits may have: ceil(1.5 × H), exactly."""
    return math.ceil(Fraction(3, 2) * hits)


def validate_unit_type(stats: UnitStats, *, name: str | None = None) -> list[str]:
    """Every design rule the unit type breaks, as sentences; an empty list means it is valid."""
    who = f"Unit type {name!r}" if name else "This unit type"
    errors: list[str] = []
    h, a, d, m = stats.hits, stats.attack, stats.defence, stats.move
    if h < 1:
        errors.append(f"{who} has {h} hits; a unit needs at least 1 hit.")
    if not 0 <= m <= MAX_MOVE:
        errors.append(f"{who} has move {m}; move must be between 0 and {MAX_MOVE}.")
    if a < 0:
        errors.append(f"{who} has attack {a}; attack cannot be negative.")
    elif h >= 1 and a > max_attack(h):
        errors.append(
            f"{who} has attack {a}; attack may be at most one and a half times hits rounded up"
            f" ({max_attack(h)} for {h} hits)."
        )
    if not 0 <= d <= MAX_DEFENCE:
        errors.append(f"{who} has defence {d}; defence must be between 0 and {MAX_DEFENCE}.")
    elif d > h:
        errors.append(f"{who} has defence {d}; defence may not be higher than hits ({h}).")
    if stats.has(Special.COMMANDER) and not COMMANDER_MIN_HITS <= h <= COMMANDER_MAX_HITS:
        errors.append(
            f"{who} is a commander with {h} hits; commanders must have between"
            f" {COMMANDER_MIN_HITS} and {COMMANDER_MAX_HITS} hits."
        )
    unknown = [s for s in stats.specials if not isinstance(s, Special)]
    if unknown:
        errors.append(f"{who} has unknown specials: {', '.join(sorted(map(str, unknown)))}.")
    return errors


def require_valid_unit_type(stats: UnitStats, *, name: str | None = None) -> None:
    """Raise UnitDesignError with every broken rule if the unit type is not valid."""
    errors = validate_unit_type(stats, name=name)
    if errors:
        raise UnitDesignError(" ".join(errors))


# ---------------------------------------------------------------------------
# Cost


@dataclass(frozen=True, kw_only=True)
class CostTerm:
    """One term of a unit's cost: what it is for, the formula with the numbers, its exact value."""

    label: str
    formula: str
    value: Fraction


@dataclass(frozen=True, kw_only=True)
class CostBreakdown:
    """A unit type's cost term by term; `total` is their exact sum."""

    terms: tuple[CostTerm, ...]
    total: Fraction

    def explain(self) -> list[str]:
        lines = [f"{t.label}: {t.formula} = {format_fraction(t.value)}" for t in self.terms]
        lines.append(f"cost = {format_fraction(self.total)}")
        return lines


def special_cost(stats: UnitStats, special: Special) -> Fraction:
    """The exact cost of one special for this unit type (rules-erfworld.md §1)."""
    h, a, d, m = stats.hits, stats.attack, stats.defence, stats.move
    if special is Special.SCOUT:
        return Fraction(5 + h + a * d)
    if special is Special.COMMANDER:
        return Fraction(COMMANDER_COST)
    if special in (Special.RANGED, Special.SIEGE):
        return Fraction(a)
    if special is Special.FLYING:
        return Fraction(h * m, 2)
    # A terrain capability (woods, hills, swamp), each bought separately.
    return Fraction(h * m, 4)


_SPECIAL_FORMULAS = {
    Special.SCOUT: "5 + (H + A × D) = 5 + ({h} + {a} × {d})",
    Special.COMMANDER: "20",
    Special.RANGED: "A = {a}",
    Special.SIEGE: "A = {a}",
    Special.FLYING: "H × M × 0.5 = {h} × {m} × 0.5",
}
_TERRAIN_FORMULA = "H × M × 0.25 = {h} × {m} × 0.25"


def cost_breakdown(stats: UnitStats) -> CostBreakdown:
    """The cost of a unit type term by term, exact (a multiple of 1/8)."""
    h, a, d, m = stats.hits, stats.attack, stats.defence, stats.move
    terms = [
        CostTerm(
            label="body",
            formula=f"(H²/4 + A + D) × 0.5 = ({h}²/4 + {a} + {d}) × 0.5",
            value=(Fraction(h * h, 4) + a + d) / 2,
        ),
        CostTerm(
            label="movement",
            formula=f"(H × M) × 0.5 = ({h} × {m}) × 0.5",
            value=Fraction(h * m, 2),
        ),
    ]
    for special in sorted(stats.specials, key=_special_order):
        template = _SPECIAL_FORMULAS.get(special, _TERRAIN_FORMULA)
        terms.append(
            CostTerm(
                label=str(special),
                formula=template.format(h=h, a=a, d=d, m=m),
                value=special_cost(stats, special),
            )
        )
    return CostBreakdown(terms=tuple(terms), total=sum((t.value for t in terms), Fraction(0)))


def unit_cost(stats: UnitStats) -> Fraction:
    """The exact cost of a unit type: (H²/4 + A + D) × 0.5 + (H × M) × 0.5 + Σ special costs."""
    return cost_breakdown(stats).total


def _special_order(special: Special) -> int:
    return list(Special).index(special)


# ---------------------------------------------------------------------------
# Armies


@dataclass(frozen=True, kw_only=True)
class ArmyEntry:
    """One unit type of a player's army and how many units of it are bought."""

    name: str
    stats: UnitStats
    count: int


def army_cost(entries: Sequence[ArmyEntry]) -> Fraction:
    """The exact total cost of an army: Σ count × unit cost."""
    return sum((e.count * unit_cost(e.stats) for e in entries), Fraction(0))


def validate_army(
    entries: Sequence[ArmyEntry],
    *,
    budget: int | Fraction = DEFAULT_BUDGET,
    max_types: int = DEFAULT_MAX_TYPES,
) -> list[str]:
    """Every army design rule broken, as sentences (each unit type's own errors included)."""
    errors: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        if entry.name in seen:
            errors.append(f"Unit type {entry.name!r} is listed twice; give each type one name.")
        seen.add(entry.name)
        errors.extend(validate_unit_type(entry.stats, name=entry.name))
        if entry.count < 0:
            errors.append(
                f"Unit type {entry.name!r} has count {entry.count}; counts cannot be negative."
            )
    if len(seen) > max_types:
        errors.append(
            f"The army has {len(seen)} distinct unit types; at most {max_types} are allowed"
            " (a commander type counts)."
        )
    if not any(e.stats.has(Special.COMMANDER) and e.count > 0 for e in entries):
        errors.append("The army has no commander; every player needs at least one commander.")
    total = army_cost(entries)
    if total > budget:
        errors.append(
            f"The army costs {format_fraction(total)} points; the budget is"
            f" {format_fraction(Fraction(budget))} points."
        )
    return errors


# ---------------------------------------------------------------------------
# Commanders: level and experience

# d10 → level: 1–2 → 1, 3–5 → 2, 6–7 → 3, 8–9 → 4, 10 → 5.
_LEVEL_BY_D10 = {1: 1, 2: 1, 3: 2, 4: 2, 5: 2, 6: 3, 7: 3, 8: 4, 9: 4, 10: 5}


def commander_level_from_d10(value: int) -> int:
    """The starting level of a commander for a d10 roll (rules-erfworld.md §1)."""
    try:
        return _LEVEL_BY_D10[value]
    except KeyError:
        raise UnitDesignError(
            f"A d10 shows 1 to 10, not {value}; the commander level table needs a d10 roll."
        ) from None


def roll_commander_level(dice: Dice, *, purpose: str = "commander level") -> int:
    """Roll a d10 (recorded with its purpose) and return the new commander's level."""
    return commander_level_from_d10(dice.roll(10, purpose))


def xp_for_next_level(level: int) -> int:
    """XP a commander of this level needs to reach the next level (level 3 → 4 needs 4)."""
    return level + 1


def gain_xp(*, level: int, xp: int, amount: int = 1) -> tuple[int, int]:
    """Add XP to a commander; returns (level, xp) after any level-up (XP resets to 0; no cap)."""
    if level < 1:
        raise UnitDesignError(f"A commander's level is at least 1, not {level}.")
    if xp < 0 or amount < 0:
        raise UnitDesignError("Experience points cannot be negative.")
    xp += amount
    while xp >= xp_for_next_level(level):
        # The rules reset XP to 0 on levelling up; surplus points are not carried over.
        level += 1
        xp = 0
    return level, xp


# ---------------------------------------------------------------------------
# Parsing plain dicts (JSON calculator, API)


def parse_int(
    data: Mapping[str, object], key: str, *, where: str = "", default: int | None = None
) -> int:
    """Read an integer field (not a bool, not a float) or raise FieldError naming it."""
    field = f"{where}.{key}" if where else key
    if key not in data:
        if default is not None:
            return default
        raise FieldError(field, "is required.")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(field, f"must be a whole number, not {value!r}.")
    return value


def parse_specials(value: object, *, field: str) -> frozenset[Special]:
    """Read a list of special names, rejecting unknown and repeated ones."""
    if not isinstance(value, list | tuple):
        raise FieldError(field, f"must be a list of specials, not {value!r}.")
    specials: set[Special] = set()
    known = ", ".join(s.value for s in Special)
    for i, item in enumerate(value):
        if not isinstance(item, str) or item not in Special._value2member_map_:
            raise FieldError(f"{field}[{i}]", f"unknown special {item!r}; known specials: {known}.")
        special = Special(item)
        if special in specials:
            raise FieldError(f"{field}[{i}]", f"special {item!r} is listed twice.")
        specials.add(special)
    return frozenset(specials)


def reject_unknown_fields(
    data: Mapping[str, object], allowed: Collection[str], *, where: str = ""
) -> None:
    """Raise FieldError naming the first field that is not one of `allowed`."""
    for key in data:
        if key not in allowed:
            raise FieldError(f"{where}.{key}" if where else key, "unknown field.")


def unit_stats_from_dict(
    data: object, *, where: str = "", extra_fields: Collection[str] = ()
) -> UnitStats:
    """UnitStats from {"hits", "attack", "defence", "move", "specials"?}; errors name the field.

    Only the shape is checked here; call validate_unit_type for the design rules.
    """
    if not isinstance(data, Mapping):
        raise FieldError(where, f"must be an object, not {data!r}.")
    reject_unknown_fields(data, (*STAT_FIELDS, "specials", *extra_fields), where=where)
    values = {key: parse_int(data, key, where=where) for key in STAT_FIELDS}
    specials_field = f"{where}.specials" if where else "specials"
    specials = parse_specials(data.get("specials", []), field=specials_field)
    return UnitStats(
        hits=values["hits"],
        attack=values["attack"],
        defence=values["defence"],
        move=values["move"],
        specials=specials,
    )


def format_fraction(value: Fraction) -> str:
    """An exact value for people: "12.125" when it is a short decimal, else "97/3"."""
    if value.denominator == 1:
        return str(value.numerator)
    den = value.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den == 1:
        # A terminating decimal: print it exactly.
        sign = "-" if value < 0 else ""
        v = abs(value)
        places = 0
        while (v * 10**places).denominator != 1:
            places += 1
        digits = str((v * 10**places).numerator).rjust(places + 1, "0")
        return f"{sign}{digits[:-places]}.{digits[-places:]}"
    return f"{value.numerator}/{value.denominator}"
