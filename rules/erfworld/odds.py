"""Exact Erfworld combat odds: every 2d6 outcome of every side enumerated with Fractions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from rules.erfworld.combat import Combat, CombatResult, Order, fraction_json, resolve_with_rolls

# 2d6 sums and how many of the 36 die pairs give each.
SUM_WAYS: tuple[tuple[int, int], ...] = tuple((s, 6 - abs(s - 7)) for s in range(2, 13))

# Each stack that may roll multiplies the branches by up to 11; beyond this many we refuse.
MAX_ROLLING_STACKS = 4


class OddsError(ValueError):
    """Odds that cannot be computed (too many independent rolls to enumerate exactly)."""


def roll_for_sum(total: int) -> tuple[int, int]:
    """A pair of d6 with this sum (hits depend only on the sum of 2d6)."""
    if not 2 <= total <= 12:
        raise OddsError(f"Two d6 sum to 2..12, not {total}.")
    return (total - 1, 1) if total <= 7 else (6, total - 6)


@dataclass(frozen=True, kw_only=True)
class Distribution:
    """A probability distribution over whole numbers of hits, exact; zero entries left out."""

    probabilities: tuple[tuple[int, Fraction], ...]

    @classmethod
    def from_weights(cls, weights: Mapping[int, Fraction]) -> Distribution:
        return cls(probabilities=tuple(sorted((k, p) for k, p in weights.items() if p)))

    @property
    def total(self) -> Fraction:
        return sum((p for _, p in self.probabilities), Fraction(0))

    @property
    def mean(self) -> Fraction:
        return sum((k * p for k, p in self.probabilities), Fraction(0))

    def probability(self, hits: int) -> Fraction:
        return dict(self.probabilities).get(hits, Fraction(0))

    def to_dict(self) -> list[dict[str, object]]:
        return [{"hits": k, "probability": fraction_json(p)} for k, p in self.probabilities]


@dataclass(frozen=True, kw_only=True)
class UnitOdds:
    """One unit's chance of being croaked and its expected current hits after the combat."""

    name: str
    croaked: Fraction
    expected_current_hits: Fraction

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "croaked": fraction_json(self.croaked),
            "expected_current_hits": fraction_json(self.expected_current_hits),
        }


@dataclass(frozen=True, kw_only=True)
class CombatOdds:
    """The exact distributions of a combat's outcome over all rolls of every side that rolls."""

    order: Order
    hits_on_defender: Distribution
    hits_on_attacker: Distribution
    attacker_units: tuple[UnitOdds, ...]
    defender_units: tuple[UnitOdds, ...]
    attacker_wins: Fraction
    defender_wins: Fraction
    nobody_wins: Fraction
    counts_for_defender: Fraction
    branches: int

    @property
    def expected_hits_on_defender(self) -> Fraction:
        return self.hits_on_defender.mean

    @property
    def expected_hits_on_attacker(self) -> Fraction:
        return self.hits_on_attacker.mean

    def to_dict(self) -> dict[str, object]:
        """Every probability as {"exact": "7/12", "decimal": "0.5833"}."""
        return {
            "order": self.order.value,
            "hits_on_defender": {
                "distribution": self.hits_on_defender.to_dict(),
                "expected": fraction_json(self.expected_hits_on_defender),
            },
            "hits_on_attacker": {
                "distribution": self.hits_on_attacker.to_dict(),
                "expected": fraction_json(self.expected_hits_on_attacker),
            },
            "winner": {
                "attacker": fraction_json(self.attacker_wins),
                "defender": fraction_json(self.defender_wins),
                "none": fraction_json(self.nobody_wins),
            },
            "attacker": {"units": [u.to_dict() for u in self.attacker_units]},
            "defender": {"units": [u.to_dict() for u in self.defender_units]},
        }


class _NeedRoll(Exception):
    def __init__(self, party: str) -> None:
        super().__init__(party)
        self.party = party


def enumerate_outcomes(combat: Combat) -> list[tuple[Fraction, CombatResult]]:
    """Every distinct way the combat can go, with its exact probability (they sum to 1).

    Only parties that actually roll are branched on (a withdrawn attack never rolls for the
    defender), and a side with a given `roll` is not branched on at all.
    """
    sides = (combat.attacker, combat.defender, *combat.protectors)
    rolling = sum(1 for s in sides if s.roll is None)
    if rolling > MAX_ROLLING_STACKS:
        raise OddsError(
            f"{rolling} stacks may roll in this combat; exact odds are enumerated for at most"
            f" {MAX_ROLLING_STACKS} (give some stacks a fixed roll)."
        )
    out: list[tuple[Fraction, CombatResult]] = []

    def walk(assigned: dict[str, tuple[int, int]], weight: Fraction) -> None:
        def source(party: str, given: tuple[int, int] | None, purpose: str) -> tuple[int, int]:
            if given is not None:
                return given
            if party not in assigned:
                raise _NeedRoll(party)
            return assigned[party]

        try:
            result = resolve_with_rolls(combat, roll_source=source)
        except _NeedRoll as need:
            for total, ways in SUM_WAYS:
                walk({**assigned, need.party: roll_for_sum(total)}, weight * Fraction(ways, 36))
            return
        out.append((weight, result))

    walk({}, Fraction(1))
    return out


def combat_odds(combat: Combat) -> CombatOdds:
    """The exact odds of a combat: hits each side inflicts, each unit croaked, who wins."""
    outcomes = enumerate_outcomes(combat)
    on_defender: dict[int, Fraction] = defaultdict(Fraction)
    on_attacker: dict[int, Fraction] = defaultdict(Fraction)
    att_croaked = [Fraction(0)] * len(combat.attacker.units)
    def_croaked = [Fraction(0)] * len(combat.defender.units)
    att_hits = [Fraction(0)] * len(combat.attacker.units)
    def_hits = [Fraction(0)] * len(combat.defender.units)
    wins = {"attacker": Fraction(0), "defender": Fraction(0), "none": Fraction(0)}
    counts = Fraction(0)
    for p, result in outcomes:
        on_defender[result.hits_on_defender] += p
        on_attacker[result.hits_on_attacker] += p
        wins[result.winner.value] += p
        if result.counts_for_defender:
            counts += p
        for i, u in enumerate(result.attacker.units):
            att_hits[i] += p * u.current_hits
            if u.croaked:
                att_croaked[i] += p
        for i, u in enumerate(result.defender.units):
            def_hits[i] += p * u.current_hits
            if u.croaked:
                def_croaked[i] += p
    return CombatOdds(
        order=combat.order,
        hits_on_defender=Distribution.from_weights(on_defender),
        hits_on_attacker=Distribution.from_weights(on_attacker),
        attacker_units=tuple(
            UnitOdds(name=u.name, croaked=c, expected_current_hits=h)
            for u, c, h in zip(combat.attacker.units, att_croaked, att_hits, strict=True)
        ),
        defender_units=tuple(
            UnitOdds(name=u.name, croaked=c, expected_current_hits=h)
            for u, c, h in zip(combat.defender.units, def_croaked, def_hits, strict=True)
        ),
        attacker_wins=wins["attacker"],
        defender_wins=wins["defender"],
        nobody_wins=wins["none"],
        counts_for_defender=counts,
        branches=len(outcomes),
    )
