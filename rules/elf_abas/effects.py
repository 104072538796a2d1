"""ELF ABAS effects: the two-dice table with the Fate die, and applying a turn's effects to a hex.

The order of application (docs/rules/elf_abas.md, "Applying effects"):
1. In draw order, a Retreat, Retreat with pursuit or Panic that the force cannot carry out
   becomes a Casualty, and a Boss Loss with no Leader or Hero left to remove becomes a
   Casualty (examples C and F: a converted effect is a Casualty from then on).
2. Destroyed trumps everything: everything in the hex dies, Shrug included.
3. Heroic Stand negates every effect but Casualty and Destroyed, drawn this turn or already
   on the force (Fatigue, Spent).
4. A Leader attached to a Unit cancels its Retreat, Retreat with pursuit and Panic.
5. What remains is applied; the turn's Casualties go to one member of the hex (the Unit,
   its Leader or its Hero: example F), after the terrain's Shrug when the campaign reads
   terrain as Shrug (example C); that member's Shrug shakes off Casualties up to its number.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules.elf_abas.units import PROFILES, Force, Kind, UnitError, force_to_dict, plural

__all__ = [
    "CRITICAL",
    "NORMAL",
    "DrawnEffect",
    "Effect",
    "EffectError",
    "EffectLine",
    "EffectsOutcome",
    "Member",
    "apply_effects",
    "effect_for",
    "refit",
    "rest",
]


class EffectError(UnitError):
    """Effects that cannot be applied as given."""


class Effect(enum.StrEnum):
    RETREAT = "retreat"
    FATIGUE = "fatigue"
    CASUALTY = "casualty"
    BOSS_LOSS = "boss_loss"
    SPENT = "spent"
    PURSUIT = "retreat_with_pursuit"
    PANIC = "panic"
    HEROIC_STAND = "heroic_stand"
    DESTROYED = "destroyed"


class Member(enum.StrEnum):
    """Who in a hex takes the turn's Casualties."""

    UNIT = "unit"
    LEADER = "leader"
    HERO = "hero"


FATE_CRITICAL = 6
NORMAL: dict[int, Effect] = {
    1: Effect.RETREAT, 2: Effect.RETREAT,
    3: Effect.FATIGUE, 4: Effect.FATIGUE,
    5: Effect.CASUALTY, 6: Effect.CASUALTY,
}
CRITICAL: dict[int, Effect] = {
    1: Effect.BOSS_LOSS,
    2: Effect.SPENT,
    3: Effect.PURSUIT,
    4: Effect.PANIC,
    5: Effect.HEROIC_STAND,
    6: Effect.DESTROYED,
}
RETREATS = frozenset({Effect.RETREAT, Effect.PURSUIT, Effect.PANIC})
CRITICAL_EFFECTS = frozenset(CRITICAL.values())


def effect_for(*, fate: int, die: int) -> Effect:
    """The effect of one pair: Fate 6 → critical table on the other die, else normal table."""
    for name, value in (("Fate die", fate), ("effect die", die)):
        if not 1 <= value <= 6:
            raise EffectError(f"The {name} is a d6 and shows 1 to 6, not {value}.")
    return CRITICAL[die] if fate == FATE_CRITICAL else NORMAL[die]


@dataclass(frozen=True, kw_only=True)
class DrawnEffect:
    """One effect as drawn: the effect, and the Fate and effect dice when it was rolled."""

    effect: Effect
    fate: int | None = None
    die: int | None = None

    @property
    def critical(self) -> bool:
        return self.effect in CRITICAL_EFFECTS


@dataclass(frozen=True, kw_only=True)
class EffectLine:
    """What became of one drawn effect: what it turned into and whether it was applied."""

    drawn: DrawnEffect
    became: Effect
    applied: bool
    reason: str

    def explain(self) -> str:
        dice = (
            f"Fate {self.drawn.fate}, die {self.drawn.die}: "
            if self.drawn.fate is not None
            else ""
        )
        kind = "critical" if self.drawn.critical else "normal"
        text = f"{dice}{self.drawn.effect.value} ({kind})"
        if self.became is not self.drawn.effect:
            text += f" → {self.became.value}"
        return f"{text}: {'applied' if self.applied else 'no effect'} ({self.reason})"


