"""Exact Erfworld combat odds, checked against brute force over all 36 x 36 die pairs."""

import itertools
from collections import defaultdict
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import FixedDice
from rules.erfworld.combat import Combat, CombatSide, CombatUnit, resolve_combat
from rules.erfworld.odds import Distribution, OddsError, combat_odds, roll_for_sum
from rules.erfworld.types import Special, Terrain, UnitStats


def unit(
    name: str, h: int, a: int, d: int, m: int = 2, *specials: Special, **kw: object
) -> CombatUnit:
    stats = UnitStats(hits=h, attack=a, defence=d, move=m, specials=frozenset(specials))
    return CombatUnit(name=name, stats=stats, **kw)  # type: ignore[arg-type]


def captain(level: int) -> CombatUnit:
    return unit("Captain", 5, 5, 1, 2, Special.COMMANDER, commander_level=level)


def archers(n: int, prefix: str = "Archer") -> tuple[CombatUnit, ...]:
    return tuple(unit(f"{prefix} {i}", 4, 4, 2, 2, Special.RANGED) for i in range(n))


def gobwins(n: int) -> tuple[CombatUnit, ...]:
    return tuple(unit(f"Gobwin {i}", 3, 5, 1) for i in range(n))


SCENARIOS = {
    "melee-simultaneous": Combat(
        attacker=CombatSide(units=(captain(2), *gobwins(3))),
        defender=CombatSide(units=(unit("Knight", 6, 7, 3), *gobwins(2)), combats_this_turn=1),
        defender_terrain=Terrain.HILLS,
    ),
    "ranged-attacker-withdraws": Combat(
        attacker=CombatSide(units=archers(3)),
        defender=CombatSide(units=gobwins(3)),
        withdraw=True,
    ),
    "ranged-attacker-stays": Combat(
        attacker=CombatSide(units=archers(3)),
        defender=CombatSide(units=gobwins(3)),
    ),
    "defender-first": Combat(
        attacker=CombatSide(units=(captain(1), *gobwins(2))),
        defender=CombatSide(units=archers(2, "Bow")),
        target=1,
    ),
    "directed-fortified": Combat(
        attacker=CombatSide(
            units=(captain(3), unit("Twoll", 10, 15, 2)), chief_warlord_in_hex=True
        ),
        defender=CombatSide(units=(*gobwins(2), captain(1))),
        target=2,
        fortification_hits=60,
    ),
}


def brute_force(combat: Combat) -> tuple[dict[int, Fraction], dict[int, Fraction], list[Fraction]]:
    """Resolve the combat for every one of the 36 x 36 pairs of 2d6 rolls."""
    on_def: dict[int, Fraction] = defaultdict(Fraction)
    on_att: dict[int, Fraction] = defaultdict(Fraction)
    croaked = [Fraction(0)] * len(combat.defender.units)
    p = Fraction(1, 36 * 36)
    pairs = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    for a_roll, d_roll in itertools.product(pairs, pairs):
        fixed = replace(
            combat,
            attacker=replace(combat.attacker, roll=a_roll),
            defender=replace(combat.defender, roll=d_roll),
        )
        result = resolve_combat(fixed, dice=FixedDice([]))
        on_def[result.hits_on_defender] += p
        on_att[result.hits_on_attacker] += p
        for i, u in enumerate(result.defender.units):
            if u.croaked:
                croaked[i] += p
    return on_def, on_att, croaked


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_odds_match_brute_force_over_all_die_pairs(name: str) -> None:
    combat = SCENARIOS[name]
    odds = combat_odds(combat)
    on_def, on_att, croaked = brute_force(combat)
    assert odds.hits_on_defender == Distribution.from_weights(on_def)
    assert odds.hits_on_attacker == Distribution.from_weights(on_att)
    assert odds.expected_hits_on_defender == sum(k * p for k, p in on_def.items())
    assert odds.expected_hits_on_attacker == sum(k * p for k, p in on_att.items())
    assert [u.croaked for u in odds.defender_units] == croaked
    assert odds.hits_on_defender.total == 1
    assert odds.hits_on_attacker.total == 1
    assert odds.attacker_wins + odds.defender_wins + odds.nobody_wins == 1


def test_distribution_of_a_lone_attack_10() -> None:
    # hits = floor(10 x (s + 8)/20) = floor((s + 8)/2) for the 2d6 sum s.
    odds = combat_odds(
        Combat(
            attacker=CombatSide(units=(unit("Twoll", 10, 10, 0, 1),)),
            defender=CombatSide(units=(unit("Golem", 20, 0, 0, 1),)),
        )
    )
    assert odds.hits_on_defender.probabilities == (
        (5, Fraction(1, 12)),
        (6, Fraction(7, 36)),
        (7, Fraction(11, 36)),
        (8, Fraction(1, 4)),
        (9, Fraction(5, 36)),
        (10, Fraction(1, 36)),
    )
    assert odds.expected_hits_on_defender == Fraction(29, 4)
    assert odds.hits_on_attacker.probabilities == ((0, Fraction(1)),)
    assert odds.attacker_wins == 1


