"""The election of the Chief Warlord, the GM's appointment, and the start."""

import pytest

from campaigns.games.erfworld import chief_warlord_appoint
from campaigns.models import Membership, Phase
from tests.campaigns.conftest import fingerprint
from tests.factories import (
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def url(campaign, tail):
    return f"/api/v1/campaigns/{campaign.pk}/{tail}"


def lobby(players=3, armies=True):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    members = [player_factory(campaign=campaign) for _ in range(players)]
    if armies:
        for m in members:
            army_factory(membership=m)
    return campaign, gm, members


def chief_warlord_of(campaign):
    return Membership.objects.filter(campaign=campaign, is_chief_warlord=True).first()


# --- Vote ------------------------------------------------------------------------------------


def test_a_vote_without_a_majority_yet_elects_nobody(client_for):
    campaign, _, (ann, bob, _cid) = lobby(armies=False)
    response = client_for(ann.user).post(url(campaign, "election/vote/"),
                                         {"candidate": bob.pk}, format="json")
    assert (response.status_code, response.json()) == (200, {
        "voter": ann.pk, "candidate": bob.pk, "chief_warlord": None,
    })


def test_the_gm_closes_the_election_and_the_most_votes_win(client_for):
    campaign, gm, (ann, bob, _cid) = lobby(armies=False)
    client_for(ann.user).post(url(campaign, "election/vote/"), {"candidate": bob.pk},
                              format="json")
    vote = client_for(bob.user).post(url(campaign, "election/vote/"), {"candidate": bob.pk},
                                     format="json")
    closed = client_for(gm).post(url(campaign, "gm/close-election/"))
    assert (vote.json()["chief_warlord"], closed.status_code, closed.json()) == (
        None, 200, {"chief_warlord": bob.pk})
    assert chief_warlord_of(campaign).pk == bob.pk


def test_voting_for_the_gm_is_403_naming_candidate_and_changes_nothing(client_for):
    campaign, gm, (ann, *_rest) = lobby(armies=False)
    gm_membership = Membership.objects.get(campaign=campaign, user=gm)
    before = fingerprint(campaign.pk)
    response = client_for(ann.user).post(url(campaign, "election/vote/"),
                                         {"candidate": gm_membership.pk}, format="json")
    assert (response.status_code, response.json()) == (403, {
        "code": "invalid_candidate",
        "detail": "Only an alliance player of this campaign can be Chief Warlord.",
        "field": "candidate",
    })
    assert fingerprint(campaign.pk) == before


def test_voting_for_an_unknown_membership_is_400_naming_candidate(client_for):
    campaign, _, (ann, *_rest) = lobby(armies=False)
    other = player_factory(campaign=campaign_factory())
    response = client_for(ann.user).post(url(campaign, "election/vote/"),
                                         {"candidate": other.pk}, format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "unknown_player", "detail": "There is no such player in this campaign.",
        "field": "candidate",
    })


def test_voting_once_there_is_a_chief_warlord_is_400(client_for):
    campaign, gm, (ann, bob, _cid) = lobby(armies=False)
    chief_warlord_appoint(user=gm, campaign=campaign, membership=ann)
    response = client_for(bob.user).post(url(campaign, "election/vote/"),
                                         {"candidate": bob.pk}, format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "chief_warlord_exists", "detail": "The alliance already has a Chief Warlord.",
        "field": None,
    })


def test_voting_after_the_start_is_400(client_for):
    campaign, _, (ann, bob, _cid) = started_campaign_factory()
    response = client_for(bob.user).post(url(campaign, "election/vote/"),
                                         {"candidate": bob.pk}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "not_setup")
    assert chief_warlord_of(campaign).pk == ann.pk


def test_the_gm_does_not_vote(client_for):
    campaign, gm, (ann, *_rest) = lobby(armies=False)
    response = client_for(gm).post(url(campaign, "election/vote/"), {"candidate": ann.pk},
                                   format="json")
    assert (response.status_code, response.json()["code"]) == (403, "wrong_side")


