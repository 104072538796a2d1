"""Erfworld combat: who may attack what, every factor of the hits formula, resolution and report."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from rules.dice import Dice, DiceError, roll_2d6
from rules.erfworld.types import MovementClass, Special, Terrain, UnitStats
from rules.erfworld.units import (
    FieldError,
    format_fraction,
    gain_xp,
    parse_int,
    reject_unknown_fields,
    unit_stats_from_dict,
)

MAX_FIGHTING_UNITS = 8
DEFAULT_AMBUSH_VALUE = Fraction(2)
FLYING_ATTACKER_FORT_BONUS = Fraction(2)
HITS_PER_FORT_BONUS_POINT = 50

TERRAIN_BONUS: dict[Terrain, int] = {
    Terrain.OPEN: 0,
    Terrain.ROAD: 0,
    Terrain.HILLS: 1,
    Terrain.WOODS: 1,
    Terrain.SWAMP: 2,
}

ATTACKER = "attacker"
DEFENDER = "defender"


class CombatError(ValueError):
    """A combat's inputs break a combat rule (rules-erfworld.md §3)."""


class AttackError(CombatError):
    """An attack that the rules do not allow (rules-erfworld.md §3, "Who may attack what")."""


class Order(enum.StrEnum):
    SIMULTANEOUS = "simultaneous"
    ATTACKER_FIRST = "attacker_first"
    DEFENDER_FIRST = "defender_first"


class Winner(enum.StrEnum):
    ATTACKER = "attacker"
    DEFENDER = "defender"
    NONE = "none"


# ---------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True, kw_only=True)
class CombatUnit:
    """A unit as it enters a combat; None for `current_hits`/`move_left` means full hits/move."""

    name: str
    stats: UnitStats
    current_hits: int | None = None
    commander_level: int | None = None
    xp: int = 0
    move_left: int | None = None
    is_chief_warlord: bool = False

    def __post_init__(self) -> None:
        if self.current_hits is not None and not 1 <= self.current_hits <= self.stats.hits:
            raise CombatError(
                f"Unit {self.name!r} has {self.current_hits} current hits; a unit in combat has"
                f" between 1 and its {self.stats.hits} hits (a unit at 0 is croaked)."
            )
        if self.is_commander and (self.commander_level is None or self.commander_level < 1):
            raise CombatError(
                f"Commander {self.name!r} needs a commander level of at least 1 (rolled on a d10)."
            )
        if not self.is_commander and self.commander_level is not None:
            raise CombatError(f"Unit {self.name!r} has a commander level but is not a commander.")
        if self.xp < 0:
            raise CombatError(f"Unit {self.name!r} has negative experience.")
        if self.move_left is not None and not self.move_left >= 0:
            raise CombatError(f"Unit {self.name!r} has negative movement left.")
        if self.is_chief_warlord and not self.is_commander:
            raise CombatError(f"The Chief Warlord {self.name!r} must be a commander.")

    @property
    def hits_now(self) -> int:
        return self.stats.hits if self.current_hits is None else self.current_hits

    @property
    def moves_left(self) -> int:
        return self.stats.move if self.move_left is None else self.move_left

    @property
    def is_commander(self) -> bool:
        return self.stats.has(Special.COMMANDER)

    @property
    def is_ranged(self) -> bool:
        return self.stats.has(Special.RANGED)


@dataclass(frozen=True, kw_only=True)
class CombatSide:
    """One stack in a combat, its units in stack order, and the side's circumstances.

    `combats_this_turn` is the defender's count of combats as defender already fought this
    turn (0 for its first); `roll` fixes its 2d6 instead of drawing them from the dice;
    `flying` None means "every unit has the flying special".
    """

    units: tuple[CombatUnit, ...]
    name: str = ""
    chief_warlord_in_hex: bool = False
    ambush_bonus: Fraction = Fraction(1)
    combats_this_turn: int = 0
    roll: tuple[int, int] | None = None
    flying: bool | None = None

    def __post_init__(self) -> None:
        label = self.name or "a stack"
        if not self.units:
            raise CombatError(f"In combat, {label} needs at least one unit.")
        if self.ambush_bonus < 1:
            raise CombatError(
                f"The ambush bonus of {label} is {format_fraction(Fraction(self.ambush_bonus))};"
                " it is 1 (no ambush) or the campaign's ambush value, never below 1."
            )
        if self.combats_this_turn < 0:
            raise CombatError(f"The combat count of {label} cannot be negative.")
        if self.roll is not None and (
            len(self.roll) != 2 or any(not 1 <= d <= 6 for d in self.roll)
        ):
            raise CombatError(
                f"The roll of {label} must be two d6 values from 1 to 6, not {self.roll!r}."
            )

    @property
    def is_flying(self) -> bool:
        if self.flying is not None:
            return self.flying
        return all(u.stats.has(Special.FLYING) for u in self.units)

    @property
    def is_ranged(self) -> bool:
        return stack_is_ranged([u.stats for u in self.units])

    @property
    def has_chief_warlord(self) -> bool:
        return self.chief_warlord_in_hex or any(u.is_chief_warlord for u in self.units)


