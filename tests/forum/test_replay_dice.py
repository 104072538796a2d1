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
    assert f"map.svg?phase={event.phase_id}&amp;step=4&amp;mark=B1,B2,C3,D3,D4" in html


def test_the_map_outlines_the_marked_hexes(started, client):
    svg = client.get(f"/campaigns/{started[0].pk}/map.svg?mark=d4,J10").content.decode()
    assert svg.count('class="marked"') == 2


def test_a_mark_outside_the_map_is_404(started, client):
    assert client.get(f"/campaigns/{started[0].pk}/map.png?mark=Z99").status_code == 404


@pytest.fixture
def fought(started):
    """Turn 1's move/combat phase with one fight at D4, then closed: its seed is revealed."""
    from campaigns.games.erfworld import phase_end
    from campaigns.games.erfworld.move_combat import stack_attack
    from tests.campaigns.engine_setup import opposition_stack, own_stack, put

    campaign, gm, members = started
    phase_end(user=gm, campaign=campaign)
    phase = Phase.objects.get(campaign=campaign, status="open")
    stack_attack(user=members[0].user, campaign=campaign, stack=put(own_stack(members[0]), "D3"),
                 target=opposition_stack(campaign, "D4"))
    phase_end(user=gm, campaign=campaign)
    phase.refresh_from_db()
    return campaign, members, phase


def test_every_roll_of_a_closed_phase_is_re_derived_and_matches(fought, client_as):
    from campaigns.models import DiceRoll

    campaign, members, phase = fought
    html = client_as(members[0].user).get(f"/campaigns/{campaign.pk}/dice/{phase.pk}/").content
    rolls = DiceRoll.objects.filter(phase=phase).count()
    assert rolls > 0
    assert f"all {rolls} rolls match".encode() in html
    assert html.count(b"</td>\n            <td>yes</td></tr>") == rolls
    assert phase.dice_seed.encode() in html


def test_a_tampered_roll_is_marked_as_not_matching(fought, client_as):
    from campaigns.models import DiceRoll

    campaign, members, phase = fought
    roll = DiceRoll.objects.filter(phase=phase).order_by("number").first()
    DiceRoll.objects.filter(pk=roll.pk).update(value=roll.value % roll.sides + 1)
    html = client_as(members[0].user).get(f"/campaigns/{campaign.pk}/dice/{phase.pk}/").content
    assert b"some rolls do not match" in html
    assert html.count(b'<strong class="form-error">no</strong>') == 1


def test_a_phase_without_dice_says_so(scouted, client_as):
    campaign, _, members = scouted
    phase = Phase.objects.get(campaign=campaign, status="closed")
    html = client_as(members[0].user).get(f"/campaigns/{campaign.pk}/dice/{phase.pk}/").content
    assert b"no die was rolled in this phase" in html


def test_the_forum_lists_each_phases_picture_replay_and_dice(scouted, client_as):
    campaign, _, members = scouted
    html = client_as(members[0].user).get(f"/campaigns/{campaign.pk}/forum/").content.decode()
    for phase in Phase.objects.filter(campaign=campaign):
        assert f"/campaigns/{campaign.pk}/map.png?phase={phase.pk}" in html
        assert f"/campaigns/{campaign.pk}/replay/{phase.pk}/" in html
        assert f"/campaigns/{campaign.pk}/dice/{phase.pk}/" in html
