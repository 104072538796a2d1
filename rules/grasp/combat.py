"""GRASP close combat and fire: die pools, every modifier, losses, destruction, levels."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from rules.dice import Dice
from rules.grasp.dielevels import (
    DieLevel,
    DieSpec,
    GraspError,
    PoolRoll,
    format_level,
    roll_pool,
)
from rules.grasp.fatigue import (
    ZERO_FATIGUE_PENALTY,
    Attribute,
    Attributes,
    take_losses,
)
from rules.grasp.terrain import (
    CLASS_COMBAT_MODIFIER,
    Mines,
    TerrainClass,
    TerrainLevel,
    defeat_terrain,
    terrain_level_for_roll,
)
from rules.grasp.units import Measure

MAX_SUPPORTS = 2
CLOSE_ORDER_CC_BONUS = 2
CLOSE_ORDER_TARGET_BONUS = 1
COMMAND_PIP_BONUS = 1
HORDE_TARGET_BONUS = 1
TUNNEL_NEAR_SURFACE_FS_LEVELS = 2
FLEE_TEST_DIE = 6
WRECK_LEVEL_DIE = 6


class Order(enum.StrEnum):
    CLOSE = "close"
    LOOSE = "loose"


class Size(enum.StrEnum):
    NORMAL = "normal"
    BIG = "big"
    SMALL = "small"


class Level(enum.IntEnum):
    """The seven levels (flying above, tunnelling or swimming below) and space beyond."""

    DISTANT_BELOW = -3
    MEDIUM_BELOW = -2
    NEAR_BELOW = -1
    SURFACE = 0
    NEAR_FLYING = 1
    MEDIUM_FLYING = 2
    DISTANT_FLYING = 3
    SUB_ORBITAL = 4
    ORBITAL = 5
    EXTRA_ORBITAL = 6

    @property
    def label(self) -> str:
        return self.name.lower()


LEVEL_NAMES = tuple(lv.label for lv in Level)


def level_range_needed(levels_apart: int) -> int:
    """Fire Range score needed to reach a unit this many levels away: 4 (short, next level),
    6 (medium, two levels), 12 (long, three levels), beyond that 20 (a d20 is required)."""
    if levels_apart <= 0:
        return 0
    return {1: 4, 2: 6, 3: 12}.get(levels_apart, 20)


@dataclass(frozen=True, kw_only=True)
class Fighter:
    """A unit in a combat. `die` is the die it rolls here: CC in close combat and when shot at,
    FS when firing. `fatigue` None means its d4 is lost (zero fatigue). `terrain` set means the
    "unit" is a piece of terrain being engaged (it has no fatigue and never surrenders)."""

    name: str
    die: DieSpec
    fatigue: DieLevel | None = None
    order: Order = Order.LOOSE
    size: Size = Size.NORMAL
    draw_is_loss: bool = False
    moves: bool = True
    assault: bool = False
    engineer: bool = False
    ignore_recoil: bool = False
    large: bool = False
    tunneller: bool = False
    level: Level = Level.SURFACE
    armour: int = 0  # +1 armour superiority, −1 armour inferiority (its die when shot at)
    attributes: Attributes = field(default_factory=Attributes)
    prefer: tuple[Attribute, ...] = (Attribute.CC, Attribute.FS, Attribute.MV)
    terrain: TerrainClass | None = None
    mines: Mines | None = None
    horde: bool = False  # shooters at a horde have +1

    def __post_init__(self) -> None:
        if self.ignore_recoil and not (self.assault or self.engineer):
            raise GraspError(
                f"{self.name}: only assault and engineer units may lose an extra fatigue die"
                " to ignore a recoil."
            )
        if self.terrain is not None and self.fatigue is not None:
            raise GraspError(f"{self.name}: terrain has no fatigue die.")
        if self.mines is not None and self.terrain is None:
            raise GraspError(f"{self.name}: mines are laid on terrain; give the terrain class.")

    @property
    def is_terrain(self) -> bool:
        return self.terrain is not None

    @property
    def zero_fatigue(self) -> bool:
        return self.fatigue is None and not self.is_terrain


@dataclass(frozen=True, kw_only=True)
class Side:
    """The unit in combat, up to two supporting units, and a command unit's reserved pip."""

    unit: Fighter
    supports: tuple[Fighter, ...] = ()
    command_pip: bool = False
    elite_pip: bool = False  # an elite unit's reserved pip: +1 to its roll

    def __post_init__(self) -> None:
        if len(self.supports) > MAX_SUPPORTS:
            raise GraspError(
                f"Up to {MAX_SUPPORTS} additional units may support {self.unit.name}, not"
                f" {len(self.supports)}."
            )

    @property
    def units(self) -> tuple[Fighter, ...]:
        return (self.unit, *self.supports)