@dataclass(frozen=True, kw_only=True)
class Combat:
    """Everything one combat depends on, besides the dice.

    `fortification_hits` is tower + wall facing the attack, of a fortification held by the
    defender's side; `fortified` None means "fortification_hits > 0". `target` indexes
    `defender.units`. `protectors` are the other stacks of the defender's side in its hex
    that have not yet used their special retaliation this turn; `defender_commander_in_hex`
    None means "a surviving commander is in the defending stack or a protector".
    """

    attacker: CombatSide
    defender: CombatSide
    defender_terrain: Terrain = Terrain.OPEN
    fortification_hits: int = 0
    fortified: bool | None = None
    withdraw: bool = False
    target: int | None = None
    protectors: tuple[CombatSide, ...] = ()
    defender_commander_in_hex: bool | None = None

    def __post_init__(self) -> None:
        if self.fortification_hits < 0:
            raise CombatError("Fortification hits cannot be negative.")
        if self.target is not None:
            if not 0 <= self.target < len(self.defender.units):
                raise CombatError(
                    f"Target {self.target} is not a unit of the defending stack"
                    f" (it has {len(self.defender.units)} units, numbered from 0)."
                )
            if not any(u.is_commander for u in self.attacker.units):
                raise CombatError(
                    "Only an attacking stack with a commander may direct its hits at one unit."
                )

    @property
    def is_fortified(self) -> bool:
        if self.fortified is not None:
            return self.fortified
        return self.fortification_hits > 0

    @property
    def order(self) -> Order:
        return resolution_order(
            attacker_ranged=self.attacker.is_ranged, defender_ranged=self.defender.is_ranged
        )


# ---------------------------------------------------------------------------
# Factors


def stack_is_ranged(units: Sequence[UnitStats]) -> bool:
    """A stack fights at range when it has a ranged unit and every other unit is a commander."""
    return any(u.has(Special.RANGED) for u in units) and all(
        u.has(Special.RANGED) or u.has(Special.COMMANDER) for u in units
    )


def fighting_units(units: Sequence[CombatUnit], *, ranged: bool) -> list[CombatUnit]:
    """The units whose attack counts: in a ranged stack a non-ranged commander only leads."""
    if ranged:
        return [u for u in units if u.is_ranged]
    return list(units)


def total_attack(units: Sequence[CombatUnit], *, ranged: bool) -> int:
    """TA: the attack of the first 8 fighting units in stack order."""
    return sum(u.stats.attack for u in fighting_units(units, ranged=ranged)[:MAX_FIGHTING_UNITS])


def command_bonus(*, highest_level: int | None, chief_warlord_in_hex: bool) -> Fraction:
    """CB: 1 + 0.1 × highest commander level + 0.1 if the side's Chief Warlord is in the hex."""
    cb = Fraction(1)
    if highest_level is not None:
        cb += Fraction(highest_level, 10)
    if chief_warlord_in_hex:
        cb += Fraction(1, 10)
    return cb


def highest_commander_level(units: Sequence[CombatUnit]) -> int | None:
    levels = [u.commander_level for u in units if u.commander_level is not None]
    return max(levels) if levels else None


def special_bonus(*, combats_as_defender: int) -> Fraction:
    """SB of a defender: 1, ½, ¼ … for its 1st, 2nd, 3rd … counted combat as defender this turn."""
    return Fraction(1, 2**combats_as_defender)


def random_number(roll: tuple[int, int]) -> Fraction:
    """RN = (2d6 + 8) / 20: a roll of 2 gives 1/2, 7 gives 3/4, 12 gives 1."""
    return Fraction(sum(roll) + 8, 20)


def average_defence(units: Sequence[UnitStats]) -> Fraction:
    """avgD: the sum of Defence of all units of the receiving stack over their number, exact."""
    return Fraction(sum(u.defence for u in units), len(units))


def fortification_bonus(hits: int) -> Fraction:
    """Fortification defence bonus: 0.02 × hits, i.e. +1 per 50 hits."""
    return Fraction(hits, HITS_PER_FORT_BONUS_POINT)


def terrain_bonus(
    *,
    terrain: Terrain,
    defender_flying: bool,
    fortified: bool,
    fortification_hits: int,
    attacker_flying: bool,
) -> Fraction:
    """TB of a defending stack: terrain (never for fliers) plus the fortification bonus."""
    tb = Fraction(0 if defender_flying else TERRAIN_BONUS[terrain])
    if fortified:
        tb += (
            FLYING_ATTACKER_FORT_BONUS
            if attacker_flying
            else fortification_bonus(fortification_hits)
        )
    return tb


def defence_factor(*, avg_defence: Fraction, tb: Fraction) -> Fraction:
    """DF = (8 − avgD − TB) / 8; at or below 0 the receiving stack takes no hits."""
    return (8 - avg_defence - tb) / 8


def resolution_order(*, attacker_ranged: bool, defender_ranged: bool) -> Order:
    """Melee v melee and ranged v ranged are simultaneous; otherwise the ranged side goes first."""
    if attacker_ranged == defender_ranged:
        return Order.SIMULTANEOUS
    return Order.ATTACKER_FIRST if attacker_ranged else Order.DEFENDER_FIRST


