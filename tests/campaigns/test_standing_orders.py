"""Standing orders: a player files what happens when they are late. The Chief Warlord, giving
their orders by proxy, keeps to "hold" and "no attacks"; a standing scout path is ordered at
the scout phase's close for a player who gave that scout none (and refused, with the reason,
when the rules say no); the Chief Warlord sees the orders where they act."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.errors import CampaignError
from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.games.erfworld.standing import standing_orders_set
from campaigns.models import Event, Phase, ScoutOrder, Stack, Unit
from tests.campaigns.engine_setup import (
    move_phase_campaign,
    opposition_stack,
    own_stack,
    put,
    unit,
)
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def _late(campaign):
    now = timezone.now()
    Phase.objects.filter(campaign=campaign, status="open").update(
        opened_at=now - timedelta(hours=80), deadline_at=now - timedelta(minutes=1))


def test_hold_keeps_the_chief_warlord_from_moving_or_fighting_for_a_late_player():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    standing_orders_set(user=p2.user, campaign=campaign, mode="hold", note="Wait for me")
    _late(campaign)
    stack = put(own_stack(p2), "D3")
    codes = []
    for order in (lambda: stack_move(user=chief.user, campaign=campaign, stack=stack,
                                     path=["C3"], on_behalf_of=p2),
                  lambda: stack_attack(user=chief.user, campaign=campaign, stack=stack,
                                       target=opposition_stack(campaign, "D4"),
                                       on_behalf_of=p2)):
        with pytest.raises(CampaignError) as info:
            order()
        codes.append(info.value.code)
    # The player themself is not bound by their own standing orders.
    moved = stack_move(user=p2.user, campaign=campaign, stack=stack, path=["C3"])
    assert (codes, moved.stack.hex) == (["standing_orders", "standing_orders"], "C3")


def test_no_attacks_lets_the_chief_warlord_move_but_not_attack():
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    standing_orders_set(user=p2.user, campaign=campaign, mode="no_attacks")
    _late(campaign)
    stack = put(own_stack(p2), "D3")
    with pytest.raises(CampaignError) as info:
        stack_attack(user=chief.user, campaign=campaign, stack=stack,
                     target=opposition_stack(campaign, "D4"), on_behalf_of=p2)
    moved = stack_move(user=chief.user, campaign=campaign, stack=stack, path=["C3"],
                       on_behalf_of=p2)
    assert (info.value.code, str(info.value), moved.stack.hex) == (
        "standing_orders",
        f"{p2.user.public_name}'s standing orders say no attacks: their stacks may move but "
        "not attack or besiege while someone else gives their orders.", "C3")


def test_a_standing_scout_path_is_ordered_at_the_close_for_a_player_who_gave_none():
    campaign, gm, (chief, p2, p3) = started_campaign_factory(players=3)
    scout2, scout3 = unit(p2, "Scout 1"), unit(p3, "Scout 1")
    standing_orders_set(user=p2.user, campaign=campaign, mode="", scout=scout2,
                        directions=["SE", "S"])
    standing_orders_set(user=p3.user, campaign=campaign, mode="", scout=scout3,
                        directions=["SE", "S"])
    # p3 gave an order of their own: the standing path does not replace it.
    scout_order_give(user=p3.user, campaign=campaign, scout=scout3, directions=["S"])
    phase = Phase.objects.get(campaign=campaign, status="open")
    phase_end(user=gm, campaign=campaign)
    orders = {o.scout_id: o.inspected_hexes for o in ScoutOrder.objects.filter(phase=phase)}
    applied = Event.objects.get(campaign=campaign, kind="standing_orders",
                                payload__applied=True)
    assert (orders, applied.summary) == (
        {scout2.pk: ["B1", "B2"], scout3.pk: ["A2"]},
        f"{p2.user.public_name} was late: by their standing orders Scout 1 inspects B1, B2.")


def test_a_standing_path_the_rules_refuse_is_not_ordered_and_the_alliance_is_told():
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    scout = unit(p2, "Scout 1")
    standing_orders_set(user=p2.user, campaign=campaign, mode="", scout=scout,
                        directions=["N"])  # off the map from A1
    phase = Phase.objects.get(campaign=campaign, status="open")
    phase_end(user=gm, campaign=campaign)
    refused = Event.objects.get(campaign=campaign, kind="standing_orders",
                                payload__applied=False)
    assert (ScoutOrder.objects.filter(phase=phase).count(),
            refused.summary.startswith(f"{p2.user.public_name}'s standing scout path for "
                                       "Scout 1 was not ordered: "),
            refused.side.kind) == (0, True, "alliance")


def test_bad_standing_orders_are_refused_with_the_rule_and_change_nothing(unchanged):
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    spear = unit(p2, "Spearman 1")
    scout = unit(p2, "Scout 1")
    other = unit(chief, "Scout 1")
    cases = [{"mode": "retreat"}, {"mode": "", "directions": ["SE"]},
             {"mode": "", "scout": spear, "directions": ["SE"]},
             {"mode": "", "scout": other, "directions": ["SE"]},
             {"mode": "", "scout": scout, "directions": ["UP"]},
             {"mode": "", "scout": scout, "directions": ["S"] * 7}]
    out = []
    for case in cases:
        with unchanged(campaign), pytest.raises(CampaignError) as info:
            standing_orders_set(user=p2.user, campaign=campaign, **case)
        out.append((info.value.code, getattr(info.value, "field", None)))
    assert out == [("invalid_field", "mode"), ("invalid_field", "scout"),
                   ("not_a_scout", "scout"), ("not_a_scout", "scout"),
                   ("invalid_field", "directions"), ("invalid_scout_path", "directions")]


def test_the_chief_warlord_sees_the_standing_orders_in_the_phase_bar_and_on_the_map(client):
    campaign, gm, (chief, p2) = move_phase_campaign(players=2)
    standing_orders_set(user=p2.user, campaign=campaign, mode="hold", note="Back Friday")
    _late(campaign)
    client.force_login(chief.user)
    bar = client.get(f"/campaigns/{campaign.pk}/phase-bar/").content.decode()
    response = client.get(f"/campaigns/{campaign.pk}/map/?on_behalf_of={p2.pk}")
    page = b"".join(response.streaming_content).decode()
    assert ("Standing orders: Hold: no moves, no attacks; note: Back Friday." in bar,
            "Their standing orders: Hold: no moves, no attacks; note: Back Friday." in page,
            Stack.objects.filter(units__owner=p2).exists(), Unit.objects.filter(
                owner=p2).exists()) == (True, True, True, True)


def test_the_overview_form_files_and_clears_standing_orders(client):
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    scout = unit(p2, "Scout 1")
    client.force_login(p2.user)
    url = f"/campaigns/{campaign.pk}/standing-orders/"
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    saved = client.post(url, {"mode": "no_attacks", "scout": scout.pk, "directions": "SE, S",
                              "note": ""}, follow=True).content.decode()
    p2.refresh_from_db()
    filed = (p2.standing_orders, p2.standing_scout_id, p2.standing_directions)
    bad = client.post(url, {"mode": "", "scout": scout.pk, "directions": "SE UP"})
    cleared = client.post(url, {"mode": "", "scout": "", "directions": ""}, follow=True)
    p2.refresh_from_db()
    assert ('data-key="standing-save"' in page, "Standing orders saved." in saved,
            "No attacks (moves allowed); Scout 1 scouts SE S." in saved, filed,
            bad.status_code, "&#x27;UP&#x27; is not one" in bad.content.decode(),
            "Standing orders cleared" in cleared.content.decode(),
            (p2.standing_orders, p2.standing_scout_id, p2.standing_directions)) == (
        True, True, True, ("no_attacks", scout.pk, ["SE", "S"]), 400, True, True,
        ("", None, []))
