"""ELF ABAS attacks: every die of every attacker, sixes, terrain, the effects rolled and applied."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import Dice, DiceError
from rules.elf_abas.effects import (
    DrawnEffect,
    EffectError,
    EffectsOutcome,
    Member,
    apply_effects,
    effect_for,
)
from rules.elf_abas.movement import EFFECT_REDUCTION, Terrain
from rules.elf_abas.units import AttackDice, Force, UnitError, attack_dice, plural

__all__ = [
    "Attack",
    "AttackResult",
    "Attacker",
    "AttackerRoll",
    "CombatError",
    "DieRecord",
    "TerrainRule",
    "resolve_attack",
]

EFFECT_SIX = 6


class CombatError(UnitError):
    """An attack whose inputs break an ELF ABAS rule; `field` names the input concerned."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class TerrainRule(enum.StrEnum):
    """How the target's terrain lessens the effects (a campaign setting).

    reduce_effects: the rule text, "the total effects … reduced by terrain": the terrain's
    value is taken off the sixes before any effect is rolled.
    shrug: example C, "a village (Shrug 1)": every effect is rolled and the terrain shakes
    off that many Casualties.
    """

    REDUCE_EFFECTS = "reduce_effects"
    SHRUG = "shrug"


@dataclass(frozen=True, kw_only=True)
class Attacker:
    """One force attacking the target: hexes to the target (1 adjacent), sight, dice, rolls.

    `dice` is the share of its dice it puts on this target (None: all of them; a force may
    spread its attack over several targets). `rolls` fixes its dice instead of rolling them.
    """

    force: Force
    hexes: int = 1
    partial_sight: bool = False
    dice: int | None = None
    rolls: tuple[int, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class Attack:
    """Every attack on one hex this turn (declared and executed at the same time)."""

    attackers: tuple[Attacker, ...]
    defender: Force
    terrain: Terrain = Terrain.OPEN
    terrain_rule: TerrainRule = TerrainRule.REDUCE_EFFECTS
    terrain_value: int | None = None
    retreat_room: int | None = None
    casualties_to: Member | None = None
    effect_rolls: tuple[tuple[int, int], ...] | None = None

    def __post_init__(self) -> None:
        if not self.attackers:
            raise CombatError("An attack needs at least one attacking force.")
        if self.terrain_value is not None and self.terrain_value < 0:
            raise CombatError(f"A terrain value is 0 or more, not {self.terrain_value}.")

    @property
    def terrain_effect(self) -> int:
        if self.terrain_value is not None:
            return self.terrain_value
        return EFFECT_REDUCTION[self.terrain]


@dataclass(frozen=True, kw_only=True)
class DieRecord:
    """One d6 of the attack: what it was for, its value, its roll number (None when given)."""

    purpose: str
    value: int
    number: int | None = None


@dataclass(frozen=True, kw_only=True)
class AttackerRoll:
    """One attacker's dice: how many and why, what they showed, how many sixes."""

    name: str
    dice: AttackDice
    used: int
    rolls: tuple[int, ...]

    @property
    def sixes(self) -> int:
        return sum(1 for r in self.rolls if r == EFFECT_SIX)


@dataclass(frozen=True, kw_only=True)
class AttackResult:
    """The attack's dice, sixes, terrain and effects, and the defender's hex afterwards."""

    attackers: tuple[AttackerRoll, ...]
    sixes: int
    terrain: Terrain
    terrain_rule: TerrainRule
    terrain_value: int
    effects_rolled: int
    outcome: EffectsOutcome
    dice: tuple[DieRecord, ...]

    def explain(self) -> list[str]:
        lines: list[str] = []
        for a in self.attackers:
            share = "" if a.used == a.dice.total else f", {a.used}D on this target"
            shown = ", ".join(map(str, a.rolls)) or "no dice"
            sixes = plural(a.sixes, "six", "sixes")
            lines.append(f"{a.name}: {a.dice.explain()}{share}; rolled {shown}: {sixes}")
        if self.terrain_rule is TerrainRule.REDUCE_EFFECTS:
            lines.append(
                f"{plural(self.sixes, 'six', 'sixes')} − {self.terrain_value} for"
                f" {self.terrain.value} terrain = {plural(self.effects_rolled, 'effect')}"
            )
        else:
            lines.append(
                f"{plural(self.sixes, 'six', 'sixes')} = {plural(self.effects_rolled, 'effect')};"
                f" {self.terrain.value} terrain shrugs"
                f" {plural(self.terrain_value, 'Casualty', 'Casualties')}"
            )
        lines.extend(self.outcome.explain())
        for die in self.dice:
            source = "given" if die.number is None else f"roll #{die.number}"
            lines.append(f"die {die.purpose}: {die.value} ({source})")
        return lines

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "attackers": [
                {
                    "name": a.name,
                    "dice": a.dice.total,
                    "dice_used": a.used,
                    "terms": [{"label": t.label, "dice": t.dice} for t in a.dice.terms],
                    "rolls": list(a.rolls),
                    "sixes": a.sixes,
                }
                for a in self.attackers
            ],
            "sixes": self.sixes,
            "terrain": self.terrain.value,
            "terrain_rule": self.terrain_rule.value,
            "terrain_value": self.terrain_value,
            "effects_rolled": self.effects_rolled,
        }
        outcome = self.outcome.to_dict()
        outcome.pop("explanation")
        out.update(outcome)
        out["explanation"] = self.explain()
        return out