@dataclass(frozen=True, kw_only=True)
class Factors:
    """Every factor of hits = floor(TA × CB × SB × AB × RN × DF), exact, with avgD and TB."""

    ta: int
    cb: Fraction
    sb: Fraction
    ab: Fraction
    rn: Fraction
    avg_defence: Fraction
    tb: Fraction

    @property
    def df(self) -> Fraction:
        return defence_factor(avg_defence=self.avg_defence, tb=self.tb)

    @property
    def product(self) -> Fraction:
        """The exact product before rounding down (0 when DF ≤ 0: the stack is invulnerable)."""
        if self.df <= 0:
            return Fraction(0)
        return self.ta * self.cb * self.sb * self.ab * self.rn * self.df

    @property
    def hits(self) -> int:
        return math.floor(self.product)

    def as_dict(self) -> dict[str, Fraction]:
        return {
            "TA": Fraction(self.ta),
            "CB": self.cb,
            "SB": self.sb,
            "AB": self.ab,
            "RN": self.rn,
            "DF": self.df,
            "avgD": self.avg_defence,
            "TB": self.tb,
        }

    def explain(self) -> str:
        f = format_fraction
        formula = (
            f"TA {self.ta} × CB {f(self.cb)} × SB {f(self.sb)} × AB {f(self.ab)}"
            f" × RN {f(self.rn)} × DF {f(self.df)}"
        )
        df_note = f"DF = (8 − avgD {f(self.avg_defence)} − TB {f(self.tb)}) / 8"
        if self.df <= 0:
            return f"{formula}: DF ≤ 0, so 0 hits ({df_note})"
        return f"{formula} = {f(self.product)} → {self.hits} hits ({df_note})"


def hits_inflicted(
    *,
    ta: int,
    cb: Fraction,
    sb: Fraction,
    ab: Fraction,
    rn: Fraction,
    avg_defence: Fraction,
    tb: Fraction,
) -> int:
    """hits = floor(TA × CB × SB × AB × RN × DF), 0 when DF ≤ 0; exact arithmetic throughout."""
    return Factors(ta=ta, cb=cb, sb=sb, ab=ab, rn=rn, avg_defence=avg_defence, tb=tb).hits


# ---------------------------------------------------------------------------
# Allocation


def directed_multiplier(unit: CombatUnit) -> int:
    """A directed target needs 2 × its current hits to croak, 4 × if it is a commander."""
    return 4 if unit.is_commander else 2


def allocate_hits(
    *,
    hits: int,
    current: Sequence[int],
    commanders: Sequence[bool],
    target: int | None = None,
) -> tuple[int, ...]:
    """The receiving stack's current hits after taking `hits`.

    In stack order each unit takes hits until it reaches 0 (croaked) and the overflow goes on.
    A directed target is paid for first at 2× (4× for a commander); if it is not croaked it
    loses floor(spent / multiplier); the overflow goes on in stack order to the other units.
    """
    if hits < 0:
        raise CombatError("Hits cannot be negative.")
    after = list(current)
    left = hits
    if target is not None and after[target] > 0:
        multiplier = 4 if commanders[target] else 2
        needed = multiplier * after[target]
        spent = min(left, needed)
        after[target] = 0 if spent == needed else after[target] - spent // multiplier
        left -= spent
    for i, hp in enumerate(after):
        if left == 0:
            break
        if i == target or hp == 0:
            continue
        taken = min(hp, left)
        after[i] = hp - taken
        left -= taken
    return tuple(after)


# ---------------------------------------------------------------------------
# Results


@dataclass(frozen=True, kw_only=True)
class DieRecord:
    """One d6 used in a combat: what it was for and its value; `number` None for a given roll."""

    purpose: str
    value: int
    number: int | None = None


@dataclass(frozen=True, kw_only=True)
class Strike:
    """One side striking one stack: the roll, the factors, the hits and what each unit lost."""

    by: str
    on: str
    roll: tuple[int, int]
    factors: Factors
    directed_target: int | None
    hits_before: tuple[int, ...]
    hits_after: tuple[int, ...]
    unit_names: tuple[str, ...]

    @property
    def hits(self) -> int:
        return self.factors.hits

    def explain(self) -> list[str]:
        roll = f"{self.roll[0]}+{self.roll[1]}"
        lines = [f"{self.by} strikes {self.on}: roll {roll}; {self.factors.explain()}"]
        if self.directed_target is not None:
            lines.append(f"  hits directed at {self.unit_names[self.directed_target]!r} first")
        for name, before, after in zip(
            self.unit_names, self.hits_before, self.hits_after, strict=True
        ):
            if before != after:
                state = "croaked" if after == 0 else f"{after} hits left"
                lines.append(f"  {name}: loses {before - after} ({state})")
        return lines


def strike(
    *,
    by: str,
    on: str,
    roll: tuple[int, int],
    factors: Factors,
    hp: tuple[int, ...],
    units: Sequence[CombatUnit],
    target: int | None = None,
) -> Strike:
    """`by` strikes the stack `units` (hits now `hp`): its hits allocated, what each unit lost."""
    after = allocate_hits(
        hits=factors.hits,
        current=hp,
        commanders=[u.is_commander for u in units],
        target=target,
    )
    return Strike(
        by=by,
        on=on,
        roll=roll,
        factors=factors,
        directed_target=target,
        hits_before=hp,
        hits_after=after,
        unit_names=tuple(u.name for u in units),
    )


@dataclass(frozen=True, kw_only=True)
class UnitOutcome:
    """A unit after the combat (and any special retaliation)."""

    name: str
    hits_before: int
    current_hits: int
    commander_level: int | None
    xp: int
    levelled_up: bool

    @property
    def croaked(self) -> bool:
        return self.current_hits == 0

    @property
    def hits_lost(self) -> int:
        return self.hits_before - self.current_hits


