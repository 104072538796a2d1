"""A full turn: move/combat closes with healing, the opposition phase, the next turn with
pops placed and a snapshot; victory both ways; GM revert and hit adjustments; history."""

import pytest

from campaigns.errors import CampaignError
from campaigns.games.erfworld import orders_mark_done, phase_end
from campaigns.games.erfworld.army import army_points_spent
from campaigns.games.erfworld.gm_tools import (
    fortification_adjust_hits,
    phase_revert,
    unit_adjust_hits,
)
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.games.erfworld.turns import pop_points_grant, pop_points_share, pops_buy
from campaigns.models import Event, Fortification, Membership, Phase, Stack, Unit
from campaigns.selectors import campaign_game_state, phase_history
from rules.erfworld.units import format_fraction
from tests.campaigns.engine_setup import (
    move_phase_campaign,
    open_phase,
    opposition_stack,
    own_stack,
    put,
    unit,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def test_a_full_turn_heals_opens_the_opposition_phase_then_the_next_turn_with_pops():
    campaign, gm, (p1,) = move_phase_campaign()
    spear = unit(p1, "Spearman 1")
    Unit.objects.filter(pk=spear.pk).update(current_hits=1)
    pop_points_grant(user=gm, campaign=campaign, points=20)
    pop_points_share(user=p1.user, campaign=campaign, shares={p1.pk: 15})
    popped = pops_buy(user=p1.user, campaign=campaign, unit_type=spear.unit_type, count=2,
                      hex="B10")
    assert str(Membership.objects.get(pk=p1.pk).pop_points) == "0.000"  # 15 − 2 × 7.5
    orders_mark_done(user=p1.user, campaign=campaign)
    phase_end(user=p1.user, campaign=campaign)
    assert Unit.objects.get(pk=spear.pk).current_hits == 4
    assert Event.objects.get(kind="healing").payload["healed"][0]["restored"] == 3
    assert open_phase(campaign).kind == "opposition"
    with pytest.raises(CampaignError) as info:
        phase_end(user=p1.user, campaign=campaign)
    assert info.value.code == "gm_only"
    phase_end(user=gm, campaign=campaign)
    phase = open_phase(campaign)
    assert (phase.kind, phase.turn.number) == ("scout", 2)
    placed = Unit.objects.filter(pk__in=[u.pk for u in popped])
    assert {u.stack.hex for u in placed} == {"B10"}
    snapshot = phase.snapshot.state
    assert any(s["hex"] == "B10" for s in snapshot["stacks"])


def test_pops_of_another_type_or_hex_are_refused(unchanged):
    campaign, gm, (p1,) = move_phase_campaign()
    Membership.objects.filter(pk=p1.pk).update(pop_points=100)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        pops_buy(user=p1.user, campaign=campaign, unit_type=unit(p1, "Spearman 1").unit_type,
                 count=1, hex="C3")
    assert info.value.code == "not_a_pop_hex"


def test_sharing_more_than_granted_is_refused(unchanged):
    campaign, gm, (p1,) = move_phase_campaign()
    pop_points_grant(user=gm, campaign=campaign, points=5)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        pop_points_share(user=p1.user, campaign=campaign, shares={p1.pk: 6})
    assert info.value.code == "over_shared"


def test_the_alliance_wins_when_it_holds_j10_and_the_campaign_is_read_only(unchanged):
    campaign, gm, (p1,) = move_phase_campaign()
    Stack.objects.filter(campaign=campaign, hex="J10").delete()
    Fortification.objects.filter(campaign=campaign, hex="J10").update(hits=0)
    stack = put(own_stack(p1), "I10")
    stack_move(user=p1.user, campaign=campaign, stack=stack, path=["J10"])
    campaign.refresh_from_db()
    assert (campaign.status, campaign.winner) == ("finished", "alliance")
    assert not Phase.objects.filter(campaign=campaign, status="open").exists()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        stack_move(user=p1.user, campaign=campaign, stack=stack, path=["J11"])
    assert info.value.code == "campaign_finished"


def test_the_opposition_wins_when_no_alliance_unit_is_left():
    campaign, gm, (p1,) = move_phase_campaign()
    for u in Unit.objects.filter(owner=p1).order_by("created_seq", "pk"):
        unit_adjust_hits(user=gm, unit=u, hits=0, reason="test")
    campaign.refresh_from_db()
    assert (campaign.status, campaign.winner) == ("finished", "opposition")
    assert Event.objects.filter(kind="campaign_finished").count() == 1


def test_revert_restores_the_phase_opening_exactly():
    campaign, gm, (p1,) = move_phase_campaign()
    before = campaign_game_state(campaign=campaign)
    stack = put(own_stack(p1), "D3")
    Stack.objects.filter(pk=stack.pk).update(hex="A1")
    stack.refresh_from_db()
    stack_move(user=p1.user, campaign=campaign, stack=stack, path=["B1"])
    put(stack, "D3")
    stack_attack(user=p1.user, campaign=campaign, stack=stack,
                 target=opposition_stack(campaign, "D4"))
    fortification_adjust_hits(user=gm, fortification=Fortification.objects.get(
        campaign=campaign, hex="D4", kind="tower"), hits=3, reason="earthquake")
    phase_revert(user=gm, campaign=campaign, reason="a misclick")
    campaign.refresh_from_db()
    after = campaign_game_state(campaign=campaign)
    for key in ("stacks", "fortifications", "memberships", "restore"):
        assert after[key] == before[key], key
    event = Event.objects.get(kind="phase_reverted")
    assert event.payload["reason"] == "a misclick"


def test_an_overrule_needs_a_reason_and_hits_within_the_unit(unchanged):
    campaign, gm, (p1,) = move_phase_campaign()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_adjust_hits(user=gm, unit=unit(p1, "Spearman 1"), hits=2, reason=" ")
    assert info.value.code == "reason_required"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_adjust_hits(user=gm, unit=unit(p1, "Spearman 1"), hits=9, reason="x")
    assert info.value.code == "invalid_field"
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_adjust_hits(user=p1.user, unit=unit(p1, "Spearman 1"), hits=2, reason="x")
    assert info.value.code == "gm_only"


def test_the_snapshot_of_a_past_phase_reads_back():
    campaign, gm, (p1,) = move_phase_campaign()
    phase = open_phase(campaign)
    state_then = campaign_game_state(campaign=campaign)
    stack_move(user=p1.user, campaign=campaign, stack=own_stack(p1), path=["B1"])
    phase_end(user=gm, campaign=campaign)
    history = phase_history(user=gm, phase=phase)
    assert history["stacks"] == state_then["stacks"]
    assert history["phase"]["kind"] == "move_combat"
    mine = phase_history(user=p1.user, phase=phase)
    assert {s["side"] for s in mine["stacks"]} == {"alliance"}


def test_the_phase_closed_notification_counts_only_what_each_reader_may_know():
    """A hidden opposition unit healed is not in the alliance's message (it once read
    "Healing: 1 units with partial hits are restored" for a unit it had never seen)."""
    from campaigns.models import Notification

    campaign, gm, (p1,) = move_phase_campaign()
    hidden = Unit.objects.filter(campaign=campaign, side__kind="opposition").order_by("created_seq", "pk")[0]
    Unit.objects.filter(pk=hidden.pk).update(current_hits=1)
    phase_end(user=gm, campaign=campaign)
    messages = {n.user_id: n.message for n in Notification.objects.filter(
        campaign=campaign, kind="phase_closed")}
    assert messages == {
        p1.user_id: "Turn 1: the alliance move/combat phase is closed; its dice seed is "
        "revealed. Healing: no unit of your side had partial hits.",
        gm.pk: "Turn 1: the alliance move/combat phase is closed; its dice seed is revealed. "
        "Healing: 1 unit with partial hits is restored to full.",
    }


def test_pops_are_paid_with_pop_points_not_from_the_army_budget(client):
    campaign, gm, (p1,) = move_phase_campaign()
    spear = unit(p1, "Spearman 1")
    spent_before = army_points_spent(p1)
    pop_points_grant(user=gm, campaign=campaign, points=20)
    pop_points_share(user=p1.user, campaign=campaign, shares={p1.pk: 15})
    popped = pops_buy(user=p1.user, campaign=campaign, unit_type=spear.unit_type, count=2,
                      hex="B10")
    client.force_login(p1.user)
    army = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    names = [u.name for u in popped]
    assert ([u.popped for u in Unit.objects.filter(pk__in=[u.pk for u in popped])],
            army_points_spent(p1), f"{names[0]} (pop)" in army,
            f"Spent <strong>{format_fraction(spent_before)}</strong>" in army) == (
        [True, True], spent_before, True, True)
