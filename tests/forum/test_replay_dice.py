"""The replay of a phase's events and the dice verification page."""

import pytest

from campaigns.models import Event, Phase
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db]


def test_replay_steps_through_the_phases_events(scouted, client_as):
    campaign, _, members = scouted
    phase = Phase.objects.filter(campaign=campaign).order_by("id").first()
    client = client_as(members[0].user)
    html = client.get(f"/campaigns/{campaign.pk}/replay/{phase.pk}/?step=1").content.decode()
    visible = Event.objects.filter(phase=phase, side__isnull=True).count() + Event.objects.filter(
        phase=phase, side__kind="alliance").count()
    assert f"Event 1 of {visible}" in html
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