def test_withdrawn_attack_only_branches_on_the_attacker() -> None:
    odds = combat_odds(SCENARIOS["ranged-attacker-withdraws"])
    assert odds.branches == 11
    assert odds.hits_on_attacker.probabilities == ((0, Fraction(1)),)


def test_given_roll_is_not_branched_on() -> None:
    combat = SCENARIOS["melee-simultaneous"]
    fixed = replace(combat, attacker=replace(combat.attacker, roll=(6, 6)))
    odds = combat_odds(fixed)
    assert odds.branches == 11
    assert odds.hits_on_defender.total == 1
    assert len(odds.hits_on_defender.probabilities) == 1


def test_invulnerable_defender_has_zero_hits_for_certain() -> None:
    odds = combat_odds(
        Combat(
            attacker=CombatSide(units=(unit("Giant", 30, 45, 0, 1),)),
            defender=CombatSide(units=(unit("Warden", 5, 0, 5, 0),)),
            defender_terrain=Terrain.SWAMP,
            fortification_hits=50,
        )
    )
    assert odds.hits_on_defender.probabilities == ((0, Fraction(1)),)
    assert odds.defender_units[0].croaked == 0


def test_odds_include_special_retaliation_rolls() -> None:
    combat = Combat(
        attacker=CombatSide(units=gobwins(2)),
        defender=CombatSide(units=(unit("Golem", 20, 0, 0, 1),)),
        protectors=(CombatSide(units=(captain(2), unit("Twoll", 10, 10, 0)), name="Guard"),),
    )
    odds = combat_odds(combat)
    assert odds.branches == 11**3
    assert odds.attacker_units[0].croaked > 0
    assert sum((p for _, p in odds.hits_on_defender.probabilities), Fraction(0)) == 1


def test_too_many_rolling_stacks_are_refused() -> None:
    protectors = tuple(
        CombatSide(units=(unit(f"P{i}", 10, 10, 0),), name=f"p{i}") for i in range(4)
    )
    combat = Combat(
        attacker=CombatSide(units=gobwins(2)),
        defender=CombatSide(units=(unit("Golem", 20, 0, 0, 1), captain(1))),
        protectors=protectors,
    )
    with pytest.raises(OddsError, match="at most 4"):
        combat_odds(combat)


def test_roll_for_sum_gives_valid_dice() -> None:
    for total in range(2, 13):
        a, b = roll_for_sum(total)
        assert 1 <= a <= 6 and 1 <= b <= 6 and a + b == total


def test_to_dict_is_json_friendly() -> None:
    out = combat_odds(SCENARIOS["ranged-attacker-withdraws"]).to_dict()
    assert out["order"] == "attacker_first"
    assert set(out) == {
        "order",
        "hits_on_defender",
        "hits_on_attacker",
        "winner",
        "attacker",
        "defender",
    }
    hits = out["hits_on_attacker"]
    assert hits == {
        "distribution": [{"hits": 0, "probability": {"exact": "1", "decimal": "1"}}],
        "expected": {"exact": "0", "decimal": "0"},
    }


# --- properties ------------------------------------------------------------------------------

small_stats = st.builds(
    lambda h, a, d, ranged: UnitStats(
        hits=h,
        attack=min(a, (3 * h + 1) // 2),
        defence=min(d, h),
        move=2,
        specials=frozenset({Special.RANGED}) if ranged else frozenset(),
    ),
    st.integers(1, 8),
    st.integers(0, 12),
    st.integers(0, 5),
    st.booleans(),
)


@st.composite
def small_combats(draw: st.DrawFn) -> Combat:
    def units(prefix: str) -> tuple[CombatUnit, ...]:
        return tuple(
            CombatUnit(name=f"{prefix}{i}", stats=draw(small_stats))
            for i in range(draw(st.integers(1, 3)))
        )

    return Combat(
        attacker=CombatSide(units=units("a")),
        defender=CombatSide(units=units("d"), combats_this_turn=draw(st.integers(0, 2))),
        defender_terrain=draw(st.sampled_from(list(Terrain))),
        fortification_hits=draw(st.integers(0, 300)),
        withdraw=draw(st.booleans()),
    )


@settings(max_examples=60, deadline=None)
@given(combat=small_combats())
def test_odds_distributions_sum_to_exactly_one(combat: Combat) -> None:
    odds = combat_odds(combat)
    assert odds.hits_on_defender.total == 1
    assert odds.hits_on_attacker.total == 1
    assert all(p > 0 for _, p in odds.hits_on_defender.probabilities)
    assert all(0 <= u.croaked <= 1 for u in odds.attacker_units + odds.defender_units)


@settings(max_examples=60, deadline=None)
@given(combat=small_combats(), which=st.integers(0, 2), extra=st.integers(1, 5))
def test_more_attack_never_lowers_expected_hits(combat: Combat, which: int, extra: int) -> None:
    units = list(combat.attacker.units)
    i = which % len(units)
    stronger = replace(
        units[i], stats=replace(units[i].stats, attack=units[i].stats.attack + extra)
    )
    units[i] = stronger
    more = replace(combat, attacker=replace(combat.attacker, units=tuple(units)))
    assert (
        combat_odds(more).expected_hits_on_defender >= combat_odds(combat).expected_hits_on_defender
    )
