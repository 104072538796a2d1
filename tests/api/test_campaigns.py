"""Campaign list, detail and join."""

import pytest

from campaigns.models import Membership
from tests.factories import UserFactory, campaign_factory, started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def test_the_list_holds_only_my_campaigns_with_my_role(client_for):
    mine, gm, (p1, *_rest) = started_campaign_factory(players=2)
    campaign_factory()  # someone else's
    response = client_for(p1.user).get("/api/v1/campaigns/")
    assert (response.status_code, response.json()) == (200, [{
        "id": mine.pk, "name": mine.name, "status": "running", "ruleset": "erfworld",
        "scenario": "broad_way", "role": "player", "side": "alliance", "is_chief_warlord": True,
        "membership": p1.pk,
    }])
    gm_rows = client_for(gm).get("/api/v1/campaigns/").json()
    assert [(r["id"], r["role"], r["side"]) for r in gm_rows] == [(mine.pk, "gm", None)]


def test_the_detail_of_my_campaign(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory(players=1)
    response = client_for(p1.user).get(f"/api/v1/campaigns/{campaign.pk}/")
    body = response.json()
    assert (response.status_code, body["id"], body["status"], body["phase_hours"]) == (
        200, campaign.pk, "running", campaign.phase_hours
    )
    assert "invite_code" not in body
    assert "setup_dice_seed" not in body


def test_the_detail_of_someone_elses_campaign_is_404(client_for):
    campaign = campaign_factory()
    response = client_for(UserFactory()).get(f"/api/v1/campaigns/{campaign.pk}/")
    assert (response.status_code, response.json()) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None}
    )


def test_join_with_an_invite_code(client_for):
    campaign = campaign_factory()
    user = UserFactory()
    response = client_for(user).post("/api/v1/campaigns/join/",
                                     {"invite_code": campaign.invite_code}, format="json")
    membership = Membership.objects.get(campaign=campaign, user=user)
    assert (response.status_code, response.json()) == (201, {
        "membership": membership.pk, "campaign": campaign.pk, "role": "player",
        "side": "alliance",
    })


def test_join_with_an_unknown_code_is_403_naming_the_field(client_for):
    response = client_for(UserFactory()).post("/api/v1/campaigns/join/",
                                              {"invite_code": "nope"}, format="json")
    assert (response.status_code, response.json()) == (403, {
        "code": "invalid_invite", "detail": "This invite code does not belong to any campaign.",
        "field": "invite_code",
    })


def test_joining_twice_is_400(client_for):
    campaign = campaign_factory()
    user = UserFactory(username="twice")
    client = client_for(user)
    client.post("/api/v1/campaigns/join/", {"invite_code": campaign.invite_code}, format="json")
    response = client.post("/api/v1/campaigns/join/", {"invite_code": campaign.invite_code},
                           format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "already_member", "detail": f"twice is already a member of {campaign.name!r}.",
        "field": None,
    })


def test_join_without_a_code_is_400_required(client_for):
    response = client_for(UserFactory()).post("/api/v1/campaigns/join/", {}, format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "required", "detail": "This field is required.", "field": "invite_code",
    })
