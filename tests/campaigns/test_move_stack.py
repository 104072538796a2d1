"""Moving, splitting, merging and reordering stacks (§2), ambushes (§3), captures (§4)."""

import pytest

from campaigns.errors import CampaignError
from campaigns.games.erfworld.move_combat import (
    stack_move,
    stack_reorder,
    stack_split,
    stacks_merge,
    units_mount,
)
from campaigns.models import Event, Fortification, Sighting, Stack, Unit, UnitType
from tests.campaigns.engine_setup import (
    move_phase_campaign,
    open_phase,
    opposition_stack,
    own_stack,
    put,
    unit,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def spearmen(member, n=2):
    return [unit(member, f"Spearman {i}") for i in range(1, n + 1)]


def test_a_stack_moves_along_a_road_path_and_the_move_is_recorded_for_its_side():
    campaign, _, (p1,) = move_phase_campaign()
    warlord_and_scouts = stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1),
                                     units=spearmen(p1, 10))
    stack = own_stack(p1)
    result = stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B1", "B2"])
    assert (result.path, result.cost, result.ambushed) == (["A1", "B1", "B2"], 2, False)
    assert Stack.objects.get(pk=stack.pk).hex == "B2"
    assert Unit.objects.get(pk=unit(p1, "Warlord 1").pk).movement_used == 2
    event = Event.objects.get(kind="stack_moved")
    assert (event.side.kind, event.payload["path"]) == ("alliance", ["A1", "B1", "B2"])
    assert warlord_and_scouts.hex == "A1"


def test_infantry_gets_the_road_bonus_only_on_a_move_wholly_on_road(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    infantry = stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1),
                           units=spearmen(p1, 2))
    stack_move(user=p1.user, campaign=campaign, stack=infantry, path=["B1"])
    # Move 1 + road bonus 1: a second road hex in a later action.
    stack_move(user=p1.user, campaign=campaign, stack=infantry, path=["B2"])
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=infantry, path=["C3"])
    assert info.value.code == "out_of_reach"


def test_a_destination_takes_the_cheapest_path():
    campaign, _, (p1,) = move_phase_campaign()
    stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1), units=spearmen(p1, 10))
    result = stack_move(user=p1.user, campaign=campaign, stack=own_stack(p1), destination="B2")
    assert (result.path, result.cost) == (["A1", "B1", "B2"], 2)


def test_a_unit_no_commander_reached_cannot_move_until_one_passes_through(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    lone = stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1),
                       units=spearmen(p1, 1))
    put(lone, "A2")
    Unit.objects.filter(stack=lone).update(was_commanded=False)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=lone, path=["A3"])
    assert info.value.code == "command_rule"
    assert "no commander of its side has been in its hex" in str(info.value)
    commander = stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1),
                            units=[unit(p1, "Warlord 1")])
    stack_move(user=p1.user, campaign=campaign, stack=commander, path=["A2", "A3"])
    assert stack_move(user=p1.user, campaign=campaign, stack=lone, path=["B2"]).cost == 1


def test_a_wall_with_hits_cannot_be_crossed(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    Stack.objects.filter(campaign=campaign, hex="I9").delete()
    stack = put(own_stack(p1), "I8")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["I9"])
    assert info.value.code == "wall"


def test_a_known_enemy_hex_cannot_be_entered_and_an_unscouted_one_is_an_ambush(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    Unit.objects.filter(pk=unit(p1, "Warlord 1").pk).update(commander_level=1)
    stack = put(own_stack(p1), "B5")  # next to the Riders in C6 (woods)
    # Woods cost these Move 1 units 1 with the woods capability: the move is legal.
    for kind in UnitType.objects.filter(owner=p1):
        kind.specials = [*kind.specials, "woods"]
        kind.save(update_fields=["specials"])
    result = stack_move(user=p1.user, campaign=campaign, stack=stack, path=["C6"])
    assert (result.ambushed, result.path) == (True, ["B5"])
    ambush = Event.objects.get(kind="ambush")
    assert ambush.side is None and ambush.payload["hex"] == "C6"
    assert [d["purpose"] for d in ambush.payload["dice"]][:2] == [
        "combat: attacker die 1", "combat: attacker die 2"]
    assert ambush.payload["result"]["attacker"]["factors"]["AB"]["exact"] == "2"
    # Riders (rolls 4+6): TA 15 × AB 2 × RN 9/10 × DF (8 − 37/13 − TB 1 woods)/8 = 27/52
    # → 14.01… → 14: Warlord 1 (5), Scout 1 (3), Scout 2 (3) croak, Spearman 1 keeps 1.
    # The stopped stack strikes back (1+2): TA 29 × CB (1 + 0.1 + 0.1 Chief Warlord) 6/5 ×
    # RN 11/20 × DF (8 − 2)/8 = 14.355 → 14: the 3 Riders (12 hits) croak.
    assert (ambush.payload["result"]["hits_on_defender"],
            ambush.payload["result"]["hits_on_attacker"]) == (14, 14)
    assert opposition_stack(campaign, "C6") is None
    assert Stack.objects.get(pk=stack.pk).hex == "B5"
    # A hex the alliance sighted this turn is known: entering it is refused, not an ambush.
    phase = open_phase(campaign)
    Sighting.objects.create(campaign=campaign, side=p1.side, hex="D4", turn=phase.turn,
                            phase=phase, seen={})
    assert list(Unit.objects.filter(stack=stack).order_by("position").values_list(
        "name", "current_hits"))[:2] == [("Spearman 1", 1), ("Spearman 2", 4)]
    spear = put(stack_split(user=p1.user, campaign=campaign, stack=stack,
                            units=[unit(p1, "Spearman 10")]), "D3")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=spear, path=["D4"])
    assert info.value.code == "enemy_hex"


