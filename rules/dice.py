"""Verifiable dice: HMAC-SHA256 rolls from a committed secret seed, fixed dice, and verification."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "Dice",
    "DiceError",
    "FixedDice",
    "Roll",
    "RollCheck",
    "SeededDice",
    "Verification",
    "commitment",
    "derive",
    "mix_draw",
    "new_seed",
    "roll_2d6",
    "verify",
]

_DIGEST_BITS = 256


class DiceError(ValueError):
    """A die that cannot be rolled, or a given roll that does not fit the die."""


@dataclass(frozen=True, kw_only=True)
class Roll:
    """One die roll: its number within the phase, what it was for, the die and the result."""

    number: int
    purpose: str
    sides: int
    value: int


def roll_records(rolls: Sequence[Roll]) -> list[dict[str, object]]:
    """Rolls as JSON objects {"number", "purpose", "sides", "value"} (reports, calculators)."""
    return [
        {"number": r.number, "purpose": r.purpose, "sides": r.sides, "value": r.value}
        for r in rolls
    ]


class Dice(Protocol):
    """A source of die rolls that records every roll with its purpose, in order."""

    def roll(self, sides: int, purpose: str) -> int: ...

    @property
    def rolls(self) -> tuple[Roll, ...]: ...


def _check_die(sides: int, purpose: str) -> None:
    if sides < 2:
        raise DiceError(f"A die needs at least 2 sides; got {sides} for {purpose!r}.")
    if not purpose:
        raise DiceError("Every roll needs a purpose saying what it is for.")


def roll_2d6(dice: Dice, purpose: str) -> tuple[int, int]:
    """Two six-sided dice, recorded as "<purpose> die 1" and "<purpose> die 2"."""
    return dice.roll(6, f"{purpose} die 1"), dice.roll(6, f"{purpose} die 2")


def new_seed() -> str:
    """A fresh secret seed for a phase: 32 random bytes as 64 lowercase hex digits."""
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    """The published commitment to a seed: SHA-256 of the seed's UTF-8 text, as lowercase hex."""
    return _sha256_hex(seed)


def mix_draw(seed: str, draw: str) -> str:
    """The seed of the rolls made after an alliance's draw (docs/rules/dice.md):
    HMAC-SHA256(key=seed, msg="draw:" + draw) as 64 lowercase hex digits. Whoever knows the
    seed alone cannot tell the rolls before the draw is made; whoever made the draw cannot
    either before the seed is revealed."""
    return hmac.new(seed.encode("utf-8"), f"draw:{draw}".encode(), hashlib.sha256).hexdigest()


def _sha256_hex(seed: str) -> str:
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _digest(seed: str, message: str) -> int:
    mac = hmac.new(seed.encode("utf-8"), message.encode("utf-8"), hashlib.sha256)
    return int.from_bytes(mac.digest(), "big")


def derive(seed: str, number: int, purpose: str, sides: int) -> int:
    """The value (1..sides) of roll `number` for `purpose`, as docs/rules/dice.md specifies.

    x = HMAC-SHA256(key=seed, msg="<number>:<purpose>") read as a 256-bit big-endian integer;
    if x < limit, the largest multiple of `sides` not above 2^256, the value is x mod sides + 1.
    Otherwise (rejection sampling, so no value is favoured) try msg "<number>:<purpose>:1",
    then ":2", and so on.
    """
    _check_die(sides, purpose)
    limit = ((1 << _DIGEST_BITS) // sides) * sides
    base = f"{number}:{purpose}"
    x = _digest(seed, base)
    k = 0
    while x >= limit:
        k += 1
        x = _digest(seed, f"{base}:{k}")
    return x % sides + 1


class SeededDice:
    """Dice derived from a phase's secret seed; roll numbers count up from `first_number`."""

    def __init__(self, *, seed: str, first_number: int = 1) -> None:
        if not seed:
            raise DiceError("Seeded dice need a non-empty seed.")
        if first_number < 1:
            raise DiceError(f"Roll numbers start at 1, not {first_number}.")
        self._seed = seed
        self._next = first_number
        self._rolls: list[Roll] = []

    def __repr__(self) -> str:
        # The seed is secret until its phase closes: never show it.
        return f"SeededDice(next_number={self._next}, rolls={len(self._rolls)})"

    @property
    def next_number(self) -> int:
        """The number the next roll will get (to resume numbering in a later action)."""
        return self._next

    @property
    def rolls(self) -> tuple[Roll, ...]:
        return tuple(self._rolls)

    def roll(self, sides: int, purpose: str) -> int:
        value = derive(self._seed, self._next, purpose, sides)
        self._rolls.append(Roll(number=self._next, purpose=purpose, sides=sides, value=value))
        self._next += 1
        return value


class FixedDice:
    """Dice whose values are given in advance (the calculator, or dice rolled elsewhere)."""

    def __init__(self, values: Sequence[int], *, first_number: int = 1) -> None:
        self._values = tuple(values)
        self._next = first_number
        self._rolls: list[Roll] = []

    @property
    def next_number(self) -> int:
        return self._next

    @property
    def remaining(self) -> int:
        """How many given values have not been used yet."""
        return len(self._values) - len(self._rolls)

    @property
    def rolls(self) -> tuple[Roll, ...]:
        return tuple(self._rolls)

    def roll(self, sides: int, purpose: str) -> int:
        _check_die(sides, purpose)
        used = len(self._rolls)
        if used >= len(self._values):
            raise DiceError(
                f"Ran out of given dice: {len(self._values)} value(s) were given, "
                f"but another d{sides} is needed for {purpose!r}."
            )
        value = self._values[used]
        if not 1 <= value <= sides:
            raise DiceError(
                f"A d{sides} shows 1 to {sides}, so the given value {value} "
                f"cannot be used for {purpose!r}."
            )
        self._rolls.append(Roll(number=self._next, purpose=purpose, sides=sides, value=value))
        self._next += 1
        return value


@dataclass(frozen=True, kw_only=True)
class RollCheck:
    """One recorded roll next to the value its seed gives."""

    roll: Roll
    expected: int
    matches: bool


@dataclass(frozen=True, kw_only=True)
class Verification:
    """Whether a revealed seed matches its commitment and re-derives every recorded roll."""

    commitment_ok: bool
    results: tuple[RollCheck, ...]

    @property
    def all_ok(self) -> bool:
        return self.commitment_ok and all(r.matches for r in self.results)


def verify(*, seed: str, commitment: str, rolls: Sequence[Roll]) -> Verification:
    """Check a revealed seed against its published commitment and re-derive every roll."""
    commitment_ok = hmac.compare_digest(
        _sha256_hex(seed).encode("ascii"), commitment.strip().lower().encode("utf-8")
    )
    results = []
    for roll in rolls:
        expected = derive(seed, roll.number, roll.purpose, roll.sides)
        results.append(RollCheck(roll=roll, expected=expected, matches=expected == roll.value))
    return Verification(commitment_ok=commitment_ok, results=tuple(results))
