"""QUAD combat: attack dice against quality, defense blocks, the defender's choices, strike-back,
fall-backs (blocked ones cost quality) and elimination, with every die and modifier explained."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from rules.dice import Dice, DiceError
from rules.quad.terrain import (
    DEFENSE_BONUS,
    HIGH_GROUND_ATTACK,
    HIGH_GROUND_DEFENSE,
    Terrain,
    on_high_ground,
)
from rules.quad.units import MAX_QUALITY, Special, UnitType

CHARGE_BONUS = 2
ELITE_QUALITY_ROLL = 5
SIX = 6


class CombatError(ValueError):
    """A combat that the QUAD rules do not allow; `field` names the calculator input at fault."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class Effect(enum.StrEnum):
    """What an unblocked hit does: cost 1 quality, or force a fall-back of 1 hex."""

    QUALITY = "quality"
    FALL_BACK = "fall_back"


class Mode(enum.StrEnum):
    MELEE = "melee"
    RANGED = "ranged"


def hit_effect(value: int, *, elite_striker: bool, green_target: bool) -> Effect:
    """A 6 costs quality, so does a 5 of an Elite unit's attack and every hit on a Green unit;
    any other hit forces a fall-back."""
    if green_target or value == SIX or (elite_striker and value >= ELITE_QUALITY_ROLL):
        return Effect.QUALITY
    return Effect.FALL_BACK


@dataclass(frozen=True, kw_only=True)
class Fighter:
    """A unit in a combat: its type, current quality (None = its full quality), the terrain of
    its hex, and how many hexes it could fall back (None = not limited here: carry the fall-back
    out on the map with resolve_fall_back)."""

    unit: UnitType
    quality: int | None = None
    terrain: Terrain = Terrain.OPEN
    fall_back_room: int | None = None

    def __post_init__(self) -> None:
        q = self.quality
        if q is not None and not 1 <= q <= self.unit.quality:
            raise CombatError(
                f"{self.unit.label} has current quality {q}; a unit in combat has 1 to its"
                f" quality of {self.unit.quality} (at 0 it is eliminated).",
                field="quality",
            )
        if self.fall_back_room is not None and self.fall_back_room < 0:
            raise CombatError(
                f"{self.unit.label}: the room to fall back cannot be negative.",
                field="fall_back_room",
            )

    @property
    def quality_now(self) -> int:
        return self.unit.quality if self.quality is None else self.quality


