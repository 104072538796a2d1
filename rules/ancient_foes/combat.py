"""Ancient Foes 2 fire and fight orders: who attacks in which order, whom, with which modifiers.

Each attack is one D6 + the attacker's attack rating + modifiers; a total equal to or above the
target's defence is a kill and the casualty is removed. Attacks go one way: the target band
answers in its own turn (by order or initiative).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rules.ancient_foes.battlefield import (
    AnyBattlefield,
    BandUnit,
    Battlefield,
    Cm,
    FieldBand,
    Terrain,
    band_distance_cm,
    check_apart,
    cm_json,
    in_fighting_range,
)
from rules.ancient_foes.units import Experience, Mount, UnitType, Weapon, derive_stats
from rules.dice import Dice, DiceError, Roll

__all__ = [
    "Attack",
    "FightOrder",
    "FireOrder",
    "Modifier",
    "OrderError",
    "OrderResult",
    "Skip",
    "can_defeat",
    "fight_modifiers",
    "fire_modifiers",
    "resolve",
    "resolve_fight",
    "resolve_fire",
]

DIE = 6


class OrderError(ValueError):
    """An order the rules do not allow (the message names the rule)."""


@dataclass(frozen=True, kw_only=True)
class Modifier:
    """One line of the modifier tables that applies: its rule and its value."""

    rule: str
    value: int


@dataclass(frozen=True, kw_only=True)
class FireModifiers:
    range: tuple[Modifier, ...]
    attack: tuple[Modifier, ...]


def _woods_on_line(firer: BandUnit, target: BandUnit, field_: AnyBattlefield) -> bool:
    # "Into or over": any hex after the firer's own, the target's included.
    return field_.woods_on_line(firer.hex, target.hex)


def fire_modifiers(
    *, firer: BandUnit, target: BandUnit, target_band_size: int, firing_band: FieldBand,
    battlefield: AnyBattlefield,
) -> FireModifiers:
    """The firing modifiers of one shot (range in cm, and attack).

    Downhill: the firer stands on a hill and the target does not. Woods: a woods hex on the
    line from the firer to the target, the target's hex included and the firer's own excluded.
    """
    rng: list[Modifier] = []
    att: list[Modifier] = []
    if (battlefield.terrain_at(firer.hex) is Terrain.HILL
            and battlefield.terrain_at(target.hex) is not Terrain.HILL):
        rng.append(Modifier(rule="firing down hill", value=2))
        att.append(Modifier(rule="firing down hill", value=1))
    if _woods_on_line(firer, target, battlefield):
        rng.append(Modifier(rule="firing into or over woods", value=-2))
        att.append(Modifier(rule="firing into or over woods", value=-1))
    if target_band_size == 1:
        att.append(Modifier(rule="firing at a single-unit band", value=-1))
    if firing_band.moved_three_times:
        att.append(Modifier(rule="previously moved 3 times in a row", value=-1))
    return FireModifiers(range=tuple(rng), attack=tuple(att))


def fight_modifiers(
    *, fighter: UnitType, target: UnitType, fighting_band: FieldBand
) -> tuple[Modifier, ...]:
    """The fighting modifiers of one fighter against one target."""
    out: list[Modifier] = []
    if fighter.weapon is Weapon.SPEAR and target.is_mounted:
        out.append(Modifier(rule="Sp fighting a mounted unit", value=1))
    if fighter.weapon is Weapon.SWORD and target.mount in (Mount.ELEPHANT, Mount.CHARIOT):
        out.append(Modifier(rule="Sw fighting an elephant or chariot", value=-1))
    if fighter.weapon is Weapon.HANDS and target.mount is Mount.BEAST:
        out.append(Modifier(rule="Ha fighting a tamed beast", value=1))
    if fighter.weapon is Weapon.AXE and target.experience is Experience.ELITE:
        out.append(Modifier(rule="Ax fighting Ex", value=1))
    if fighter.is_ranged and not target.is_ranged:
        out.append(Modifier(rule="ranged fighting non-ranged", value=-1))
    if fighting_band.leader_fell_last_round:
        out.append(Modifier(rule="leader(s) fell in the last round", value=-1))
    if fighting_band.moved_three_times:
        out.append(Modifier(rule="previously moved 3 times in a row", value=-1))
    return tuple(out)


def can_defeat(*, fighter: UnitType, target: UnitType, fighting_band: FieldBand) -> bool:
    """Whether the fighter can kill the target in a fight on the best D6 (a 6)."""
    mods = sum(m.value for m in fight_modifiers(fighter=fighter, target=target,
                                                fighting_band=fighting_band))
    return DIE + derive_stats(fighter).attack + mods >= derive_stats(target).defence


# ---------------------------------------------------------------------------
# Results


@dataclass(frozen=True, kw_only=True)
class Attack:
    """One unit firing or fighting: the die, the attack rating, every modifier and the outcome."""

    kind: str
    attacker: str
    attacker_hex: str
    target: str
    target_hex: str
    distance_cm: Cm
    range_cm: int | None
    range_modifiers: tuple[Modifier, ...]
    roll: int
    die_number: int
    attack: int
    modifiers: tuple[Modifier, ...]
    defence: int

    @property
    def total(self) -> int:
        return self.roll + self.attack + sum(m.value for m in self.modifiers)

    @property
    def kill(self) -> bool:
        return self.total >= self.defence

    def explain(self) -> str:
        verb = "fires at" if self.kind == "fire" else "fights"
        where = f"{self.distance_cm} cm"
        if self.range_cm is not None:
            where += f", range {self.range_cm} cm"
            if self.range_modifiers:
                where += " (" + ", ".join(_signed(m) for m in self.range_modifiers) + ")"
        sums = "".join(
            f" {'+' if m.value >= 0 else '−'} {abs(m.value)} ({m.rule})" for m in self.modifiers
        )
        outcome = "kill" if self.kill else "no kill"
        return (
            f"{self.attacker} ({self.attacker_hex}) {verb} {self.target} ({self.target_hex}),"
            f" {where}: D6 {self.roll} + attack {self.attack}{sums} = {self.total}"
            f" vs defence {self.defence}: {outcome}"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "attacker": self.attacker,
            "target": self.target,
            "distance_cm": cm_json(self.distance_cm),
            "range_cm": self.range_cm,
            "range_modifiers": [_mod_dict(m) for m in self.range_modifiers],
            "roll": self.roll,
            "die_number": self.die_number,
            "attack": self.attack,
            "modifiers": [_mod_dict(m) for m in self.modifiers],
            "total": self.total,
            "defence": self.defence,
            "kill": self.kill,
        }


def _signed(m: Modifier) -> str:
    return f"{m.value:+d} {m.rule}"


def _mod_dict(m: Modifier) -> dict[str, object]:
    return {"rule": m.rule, "value": m.value}


@dataclass(frozen=True, kw_only=True)
class Skip:
    """A unit of the acting band that did not attack, and why."""

    unit: str
    reason: str

    def explain(self) -> str:
        return f"{self.unit} does not attack: {self.reason}"

    def as_dict(self) -> dict[str, object]:
        return {"unit": self.unit, "reason": self.reason}


@dataclass(frozen=True, kw_only=True)
class OrderResult:
    """What a fire or fight order did, in order, with every die."""

    kind: str
    band: str
    target_band: str
    events: tuple[Attack | Skip, ...]
    casualties: tuple[str, ...]
    survivors: tuple[str, ...]
    target_destroyed: bool
    target_has_gaps: bool
    dice: tuple[Roll, ...] = field(default=())

    @property
    def attacks(self) -> tuple[Attack, ...]:
        return tuple(e for e in self.events if isinstance(e, Attack))

    def explain(self) -> list[str]:
        lines = [f"{self.band}: {self.kind} order against {self.target_band}"]
        lines.extend(e.explain() for e in self.events)
        if self.target_destroyed:
            lines.append(f"{self.target_band} is destroyed")
        else:
            lines.append(f"{self.target_band} survivors: {', '.join(self.survivors)}")
            if self.target_has_gaps:
                lines.append(f"{self.target_band} has gaps: it must close them by initiative")
        for r in self.dice:
            lines.append(f"die #{r.number} {r.purpose}: {r.value}")
        return lines

    def as_dict(self) -> dict[str, object]:
        return {
            "order": self.kind,
            "band": self.band,
            "target_band": self.target_band,
            "attacks": [e.as_dict() for e in self.events if isinstance(e, Attack)],
            "skipped": [e.as_dict() for e in self.events if isinstance(e, Skip)],
            "casualties": list(self.casualties),
            "survivors": list(self.survivors),
            "target_destroyed": self.target_destroyed,
            "target_has_gaps": self.target_has_gaps,
            "explanation": self.explain(),
        }


# ---------------------------------------------------------------------------
# Orders


@dataclass(frozen=True, kw_only=True)
class FireOrder:
    """A band ordered to fire at a target band (which must be in front of it)."""

    firing: FieldBand
    target: FieldBand
    battlefield: AnyBattlefield = field(default_factory=Battlefield)
    target_in_front: bool = True

    def __post_init__(self) -> None:
        check_apart([self.firing, self.target])


@dataclass(frozen=True, kw_only=True)
class FightOrder:
    """A band ordered to fight a target band within fighting range."""

    fighting: FieldBand
    target: FieldBand
    battlefield: AnyBattlefield = field(default_factory=Battlefield)

    def __post_init__(self) -> None:
        check_apart([self.fighting, self.target])


def _roll(dice: Dice, purpose: str) -> Roll:
    try:
        dice.roll(DIE, purpose)
    except DiceError as exc:
        raise OrderError(f"The D6 for {purpose!r} could not be rolled: {exc}") from exc
    return dice.rolls[-1]


def _next_actor(
    waiting: list[BandUnit], alive: Sequence[BandUnit], field_: AnyBattlefield
) -> BandUnit:
    # Closest to the (surviving) target band first; ties in the band's listed order.
    return min(waiting, key=lambda u: band_distance_cm(u, alive, field_))


def _finish(kind: str, band: FieldBand, target: FieldBand, events: list[Attack | Skip],
            alive: list[BandUnit], rolls: list[Roll], field_: AnyBattlefield) -> OrderResult:
    alive_names = {u.name for u in alive}
    return OrderResult(
        kind=kind,
        band=band.name,
        target_band=target.name,
        events=tuple(events),
        casualties=tuple(u.name for u in target.units if u.name not in alive_names),
        survivors=tuple(u.name for u in alive),
        target_destroyed=not alive,
        target_has_gaps=field_.gaps(frozenset(u.hex for u in alive)),
        dice=tuple(rolls),
    )


def resolve_fire(order: FireOrder, *, dice: Dice) -> OrderResult:
    """Resolve a fire order.

    Only units with a range fire. The firer closest to the target band fires first, the farthest
    last (recomputed after every kill; ties in listed order). Each firer's target is the farthest
    surviving unit of the target band within its range (range modifiers for that shot included);
    a firer with no unit in range does not fire. The order ends when the target band is destroyed.
    """
    firing, target, field_ = order.firing, order.target, order.battlefield
    if not order.target_in_front:
        raise OrderError(
            f"{target.name} is not in front of {firing.name}; a band can only fire at an enemy"
            " band in front of it, not to its side or behind."
        )
    alive = list(target.units)
    events: list[Attack | Skip] = []
    rolls: list[Roll] = []
    waiting = [u for u in firing.units if u.unit_type.is_ranged]
    events.extend(Skip(unit=u.name, reason=f"{u.unit_type.weapon.value} has no firing range")
                  for u in firing.units if not u.unit_type.is_ranged)
    while waiting:
        if not alive:
            events.extend(Skip(unit=u.name, reason="the target band is destroyed")
                          for u in waiting)
            break
        firer = _next_actor(waiting, alive, field_)
        waiting.remove(firer)
        stats = derive_stats(firer.unit_type)
        base_range = stats.range or 0
        in_range: list[tuple[Cm, int, BandUnit, FireModifiers]] = []
        for index, t in enumerate(alive):
            mods = fire_modifiers(firer=firer, target=t, target_band_size=len(alive),
                                  firing_band=firing, battlefield=field_)
            reach = base_range + sum(m.value for m in mods.range)
            dist = field_.distance_cm(firer.hex, t.hex)
            if dist <= reach:
                in_range.append((dist, -index, t, mods))
        if not in_range:
            events.append(Skip(
                unit=firer.name,
                reason=f"no unit of {target.name} is within its range of {base_range} cm"
                " (with the range modifiers)",
            ))
            continue
        dist, _, victim, mods = max(in_range, key=lambda c: (c[0], c[1]))
        roll = _roll(dice, f"fire: {firer.name} at {victim.name}")
        rolls.append(roll)
        attack = Attack(
            kind="fire",
            attacker=firer.name,
            attacker_hex=firer.label,
            target=victim.name,
            target_hex=victim.label,
            distance_cm=dist,
            range_cm=base_range + sum(m.value for m in mods.range),
            range_modifiers=mods.range,
            roll=roll.value,
            die_number=roll.number,
            attack=stats.attack,
            modifiers=mods.attack,
            defence=derive_stats(victim.unit_type).defence,
        )
        events.append(attack)
        if attack.kill:
            alive.remove(victim)
    return _finish("fire", firing, target, events, alive, rolls, field_)


def resolve_fight(order: FightOrder, *, dice: Dice) -> OrderResult:
    """Resolve a fight order.

    The band may fight when any of its units is within fighting range of the target band. Every
    unit fights: the one closest to the target band first, the farthest last (recomputed after
    every kill; ties in listed order); each fighter's target is the closest surviving unit of the
    target band (ties in listed order). The order ends when the target band is destroyed.
    """
    fighting, target, field_ = order.fighting, order.target, order.battlefield
    if not in_fighting_range(fighting.units, target.units, field_):
        raise OrderError(
            f"No unit of {fighting.name} is within fighting range (1 cm: an adjacent hex) of"
            f" {target.name}, so it cannot be ordered to fight it."
        )
    alive = list(target.units)
    events: list[Attack | Skip] = []
    rolls: list[Roll] = []
    waiting = list(fighting.units)
    while waiting:
        if not alive:
            events.extend(Skip(unit=u.name, reason="the target band is destroyed")
                          for u in waiting)
            break
        fighter = _next_actor(waiting, alive, field_)
        waiting.remove(fighter)
        victim = min(alive, key=lambda t: field_.distance_cm(fighter.hex, t.hex))
        roll = _roll(dice, f"fight: {fighter.name} against {victim.name}")
        rolls.append(roll)
        attack = Attack(
            kind="fight",
            attacker=fighter.name,
            attacker_hex=fighter.label,
            target=victim.name,
            target_hex=victim.label,
            distance_cm=field_.distance_cm(fighter.hex, victim.hex),
            range_cm=None,
            range_modifiers=(),
            roll=roll.value,
            die_number=roll.number,
            attack=derive_stats(fighter.unit_type).attack,
            modifiers=fight_modifiers(fighter=fighter.unit_type, target=victim.unit_type,
                                      fighting_band=fighting),
            defence=derive_stats(victim.unit_type).defence,
        )
        events.append(attack)
        if attack.kill:
            alive.remove(victim)
    return _finish("fight", fighting, target, events, alive, rolls, field_)


def resolve(order: FireOrder | FightOrder, *, dice: Dice) -> OrderResult:
    """Resolve a fire or a fight order."""
    if isinstance(order, FireOrder):
        return resolve_fire(order, dice=dice)
    return resolve_fight(order, dice=dice)