def test_entering_an_opposition_tower_costs_all_movement_and_captures_it(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    Stack.objects.filter(campaign=campaign, hex="D4").delete()
    stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1), units=spearmen(p1, 10))
    stack = put(own_stack(p1), "D3")
    result = stack_move(user=p1.user, campaign=campaign, stack=stack, path=["D4"])
    assert result.cost == 2
    assert set(Fortification.objects.filter(hex="D4").values_list("owner__kind", flat=True)) == {
        "alliance"}
    assert Event.objects.filter(kind="fortification_captured", payload__hex="D4").count() == 1


def test_split_merge_and_reorder_keep_the_stack_order():
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    new = stack_split(user=p1.user, campaign=campaign, stack=stack, units=spearmen(p1, 2))
    assert list(Unit.objects.filter(stack=new).order_by("position").values_list(
        "name", flat=True)) == ["Spearman 1", "Spearman 2"]
    stack_reorder(user=p1.user, campaign=campaign, stack=new, order=spearmen(p1, 2)[::-1])
    assert list(Unit.objects.filter(stack=new).order_by("position").values_list(
        "name", flat=True)) == ["Spearman 2", "Spearman 1"]
    merged = stacks_merge(user=p1.user, campaign=campaign, stacks=[stack, new])
    names = list(Unit.objects.filter(stack=merged).order_by("position").values_list(
        "name", flat=True))
    assert names[-2:] == ["Spearman 2", "Spearman 1"] and len(names) == 13
    assert not Stack.objects.filter(pk=new.pk).exists()


def test_merging_stacks_in_different_hexes_is_refused(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    new = put(stack_split(user=p1.user, campaign=campaign, stack=stack,
                          units=spearmen(p1, 1)), "A2")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stacks_merge(user=p1.user, campaign=campaign, stacks=[stack, new])
    assert info.value.code == "not_same_hex"


def test_a_mount_must_carry_twice_the_riders_hits(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        units_mount(user=p1.user, campaign=campaign, riders=[unit(p1, "Spearman 1")],
                    mount=unit(p1, "Spearman 2"))
    assert info.value.code == "mount_rule"
    assert "twice the riders' starting hits" in str(info.value)


def test_another_players_stack_cannot_be_moved(unchanged):
    campaign, _, (p1, p2) = move_phase_campaign(players=2)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p2.user, campaign=campaign, stack=own_stack(p1), path=["B1"])
    assert info.value.code == "not_your_unit"


def test_the_garrison_never_moves(unchanged):
    from campaigns.games.erfworld import phase_end

    campaign, gm, (p1,) = move_phase_campaign()
    phase_end(user=gm, campaign=campaign)  # the opposition phase
    gatekeepers = opposition_stack(campaign, "J10")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=gm, campaign=campaign, stack=gatekeepers, path=["J11"])
    assert info.value.code == "garrison"


def test_stacks_move_only_in_the_move_phases(unchanged):
    from tests.factories import started_campaign_factory

    campaign, _, (p1,) = started_campaign_factory(players=1)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=own_stack(p1), path=["B1"])
    assert info.value.code == "not_move_phase"


def test_an_illegal_move_into_a_hidden_enemy_is_refused_like_one_into_an_empty_hex(unchanged):
    """No oracle: a move the rules refuse (here woods cost 2, 1 movement left) is refused
    with the same sentence whether or not a hidden enemy waits there, and no ambush reveals
    it."""
    campaign, _, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "B5")  # C6 (woods) holds the hidden Riders
    with unchanged(campaign), pytest.raises(CampaignError) as hidden:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["C6"])
    Stack.objects.filter(campaign=campaign, hex="C6").delete()
    with unchanged(campaign), pytest.raises(CampaignError) as empty:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["C6"])
    assert (hidden.value.code, hidden.value.message) == (empty.value.code, empty.value.message)
    assert hidden.value.message == ("Entering C6 (woods) costs 2 movement for infantry, but "
                                    "only 1 is left (§2 terrain costs).")
    assert Event.objects.filter(kind="ambush").count() == 0


def test_a_move_through_a_wall_toward_a_hidden_enemy_is_refused_before_the_ambush(unchanged):
    campaign, _, (p1,) = move_phase_campaign()
    stack = put(own_stack(p1), "I8")  # I9 holds hidden Spearmen behind its intact N wall
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["I9"])
    assert (info.value.code, Event.objects.filter(kind="ambush").count()) == ("wall", 0)


def test_consecutive_reorders_of_one_stack_are_one_event():
    campaign, _, (p1,) = move_phase_campaign()
    stack = own_stack(p1)
    new = stack_split(user=p1.user, campaign=campaign, stack=stack, units=spearmen(p1, 3))
    order = spearmen(p1, 3)
    for again in (order[::-1], order[1:] + order[:1], order):
        stack_reorder(user=p1.user, campaign=campaign, stack=new, order=again)
    merged = Event.objects.get(kind="stack_reordered")
    stack_move(user=p1.user, campaign=campaign, stack=new, path=["B1"])
    stack_reorder(user=p1.user, campaign=campaign, stack=new, order=order[::-1])
    assert (merged.payload["reorders"], merged.payload["order"], merged.summary,
            Event.objects.filter(kind="stack_reordered").count()) == (
        3, [u.pk for u in order],
        f"{p1.user.public_name} reordered the stack in A1: Spearman 1, Spearman 2, Spearman 3.",
        2)
