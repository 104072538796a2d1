"""Hypothesis properties: no negative figures or Fatigue, nothing gained, eliminated stays so."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import SeededDice
from rules.elf_abas.activation import activation_order
from rules.elf_abas.combat import Attack, Attacker, TerrainRule, resolve_attack
from rules.elf_abas.effects import DrawnEffect, Effect, EffectError, Member, apply_effects
from rules.elf_abas.movement import Terrain
from rules.elf_abas.units import PROFILES, UNIT_KINDS, Force, Kind, attack_dice


@st.composite
def forces(draw: st.DrawFn) -> Force:
    unit = draw(st.sampled_from([None, *UNIT_KINDS]))
    leader, hero = draw(st.booleans()), draw(st.booleans())
    if unit is None and not (leader or hero):
        leader = True
    figures = 0 if unit is None else draw(st.integers(1, PROFILES[unit].figures))
    return Force(unit=unit, figures=figures, leader=leader, hero=hero,
                 fatigue=draw(st.integers(0, 4)), spent=draw(st.booleans()))


effect_lists = st.lists(st.sampled_from(list(Effect)).map(lambda e: DrawnEffect(effect=e)),
                        max_size=10)


@settings(max_examples=300, deadline=None)
@given(force=forces(), drawn=effect_lists, room=st.none() | st.integers(0, 3),
       shrug=st.integers(0, 2), to=st.none() | st.sampled_from(list(Member)))
def test_effects_never_go_negative_nor_add_anything(force, drawn, room, shrug, to):
    present = {Member.UNIT: force.unit is not None, Member.LEADER: force.leader,
               Member.HERO: force.hero}
    if to is not None and not present[to]:
        to = None
    out = apply_effects(force, drawn, retreat_room=room, terrain_shrug=shrug, casualties_to=to)
    after = out.after
    assert 0 <= after.figures <= force.figures
    assert after.fatigue >= 0
    assert after.leader <= force.leader and after.hero <= force.hero
    assert after.unit in (force.unit, None)
    assert out.retreat_hexes >= 0 and out.pursuit >= 0 and out.shrugged >= 0
    if room is not None:
        assert out.retreat_hexes <= room
    if any(d.effect is Effect.DESTROYED for d in drawn):
        assert out.eliminated
    if out.eliminated:
        assert after.total_figures == 0 and out.retreat_hexes == 0
        with pytest.raises(EffectError):
            apply_effects(after, drawn)


@settings(max_examples=100, deadline=None)
@given(force=forces(), rounds=st.lists(effect_lists, min_size=1, max_size=6))
def test_eliminated_forces_stay_eliminated(force, rounds):
    # Turn after turn: no effect ever brings a figure back, and an eliminated hex can
    # suffer nothing more (nor attack).
    for drawn in rounds:
        if force.eliminated:
            with pytest.raises(EffectError):
                apply_effects(force, drawn)
            with pytest.raises(ValueError):
                attack_dice(force)
            continue
        before = force.total_figures
        force = apply_effects(force, drawn).after
        assert 0 <= force.total_figures <= before and force.fatigue >= 0


@settings(max_examples=100, deadline=None)
@given(attacker=forces(), defender=forces(), hexes=st.integers(1, 3),
       terrain=st.sampled_from(list(Terrain)), rule=st.sampled_from(list(TerrainRule)),
       seed=st.text(min_size=1, max_size=8))
def test_attacks_roll_exactly_their_dice(attacker, defender, hexes, terrain, rule, seed):
    if attacker.unit is not Kind.MISSILE:
        hexes = 1
    dice_count = attack_dice(attacker, hexes=hexes).total
    assert dice_count >= 0
    result = resolve_attack(
        Attack(attackers=(Attacker(force=attacker, hexes=hexes),), defender=defender,
               terrain=terrain, terrain_rule=rule),
        dice=SeededDice(seed=seed),
    )
    assert len(result.dice) == dice_count + 2 * result.effects_rolled
    assert result.effects_rolled <= result.sixes
    assert result.outcome.after.figures >= 0


@settings(max_examples=100, deadline=None)
@given(players=st.lists(st.text(min_size=1, max_size=4), min_size=2, max_size=5, unique=True),
       seed=st.text(min_size=1, max_size=8))
def test_activation_draws_every_card_once(players, seed):
    order = activation_order(players, dice=SeededDice(seed=seed))
    assert sorted(order.order) == sorted(order.pile) == sorted(players * 2)
    assert 1 <= order.cut <= 6
