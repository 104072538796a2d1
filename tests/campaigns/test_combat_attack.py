"""Attacks (§3), sieges, repairs (§4) through the services, with their reports and dice."""

import pytest

from campaigns.errors import CampaignError
from campaigns.games.erfworld.move_combat import (
    fortification_besiege,
    fortification_repair,
    stack_attack,
    stack_split,
)
from campaigns.models import DiceRoll, Event, Fortification, Membership, Stack, Unit
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
    first, second = Stack.objects.filter(campaign=campaign, hex="J10").order_by("created_seq", "pk")
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


def test_directed_hits_led_by_a_commander_cost_twice_the_target_s_hits():
    campaign, _, (p1,) = move_phase_campaign()
    Unit.objects.filter(pk=unit(p1, "Warlord 1").pk).update(commander_level=2)
    main = next_to_d4(campaign, p1)
    warlord = stack_split(user=p1.user, campaign=campaign, stack=main,
                          units=[unit(p1, "Warlord 1")])
    target = opposition_stack(campaign, "D4")
    archer = Unit.objects.get(stack=target, name="Archer 2")
    event = stack_attack(user=p1.user, campaign=campaign, stack=warlord, target=target,
                         directed_at=archer)
    # Warlord alone, rolls #1-#2 = 4+6: TA 5 × CB (1 + 0.2 + 0.1 Chief Warlord) 13/10 × RN
    # 9/10 × DF (8 − avgD 13/5 − TB 20/50)/8 = 5/8 → 3.65625 → 3 hits, all spent on Archer 2
    # at 2 per hit (it needs 2 × 3 = 6 to croak): it loses floor(3 / 2) = 1, keeps 2.
    assert event.payload["directed_at"] == archer.pk
    assert event.payload["result"]["hits_on_defender"] == 3
    assert "  hits directed at 'Archer 2' first" in event.payload["explanation"]
    assert list(Unit.objects.filter(stack=target).order_by("position")
                .values_list("name", "current_hits")) == [
        ("Spearman 1", 4), ("Spearman 2", 4), ("Spearman 3", 4), ("Archer 1", 3),
        ("Archer 2", 2)]
    assert event.payload["casualties"][-1] == {
        "unit": archer.pk, "name": "Archer 2", "hits_before": 3, "hits_after": 2,
        "croaked": False}


def test_directed_hits_croak_the_target_first_and_the_overflow_goes_in_stack_order():
    campaign, _, (p1,) = move_phase_campaign()
    Unit.objects.filter(pk=unit(p1, "Warlord 1").pk).update(commander_level=2)
    stack = next_to_d4(campaign, p1)
    target = opposition_stack(campaign, "D4")
    archer = Unit.objects.get(stack=target, name="Archer 2")
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack, target=target,
                         directed_at=archer)
    # Whole stack: TA 5 + 2 + 2 + 5 × 4 = 29 × 13/10 × 9/10 × 5/8 = 21.20625 → 21 hits.
    # Archer 2 takes 2 × 3 = 6 and croaks; the other 15 go in stack order: Spearmen 1-3
    # (4 + 4 + 4) and Archer 1 (3): the whole stack croaks.
    assert event.payload["result"]["hits_on_defender"] == 21
    lines = event.payload["explanation"]
    at = lines.index("  hits directed at 'Archer 2' first")
    assert lines[at + 1:at + 6] == [
        "  Spearman 1: loses 4 (croaked)", "  Spearman 2: loses 4 (croaked)",
        "  Spearman 3: loses 4 (croaked)", "  Archer 1: loses 3 (croaked)",
        "  Archer 2: loses 3 (croaked)"]
    assert Unit.objects.get(pk=archer.pk).current_hits == 0
    assert not Stack.objects.filter(pk=target.pk).exists()


def test_special_retaliation_from_another_stack_in_the_hex_is_recorded():
    campaign, _, (p1,) = move_phase_campaign()
    Unit.objects.filter(pk=unit(p1, "Warlord 1").pk).update(commander_level=2)
    stack = put(own_stack(p1), "J9")
    guard, spears = Stack.objects.filter(campaign=campaign, hex="J10").order_by("created_seq", "pk")
    Unit.objects.filter(stack=guard, commander_level__isnull=False).update(commander_level=2)
    # The retaliation die's purpose names the protecting stack ("stack <id>") and a die's value
    # derives from its purpose: give the protector a fixed id so that its roll is repeatable.
    protector = Stack.objects.create(pk=900_001, campaign=campaign, side=guard.side, hex="J10")
    Unit.objects.filter(stack=guard).update(stack=protector)
    guard.delete()
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack, target=spears)
    # Attacker (rolls #1-#2, 4+6): TA 29 × CB 13/10 × RN 9/10 × DF (8 − 3 − TB 1.4)/8 (tower 40
    # + N wall 30 = 70 hits × 0.02) → 15.2685 → 15 on the 6 Spearmen.
    # Defender (#3-#4, 1+2): TA 24 × RN 11/20 × DF (8 − 37/13)/8 = 67/104 → 8.50… → 8:
    # Warlord 1 (5) and Scout 1 (3) croak.
    # Protector (#5-#6, 3+3): a melee stack with a commander, SB 1/2: TA 5 + 6 × 4 + 3 = 32 ×
    # CB 1.2 × 1/2 × RN 7/10 × 67/104 = 2814/325 → 8.658… → 8: Scout 2 (3), Spearman 1 (4)
    # croak, Spearman 2 loses 1.
    assert event.payload["special_retaliation"] == [
        {"protector": "stack 900001", "used": True, "reason": "SB 0.5", "roll": [3, 3]}]
    assert ("  stack 900001 strikes attacker: roll 3+3; TA 32 × CB 1.2 × SB 0.5 × AB 1 × "
            "RN 0.7 × DF 67/104 = 2814/325 → 8 hits (DF = (8 − avgD 37/13 − TB 0) / 8)"
            ) in event.payload["explanation"]
    assert [(d["number"], d["purpose"], d["value"]) for d in event.payload["dice"][4:]] == [
        (5, "special retaliation: stack 900001 die 1", 3),
        (6, "special retaliation: stack 900001 die 2", 3)]
    result = event.payload["result"]
    # The retaliation is not part of the combat's own score (15 against 8).
    assert (result["hits_on_defender"], result["hits_on_attacker"], result["winner"]) == (
        15, 8, "attacker")
    assert {u.name: u.current_hits for u in Unit.objects.filter(owner=p1)
            if u.name in {"Warlord 1", "Scout 1", "Scout 2", "Spearman 1", "Spearman 2",
                          "Spearman 3"}} == {
        "Warlord 1": 0, "Scout 1": 0, "Scout 2": 0, "Spearman 1": 0, "Spearman 2": 3,
        "Spearman 3": 4}
    assert list(Stack.objects.filter(retaliation_used=True).values_list("pk", flat=True)) == [
        900_001]


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
