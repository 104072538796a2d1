"""The phase bar says what is true: a paused campaign with the GM's reason and the time the
phase keeps (no running countdown), "Waiting for the GM" in the opposition phase, and a
player may take back their own "done" while the phase is open."""

import pytest

from campaigns.errors import WrongStateError
from campaigns.games.erfworld import orders_mark_done, orders_mark_not_done, phase_end
from campaigns.models import PlayerPhaseStatus
from campaigns.services.deadlines import campaign_pause
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def _bar(client, campaign, user):
    client.force_login(user)
    return client.get(f"/campaigns/{campaign.pk}/phase-bar/").content.decode()


def test_a_paused_campaign_shows_the_reason_and_no_countdown(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    campaign_pause(user=gm, campaign=campaign, reason="Snowed in.")
    bar = _bar(client, campaign, p1.user)
    assert ("<strong>Paused by the GM</strong>: Snowed in. The clock is stopped; the phase "
            "will have 2 d 23 h 59 min left when the GM resumes." in bar,
            "data-countdown" in bar) == (True, False)


def test_the_opposition_phase_says_the_gm_is_playing(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    phase_end(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    assert ("Waiting for the GM (opposition phase)" in _bar(client, campaign, p1.user),
            "Waiting for the GM (opposition phase)" in _bar(client, campaign, gm)) == (
        True, False)


def test_done_can_be_taken_back_until_the_phase_closes(client):
    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    orders_mark_done(user=p1.user, campaign=campaign)
    bar = _bar(client, campaign, p1.user)
    response = client.post(f"/campaigns/{campaign.pk}/phase/undone/", follow=True)
    status = PlayerPhaseStatus.objects.get(membership=p1, phase__status="open")
    with pytest.raises(WrongStateError) as caught:
        orders_mark_not_done(user=p1.user, campaign=campaign)
    assert ('data-key="phase-undone"' in bar, status.done_at,
            "Your orders are open again: not done yet." in response.content.decode(),
            caught.value.code) == (True, None, True, "not_done")
