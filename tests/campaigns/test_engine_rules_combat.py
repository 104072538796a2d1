"""§2–§3 through the services, with the campaign's stored dice (seed 0…0, engine_setup.SEED).

Every expected number was found by running the action once and checked by hand against
hits = floor(TA × CB × SB × AB × RN × DF), RN = (2d6 + 8) / 20, DF = (8 − avgD − TB) / 8
(rules-erfworld.md §3); the arithmetic is written next to each assertion. Commander levels
are set by the test (they are rolled with the campaign's secret setup dice otherwise).

The Riders in C6 (woods, TB 1): 3 × H 4 A 5 D 2 M 3, TA 15, avgD 2. The first combat of the
phase takes rolls #1–#4: attacker 4+6 (RN 18/20 = 9/10), defender 1+2 (RN 11/20).
"""

import pytest

from accounts.models import NotificationKind
from campaigns.errors import CampaignError
from campaigns.games.erfworld import phase_end
from campaigns.games.erfworld.move_combat import (
    stack_attack,
    stack_move,
    stack_reorder,
    stack_split,
)
from campaigns.models import Notification, Stack, Unit, UnitType
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put, unit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def add_units(member, stack, name, count, **stats):
    """Units of a new type of the player's in `stack`, commanded this phase (set-up only)."""
    kind = UnitType.objects.create(campaign=member.campaign, side=member.side, owner=member,
                                   name=name, cost=0, **stats)
    return [
        Unit.objects.create(campaign=member.campaign, side=member.side, owner=member,
                            unit_type=kind, name=f"{name} {i}", current_hits=kind.hits,
                            was_commanded=True, stack=stack, position=i)
        for i in range(1, count + 1)
    ]


def hits(*units):
    return [Unit.objects.get(pk=u.pk).current_hits for u in units]


def riders(campaign):
    return list(Unit.objects.filter(campaign=campaign, name__startswith="Rider").order_by("name"))


def bowmen(campaign, p1):
    """4 ranged Bowmen (H 4 A 4 D 2 M 2) in B5 (woods), next to the Riders in C6."""
    stack = Stack.objects.create(campaign=campaign, side=p1.side, hex="B5")
    return stack, add_units(p1, stack, "Bowman", 4, hits=4, attack=4, defence=2, move=2,
                            specials=["ranged"])


def warlord_behind_scouts(campaign, p1, *, level, xp=0):
    """Scout 1, Scout 2 and the Warlord (the Chief Warlord, so CB has +0.1), in that order,
    in B5; the rest of the army stays in A1."""
    Unit.objects.filter(pk=unit(p1, "Warlord 1").pk).update(commander_level=level,
                                                            commander_xp=xp)
    main = own_stack(p1)
    order = [unit(p1, "Scout 1"), unit(p1, "Scout 2"), unit(p1, "Warlord 1")]
    stack = put(stack_split(user=p1.user, campaign=campaign, stack=main, units=order), "B5")
    stack_reorder(user=p1.user, campaign=campaign, stack=stack, order=order)
    return stack


# ---------------------------------------------------------------------------
# A flying stack in woods