@dataclass(frozen=True, kw_only=True)
class EffectsOutcome:
    """A hex after one turn's effects, and why."""

    before: Force
    after: Force
    lines: tuple[EffectLine, ...]
    destroyed: bool
    heroic_stand: bool
    retreat_hexes: int
    pursuit: int
    panic: bool
    casualties: int
    terrain_shrug: int
    casualties_to: Member | None
    shrugged: int
    figures_lost: int
    leader_lost: bool
    hero_lost: bool
    notes: tuple[str, ...] = ()

    @property
    def eliminated(self) -> bool:
        return self.after.eliminated

    def explain(self) -> list[str]:
        lines = [f"effect {i}: {line.explain()}" for i, line in enumerate(self.lines, 1)]
        lines.extend(self.notes)
        if self.destroyed:
            lines.append("Destroyed: everything in the hex dies (no Shrug).")
            return lines
        if self.casualties or self.terrain_shrug:
            who = self.casualties_to.value if self.casualties_to is not None else "nobody"
            lost = [plural(self.figures_lost, "Unit figure")] if self.figures_lost else []
            lost += ["the Leader"] * self.leader_lost + ["the Hero"] * self.hero_lost
            lines.append(
                f"{plural(self.casualties, 'Casualty', 'Casualties')}: the terrain shrugs"
                f" {self.terrain_shrug}, the {who} shrugs {self.shrugged};"
                f" lost: {', '.join(lost) or 'nothing'}"
            )
        if self.retreat_hexes:
            lines.append(
                f"retreats {plural(self.retreat_hexes, 'hex', 'hexes')} toward its entry point"
            )
        if self.pursuit:
            lines.append(f"{plural(self.pursuit, 'enemy Unit')} may follow it")
        if self.panic:
            lines.append("Panic: every adjacent friendly Unit retreats with it")
        return lines

    def to_dict(self) -> dict[str, object]:
        return {
            "before": force_to_dict(self.before),
            "after": force_to_dict(self.after),
            "eliminated": self.eliminated,
            "effects": [
                {
                    "fate": line.drawn.fate,
                    "die": line.drawn.die,
                    "critical": line.drawn.critical,
                    "effect": line.drawn.effect.value,
                    "became": line.became.value,
                    "applied": line.applied,
                    "reason": line.reason,
                }
                for line in self.lines
            ],
            "destroyed": self.destroyed,
            "heroic_stand": self.heroic_stand,
            "retreat_hexes": self.retreat_hexes,
            "pursuit": self.pursuit,
            "panic": self.panic,
            "casualties": self.casualties,
            "terrain_shrug": self.terrain_shrug,
            "casualties_to": self.casualties_to.value if self.casualties_to else None,
            "shrugged": self.shrugged,
            "figures_lost": self.figures_lost,
            "leader_lost": self.leader_lost,
            "hero_lost": self.hero_lost,
            "notes": list(self.notes),
            "explanation": self.explain(),
        }


def _members(force: Force) -> list[Member]:
    out: list[Member] = []
    if force.unit is not None:
        out.append(Member.UNIT)
    if force.leader:
        out.append(Member.LEADER)
    if force.hero:
        out.append(Member.HERO)
    return out


def _shrug(member: Member, *, abilities: bool) -> int:
    if not abilities or member is Member.UNIT:
        return 0
    return PROFILES[Kind.LEADER if member is Member.LEADER else Kind.HERO].shrug


def _default_target(members: Sequence[Member], casualties: int, *, abilities: bool) -> Member:
    # The defender's choice when none is given: a member whose Shrug covers every Casualty
    # (Hero first, it shrugs most), otherwise the Unit, otherwise the Leader before the Hero.
    for m in (Member.HERO, Member.LEADER):
        if m in members and _shrug(m, abilities=abilities) >= casualties:
            return m
    for m in (Member.UNIT, Member.LEADER, Member.HERO):
        if m in members:
            return m
    raise AssertionError("no member to take casualties")  # pragma: no cover


