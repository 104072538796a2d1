"""The home page: my campaigns, the live deadline in my zone, and what I must do now."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.timefmt import format_local
from campaigns.games.erfworld import chief_warlord_vote, orders_mark_done, phase_end
from campaigns.models import Event, Phase, PhaseStatus
from tests.factories import (
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)

pytestmark = pytest.mark.django_db


def _home(client, user):
    client.force_login(user)
    return client.get(reverse("home")).content.decode()


def _open_phase(campaign):
    return Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)


def _make_late(campaign):
    phase = _open_phase(campaign)
    Phase.objects.filter(pk=phase.pk).update(
        opened_at=phase.opened_at - timedelta(hours=200),
        deadline_at=timezone.now() - timedelta(hours=1),
    )


def test_home_anonymous_shows_the_welcome(client):
    page = client.get(reverse("home")).content.decode()
    assert '<a href="/accounts/login/">Log in</a> or <a href="/accounts/signup/">sign up</a>' in page
    assert "My campaigns" not in page


def test_home_without_campaigns(client):
    assert "You are in no campaign yet." in _home(client, UserFactory())


def test_home_lists_only_my_campaigns(client):
    mine = campaign_factory(name="Mine")
    campaign_factory(name="Not mine")
    member = player_factory(campaign=mine)
    page = _home(client, member.user)
    assert f'<a href="/campaigns/{mine.pk}/">Mine</a>' in page
    assert "Not mine" not in page


def test_home_setup_player_without_types_must_design_and_vote(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    page = _home(client, member.user)
    assert "<li>Design your army: no unit type yet.</li>" in page
    assert "<li>Vote for the Chief Warlord.</li>" in page


def test_home_setup_player_with_types_must_mark_ready(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member, ready=False)
    assert "<li>Design your army and mark it ready.</li>" in _home(client, member.user)


def test_home_setup_player_ready_and_voted_waits_for_the_gm(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member)
    chief_warlord_vote(user=member.user, campaign=campaign, candidate=member)
    page = _home(client, member.user)
    assert "<li>Nothing to do: waiting for the GM to start the campaign.</li>" in page


def test_home_gm_without_players_must_invite(client):
    gm = UserFactory(is_staff=True)
    campaign_factory(gm=gm)
    assert "<li>Invite players: nobody has joined yet.</li>" in _home(client, gm)


def test_home_gm_waits_for_armies(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    player_factory(campaign=campaign, user=UserFactory(display_name="Jillian"))
    assert "<li>Waiting for armies: Jillian.</li>" in _home(client, gm)


def test_home_gm_must_start_when_everything_is_ready(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    member = player_factory(campaign=campaign)
    army_factory(membership=member)
    chief_warlord_vote(user=member.user, campaign=campaign, candidate=member)
    assert "<li>Every army is ready: start the campaign.</li>" in _home(client, gm)


def test_home_gm_is_told_a_tie_goes_to_a_die_unless_they_appoint(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    a, b = player_factory(campaign=campaign), player_factory(campaign=campaign)
    chief_warlord_vote(user=a.user, campaign=campaign, candidate=b)
    chief_warlord_vote(user=b.user, campaign=campaign, candidate=a)
    assert ("<li>The Chief Warlord vote is tied: appoint one, or a setup die decides when you "
            "close the election or start.</li>") in _home(client, gm)


def test_home_scout_phase_player_must_give_scout_orders(client):
    campaign, _, members = started_campaign_factory(players=2)
    page = _home(client, members[1].user)
    assert "<li>Give your scout orders and mark them done.</li>" in page


def test_home_shows_the_phase_and_the_countdown_in_my_zone(client):
    campaign, _, members = started_campaign_factory(players=1)
    user = members[0].user
    user.time_zone = "America/Los_Angeles"
    user.save()
    deadline = _open_phase(campaign).deadline_at
    page = _home(client, user)
    assert "Turn 1: Alliance scout phase. Deadline:" in page
    assert (f'<span class="countdown" data-countdown="{deadline.isoformat()}">'
            f'<time datetime="{deadline.isoformat()}">'
            f'{format_local(deadline, "America/Los_Angeles")}</time>') in page
    assert '<script type="module" src="/static/js/countdown.js"></script>' in page


def test_home_late_player_is_told_so(client):
    campaign, _, members = started_campaign_factory(players=2)
    _make_late(campaign)
    page = _home(client, members[1].user)
    assert ("<li>You are late: give your scout orders and mark them done. "
            "The Chief Warlord may now act for you.</li>") in page


def test_home_last_player_is_told_the_chief_warlord_is_waiting(client):
    campaign, _, members = started_campaign_factory(players=2)
    orders_mark_done(user=members[0].user, campaign=campaign)
    page = _home(client, members[1].user)
    assert ("<li>The Chief Warlord is waiting for you: give your scout orders and mark them "
            "done.</li>") in page


def test_home_player_done_waits_for_the_chief_warlord(client):
    campaign, _, members = started_campaign_factory(players=2)
    orders_mark_done(user=members[1].user, campaign=campaign)
    page = _home(client, members[1].user)
    assert "<li>Nothing to do: waiting for the Chief Warlord to end the phase.</li>" in page


def test_home_chief_warlord_must_end_the_phase_when_all_are_done(client):
    campaign, _, members = started_campaign_factory(players=2)
    for m in members:
        orders_mark_done(user=m.user, campaign=campaign)
    page = _home(client, members[0].user)
    assert "<li>Every player is done or late: end the phase.</li>" in page


def test_home_chief_warlord_is_told_who_is_late(client):
    campaign, _, members = started_campaign_factory(players=2)
    orders_mark_done(user=members[0].user, campaign=campaign)
    _make_late(campaign)
    name = members[1].user.public_name
    page = _home(client, members[0].user)
    assert f"<li>Late: {name}; you may give orders for them.</li>" in page
    assert "<li>Every player is done or late: end the phase.</li>" in page


def test_home_move_combat_phase_player_must_move_and_fight(client):
    campaign, gm, members = started_campaign_factory(players=1)
    phase_end(user=gm, campaign=campaign)
    page = _home(client, members[0].user)
    assert "<li>Move and fight, then mark your orders done.</li>" in page


def test_home_gm_must_play_the_opposition_phase(client):
    campaign, gm, members = started_campaign_factory(players=1)
    phase_end(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    assert "<li>Play the opposition&#x27;s phase, then end it.</li>" in _home(client, gm)


def test_home_player_waits_during_the_opposition_phase(client):
    campaign, gm, members = started_campaign_factory(players=1)
    phase_end(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    page = _home(client, members[0].user)
    assert "<li>Nothing to do: waiting for the GM to play the opposition.</li>" in page


def test_home_gm_during_an_alliance_phase_has_nothing_to_do(client):
    campaign, gm, _ = started_campaign_factory(players=1)
    page = _home(client, gm)
    assert "<li>Nothing to do: the alliance is playing its phase.</li>" in page


def _home_queries(client, user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(user)
    with CaptureQueriesContext(connection) as queries:
        client.get(reverse("home"))
    return len(queries)


def test_home_query_count_does_not_grow_with_campaigns(client):
    one, three = UserFactory(), UserFactory()
    player_factory(campaign=campaign_factory(), user=one)
    for _ in range(3):
        player_factory(campaign=campaign_factory(), user=three)
    assert _home_queries(client, three) == _home_queries(client, one)


def test_home_never_names_a_hidden_opposition_unit(client):
    from tests.web.fog import disguise_the_opposition, hidden_units, leaks

    campaign, _, (p1,) = started_campaign_factory(players=1)
    disguise_the_opposition(campaign)
    assert leaks(_home(client, p1.user), hidden_units(campaign)) == []


def test_home_tells_what_changed_since_the_last_visit(client):
    from accounts.timefmt import zoned_text
    from campaigns.models import Visit

    campaign, gm, (p1,) = started_campaign_factory(players=1)
    client.force_login(p1.user)
    client.get(reverse("campaigns:lobby", args=[campaign.pk]))
    seen = Visit.objects.get(membership=p1).seen_at
    phase_end(user=gm, campaign=campaign)  # the scout phase closes, move/combat opens
    page = client.get(reverse("home")).content.decode()
    from django.db.models import Q

    shown = Event.objects.filter(Q(side__isnull=True) | Q(side=p1.side), campaign=campaign,
                                 created_at__gt=seen).exclude(kind__in=["healing",
                                                                        "hits_adjusted"])
    newest = list(shown.order_by("-created_at").values_list("summary", flat=True))
    assert seen is not None
    assert (f"{len(newest)} new events since your last visit" in page,
            all(f"<li>{zoned_text(s, p1.user.time_zone)}</li>" in page for s in newest[:3])) == (True, True)
    # After another visit there is nothing new.
    Visit.objects.filter(membership=p1).delete()
    client.get(reverse("campaigns:lobby", args=[campaign.pk]))
    assert "since your last visit" not in client.get(reverse("home")).content.decode()