@dataclass(frozen=True, kw_only=True)
class SideOutcome:
    """A side's roll and factors (None if it did not strike), hits it inflicted, its units after."""

    roll: tuple[int, int] | None
    factors: Factors | None
    hits_inflicted: int
    units: tuple[UnitOutcome, ...]

    @property
    def wiped_out(self) -> bool:
        return all(u.croaked for u in self.units)


@dataclass(frozen=True, kw_only=True)
class Retaliation:
    """What one protecting stack did: its strike on the attacker (and, if ranged, on its own)."""

    protector: str
    index: int
    used: bool
    reason: str
    roll: tuple[int, int] | None = None
    on_attacker: Strike | None = None
    on_protected: Strike | None = None


@dataclass(frozen=True, kw_only=True)
class CombatResult:
    """The outcome of one combat and everything needed to explain it."""

    order: Order
    attacker: SideOutcome
    defender: SideOutcome
    hits_on_defender: int
    hits_on_attacker: int
    winner: Winner
    withdrew: bool
    counts_for_defender: bool
    defender_combats_after: int
    strikes: tuple[Strike, ...]
    special_retaliation: tuple[Retaliation, ...]
    dice: tuple[DieRecord, ...]
    notes: tuple[str, ...] = field(default=())

    def explain(self) -> list[str]:
        """The report's lines: order, every strike with every factor, dice, casualties, winner."""
        lines = [f"order of resolution: {self.order.value}"]
        lines.extend(self.notes)
        for strike in self.strikes:
            lines.extend(strike.explain())
        for r in self.special_retaliation:
            if not r.used:
                lines.append(f"special retaliation by {r.protector}: not used ({r.reason})")
                continue
            lines.append(f"special retaliation by {r.protector} ({r.reason})")
            for s in (r.on_attacker, r.on_protected):
                if s is not None:
                    lines.extend("  " + line for line in s.explain())
        lines.append(
            f"hits on defender {self.hits_on_defender}, hits on attacker {self.hits_on_attacker}:"
            f" winner {self.winner.value}"
        )
        for side_name, side in ((ATTACKER, self.attacker), (DEFENDER, self.defender)):
            for u in side.units:
                if u.levelled_up:
                    lines.append(
                        f"{side_name} commander {u.name!r} reaches level {u.commander_level}"
                    )
        lines.append(
            "this combat counts for the defender (next SB uses count"
            f" {self.defender_combats_after})"
            if self.counts_for_defender
            else "the defender wiped out the attacking stack: this combat does not count for it"
        )
        for die in self.dice:
            source = "given" if die.number is None else f"roll #{die.number}"
            lines.append(f"die {die.purpose}: {die.value} ({source})")
        return lines

    def to_dict(self) -> dict[str, object]:
        """The calculator's JSON shape; factors as {"exact": "3/4", "decimal": "0.75"}."""
        return {
            "order": self.order.value,
            "hits_on_defender": self.hits_on_defender,
            "hits_on_attacker": self.hits_on_attacker,
            "winner": self.winner.value,
            ATTACKER: _side_dict(self.attacker),
            DEFENDER: _side_dict(self.defender),
        }


def fraction_json(value: Fraction) -> dict[str, str]:
    """An exact value for JSON: {"exact": "3/4", "decimal": "0.75"} (decimal to 4 places)."""
    exact = (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )
    scaled = round(value * 10_000)  # Fraction rounds half to even, exactly
    sign = "-" if scaled < 0 else ""
    whole, frac = divmod(abs(scaled), 10_000)
    decimal = f"{sign}{whole}" + (f".{frac:04d}".rstrip("0") if frac else "")
    return {"exact": exact, "decimal": decimal}


def _side_dict(side: SideOutcome) -> dict[str, object]:
    return {
        "roll": list(side.roll) if side.roll is not None else None,
        "factors": (
            {k: fraction_json(v) for k, v in side.factors.as_dict().items()}
            if side.factors is not None
            else None
        ),
        "units": [
            {"name": u.name, "current_hits": u.current_hits, "croaked": u.croaked}
            for u in side.units
        ],
    }


# ---------------------------------------------------------------------------
# Resolution

# A roll source gets the party ("attacker", "defender", "protector 0" …), the side's given
# roll (or None) and the purpose; it returns the two d6.
RollSource = Callable[[str, tuple[int, int] | None, str], tuple[int, int]]


def resolve_combat(combat: Combat, *, dice: Dice) -> CombatResult:
    """Resolve one combat; sides without a given `roll` draw 2d6 from `dice`, each recorded."""
    records: list[DieRecord] = []

    def source(party: str, given: tuple[int, int] | None, purpose: str) -> tuple[int, int]:
        if given is not None:
            records.append(DieRecord(purpose=f"{purpose} die 1", value=given[0]))
            records.append(DieRecord(purpose=f"{purpose} die 2", value=given[1]))
            return given
        before = len(dice.rolls)
        try:
            roll = roll_2d6(dice, purpose)
        except DiceError as exc:
            raise CombatError(f"The {party}'s 2d6 could not be rolled: {exc}") from exc
        records.extend(
            DieRecord(purpose=r.purpose, value=r.value, number=r.number)
            for r in dice.rolls[before:]
        )
        return roll

    result = resolve_with_rolls(combat, roll_source=source)
    return replace(result, dice=tuple(records))


