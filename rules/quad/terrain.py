"""QUAD terrain and maps: defense bonuses, high ground, difficult terrain "attacking" a moving
unit, movement along a path, and falling back (a blocked fall-back costs quality instead)."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rules.dice import Dice, DiceError
from rules.hexgrid import Grid, Hex, distance, format_label, neighbors
from rules.quad.units import Special, UnitType

# How many dice difficult terrain rolls when it "attacks" a moving unit. The source gives the
# terrain no attack value; one die is this engine's reading (docs/rules/quad.md), a setting.
DEFAULT_TERRAIN_ATTACK_DICE = 1


class Terrain(enum.StrEnum):
    OPEN = "open"
    FOREST = "forest"
    SLOPE = "slope"
    FORTIFIED = "fortified"
    RIVER = "river"


# Defense dice added for the defender's hex; Slope's +1 is for high ground only (see below).
DEFENSE_BONUS: dict[Terrain, int] = {
    Terrain.OPEN: 0,
    Terrain.FOREST: 2,
    Terrain.SLOPE: 0,
    Terrain.FORTIFIED: 4,
    Terrain.RIVER: 2,
}
HIGH_GROUND_ATTACK = 1
HIGH_GROUND_DEFENSE = 1


class MoveError(ValueError):
    """A move or fall-back that the QUAD movement rules do not allow."""


def on_high_ground(own: Terrain, other: Terrain) -> bool:
    """A unit on a Slope hex facing a unit that is not on a Slope holds the high ground."""
    return own is Terrain.SLOPE and other is not Terrain.SLOPE


def is_difficult(unit: UnitType, *, from_terrain: Terrain, to_terrain: Terrain) -> bool:
    """Whether entering to_terrain from from_terrain is difficult for this unit.

    Forest (not for a Forester), River (not for an Amphibious unit) and Fortified always;
    Slope only when moving up, i.e. entering a Slope hex from a hex that is not a Slope.
    """
    if to_terrain is Terrain.FOREST:
        return not unit.has(Special.FORESTER)
    if to_terrain is Terrain.RIVER:
        return not unit.has(Special.AMPHIBIOUS)
    if to_terrain is Terrain.FORTIFIED:
        return True
    if to_terrain is Terrain.SLOPE:
        return from_terrain is not Terrain.SLOPE
    return False


@dataclass(frozen=True, kw_only=True)
class TerrainAttack:
    """Difficult terrain "attacking" a unit entering it: hit when a die beats the unit's quality."""

    hex: Hex
    terrain: Terrain
    quality: int
    rolls: tuple[int, ...]
    numbers: tuple[int, ...]

    @property
    def hit(self) -> bool:
        return any(v > self.quality for v in self.rolls)

    def explain(self) -> str:
        shown = ", ".join(str(v) for v in self.rolls)
        verdict = (
            "hits: the unit does not enter" if self.hit else "misses: the unit enters"
        )
        return (
            f"{self.terrain.value} at {format_label(self.hex)} attacks (rolls {shown} against"
            f" quality {self.quality}): {verdict}"
        )


def terrain_attack(
    *,
    hex_: Hex,
    terrain: Terrain,
    quality: int,
    dice: Dice,
    dice_count: int = DEFAULT_TERRAIN_ATTACK_DICE,
    purpose: str = "terrain attack",
) -> TerrainAttack:
    """Roll difficult terrain's attack on a unit of the given current quality."""
    if dice_count < 1:
        raise MoveError("Difficult terrain attacks with at least one die.")
    rolls: list[int] = []
    numbers: list[int] = []
    label = format_label(hex_)
    for i in range(dice_count):
        try:
            rolls.append(dice.roll(6, f"{purpose} {label} die {i + 1}"))
        except DiceError as exc:
            raise MoveError(f"The terrain attack at {label} could not be rolled: {exc}") from exc
        numbers.append(dice.rolls[-1].number)
    return TerrainAttack(
        hex=hex_, terrain=terrain, quality=quality, rolls=tuple(rolls), numbers=tuple(numbers)
    )


