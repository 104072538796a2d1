"""Scenarios and campaign creation: GET scenarios/, POST campaigns/."""

import pytest

from campaigns.models import Campaign, Membership
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def test_the_scenarios_are_listed_with_their_map_size(client_for):
    response = client_for(UserFactory()).get("/api/v1/scenarios/")
    assert (response.status_code, response.json()) == (200, [{
        "key": "broad_way", "name": "The Broad Way", "ruleset": "erfworld",
        "description": "The alliance enters at A1 and must fight down the Broad Way road to "
        "take the fortification at J10, held by a garrison behind a six-sided wall and a tower.",
        "cols": 12, "rows": 12,
    }])


def test_anonymous_cannot_list_the_scenarios(client_for):
    assert client_for().get("/api/v1/scenarios/").status_code == 401


def test_any_user_creates_a_campaign_and_becomes_its_gm(client_for):
    user = UserFactory()
    response = client_for(user).post("/api/v1/campaigns/",
                                     {"scenario": "broad_way", "name": "Spring"}, format="json")
    campaign = Campaign.objects.get(memberships__user=user)
    gm = Membership.objects.get(campaign=campaign, user=user)
    assert (response.status_code, response.json()) == (201, {
        "id": campaign.pk, "name": "Spring", "status": "setup", "ruleset": "erfworld",
        "scenario": "broad_way", "invite_code": campaign.invite_code,
        "setup_dice_commitment": campaign.setup_dice_commitment, "membership": gm.pk,
    })
    assert gm.role == "gm"


def test_without_a_name_the_campaign_takes_the_scenarios(client_for):
    response = client_for(UserFactory()).post("/api/v1/campaigns/", {"scenario": "broad_way"},
                                              format="json")
    assert (response.status_code, response.json()["name"]) == (201, "The Broad Way")


def test_the_created_campaign_is_in_my_list(client_for):
    user = UserFactory()
    client = client_for(user)
    created = client.post("/api/v1/campaigns/", {"scenario": "broad_way"}, format="json").json()
    assert [c["id"] for c in client.get("/api/v1/campaigns/").json()] == [created["id"]]


def test_an_unknown_scenario_is_400_naming_scenario_and_creates_nothing(client_for):
    response = client_for(UserFactory()).post("/api/v1/campaigns/", {"scenario": "atlantis"},
                                              format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_scenario",
        "detail": "There is no scenario 'atlantis'; known scenarios: broad_way.",
        "field": "scenario",
    })
    assert Campaign.objects.count() == 0


def test_a_scenario_key_is_required(client_for):
    response = client_for(UserFactory()).post("/api/v1/campaigns/", {}, format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "required", "detail": "This field is required.", "field": "scenario",
    })


def test_anonymous_cannot_create_a_campaign(client_for):
    response = client_for().post("/api/v1/campaigns/", {"scenario": "broad_way"}, format="json")
    assert (response.status_code, Campaign.objects.count()) == (401, 0)