def resolve_with_rolls(combat: Combat, *, roll_source: RollSource) -> CombatResult:
    """Resolve a combat taking each side's 2d6 from `roll_source` (used by the odds too)."""
    attacker, defender = combat.attacker, combat.defender
    att_ranged, def_ranged = attacker.is_ranged, defender.is_ranged
    order = resolution_order(attacker_ranged=att_ranged, defender_ranged=def_ranged)
    att_stats = [u.stats for u in attacker.units]
    def_stats = [u.stats for u in defender.units]
    att_commanders = [u.is_commander for u in attacker.units]
    att_hp: tuple[int, ...] = tuple(u.hits_now for u in attacker.units)
    def_hp: tuple[int, ...] = tuple(u.hits_now for u in defender.units)
    notes: list[str] = []

    att_avg_d = average_defence(att_stats)
    def_avg_d = average_defence(def_stats)
    def_tb = terrain_bonus(
        terrain=combat.defender_terrain,
        defender_flying=defender.is_flying,
        fortified=combat.is_fortified,
        fortification_hits=combat.fortification_hits,
        attacker_flying=attacker.is_flying,
    )
    sb_defender = special_bonus(combats_as_defender=defender.combats_this_turn)

    def attacker_factors(hp: Sequence[int], roll: tuple[int, int]) -> Factors:
        alive = [u for u, h in zip(attacker.units, hp, strict=True) if h > 0]
        return Factors(
            ta=total_attack(alive, ranged=att_ranged),
            cb=command_bonus(
                highest_level=highest_commander_level(alive),
                chief_warlord_in_hex=attacker.chief_warlord_in_hex
                or any(u.is_chief_warlord for u in alive),
            ),
            sb=Fraction(1),
            ab=Fraction(attacker.ambush_bonus),
            rn=random_number(roll),
            avg_defence=def_avg_d,
            tb=def_tb,
        )

    def defender_factors(hp: Sequence[int], roll: tuple[int, int]) -> Factors:
        alive = [u for u, h in zip(defender.units, hp, strict=True) if h > 0]
        return Factors(
            ta=total_attack(alive, ranged=def_ranged),
            cb=command_bonus(
                highest_level=highest_commander_level(alive),
                chief_warlord_in_hex=defender.chief_warlord_in_hex
                or any(u.is_chief_warlord for u in alive),
            ),
            sb=sb_defender,
            ab=Fraction(defender.ambush_bonus),
            rn=random_number(roll),
            avg_defence=att_avg_d,
            tb=Fraction(0),
        )

    def attacker_strikes(hp_att: tuple[int, ...]) -> Strike:
        roll = roll_source(ATTACKER, attacker.roll, "combat: attacker")
        factors = attacker_factors(hp_att, roll)
        # Directed hits need a commander leading the attack when it strikes.
        led = any(h > 0 and c for h, c in zip(hp_att, att_commanders, strict=True))
        target = combat.target if led else None
        if combat.target is not None and not led:
            notes.append("the attacking commander was croaked first, so hits go in stack order")
        return strike(by=ATTACKER, on=DEFENDER, roll=roll, factors=factors, hp=def_hp,
                      units=defender.units, target=target)

    def defender_strikes(hp_def: tuple[int, ...]) -> Strike:
        roll = roll_source(DEFENDER, defender.roll, "combat: defender")
        factors = defender_factors(hp_def, roll)
        return strike(by=DEFENDER, on=ATTACKER, roll=roll, factors=factors, hp=att_hp,
                      units=attacker.units)

    withdrew = False
    att_strike: Strike | None = None
    def_strike: Strike | None = None
    if order is Order.SIMULTANEOUS:
        att_strike = attacker_strikes(att_hp)
        def_strike = defender_strikes(def_hp)
        strikes: tuple[Strike, ...] = (att_strike, def_strike)
        att_hp, def_hp = def_strike.hits_after, att_strike.hits_after
    elif order is Order.DEFENDER_FIRST:
        def_strike = defender_strikes(def_hp)
        att_hp = def_strike.hits_after
        strikes = (def_strike,)
        if any(att_hp):
            att_strike = attacker_strikes(att_hp)
            def_hp = att_strike.hits_after
            strikes += (att_strike,)
        else:
            notes.append("the attacking stack was croaked before it could strike")
    else:
        att_strike = attacker_strikes(att_hp)
        def_hp = att_strike.hits_after
        strikes = (att_strike,)
        move_left = min(u.moves_left for u in attacker.units)
        if combat.withdraw and move_left > 0:
            withdrew = True
            notes.append("the ranged attacker withdraws before the defender can strike back")
        elif not any(def_hp):
            notes.append("the defending stack was croaked before it could strike back")
        else:
            if combat.withdraw:
                notes.append("withdraw declared but the attacker has no movement left")
            def_strike = defender_strikes(def_hp)
            att_hp = def_strike.hits_after
            strikes += (def_strike,)
    if combat.withdraw and order is not Order.ATTACKER_FIRST:
        notes.append("withdraw only applies to a ranged attack on a melee stack; ignored")

    hits_on_defender = att_strike.hits if att_strike is not None else 0
    hits_on_attacker = def_strike.hits if def_strike is not None else 0
    attacker_wiped = not any(att_hp)
    # The defender keeps its count when its own strike wiped out the attacking stack.
    counts = not (def_strike is not None and attacker_wiped)

    att_hp, def_hp, retaliations = _special_retaliation(
        combat,
        att_hp=att_hp,
        def_hp=def_hp,
        att_avg_d=att_avg_d,
        def_avg_d=def_avg_d,
        withdrew=withdrew,
        roll_source=roll_source,
    )

    if hits_on_defender > hits_on_attacker:
        winner = Winner.ATTACKER
    elif hits_on_attacker > hits_on_defender:
        winner = Winner.DEFENDER
    else:
        winner = Winner.NONE

    return CombatResult(
        order=order,
        attacker=SideOutcome(
            roll=att_strike.roll if att_strike else None,
            factors=att_strike.factors if att_strike else None,
            hits_inflicted=hits_on_defender,
            units=_outcomes(attacker.units, att_hp, won=winner is Winner.ATTACKER),
        ),
        defender=SideOutcome(
            roll=def_strike.roll if def_strike else None,
            factors=def_strike.factors if def_strike else None,
            hits_inflicted=hits_on_attacker,
            units=_outcomes(defender.units, def_hp, won=winner is Winner.DEFENDER),
        ),
        hits_on_defender=hits_on_defender,
        hits_on_attacker=hits_on_attacker,
        winner=winner,
        withdrew=withdrew,
        counts_for_defender=counts,
        defender_combats_after=defender.combats_this_turn + (1 if counts else 0),
        strikes=strikes,
        special_retaliation=retaliations,
        dice=(),
        notes=tuple(notes),
    )