def test_a_flying_stack_in_woods_is_attacked_by_ground_units_only_if_all_have_woods(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    UnitType.objects.filter(campaign=campaign, name="Rider").update(specials=["flying"])
    UnitType.objects.filter(owner=p1, name="Spearman").update(specials=["woods"])
    main = put(own_stack(p1), "B5")
    target = opposition_stack(campaign, "C6")
    # The Warlord and the Scouts have no woods capability: the whole stack is refused.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_attack(user=p1.user, campaign=campaign, stack=main, target=target)
    assert info.value.code == "flier_in_woods"
    assert "ground units can attack it only if all of them have the woods capability" in str(
        info.value)
    pair = stack_split(user=p1.user, campaign=campaign, stack=main,
                       units=[unit(p1, "Spearman 1"), unit(p1, "Spearman 2")])
    event = stack_attack(user=p1.user, campaign=campaign, stack=pair, target=target)
    # Spearmen: TA 8 × CB 1.1 (Chief Warlord in B5) × RN 9/10 × DF (8 − 2 − 0)/8 (the fliers
    # get no terrain bonus) = 5.94 → 5. Riders: TA 15 × RN 11/20 × DF (8 − 3)/8 = 5.15625 → 5.
    assert event.payload["result"]["attacker"]["factors"]["TB"]["exact"] == "0"
    assert (event.payload["result"]["hits_on_defender"],
            event.payload["result"]["hits_on_attacker"]) == (5, 5)
    assert [r.current_hits for r in riders(campaign)] == [0, 3, 4]
    assert hits(unit(p1, "Spearman 1"), unit(p1, "Spearman 2")) == [0, 3]
    assert event.payload["result"]["winner"] == "none"


# ---------------------------------------------------------------------------
# Withdraw, and moving after a fight


def test_a_ranged_attacker_withdraws_without_retaliation_then_moves_one_hex_only(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack, archers = bowmen(campaign, p1)
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack,
                         target=opposition_stack(campaign, "C6"), withdraw=True)
    # Ranged on melee: the Bowmen strike first. TA 16 × CB 1 × RN 9/10 × DF (8 − 2 − 1)/8
    # = 9 → 9 hits: Rider 1 and 2 croak (4 + 4), Rider 3 loses 1. They withdraw (M 2 left):
    # no strike back, so only rolls #1 and #2 are used.
    result = event.payload["result"]
    assert (event.payload["withdrew"], result["hits_on_defender"], result["hits_on_attacker"]) \
        == (True, 9, 0)
    assert result["defender"]["roll"] is None
    assert [d["number"] for d in event.payload["dice"]] == [1, 2]
    assert [r.current_hits for r in riders(campaign)] == [0, 0, 3]
    assert hits(*archers) == [4, 4, 4, 4]
    # It may move now, but only one adjacent hex: two hexes are refused though M 2 is left.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B4", "B3"])
    assert info.value.code == "after_combat"
    assert stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B4"]).cost == 1
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B3"])
    assert info.value.code == "after_combat"
    assert Stack.objects.get(pk=stack.pk).hex == "B4"


def test_a_withdraw_without_movement_left_is_struck_back():
    campaign, _, (p1,) = move_phase_campaign()
    stack, archers = bowmen(campaign, p1)
    Unit.objects.filter(stack=stack).update(movement_used=2)
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack,
                         target=opposition_stack(campaign, "C6"), withdraw=True)
    # Same first strike (9 hits: Rider 3 is left with 3). No movement left, so Rider 3
    # strikes back: TA 5 × RN 11/20 × DF (8 − 2)/8 = 2.0625 → 2 on Bowman 1.
    assert "withdraw declared but the attacker has no movement left" in event.payload[
        "explanation"]
    assert (event.payload["withdrew"], event.payload["result"]["hits_on_attacker"]) == (False, 2)
    assert hits(*archers) == [2, 4, 4, 4]


def test_after_a_melee_fight_a_stack_moves_into_one_adjacent_hex_then_not_again(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack = warlord_behind_scouts(campaign, p1, level=2)
    stack_attack(user=p1.user, campaign=campaign, stack=stack, target=opposition_stack(campaign, "C6"))
    assert Stack.objects.get(pk=stack.pk).fought
    # Scout 2 (M 4) and the Warlord (M 2) have used nothing, yet two hexes are refused.
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B4", "B3"])
    assert info.value.code == "after_combat"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, destination="B3")
    assert info.value.code == "after_combat"
    result = stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B4"])
    assert (result.path, result.cost) == (["B5", "B4"], 1)
    assert Stack.objects.get(pk=stack.pk).moved_after_fighting
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B3"])
    assert info.value.code == "after_combat"
    assert "already made its one-hex move after fighting" in str(info.value)


# ---------------------------------------------------------------------------
# XP and level-ups


def test_a_commander_of_the_winning_stack_gains_xp_and_levels_up_from_3_to_4():
    campaign, _, (p1,) = move_phase_campaign()
    stack = warlord_behind_scouts(campaign, p1, level=3, xp=3)
    warlord = unit(p1, "Warlord 1")
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack,
                         target=opposition_stack(campaign, "C6"))
    # Attacker: TA 2 + 2 + 5 = 9 × CB (1 + 0.3 + 0.1 Chief Warlord) 1.4 × RN 9/10 × DF
    # (8 − 2 − 1)/8 = 7.0875 → 7: Rider 1 croaks, Rider 2 keeps 1.
    # Defender: TA 15 × RN 11/20 × DF (8 − 7/3)/8 = 17/24 → 5.84375 → 5: Scout 1 croaks (3),
    # Scout 2 keeps 1, the Warlord (last) is untouched. 7 > 5: the attacker wins.
    result = event.payload["result"]
    assert (result["hits_on_defender"], result["hits_on_attacker"], result["winner"]) == (
        7, 5, "attacker")
    assert result["attacker"]["factors"]["CB"]["exact"] == "7/5"
    assert [r.current_hits for r in riders(campaign)] == [0, 1, 4]
    assert hits(unit(p1, "Scout 1"), unit(p1, "Scout 2"), warlord) == [0, 1, 5]
    # 3 XP + 1 = 4 = what level 3 needs: level 4, XP back to 0.
    warlord.refresh_from_db()
    assert (warlord.commander_level, warlord.commander_xp) == (4, 0)
    assert event.payload["level_ups"] == ["Warlord 1 reaches commander level 4"]


def test_a_winning_commander_below_the_next_level_only_gains_1_xp():
    campaign, _, (p1,) = move_phase_campaign()
    stack = warlord_behind_scouts(campaign, p1, level=3, xp=0)
    stack_attack(user=p1.user, campaign=campaign, stack=stack, target=opposition_stack(campaign, "C6"))
    # The same combat as above (7 hits against 5): the attacker wins.
    warlord = unit(p1, "Warlord 1")
    assert (warlord.commander_level, warlord.commander_xp) == (3, 1)