@dataclass(frozen=True, kw_only=True)
class CloseCombat:
    """`defender_terrain` is the going the defender holds (the attacker's penalty)."""

    attacker: Side
    defender: Side
    defender_terrain: TerrainClass = TerrainClass.GOOD


@dataclass(frozen=True, kw_only=True)
class Fire:
    """A shot. `terrain_level` is terrain the target is beyond or within (not at its edge);
    `range_test_all_levels` applies the level range test below the surface too (the source's
    "or optionally further")."""

    firer: Side
    target: Fighter
    fire_range: Measure | None = None
    indirect: bool = False
    spotted: bool = True
    line_of_sight: bool = True
    terrain_level: TerrainLevel = TerrainLevel.NONE
    target_at_edge: bool = False
    firer_higher: bool = False
    range_test_all_levels: bool = False


# -----------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, kw_only=True)
class Modifier:
    why: str
    value: int

    def to_dict(self) -> dict[str, object]:
        return {"why": self.why, "value": self.value}


@dataclass(frozen=True, kw_only=True)
class UnitRoll:
    name: str
    die: DieSpec
    roll: PoolRoll
    modifiers: tuple[Modifier, ...]

    @property
    def total(self) -> int:
        return self.roll.kept + sum(m.value for m in self.modifiers)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "die": self.die.label, "roll": self.roll.to_dict(),
                "modifiers": [m.to_dict() for m in self.modifiers], "total": self.total}