def _outcomes(
    units: Sequence[CombatUnit], hp: Sequence[int], *, won: bool
) -> tuple[UnitOutcome, ...]:
    out = []
    for unit, h in zip(units, hp, strict=True):
        level, xp = unit.commander_level, unit.xp
        levelled = False
        if won and level is not None and h > 0:
            new_level, xp = gain_xp(level=level, xp=xp)
            levelled = new_level > level
            level = new_level
        out.append(
            UnitOutcome(
                name=unit.name,
                hits_before=unit.hits_now,
                current_hits=h,
                commander_level=level,
                xp=xp,
                levelled_up=levelled,
            )
        )
    return tuple(out)


def is_melee_infantry_stack(side: CombatSide) -> bool:
    """A melee ground stack that is not all cavalry (it cannot reach ranged attackers)."""
    return (
        not side.is_ranged
        and not side.is_flying
        and not all(u.stats.movement_class is MovementClass.CAVALRY for u in side.units)
    )


def _special_retaliation(
    combat: Combat,
    *,
    att_hp: tuple[int, ...],
    def_hp: tuple[int, ...],
    att_avg_d: Fraction,
    def_avg_d: Fraction,
    withdrew: bool,
    roll_source: RollSource,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[Retaliation, ...]]:
    if not combat.protectors:
        return att_hp, def_hp, ()
    attacker, defender = combat.attacker, combat.defender
    if combat.defender_commander_in_hex is not None:
        commander_in_hex = combat.defender_commander_in_hex
    else:
        commander_in_hex = any(
            u.is_commander and h > 0 for u, h in zip(defender.units, def_hp, strict=True)
        ) or any(u.is_commander for p in combat.protectors for u in p.units)
    involves_melee = not attacker.is_ranged or not defender.is_ranged
    out: list[Retaliation] = []
    for i, protector in enumerate(combat.protectors):
        label = protector.name or f"protector {i}"

        def skip(reason: str, *, index: int = i, label: str = label) -> None:
            out.append(Retaliation(protector=label, index=index, used=False, reason=reason))

        if withdrew:
            skip("the attacker withdrew before any retaliation")
            continue
        if not commander_in_hex:
            skip("there is no commander of the defending side in the hex")
            continue
        if not any(att_hp):
            skip("the attacking stack is already croaked")
            continue
        ranged = protector.is_ranged
        if not ranged and attacker.is_ranged and is_melee_infantry_stack(protector):
            skip("melee infantry cannot retaliate against a ranged attack")
            continue
        sb = Fraction(1, 4) if ranged and involves_melee else Fraction(1, 2)
        roll = roll_source(f"protector {i}", protector.roll, f"special retaliation: {label}")
        cb = command_bonus(
            highest_level=highest_commander_level(protector.units),
            chief_warlord_in_hex=protector.has_chief_warlord or defender.has_chief_warlord,
        )
        ta = total_attack(protector.units, ranged=ranged)
        on_attacker_factors = Factors(
            ta=ta,
            cb=cb,
            sb=sb,
            ab=Fraction(1),
            rn=random_number(roll),
            avg_defence=att_avg_d,
            tb=Fraction(0),
        )
        on_attacker = strike(by=label, on=ATTACKER, roll=roll, factors=on_attacker_factors,
                             hp=att_hp, units=attacker.units)
        att_hp = on_attacker.hits_after
        on_protected = None
        reason = f"SB {format_fraction(sb)}"
        if ranged and involves_melee:
            # A ranged stack shooting into a melee also hits the stack it protects, at SB 1/8;
            # the shots come from inside the hex, so no terrain or fortification bonus applies.
            own_factors = replace(on_attacker_factors, sb=Fraction(1, 8), avg_defence=def_avg_d)
            on_protected = strike(by=label, on=DEFENDER, roll=roll, factors=own_factors,
                                  hp=def_hp, units=defender.units)
            def_hp = on_protected.hits_after
            reason += "; a ranged stack in a combat with melee also strikes its own stack at SB 1/8"
        out.append(
            Retaliation(
                protector=label,
                index=i,
                used=True,
                reason=reason,
                roll=roll,
                on_attacker=on_attacker,
                on_protected=on_protected,
            )
        )
    return att_hp, def_hp, tuple(out)