@dataclass(frozen=True, kw_only=True)
class Combat:
    """One attack. `allies_adjacent_to_target` counts the attacker's other units next to the
    target (+1 attack each); `supports_adjacent_to_defender` counts the defender's allied Support
    units next to it (+1 defense each). The defender's two choices: `quality_hits_to_block`
    (when hits outnumber blocks; default: block as many quality hits as possible) and
    `strike_back_sixes` (when blocks outnumber hits: how many of the striking-back blocks are
    6s; default: as many as possible)."""

    attacker: Fighter
    defender: Fighter
    distance: int = 1
    ranged: bool | None = None
    charging: bool = False
    allies_adjacent_to_target: int = 0
    supports_adjacent_to_defender: int = 0
    quality_hits_to_block: int | None = None
    strike_back_sixes: int | None = None

    def __post_init__(self) -> None:
        unit = self.attacker.unit
        if self.distance < 1:
            raise CombatError(
                "A unit attacks a unit in another hex: the distance is at least 1.",
                field="distance",
            )
        if self.is_ranged:
            if unit.ranged is None:
                raise CombatError(
                    f"{unit.label} has no Ranged #/# special, so it attacks adjacent units only.",
                    field="ranged" if self.ranged else "distance",
                )
            if self.distance > unit.ranged.range:
                raise CombatError(
                    f"{unit.label} is Ranged {unit.ranged}: it reaches up to {unit.ranged.range}"
                    f" hexes, not {self.distance}.",
                    field="distance",
                )
        elif self.distance > 1:
            raise CombatError(
                f"{unit.label} attacks in melee, so the target must be adjacent (distance 1, not"
                f" {self.distance}).",
                field="distance",
            )
        if self.charging:
            if not unit.has(Special.CHARGER):
                raise CombatError(
                    f"{unit.label} is not a Charger: only a Charger may move and attack in a"
                    " single action.",
                    field="charging",
                )
            if self.is_ranged:
                raise CombatError(
                    "A Charger's charge is a melee attack, not a ranged one.", field="charging"
                )
        for name in ("allies_adjacent_to_target", "supports_adjacent_to_defender"):
            count = getattr(self, name)
            if not 0 <= count <= 6:
                raise CombatError(
                    f"A hex has six neighbours, so {name} is 0 to 6, not {count}.", field=name
                )
        for name in ("quality_hits_to_block", "strike_back_sixes"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise CombatError(
                    f"The defender's choice {name} cannot be negative.", field=name
                )

    @property
    def is_ranged(self) -> bool:
        return self.distance > 1 if self.ranged is None else self.ranged

    @property
    def mode(self) -> Mode:
        return Mode.RANGED if self.is_ranged else Mode.MELEE


@dataclass(frozen=True, kw_only=True)
class Modifier:
    """Dice added to an attack or defense roll, and why."""

    dice: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class DieRecord:
    """One d6 of the combat: its roll number, purpose, value and what it did."""

    number: int
    purpose: str
    value: int
    outcome: str


@dataclass(frozen=True, kw_only=True)
class SideOutcome:
    """A unit after the combat: quality lost to hits, the fall-back (after Steady), the part of
    it that could not be made (1 quality per hex), and whether it is eliminated."""

    name: str
    quality_before: int
    quality_hits: int
    fall_back_hits: int
    fall_back_required: int
    fall_back_hexes: int
    fall_back_blocked: int
    quality_after: int

    @property
    def eliminated(self) -> bool:
        return self.quality_after == 0

    @property
    def quality_lost(self) -> int:
        return self.quality_before - self.quality_after

    def explain(self, role: str) -> list[str]:
        who = f"{role} {self.name}" if self.name else role
        if self.quality_hits == 0 and self.fall_back_hits == 0:
            return [f"{who}: unharmed, quality {self.quality_after}"]
        lines = []
        if self.quality_hits:
            lines.append(f"{who}: {self.quality_hits} quality hit(s)")
        if self.fall_back_hits:
            text = f"{who}: {self.fall_back_hits} fall-back hit(s)"
            if self.fall_back_required != self.fall_back_hits:
                text += f", Steady: falls back {self.fall_back_required}"
            lines.append(text)
        if self.fall_back_blocked:
            lines.append(
                f"{who}: cannot fall back {self.fall_back_blocked} of {self.fall_back_required}"
                f" hex(es), losing 1 quality for each instead"
            )
        end = f"quality {self.quality_before} → {self.quality_after}"
        if self.eliminated:
            end += ", eliminated"
        elif self.fall_back_hexes:
            end += f", falls back {self.fall_back_hexes} hex(es)"
        lines.append(f"{who}: {end}")
        return lines

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "quality_before": self.quality_before,
            "quality_after": self.quality_after,
            "quality_lost": self.quality_lost,
            "quality_hits": self.quality_hits,
            "fall_back_hits": self.fall_back_hits,
            "fall_back_required": self.fall_back_required,
            "fall_back_hexes": self.fall_back_hexes,
            "fall_back_blocked": self.fall_back_blocked,
            "eliminated": self.eliminated,
        }


@dataclass(frozen=True, kw_only=True)
class HitCount:
    quality: int
    fall_back: int

    @property
    def total(self) -> int:
        return self.quality + self.fall_back

    def to_dict(self) -> dict[str, int]:
        return {"quality": self.quality, "fall_back": self.fall_back}


