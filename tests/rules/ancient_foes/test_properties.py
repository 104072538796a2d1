"""Ancient Foes 2 properties: no negative statistics, casualties stay removed, dice accounted for."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ancient_foes.battlefield import BandUnit, Battlefield, FieldBand, Terrain
from rules.ancient_foes.combat import FightOrder, FireOrder, resolve_fight, resolve_fire
from rules.ancient_foes.movement import movement_allowance
from rules.ancient_foes.orders import OrderKind, OrderRequest, give_orders
from rules.ancient_foes.units import Armour, Experience, Mount, UnitType, Weapon, derive_stats
from rules.dice import FixedDice, SeededDice
from rules.hexgrid import Hex

unit_types = st.builds(
    UnitType,
    armour=st.sampled_from(Armour),
    weapon=st.sampled_from(Weapon),
    mount=st.sampled_from(Mount),
    experience=st.sampled_from(Experience),
    leader=st.just(False),
)


@given(unit_types, st.booleans())
def test_statistics_are_never_negative(unit, leader):
    s = derive_stats(UnitType(armour=unit.armour, weapon=unit.weapon, mount=unit.mount,
                              experience=unit.experience, leader=leader))
    assert s.movement >= 0 and s.defence >= 0
    assert s.range is None or s.range >= 0


@given(st.integers(min_value=0, max_value=20), st.booleans(), st.booleans(), st.booleans())
def test_movement_allowance_is_never_negative(speed, road, rough, tired):
    assert movement_allowance(speed=speed, on_road=road, in_rough=rough,
                              moved_three_times=tired).total >= 0


def _band(name, types, column, flags):
    return FieldBand(
        name=name,
        units=tuple(BandUnit(name=f"{name}{i}", unit_type=t, hex=Hex(column, i))
                    for i, t in enumerate(types)),
        moved_three_times=flags[0], leader_fell_last_round=flags[1])


bands = st.lists(unit_types, min_size=1, max_size=8)
flags = st.tuples(st.booleans(), st.booleans())


def _check(result, target, seen_dice):
    names = [u.name for u in target.units]
    assert set(result.casualties) | set(result.survivors) == set(names)
    assert not set(result.casualties) & set(result.survivors)
    assert result.target_destroyed == (not result.survivors)
    killed: set[str] = set()
    for attack in result.attacks:
        # An eliminated unit stays eliminated: it is never attacked again.
        assert attack.target not in killed
        assert attack.kill == (attack.roll + attack.attack
                               + sum(m.value for m in attack.modifiers) >= attack.defence)
        if attack.kill:
            killed.add(attack.target)
    assert killed == set(result.casualties)
    assert [a.roll for a in result.attacks] == [r.value for r in seen_dice]
    attackers = [a.attacker for a in result.attacks]
    assert len(attackers) == len(set(attackers))


@settings(max_examples=150)
@given(bands, bands, flags, st.integers(min_value=1, max_value=4), st.text(min_size=1,
       max_size=8), st.sampled_from(list(Terrain)))
def test_fight_casualties_stay_removed(ours, theirs, f, gap, seed, terrain):
    us = _band("u", ours, 0, f)
    them = _band("t", theirs, 1, (False, False))
    field_ = Battlefield(terrain={Hex(1, 0): terrain})
    dice = SeededDice(seed=seed)
    result = resolve_fight(FightOrder(fighting=us, target=them, battlefield=field_), dice=dice)
    _check(result, them, dice.rolls)
    # Every unit fights until the target band is destroyed.
    assert len(result.attacks) == len(ours) or result.target_destroyed


@settings(max_examples=150)
@given(bands, bands, flags, st.integers(min_value=1, max_value=10), st.text(min_size=1,
       max_size=8), st.sampled_from(list(Terrain)), st.integers(min_value=1, max_value=4))
def test_fire_casualties_stay_removed(ours, theirs, f, gap, seed, terrain, scale):
    us = _band("u", ours, 0, f)
    them = _band("t", theirs, gap, (False, False))
    field_ = Battlefield(terrain={Hex(0, 0): terrain, Hex(gap, 0): terrain}, cm_per_hex=scale)
    dice = SeededDice(seed=seed)
    result = resolve_fire(FireOrder(firing=us, target=them, battlefield=field_), dice=dice)
    _check(result, them, dice.rolls)
    for attack in result.attacks:
        assert attack.distance_cm <= attack.range_cm
    assert all(derive_stats(t).range is not None
               for t, u in zip(ours, us.units, strict=True)
               if u.name in {a.attacker for a in result.attacks})


@given(st.integers(min_value=1, max_value=6))
def test_second_order_succeeds_exactly_on_3_or_more(roll):
    leader = BandUnit(name="L", unit_type=UnitType(armour=Armour.HEAVY, weapon=Weapon.SWORD,
                                                   mount=Mount.HORSE, leader=True), hex=Hex(0, 0))
    band = _band("b", [UnitType(armour=Armour.LIGHT, weapon=Weapon.BOW, mount=Mount.FOOT)], 2,
                 (False, False))
    out = give_orders(leader=leader, orders=[OrderRequest(band=band, order=OrderKind.MOVE),
                                             OrderRequest(band=band, order=OrderKind.FIRE)],
                      battlefield=Battlefield(), dice=FixedDice([roll]))
    assert out[0].succeeded
    assert out[1].succeeded == (roll >= 3)