@dataclass(frozen=True, kw_only=True)
class SideScore:
    rolls: tuple[UnitRoll, ...]
    chosen: int
    modifiers: tuple[Modifier, ...]

    @property
    def best(self) -> UnitRoll:
        return self.rolls[self.chosen]

    @property
    def total(self) -> int:
        return self.best.total + sum(m.value for m in self.modifiers)

    def to_dict(self) -> dict[str, object]:
        return {"units": [r.to_dict() for r in self.rolls], "chosen": self.best.name,
                "modifiers": [m.to_dict() for m in self.modifiers], "total": self.total}


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What the combat did to one unit."""

    name: str
    result: str  # won, lost, draw, not_engaged
    fatigue_before: DieLevel | None
    fatigue_after: DieLevel | None
    destroyed: bool = False
    surrendered: bool = False
    flees: bool = False
    recoils: bool = False
    attributes: Attributes | None = None
    wreck_level: TerrainLevel | None = None
    terrain_after: TerrainClass | None = None
    mines_after: Mines | None = None

    @property
    def eliminated(self) -> bool:
        return self.destroyed or self.surrendered

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "name": self.name, "result": self.result,
            "fatigue_before": format_level(self.fatigue_before),
            "fatigue_after": format_level(self.fatigue_after),
            "destroyed": self.destroyed, "surrendered": self.surrendered,
            "flees": self.flees, "recoils": self.recoils,
        }
        if self.attributes is not None:
            out["attributes"] = {
                a.value: (spec.label if spec else None)
                for a in Attribute
                for spec in [self.attributes.get(a)]
            }
        if self.wreck_level is not None:
            out["wreck_level"] = self.wreck_level.label
        if self.terrain_after is not None:
            out["terrain_after"] = self.terrain_after.label
        if self.mines_after is not None:
            out["mines_after"] = self.mines_after.to_dict()
        return out


@dataclass(frozen=True, kw_only=True)
class CombatResult:
    kind: str  # close_combat or fire
    resolved: bool
    reason: str | None
    first: SideScore | None
    second: SideScore | None
    winner: str  # first, second, draw, none
    doubled: bool
    outcomes: tuple[Outcome, ...]
    explanation: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        a, b = ("attacker", "defender") if self.kind == "close_combat" else ("firer", "target")
        winner = {"first": a, "second": b}.get(self.winner, self.winner)
        return {
            "kind": self.kind, "resolved": self.resolved, "reason": self.reason,
            a: self.first.to_dict() if self.first else None,
            b: self.second.to_dict() if self.second else None,
            "winner": winner, "doubled": self.doubled,
            "outcomes": [o.to_dict() for o in self.outcomes],
            "explanation": list(self.explanation),
        }


# -----------------------------------------------------------------------------------------------
# Shared steps


def _score(
    dice: Dice,
    units: Sequence[Fighter],
    *,
    dies: Sequence[DieSpec],
    extra_tech: Sequence[int],
    unit_mods: Sequence[Sequence[Modifier]],
    side_mods: Sequence[Modifier],
    purpose: str,
) -> SideScore:
    rolls: list[UnitRoll] = []
    for unit, die, tech, mods in zip(units, dies, extra_tech, unit_mods, strict=True):
        roll = roll_pool(dice, level=die.level, tech_count=die.tech_count + tech,
                         average=die.average,
                         purpose=f"{unit.name} {purpose}")
        rolls.append(UnitRoll(name=unit.name, die=die, roll=roll, modifiers=tuple(mods)))
    chosen = max(range(len(rolls)), key=lambda i: (rolls[i].total, -i))
    return SideScore(rolls=tuple(rolls), chosen=chosen, modifiers=tuple(side_mods))


def _flee_test(dice: Dice, unit: Fighter, lines: list[str]) -> bool:
    """A unit without fatigue, contacted or fired upon, rolls a d6 first: 1 and it surrenders
    (assault troops and terrain never do); otherwise it flees. True when it surrendered."""
    roll = dice.roll(FLEE_TEST_DIE, f"{unit.name} flee test without fatigue")
    if roll == 1 and not unit.assault:
        lines.append(f"{unit.name} has no fatigue die: flee test d6 = 1, it surrenders")
        return True
    lines.append(f"{unit.name} has no fatigue die: flee test d6 = {roll}, it makes a flee move")
    return False


def _destroys(attacker: UnitRoll, target: UnitRoll) -> bool:
    """The destruction rule: the opponent's die is bigger than the target's, the target rolls a
    1 and the opponent's roll is at least the target's maximum possible roll."""
    return (
        attacker.die.level > target.die.level
        and target.roll.kept == 1
        and attacker.roll.kept >= target.die.top
    )


def _winner(first: int, second: int) -> tuple[str, bool]:
    if first == second:
        return "draw", False
    hi, lo = max(first, second), min(first, second)
    return ("first" if first > second else "second"), (lo <= 0 or hi >= 2 * lo)


def _lose(
    dice: Dice,
    unit: Fighter,
    *,
    result: str,
    destroyed: bool,
    flees: bool,
    lines: list[str],
    may_recoil: bool = True,
    extra: int = 0,
) -> Outcome:
    """Apply a loss (or a draw that counts as one) to a unit or a piece of terrain; `extra`
    fatigue dice more (a rammed loser's)."""
    if unit.terrain is not None:
        return Outcome(name=unit.name, result=result, fatigue_before=None, fatigue_after=None,
                       flees=False)
    if destroyed:
        lines.append(f"{unit.name} is destroyed")
        wreck = None
        if unit.large:
            roll = dice.roll(WRECK_LEVEL_DIE, f"{unit.name} wreck level (d6)")
            wreck = terrain_level_for_roll(roll)
            lines.append(f"{unit.name} is left on table as difficult going blocking line of"
                         f" sight to {wreck.label} level (d6 = {roll})")
        return Outcome(name=unit.name, result=result, fatigue_before=unit.fatigue,
                       fatigue_after=None, destroyed=True, flees=flees, wreck_level=wreck)
    steps = (2 if unit.ignore_recoil and unit.moves and may_recoil else 1) + extra
    loss = take_losses(name=unit.name, fatigue=unit.fatigue, steps=steps, dice=dice,
                       attributes=unit.attributes, prefer=unit.prefer,
                       never_surrenders=unit.assault)
    lines.extend(loss.events)
    recoils = may_recoil and unit.moves and not unit.ignore_recoil and not loss.surrendered
    if unit.ignore_recoil and unit.moves and may_recoil:
        lines.append(f"{unit.name} loses an extra fatigue die to ignore the recoil")
    elif recoils:
        lines.append(f"{unit.name} recoils 1 MU")
    return Outcome(name=unit.name, result=result, fatigue_before=unit.fatigue,
                   fatigue_after=loss.fatigue_after, surrendered=loss.surrendered,
                   flees=flees and not loss.surrendered, recoils=recoils,
                   attributes=loss.attributes if loss.attributes != unit.attributes else None)


def _unharmed(unit: Fighter, result: str, flees: bool = False) -> Outcome:
    return Outcome(name=unit.name, result=result, fatigue_before=unit.fatigue,
                   fatigue_after=unit.fatigue, flees=flees)


def _terrain_loss(unit: Fighter, doubled: bool, outcome: Outcome, lines: list[str]) -> Outcome:
    assert unit.terrain is not None  # noqa: S101 - callers check
    beaten = defeat_terrain(unit.terrain, doubled=doubled, mines=unit.mines)
    lines.append(f"{unit.name}: {beaten.explanation}")
    return Outcome(name=outcome.name, result=outcome.result, fatigue_before=None,
                   fatigue_after=None, terrain_after=beaten.after, mines_after=beaten.mines_after)


def _common_mods(unit: Fighter) -> list[Modifier]:
    return [Modifier(why="no fatigue die left", value=ZERO_FATIGUE_PENALTY)] if (
        unit.zero_fatigue) else []


def _size_tech(size: Size) -> int:
    return {Size.NORMAL: 0, Size.BIG: 1, Size.SMALL: -1}[size]


# -----------------------------------------------------------------------------------------------
# Close combat


def resolve_close_combat(combat: CloseCombat, *, dice: Dice) -> CombatResult:
    """Both sides roll CC (best of the unit and its supports); higher total wins, equal draws.

    Modifiers: close order +2; big rolls an extra die and keeps the best, small keeps the worst;
    −1 without a fatigue die; −1/−2/−4 to the attacker when the defender holds light, difficult
    or impassable going; +1 for a command unit's reserved pip. The loser loses a fatigue die
    and recoils; a draw is a loss for units whose draws become losses.
    """
    lines: list[str] = []
    flees: dict[str, bool] = {}
    for side_name, side in (("attacker", combat.attacker), ("defender", combat.defender)):
        unit = side.unit
        if unit.zero_fatigue:
            if _flee_test(dice, unit, lines):
                other = combat.defender if side_name == "attacker" else combat.attacker
                pair = (
                    Outcome(name=unit.name, result="not_engaged", fatigue_before=None,
                            fatigue_after=None, surrendered=True),
                    _unharmed(other.unit, "not_engaged"),
                )
                return CombatResult(kind="close_combat", resolved=False,
                                    reason=f"{unit.name} surrendered before the combat",
                                    first=None, second=None, winner="none", doubled=False,
                                    outcomes=pair if side_name == "attacker"
                                    else pair[::-1],
                                    explanation=tuple(lines))
            flees[unit.name] = True

    def cc_side(side: Side, side_mods: list[Modifier], label: str) -> SideScore:
        unit_mods: list[list[Modifier]] = []
        for u in side.units:
            mods = _common_mods(u)
            if u.order == Order.CLOSE:
                mods.append(Modifier(why="close order", value=CLOSE_ORDER_CC_BONUS))
            unit_mods.append(mods)
        if side.command_pip:
            side_mods.append(Modifier(why="command unit's reserved pip", value=COMMAND_PIP_BONUS))
        if side.elite_pip:
            side_mods.append(Modifier(why="elite's reserved pip", value=COMMAND_PIP_BONUS))
        return _score(dice, side.units, dies=[u.die for u in side.units],
                      extra_tech=[_size_tech(u.size) for u in side.units],
                      unit_mods=unit_mods, side_mods=side_mods, purpose=f"{label} CC")

    attacker_mods: list[Modifier] = []
    terrain_mod = CLASS_COMBAT_MODIFIER[combat.defender_terrain]
    if terrain_mod:
        attacker_mods.append(Modifier(
            why=f"defender holds {combat.defender_terrain.label} going", value=terrain_mod))
    first = cc_side(combat.attacker, attacker_mods, "attacker")
    second = cc_side(combat.defender, [], "defender")
    lines.append(_describe("attacker", first))
    lines.append(_describe("defender", second))
    winner, doubled = _winner(first.total, second.total)
    lines.append(_verdict(winner, doubled, combat.attacker.unit.name, combat.defender.unit.name))

    outcomes: list[Outcome] = []
    for me, my_score, them_score, my_key in (
        (combat.attacker, first, second, "first"),
        (combat.defender, second, first, "second"),
    ):
        unit = me.unit
        fled = flees.get(unit.name, False)
        destroyed = not unit.is_terrain and _destroys(them_score.best, my_score.best)
        lost = winner not in ("draw", my_key) or (winner == "draw" and unit.draw_is_loss)
        if winner == "draw" and unit.draw_is_loss:
            lines.append(f"{unit.name}: a draw counts as a loss")
        if destroyed or lost:
            result = "draw" if winner == "draw" else "lost"
            outcome = _lose(dice, unit, result=result, destroyed=destroyed, flees=fled,
                            lines=lines)
            if unit.terrain is not None:
                outcome = _terrain_loss(unit, doubled and winner != "draw", outcome, lines)
        else:
            outcome = _unharmed(unit, "won" if winner == my_key else "draw", fled)
        outcomes.append(outcome)
    return CombatResult(kind="close_combat", resolved=True, reason=None, first=first,
                        second=second, winner=winner, doubled=doubled,
                        outcomes=tuple(outcomes), explanation=tuple(lines))


@dataclass(frozen=True, kw_only=True)
class Ram:
    """A ram: the rammer (a vehicle or an assault unit) against the target; `front` when it
    strikes the target's front (its lower of two CC dice), else its higher of two."""

    rammer: Fighter
    target: Fighter
    front: bool


RAM_DIE = DieLevel.D6


def resolve_ram(ram: Ram, *, dice: Dice) -> CombatResult:
    """Each party rolls its CC die plus a d6 (2d6 if big) and adds them; the rammer rolls two
    CC dice and keeps the lower against the front, the higher against a side or the rear. The
    low scorer loses one fatigue die more than a combat's loss, and is destroyed if doubled."""
    lines: list[str] = []
    scores: list[SideScore] = []
    for who, unit in (("rammer", ram.rammer), ("target", ram.target)):
        # The rammer's two dice replace its own; size counts through the ram dice only.
        tech = unit.die.tech_count if who == "target" else (-1 if ram.front else 1)
        cc = roll_pool(dice, level=unit.die.level, tech_count=tech, average=unit.die.average,
                       purpose=f"{unit.name} ram CC")
        size = [dice.roll(RAM_DIE.value, f"{unit.name} ram d6")
                for _ in range(2 if unit.size == Size.BIG else 1)]
        mods = [*_common_mods(unit), Modifier(
            why=f"{len(size)}d6 ({'big' if unit.size == Size.BIG else 'medium'}) {size}",
            value=sum(size))]
        scores.append(SideScore(rolls=(UnitRoll(name=unit.name, die=unit.die, roll=cc,
                                                modifiers=tuple(mods)),),
                                chosen=0, modifiers=()))
    first, second = scores
    lines.append(("rammer (front: lower of two CC dice)" if ram.front
                  else "rammer (side or rear: higher of two CC dice)") + ": "
                 + _describe("", first).removeprefix(": "))
    lines.append(_describe("target", second))
    winner, _ = _winner(first.total, second.total)
    lo, hi = sorted((first.total, second.total))
    doubled = winner != "draw" and (lo <= 0 or hi >= 2 * lo)
    lines.append(_verdict(winner, doubled, ram.rammer.name, ram.target.name))
    outcomes = []
    for unit, key in ((ram.rammer, "first"), (ram.target, "second")):
        if winner in ("draw", key):
            outcomes.append(_unharmed(unit, "draw" if winner == "draw" else "won"))
            continue
        outcome = _lose(dice, unit, result="lost", destroyed=doubled and not unit.is_terrain,
                        flees=False, lines=lines, extra=1)
        if unit.terrain is not None:  # a rammed terrain piece: easier, or harder if doubled
            outcome = _terrain_loss(unit, doubled, outcome, lines)
        outcomes.append(outcome)
    return CombatResult(kind="close_combat", resolved=True, reason=None, first=first,
                        second=second, winner=winner, doubled=doubled,
                        outcomes=tuple(outcomes), explanation=tuple(lines))


def _describe(label: str, score: SideScore) -> str:
    parts = []
    for r in score.rolls:
        mods = "".join(f" {m.value:+d} ({m.why})" for m in r.modifiers)
        parts.append(f"{r.name} {r.die.label} rolled {list(r.roll.values)} kept {r.roll.kept}"
                     f"{mods} = {r.total}")
    side = "".join(f" {m.value:+d} ({m.why})" for m in score.modifiers)
    best = f"; best: {score.best.name}" if len(score.rolls) > 1 else ""
    return f"{label}: " + "; ".join(parts) + f"{best}{side} → total {score.total}"


def _verdict(winner: str, doubled: bool, first: str, second: str) -> str:
    if winner == "draw":
        return "draw"
    name = first if winner == "first" else second
    return f"{name} wins" + (" and doubles its opponent" if doubled else "")


# -----------------------------------------------------------------------------------------------
# Fire


def _fire_die(firer: Fighter, target: Fighter, fire: Fire) -> tuple[DieSpec | None, str | None]:
    """The damage die a firer uses against this target, or None and why it cannot fire."""
    if target.tunneller and target.level < Level.SURFACE:
        if firer.tunneller:
            if not fire.line_of_sight:
                return None, f"{firer.name} needs line of sight to fire at a tunnelling unit"
            return firer.die, None
        if target.level < Level.NEAR_BELOW:
            return None, (f"{target.name} is tunnelling below near-surface level: only other"
                          " tunnellers may fire at it")
        lowered = firer.die.lowered(TUNNEL_NEAR_SURFACE_FS_LEVELS)
        if lowered is None:
            return None, (f"{firer.name}'s {firer.die.label} drops below d4 at two die levels"
                          " less against a near-surface tunneller")
        return lowered, None
    return firer.die, None


def _range_test(dice: Dice, fire: Fire, lines: list[str]) -> str | None:
    """Shooting between levels: the Fire Range must reach 4, 6, 12 (or 20) to hit a unit 1, 2, 3
    (or more) levels away. Returns why the shot cannot reach, or None."""
    firer, target = fire.firer.unit, fire.target
    apart = abs(firer.level - target.level)
    flying = firer.level > Level.SURFACE or target.level > Level.SURFACE
    if apart == 0 or not (flying or fire.range_test_all_levels):
        return None
    needed = level_range_needed(apart)
    if fire.fire_range is None:
        return f"{firer.name} has no fire range to reach a unit {apart} level(s) away"
    if isinstance(fire.fire_range, int):
        ok = fire.fire_range >= needed
        lines.append(f"range test: {apart} level(s) apart needs {needed}; fire range "
                     f"{fire.fire_range} MU {'reaches' if ok else 'does not reach'}")
        return None if ok else f"fire range {fire.fire_range} MU does not reach {needed}"
    spec = fire.fire_range
    if spec.top < needed:
        return (f"a {spec.label} fire range die cannot score the {needed} needed to reach a"
                f" unit {apart} level(s) away")
    roll = roll_pool(dice, level=spec.level, tech_count=spec.tech_count, average=spec.average,
                     purpose=f"{firer.name} fire range")
    ok = roll.kept >= needed
    lines.append(f"range test: {apart} level(s) apart needs {needed}+ on fire range "
                 f"{spec.label}: rolled {list(roll.values)} kept {roll.kept}, "
                 f"{'in range' if ok else 'out of range'}")
    return None if ok else f"fire range roll {roll.kept} is below the {needed} needed"


def _terrain_level_mod(fire: Fire) -> tuple[Modifier | None, str | None]:
    level = fire.terrain_level
    firer = fire.firer.unit
    if level == TerrainLevel.NONE or fire.target_at_edge:
        return None, None
    if level == TerrainLevel.LOW:
        if firer.level >= Level.MEDIUM_FLYING:
            return None, None
        if fire.firer_higher:
            return None, None
        return Modifier(why="target beyond or within low terrain", value=-1), None
    if (level == TerrainLevel.MEDIUM and firer.level >= Level.DISTANT_FLYING):
        return None, None
    if not (fire.indirect or fire.line_of_sight):
        return None, (f"the target is beyond or within {level.label} terrain: only indirect fire"
                      " or a firer with line of sight may shoot")
    value = -2 if level == TerrainLevel.MEDIUM else -3
    return Modifier(why=f"target beyond or within {level.label} terrain", value=value), None


def _not_fired(fire: Fire, reason: str, lines: list[str]) -> CombatResult:
    lines.append(f"no fire: {reason}")
    return CombatResult(kind="fire", resolved=False, reason=reason, first=None, second=None,
                        winner="none", doubled=False,
                        outcomes=(_unharmed(fire.firer.unit, "not_engaged"),
                                  _unharmed(fire.target, "not_engaged")),
                        explanation=tuple(lines))


def resolve_fire(fire: Fire, *, dice: Dice) -> CombatResult:
    """The firer (best of itself and up to two supporting firers) rolls FS against the target's
    CC. A higher firer total beats the target: it loses a fatigue die and recoils (doubled
    terrain gets harder instead of easier); a unit rolling its damage die's maximum loses a
    fatigue die. +1 against close order, an extra die kept best against big and worst against
    small targets; terrain level penalties; even scores only for unspotted indirect fire."""
    lines: list[str] = []
    target = fire.target
    firer_dies: list[DieSpec] = []
    for unit in fire.firer.units:
        die, why = _fire_die(unit, target, fire)
        if die is None:
            assert why is not None  # noqa: S101
            return _not_fired(fire, why, lines)
        if die != unit.die:
            lines.append(f"{unit.name} fires at a near-surface tunneller two die levels less:"
                         f" {unit.die.label} → {die.label}")
        firer_dies.append(die)
    reach = _range_test(dice, fire, lines)
    if reach is not None:
        return _not_fired(fire, reach, lines)
    level_mod, blocked = _terrain_level_mod(fire)
    if blocked is not None:
        return _not_fired(fire, blocked, lines)
    fled = False
    if target.zero_fatigue:
        if _flee_test(dice, target, lines):
            return CombatResult(
                kind="fire", resolved=False, reason=f"{target.name} surrendered before the fire",
                first=None, second=None, winner="none", doubled=False,
                outcomes=(_unharmed(fire.firer.unit, "not_engaged"),
                          Outcome(name=target.name, result="not_engaged", fatigue_before=None,
                                  fatigue_after=None, surrendered=True)),
                explanation=tuple(lines))
        fled = True

    unit_mods: list[list[Modifier]] = []
    for unit in fire.firer.units:
        mods = _common_mods(unit)
        if target.order == Order.CLOSE:
            mods.append(Modifier(why="target in close order", value=CLOSE_ORDER_TARGET_BONUS))
        unit_mods.append(mods)
    side_mods = [level_mod] if level_mod else []
    if fire.firer.command_pip:
        side_mods.append(Modifier(why="command unit's reserved pip", value=COMMAND_PIP_BONUS))
    if fire.firer.elite_pip:
        side_mods.append(Modifier(why="elite's reserved pip", value=COMMAND_PIP_BONUS))
    if target.horde:
        side_mods.append(Modifier(why="shooting at a horde", value=HORDE_TARGET_BONUS))
    size_tech = _size_tech(target.size)
    first = _score(dice, fire.firer.units, dies=firer_dies,
                   extra_tech=[size_tech] * len(firer_dies), unit_mods=unit_mods,
                   side_mods=side_mods, purpose="FS")
    second = _score(dice, [target], dies=[target.die], extra_tech=[target.armour],
                    unit_mods=[_common_mods(target)], side_mods=[], purpose="CC against fire")
    lines.append(_describe("firer", first))
    lines.append(_describe("target", second))
    winner, doubled = _winner(first.total, second.total)
    missed = fire.indirect and not fire.spotted and first.best.roll.kept % 2 == 1
    if missed:
        lines.append(f"indirect fire at an unspotted target hits on even scores only: "
                     f"{first.best.roll.kept} misses")
        winner, doubled = "second", False
    else:
        lines.append(_verdict(winner, doubled, fire.firer.unit.name, target.name))

    outcomes: list[Outcome] = []
    for unit, roll in zip(fire.firer.units, first.rolls, strict=True):
        if roll.roll.kept == roll.die.top:
            lines.append(f"{unit.name} rolled its damage die's maximum ({roll.roll.kept})")
            outcome = _lose(dice, unit, result="fired", destroyed=False, flees=False,
                            lines=lines, may_recoil=False)
            # Firing units do not recoil for their own maximum damage roll.
            outcomes.append(Outcome(name=outcome.name, result="fired",
                                    fatigue_before=outcome.fatigue_before,
                                    fatigue_after=outcome.fatigue_after,
                                    surrendered=outcome.surrendered,
                                    attributes=outcome.attributes))
        else:
            outcomes.append(_unharmed(unit, "fired"))
    destroyed = (not missed and not target.is_terrain
                 and _destroys(first.best, second.best))
    lost = not missed and (winner == "first" or (winner == "draw" and target.draw_is_loss))
    if winner == "draw" and target.draw_is_loss and not missed:
        lines.append(f"{target.name}: a draw counts as a loss")
    if destroyed or lost:
        outcome = _lose(dice, target, result="draw" if winner == "draw" else "lost",
                        destroyed=destroyed, flees=fled, lines=lines)
        if target.terrain is not None:
            outcome = _terrain_loss(target, doubled and winner == "first", outcome, lines)
    else:
        outcome = _unharmed(target, "won" if winner == "second" else "draw", fled)
    outcomes.append(outcome)
    return CombatResult(kind="fire", resolved=True, reason=None, first=first, second=second,
                        winner=winner, doubled=doubled, outcomes=tuple(outcomes),
                        explanation=tuple(lines))