@dataclass(frozen=True, kw_only=True)
class CombatResult:
    """An attack's outcome and everything needed to explain it."""

    mode: Mode
    distance: int
    attack_dice: int
    attack_modifiers: tuple[Modifier, ...]
    attack_rolls: tuple[int, ...]
    defense_dice: int
    defense_modifiers: tuple[Modifier, ...]
    defense_rolls: tuple[int, ...]
    hits: HitCount
    blocks: int
    blocked: HitCount
    strike_back: HitCount
    attacker: SideOutcome
    defender: SideOutcome
    dice: tuple[DieRecord, ...]
    notes: tuple[str, ...] = field(default=())

    def explain(self) -> list[str]:
        """The report's lines: dice counts with every modifier, every die, blocks, outcomes."""
        lines = [f"{self.mode.value} attack at distance {self.distance}"]
        for title, count, mods in (
            ("attack", self.attack_dice, self.attack_modifiers),
            ("defense", self.defense_dice, self.defense_modifiers),
        ):
            parts = " ".join(f"{m.dice:+d} ({m.reason})" for m in mods[1:])
            lines.append(f"{title} dice: {mods[0].dice} ({mods[0].reason}) {parts}".rstrip()
                         + f" = {count}")
        lines.extend(f"{d.purpose}: {d.value} — {d.outcome} (roll #{d.number})" for d in self.dice)
        lines.append(
            f"hits: {self.hits.quality} quality, {self.hits.fall_back} fall-back;"
            f" blocks: {self.blocks}"
        )
        lines.append(
            f"blocked: {self.blocked.quality} quality, {self.blocked.fall_back} fall-back"
        )
        if self.strike_back.total:
            lines.append(
                f"excess blocks strike back: {self.strike_back.quality} quality,"
                f" {self.strike_back.fall_back} fall-back"
            )
        lines.extend(self.notes)
        lines.extend(self.attacker.explain("attacker"))
        lines.extend(self.defender.explain("defender"))
        return lines

    def to_dict(self) -> dict[str, object]:
        return {
            "mode": self.mode.value,
            "distance": self.distance,
            "attack": {
                "dice": self.attack_dice,
                "modifiers": [{"dice": m.dice, "reason": m.reason} for m in self.attack_modifiers],
                "rolls": list(self.attack_rolls),
                "hits": self.hits.to_dict(),
            },
            "defense": {
                "dice": self.defense_dice,
                "modifiers": [
                    {"dice": m.dice, "reason": m.reason} for m in self.defense_modifiers
                ],
                "rolls": list(self.defense_rolls),
                "blocks": self.blocks,
            },
            "blocked": self.blocked.to_dict(),
            "strike_back": self.strike_back.to_dict(),
            "attacker": self.attacker.to_dict(),
            "defender": self.defender.to_dict(),
            "explanation": self.explain(),
        }


# ---------------------------------------------------------------------------
# Dice counts


def attack_modifiers(combat: Combat) -> tuple[Modifier, ...]:
    """The attack dice: base attack (Ranged #1 at range) and every addition."""
    unit = combat.attacker.unit
    if combat.is_ranged and unit.ranged is not None:
        mods = [Modifier(dice=unit.ranged.attack, reason=f"ranged attack of Ranged {unit.ranged}")]
    else:
        mods = [Modifier(dice=unit.attack, reason="attack")]
    if combat.allies_adjacent_to_target:
        mods.append(Modifier(
            dice=combat.allies_adjacent_to_target,
            reason=f"{combat.allies_adjacent_to_target} allied unit(s) adjacent to the target",
        ))
    if combat.charging:
        mods.append(Modifier(dice=CHARGE_BONUS, reason="Charger moved and attacked"))
    if on_high_ground(combat.attacker.terrain, combat.defender.terrain):
        mods.append(Modifier(dice=HIGH_GROUND_ATTACK, reason="attacking from high ground (slope)"))
    return tuple(mods)


