"""GRASP fatigue dice: losses stepping the die down, life below d4, supply and carriers."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.dice import Dice
from rules.grasp.dielevels import (
    DieLevel,
    DieSpec,
    GraspError,
    format_level,
    step_down,
    step_up,
    steps_of,
)

ZERO_FATIGUE_DIE = 4  # below d4 the unit "still rolls a d4": only a 1 counts, and it surrenders
ZERO_FATIGUE_PENALTY = -1
MOVING_TRANSFER_RATE = 1
STATIONARY_TRANSFER_RATE = 2


class Attribute(enum.StrEnum):
    """What a unit without fatigue loses instead, as the phasing player prefers."""

    CC = "cc"
    FS = "fs"
    MV = "mv"


@dataclass(frozen=True, kw_only=True)
class Attributes:
    """The die attributes that a unit without fatigue loses one level at a time."""

    cc: DieSpec | None = None
    fs: DieSpec | None = None
    mv: DieSpec | None = None

    def get(self, attribute: Attribute) -> DieSpec | None:
        return {Attribute.CC: self.cc, Attribute.FS: self.fs, Attribute.MV: self.mv}[attribute]

    def lowered(self, attribute: Attribute) -> Attributes:
        spec = self.get(attribute)
        new = None if spec is None else spec.lowered(1)
        return Attributes(
            cc=new if attribute == Attribute.CC else self.cc,
            fs=new if attribute == Attribute.FS else self.fs,
            mv=new if attribute == Attribute.MV else self.mv,
        )


@dataclass(frozen=True, kw_only=True)
class LossOutcome:
    """What negative results did to a unit: its fatigue die, checks below d4, lost attributes."""

    fatigue_before: DieLevel | None
    fatigue_after: DieLevel | None
    surrendered: bool
    attributes: Attributes
    events: tuple[str, ...]


def take_losses(
    *,
    name: str,
    fatigue: DieLevel | None,
    steps: int,
    dice: Dice,
    attributes: Attributes | None = None,
    prefer: Sequence[Attribute] = (Attribute.CC, Attribute.FS, Attribute.MV),
    never_surrenders: bool = False,
) -> LossOutcome:
    """Apply `steps` negative results: each drops the fatigue die one level (d12 → d10 …).

    Once the d4 is lost, each further negative result rolls a d4: a 1 and the unit surrenders;
    any other score costs one level of close combat, fire strength or move, the first of
    `prefer` that the unit still has (the phasing player's preference).
    """
    if steps < 0:
        raise GraspError("A unit cannot lose a negative number of fatigue dice.")
    events: list[str] = []
    current = fatigue
    attrs = attributes if attributes is not None else Attributes()
    surrendered = False
    for _ in range(steps):
        if current is not None:
            after = step_down(current)
            events.append(f"{name}: fatigue {current.label} → {format_level(after)}")
            current = after
            continue
        roll = dice.roll(ZERO_FATIGUE_DIE, f"{name} d4 check without fatigue")
        if roll == 1 and not never_surrenders:
            events.append(f"{name}: no fatigue die left, d4 check rolled 1: surrenders")
            surrendered = True
            break
        if roll == 1:
            events.append(f"{name}: no fatigue die left, d4 check rolled 1, but it never"
                          " surrenders")
            continue
        lost = next((a for a in prefer if attrs.get(a) is not None), None)
        if lost is None:
            events.append(f"{name}: no fatigue die left, d4 check rolled {roll}: nothing left"
                          " to lose")
            continue
        before = attrs.get(lost)
        attrs = attrs.lowered(lost)
        after_spec = attrs.get(lost)
        events.append(
            f"{name}: no fatigue die left, d4 check rolled {roll}: {lost.value} "
            f"{before.label if before else 'none'} → "
            f"{after_spec.label if after_spec else 'none'}"
        )
    return LossOutcome(fatigue_before=fatigue, fatigue_after=current, surrendered=surrendered,
                       attributes=attrs, events=tuple(events))


# -----------------------------------------------------------------------------------------------
# Supply


@dataclass(frozen=True, kw_only=True)
class SupplyRecipient:
    """A unit in contact with a supply unit. `full` is its own fatigue die when unfatigued (it is
    never raised above it); `wants` limits the dice asked for (None: as many as allowed)."""

    name: str
    fatigue: DieLevel | None
    full: DieLevel | None = None
    moving: bool = False
    wants: int | None = None


@dataclass(frozen=True, kw_only=True)
class SupplyGiven:
    name: str
    fatigue_before: DieLevel | None
    fatigue_after: DieLevel | None
    dice: int
    limit: str

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "fatigue_before": format_level(self.fatigue_before),
                "fatigue_after": format_level(self.fatigue_after), "dice": self.dice,
                "limit": self.limit}


@dataclass(frozen=True, kw_only=True)
class SupplyResult:
    supplier_before: DieLevel | None
    supplier_after: DieLevel | None
    recipients: tuple[SupplyGiven, ...]

    def to_dict(self) -> dict[str, object]:
        return {"supplier": {"fatigue_before": format_level(self.supplier_before),
                             "fatigue_after": format_level(self.supplier_after),
                             "dice_given": sum(r.dice for r in self.recipients)},
                "recipients": [r.to_dict() for r in self.recipients]}


def resupply(
    *, supplier: DieLevel | None, recipients: Sequence[SupplyRecipient], supplier_moving: bool
) -> SupplyResult:
    """One turn of supply: each fatigue die given raises a recipient one level and costs the
    supply unit one level; 1 die per recipient per turn if either unit moves, else up to 2; no
    recipient above the supply unit's die before resupply began (nor above its own full die)."""
    cap = supplier
    current = supplier
    given: list[SupplyGiven] = []
    for r in recipients:
        if r.wants is not None and r.wants < 0:
            raise GraspError(f"{r.name} cannot ask for a negative number of fatigue dice.")
        rate = MOVING_TRANSFER_RATE if (supplier_moving or r.moving) else STATIONARY_TRANSFER_RATE
        limits = [(rate, "1 die per turn while moving" if rate == 1 else "2 dice per turn")]
        limits.append((steps_of(cap) - steps_of(r.fatigue),
                       "not above the supply unit's die before resupply"))
        if r.full is not None:
            limits.append((steps_of(r.full) - steps_of(r.fatigue), "its own full fatigue die"))
        if r.wants is not None:
            limits.append((r.wants, "dice asked for"))
        limits.append((steps_of(current), "the supply unit's remaining fatigue"))
        amount, why = min(limits, key=lambda pair: pair[0])
        amount = max(amount, 0)
        after = step_up(r.fatigue, amount) if amount else r.fatigue
        current = step_down(current, amount) if amount else current
        given.append(SupplyGiven(name=r.name, fatigue_before=r.fatigue, fatigue_after=after,
                                 dice=amount, limit=why))
    return SupplyResult(supplier_before=supplier, supplier_after=current,
                        recipients=tuple(given))


# -----------------------------------------------------------------------------------------------
# Carriers


@dataclass(frozen=True, kw_only=True)
class Cargo:
    name: str
    fatigue: DieLevel | None
    base_area: Fraction


@dataclass(frozen=True, kw_only=True)
class CarrierLoad:
    capacity: int
    load: int
    excess: int
    fatigue_before: DieLevel | None
    fatigue_while_carrying: DieLevel | None
    area: Fraction
    cargo_area: Fraction
    cargo_after_lost_combat: tuple[tuple[str, DieLevel | None], ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "capacity_levels": self.capacity,
            "load_levels": self.load,
            "excess_levels": self.excess,
            "fatigue_before": format_level(self.fatigue_before),
            "fatigue_while_carrying": format_level(self.fatigue_while_carrying),
            "base_area": _frac(self.area),
            "cargo_area": _frac(self.cargo_area),
            "cargo_if_carrier_loses": [{"name": n, "fatigue": format_level(f)}
                                       for n, f in self.cargo_after_lost_combat],
        }


def _frac(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


def carrier_load(
    *, fatigue: DieLevel | None, base_area: Fraction, cargo: Sequence[Cargo]
) -> CarrierLoad:
    """A carrier's capacity in fatigue levels (its die's place on the ladder: d10 carries 4);
    each carried unit counts its own levels; carrying more costs the carrier the excess levels;
    the cargo's base area can never exceed the carrier's."""
    cargo_area = sum((c.base_area for c in cargo), Fraction(0))
    if cargo_area > base_area:
        raise GraspError(
            f"The carried units' bases cover {_frac(cargo_area)} square MU, more than the"
            f" carrier's own base ({_frac(base_area)}); a carrier carries only what fits on it."
        )
    capacity = steps_of(fatigue)
    load = sum(steps_of(c.fatigue) for c in cargo)
    excess = max(load - capacity, 0)
    return CarrierLoad(
        capacity=capacity, load=load, excess=excess, fatigue_before=fatigue,
        fatigue_while_carrying=step_down(fatigue, excess) if excess else fatigue,
        area=base_area, cargo_area=cargo_area,
        cargo_after_lost_combat=tuple((c.name, step_down(c.fatigue)) for c in cargo),
    )