def test_an_outsider_gets_404_for_a_vote(client_for):
    campaign, _, (ann, *_rest) = lobby(armies=False)
    response = client_for(UserFactory()).post(url(campaign, "election/vote/"),
                                              {"candidate": ann.pk}, format="json")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_anonymous_cannot_vote(client_for):
    campaign, _, (ann, *_rest) = lobby(armies=False)
    response = client_for().post(url(campaign, "election/vote/"), {"candidate": ann.pk},
                                 format="json")
    assert response.status_code == 401


# --- Appointment -----------------------------------------------------------------------------


def test_the_gm_appoints_the_chief_warlord(client_for):
    campaign, gm, (_ann, bob, _cid) = lobby(armies=False)
    response = client_for(gm).post(url(campaign, "gm/appoint-chief-warlord/"),
                                   {"membership": bob.pk}, format="json")
    assert (response.status_code, response.json()) == (200, {"chief_warlord": bob.pk})
    assert chief_warlord_of(campaign).pk == bob.pk


def test_a_player_cannot_appoint_and_nothing_changes(client_for):
    campaign, _, (ann, *_rest) = lobby(armies=False)
    before = fingerprint(campaign.pk)
    response = client_for(ann.user).post(url(campaign, "gm/appoint-chief-warlord/"),
                                         {"membership": ann.pk}, format="json")
    assert (response.status_code, response.json()) == (403, {
        "code": "gm_only", "detail": "Only the Game Master may do this.", "field": None,
    })
    assert fingerprint(campaign.pk) == before


def test_appointing_without_a_membership_is_400_required(client_for):
    campaign, gm, _ = lobby(armies=False)
    response = client_for(gm).post(url(campaign, "gm/appoint-chief-warlord/"), {},
                                   format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "required", "detail": "This field is required.", "field": "membership",
    })


def test_an_outsider_gets_404_for_an_appointment(client_for):
    campaign, _, (ann, *_rest) = lobby(armies=False)
    response = client_for(UserFactory()).post(url(campaign, "gm/appoint-chief-warlord/"),
                                              {"membership": ann.pk}, format="json")
    assert response.status_code == 404


# --- Start -----------------------------------------------------------------------------------


def test_the_gm_starts_the_campaign(client_for):
    campaign, gm, (ann, *_rest) = lobby()
    client = client_for(gm)
    client.post(url(campaign, "gm/appoint-chief-warlord/"), {"membership": ann.pk},
                format="json")
    response = client.post(url(campaign, "gm/start/"))
    campaign.refresh_from_db()
    phase = Phase.objects.get(campaign=campaign, status="open")
    assert (response.status_code, response.json()) == (200, {
        "id": campaign.pk, "status": "running", "version": 1,
        "setup_dice_seed": campaign.setup_dice_seed,
        "phase": {"id": phase.pk, "kind": "scout", "turn": 1,
                  "opened_at": phase.opened_at.isoformat().replace("+00:00", "Z"),
                  "deadline_at": phase.deadline_at.isoformat().replace("+00:00", "Z"),
                  "dice_commitment": phase.dice_commitment, "awaiting_draw": False},
    })


def test_starting_without_a_chief_warlord_is_400_and_changes_nothing(client_for):
    campaign, gm, _ = lobby()
    before = fingerprint(campaign.pk)
    response = client_for(gm).post(url(campaign, "gm/start/"))
    assert (response.status_code, response.json()) == (400, {
        "code": "no_chief_warlord",
        "detail": "The alliance needs a Chief Warlord (elected, or appointed by the GM) to "
        "start.", "field": None,
    })
    assert fingerprint(campaign.pk) == before


def test_a_player_cannot_start(client_for):
    campaign, _, (ann, *_rest) = lobby()
    response = client_for(ann.user).post(url(campaign, "gm/start/"))
    assert (response.status_code, response.json()["code"]) == (403, "gm_only")


def test_an_outsider_gets_404_for_the_start(client_for):
    campaign, _, _ = lobby()
    assert client_for(UserFactory()).post(url(campaign, "gm/start/")).status_code == 404


def test_anonymous_cannot_start(client_for):
    campaign, _, _ = lobby()
    assert client_for().post(url(campaign, "gm/start/")).status_code == 401