def resolve_ambush(
    *,
    ambusher: CombatSide,
    moving: CombatSide,
    moving_hex_terrain: Terrain,
    dice: Dice,
    ambush_value: Fraction = DEFAULT_AMBUSH_VALUE,
    fortification_hits: int = 0,
    fortified: bool | None = None,
    target: int | None = None,
) -> CombatResult:
    """An ambush: the enemy stack attacks the moving stack with AB = the campaign's ambush value.

    The moving stack is the defender, in the terrain of the hex it stopped in, and strikes back
    normally (its SB follows its own combat count).
    """
    return resolve_combat(
        Combat(
            attacker=replace(ambusher, ambush_bonus=Fraction(ambush_value)),
            defender=moving,
            defender_terrain=moving_hex_terrain,
            fortification_hits=fortification_hits,
            fortified=fortified,
            target=target,
        ),
        dice=dice,
    )


# ---------------------------------------------------------------------------
# Who may attack what


@dataclass(frozen=True, kw_only=True)
class TargetStack:
    """An enemy stack in the target hex and how many times it has been attacked this turn."""

    units: tuple[UnitStats, ...]
    times_attacked: int = 0
    name: str = ""
    flying: bool | None = None

    @property
    def is_flying(self) -> bool:
        if self.flying is not None:
            return self.flying
        return all(u.has(Special.FLYING) for u in self.units)

    @property
    def is_ranged(self) -> bool:
        return stack_is_ranged(self.units)


@dataclass(frozen=True, kw_only=True)
class AttackPlan:
    """A permitted attack: the units that fight (stack order), those left out, and its kind."""

    units: tuple[CombatUnit, ...]
    left_out: tuple[str, ...]
    ranged: bool


def validate_attack(
    *,
    attacking_units: Sequence[CombatUnit],
    attacked_this_turn: Collection[int] = (),
    target_hex_stacks: Sequence[TargetStack],
    target: int,
    target_hex_terrain: Terrain,
    ranged: bool | None = None,
) -> AttackPlan:
    """Check an attack against "who may attack what" (§3); raise AttackError naming the rule.

    `attacked_this_turn` holds indices into `attacking_units` of units that already attacked;
    they are left out. `ranged` None means a ranged attack exactly when the stack can make one.
    """
    if not target_hex_stacks:
        raise AttackError("There is no enemy stack in the target hex to attack.")
    if not 0 <= target < len(target_hex_stacks):
        raise AttackError(f"Stack {target} is not one of the enemy stacks in the target hex.")
    fighting = tuple(u for i, u in enumerate(attacking_units) if i not in attacked_this_turn)
    left_out = tuple(u.name for i, u in enumerate(attacking_units) if i in attacked_this_turn)
    if not fighting:
        raise AttackError(
            "Every unit of this stack has already attacked this turn; each unit attacks at most"
            " once per turn."
        )
    stats = [u.stats for u in fighting]
    can_shoot = stack_is_ranged(stats)
    if ranged is None:
        ranged = can_shoot
    elif ranged and not can_shoot:
        raise AttackError(
            "A ranged attack needs every attacking unit to be ranged (only a commander may ride"
            " along without the ranged special)."
        )
    elif not ranged and can_shoot:
        raise AttackError("A stack made only of ranged units (and commanders) attacks at range.")

    chosen = target_hex_stacks[target]
    label = chosen.name or f"stack {target}"
    unattacked = [s for s in target_hex_stacks if s.times_attacked == 0]
    if chosen.times_attacked >= 1 and unattacked:
        raise AttackError(
            f"{label} was already attacked this turn; every enemy stack in the hex must be"
            " attacked once before any is attacked a second time."
        )
    if ranged and not chosen.is_ranged:
        # Only ranged stacks that may be attacked now (by the rule above) force the choice.
        allowed_ranged = [
            s
            for s in target_hex_stacks
            if s.is_ranged and (s.times_attacked == 0 or not unattacked)
        ]
        if allowed_ranged:
            raise AttackError(
                "A ranged stack must attack an enemy ranged stack in the target hex when there"
                " is one."
            )
    if target_hex_terrain is Terrain.WOODS and chosen.is_flying:
        ground = [u for u in fighting if not u.stats.has(Special.FLYING)]
        if any(not u.stats.has(Special.WOODS) for u in ground):
            raise AttackError(
                f"{label} is a flying stack in woods; ground units can attack it only if all of"
                " them have the woods capability."
            )
    return AttackPlan(units=fighting, left_out=left_out, ranged=ranged)


# ---------------------------------------------------------------------------
# Parsing plain dicts (JSON calculator)

_UNIT_FIELDS = ("name", "current_hits", "commander_level", "xp", "move_left", "is_chief_warlord")
_SIDE_FIELDS = (
    "units",
    "name",
    "chief_warlord_in_hex",
    "ambush_bonus",
    "combats_this_turn",
    "roll",
    "flying",
)
_COMBAT_FIELDS = (
    "attacker",
    "defender",
    "defender_terrain",
    "fortification_hits",
    "fortified",
    "withdraw",
    "target",
    "protectors",
    "defender_commander_in_hex",
    "seed",
)