def defense_modifiers(combat: Combat) -> tuple[Modifier, ...]:
    """The defense dice: base defense, the hex's terrain, high ground, adjacent Support units."""
    defender = combat.defender
    mods = [Modifier(dice=defender.unit.defense, reason="defense")]
    bonus = DEFENSE_BONUS[defender.terrain]
    if bonus:
        mods.append(Modifier(dice=bonus, reason=f"defending in {defender.terrain.value}"))
    if on_high_ground(defender.terrain, combat.attacker.terrain):
        mods.append(Modifier(dice=HIGH_GROUND_DEFENSE, reason="defending on high ground (slope)"))
    if combat.supports_adjacent_to_defender:
        mods.append(Modifier(
            dice=combat.supports_adjacent_to_defender,
            reason=f"{combat.supports_adjacent_to_defender} adjacent Support unit(s)",
        ))
    return tuple(mods)


# ---------------------------------------------------------------------------
# The defender's choices


def choose_quality_blocks(
    *, quality_hits: int, fall_back_hits: int, blocks: int, wanted: int | None
) -> tuple[int, str | None]:
    """How many quality hits the blocks cancel when there are more hits than blocks (every block
    is used). Default: as many as possible. A wanted count outside the possible range is
    brought into it, with a note."""
    low = max(0, blocks - fall_back_hits)
    high = min(blocks, quality_hits)
    if wanted is None:
        return high, None
    chosen = min(max(wanted, low), high)
    if chosen != wanted:
        return chosen, (
            f"the defender wanted to block {wanted} quality hit(s); with {blocks} block(s)"
            f" against {quality_hits} quality and {fall_back_hits} fall-back hit(s) it blocks"
            f" {chosen}"
        )
    return chosen, None


def choose_strike_back_sixes(
    *, sixes: int, others: int, excess: int, wanted: int | None
) -> tuple[int, str | None]:
    """How many of the excess blocks that strike back are 6s (the defender picks which block
    dice block). Default: as many 6s as possible. Out-of-range wishes are brought into range."""
    low = max(0, excess - others)
    high = min(excess, sixes)
    if wanted is None:
        return high, None
    chosen = min(max(wanted, low), high)
    if chosen != wanted:
        return chosen, (
            f"the defender wanted to strike back with {wanted} 6(s); with {sixes} 6(s) among"
            f" the blocks and {excess} excess block(s) it strikes back with {chosen}"
        )
    return chosen, None


# ---------------------------------------------------------------------------
# Outcome


def apply_hits(fighter: Fighter, *, quality_hits: int, fall_back_hits: int) -> SideOutcome:
    """Quality hits first; then the fall-back (one hex less for Steady); each hex of it beyond
    `fall_back_room` costs 1 quality instead. At 0 quality the unit is eliminated."""
    before = fighter.quality_now
    quality = max(0, before - quality_hits)
    required = fall_back_hits
    if fighter.unit.has(Special.STEADY):
        required = max(0, required - 1)
    hexes, blocked = required, 0
    if quality == 0:
        hexes = 0
    elif fighter.fall_back_room is not None and required > fighter.fall_back_room:
        hexes = fighter.fall_back_room
        blocked = required - hexes
        quality = max(0, quality - blocked)
        if quality == 0:
            hexes = 0
    return SideOutcome(
        name=fighter.unit.name,
        quality_before=before,
        quality_hits=quality_hits,
        fall_back_hits=fall_back_hits,
        fall_back_required=required,
        fall_back_hexes=hexes,
        fall_back_blocked=blocked,
        quality_after=quality,
    )


def _roll(dice: Dice, purpose: str) -> tuple[int, int]:
    try:
        value = dice.roll(6, purpose)
    except DiceError as exc:
        raise CombatError(f"The {purpose} could not be rolled: {exc}") from exc
    return value, dice.rolls[-1].number


