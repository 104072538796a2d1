"""Attacks (§3), sieges, repairs (§4) through the services, with their reports and dice."""

import pytest

from campaigns.errors import CampaignError
from campaigns.models import DiceRoll, Event, Fortification, Membership, Stack, Unit
from campaigns.services.move_combat import (
    fortification_besiege,
    fortification_repair,
    stack_attack,
    stack_split,
)
from tests.campaigns.engine_setup import (
    move_phase_campaign,
    open_phase,
    opposition_stack,
    own_stack,
    put,
    unit,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def next_to_d4(campaign, p1):
    """The player's whole stack in D3, next to the D4 tower (3 Spearmen, 2 Archers)."""
    return put(own_stack(p1), "D3")


def test_an_attack_is_resolved_at_once_with_its_dice_factors_and_casualties():
    campaign, _, (p1,) = move_phase_campaign()
    stack = next_to_d4(campaign, p1)
    target = opposition_stack(campaign, "D4")
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack, target=target)
    assert (event.kind, event.side) == ("combat", None)
    rolls = list(DiceRoll.objects.filter(phase=open_phase(campaign)).order_by("number")
                 .values_list("number", "purpose"))
    assert rolls == [(d["number"], d["purpose"]) for d in event.payload["dice"]]
    assert rolls[0] == (1, "combat: attacker die 1")
    assert open_phase(campaign).dice_next_number == len(rolls) + 1
    factors = event.payload["result"]["attacker"]["factors"]
    assert set(factors) == {"TA", "CB", "SB", "AB", "RN", "DF", "avgD", "TB"}
    # D4 tower of 20 hits: TB = 20/50 for the defender.
    assert factors["TB"]["exact"] == "2/5"
    for c in event.payload["casualties"]:
        assert Unit.objects.get(pk=c["unit"]).current_hits == c["hits_after"]
        if c["croaked"]:
            assert Unit.objects.get(pk=c["unit"]).stack_id is None
    assert all(u.has_attacked for u in Unit.objects.filter(owner=p1, current_hits__gt=0))


def test_each_unit_attacks_once_per_turn(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack = next_to_d4(campaign, p1)
    Unit.objects.filter(stack=stack).update(has_attacked=True)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_attack(user=p1.user, campaign=campaign, stack=stack,
                     target=opposition_stack(campaign, "D4"))
    assert info.value.code == "already_attacked"


def test_a_stack_that_is_not_adjacent_cannot_be_attacked(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_attack(user=p1.user, campaign=campaign, stack=own_stack(p1),
                     target=opposition_stack(campaign, "D4"))
    assert info.value.code == "not_adjacent"


def test_every_stack_in_the_hex_is_attacked_once_before_any_twice(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "J9")
    first, second = Stack.objects.filter(campaign=campaign, hex="J10").order_by("pk")
    Stack.objects.filter(pk=first.pk).update(times_attacked=1)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_attack(user=p1.user, campaign=campaign, stack=stack, target=first)
    assert info.value.code == "attack_every_stack_first"
    assert second.side.kind == "opposition"


def test_a_ranged_attack_needs_every_attacking_unit_ranged(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack = next_to_d4(campaign, p1)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_attack(user=p1.user, campaign=campaign, stack=stack,
                     target=opposition_stack(campaign, "D4"), ranged=True)
    assert info.value.code == "ranged_rule"


def test_directed_hits_need_a_commander(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack = next_to_d4(campaign, p1)
    spears = stack_split(user=p1.user, campaign=campaign, stack=stack,
                         units=[unit(p1, "Spearman 1")])
    target = opposition_stack(campaign, "D4")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_attack(user=p1.user, campaign=campaign, stack=spears, target=target,
                     directed_at=Unit.objects.filter(stack=target).first())
    assert info.value.code == "directed_needs_commander"


def test_directed_hits_led_by_a_commander_are_reported():
    campaign, _, (p1,) = move_phase_campaign()
    stack = next_to_d4(campaign, p1)
    target = opposition_stack(campaign, "D4")
    archer = Unit.objects.get(stack=target, name="Archer 2")
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack, target=target,
                         directed_at=archer)
    assert event.payload["directed_at"] == archer.pk
    assert any("directed at 'Archer 2'" in line for line in event.payload["explanation"]) or \
        event.payload["result"]["hits_on_defender"] == 0


def test_special_retaliation_from_another_stack_in_the_hex_is_recorded():
    campaign, _, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "J9")
    first = Stack.objects.filter(campaign=campaign, hex="J10").order_by("pk").last()
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack, target=first)
    retaliation = event.payload["special_retaliation"]
    assert [r["protector"] for r in retaliation] == [
        f"stack {s.pk}" for s in Stack.objects.filter(campaign=campaign, hex="J10")
        .exclude(pk=first.pk).order_by("pk")]
    used = [r for r in retaliation if r["used"]]
    assert Stack.objects.filter(retaliation_used=True).count() == len(used)


def test_siege_units_damage_a_wall_hexside_from_across_it(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    wall = Fortification.objects.get(campaign=campaign, hex="I9", direction="N")
    stack = put(own_stack(p1), "I8")
    # The player's army has no siege unit: refused, nothing changes.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        fortification_besiege(user=p1.user, campaign=campaign, stack=stack, fortification=wall)
    assert info.value.code == "no_siege_units"
    spear_type = unit(p1, "Spearman 1").unit_type
    spear_type.specials = ["siege"]
    spear_type.save()
    event = fortification_besiege(user=p1.user, campaign=campaign, stack=stack,
                                  fortification=wall)
    wall.refresh_from_db()
    assert wall.hits == max(0, 15 - event.payload["damage"])
    assert [d["purpose"] for d in event.payload["dice"]] == [
        "siege: the N wall of I9 die 1", "siege: the N wall of I9 die 2"]


def test_repair_costs_one_pop_point_per_hit_and_only_the_holder_repairs(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    Membership.objects.filter(pk=p1.pk).update(pop_points=10)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        fortification_repair(user=p1.user, campaign=campaign, fortification=tower, hits=1)
    assert info.value.code == "not_holder"
    Fortification.objects.filter(pk=tower.pk).update(owner=p1.side, hits=12)
    fortification_repair(user=p1.user, campaign=campaign, fortification=tower, hits=5)
    tower.refresh_from_db()
    assert (tower.hits, str(Membership.objects.get(pk=p1.pk).pop_points)) == (17, "5.000")
    assert Event.objects.filter(kind="fortification_repaired").count() == 1