def _check_given(values: Sequence[int], what: str) -> None:
    for v in values:
        if not 1 <= v <= 6:
            raise CombatError(f"{what}: a d6 shows 1 to 6, not {v}.")


def resolve_attack(attack: Attack, *, dice: Dice) -> AttackResult:
    """Roll every attacker's dice (or take the given ones), count the sixes, take off the
    terrain, roll each effect on the Fate die and the effect die, and apply them."""
    records: list[DieRecord] = []

    def draw(purpose: str) -> int:
        try:
            value = dice.roll(6, purpose)
        except DiceError as exc:
            raise CombatError(f"A die could not be rolled: {exc}") from exc
        last = dice.rolls[-1]
        records.append(DieRecord(purpose=purpose, value=value, number=last.number))
        return value

    rolled: list[AttackerRoll] = []
    for i, a in enumerate(attack.attackers, 1):
        name = a.force.name or f"attacker {i}"
        ad = attack_dice(a.force, hexes=a.hexes, partial_sight=a.partial_sight)
        used = ad.total if a.dice is None else a.dice
        if not 0 <= used <= ad.total:
            raise CombatError(
                f"{name} has {ad.total}D against this target, so it cannot put {used}D on it.",
                field=f"attackers[{i - 1}].dice",
            )
        if a.rolls is not None:
            if len(a.rolls) != used:
                raise CombatError(
                    f"{name} rolls {used}D here ({ad.explain()}), but {len(a.rolls)} dice"
                    " were given.",
                    field=f"attackers[{i - 1}].rolls",
                )
            _check_given(a.rolls, name)
            records.extend(
                DieRecord(purpose=f"{name} attack die {k}", value=v)
                for k, v in enumerate(a.rolls, 1)
            )
            values = a.rolls
        else:
            values = tuple(draw(f"{name} attack die {k}") for k in range(1, used + 1))
        rolled.append(AttackerRoll(name=name, dice=ad, used=used, rolls=values))

    sixes = sum(r.sixes for r in rolled)
    value = attack.terrain_effect
    if attack.terrain_rule is TerrainRule.REDUCE_EFFECTS:
        count, shrug = max(0, sixes - value), 0
    else:
        count, shrug = sixes, value

    if attack.effect_rolls is not None and len(attack.effect_rolls) != count:
        raise CombatError(
            f"The attack gives {plural(count, 'effect')}, so {plural(count, 'pair')} of effect"
            f" dice are needed, not {len(attack.effect_rolls)}.",
            field="effect_rolls",
        )
    drawn: list[DrawnEffect] = []
    for k in range(1, count + 1):
        if attack.effect_rolls is not None:
            fate, die = attack.effect_rolls[k - 1]
            _check_given((fate, die), f"effect {k}")
            records.append(DieRecord(purpose=f"effect {k} Fate die", value=fate))
            records.append(DieRecord(purpose=f"effect {k} effect die", value=die))
        else:
            fate = draw(f"effect {k} Fate die")
            die = draw(f"effect {k} effect die")
        drawn.append(DrawnEffect(effect=effect_for(fate=fate, die=die), fate=fate, die=die))

    try:
        outcome = apply_effects(
            attack.defender,
            drawn,
            retreat_room=attack.retreat_room,
            terrain_shrug=shrug,
            casualties_to=attack.casualties_to,
        )
    except EffectError as exc:
        field = "casualties_to" if "Casualties cannot go" in str(exc) else "defender"
        raise CombatError(str(exc), field=field) from exc
    return AttackResult(
        attackers=tuple(rolled),
        sixes=sixes,
        terrain=attack.terrain,
        terrain_rule=attack.terrain_rule,
        terrain_value=value,
        effects_rolled=count,
        outcome=outcome,
        dice=tuple(records),
    )