@dataclass(frozen=True, kw_only=True)
class Board:
    """A QUAD map: its size, the terrain of each hex (others Open) and the hexes holding units."""

    grid: Grid
    terrain: Mapping[Hex, Terrain] = field(default_factory=dict)
    occupied: frozenset[Hex] = frozenset()

    def terrain_at(self, h: Hex) -> Terrain:
        return self.terrain.get(h, Terrain.OPEN)

    def can_enter(self, h: Hex) -> bool:
        return self.grid.contains(h) and h not in self.occupied


def movement_cost(unit: UnitType, from_hex: Hex, to_hex: Hex, board: Board) -> int | None:
    """Every hex costs 1 of the unit's speed; None when to_hex is not an adjacent, empty hex on
    the map. Difficult terrain costs no more: it "attacks" the unit instead (resolve_move)."""
    del unit  # every unit pays the same; difficult terrain is a die roll, not a cost
    if distance(from_hex, to_hex) != 1 or not board.can_enter(to_hex):
        return None
    return 1


@dataclass(frozen=True, kw_only=True)
class MoveResult:
    """A move along a path: where the unit ended, the hexes entered, each terrain attack."""

    path: tuple[Hex, ...]
    final_hex: Hex
    entered: tuple[Hex, ...]
    stopped_before: Hex | None
    terrain_attacks: tuple[TerrainAttack, ...]

    def explain(self) -> list[str]:
        lines = [a.explain() for a in self.terrain_attacks]
        if self.stopped_before is not None:
            lines.append(
                f"the move ends in {format_label(self.final_hex)}: the terrain of"
                f" {format_label(self.stopped_before)} stopped it"
            )
        else:
            lines.append(f"the unit moves to {format_label(self.final_hex)}")
        return lines


def check_path(unit: UnitType, path: Sequence[Hex], board: Board) -> None:
    if not path:
        raise MoveError("A move needs at least its starting hex.")
    steps = len(path) - 1
    if steps > unit.speed:
        raise MoveError(
            f"{unit.label} has unit speed {unit.speed}, so it moves at most {unit.speed} hexes,"
            f" not {steps}."
        )
    if not board.grid.contains(path[0]):
        raise MoveError(f"The starting hex {format_label(path[0])} is not on the map.")
    seen = {path[0]}
    for a, b in zip(path, path[1:], strict=False):
        if movement_cost(unit, a, b, board) is None or b in seen:
            raise MoveError(
                f"{format_label(b)} cannot be entered from {format_label(a)}: each step goes to"
                " an adjacent empty hex on the map."
            )
        seen.add(b)


def resolve_move(
    *,
    unit: UnitType,
    quality: int,
    path: Sequence[Hex],
    board: Board,
    dice: Dice,
    terrain_attack_dice: int = DEFAULT_TERRAIN_ATTACK_DICE,
) -> MoveResult:
    """Move along `path` (its first hex is where the unit stands). Each difficult hex attacks the
    unit; a hit stops the unit in the hex before it and ends the move."""
    check_path(unit, path, board)
    if quality < 1:
        raise MoveError(f"{unit.label} is eliminated (quality 0) and cannot move.")
    attacks: list[TerrainAttack] = []
    entered: list[Hex] = []
    here = path[0]
    for step in path[1:]:
        to_terrain = board.terrain_at(step)
        if is_difficult(unit, from_terrain=board.terrain_at(here), to_terrain=to_terrain):
            attack = terrain_attack(
                hex_=step, terrain=to_terrain, quality=quality, dice=dice,
                dice_count=terrain_attack_dice,
            )
            attacks.append(attack)
            if attack.hit:
                return MoveResult(
                    path=tuple(path), final_hex=here, entered=tuple(entered),
                    stopped_before=step, terrain_attacks=tuple(attacks),
                )
        entered.append(step)
        here = step
    return MoveResult(
        path=tuple(path), final_hex=here, entered=tuple(entered), stopped_before=None,
        terrain_attacks=tuple(attacks),
    )


