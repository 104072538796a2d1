"""The replay of a phase's events and the dice verification page."""

import re

import pytest

from campaigns.models import Event, Phase
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db]


def test_replay_steps_through_the_phases_events(scouted, client_as):
    campaign, _, members = scouted
    phase = Phase.objects.filter(campaign=campaign).order_by("id").first()
    client = client_as(members[0].user)
    html = client.get(f"/campaigns/{campaign.pk}/replay/{phase.pk}/?step=1").content.decode()
    # The start (recorded outside any phase) belongs to the phase open then; the opposition
    # sees no scout order or report of the alliance.
    labels = re.findall(r'<li(?: aria-current="step")?><a href="\?step=\d+">([^<]+)</a>', html)
    assert labels == ["Campaign started", "Phase opened", "Scout order given", "Scout report",
                      "Phase closed"]
    assert "Event 1 of 5" in html
    assert 'rel="next"' in html


def test_replay_of_a_non_member_is_404(scouted, client_as):
    campaign = scouted[0]
    phase = Phase.objects.filter(campaign=campaign).first()
    url = f"/campaigns/{campaign.pk}/replay/{phase.pk}/"
    assert client_as(UserFactory()).get(url).status_code == 404


def test_the_dice_page_of_a_closed_phase_shows_the_seed_and_the_matches(scouted, client_as):
    campaign, _, members = scouted
    phase = Phase.objects.filter(campaign=campaign, status="closed").get()
    html = client_as(members[0].user).get(f"/campaigns/{campaign.pk}/dice/{phase.pk}/").content
    assert phase.dice_seed.encode() in html
    assert phase.dice_commitment.encode() in html


def test_the_dice_page_of_an_open_phase_keeps_the_seed_secret(started, client_as):
    campaign, _, members = started
    phase = Phase.objects.get(campaign=campaign, status="open")
    html = client_as(members[0].user).get(f"/campaigns/{campaign.pk}/dice/{phase.pk}/").content
    assert phase.dice_seed.encode() not in html
    assert b"secret until the phase closes" in html


def test_replay_opens_at_the_step_of_an_event_and_outlines_its_hexes(scouted, client_as):
    campaign, _, members = scouted
    event = Event.objects.get(campaign=campaign, kind="scout_report")
    html = client_as(members[0].user).get(
        f"/campaigns/{campaign.pk}/replay/{event.phase_id}/?event={event.pk}").content.decode()
    assert "Event 4 of 5" in html
    assert "Where: B1, B2, C3, D3, D4 (outlined on the map)." in html
    assert f"map.svg?phase={event.phase_id}&amp;mark=B1,B2,C3,D3,D4" in html


def test_the_map_outlines_the_marked_hexes(started, client):
    svg = client.get(f"/campaigns/{started[0].pk}/map.svg?mark=d4,J10").content.decode()
    assert svg.count('class="marked"') == 2


def test_a_mark_outside_the_map_is_404(started, client):
    assert client.get(f"/campaigns/{started[0].pk}/map.png?mark=Z99").status_code == 404