def apply_effects(
    force: Force,
    drawn: Sequence[DrawnEffect],
    *,
    retreat_room: int | None = None,
    terrain_shrug: int = 0,
    casualties_to: Member | None = None,
) -> EffectsOutcome:
    """Apply one turn's effects on a hex, all at once (module docstring: the order).

    `retreat_room`: hexes the force can retreat toward its entry point (None: as far as
    needed, 0: nowhere to go). `terrain_shrug`: Casualties the hex's terrain shakes off
    (only when the campaign reads terrain as Shrug). `casualties_to`: the defender's choice
    of who takes the Casualties (None: the default choice, see `_default_target`).
    """
    if force.eliminated:
        raise EffectError(f"{force.label} has no figures left; it cannot suffer effects.")
    if retreat_room is not None and retreat_room < 0:
        raise EffectError(f"Retreat room is {retreat_room}; it is 0 (nowhere to go) or more.")
    if terrain_shrug < 0:
        raise EffectError(f"The terrain's Shrug is {terrain_shrug}; it is 0 or more.")
    members = _members(force)
    if casualties_to is not None and casualties_to not in members:
        raise EffectError(
            f"The Casualties cannot go to the {casualties_to.value}: {force.label} has none."
        )

    # 1. Conversions, in draw order.
    room = retreat_room
    bosses_claimed = False
    became: list[Effect] = []
    reasons: list[str] = []
    for d in drawn:
        effect, reason = d.effect, ""
        if effect in RETREATS:
            if room is None or room > 0:
                room = None if room is None else room - 1
            else:
                effect, reason = Effect.CASUALTY, "cannot retreat, so a Casualty"
        elif effect is Effect.BOSS_LOSS:
            if (force.leader or force.hero) and not bosses_claimed:
                bosses_claimed = True
            else:
                effect, reason = Effect.CASUALTY, "no Leader or Hero to remove, so a Casualty"
        became.append(effect)
        reasons.append(reason)

    destroyed = Effect.DESTROYED in became
    heroic = not destroyed and Effect.HEROIC_STAND in became
    # A Spent force has lost all its abilities (Shrug, the Leader's steadiness) unless a
    # Heroic Stand this turn lifts the Spent it already had.
    abilities = not force.spent or heroic
    leader_steadies = force.leader and force.unit is not None and abilities

    applied: list[bool] = []
    for i, effect in enumerate(became):
        if destroyed:
            ok = effect is Effect.DESTROYED
            why = "everything in the hex dies" if ok else "Destroyed trumps everything"
        elif heroic and effect not in (Effect.CASUALTY, Effect.HEROIC_STAND):
            ok, why = False, "negated by the Heroic Stand"
        elif effect in RETREATS and leader_steadies:
            ok, why = False, "cancelled by the attached Leader"
        else:
            ok, why = True, reasons[i] or _meaning(effect)
        applied.append(ok)
        reasons[i] = why
    lines = tuple(
        EffectLine(drawn=d, became=b, applied=a, reason=r)
        for d, b, a, r in zip(drawn, became, applied, reasons, strict=True)
    )

    if destroyed:
        gone = Force(name=force.name)
        return EffectsOutcome(
            before=force, after=gone, lines=lines, destroyed=True, heroic_stand=False,
            retreat_hexes=0, pursuit=0, panic=False, casualties=0, terrain_shrug=0,
            casualties_to=None, shrugged=0, figures_lost=force.figures,
            leader_lost=force.leader, hero_lost=force.hero,
        )

    def count(effect: Effect) -> int:
        return sum(1 for e, a in zip(became, applied, strict=True) if a and e is effect)

    notes: list[str] = []
    fatigue = 0 if heroic else force.fatigue
    spent = False if heroic else force.spent
    if heroic and (force.fatigue or force.spent):
        notes.append("The Heroic Stand also lifts the Fatigue and Spent the force already had.")
    fatigue += count(Effect.FATIGUE)
    spent = spent or count(Effect.SPENT) > 0
    boss_loss = count(Effect.BOSS_LOSS) > 0
    leader, hero = force.leader, force.hero
    leader_lost = hero_lost = False
    if boss_loss:
        leader_lost, hero_lost, leader, hero = leader, hero, False, False

    casualties = count(Effect.CASUALTY)
    shrug_terrain = min(casualties, terrain_shrug)
    left = casualties - shrug_terrain
    target: Member | None = None
    shrugged = figures_lost = 0
    figures = force.figures
    if left:
        alive = [m for m in members if not (boss_loss and m is not Member.UNIT)]
        if casualties_to is not None and casualties_to not in alive:
            notes.append(
                f"The {casualties_to.value} was removed by the Boss Loss, so the Casualties go"
                " to the default choice."
            )
        if alive:
            target = (
                casualties_to
                if casualties_to in alive
                else _default_target(alive, left, abilities=abilities)
            )
            shrugged = min(left, _shrug(target, abilities=abilities))
            excess = left - shrugged
            if target is Member.UNIT:
                figures_lost = min(excess, figures)
                figures -= figures_lost
            elif excess and target is Member.LEADER:
                leader, leader_lost = False, True
            elif excess:
                hero, hero_lost = False, True
        else:
            notes.append("Nobody is left in the hex to take the Casualties.")

    retreats = sum(1 for e, a in zip(became, applied, strict=True) if a and e in RETREATS)
    after = replace(
        force,
        unit=force.unit if figures else None,
        figures=figures,
        leader=leader,
        hero=hero,
        fatigue=fatigue,
        spent=spent,
    )
    if after.eliminated:
        after = Force(name=force.name)
        retreats = 0
    return EffectsOutcome(
        before=force,
        after=after,
        lines=lines,
        destroyed=False,
        heroic_stand=heroic,
        retreat_hexes=retreats,
        pursuit=count(Effect.PURSUIT) if not after.eliminated else 0,
        panic=count(Effect.PANIC) > 0 and not after.eliminated,
        casualties=casualties,
        terrain_shrug=shrug_terrain,
        casualties_to=target,
        shrugged=shrugged,
        figures_lost=figures_lost,
        leader_lost=leader_lost,
        hero_lost=hero_lost,
        notes=tuple(notes),
    )