def _optional_int(data: Mapping[str, object], key: str, where: str) -> int | None:
    if data.get(key) is None:
        return None
    return parse_int(data, key, where=where)


def _bool(data: Mapping[str, object], key: str, where: str, default: bool | None) -> bool | None:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise FieldError(
            f"{where}.{key}" if where else key, f"must be true or false, not {value!r}."
        )
    return value


def _mapping(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise FieldError(where, f"must be an object, not {value!r}.")
    return value


def combat_unit_from_dict(data: object, *, where: str) -> CombatUnit:
    """A CombatUnit from the calculator's unit object; errors name the field."""
    mapping = _mapping(data, where)
    stats = unit_stats_from_dict(mapping, where=where, extra_fields=_UNIT_FIELDS)
    name = mapping.get("name", "")
    if not isinstance(name, str) or not name:
        raise FieldError(f"{where}.name", "must be a non-empty string.")
    try:
        return CombatUnit(
            name=name,
            stats=stats,
            current_hits=_optional_int(mapping, "current_hits", where),
            commander_level=_optional_int(mapping, "commander_level", where),
            xp=parse_int(mapping, "xp", where=where, default=0),
            move_left=_optional_int(mapping, "move_left", where),
            is_chief_warlord=bool(_bool(mapping, "is_chief_warlord", where, False)),
        )
    except CombatError as exc:
        raise FieldError(where, str(exc)) from exc


def _fraction(value: object, field: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise FieldError(field, f"must be a number, not {value!r}.")
    try:
        # Through str, so a JSON 1.1 is exactly 11/10, never the binary float's value.
        return Fraction(str(value))
    except ValueError:
        raise FieldError(field, f"must be a number, not {value!r}.") from None


def combat_side_from_dict(data: object, *, where: str) -> CombatSide:
    """A CombatSide from the calculator's SIDE object; errors name the field."""
    mapping = _mapping(data, where)
    reject_unknown_fields(mapping, _SIDE_FIELDS, where=where)
    units_value = mapping.get("units")
    if not isinstance(units_value, list) or not units_value:
        raise FieldError(f"{where}.units", "must be a non-empty list of units.")
    units = tuple(
        combat_unit_from_dict(u, where=f"{where}.units[{i}]") for i, u in enumerate(units_value)
    )
    roll: tuple[int, int] | None = None
    if mapping.get("roll") is not None:
        raw = mapping["roll"]
        if (
            not isinstance(raw, list)
            or len(raw) != 2
            or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in raw)
        ):
            raise FieldError(f"{where}.roll", f"must be two d6 values from 1 to 6, not {raw!r}.")
        roll = (raw[0], raw[1])
    name = mapping.get("name", "")
    if not isinstance(name, str):
        raise FieldError(f"{where}.name", "must be a string.")
    try:
        return CombatSide(
            units=units,
            name=name,
            chief_warlord_in_hex=bool(_bool(mapping, "chief_warlord_in_hex", where, False)),
            ambush_bonus=_fraction(mapping.get("ambush_bonus", 1), f"{where}.ambush_bonus"),
            combats_this_turn=parse_int(mapping, "combats_this_turn", where=where, default=0),
            roll=roll,
            flying=_bool(mapping, "flying", where, None),
        )
    except CombatError as exc:
        raise FieldError(where, str(exc)) from exc


def combat_from_dict(data: object) -> Combat:
    """A Combat from the calculator's combat object (a "seed" field is allowed and ignored)."""
    mapping = _mapping(data, "")
    reject_unknown_fields(mapping, _COMBAT_FIELDS)
    for key in ("attacker", "defender"):
        if key not in mapping:
            raise FieldError(key, "is required.")
    terrain_value = mapping.get("defender_terrain", "open")
    if not isinstance(terrain_value, str) or terrain_value not in Terrain._value2member_map_:
        raise FieldError(
            "defender_terrain",
            f"unknown terrain {terrain_value!r}; known: {', '.join(t.value for t in Terrain)}.",
        )
    protectors_value = mapping.get("protectors", [])
    if not isinstance(protectors_value, list):
        raise FieldError("protectors", "must be a list of stacks.")
    fortification_hits = parse_int(mapping, "fortification_hits", default=0)
    if fortification_hits < 0:
        raise FieldError("fortification_hits", "cannot be negative.")
    attacker = combat_side_from_dict(mapping["attacker"], where="attacker")
    defender = combat_side_from_dict(mapping["defender"], where="defender")
    target = _optional_int(mapping, "target", "")
    if target is not None and not 0 <= target < len(defender.units):
        raise FieldError("target", f"must index defender.units (0 to {len(defender.units) - 1}).")
    try:
        return Combat(
            attacker=attacker,
            defender=defender,
            defender_terrain=Terrain(terrain_value),
            fortification_hits=fortification_hits,
            fortified=_bool(mapping, "fortified", "", None),
            withdraw=bool(_bool(mapping, "withdraw", "", False)),
            target=target,
            protectors=tuple(
                combat_side_from_dict(p, where=f"protectors[{i}]")
                for i, p in enumerate(protectors_value)
            ),
            defender_commander_in_hex=_bool(mapping, "defender_commander_in_hex", "", None),
        )
    except CombatError as exc:
        # The only rule left to Combat itself: directing hits needs an attacking commander.
        raise FieldError("target", str(exc)) from exc
