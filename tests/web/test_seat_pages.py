"""Leaving, removal and open seats in the pages: the overview's Leave and Remove forms, the
members table's line for a former player, the GM's "Fill the open seats" with the invite
link, the invite page's "Take the open seat", and the phase bar's orders for an open seat."""

import pytest

from campaigns.games.erfworld import phase_end
from campaigns.models import Event, Membership, Role, Unit
from campaigns.services.seats import player_leave
from tests.factories import (
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)

pytestmark = pytest.mark.django_db


def test_leaving_needs_the_box_ticked_and_before_the_start_sends_the_player_home(client):
    campaign = campaign_factory()
    p1 = player_factory(campaign=campaign)
    army_factory(membership=p1)
    client.force_login(p1.user)
    refused = client.post(f"/campaigns/{campaign.pk}/leave/")
    left = client.post(f"/campaigns/{campaign.pk}/leave/", {"confirm": "yes"})
    assert (refused.status_code, "Tick the box to confirm that you leave the campaign."
            in refused.content.decode(), left.status_code, left["Location"],
            Membership.objects.filter(pk=p1.pk).exists()) == (400, True, 302, "/", False)


def test_after_the_start_the_overview_shows_the_open_seat_to_everyone(client):
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    client.force_login(p2.user)
    client.post(f"/campaigns/{campaign.pk}/leave/", {"confirm": "yes"})
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    client.force_login(gm)
    gm_page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    p2.refresh_from_db()
    assert (p2.role, "seat open (the Chief Warlord commands it)" in page,
            'data-key="leave"' in page, "Fill the open seats" in gm_page,
            f"Open: {p2.user.public_name}'s seat." in gm_page,
            f"/campaigns/join/{campaign.invite_code}/" in gm_page) == (
        Role.FORMER, True, False, True, True, True)


def test_the_gm_removes_a_player_from_the_overview_with_a_reason(client):
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    client.force_login(gm)
    refused = client.post(f"/campaigns/{campaign.pk}/remove-player/",
                          {"membership": p2.pk, "reason": ""})
    done = client.post(f"/campaigns/{campaign.pk}/remove-player/",
                       {"membership": p2.pk, "reason": "Left the group"}, follow=True)
    text = done.content.decode()
    assert (refused.status_code, "Say why the player is removed" in refused.content.decode(),
            f"{p2.user.public_name} was removed. Their seat is open" in text,
            "removed by the GM" in text and "Left the group" in text) == (400, True, True, True)


def test_the_invite_page_offers_the_open_seat_and_a_newcomer_takes_it(client):
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    units = Unit.objects.filter(owner=p2, current_hits__gt=0).count()
    url = f"/campaigns/join/{campaign.invite_code}/"
    newcomer = UserFactory(username="newcomer")
    client.force_login(newcomer)
    none_open = client.get(url).content.decode()
    player_leave(user=p2.user, campaign=campaign)
    offer = client.get(url).content.decode()
    taken = client.post(url, {"seat": p2.pk}, follow=True)
    holder = Membership.objects.get(campaign=campaign, user=newcomer)
    again = client.post(url, {"seat": p2.pk})
    assert ("no seat is open" in none_open,
            f'data-key="take-seat-{p2.pk}"' in offer,
            f"Take the open seat of {p2.user.public_name}</button>" in offer,
            f"({units} units on the map or waiting to pop)" in offer,
            "You took over a seat in" in taken.content.decode(),
            Unit.objects.filter(owner=holder).count() > 0, again.status_code) == (
        True, True, True, True, True, True, 302)


def test_the_chief_warlord_is_offered_orders_for_an_open_seat(client):
    campaign, gm, (chief, p2) = started_campaign_factory(players=2)
    phase_end(user=gm, campaign=campaign)
    player_leave(user=p2.user, campaign=campaign)
    client.force_login(chief.user)
    bar = client.get(f"/campaigns/{campaign.pk}/phase-bar/").content.decode()
    assert (f"{p2.user.public_name}'s seat is open:" in bar,
            f"?on_behalf_of={p2.pk}" in bar, f"Mark {p2.user.public_name} done" in bar,
            Event.objects.filter(campaign=campaign, kind="player_left").count()) == (
        True, True, False, 1)
