"""Erfworld fortifications: siege damage to towers and wall hexsides, capture and repair."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from rules.dice import Dice, DiceError, roll_2d6
from rules.erfworld.combat import (
    CombatUnit,
    DieRecord,
    command_bonus,
    highest_commander_level,
    random_number,
)
from rules.erfworld.types import SideKind, Special
from rules.erfworld.units import format_fraction


class FortificationError(ValueError):
    """A siege, capture or repair that breaks a fortification rule (rules-erfworld.md §4)."""


@dataclass(frozen=True, kw_only=True)
class Tower:
    """A tower in hex `hex` (a label such as "J10"); destroyed at 0 hits."""

    hex: str
    hits: int
    starting_hits: int

    def __post_init__(self) -> None:
        _check_hits(self.hits, self.starting_hits, f"the tower in {self.hex}")

    @property
    def description(self) -> str:
        return f"the tower in {self.hex}"

    @property
    def destroyed(self) -> bool:
        return self.hits == 0


@dataclass(frozen=True, kw_only=True)
class WallSide:
    """One hexside of the wall around `hex`, in `direction`; `across` is the adjacent hex there."""

    hex: str
    direction: str
    across: str
    hits: int
    starting_hits: int

    def __post_init__(self) -> None:
        _check_hits(self.hits, self.starting_hits, f"the {self.direction} wall of {self.hex}")

    @property
    def description(self) -> str:
        return f"the {self.direction} wall of {self.hex}"

    @property
    def breached(self) -> bool:
        return self.hits == 0


Fortification = Tower | WallSide


def _check_hits(hits: int, starting_hits: int, what: str) -> None:
    if starting_hits < 0 or not 0 <= hits <= starting_hits:
        raise FortificationError(
            f"{what[0].upper()}{what[1:]} has {hits} hits of {starting_hits}; a fortification's"
            " hits are between 0 and its starting hits."
        )


@dataclass(frozen=True, kw_only=True)
class SiegeUnit:
    """A unit attacking a fortification and the hex (label) it stands in."""

    unit: CombatUnit
    hex: str


@dataclass(frozen=True, kw_only=True)
class SiegeResult:
    """Siege damage = floor(siege attack × CB × RN), every factor and die, and the fort after."""

    fortification: Fortification
    siege_attack: int
    cb: Fraction
    rn: Fraction
    roll: tuple[int, int]
    damage: int
    hits_before: int
    siege_units: tuple[str, ...]
    left_out: tuple[str, ...]
    dice: tuple[DieRecord, ...]

    @property
    def product(self) -> Fraction:
        return self.siege_attack * self.cb * self.rn

    @property
    def destroyed(self) -> bool:
        """The tower is destroyed, or the wall hexside breached (hits 0)."""
        return self.fortification.hits == 0

    def explain(self) -> list[str]:
        f = format_fraction
        lines = [
            f"siege of {self.fortification.description} by {', '.join(self.siege_units)}:"
            f" roll {self.roll[0]}+{self.roll[1]}",
            f"siege attack {self.siege_attack} × CB {f(self.cb)} × RN {f(self.rn)}"
            f" = {f(self.product)} → {self.damage} damage",
            f"{self.fortification.description}: {self.hits_before} → {self.fortification.hits} hits"
            + (
                " (destroyed)"
                if self.destroyed and isinstance(self.fortification, Tower)
                else " (breached)"
                if self.destroyed
                else ""
            ),
        ]
        if self.left_out:
            lines.append(f"not siege units, so not counted: {', '.join(self.left_out)}")
        return lines


def siege_damage_amount(*, siege_attack: int, cb: Fraction, rn: Fraction) -> int:
    """floor(sum of the siege units' attack × CB × RN), exactly."""
    return math.floor(siege_attack * cb * rn)


def besiege(
    *,
    fortification: Fortification,
    units: Sequence[SiegeUnit],
    dice: Dice,
    chief_warlord_in_hex: bool = False,
    roll: tuple[int, int] | None = None,
) -> SiegeResult:
    """Siege units attack a tower (from its own hex) or a wall hexside (from the hex across it).

    Only siege units count; others listed are left out. CB comes from the commanders among
    `units` (whether siege units or not: commanders lead the stack).
    """
    if not units:
        raise FortificationError("A siege needs at least one attacking unit.")
    if fortification.hits == 0:
        what = "destroyed" if isinstance(fortification, Tower) else "breached"
        raise FortificationError(f"{fortification.description} is already {what}.")
    needed_hex = fortification.hex if isinstance(fortification, Tower) else fortification.across
    for s in units:
        if s.hex != needed_hex:
            rule = (
                "a tower can only be attacked by siege units standing in its hex"
                if isinstance(fortification, Tower)
                else "a wall hexside can only be attacked from the adjacent hex across it"
            )
            raise FortificationError(
                f"{s.unit.name!r} is in {s.hex}, not {needed_hex}: {rule}"
                f" ({fortification.description})."
            )
    siege = [s.unit for s in units if s.unit.stats.has(Special.SIEGE)]
    if not siege:
        raise FortificationError(
            "Only units with the siege special can attack fortifications, and none is attacking."
        )
    records: list[DieRecord] = []
    purpose = f"siege: {fortification.description}"
    if roll is None:
        before = len(dice.rolls)
        try:
            roll = roll_2d6(dice, purpose)
        except DiceError as exc:
            raise FortificationError(f"The siege's 2d6 could not be rolled: {exc}") from exc
        records.extend(
            DieRecord(purpose=r.purpose, value=r.value, number=r.number)
            for r in dice.rolls[before:]
        )
    else:
        if len(roll) != 2 or any(not 1 <= d <= 6 for d in roll):
            raise FortificationError(f"A 2d6 roll is two values from 1 to 6, not {roll!r}.")
        records.extend(
            DieRecord(purpose=f"{purpose} die {i}", value=v) for i, v in enumerate(roll, start=1)
        )
    all_units = [s.unit for s in units]
    siege_attack = sum(u.stats.attack for u in siege)
    cb = command_bonus(
        highest_level=highest_commander_level(all_units),
        chief_warlord_in_hex=chief_warlord_in_hex or any(u.is_chief_warlord for u in all_units),
    )
    rn = random_number(roll)
    damage = siege_damage_amount(siege_attack=siege_attack, cb=cb, rn=rn)
    after = apply_damage(fortification, damage=damage)
    return SiegeResult(
        fortification=after,
        siege_attack=siege_attack,
        cb=cb,
        rn=rn,
        roll=roll,
        damage=damage,
        hits_before=fortification.hits,
        siege_units=tuple(u.name for u in siege),
        left_out=tuple(s.unit.name for s in units if not s.unit.stats.has(Special.SIEGE)),
        dice=tuple(records),
    )


def apply_damage(fortification: Fortification, *, damage: int) -> Fortification:
    """The fortification after losing `damage` hits, never below 0 (destroyed/breached at 0)."""
    if damage < 0:
        raise FortificationError("Damage to a fortification cannot be negative.")
    return replace(fortification, hits=max(0, fortification.hits - damage))


@dataclass(frozen=True, kw_only=True)
class Capture:
    """Who holds a fortified hex after a change of occupation, and whether it changed hands."""

    owner: SideKind | None
    changed: bool


def fortified_hex_owner(*, owner: SideKind | None, stacks_in_hex: Sequence[SideKind]) -> Capture:
    """A fortified hex changes owner when a side occupies it with no enemy stack in it.

    `stacks_in_hex` lists the side of every stack now in the hex.
    """
    sides = set(stacks_in_hex)
    if len(sides) == 1:
        (occupier,) = sides
        if occupier != owner:
            return Capture(owner=occupier, changed=True)
    return Capture(owner=owner, changed=False)


@dataclass(frozen=True, kw_only=True)
class Repair:
    """A repaired fortification and the pop points spent (1 per hit) and left."""

    fortification: Fortification
    points_spent: int
    points_left: int


def repair(
    fortification: Fortification,
    *,
    hits: int,
    pop_points: int,
    owner: SideKind | None,
    by: SideKind,
) -> Repair:
    """Repair a held fortification with pop points, 1 point per hit, up to its starting hits."""
    what = fortification.description
    if owner != by:
        raise FortificationError(f"Only the side holding {what} can repair it.")
    if hits <= 0:
        raise FortificationError("A repair restores at least 1 hit.")
    room = fortification.starting_hits - fortification.hits
    if hits > room:
        raise FortificationError(
            f"{what[0].upper()}{what[1:]} has {fortification.hits} of {fortification.starting_hits}"
            f" hits; it can be repaired by at most {room}, not {hits}."
        )
    if hits > pop_points:
        raise FortificationError(
            f"Repairing {hits} hits costs {hits} pop points (1 per hit); only {pop_points} are"
            " available."
        )
    return Repair(
        fortification=replace(fortification, hits=fortification.hits + hits),
        points_spent=hits,
        points_left=pop_points - hits,
    )
