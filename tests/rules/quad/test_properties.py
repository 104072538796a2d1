"""Hypothesis properties of QUAD: no negative quality, conservation of hits, elimination sticks."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import SeededDice
from rules.quad.combat import Combat, Fighter, resolve_combat
from rules.quad.deck import Army, setup
from rules.quad.terrain import Terrain
from rules.quad.units import Special, UnitType

specials = st.frozensets(st.sampled_from(list(Special)))
units = st.builds(
    UnitType,
    quality=st.integers(1, 5),
    speed=st.integers(0, 3),
    attack=st.integers(0, 6),
    defense=st.integers(0, 6),
    specials=specials,
)


@st.composite
def fighters(draw):
    unit = draw(units)
    return Fighter(
        unit=unit,
        quality=draw(st.integers(1, unit.quality)),
        terrain=draw(st.sampled_from(list(Terrain))),
        fall_back_room=draw(st.none() | st.integers(0, 4)),
    )


@st.composite
def combats(draw):
    attacker = draw(fighters())
    charging = attacker.unit.has(Special.CHARGER) and draw(st.booleans())
    return Combat(
        attacker=attacker,
        defender=draw(fighters()),
        charging=charging,
        allies_adjacent_to_target=draw(st.integers(0, 5)),
        supports_adjacent_to_defender=draw(st.integers(0, 5)),
        quality_hits_to_block=draw(st.none() | st.integers(0, 10)),
        strike_back_sixes=draw(st.none() | st.integers(0, 10)),
    )


@settings(max_examples=300, deadline=None)
@given(combats(), st.text(min_size=1, max_size=8))
def test_combat_invariants(fight, seed):
    result = resolve_combat(fight, dice=SeededDice(seed=seed))
    for side in (result.attacker, result.defender):
        assert 0 <= side.quality_after <= side.quality_before
        assert side.fall_back_hexes >= 0 and side.fall_back_blocked >= 0
        assert side.fall_back_hexes + side.fall_back_blocked <= side.fall_back_required
        if side.eliminated:
            assert side.fall_back_hexes == 0
    # Every hit is blocked or lands; blocks are used before any strikes back.
    assert result.blocked.total == min(result.hits.total, result.blocks)
    assert result.strike_back.total <= max(0, result.blocks - result.hits.total)
    assert result.defender.quality_hits + result.defender.fall_back_hits == (
        result.hits.total - result.blocked.total
    )
    assert len(result.attack_rolls) == result.attack_dice
    assert len(result.defense_rolls) == result.defense_dice
    assert len(result.dice) == result.attack_dice + result.defense_dice


@settings(max_examples=100, deadline=None)
@given(st.lists(combats(), min_size=1, max_size=6), st.text(min_size=1, max_size=8))
def test_quality_never_rises_and_eliminated_units_stay_eliminated(fights, seed):
    """Fight the same defender again and again: quality only falls; once at 0 it cannot fight."""
    dice = SeededDice(seed=seed)
    defender = fights[0].defender
    for fight in fights:
        result = resolve_combat(
            Combat(attacker=fight.attacker, defender=defender), dice=dice
        )
        assert result.defender.quality_after <= defender.quality_now
        if result.defender.eliminated:
            try:
                Fighter(unit=defender.unit, quality=0)
            except ValueError:
                pass
            else:
                raise AssertionError("an eliminated unit was allowed back into combat")
            break
        defender = Fighter(unit=defender.unit, quality=result.defender.quality_after,
                           terrain=defender.terrain, fall_back_room=defender.fall_back_room)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12), st.integers(0, 4), st.text(min_size=1, max_size=8))
def test_deck_setup_keeps_every_card(unit_count, leader, seed):
    names = tuple(f"u{i}" for i in range(unit_count))
    state, _ = setup(armies=[Army(player="p", units=names, leader_level=leader)],
                     dice=SeededDice(seed=seed))
    cards = state.players[0]
    total = len(cards.hand) + len(cards.draw_pile) + len(cards.discard)
    assert total == 3 * unit_count + unit_count // 3 + leader
    assert len(cards.hand) == min(unit_count // 3 + leader, total)