_MEANINGS = {
    Effect.RETREAT: "moves one hex toward its entry point",
    Effect.FATIGUE: "−1 to Movement and −1D to attacks until rested off",
    Effect.CASUALTY: "one Casualty",
    Effect.BOSS_LOSS: "every Leader and Hero with the Unit is removed",
    Effect.SPENT: "loses all abilities but a move of 1 until it refits",
    Effect.PURSUIT: "retreats one hex; one enemy Unit may follow",
    Effect.PANIC: "retreats one hex, taking every adjacent friendly Unit with it",
    Effect.HEROIC_STAND: "negates every effect but Casualty and Destroyed",
    Effect.DESTROYED: "everything in the hex dies",
}


def _meaning(effect: Effect) -> str:
    return _MEANINGS[effect]


def rest(force: Force) -> Force:
    """A turn spent at rest removes one Fatigue."""
    if force.eliminated:
        raise EffectError(f"{force.label} has no figures left.")
    return replace(force, fatigue=max(0, force.fatigue - 1))


def refit(force: Force, *, at_supply: bool) -> Force:
    """A Spent force is restored only by refitting at a Camp, Baggage Train or Village."""
    if force.eliminated:
        raise EffectError(f"{force.label} has no figures left.")
    if not force.spent:
        return force
    if not at_supply:
        raise EffectError(
            f"{force.label} is Spent and can only refit from the supplies of a Camp,"
            " Baggage Train or Village."
        )
    return replace(force, spent=False)