def resolve_combat(combat: Combat, *, dice: Dice) -> CombatResult:
    """Resolve one attack with dice from `dice` (attack dice first, then defense dice)."""
    attacker, defender = combat.attacker, combat.defender
    att_q, def_q = attacker.quality_now, defender.quality_now
    records: list[DieRecord] = []
    notes: list[str] = []

    a_mods = attack_modifiers(combat)
    a_count = sum(m.dice for m in a_mods)
    elite = attacker.unit.has(Special.ELITE)
    def_green = defender.unit.has(Special.GREEN)
    attack_rolls: list[int] = []
    effects: list[Effect] = []
    for i in range(a_count):
        value, number = _roll(dice, f"attack die {i + 1}")
        attack_rolls.append(value)
        if value > def_q:
            effect = hit_effect(value, elite_striker=elite, green_target=def_green)
            effects.append(effect)
            outcome = "hit: " + ("costs quality" if effect is Effect.QUALITY else "fall back")
            if effect is Effect.QUALITY and value != SIX:
                outcome += " (Green target)" if def_green else " (Elite)"
        else:
            outcome = f"miss (a hit needs more than the target's quality {def_q})"
        records.append(DieRecord(number=number, purpose=f"attack die {i + 1}", value=value,
                                 outcome=outcome))
    hits = HitCount(
        quality=effects.count(Effect.QUALITY), fall_back=effects.count(Effect.FALL_BACK)
    )

    d_mods = defense_modifiers(combat)
    d_count = sum(m.dice for m in d_mods)
    defense_rolls: list[int] = []
    for i in range(d_count):
        value, number = _roll(dice, f"defense die {i + 1}")
        defense_rolls.append(value)
        outcome = (
            "block" if value > att_q
            else f"no block (a block needs more than the attacker's quality {att_q})"
        )
        records.append(DieRecord(number=number, purpose=f"defense die {i + 1}", value=value,
                                 outcome=outcome))
    block_values = [v for v in defense_rolls if v > att_q]
    blocks = len(block_values)

    strike_back = HitCount(quality=0, fall_back=0)
    if hits.total > blocks:
        q_blocked, note = choose_quality_blocks(
            quality_hits=hits.quality, fall_back_hits=hits.fall_back, blocks=blocks,
            wanted=combat.quality_hits_to_block,
        )
        blocked = HitCount(quality=q_blocked, fall_back=blocks - q_blocked)
    else:
        blocked = hits
        excess = blocks - hits.total
        sixes = block_values.count(SIX)
        k, note = choose_strike_back_sixes(
            sixes=sixes, others=blocks - sixes, excess=excess, wanted=combat.strike_back_sixes
        )
        if excess and combat.distance > 1:
            notes.append(
                f"{excess} excess block(s) do not strike back: the attacker shoots from"
                f" {combat.distance} hexes away"
            )
        elif excess:
            if attacker.unit.has(Special.GREEN):
                strike_back = HitCount(quality=excess, fall_back=0)
                notes.append("every strike-back hit costs the Green attacker quality")
            else:
                strike_back = HitCount(quality=k, fall_back=excess - k)
    if note:
        notes.append(note)

    unblocked_q = hits.quality - blocked.quality
    unblocked_f = hits.fall_back - blocked.fall_back
    return CombatResult(
        mode=combat.mode,
        distance=combat.distance,
        attack_dice=a_count,
        attack_modifiers=a_mods,
        attack_rolls=tuple(attack_rolls),
        defense_dice=d_count,
        defense_modifiers=d_mods,
        defense_rolls=tuple(defense_rolls),
        hits=hits,
        blocks=blocks,
        blocked=blocked,
        strike_back=strike_back,
        attacker=apply_hits(
            attacker, quality_hits=strike_back.quality, fall_back_hits=strike_back.fall_back
        ),
        defender=apply_hits(defender, quality_hits=unblocked_q, fall_back_hits=unblocked_f),
        dice=tuple(records),
        notes=tuple(notes),
    )


__all__ = [
    "CHARGE_BONUS",
    "MAX_QUALITY",
    "Combat",
    "CombatError",
    "CombatResult",
    "DieRecord",
    "Effect",
    "Fighter",
    "HitCount",
    "Mode",
    "Modifier",
    "SideOutcome",
    "apply_hits",
    "attack_modifiers",
    "choose_quality_blocks",
    "choose_strike_back_sixes",
    "defense_modifiers",
    "hit_effect",
    "resolve_combat",
]
