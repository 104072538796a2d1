"""History: the past phases, and the map as it stood at a phase's opening from its snapshot,
read-only, with the fog of war applied (a player sees only their side's stacks)."""

import zoneinfo

import pytest
from django.urls import reverse

from campaigns.models import Phase, PhaseStatus, Unit
from tests.factories import UserFactory, started_campaign_factory
from tests.web.fog import hidden_units, leaks, scouted_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

def _history(campaign):
    return reverse("campaigns:history", args=[campaign.pk])


def _phase_page(campaign, phase):
    return reverse("campaigns:history-phase", args=[campaign.pk, phase.pk])


def _second_phase_campaign():
    """Opposition disguised, D4 scouted, the move/combat phase open (its snapshot taken)."""
    campaign, gm, members = scouted_campaign()
    return campaign, gm, members, Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)


def test_history_anonymous_is_sent_to_login(client):
    campaign, _, _ = started_campaign_factory(players=1)
    response = client.get(_history(campaign))
    assert response["Location"] == f"{reverse('account_login')}?next={_history(campaign)}"


def test_history_outsider_gets_404(client):
    campaign, _, _ = started_campaign_factory(players=1)
    client.force_login(UserFactory())
    assert client.get(_history(campaign)).status_code == 404


def test_history_phase_outsider_gets_404(client):
    campaign, _, _ = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign)
    client.force_login(UserFactory())
    assert client.get(_phase_page(campaign, phase)).status_code == 404


def test_history_lists_every_phase_with_a_snapshot(client):
    campaign, _, (p1,), second = _second_phase_campaign()
    first = Phase.objects.get(campaign=campaign, status=PhaseStatus.CLOSED)
    client.force_login(p1.user)
    page = client.get(_history(campaign)).content.decode()
    assert f'<a href="{_phase_page(campaign, first)}">Turn 1: Alliance scout phase</a>' in page
    assert (f'<a href="{_phase_page(campaign, second)}">Turn 1: Alliance move/combat '
            'phase</a>') in page
    assert "(open now)" in page


def test_history_phase_of_another_campaign_gets_404(client):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    other, _, _ = started_campaign_factory(players=1)
    client.force_login(p1.user)
    foreign = Phase.objects.get(campaign=other)
    assert client.get(_phase_page(campaign, foreign)).status_code == 404


def test_history_phase_shows_the_players_own_stack(client):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign)
    client.force_login(p1.user)
    page = client.get(_phase_page(campaign, phase)).content.decode()
    assert '<tr><th scope="row">A1</th><td>alliance</td>' in page
    assert "Warlord 1 (Warlord, 5 hits)" in page


def test_history_phase_mounts_the_read_only_map(client):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign)
    client.force_login(p1.user)
    page = client.get(_phase_page(campaign, phase)).content.decode()
    assert '<script id="history-data" type="application/json">' in page
    assert 'import { mountMap } from "/static/js/map.js";' in page
    assert "{ readOnly: true }" in page


def test_history_phase_shows_a_player_what_their_side_knew_then_and_nothing_else(client):
    campaign, _, (p1,), second = _second_phase_campaign()
    # At the move/combat phase's opening the alliance had sighted D4 in the scout phase: its
    # units are shown as sighted (with the turn), and no other opposition unit anywhere.
    d4 = [(u.pk, u.name) for u in Unit.objects.filter(campaign=campaign, stack__hex="D4")
          .order_by("position", "pk")]
    client.force_login(p1.user)
    page = client.get(_phase_page(campaign, second)).content.decode()
    assert (leaks(page, hidden_units(campaign)), [name for _, name in d4 if name in page],
            [pk for pk, _ in d4 if str(pk) in page]) == ([], [name for _, name in d4], [])
    assert '<tr><th scope="row">D4</th><td>turn 1</td>' in page
    assert "Gatekeeper" not in page


def test_history_of_the_scout_phase_shows_no_sighting_made_after_it_opened(client):
    campaign, _, (p1,), _ = _second_phase_campaign()
    scout = Phase.objects.get(campaign=campaign, kind="scout")
    every = [(u.pk, u.name) for u in Unit.objects.filter(campaign=campaign,
                                                         side__kind="opposition")]
    client.force_login(p1.user)
    page = client.get(_phase_page(campaign, scout)).content.decode()
    assert (leaks(page, every), "Your side had sighted no hex yet." in page) == ([], True)


def test_history_phase_shows_the_gm_every_stack(client):
    campaign, gm, _, second = _second_phase_campaign()
    hidden = hidden_units(campaign)
    client.force_login(gm)
    page = client.get(_phase_page(campaign, second)).content.decode()
    assert len({name for _, name in hidden} & set(leaks(page, hidden))) == len(hidden)


def test_history_list_never_names_a_hidden_unit(client):
    campaign, _, (p1,), _ = _second_phase_campaign()
    client.force_login(p1.user)
    page = client.get(_history(campaign)).content.decode()
    assert leaks(page, hidden_units(campaign)) == []


def test_history_phase_times_are_in_the_viewers_zone(client):
    from accounts.timefmt import format_local

    campaign, _, (p1,) = started_campaign_factory(players=1)
    p1.user.time_zone = "Europe/Berlin"
    p1.user.save()
    phase = Phase.objects.get(campaign=campaign)
    client.force_login(p1.user)
    page = client.get(_phase_page(campaign, phase)).content.decode()
    local = phase.opened_at.astimezone(zoneinfo.ZoneInfo("Europe/Berlin"))
    assert (f'<time datetime="{local.isoformat()}">'
            f'{format_local(phase.opened_at, "Europe/Berlin")}</time>') in page