@dataclass(frozen=True, kw_only=True)
class FallBackResult:
    """A fall-back carried out on the map: hexes moved, hexes blocked and the quality they cost."""

    required: int
    path: tuple[Hex, ...]
    blocked: int
    quality_before: int
    quality_after: int
    terrain_attacks: tuple[TerrainAttack, ...]
    reason: str

    @property
    def moved(self) -> int:
        return len(self.path) - 1

    @property
    def eliminated(self) -> bool:
        return self.quality_after == 0

    def explain(self) -> list[str]:
        lines = [a.explain() for a in self.terrain_attacks]
        route = " → ".join(format_label(h) for h in self.path)
        lines.append(f"falls back {self.moved} of {self.required} hexes: {route}")
        if self.blocked:
            lines.append(
                f"{self.blocked} hex(es) of fall-back blocked ({self.reason}): quality"
                f" {self.quality_before} → {self.quality_after}"
                + (" — eliminated" if self.eliminated else "")
            )
        return lines


def fall_back_candidates(here: Hex, attacker_hex: Hex, board: Board) -> list[Hex]:
    """Empty on-map neighbours farther from the attacker than `here`, in Direction order."""
    d = distance(here, attacker_hex)
    return [
        n for n in neighbors(here).values()
        if board.can_enter(n) and distance(n, attacker_hex) > d
    ]


def resolve_fall_back(
    *,
    unit: UnitType,
    quality: int,
    start: Hex,
    attacker_hex: Hex,
    hexes: int,
    board: Board,
    dice: Dice,
    path: Sequence[Hex] | None = None,
    terrain_attack_dice: int = DEFAULT_TERRAIN_ATTACK_DICE,
) -> FallBackResult:
    """Fall back `hexes` hexes away from the attacker; each hex that cannot be made costs 1
    quality instead. Each step goes to an empty hex farther from the attacker; difficult terrain
    attacks the unit as in any move and a hit blocks the rest of the fall-back. Without `path`
    the unit prefers hexes that are not difficult for it, then the hex straight away from the
    attacker, then Direction order (N, NE, SE, …)."""
    if hexes < 0:
        raise MoveError("A fall-back cannot be a negative number of hexes.")
    if quality < 1:
        raise MoveError(f"{unit.label} is eliminated (quality 0) and cannot fall back.")
    if path is not None:
        if not path or path[0] != start:
            raise MoveError("A fall-back path starts at the unit's hex.")
        if len(path) - 1 > hexes:
            raise MoveError(f"The fall-back path is longer than the {hexes} hex(es) required.")
    route = [start]
    attacks: list[TerrainAttack] = []
    reason = ""
    while len(route) - 1 < hexes:
        here = route[-1]
        candidates = fall_back_candidates(here, attacker_hex, board)
        if path is not None:
            if len(route) >= len(path):
                if candidates:
                    raise MoveError(
                        f"The fall-back path stops at {format_label(here)} although it can go"
                        " on: a unit falls back as far as the hits require when it can."
                    )
                reason = "no empty hex farther from the attacker"
                break
            step = path[len(route)]
            if step not in candidates:
                raise MoveError(
                    f"{format_label(step)} is not a fall-back hex from {format_label(here)}: it"
                    " must be an adjacent empty hex on the map farther from the attacker."
                )
        else:
            if not candidates:
                reason = "no empty hex farther from the attacker"
                break
            here_terrain = board.terrain_at(here)
            easy = [
                c for c in candidates
                if not is_difficult(unit, from_terrain=here_terrain,
                                    to_terrain=board.terrain_at(c))
            ]
            # Straight away from the attacker when it can: the hex nearest the point as far
            # beyond this hex as the attacker is before it.
            away = Hex(2 * here.q - attacker_hex.q, 2 * here.r - attacker_hex.r)
            step = min(easy or candidates, key=lambda c: distance(c, away))
        to_terrain = board.terrain_at(step)
        if is_difficult(unit, from_terrain=board.terrain_at(here), to_terrain=to_terrain):
            attack = terrain_attack(
                hex_=step, terrain=to_terrain, quality=quality, dice=dice,
                dice_count=terrain_attack_dice, purpose="fall-back terrain attack",
            )
            attacks.append(attack)
            if attack.hit:
                reason = f"the {to_terrain.value} at {format_label(step)} stopped it"
                break
        route.append(step)
    blocked = hexes - (len(route) - 1)
    return FallBackResult(
        required=hexes,
        path=tuple(route),
        blocked=blocked,
        quality_before=quality,
        quality_after=max(0, quality - blocked),
        terrain_attacks=tuple(attacks),
        reason=reason,
    )