# ---------------------------------------------------------------------------
# The defender's combat count (SB)


def test_the_defender_sb_halves_on_its_second_counted_defence_and_a_wipe_out_does_not_count():
    campaign, _, (p1,) = move_phase_campaign()
    main = put(own_stack(p1), "B5")  # the Chief Warlord is in B5: CB 1.1 for every stack
    scout = stack_split(user=p1.user, campaign=campaign, stack=main, units=[unit(p1, "Scout 1")])
    four = stack_split(user=p1.user, campaign=campaign, stack=main,
                       units=[unit(p1, f"Spearman {i}") for i in range(1, 5)])
    one = stack_split(user=p1.user, campaign=campaign, stack=main, units=[unit(p1, "Spearman 5")])
    target = opposition_stack(campaign, "C6")

    # 1. Scout alone, rolls #1–#4. Scout: TA 2 × 1.1 × 9/10 × 5/8 = 1.2375 → 1 (Rider 1: 3).
    # Riders: TA 15 × SB 1 × 11/20 × (8 − 2)/8 = 6.1875 → 6 ≥ the Scout's 3: wiped out, so
    # this defence does not count.
    first = stack_attack(user=p1.user, campaign=campaign, stack=scout, target=target)
    assert (first.payload["result"]["hits_on_defender"],
            first.payload["result"]["hits_on_attacker"]) == (1, 6)
    assert first.payload["result"]["defender"]["factors"]["SB"]["exact"] == "1"
    assert first.payload["counts_for_defender"] is False
    assert not Stack.objects.filter(pk=scout.pk).exists()
    assert Stack.objects.get(pk=target.pk).defender_combats == 0

    # 2. Four Spearmen, rolls #5–#8: attacker 5+2 (RN 3/4), defender 3+2 (RN 13/20).
    # Spearmen: TA 16 × 1.1 × 3/4 × 5/8 = 8.25 → 8: Rider 1 (3) and Rider 2 (4) croak, Rider 3
    # keeps 3. Riders, still SB 1 (their 1st counted defence): TA 15 × 13/20 × (8 − 3)/8
    # = 6.09375 → 6: Spearman 1 croaks, Spearman 2 keeps 2.
    second = stack_attack(user=p1.user, campaign=campaign, stack=four, target=target)
    assert second.payload["result"]["defender"]["factors"]["SB"]["exact"] == "1"
    assert (second.payload["result"]["hits_on_defender"],
            second.payload["result"]["hits_on_attacker"]) == (8, 6)
    assert Stack.objects.get(pk=target.pk).defender_combats == 1

    # 3. Spearman 5 alone, rolls #9–#12: attacker 1+4 (RN 13/20), defender 5+2 (RN 3/4).
    # Spearman: TA 4 × 1.1 × 13/20 × 5/8 = 1.7875 → 1 (Rider 3: 2). Rider 3, 2nd counted
    # defence, SB 1/2: TA 5 × 1/2 × 3/4 × 5/8 = 1.171875 → 1 (Spearman 5: 3).
    third = stack_attack(user=p1.user, campaign=campaign, stack=one, target=target)
    assert third.payload["result"]["defender"]["factors"]["SB"]["exact"] == "1/2"
    assert (third.payload["result"]["hits_on_defender"],
            third.payload["result"]["hits_on_attacker"]) == (1, 1)
    assert [r.current_hits for r in riders(campaign)] == [0, 0, 2]
    assert hits(*[unit(p1, f"Spearman {i}") for i in (1, 2, 5)]) == [0, 2, 3]
    assert Stack.objects.get(pk=target.pk).defender_combats == 2


# ---------------------------------------------------------------------------
# Notifications


def test_combat_notifies_with_the_combat_kind_and_the_phase_close_with_phase_closed():
    campaign, gm, (p1,) = move_phase_campaign()
    stack, _ = bowmen(campaign, p1)
    event = stack_attack(user=p1.user, campaign=campaign, stack=stack,
                         target=opposition_stack(campaign, "C6"), withdraw=True)
    assert sorted(Notification.objects.filter(event=event).values_list("user", "kind")) == sorted(
        [(p1.user.pk, NotificationKind.COMBAT), (gm.pk, NotificationKind.COMBAT)])
    phase_end(user=gm, campaign=campaign)
    closed = Notification.objects.filter(kind=NotificationKind.PHASE_CLOSED, event__kind="phase_closed")
    assert sorted(closed.values_list("user", flat=True)) == sorted([p1.user.pk, gm.pk])
    # The Riders struck in C6 heal; the alliance is told only of its own units.
    assert dict(closed.values_list("user", "message")) == {
        p1.user.pk: "Turn 1: the alliance move/combat phase is closed; its dice seed is "
        "revealed. Healing: no unit of your side had partial hits.",
        gm.pk: "Turn 1: the alliance move/combat phase is closed; its dice seed is revealed. "
        "Healing: 1 unit with partial hits is restored to full."}
