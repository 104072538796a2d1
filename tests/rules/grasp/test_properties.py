"""GRASP properties: fatigue never below none, eliminated units stay eliminated, odd rounding."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from rules.dice import SeededDice
from rules.grasp.combat import (
    CloseCombat,
    Fighter,
    Fire,
    Order,
    Side,
    Size,
    resolve_close_combat,
    resolve_fire,
)
from rules.grasp.dielevels import LADDER, DieSpec, Tech, round_odd, steps_of
from rules.grasp.fatigue import Attributes, SupplyRecipient, resupply, take_losses
from rules.grasp.terrain import TerrainClass

levels = st.sampled_from(LADDER)
fatigues = st.one_of(st.none(), levels)
specs = st.builds(lambda lv, t: DieSpec(level=lv, tech=t), levels, st.sampled_from(list(Tech)))
seeds = st.text(min_size=1, max_size=12)


def fighters(name: str) -> st.SearchStrategy[Fighter]:
    return st.builds(
        lambda die, fat, order, size, dil: Fighter(name=name, die=die, fatigue=fat, order=order,
                                                   size=size, draw_is_loss=dil,
                                                   attributes=Attributes(cc=die)),
        specs, fatigues, st.sampled_from(list(Order)), st.sampled_from(list(Size)),
        st.booleans())


@given(value=st.fractions(min_value=-1000, max_value=1000))
def test_round_odd_is_nearest_odd_or_whole(value: Fraction) -> None:
    rounded = round_odd(value)
    if value.denominator == 1:
        assert rounded == value
    else:
        assert rounded % 2 == 1
        assert abs(rounded - value) <= 1


@given(fatigue=fatigues, steps=st.integers(0, 10), seed=seeds, cc=specs)
def test_losses_never_raise_fatigue_and_surrender_is_final(
    fatigue: object, steps: int, seed: str, cc: DieSpec
) -> None:
    outcome = take_losses(name="u", fatigue=fatigue, steps=steps,  # type: ignore[arg-type]
                          dice=SeededDice(seed=seed), attributes=Attributes(cc=cc))
    assert steps_of(outcome.fatigue_after) == max(steps_of(outcome.fatigue_before) - steps, 0) \
        or outcome.surrendered
    assert steps_of(outcome.fatigue_after) >= 0
    if outcome.surrendered:
        assert outcome.fatigue_after is None


@given(supplier=fatigues, recipients=st.lists(fatigues, max_size=5), moving=st.booleans())
def test_supply_conserves_dice_and_never_exceeds_the_supplier(
    supplier: object, recipients: list[object], moving: bool
) -> None:
    result = resupply(supplier=supplier,  # type: ignore[arg-type]
                      recipients=[SupplyRecipient(name=str(i), fatigue=f)  # type: ignore[arg-type]
                                  for i, f in enumerate(recipients)], supplier_moving=moving)
    given_dice = sum(r.dice for r in result.recipients)
    assert steps_of(result.supplier_after) == steps_of(result.supplier_before) - given_dice
    for r in result.recipients:
        assert r.dice >= 0
        assert steps_of(r.fatigue_after) == steps_of(r.fatigue_before) + r.dice
        if r.dice:
            assert steps_of(r.fatigue_after) <= steps_of(result.supplier_before)


@given(attacker=fighters("A"), defender=fighters("D"), seed=seeds,
       terrain=st.sampled_from(list(TerrainClass)))
def test_close_combat_outcomes_are_sound(
    attacker: Fighter, defender: Fighter, seed: str, terrain: TerrainClass
) -> None:
    result = resolve_close_combat(
        CloseCombat(attacker=Side(unit=attacker), defender=Side(unit=defender),
                    defender_terrain=terrain), dice=SeededDice(seed=seed))
    for unit, outcome in zip((attacker, defender), result.outcomes, strict=True):
        assert steps_of(outcome.fatigue_after) <= steps_of(unit.fatigue)
        assert steps_of(outcome.fatigue_after) >= 0
        if outcome.eliminated:
            assert outcome.fatigue_after is None
            assert not outcome.recoils
    if result.resolved and result.winner == "first":
        assert result.outcomes[0].fatigue_after == attacker.fatigue


@given(firer=fighters("F"), target=fighters("T"), seed=seeds)
def test_fire_never_raises_fatigue(firer: Fighter, target: Fighter, seed: str) -> None:
    result = resolve_fire(Fire(firer=Side(unit=firer), target=target, fire_range=6),
                          dice=SeededDice(seed=seed))
    for unit, outcome in zip((firer, target), result.outcomes, strict=True):
        assert 0 <= steps_of(outcome.fatigue_after) <= steps_of(unit.fatigue)


@given(target=fighters("T"), seed=seeds, rounds=st.integers(1, 6))
def test_an_eliminated_unit_stays_eliminated(target: Fighter, seed: str, rounds: int) -> None:
    """Feeding each outcome into the next combat: once destroyed or surrendered, always so."""
    dice = SeededDice(seed=seed)
    firer = Fighter(name="F", die=DieSpec(level=LADDER[-1]), fatigue=LADDER[-1])
    eliminated = False
    current = target
    for _ in range(rounds):
        if eliminated:
            break
        result = resolve_fire(Fire(firer=Side(unit=firer), target=current, fire_range=6),
                              dice=dice)
        outcome = result.outcomes[-1]
        eliminated = outcome.eliminated
        current = Fighter(name="T", die=current.die, fatigue=outcome.fatigue_after,
                          order=current.order, size=current.size,
                          attributes=outcome.attributes or current.attributes)
    assert eliminated or steps_of(current.fatigue) >= 0
