"""The GM hands the campaign to another user: not a player of it (they would see the enemy),
an existing account; the old GM leaves, the new one is told. Page and API."""

import pytest
from django.utils.html import escape
from rest_framework.test import APIClient

from campaigns.errors import NotAllowedError, RuleViolationError
from campaigns.models import Event, Membership, Notification
from campaigns.services.settings import gm_handover
from tests.factories import UserFactory, started_campaign_factory

pytestmark = pytest.mark.django_db


def test_the_role_passes_and_the_old_gm_leaves():
    campaign, gm, _ = started_campaign_factory(players=1)
    successor = UserFactory(username="marta")
    gm_handover(user=gm, campaign=campaign, username="Marta")
    assert (Membership.objects.get(campaign=campaign, role="gm").user,
            Membership.objects.filter(campaign=campaign, user=gm).exists(),
            Event.objects.filter(campaign=campaign, kind="settings_changed").get().summary,
            Notification.objects.get(user=successor).message) == (
        successor, False, f"{gm.public_name} handed the GM role to marta.",
        f"{gm.public_name} made you the GM of {campaign.name!r}.")


@pytest.mark.parametrize(("who", "code"), [("nobody", "unknown_user"), ("self", "invalid_field"),
                                           ("player", "is_player")])
def test_refusals_name_the_field_and_change_nothing(who, code):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    name = {"nobody": "ghost", "self": gm.username, "player": p1.user.username}[who]
    with pytest.raises(RuleViolationError) as caught:
        gm_handover(user=gm, campaign=campaign, username=name)
    assert (caught.value.code, caught.value.field,
            Membership.objects.get(campaign=campaign, role="gm").user) == (code, "username", gm)


def test_only_the_gm_hands_over():
    campaign, _, (p1,) = started_campaign_factory(players=1)
    UserFactory(username="marta")
    with pytest.raises(NotAllowedError):
        gm_handover(user=p1.user, campaign=campaign, username="marta")


def test_the_settings_page_hands_over_or_says_why_not(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    UserFactory(username="marta")
    client.force_login(gm)
    url = f"/campaigns/{campaign.pk}/gm/handover/"
    refused = client.post(url, {"username": p1.user.username})
    done = client.post(url, {"username": "marta"})
    assert (refused.status_code, escape(
        f"Username: {p1.user.public_name} plays in this campaign; a player cannot become its "
        "GM (they would see the enemy).") in refused.content.decode(), done.status_code,
        done["Location"], Membership.objects.get(campaign=campaign, role="gm").user.username) == (
        400, True, 302, "/", "marta")


def test_the_api_hands_over():
    campaign, gm, _ = started_campaign_factory(players=1)
    UserFactory(username="marta")
    api = APIClient()
    api.force_authenticate(gm)
    response = api.post(f"/api/v1/campaigns/{campaign.pk}/gm/handover/", {"username": "marta"},
                        format="json")
    assert (response.status_code, response.json()) == (200, {"gm": "marta"})
